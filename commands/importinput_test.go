package commands_test

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"ballot/commands"
)

// What import's input can do to it: files that block, never end, lead out
// of the input directory or are too large, and a signal while it imports.
// Its input is opened as serve opens a dataset's files.

// importRun runs import in-process and fails the test when it has not
// ended within a minute: the defect some of these cases look for is an
// import that never ends.
func importRun(t *testing.T, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	return runWithin(t, time.Minute, append([]string{"import"}, args...)...)
}

func TestImportInputFiles(t *testing.T) {
	// A secret outside the input directory, whose words must never be
	// printed.
	outside := filepath.Join(t.TempDir(), "secret.csv")
	const secret = "root:x:0:0:secret-words"
	if err := os.WriteFile(outside, []byte(secret+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	const failed = "ballot: import failed: 1 problem, nothing written\n"
	tests := []struct {
		name   string
		flags  []string
		make   func(t *testing.T, path string) // makes candidates.csv at path
		stdout string
	}{
		{"a FIFO", nil, func(t *testing.T, path string) {
			if err := syscall.Mkfifo(path, 0o644); err != nil {
				t.Fatal(err)
			}
		}, "candidates.csv: cannot be read: is not a regular file (a FIFO); a FIFO, a device or a directory cannot hold dataset data\n"},
		{"a link to /dev/zero", nil, func(t *testing.T, path string) {
			if err := os.Symlink("/dev/zero", path); err != nil {
				t.Fatal(err)
			}
		}, "candidates.csv: cannot be read: is a link to a file outside the input directory; only files inside it are read\n"},
		{"a link to a file outside", nil, func(t *testing.T, path string) {
			if err := os.Symlink(outside, path); err != nil {
				t.Fatal(err)
			}
		}, "candidates.csv: cannot be read: is a link to a file outside the input directory; only files inside it are read\n"},
		{"a directory", nil, func(t *testing.T, path string) {
			if err := os.Mkdir(path, 0o755); err != nil {
				t.Fatal(err)
			}
		}, "candidates.csv: cannot be read: is not a regular file (a directory); a FIFO, a device or a directory cannot hold dataset data\n"},
		{"over the limit", []string{"--max-dataset-bytes", "1024"}, func(t *testing.T, path string) {
			b := []byte("given_name,family_name,party,districts,elected\n" + strings.Repeat(secret+",Borg,PL,1,no\n", 40))
			if err := os.WriteFile(path, b, 0o644); err != nil {
				t.Fatal(err)
			}
		}, "candidates.csv: cannot be read: is 1527 bytes, more than the limit of 1024 bytes a file (max_dataset_bytes)\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			src, out := filepath.Join(dir, "src"), filepath.Join(dir, "out")
			files := readExample(t)
			delete(files, "candidates.csv")
			writeFiles(t, src, files)
			tt.make(t, filepath.Join(src, "candidates.csv"))

			code, stdout, stderr := importRun(t, append(tt.flags, src, out)...)
			// The two other sheets are read, and say how.
			want := "ballot: read parties.csv: separated by ','\nballot: read districts.csv: separated by ','\n" + failed
			if code != commands.ExitFailure || stdout != tt.stdout || stderr != want {
				t.Errorf("exit %d, stdout %q, stderr %q; want 1, %q, %q", code, stdout, stderr, tt.stdout, want)
			}
			if strings.Contains(stdout+stderr, "secret") {
				t.Errorf("the refused file's bytes are printed: %q", stdout+stderr)
			}
			if _, err := os.Stat(out); !errors.Is(err, os.ErrNotExist) {
				t.Errorf("OUT was written: %v", err)
			}
		})
	}

	// A sheet under the limit whose JSON would be over it is refused
	// from a count of its rows, before import holds it; a JSON file over
	// the limit is refused too, not written.
	for _, tt := range []struct {
		name, limit string
		sep         string // between the cells
		rows, blank int    // rows of a candidate, and blank rows after them
		stdout      string
		stderr      string
	}{
		// Refused before any sheet is read.
		{"rows over the limit", "2048", ",", 10, 0, "candidates.csv: has 10 rows, which make a candidates.json of at least 2990 bytes, more than the limit of 2048 bytes a file (max_dataset_bytes)\n", failed},
		{"JSON over the limit", "4000", ",", 13, 0, "candidates.csv: makes a candidates.json of 6018 bytes, more than the limit of 4000 bytes a file (max_dataset_bytes)\n",
			"ballot: read parties.csv: separated by ','\nballot: read districts.csv: separated by ','\nballot: read candidates.csv: separated by ','\n" + failed},
		// The rows are counted as import reads them: with the delimiter
		// the header shows, and without the blank rows it skips.
		{"blank rows not counted", "4000", ";", 13, 20, "candidates.csv: makes a candidates.json of 6018 bytes, more than the limit of 4000 bytes a file (max_dataset_bytes)\n",
			"ballot: read parties.csv: separated by ','\nballot: read districts.csv: separated by ','\nballot: read candidates.csv: separated by ';'\n" + failed},
	} {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			src, out := filepath.Join(dir, "src"), filepath.Join(dir, "out")
			files := readExample(t)
			var b strings.Builder
			b.WriteString(strings.ReplaceAll("given_name,family_name,party,districts,elected\n", ",", tt.sep))
			// A candidate of each party in each district, so that the
			// dataset has nothing to warn of.
			for i := range tt.rows {
				fmt.Fprintf(&b, strings.ReplaceAll("Ġorġ,Borġ %d,%s,%d,no\n", ",", tt.sep), i, []string{"PL", "PN"}[i%2], i%13+1)
			}
			b.WriteString(strings.Repeat(strings.Repeat(tt.sep, 4)+"\n", tt.blank))
			files["candidates.csv"] = []byte(b.String())
			writeFiles(t, src, files)
			code, stdout, stderr := importRun(t, "--max-dataset-bytes", tt.limit, src, out)
			if code != commands.ExitFailure || stdout != tt.stdout || stderr != tt.stderr {
				t.Errorf("exit %d, stdout %q, stderr %q; want 1, %q, %q", code, stdout, stderr, tt.stdout, tt.stderr)
			}
			if _, err := os.Stat(out); !errors.Is(err, os.ErrNotExist) {
				t.Errorf("OUT was written: %v", err)
			}
		})
	}

	// A count sheet's JSON grows with its cells: 20 rows of 40 counts, whose
	// rows alone would make 3320 bytes, under the limit.
	t.Run("counts over the limit", func(t *testing.T) {
		dir := t.TempDir()
		src, out := filepath.Join(dir, "src"), filepath.Join(dir, "out")
		files := readExample(t)
		var b strings.Builder
		b.WriteString("district,name,party")
		for k := 1; k <= 40; k++ {
			fmt.Fprintf(&b, ",count_%d", k)
		}
		for i := range 20 {
			fmt.Fprintf(&b, "\n5,Ġorġ Borġ %d,PL%s", i, strings.Repeat(",0", 40))
		}
		files["counts.csv"] = []byte(b.String() + "\n")
		files["district_totals.csv"] = []byte("district,valid_votes,quota,seats\n5,0,1,5\n")
		writeFiles(t, src, files)
		const want = "counts.csv: has 20 rows of 860 cells, which make a counts.json of at least 4840 bytes, more than the limit of 4096 bytes a file (max_dataset_bytes)\n"
		code, stdout, stderr := importRun(t, "--max-dataset-bytes", "4096", src, out)
		if code != commands.ExitFailure || stdout != want || stderr != failed {
			t.Errorf("exit %d, stdout %q, stderr %q; want 1, %q, %q", code, stdout, stderr, want, failed)
		}
	})

	t.Run("a link inside the input directory", func(t *testing.T) {
		dir := t.TempDir()
		src, out := filepath.Join(dir, "src"), filepath.Join(dir, "out")
		files := readExample(t)
		files["people.csv"] = files["candidates.csv"]
		delete(files, "candidates.csv")
		writeFiles(t, src, files)
		if err := os.Symlink("people.csv", filepath.Join(src, "candidates.csv")); err != nil {
			t.Fatal(err)
		}
		if code, stdout, stderr := importRun(t, src, out); code != commands.ExitOK {
			t.Errorf("exit %d, stdout %q, stderr %q; want 0", code, stdout, stderr)
		}
	})

	t.Run("a limit out of bounds", func(t *testing.T) {
		dir := t.TempDir()
		const want = "ballot: max_dataset_bytes must be a number of bytes from 1024 to 1073741824 (1 GiB)\n"
		code, stdout, stderr := importRun(t, "--max-dataset-bytes", "10", importExample, filepath.Join(dir, "out"))
		if code != commands.ExitUsage || stdout != "" || stderr != want {
			t.Errorf("exit %d, stdout %q, stderr %q; want 2, %q", code, stdout, stderr, want)
		}
	})
}

// TestImportStopsOnSIGTERM: SIGTERM while import works on a large sheet
// ends it at once, with one line, and writes nothing.
func TestImportStopsOnSIGTERM(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	src, out := filepath.Join(dir, "src"), filepath.Join(dir, "out")
	files := readExample(t)
	delete(files, "candidates.csv")
	writeFiles(t, src, files)
	size := importWriteLarge(t, filepath.Join(src, "candidates.csv"))

	cmd := exec.Command(e2eBuild(t), "import", src, out)
	cmd.Dir = dir
	cmd.Env = filesEnv()
	// The event: the process holds the sheet in memory, so it is reading
	// or checking it (which takes seconds more).
	stderr := stopWhileHolding(t, cmd, size, "import holds the sheet in memory")
	if got, want := stderr, "ballot: import stopped: terminated signal received; nothing written\n"; got != want {
		t.Errorf("stderr:\n%.2000s\nwant %q", got, want)
	}
	entries, _ := os.ReadDir(dir)
	for _, e := range entries {
		if e.Name() != "src" {
			t.Errorf("import left %s in OUT's parent directory", e.Name())
		}
	}
}

// importWriteLarge writes a candidates sheet of some 30 MB and returns its
// size.
func importWriteLarge(t *testing.T, path string) int64 {
	t.Helper()
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	w := bufio.NewWriter(f)
	w.WriteString("given_name,family_name,party,districts,elected\n")
	long := strings.Repeat("Borġ-Camilleri ", 20)
	for i := range 100_000 {
		fmt.Fprintf(w, "Ġorġ,%s%d,PL,%d,no\n", long, i, i%13+1)
	}
	if err := w.Flush(); err != nil {
		t.Fatal(err)
	}
	fi, err := f.Stat()
	if err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
	return fi.Size()
}

// importMemoryTimes is the most import's peak memory may be, as a multiple
// of the dataset it writes, as the README states it.
const importMemoryTimes = 8

// TestImportMemory imports the README's example with a candidates.csv of
// 20,000 rows (a dataset of some 10 MB) in the built binary, and holds its
// peak resident memory to importMemoryTimes the dataset written.
func TestImportMemory(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	src, out := filepath.Join(dir, "src"), filepath.Join(dir, "out")
	writeFiles(t, src, readExample(t))
	f, err := os.Create(filepath.Join(src, "candidates.csv"))
	if err != nil {
		t.Fatal(err)
	}
	w := bufio.NewWriter(f)
	w.WriteString("given_name,family_name,party,districts,elected\n")
	for i := range 20_000 {
		fmt.Fprintf(w, "Ġorġ,Borġ Camilleri %d,PL,%d,no\n", i, i%13+1)
	}
	if err := errors.Join(w.Flush(), f.Close()); err != nil {
		t.Fatal(err)
	}

	cmd := exec.Command(e2eBuild(t), "import", src, out)
	cmd.Env = filesEnv()
	var stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = io.Discard, &stderr
	peak, err := runPeak(cmd)
	if err != nil {
		t.Fatalf("import: %v; stderr:\n%.2000s", err, stderr.String())
	}
	var size int64
	for _, name := range importOutputs {
		fi, err := os.Stat(filepath.Join(out, name))
		if err != nil {
			t.Fatal(err)
		}
		size += fi.Size()
	}
	t.Logf("import wrote %d bytes, peak %d bytes, %.1f times", size, peak, float64(peak)/float64(size))
	if peak > importMemoryTimes*size {
		t.Errorf("import of a dataset of %d bytes peaked at %d bytes, %.1f times; want at most %d", size, peak, float64(peak)/float64(size), importMemoryTimes)
	}
}
