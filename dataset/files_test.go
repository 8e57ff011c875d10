package dataset_test

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
	"testing/fstest"
	"time"

	"ballot/dataset"
	"ballot/internal/datasettest"
)

// writeDefault writes the embedded dataset's four files into a new
// directory and returns it.
func writeDefault(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	for name, f := range datasettest.Files(t) {
		if err := os.WriteFile(filepath.Join(dir, name), f.Data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// loadWithin loads dir, failing the test if the load does not return
// within a bound generous enough for a loaded machine: a load that blocks
// is the defect some of these tests look for.
func loadWithin(t *testing.T, dir string, opts dataset.Options) (*dataset.Dataset, error) {
	t.Helper()
	type result struct {
		ds  *dataset.Dataset
		err error
	}
	done := make(chan result, 1)
	go func() {
		ds, err := dataset.LoadDirContext(context.Background(), dir, opts)
		done <- result{ds, err}
	}()
	select {
	case r := <-done:
		return r.ds, r.err
	case <-time.After(60 * time.Second):
		t.Fatal("LoadDirContext did not return within 60 s: it blocks")
		return nil, nil
	}
}

// wantProblem checks that err is a report holding a problem of file with
// rule whose message contains each of parts.
func wantProblem(t *testing.T, err error, file, rule string, parts ...string) dataset.Problem {
	t.Helper()
	var report *dataset.Report
	if !errors.As(err, &report) {
		t.Fatalf("error %v (%T), want a *dataset.Report", err, err)
	}
	i := slices.IndexFunc(report.Errors, func(p dataset.Problem) bool { return p.File == file && p.Rule == rule })
	if i < 0 {
		t.Fatalf("no %s problem of %s in:\n%v", rule, file, report)
	}
	for _, part := range parts {
		if !strings.Contains(report.Errors[i].Message, part) {
			t.Errorf("message %q does not say %q", report.Errors[i].Message, part)
		}
	}
	return report.Errors[i]
}

func TestLoadDirReadsOnlyRegularFiles(t *testing.T) {
	tests := []struct {
		name    string
		replace func(path string) error
		kind    string
	}{
		{"a FIFO", func(p string) error { return syscall.Mkfifo(p, 0o644) }, "a FIFO"},
		{"a directory", func(p string) error { return os.Mkdir(p, 0o755) }, "a directory"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := writeDefault(t)
			path := filepath.Join(dir, dataset.CandidatesFile)
			if err := os.Remove(path); err != nil {
				t.Fatal(err)
			}
			if err := tt.replace(path); err != nil {
				t.Fatal(err)
			}
			_, err := loadWithin(t, dir, dataset.Options{})
			wantProblem(t, err, dataset.CandidatesFile, "file-not-regular", tt.kind)
		})
	}
}

func TestLoadDirStaysInsideTheDirectory(t *testing.T) {
	secret := filepath.Join(t.TempDir(), "passwd")
	if err := os.WriteFile(secret, []byte("root:x:0:0:root:/root:/bin/bash\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, target := range []string{secret, "/dev/zero", "../outside.json", "/no/such/file"} {
		t.Run(target, func(t *testing.T) {
			dir := writeDefault(t)
			path := filepath.Join(dir, dataset.CandidatesFile)
			if err := os.Remove(path); err != nil {
				t.Fatal(err)
			}
			if err := os.Symlink(target, path); err != nil {
				t.Fatal(err)
			}
			_, err := loadWithin(t, dir, dataset.Options{})
			p := wantProblem(t, err, dataset.CandidatesFile, "file-outside", "outside the dataset directory")
			if strings.Contains(p.Message, "root") || strings.Contains(p.Message, "'") {
				t.Errorf("the message shows the target's bytes: %q", p.Message)
			}
		})
	}

	t.Run("links inside the directory and a linked directory", func(t *testing.T) {
		dir := writeDefault(t)
		// candidates.json -> v2/candidates.json, inside the directory.
		if err := os.Mkdir(filepath.Join(dir, "v2"), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.Rename(filepath.Join(dir, dataset.CandidatesFile), filepath.Join(dir, "v2", dataset.CandidatesFile)); err != nil {
			t.Fatal(err)
		}
		if err := os.Symlink(filepath.Join("v2", dataset.CandidatesFile), filepath.Join(dir, dataset.CandidatesFile)); err != nil {
			t.Fatal(err)
		}
		// The dataset directory itself a link, as atomic publishing has it.
		link := filepath.Join(t.TempDir(), "current")
		if err := os.Symlink(dir, link); err != nil {
			t.Fatal(err)
		}
		ds, err := loadWithin(t, link, dataset.Options{})
		if err != nil {
			t.Fatalf("refused: %v", err)
		}
		if len(ds.Candidates()) != 177 {
			t.Errorf("%d candidates, want 177", len(ds.Candidates()))
		}
		if !dataset.ResolvesInside(link, dataset.CandidatesFile) {
			t.Error("ResolvesInside(link, candidates.json) = false, want true")
		}
		if dataset.ResolvesInside(link, "../x") {
			t.Error("ResolvesInside(link, ../x) = true, want false")
		}
	})
}

func TestLoadDirSizeLimit(t *testing.T) {
	dir := writeDefault(t)
	fi, err := os.Stat(filepath.Join(dir, dataset.CountsFile)) // the largest
	if err != nil {
		t.Fatal(err)
	}
	if c, err := os.Stat(filepath.Join(dir, dataset.CandidatesFile)); err != nil || c.Size() >= fi.Size() {
		t.Fatalf("candidates.json (%v) is not smaller than counts.json", err)
	}
	if err != nil {
		t.Fatal(err)
	}
	size := fi.Size()
	if _, err := loadWithin(t, dir, dataset.Options{MaxFileBytes: size}); err != nil {
		t.Errorf("a file of exactly the limit is refused: %v", err)
	}
	_, err = loadWithin(t, dir, dataset.Options{MaxFileBytes: size - 1})
	wantProblem(t, err, dataset.CountsFile, "file-too-large", fmt.Sprintf("is %d bytes", size), fmt.Sprintf("limit of %d bytes", size-1), "max_dataset_bytes")
}

// endless is a file that says it is small and never ends, as a file being
// appended to, or a device, may.
type endless struct {
	read        int64
	cancelAfter int64 // when above 0, cancel is called once read passes it
	cancel      func()
}

func (e *endless) Stat() (fs.FileInfo, error) {
	return fstest.MapFS{"f": {Data: []byte("[]")}}.Stat("f")
}
func (e *endless) Read(p []byte) (int, error) {
	clear(p)
	e.read += int64(len(p))
	if e.cancelAfter > 0 && e.read > e.cancelAfter {
		e.cancel()
	}
	return len(p), nil
}
func (e *endless) Close() error { return nil }

// endlessFS is the default dataset with an endless candidates.json.
type endlessFS struct {
	fstest.MapFS
	file *endless
}

func (f endlessFS) Open(name string) (fs.File, error) {
	if name == dataset.CandidatesFile {
		return f.file, nil
	}
	return f.MapFS.Open(name)
}

func TestLoadStopsReadingAtTheLimit(t *testing.T) {
	fsys := endlessFS{datasettest.Files(t), &endless{}}
	const limit = 1 << 20
	_, err := dataset.LoadContext(context.Background(), fsys, dataset.Options{MaxFileBytes: limit})
	wantProblem(t, err, dataset.CandidatesFile, "file-too-large", "grew past the limit of 1048576 bytes")
	if fsys.file.read > limit+1 {
		t.Errorf("read %d bytes of a file limited to %d", fsys.file.read, limit)
	}
}

func TestLoadStopsWhenCancelled(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	ds, err := dataset.LoadDirContext(ctx, writeDefault(t), dataset.Options{})
	if ds != nil || !errors.Is(err, context.Canceled) {
		t.Errorf("LoadDirContext with a cancelled context = %v, %v; want nil, context.Canceled", ds, err)
	}
	// A file that ends the context once 4 MiB of it are read: the load
	// stops inside the file instead of reading on to the limit.
	ctx, cancel = context.WithCancel(context.Background())
	defer cancel()
	fsys := endlessFS{datasettest.Files(t), &endless{cancelAfter: 4 << 20, cancel: cancel}}
	if _, err := dataset.LoadContext(ctx, fsys, dataset.Options{MaxFileBytes: 1 << 40}); !errors.Is(err, context.Canceled) {
		t.Errorf("LoadContext = %v, want context.Canceled", err)
	}
	if fsys.file.read > 8<<20 {
		t.Errorf("read %d bytes after the context ended at 4 MiB", fsys.file.read)
	}
}
