package commands_test

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"ballot/archive"
	"ballot/commands/gcpace"
	"ballot/dataset"
	"ballot/internal/testprograms"
	"ballot/server"
)

// memoryLimitLine is serve's start-up line about the limit it set.
var memoryLimitLine = regexp.MustCompile(`msg="memory limit" bytes=(\d+) counters=(\d+) pages=(\d+) heap=(\d+)`)

// paceLine is serve's start-up line about the collector's pace it set.
var paceLine = regexp.MustCompile(`msg="garbage collector pace" gogc=(\d+) heap=(\d+)`)

// TestServePacesTheCollector: once loaded, serve lets the heap grow by the
// larger of the live heap and 16 MiB between collections (GOGC of
// gcpace.ServePercent of the live heap it logs), and the metrics say so;
// GOGC set by the operator is left as set.
func TestServePacesTheCollector(t *testing.T) {
	testprograms.EndToEnd(t, "reads the collector's pace the binary sets itself")
	t.Run("GOGC unset", func(t *testing.T) {
		p := prodStart(t, t.TempDir(), []string{"GOGC="}, "--admin-listen", "127.0.0.1:0")
		admin := prodAdmin(t, p)
		// Paced once with every election held, and again once the past
		// ones are let go: the pace is the second's.
		prodWaitLog(t, p, regexp.MustCompile(`msg="past elections let go until asked for" elections=24`), "the line letting the past elections go")
		lines := paceLine.FindAllStringSubmatch(p.stderr.String(), -1)
		if len(lines) != 2 {
			t.Fatalf("%d pace lines, want 2: one once ready, one once the past elections are let go:\n%s", len(lines), p.stderr.shortened())
		}
		m := lines[1]
		percent, _ := strconv.Atoi(m[1])
		heap, _ := strconv.ParseInt(m[2], 10, 64)
		// The embedded archive (25 elections, the current one's answers
		// prepared) and the server live within a load's bound of the
		// archive's files; the heap may grow by 16 MiB, or by itself when
		// larger: a GOGC of 100 at least.
		arch, err := archive.Default()
		if err != nil {
			t.Fatal(err)
		}
		if bound := dataset.PeakMemoryPerByte * arch.Size(); heap <= 0 || heap > bound {
			t.Fatalf("heap = %d, want at most %d, %d times the embedded archive's files", heap, bound, dataset.PeakMemoryPerByte)
		}
		if want := gcpace.ServePercent(heap); percent != want || percent < 100 {
			t.Errorf("gogc = %d, want ServePercent(%d) = %d, 100 or more", percent, heap, want)
		}
		got, ok := prodSeries(prodMetrics(t, prodHTTP(t), admin), "go_gc_gogc_percent")
		if !ok || int(got) != percent {
			t.Errorf("go_gc_gogc_percent = %v (%v), want %d", got, ok, percent)
		}
	})
	t.Run("after a reload: paced for the dataset served", func(t *testing.T) {
		p := prodStart(t, t.TempDir(), []string{"GOGC="}, "--data", filesCopyValid(t), "--admin-listen", "127.0.0.1:0")
		admin := prodAdmin(t, p)
		prodWaitLog(t, p, paceLine, "the pace line")
		if err := p.cmd.Process.Signal(syscall.SIGHUP); err != nil {
			t.Fatal(err)
		}
		prodWaitLog(t, p, regexp.MustCompile(`msg="dataset reloaded"`), "the reload's log line")
		lines := paceLine.FindAllStringSubmatch(p.stderr.String(), -1)
		if len(lines) != 2 {
			t.Fatalf("%d pace lines, want 2: one once ready, one after the reload:\n%s", len(lines), p.stderr.shortened())
		}
		percent, _ := strconv.Atoi(lines[1][1])
		heap, _ := strconv.ParseInt(lines[1][2], 10, 64)
		if want := gcpace.ServePercent(heap); percent != want {
			t.Errorf("gogc = %d after the reload, want ServePercent(%d) = %d", percent, heap, want)
		}
		got, ok := prodSeries(prodMetrics(t, prodHTTP(t), admin), "go_gc_gogc_percent")
		if !ok || int(got) != percent {
			t.Errorf("go_gc_gogc_percent = %v (%v) after the reload, want %d", got, ok, percent)
		}
	})
	t.Run("GOGC set: left as the operator set it", func(t *testing.T) {
		p := prodStart(t, t.TempDir(), []string{"GOGC=150"}, "--admin-listen", "127.0.0.1:0")
		admin := prodAdmin(t, p)
		prodWaitLog(t, p, regexp.MustCompile(`msg="garbage collector pace from GOGC" GOGC=150`), "the GOGC line")
		got, ok := prodSeries(prodMetrics(t, prodHTTP(t), admin), "go_gc_gogc_percent")
		if !ok || got != 150 {
			t.Errorf("go_gc_gogc_percent = %v (%v), want 150", got, ok)
		}
		if paceLine.MatchString(p.stderr.String()) {
			t.Errorf("serve set a pace of its own despite GOGC:\n%s", p.stderr.shortened())
		}
	})
}

func TestServeSetsAMemoryLimit(t *testing.T) {
	testprograms.EndToEnd(t, "reads the memory limit the binary sets itself")
	const slack = 16 << 20
	cases := []struct {
		name     string
		args     []string
		counters int64 // the rate limiter's arrays for the cap
		pages    int64 // the record pages kept once rendered
	}{
		{"the default cap of a million", nil, 64 << 14 * 48, server.RenderedPageBytes},
		{"a cap of 100,000", []string{"--max-tracked-clients", "100000"}, 64 << 11 * 48, server.RenderedPageBytes},
		{"without the pages", []string{"--pages=false"}, 64 << 14 * 48, 0},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			p := prodStart(t, t.TempDir(), []string{"GOMEMLIMIT="}, append([]string{"--admin-listen", "127.0.0.1:0"}, tc.args...)...)
			admin := prodAdmin(t, p)
			m := memoryLimitLine.FindStringSubmatch(prodWaitLog(t, p, memoryLimitLine, "the memory limit line"))
			limit, _ := strconv.ParseInt(m[1], 10, 64)
			counters, _ := strconv.ParseInt(m[2], 10, 64)
			pages, _ := strconv.ParseInt(m[3], 10, 64)
			heap, _ := strconv.ParseInt(m[4], 10, 64)
			if counters != tc.counters || pages != tc.pages {
				t.Errorf("counters = %d, pages = %d; want %d, %d", counters, pages, tc.counters, tc.pages)
			}
			// The small test dataset and the server take a few MiB.
			if heap <= 0 || heap > 64<<20 {
				t.Errorf("heap = %d, want a few MiB", heap)
			}
			if limit != counters+pages+2*heap+slack {
				t.Errorf("limit %d, want counters %d + pages %d + 2 x heap %d + 16 MiB = %d", limit, counters, pages, heap, counters+pages+2*heap+slack)
			}
			got, ok := prodSeries(prodMetrics(t, prodHTTP(t), admin), "go_gc_gomemlimit_bytes")
			if !ok || int64(got) != limit {
				t.Errorf("go_gc_gomemlimit_bytes = %v (%v), want %d", got, ok, limit)
			}
		})
	}
	t.Run("GOMEMLIMIT set: left as the operator set it", func(t *testing.T) {
		p := prodStart(t, t.TempDir(), []string{"GOMEMLIMIT=200MiB"}, "--admin-listen", "127.0.0.1:0")
		admin := prodAdmin(t, p)
		prodWaitLog(t, p, regexp.MustCompile(`msg="memory limit from GOMEMLIMIT" GOMEMLIMIT=200MiB`), "the GOMEMLIMIT line")
		got, ok := prodSeries(prodMetrics(t, prodHTTP(t), admin), "go_gc_gomemlimit_bytes")
		if !ok || got != 200<<20 {
			t.Errorf("go_gc_gomemlimit_bytes = %v (%v), want %d", got, ok, 200<<20)
		}
		if memoryLimitLine.MatchString(p.stderr.String()) {
			t.Errorf("serve set a limit of its own despite GOMEMLIMIT:\n%s", p.stderr.shortened())
		}
	})
}

// A reload whose files would take the process past GOMEMLIMIT at the
// load's peak (dataset.PeakMemoryPerByte times their size, beside what is in use) is refused
// before it reads them, with a log line that says why; the dataset served
// stays, and the process lives on. Under a limit it fits, the same files
// load.
func TestReloadRefusedPastTheMemoryLimit(t *testing.T) {
	testprograms.EndToEnd(t, "sends SIGHUP to the binary under GOMEMLIMIT")
	cases := []struct {
		name, limit string
		refused     bool
	}{
		{"past GOMEMLIMIT: refused", "64MiB", true},
		{"within GOMEMLIMIT: reloaded", "2GiB", false},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			dir := filesCopyValid(t)
			p := prodStart(t, t.TempDir(), []string{"GOMEMLIMIT=" + tc.limit}, "--data", dir, "--admin-listen", "127.0.0.1:0")
			admin := prodAdmin(t, p)
			hc := prodHTTP(t)
			before := prodReadyz(t, hc, admin)
			// 8 MiB of white space: valid, and 12 times it is past 64 MiB.
			f, err := os.OpenFile(filepath.Join(dir, "candidates.json"), os.O_APPEND|os.O_WRONLY, 0)
			if err != nil {
				t.Fatal(err)
			}
			if _, err := f.Write(bytes.Repeat([]byte(" "), 8<<20)); err != nil {
				t.Fatal(err)
			}
			if err := f.Close(); err != nil {
				t.Fatal(err)
			}
			size, err := dataset.FilesSize(dir)
			if err != nil {
				t.Fatal(err)
			}
			if err := p.cmd.Process.Signal(syscall.SIGHUP); err != nil {
				t.Fatal(err)
			}
			if !tc.refused {
				prodWaitLog(t, p, regexp.MustCompile(`msg="dataset reloaded"`), "the reload's log line")
				if got := prodReadyz(t, hc, admin); got.Version == before.Version {
					t.Errorf("/readyz after the reload: %+v, want a new version", got)
				}
				return
			}
			line := prodWaitLog(t, p, regexp.MustCompile(`level=ERROR msg="reload refused: still serving the previous dataset" version=`+before.Version+` error=".*"`), "the refused reload's log line")
			want := regexp.MustCompile(`error="the dataset files are ` + strconv.FormatInt(size, 10) + ` bytes, and loading them takes up to ` + strconv.Itoa(dataset.PeakMemoryPerByte) + ` times that beside the \d+ bytes in use: \d+ bytes, past the memory limit of 67108864 bytes \(GOMEMLIMIT=64MiB\); raise the limit or make the files smaller"`)
			if !want.MatchString(line) {
				t.Errorf("log line %s\nwant it to match %s", line, want)
			}
			if got := prodReadyz(t, hc, admin); got != before {
				t.Errorf("/readyz after the refused reload: %+v, want it unchanged: %+v", got, before)
			}
		})
	}
}

// TestLoadMemoryPerByte holds the peak memory of a load to the figure the
// README states: for files of each shape the rules accept, near 16 MiB,
// `ballot validate DIR` (and, for the shape with a warning for each
// record, `--format json`) and a load as serve does it (bench/loadmem) each
// peak at most dataset.PeakMemoryPerByte times the files' size, and so does
// serve with its pages, once ready, beyond its peak with the embedded
// dataset. The shapes
// are bench/shapes' (the embedded dataset with one file replaced) and
// bench/synth's many candidates.
func TestLoadMemoryPerByte(t *testing.T) {
	testprograms.EndToEnd(t, "writes 100 MB of datasets and reads the peak memory of the binary loading each")
	t.Parallel() // the programs it runs use one core at a time: another test takes the other
	ballot := e2eBuild(t)
	tools := t.TempDir()
	build := exec.Command("go", "build", "-o", tools+"/", "../bench/shapes", "../bench/loadmem", "../bench/synth")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("go build of bench/shapes, bench/loadmem and bench/synth: %v\n%s", err, out)
	}
	const size = 16 << 20
	shapes := []struct {
		name string
		args []string // the command that writes the dataset, without -out
	}{
		{"parties", []string{"shapes", "-shape", "parties", "-bytes", strconv.Itoa(size)}},
		{"localities", []string{"shapes", "-shape", "localities", "-bytes", strconv.Itoa(size)}},
		{"longparty", []string{"shapes", "-shape", "longparty", "-bytes", strconv.Itoa(size)}},
		{"longnote", []string{"shapes", "-shape", "longnote", "-bytes", strconv.Itoa(size)}},
		{"longcand", []string{"shapes", "-shape", "longcand", "-bytes", strconv.Itoa(size)}},
		{"candidates", []string{"synth", "-n", "35000"}}, // 16.7 MB
		{"minimal candidates", []string{"shapes", "-shape", "candidates", "-bytes", strconv.Itoa(size)}},
		// One district's count sheet of 10,000 candidacies over 500
		// counts: 27.6 MB with its candidates.
		{"count sheet", []string{"shapes", "-shape", "counts", "-candidacies", "10000", "-counts", "500"}},
		// An archive of 4 elections, each of bench/synth's 8,750
		// candidates, the same names in each and no person_id, so a
		// warning for each name in each pair of elections: loaded one
		// after the other, the whole within the bound.
		{"archive of 4", []string{"synth", "-n", "8750"}},
	}
	// serve with its pages (the default) holds, once ready, its dataset
	// and what it made of it at load; measured beyond what it holds
	// serving a dataset of a few kilobytes.
	servePeak := func(t *testing.T, args ...string) int64 {
		t.Helper()
		// 16 MiB to load first, on a machine that may be busy.
		p := prodStartWithin(t, t.TempDir(), nil, 2*time.Minute, append([]string{"--admin-listen", "127.0.0.1:0"}, args...)...)
		prodReadyz(t, prodHTTP(t), prodAdmin(t, p))
		return vmHWM(p.cmd.Process.Pid)
	}
	// The base: serve of a dataset of a few kilobytes (not the embedded
	// archive, whose 25 elections weigh more than some of the shapes).
	small, err := filepath.Abs(filepath.Join("testdata", "datasets", "valid"))
	if err != nil {
		t.Fatal(err)
	}
	base := servePeak(t, "--data", small)
	t.Logf("serve of a small dataset: peak %d bytes (%.1f MiB)", base, float64(base)/(1<<20))
	for _, sh := range shapes {
		t.Run(sh.name, func(t *testing.T) {
			dir := filepath.Join(t.TempDir(), sh.name)
			gen := exec.Command(filepath.Join(tools, sh.args[0]), append(sh.args[1:], "-out", dir)...)
			if out, err := gen.CombinedOutput(); err != nil {
				t.Fatalf("%s: %v\n%s", gen, err, out)
			}
			if sh.name == "archive of 4" {
				dir = archiveOfCopies(t, dir, 4)
			}
			files, err := archive.FilesSize(dir)
			if err != nil {
				t.Fatal(err)
			}
			if files < size*7/8 {
				t.Fatalf("%s wrote %d bytes, want near %d", sh.name, files, size)
			}
			type run struct {
				what string
				cmd  *exec.Cmd
				most int64 // times the files' size
			}
			runs := []run{
				{"ballot validate", exec.Command(ballot, "validate", dir), dataset.PeakMemoryPerByte},
				{"a load (bench/loadmem)", exec.Command(filepath.Join(tools, "loadmem"), dir), dataset.PeakMemoryPerByte},
			}
			if sh.name == "parties" { // a warning for each party: the longest report
				runs = append(runs, run{"ballot validate --format json", exec.Command(ballot, "validate", "--format", "json", dir), dataset.PeakMemoryPerByte})
			}
			if sh.name == "count sheet" { // diff holds both editions' sheets, and compares the changed one row by row
				runs = append(runs, run{"ballot diff", exec.Command(ballot, "diff", dir, nextSheetEdition(t, dir)), dataset.PeakMemoryPerByte})
			}
			for _, run := range runs {
				var stderr bytes.Buffer
				run.cmd.Stdout, run.cmd.Stderr = io.Discard, &stderr
				peak, err := runPeak(run.cmd)
				var exit *exec.ExitError
				if run.what == "ballot diff" && errors.As(err, &exit) && exit.ExitCode() == 1 {
					err = nil // the editions differ
				}
				if err != nil {
					t.Fatalf("%s: %v\n%s", run.cmd, err, stderr.String())
				}
				ratio := float64(peak) / float64(files)
				t.Logf("%s of %s: peak %d bytes (%.1f MiB), %.1f times the files' %d bytes", run.what, sh.name, peak, float64(peak)/(1<<20), ratio, files)
				if peak > run.most*files {
					t.Errorf("%s of %s: peak %d bytes, %.1f times the files' %d bytes; want at most %d times", run.what, sh.name, peak, ratio, files, run.most)
				}
			}
			peak := servePeak(t, "--data", dir)
			added := float64(peak-base) / float64(files)
			t.Logf("serve with its pages of %s: peak %d bytes (%.1f MiB), %.1f times the files' %d bytes beyond serve's with a small dataset", sh.name, peak, float64(peak)/(1<<20), added, files)
			if peak-base > dataset.PeakMemoryPerByte*files {
				t.Errorf("serve with its pages of %s: peak %d bytes, %.1f times the files' %d bytes beyond the %d of a small dataset's; want at most %d times", sh.name, peak, added, files, base, dataset.PeakMemoryPerByte)
			}
		})
	}
}

// archiveOfCopies makes an archive of n elections, each a copy of the
// dataset directory dir with an [election] of its own (slugs e1 to en,
// the last current), and returns its directory.
func archiveOfCopies(t *testing.T, dir string, n int) string {
	t.Helper()
	root := t.TempDir()
	var slugs []string
	for i := 1; i <= n; i++ {
		slug := "e" + strconv.Itoa(i)
		slugs = append(slugs, strconv.Quote(slug))
		if err := os.CopyFS(filepath.Join(root, slug), os.DirFS(dir)); err != nil {
			t.Fatal(err)
		}
		f, err := os.OpenFile(filepath.Join(root, slug, dataset.ManifestFile), os.O_APPEND|os.O_WRONLY, 0)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := fmt.Fprintf(f, "\n[election]\nslug = %q\nname = \"Election %d\"\n", slug, i); err != nil {
			t.Fatal(err)
		}
		if err := f.Close(); err != nil {
			t.Fatal(err)
		}
	}
	manifest := fmt.Sprintf("elections = [%s]\ncurrent = %s\n", strings.Join(slugs, ", "), slugs[n-1])
	if err := os.WriteFile(filepath.Join(root, "archive.toml"), []byte(manifest), 0o644); err != nil {
		t.Fatal(err)
	}
	return root
}

// nextSheetEdition copies the dataset dir, whose counts.json is
// bench/shapes' one sheet, into a new directory with the sheet's
// registered voters given (one more than its valid votes), and returns
// it: an edition that differs from dir in that sheet alone.
func nextSheetEdition(t *testing.T, dir string) string {
	t.Helper()
	next := filepath.Join(t.TempDir(), "next")
	if err := os.CopyFS(next, os.DirFS(dir)); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(next, dataset.CountsFile)
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	m := regexp.MustCompile(`"valid_votes":([0-9]+),`).FindSubmatchIndex(b)
	if m == nil || bytes.Contains(b, []byte(`"registered"`)) {
		t.Fatalf("%s: no valid_votes, or registered already given", path)
	}
	valid, _ := strconv.Atoi(string(b[m[2]:m[3]]))
	b = slices.Concat(b[:m[0]], []byte(`"registered":`+strconv.Itoa(valid+1)+`,`), b[m[0]:])
	if err := os.WriteFile(path, b, 0o644); err != nil {
		t.Fatal(err)
	}
	return next
}

// TestRefusedMemoryPerByte holds datasets and sheets the rules refuse to
// the figure TestLoadMemoryPerByte holds those they accept, whatever the
// number of their problems: ballot validate (and --format json) of a
// counts.json of empty sheets, seven problems each, and of a count sheet
// whose every total is -1 (bench/shapes' emptysheets and badtotals), and
// ballot import of a counts.csv whose every cell is "x", each add at most
// dataset.PeakMemoryPerByte times the files' size to the peak of the same
// command on the files they add to (the embedded dataset's, the 2022
// sheets). A report kept every problem, and a dataset every defective
// record: 1,160 times a counts.json of empty sheets.
func TestRefusedMemoryPerByte(t *testing.T) {
	testprograms.EndToEnd(t, "writes 40 MB of datasets and reads the peak memory of the binary checking each")
	t.Parallel() // the programs it runs use one core at a time: another test takes the other
	ballot := e2eBuild(t)
	tools := t.TempDir()
	build := exec.Command("go", "build", "-o", tools+"/", "../bench/shapes")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("go build of bench/shapes: %v\n%s", err, out)
	}
	// peak runs ballot with args, which must exit with code, and returns
	// its peak memory and what it wrote on stdout.
	peak := func(t *testing.T, code int, args ...string) (int64, []byte) {
		t.Helper()
		var stdout, stderr bytes.Buffer
		cmd := exec.Command(ballot, args...)
		cmd.Stdout, cmd.Stderr = &stdout, &stderr
		peak, err := runPeak(cmd)
		got := 0
		if exit := (*exec.ExitError)(nil); errors.As(err, &exit) {
			got = exit.ExitCode()
		} else if err != nil {
			t.Fatalf("%s: %v", cmd, err)
		}
		if got != code {
			t.Fatalf("%s: exit %d, want %d\n%.2000s", cmd, got, code, stderr.String())
		}
		return peak, stdout.Bytes()
	}
	base := filepath.Join(t.TempDir(), "base")
	if out, err := exec.Command(filepath.Join(tools, "shapes"), "-shape", "emptysheets", "-bytes", "2", "-out", base).CombinedOutput(); err != nil {
		t.Fatalf("shapes: %v\n%s", err, out)
	}
	if err := os.Remove(filepath.Join(base, dataset.CountsFile)); err != nil {
		t.Fatal(err)
	}
	var baseValidate int64
	for _, args := range [][]string{{"validate", base}, {"validate", "--format", "json", base}} {
		p, _ := peak(t, 0, args...)
		baseValidate = max(baseValidate, p)
	}
	t.Logf("ballot validate of the embedded dataset: peak %d bytes (%.1f MiB)", baseValidate, float64(baseValidate)/(1<<20))

	check := func(t *testing.T, what string, peak, base, files int64) {
		t.Helper()
		added := float64(peak-base) / float64(files)
		t.Logf("%s: peak %d bytes (%.1f MiB), %.1f times the files' %d bytes beyond the %d of the files it adds to", what, peak, float64(peak)/(1<<20), added, files, base)
		if peak-base > dataset.PeakMemoryPerByte*files {
			t.Errorf("%s: peak %d bytes, %.1f times the files' %d bytes beyond %d; want at most %d times", what, peak, added, files, base, dataset.PeakMemoryPerByte)
		}
	}
	for _, sh := range []struct {
		name     string
		problems func(counts []byte) int // the problems of a counts.json
		args     []string
	}{
		// 700,000 sheets, 4.9 million problems.
		{"empty sheets", func(b []byte) int { return 7 * bytes.Count(b, []byte("{}")) }, []string{"-shape", "emptysheets", "-bytes", strconv.Itoa(2 << 20)}},
		// 8 million totals: 27 MB with its candidates.
		{"wrong totals", func(b []byte) int { return bytes.Count(b, []byte("[-1")) + bytes.Count(b, []byte(",-1")) }, []string{"-shape", "badtotals", "-candidacies", "10000", "-counts", "800"}},
	} {
		t.Run(sh.name, func(t *testing.T) {
			dir := filepath.Join(t.TempDir(), "shape")
			gen := exec.Command(filepath.Join(tools, "shapes"), append(sh.args, "-out", dir)...)
			if out, err := gen.CombinedOutput(); err != nil {
				t.Fatalf("%s: %v\n%s", gen, err, out)
			}
			files, err := dataset.FilesSize(dir)
			if err != nil {
				t.Fatal(err)
			}
			counts, err := os.ReadFile(filepath.Join(dir, dataset.CountsFile))
			if err != nil {
				t.Fatal(err)
			}
			problems := sh.problems(counts)
			p, stdout := peak(t, 1, "validate", dir)
			check(t, "ballot validate of "+sh.name, p, baseValidate, files)
			note := "counts.json: … and " + dataset.Thousands(problems-dataset.KeptOfAKind) + " more problems of the same kind\n"
			if lines := bytes.Count(stdout, []byte("\n")); lines != dataset.KeptOfAKind+1 || !bytes.HasSuffix(stdout, []byte(note)) {
				t.Errorf("ballot validate of %s: %d lines, ending %q; want %d, the last %q", sh.name, lines, stdout[max(0, len(stdout)-200):], dataset.KeptOfAKind+1, note)
			}
			p, _ = peak(t, 1, "validate", "--format", "json", dir)
			check(t, "ballot validate --format json of "+sh.name, p, baseValidate, files)
		})
	}

	t.Run("wrong cells", func(t *testing.T) {
		src := filepath.Join("..", "dataset", "malta-2022", "sheets")
		baseImport, _ := peak(t, 0, "import", src, filepath.Join(t.TempDir(), "out"))
		dir := filepath.Join(t.TempDir(), "sheets")
		if err := os.CopyFS(dir, os.DirFS(src)); err != nil {
			t.Fatal(err)
		}
		// 2,000 rows of 1,000 counts, every cell "x": 4 MB, 2 million
		// problems.
		var b strings.Builder
		b.WriteString("district,name,party")
		for k := range 1000 {
			fmt.Fprintf(&b, ",count_%d", k+1)
		}
		cells := strings.Repeat(",x", 1000)
		for i := range 2000 {
			fmt.Fprintf(&b, "\n%d,Name %d,PL%s", i%13+1, i, cells)
		}
		b.WriteString("\n")
		if err := os.WriteFile(filepath.Join(dir, "counts.csv"), []byte(b.String()), 0o644); err != nil {
			t.Fatal(err)
		}
		var files int64
		entries, err := os.ReadDir(dir)
		if err != nil {
			t.Fatal(err)
		}
		for _, e := range entries {
			fi, err := e.Info()
			if err != nil {
				t.Fatal(err)
			}
			files += fi.Size()
		}
		p, stdout := peak(t, 1, "import", dir, filepath.Join(t.TempDir(), "out"))
		check(t, "ballot import of a counts.csv of 2 million wrong cells", p, baseImport, files)
		if lines := bytes.Count(stdout, []byte("\n")); lines > dataset.KeptInAll+100 || !bytes.Contains(stdout, []byte("\ncounts.csv: … and 1,999,000 more problems of the same kind\n")) {
			t.Errorf("ballot import: %d lines; want at most %d, and one for the 1,999,000 cells not listed", lines, dataset.KeptInAll+100)
		}
	})

}

// TestReloadRefusedWithinMemory: a reload of files whose count sheet has
// 8 million wrong totals (27 MB, bench/shapes' badtotals) is refused and
// logged with the count of its problems, the first listed and how many
// more; serve lives on, serving the dataset it served, its peak grown by
// at most dataset.PeakMemoryPerByte times the files. A report of every
// problem took it past 1.4 GB, out of memory.
func TestReloadRefusedWithinMemory(t *testing.T) {
	testprograms.EndToEnd(t, "writes a 27 MB dataset and reads the peak memory of serve refusing it")
	t.Parallel() // the programs it runs use one core at a time: another test takes the other
	tools := t.TempDir()
	build := exec.Command("go", "build", "-o", tools+"/", "../bench/shapes")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("go build of bench/shapes: %v\n%s", err, out)
	}
	shape := filepath.Join(t.TempDir(), "shape")
	if out, err := exec.Command(filepath.Join(tools, "shapes"), "-shape", "badtotals", "-candidacies", "10000", "-counts", "800", "-out", shape).CombinedOutput(); err != nil {
		t.Fatalf("shapes: %v\n%s", err, out)
	}
	// Served first: the embedded dataset's files the shape adds to.
	dir := filesCopyRecords(t, "../dataset/malta-2022")
	p := prodStartWithin(t, t.TempDir(), nil, 2*time.Minute, "--data", dir, "--admin-listen", "127.0.0.1:0")
	admin := prodAdmin(t, p)
	hc := prodHTTP(t)
	before := prodReadyz(t, hc, admin)
	base := vmHWM(p.cmd.Process.Pid)
	for _, name := range []string{dataset.CandidatesFile, dataset.CountsFile} {
		b, err := os.ReadFile(filepath.Join(shape, name))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, name), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	files, err := dataset.FilesSize(dir)
	if err != nil {
		t.Fatal(err)
	}
	if err := p.cmd.Process.Signal(syscall.SIGHUP); err != nil {
		t.Fatal(err)
	}
	// The reload's peak is watched as it runs: past the bound, serve is
	// stopped rather than left to take the machine's memory.
	refused := regexp.MustCompile(`level=ERROR msg="reload refused: still serving the previous dataset" version=` + before.Version + ` error=".*"`)
	bound := base + dataset.PeakMemoryPerByte*files
	var line string
	for deadline := time.Now().Add(2 * time.Minute); line == ""; {
		if peak := vmHWM(p.cmd.Process.Pid); peak > bound {
			_ = p.cmd.Process.Kill()
			t.Fatalf("serve's peak reached %d bytes while reloading, %.1f times the files' %d bytes beyond its %d before; want at most %d times", peak, float64(peak-base)/float64(files), files, base, dataset.PeakMemoryPerByte)
		}
		select {
		case <-p.done:
			t.Fatalf("serve ended while reloading: %v\n%s", p.err, p.stderr.shortened())
		case <-time.After(20 * time.Millisecond):
		}
		line = refused.FindString(p.stderr.String())
		if line == "" && time.Now().After(deadline) {
			t.Fatalf("no refused reload logged within 2 minutes:\n%s", p.stderr.shortened())
		}
	}
	peak := vmHWM(p.cmd.Process.Pid)
	t.Logf("serve refusing %d bytes of files: peak %d bytes (%.1f MiB), %.1f times the files beyond its %d before", files, peak, float64(peak)/(1<<20), float64(peak-base)/float64(files), base)
	if peak-base > dataset.PeakMemoryPerByte*files {
		t.Errorf("serve's peak %d bytes, %.1f times the files' %d bytes beyond its %d before; want at most %d times", peak, float64(peak-base)/float64(files), files, base, dataset.PeakMemoryPerByte)
	}
	for _, want := range []string{
		`error="dataset is invalid: 8000000 errors\ncounts.json: /0/candidacies/0/totals/0: district 1, count 1: is -1; must be 0 or more\n`,
		`\ncounts.json: /0/candidacies/0/totals/19: district 1, count 20: is -1; must be 0 or more\n… and 7,999,980 more (ballot validate lists up to 1,000 of each kind)"`,
	} {
		if !strings.Contains(line, want) {
			t.Errorf("the refused reload's line\n%.600s\nhas not %q", line, want)
		}
	}
	if got := prodReadyz(t, hc, admin); got != before {
		t.Errorf("/readyz after the refused reload: %+v, want it unchanged: %+v", got, before)
	}
}

// TestSlowReadersMemory: clients that read slowly (dialSlowReaders: a
// receive buffer of 2 KiB, and a pause after the head) hold serve
// writing a large answer, 20 of them one district's count sheet of 26 MB
// (/api/public/v1/results/1) and 12 its CSV download of 25 MB
// (/districts/1/count.csv), all at once; while they wait, serve's
// resident memory has grown by less than one answer's size for them all,
// as the sheet is written from the bytes prepared at load and the
// download made as it is sent, and every reader then gets the whole body. Each request copied the sheet, or made the
// whole download, and held it as long as its reader read.
func TestSlowReadersMemory(t *testing.T) {
	testprograms.EndToEnd(t, "writes a 27 MB dataset and reads the peak memory of serve answering slow readers")
	t.Parallel() // the programs it runs use one core at a time: another test takes the other
	tools := t.TempDir()
	build := exec.Command("go", "build", "-o", tools+"/", "../bench/shapes")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("go build of bench/shapes: %v\n%s", err, out)
	}
	dir := filepath.Join(t.TempDir(), "shape")
	if out, err := exec.Command(filepath.Join(tools, "shapes"), "-shape", "counts", "-candidacies", "10000", "-counts", "500", "-out", dir).CombinedOutput(); err != nil {
		t.Fatalf("shapes: %v\n%s", err, out)
	}
	// The readers are held, then read one after the other: the last ones
	// wait for the others, longer on a loaded machine than the write
	// timeout by default allows an answer, which is not what this test
	// is about.
	p := prodStartWithin(t, t.TempDir(), nil, 2*time.Minute, "--data", dir, "--admin-listen", "127.0.0.1:0", "--rate-limit", "1000000", "--write-timeout", "10m")
	hc := prodHTTP(t)
	prodReadyz(t, hc, prodAdmin(t, p))
	for _, tc := range []struct {
		path    string
		readers int
	}{
		{"/api/public/v1/results/1", 20},
		{"/districts/1/count.csv", 12},
	} {
		t.Run(tc.path, func(t *testing.T) {
			// One whole answer first: its size, and whatever the first
			// request of a path makes once.
			size := len(prodDo(t, hc, http.MethodGet, "http://"+p.addr+tc.path, nil).body)
			if size < 16<<20 {
				t.Fatalf("%s: %d bytes, want the sheet's 25 MB", tc.path, size)
			}
			base := procMemory(p.cmd.Process.Pid, "VmRSS")
			// Each has its answer's head: serve is writing each body,
			// held by its reader.
			readers := dialSlowReaders(t, p, tc.path, tc.readers)
			held := procMemory(p.cmd.Process.Pid, "VmRSS")
			t.Logf("%d slow readers of %s (%d bytes): serve's resident memory grew by %d bytes (%.1f MiB), from %d", tc.readers, tc.path, size, held-base, float64(held-base)/(1<<20), base)
			if held-base >= int64(size) {
				t.Errorf("%d slow readers of %s: serve's resident memory grew by %d bytes, %.1f times the answer's %d; want less than one answer", tc.readers, tc.path, held-base, float64(held-base)/float64(size), size)
			}
			for i, r := range readers {
				_ = r.conn.SetDeadline(time.Now().Add(time.Minute))
				body, err := io.ReadAll(r.resp.Body)
				if err != nil || len(body) != size {
					t.Errorf("slow reader %d: %d bytes (%v), want %d", i, len(body), err, size)
				}
				_ = r.conn.Close()
			}
		})
	}
}
