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
}

func (o Options) maxFileBytes() int64 {
	if o.MaxFileBytes <= 0 {
		return DefaultMaxFileBytes
	}
	return o.MaxFileBytes
}

// errOutside is what opening a dataset file gives when its resolved path
// leaves the dataset directory.
var errOutside = errors.New("the file's resolved path leaves the dataset directory")

// dirFS reads the files of a dataset directory. Only paths that stay inside
// the directory once links are resolved can be opened (os.Root checks each
// step, so a link swapped in during the open cannot escape either), and
// files are opened without blocking, so a FIFO or a device in place of a
// file is found by its mode instead of hanging the load.
type dirFS struct {
	dir  string
	root *os.Root
}

func (d dirFS) Open(name string) (fs.File, error) {
	f, err := d.root.OpenFile(name, os.O_RDONLY|syscall.O_NONBLOCK, 0)
	if err != nil && !errors.Is(err, fs.ErrNotExist) && !ResolvesInside(d.dir, name) {
		return nil, &fs.PathError{Op: "open", Path: name, Err: errOutside}
	}
	return f, err
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
	return f(dirFS{dir: resolved, root: root})
}

// readFile reads one file of the dataset, reporting a missing, unreadable,
// irregular or oversized file as a problem of that file. The size is
// checked before reading and while reading, so a file that grows, or a
// device that never ends, is not read past the limit.
func readFile(ctx context.Context, fsys fs.FS, name string, limit int64, r *Report) ([]byte, bool) {
	f, err := fsys.Open(name)
	if err != nil {
		switch {
		case errors.Is(err, fs.ErrNotExist):
			r.errorf(name, "", "file-missing", "file is missing")
		case errors.Is(err, errOutside):
			r.errorf(name, "", "file-outside", "is a link to a file outside the dataset directory; only files inside it are read")
		default:
			r.errorf(name, "", "file-unreadable", "file cannot be read: %v", errors.Unwrap(err))
		}
		return nil, false
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		r.errorf(name, "", "file-unreadable", "file cannot be read: %v", errors.Unwrap(err))
		return nil, false
	}
	if !fi.Mode().IsRegular() {
		r.errorf(name, "", "file-not-regular", "is not a regular file (%s); a FIFO, a device or a directory cannot hold dataset data", fileKind(fi.Mode()))
		return nil, false
	}
	if fi.Size() > limit {
		r.errorf(name, "", "file-too-large", "is %d bytes, more than the limit of %d bytes a file (max_dataset_bytes)", fi.Size(), limit)
		return nil, false
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
		r.errorf(name, "", "file-too-large", "grew past the limit of %d bytes a file (max_dataset_bytes) while being read", limit)
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
// docs/PERFORMANCE.md), the worst plus a margin. A reload that would take
// the process past its memory limit is refused before it reads a byte.
const PeakMemoryPerByte = 24

// FilesSize returns the total size of the dataset files in dir, as a load
// would read them now (dir resolved as ResolveDir does); a file that is
// missing or is no regular file counts 0, since a load refuses it unread.
func FilesSize(dir string) (int64, error) {
	resolved, err := ResolveDir(dir)
	if err != nil {
		return 0, err
	}
	var total int64
	for _, name := range [...]string{ManifestFile, PartiesFile, DistrictsFile, CandidatesFile} {
		if fi, err := os.Stat(filepath.Join(resolved, name)); err == nil && fi.Mode().IsRegular() {
			total += fi.Size()
		}
	}
	return total, nil
}
