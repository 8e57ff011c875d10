package dataset

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"syscall"
)

// DefaultMaxFileBytes is the largest a dataset file may be unless Options
// says otherwise: 64 MiB holds about 160,000 candidates, many times any
// real election, while a load stays within a few hundred megabytes.
const DefaultMaxFileBytes = 64 << 20

// Options are the limits a load works within.
type Options struct {
	// MaxFileBytes is the largest a dataset file may be, in bytes; 0
	// means DefaultMaxFileBytes.
	MaxFileBytes int64
	// RecordsOnly checks the dataset and puts its records in published
	// order, but prepares none of the API's answers: the dataset serves
	// Manifest, Version, Parties, Districts, Candidates and Compare only,
	// in a fraction of a full load's memory. ballot diff loads so.
	RecordsOnly bool
	// Warn, when set, is given each warning of a valid dataset as it is
	// found, in the order a report lists them, and the warnings are not
	// kept: validate writes them so, rather than hold one for each of a
	// million records.
	Warn func(Problem)
	// Current, when set, tells from the manifest's [election] whether
	// the dataset is the current election of its archive (a dataset
	// served alone is the current election of its archive of one), whose
	// districts each list their localities, as the contract says: a
	// district without is an error. Otherwise it is a warning: a past
	// election's record may not have them. Package archive sets it.
	Current func(Election) bool
	// Keep, when set, is given the bytes of each file as it is read, to
	// keep: the load neither writes to them nor holds them once it ends.
	// Package archive keeps a past election's files so, to load it again
	// from exactly the bytes it checked (see archive.Election.Dataset).
	Keep func(name string, b []byte)
}

func (o Options) maxFileBytes() int64 {
	if o.MaxFileBytes <= 0 {
		return DefaultMaxFileBytes
	}
	return o.MaxFileBytes
}

// FileError is why a file of a dataset directory, or of import's input
// directory, is refused: Rule is the problem's rule ("file-outside",
// "file-not-regular", "file-too-large") and Message says it without a byte
// of the file. Opening and reading give it as the Err of a *fs.PathError.
type FileError struct {
	Rule    string
	Message string
}

func (e *FileError) Error() string { return e.Message }

// dirFS reads the files of a dataset directory. Only paths that stay inside
// the directory once links are resolved can be opened (os.Root checks each
// step, so a link swapped in during the open cannot escape either), and
// files are opened without blocking, so a FIFO or a device in place of a
// file is found by its mode instead of hanging the load. place names the
// directory in a refusal: "dataset directory" or "input directory".
type dirFS struct {
	dir   string
	root  *os.Root
	place string
}

func (d dirFS) Open(name string) (fs.File, error) {
	f, err := d.root.OpenFile(name, os.O_RDONLY|syscall.O_NONBLOCK, 0)
	if err != nil && !errors.Is(err, fs.ErrNotExist) && !ResolvesInside(d.dir, name) {
		return nil, &fs.PathError{Op: "open", Path: name, Err: &FileError{
			Rule:    "file-outside",
			Message: fmt.Sprintf("is a link to a file outside the %s; only files inside it are read", d.place),
		}}
	}
	return f, err
}

// openFile opens name in fsys as a dataset file: a regular file of at most
// limit bytes. A file refused for what it is is a *fs.PathError whose Err
// is a *FileError; nothing of it has been read.
func openFile(fsys fs.FS, name string, limit int64) (fs.File, fs.FileInfo, error) {
	f, err := fsys.Open(name)
	if err != nil {
		return nil, nil, err
	}
	fi, err := f.Stat()
	refuse := func(rule, format string, args ...any) (fs.File, fs.FileInfo, error) {
		f.Close()
		return nil, nil, &fs.PathError{Op: "open", Path: name, Err: &FileError{Rule: rule, Message: fmt.Sprintf(format, args...)}}
	}
	switch {
	case err != nil:
		f.Close()
		return nil, nil, err
	case !fi.Mode().IsRegular():
		return refuse("file-not-regular", "is not a regular file (%s); a FIFO, a device or a directory cannot hold dataset data", fileKind(fi.Mode()))
	case fi.Size() > limit:
		return refuse("file-too-large", "is %d bytes, more than the limit of %d bytes a file (max_dataset_bytes)", fi.Size(), limit)
	}
	return f, fi, nil
}

// grewPast is the refusal of a file that grew past limit while read.
func grewPast(limit int64) *FileError {
	return &FileError{Rule: "file-too-large", Message: fmt.Sprintf("grew past the limit of %d bytes a file (max_dataset_bytes) while being read", limit)}
}

// InputDir is a directory whose files are opened as a dataset directory's
// are (see LoadDirContext): regular files only, none through a link out of
// the directory, none larger than the limit, no read past the limit even
// when a file grows, and no read once ctx ends. ballot import reads its
// sheets through it. It is an fs.FS; close it when done.
type InputDir struct {
	ctx   context.Context
	fs    dirFS
	limit int64
}

// OpenInputDir opens dir, resolved once (see ResolveDir), for reading
// within opts' limits until ctx ends.
func OpenInputDir(ctx context.Context, dir string, opts Options) (*InputDir, error) {
	resolved, err := ResolveDir(dir)
	if err != nil {
		return nil, err
	}
	root, err := os.OpenRoot(resolved)
	if err != nil {
		return nil, err
	}
	return &InputDir{ctx: ctx, fs: dirFS{dir: resolved, root: root, place: "input directory"}, limit: opts.maxFileBytes()}, nil
}

// Open opens a file of the directory, or refuses it with a *FileError.
func (d *InputDir) Open(name string) (fs.File, error) {
	if err := d.ctx.Err(); err != nil {
		return nil, &fs.PathError{Op: "open", Path: name, Err: context.Cause(d.ctx)}
	}
	f, _, err := openFile(d.fs, name, d.limit)
	if err != nil {
		return nil, err
	}
	return &inputFile{File: f, name: name, limit: d.limit, r: io.LimitReader(ctxReader{d.ctx, f}, d.limit+1)}, nil
}

// Close releases the directory.
func (d *InputDir) Close() error { return d.fs.root.Close() }

// inputFile reads a file of an InputDir up to its limit, while the
// directory's context lasts.
type inputFile struct {
	fs.File
	name  string
	limit int64
	read  int64
	r     io.Reader
}

func (f *inputFile) Read(p []byte) (int, error) {
	n, err := f.r.Read(p)
	f.read += int64(n)
	if f.read > f.limit {
		return 0, &fs.PathError{Op: "read", Path: f.name, Err: grewPast(f.limit)}
	}
	if err != nil && err != io.EOF {
		err = &fs.PathError{Op: "read", Path: f.name, Err: unwrapAll(err)}
	}
	return n, err
}

// ResolvesInside reports whether the file name in dir, with every symbolic
// link resolved, is inside dir, itself resolved first: a dataset directory
// may be a link (as atomic publishing needs) but its files may not lead out
// of it. A path that cannot be resolved is not inside.
func ResolvesInside(dir, name string) bool {
	base, err := filepath.EvalSymlinks(dir)
	if err != nil {
		return false
	}
	target, err := filepath.EvalSymlinks(filepath.Join(base, name))
	if err != nil {
		return false
	}
	rel, err := filepath.Rel(base, target)
	return err == nil && filepath.IsLocal(rel)
}

// LoadDirContext loads the dataset in directory dir within opts' limits.
// dir is resolved once (see ResolveDir) and only regular files inside the
// directory it resolves to are read; it stops with ctx's error when
// ctx ends between files or while a file is read or scanned.
func LoadDirContext(ctx context.Context, dir string, opts Options) (*Dataset, error) {
	var ds *Dataset
	err := withDir(dir, func(fsys fs.FS) (err error) {
		ds, err = LoadContext(ctx, fsys, opts)
		return err
	})
	return ds, err
}

// CheckDirContext applies to the dataset in directory dir every rule
// LoadDirContext applies, and stops there: it does not prepare the answers
// a server gives, which are most of a load's time and memory and check
// nothing. It returns the warnings of a valid dataset, or a *Report of
// every problem of an invalid one.
func CheckDirContext(ctx context.Context, dir string, opts Options) ([]Problem, error) {
	var warnings []Problem
	err := withDir(dir, func(fsys fs.FS) error {
		d, r, err := check(ctx, fsys, opts)
		if err == nil {
			d.release()
			warnings = r.Warnings
		}
		return err
	})
	return warnings, err
}

// withDir opens the dataset directory dir for f (see LoadDirContext).
func withDir(dir string, f func(fs.FS) error) error {
	resolved, err := ResolveDir(dir)
	if err != nil {
		return &Report{Errors: []Problem{{File: dir, Rule: "file-missing", Message: "is not a dataset directory"}}}
	}
	root, err := os.OpenRoot(resolved)
	if err != nil {
		return &Report{Errors: []Problem{{File: dir, Rule: "file-unreadable", Message: fmt.Sprintf("cannot be opened: %v", errors.Unwrap(err))}}}
	}
	defer root.Close()
	return f(dirFS{dir: resolved, root: root, place: "dataset directory"})
}

// readFile reads one file of the dataset, reporting a missing, unreadable,
// irregular or oversized file as a problem of that file. The size is
// checked before reading and while reading, so a file that grows, or a
// device that never ends, is not read past the limit.
func readFile(ctx context.Context, fsys fs.FS, name string, limit int64, r *Report) ([]byte, bool) {
	f, fi, err := openFile(fsys, name, limit)
	if err != nil {
		var refused *FileError
		switch {
		case errors.Is(err, fs.ErrNotExist):
			r.errorf(name, "", "file-missing", "file is missing")
		case errors.As(err, &refused):
			r.errorf(name, "", refused.Rule, "%s", refused.Message)
		default:
			r.errorf(name, "", "file-unreadable", "file cannot be read: %v", errors.Unwrap(err))
		}
		return nil, false
	}
	defer f.Close()
	// A file held in memory is read in place: a copy would add its size to
	// the peak memory of the importer's check. Nothing checks it by
	// writing to it.
	if mf, ok := f.(*memFile); ok && fi.Size() <= limit {
		return mf.b, true
	}
	// One buffer of the stated size (and a byte to see the end), so the
	// file is held once, not in doubling copies.
	b := make([]byte, 0, fi.Size()+1)
	src := io.LimitReader(ctxReader{ctx, f}, limit+1)
	for {
		if len(b) == cap(b) {
			b = append(b, 0)[:len(b)]
		}
		n, err := src.Read(b[len(b):cap(b)])
		b = b[:len(b)+n]
		if err == io.EOF {
			break
		}
		if err != nil {
			if ctx.Err() == nil {
				r.errorf(name, "", "file-unreadable", "file cannot be read: %v", unwrapAll(err))
			}
			return nil, false
		}
	}
	if int64(len(b)) > limit {
		grew := grewPast(limit)
		r.errorf(name, "", grew.Rule, "%s", grew.Message)
		return nil, false
	}
	return b, true
}

// ctxReader stops reading once its context ends.
type ctxReader struct {
	ctx context.Context
	r   io.Reader
}

func (c ctxReader) Read(p []byte) (int, error) {
	if err := c.ctx.Err(); err != nil {
		return 0, err
	}
	// Reads in pieces of 1 MiB, so a cancellation is seen within one.
	return c.r.Read(p[:min(len(p), 1<<20)])
}

// unwrapAll strips the path an error carries: the problem already names
// the file.
func unwrapAll(err error) error {
	var perr *fs.PathError
	if errors.As(err, &perr) {
		return perr.Err
	}
	return err
}

func fileKind(m fs.FileMode) string {
	switch {
	case m&fs.ModeNamedPipe != 0:
		return "a FIFO"
	case m&fs.ModeDevice != 0 || m&fs.ModeCharDevice != 0:
		return "a device"
	case m.IsDir():
		return "a directory"
	case m&fs.ModeSocket != 0:
		return "a socket"
	}
	return "mode " + m.String()
}

// PeakMemoryPerByte bounds the peak memory of a load, validate's and a
// reload's alike, as a multiple of the dataset files' total size: measured
// on the shapes of file the rules accept up to the size limit (see
// docs/PERFORMANCE.md), the worst plus a margin (a reload of many tiny
// parties or of many minimal candidates, 8.2 to 8.5 times; validate at
// most 6.8 times). A reload that would take the process past its memory
// limit is refused before it reads a byte. TestLoadMemoryPerByte in
// commands holds every shape to it.
const PeakMemoryPerByte = 12

// FilesSize returns the total size of the dataset files in dir, as a load
// would read them now (dir resolved as ResolveDir does); a file that is
// missing or is no regular file counts 0, since a load refuses it unread.
func FilesSize(dir string) (int64, error) {
	resolved, err := ResolveDir(dir)
	if err != nil {
		return 0, err
	}
	var total int64
	for _, name := range FileNames() {
		if fi, err := os.Stat(filepath.Join(resolved, name)); err == nil && fi.Mode().IsRegular() {
			total += fi.Size()
		}
	}
	return total, nil
}
