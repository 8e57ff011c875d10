package archive

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"

	"ballot/dataset"
)

// File is an archive's manifest, in the archive's directory: which
// elections it holds, and which is current.
const File = "archive.toml"

// Manifest is an archive's archive.toml.
type Manifest struct {
	// Elections are the directories of the elections, each a dataset
	// directory, relative to archive.toml, in the order validate reports
	// them.
	Elections []string `toml:"elections"`
	// Current is the slug of the current election, the one the paths
	// without an election answer for.
	Current string `toml:"current"`
	// Title names the archive as a whole, where a page is of every
	// election (the history, the elections, the people): "Malta general
	// elections, 1921–2022". Optional: without it, those pages give the
	// current election's title.
	Title string `toml:"title"`
}

// maxManifestBytes is the largest archive.toml read: a list of
// directories, a few bytes each, for as many elections as anyone keeps.
const maxManifestBytes = 1 << 20

// Load reads, checks and indexes the archive held in fsys: an archive
// (archive.toml and the election directories it names), or a dataset's
// files, an archive of one. When it has errors, the error returned is a
// *dataset.Report listing every one of them. A past election's dataset
// is read from fsys again when it is asked for after it was let go
// (Election.Held), so fsys must not change while the archive is used, as
// an embed.FS does not.
func Load(fsys fs.FS) (*Archive, error) {
	return LoadContext(context.Background(), fsys, dataset.Options{})
}

// LoadContext is Load within opts' limits, each election loaded with opts
// (see dataset.LoadContext), stopping with ctx's error when ctx ends. With
// opts.Warn set, each warning is given to it (an election's with its
// directory before its file), and none is kept.
func LoadContext(ctx context.Context, fsys fs.FS, opts dataset.Options) (*Archive, error) {
	return load(ctx, fsSource{fsys}, opts)
}

// LoadDir loads the archive in directory dir with the default limits (see
// LoadDirContext).
func LoadDir(dir string) (*Archive, error) {
	return LoadDirContext(context.Background(), dir, dataset.Options{})
}

// LoadDirContext loads the archive in directory dir within opts' limits:
// dir is resolved once (see dataset.ResolveDir), and archive.toml and the
// election directories are read from the directory it resolves to, each
// election as dataset.LoadDirContext reads a dataset directory. A dataset
// directory is loaded exactly as dataset.LoadDirContext loads it.
func LoadDirContext(ctx context.Context, dir string, opts dataset.Options) (*Archive, error) {
	resolved, err := dataset.ResolveDir(dir)
	if err != nil {
		// A dataset's load says what is wrong with dir, as it always did.
		return load(ctx, dirSource{dir: dir}, opts)
	}
	return load(ctx, dirSource{dir: dir, resolved: resolved}, opts)
}

// CheckDirContext applies to the archive in directory dir every rule
// LoadDirContext applies, and stops there, as dataset.CheckDirContext
// does: it returns the warnings of a valid archive, or a *dataset.Report of
// every problem of an invalid one. A dataset directory is checked exactly
// as dataset.CheckDirContext checks it; an archive's elections are loaded
// one after the other with their records only (dataset.Options.RecordsOnly),
// which the rules across elections read.
func CheckDirContext(ctx context.Context, dir string, opts dataset.Options) ([]dataset.Problem, error) {
	if !IsArchiveDir(dir) {
		opts.Current = alone
		return dataset.CheckDirContext(ctx, dir, opts)
	}
	opts.RecordsOnly = true
	a, err := LoadDirContext(ctx, dir, opts)
	if err != nil {
		return nil, err
	}
	return a.Warnings, nil
}

// IsArchiveDir reports whether directory dir, resolved as a load resolves
// it, holds archive.toml.
func IsArchiveDir(dir string) bool {
	resolved, err := dataset.ResolveDir(dir)
	if err != nil {
		return false
	}
	_, err = os.Lstat(filepath.Join(resolved, File))
	return err == nil
}

// FilesSize returns the total size of the archive's files in dir as a load
// would read them now: archive.toml and every election's dataset files
// (dataset.FilesSize), or a dataset directory's. A file or directory that
// is missing counts 0: the load reports it.
func FilesSize(dir string) (int64, error) {
	resolved, err := dataset.ResolveDir(dir)
	if err != nil {
		return 0, err
	}
	src := dirSource{dir: dir, resolved: resolved}
	b, err := src.readManifest()
	if errors.Is(err, fs.ErrNotExist) {
		return dataset.FilesSize(resolved)
	}
	total := int64(len(b))
	var m Manifest
	if _, ok := dataset.DecodeTOML(File, b, &m); !ok {
		return total, nil
	}
	for _, e := range m.Elections {
		if filepath.IsLocal(e) && dataset.ResolvesInside(resolved, e) {
			n, _ := dataset.FilesSize(filepath.Join(resolved, e))
			total += n
		}
	}
	return total, nil
}

// ElectionDirs returns the directories the elections of the archive in
// dir are read from, each resolved as a load resolves it: none for a
// dataset directory, or for an archive.toml that cannot be read. serve
// --watch watches them beside dir.
func ElectionDirs(dir string) []string {
	resolved, err := dataset.ResolveDir(dir)
	if err != nil {
		return nil
	}
	b, err := dirSource{dir: dir, resolved: resolved}.readManifest()
	if err != nil {
		return nil
	}
	var m Manifest
	if _, ok := dataset.DecodeTOML(File, b, &m); !ok {
		return nil
	}
	var dirs []string
	for _, e := range m.Elections {
		if !filepath.IsLocal(e) {
			continue
		}
		if d, err := dataset.ResolveDir(filepath.Join(resolved, filepath.FromSlash(e))); err == nil {
			dirs = append(dirs, d)
		}
	}
	return dirs
}

// source is where an archive is read from: an fs.FS, or a directory on
// disk.
type source interface {
	// readManifest reads archive.toml: fs.ErrNotExist when there is
	// none, a dataset's files.
	readManifest() ([]byte, error)
	// hasDataset reports whether dataset.toml is beside archive.toml.
	hasDataset() bool
	// loadDataset loads the dataset of the whole source, with opts.
	loadDataset(ctx context.Context, opts dataset.Options) (*dataset.Dataset, error)
	// election checks the election directory dir and loads its dataset
	// with opts; a problem of dir itself, when it is no directory of
	// the archive, is returned as a problem of archive.toml.
	election(ctx context.Context, dir string, opts dataset.Options) (*dataset.Dataset, *dataset.Problem, error)
	// size is the dataset files' size of the election in dir.
	size(dir string) int64
	// changes reports whether the files may change once read: a past
	// election is then loaded again from the bytes read at load, else
	// from the source (reloader).
	changes() bool
	// reloader loads the election in dir again with opts, as election
	// did, for a source that does not change.
	reloader(dir string, opts dataset.Options) reloader
}

// load reads the archive of src.
func load(ctx context.Context, src source, opts dataset.Options) (*Archive, error) {
	b, err := src.readManifest()
	if errors.Is(err, fs.ErrNotExist) {
		opts.Current = alone
		ds, err := src.loadDataset(ctx, opts)
		if err != nil {
			return nil, err
		}
		a := Of(ds)
		if opts.Warn != nil {
			a.Warnings = nil
		}
		return a, nil
	}
	if err != nil {
		var perr *fs.PathError
		if errors.As(err, &perr) {
			err = perr.Err
		}
		return nil, &dataset.Report{Errors: []dataset.Problem{{File: File, Rule: "file-unreadable", Message: "file cannot be read: " + err.Error()}}}
	}
	r := &dataset.Report{}
	if src.hasDataset() {
		r.Errors = append(r.Errors, dataset.Problem{File: File, Rule: "archive-and-dataset", Message: fmt.Sprintf(
			"this directory holds both %s and %s: an archive's elections are in directories of their own, each with its %s; keep one of the two files here", File, dataset.ManifestFile, dataset.ManifestFile)})
	}
	var m Manifest
	problems, ok := dataset.DecodeTOML(File, b, &m)
	r.Errors = append(r.Errors, problems...)
	if !ok {
		return nil, r
	}
	size := int64(len(b))
	dirs := checkManifest(m, r)
	var elections []*Election
	var entries []entry
	var reloaders []reloader // of each election loaded, as elections
	for _, dir := range dirs {
		warn := opts.Warn
		if warn != nil {
			warn = func(p dataset.Problem) { opts.Warn(inElection(dir, p)) }
		}
		eopts := opts
		eopts.Warn = warn
		eopts.Current = func(e dataset.Election) bool { return e.Slug == m.Current }
		// A past election may be let go once loaded, and loaded again
		// when asked for (Election.Held): from its files as they were
		// read here, a directory's, which may change on disk meanwhile.
		var files dataset.Files
		if src.changes() && !opts.RecordsOnly {
			files = dataset.Files{}
			eopts.Keep = func(name string, b []byte) { files[name] = b }
		}
		ds, dirProblem, err := src.election(ctx, dir, eopts)
		if cerr := ctx.Err(); cerr != nil {
			return nil, cerr
		}
		var report *dataset.Report
		switch {
		case dirProblem != nil:
			r.Errors = append(r.Errors, *dirProblem)
			continue
		case errors.As(err, &report):
			for _, p := range report.Errors {
				r.Errors = append(r.Errors, inElection(dir, p))
			}
			mf, ok := manifestOf(ctx, src, dir)
			entries = append(entries, entry{dir: dir, manifest: mf, read: ok})
			continue
		case err != nil:
			return nil, err
		}
		size += src.size(dir)
		if warn == nil {
			for _, p := range ds.Warnings {
				r.Warnings = append(r.Warnings, inElection(dir, p))
			}
		}
		e := newElection(dir, ds)
		elections = append(elections, e)
		if ds.Manifest.Election.Slug == m.Current {
			files = nil // the current election is held as long as the archive
		}
		if files != nil {
			reloaders = append(reloaders, reloadFiles(files, eopts))
		} else {
			reloaders = append(reloaders, src.reloader(dir, eopts))
		}
		entries = append(entries, entry{dir: dir, manifest: ds.Manifest, read: true, id: e.Record.ID})
	}
	checkElections(m, entries, r)
	if !r.Valid() {
		return nil, r
	}
	warnings := r.Warnings
	if opts.Warn != nil {
		warnings = nil
	}
	a := newArchive(elections, m.Current, false, warnings, size)
	a.title = m.Title
	a.warnPeople(opts.Warn)
	if !opts.RecordsOnly {
		for i, e := range elections {
			if e != a.current {
				e.releasable(reloaders[i])
			}
		}
	}
	return a, nil
}

// alone is dataset.Options.Current of a dataset served alone: the current
// election of its archive of one.
func alone(dataset.Election) bool { return true }

// entry is an election directory, loaded or not, for the rules that
// compare elections (checkElections): its dataset.toml, when it could be
// read (read), and its id, when it loaded. An election that did not load
// still takes part, so that one run reports the problems of every
// election, and none is reported for a slug that election holds.
type entry struct {
	dir      string
	manifest dataset.Manifest
	read     bool
	id       string
}

// manifestOf reads and checks the dataset.toml of the election in dir,
// which did not load; false when it cannot be read or is not valid.
func manifestOf(ctx context.Context, src source, dir string) (dataset.Manifest, bool) {
	var b []byte
	switch s := src.(type) {
	case fsSource:
		b, _ = fs.ReadFile(s.fsys, path.Join(dir, dataset.ManifestFile))
	case dirSource:
		b, _ = readLimited(s.resolved, filepath.Join(filepath.FromSlash(dir), dataset.ManifestFile))
	}
	if b == nil || ctx.Err() != nil {
		return dataset.Manifest{}, false
	}
	m, problems := dataset.CheckManifest(b)
	return m, len(problems) == 0
}

// inElection is p, a problem of the election in dir, with dir before its
// file: "2017/counts.json".
func inElection(dir string, p dataset.Problem) dataset.Problem {
	p.File = dir + "/" + p.File
	return p
}

// checkManifest checks archive.toml's keys, and returns the election
// directories that may be loaded: each named once, inside the archive.
func checkManifest(m Manifest, r *dataset.Report) []string {
	if len(m.Elections) == 0 {
		r.Errors = append(r.Errors, dataset.Problem{File: File, Pointer: "elections", Rule: "required", Message: `key "elections" is missing or empty: list each election's directory, relative to ` + File + ` (elections = ["2022", "2017"])`})
	}
	if rule, msg := dataset.CheckText(m.Title, false); rule != "" {
		r.Errors = append(r.Errors, dataset.Problem{File: File, Pointer: "title", Rule: rule, Message: msg})
	} else if m.Title != "" && strings.TrimSpace(m.Title) == "" {
		r.Errors = append(r.Errors, dataset.Problem{File: File, Pointer: "title", Rule: "required", Message: `key "title" is blank: name the archive, or leave the key out`})
	}
	var dirs []string
	for _, dir := range m.Elections {
		clean := path.Clean(dir)
		switch {
		case !filepath.IsLocal(dir) || !fs.ValidPath(clean) || clean == ".":
			r.Errors = append(r.Errors, dataset.Problem{File: File, Pointer: "elections", Rule: "election-dir", Message: fmt.Sprintf(
				"%q is not a directory inside the archive: name each election's directory relative to %s, with / between its parts and no ..", dir, File)})
		case slices.Contains(dirs, clean):
			r.Errors = append(r.Errors, dataset.Problem{File: File, Pointer: "elections", Rule: "election-dir", Message: fmt.Sprintf(
				"%q is listed twice: an election is listed once", dir)})
		default:
			dirs = append(dirs, clean)
		}
	}
	return dirs
}

// fsSource is an archive held in an fs.FS.
type fsSource struct{ fsys fs.FS }

func (s fsSource) readManifest() ([]byte, error) {
	f, err := s.fsys.Open(File)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return readAtMost(f)
}

func (s fsSource) hasDataset() bool {
	_, err := fs.Stat(s.fsys, dataset.ManifestFile)
	return err == nil
}

func (s fsSource) loadDataset(ctx context.Context, opts dataset.Options) (*dataset.Dataset, error) {
	return dataset.LoadContext(ctx, s.fsys, opts)
}

func (s fsSource) election(ctx context.Context, dir string, opts dataset.Options) (*dataset.Dataset, *dataset.Problem, error) {
	if fi, err := fs.Stat(s.fsys, dir); err != nil || !fi.IsDir() {
		return nil, notADirectory(dir), nil
	}
	sub, err := fs.Sub(s.fsys, dir)
	if err != nil {
		return nil, notADirectory(dir), nil
	}
	ds, err := dataset.LoadContext(ctx, sub, opts)
	return ds, nil, err
}

// changes is false: an archive held in an fs.FS is read from it again
// (embed.FS, fstest.MapFS), so the fs.FS must not change while the
// archive is used (see Load).
func (fsSource) changes() bool { return false }

func (s fsSource) reloader(dir string, opts dataset.Options) reloader {
	opts.Warn, opts.Keep = nil, nil
	return func() (*dataset.Dataset, error) {
		ds, _, err := s.election(context.Background(), dir, opts)
		return ds, err
	}
}

func (s fsSource) size(dir string) int64 {
	var total int64
	for _, name := range dataset.FileNames() {
		if fi, err := fs.Stat(s.fsys, path.Join(dir, name)); err == nil && fi.Mode().IsRegular() {
			total += fi.Size()
		}
	}
	return total
}

// dirSource is an archive in a directory on disk: dir as given, and the
// directory it resolves to ("" when it does not).
type dirSource struct{ dir, resolved string }

func (s dirSource) readManifest() ([]byte, error) {
	if s.resolved == "" {
		return nil, fs.ErrNotExist
	}
	return readLimited(s.resolved, File)
}

func (s dirSource) hasDataset() bool {
	_, err := os.Lstat(filepath.Join(s.resolved, dataset.ManifestFile))
	return err == nil
}

func (s dirSource) loadDataset(ctx context.Context, opts dataset.Options) (*dataset.Dataset, error) {
	return dataset.LoadDirContext(ctx, s.dir, opts)
}

func (s dirSource) election(ctx context.Context, dir string, opts dataset.Options) (*dataset.Dataset, *dataset.Problem, error) {
	full := filepath.Join(s.resolved, filepath.FromSlash(dir))
	if fi, err := os.Stat(full); err != nil || !fi.IsDir() {
		return nil, notADirectory(dir), nil
	}
	if !dataset.ResolvesInside(s.resolved, filepath.FromSlash(dir)) {
		return nil, &dataset.Problem{File: File, Pointer: "elections", Rule: "file-outside", Message: fmt.Sprintf(
			"%q is a link to a directory outside the archive; only directories inside it are read", dir)}, nil
	}
	ds, err := dataset.LoadDirContext(ctx, full, opts)
	return ds, nil, err
}

// changes is true: a publisher may change a directory at any time.
func (dirSource) changes() bool { return true }

func (dirSource) reloader(string, dataset.Options) reloader { return nil }

func (s dirSource) size(dir string) int64 {
	n, _ := dataset.FilesSize(filepath.Join(s.resolved, filepath.FromSlash(dir)))
	return n
}

// notADirectory is the problem of an election directory that is missing,
// or is no directory.
func notADirectory(dir string) *dataset.Problem {
	return &dataset.Problem{File: File, Pointer: "elections", Rule: "file-missing", Message: fmt.Sprintf(
		"%q is not a directory beside %s: each election is a dataset directory in the archive", dir, File)}
}

// readLimited reads the file name, relative to the directory dir, through
// an os.Root, so that no link leads out of dir: a regular file of at most
// maxManifestBytes.
func readLimited(dir, name string) ([]byte, error) {
	root, err := os.OpenRoot(dir)
	if err != nil {
		return nil, err
	}
	defer root.Close()
	f, err := root.Open(name)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	if fi, err := f.Stat(); err != nil || !fi.Mode().IsRegular() {
		return nil, fmt.Errorf("%s is not a regular file", name)
	}
	return readAtMost(f)
}

// readAtMost reads r whole, refusing more than maxManifestBytes.
func readAtMost(r io.Reader) ([]byte, error) {
	b, err := io.ReadAll(io.LimitReader(r, maxManifestBytes+1))
	if err != nil {
		return nil, err
	}
	if len(b) > maxManifestBytes {
		return nil, fmt.Errorf("is more than %d bytes: an archive's manifest lists directories", maxManifestBytes)
	}
	return b, nil
}
