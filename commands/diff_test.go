package commands_test

import (
	"bytes"
	"encoding/csv"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"ballot/archive"
	"ballot/dataset"
)

// diffBase is the OLD side of most diff cases; testdata/diff/NAME is a copy
// of it with one kind of change.
const diffBase = "testdata/datasets/valid"

// TestDiffCorpus runs diff over pairs of datasets, each against its golden
// output in text and JSON (testdata/diff/NAME.txt and NAME.json), with the
// exit status diff(1) gives: 0 equal, 1 different.
func TestDiffCorpus(t *testing.T) {
	tests := []struct {
		name     string
		old, new string
		code     int
	}{
		{"identical", diffBase, diffBase, 0},
		{"reformatted", diffBase, "testdata/diff/reformatted", 0},
		{"changed", diffBase, "testdata/diff/changed", 1},
		{"changed-reversed", "testdata/diff/changed", diffBase, 1},
		{"identity-break", diffBase, "testdata/diff/identity-break", 1},
		{"elected-removed", diffBase, "testdata/diff/elected-removed", 1},
		{"manifest", diffBase, "testdata/diff/manifest", 1},
		{"manifest-reversed", "testdata/diff/manifest", diffBase, 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			code, stdout, stderr := run(t, "diff", tt.old, tt.new)
			if code != tt.code || stderr != "" {
				t.Errorf("diff %s %s: exit %d, stderr %q; want exit %d and nothing on stderr", tt.old, tt.new, code, stderr, tt.code)
			}
			golden(t, filepath.Join("testdata", "diff", tt.name+".txt"), []byte(stdout))

			code, stdout, stderr = run(t, "diff", "--format", "json", tt.old, tt.new)
			if code != tt.code || stderr != "" {
				t.Errorf("diff --format json: exit %d, stderr %q; want exit %d and nothing on stderr", code, stderr, tt.code)
			}
			var report struct {
				Equal bool `json:"equal"`
			}
			if err := json.Unmarshal([]byte(stdout), &report); err != nil {
				t.Fatalf("--format json printed no JSON: %v\n%s", err, stdout)
			}
			if report.Equal != (tt.code == 0) {
				t.Errorf("equal = %v with exit %d", report.Equal, code)
			}
			golden(t, filepath.Join("testdata", "diff", tt.name+".json"), []byte(stdout))
		})
	}
}

// TestDiffManifestAbsent: a manifest key left out of dataset.toml shows as
// (absent), not as "", and is left out of the JSON change; a date shows as
// a date, not as a timestamp.
func TestDiffManifestAbsent(t *testing.T) {
	const manifest = "testdata/diff/manifest"
	tests := []struct {
		name     string
		old, new string
		want     []string
	}{
		{"removed", diffBase, manifest, []string{
			"dataset.toml: 3 changed\n",
			"  ~ description: \"A tiny dataset for ballot's tests.\" → (absent)\n",
			"  ~ published_at: \"2026-01-15\" → \"2026-02-01\"\n",
			"  ~ coverage/notes: [] → (absent)\n",
		}},
		{"added", manifest, diffBase, []string{
			"dataset.toml: 3 changed\n",
			"  ~ description: (absent) → \"A tiny dataset for ballot's tests.\"\n",
			"  ~ published_at: \"2026-02-01\" → \"2026-01-15\"\n",
			"  ~ coverage/notes: (absent) → []\n",
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			code, stdout, _ := run(t, "diff", tt.old, tt.new)
			if code != 1 {
				t.Errorf("exit %d, want 1", code)
			}
			for _, line := range tt.want {
				if !strings.Contains(stdout, line) {
					t.Errorf("diff %s %s does not print %q:\n%s", tt.old, tt.new, line, stdout)
				}
			}
			if strings.Contains(stdout, `""`) || strings.Contains(stdout, "T00:00:00") {
				t.Errorf("diff %s %s prints an empty string or a timestamp:\n%s", tt.old, tt.new, stdout)
			}

			_, stdout, _ = run(t, "diff", "--format", "json", tt.old, tt.new)
			var report struct {
				Manifest []map[string]json.RawMessage `json:"manifest"`
			}
			if err := json.Unmarshal([]byte(stdout), &report); err != nil {
				t.Fatal(err)
			}
			for _, ch := range report.Manifest {
				if string(ch["field"]) == `"description"` {
					if _, ok := ch["old"]; ok == (tt.name == "added") {
						t.Errorf("JSON change of description: old %s, new %s; the absent side must be left out, the present one kept", ch["old"], ch["new"])
					}
				}
			}
		})
	}
}

// TestDiffEmbedded compares the embedded archive with itself, and with a
// dataset directory; and the embedded 2022 election's directory with the
// same directory. The versions come from the archive and dataset
// packages, so the test holds whatever the embedded data becomes.
func TestDiffEmbedded(t *testing.T) {
	arch, err := archive.Default()
	if err != nil {
		t.Fatal(err)
	}
	v := arch.Version[:12]
	code, stdout, stderr := run(t, "diff", "embedded", "embedded")
	want := fmt.Sprintf("--- embedded (version %s)\n+++ embedded (version %s)\nballot: no differences\n", v, v)
	if code != 0 || stdout != want || stderr != "" {
		t.Errorf("diff embedded embedded: exit %d, stdout %q, stderr %q; want exit 0, stdout %q", code, stdout, stderr, want)
	}

	// An archive against a dataset directory: the elections of each, by
	// slug, none of them in both.
	code, stdout, _ = run(t, "diff", "embedded", diffBase)
	if code != 1 || !strings.HasPrefix(stdout, "--- embedded (version "+v+")\n+++ "+diffBase+" (version ") {
		t.Errorf("diff embedded %s: exit %d, stdout starting %.120q; want exit 1 and the two sides named", diffBase, code, stdout)
	}
	for _, line := range []string{
		"elections: 1 added, 25 removed, 0 changed\n",
		"  + current \"Small test election\"\n",
		"  - 2022 \"Elezzjoni ġenerali 2022\" in malta-2022/\n",
		"  - 2017 \"Elezzjoni ġenerali 2017\" in malta-2017/\n",
		"  - 1921 \"Elezzjoni ġenerali 1921\" in malta-history/1921/\n",
	} {
		if !strings.Contains(stdout, line) {
			t.Errorf("diff embedded %s does not say %q", diffBase, line)
		}
	}

	// Two dataset directories: every record of one is removed and every
	// record of the other added: they share no id.
	const malta2022 = "../dataset/malta-2022"
	ds, err := dataset.Default()
	if err != nil {
		t.Fatal(err)
	}
	code, stdout, _ = run(t, "diff", malta2022, diffBase)
	if code != 1 || !strings.HasPrefix(stdout, "--- "+malta2022+" (version "+ds.Version[:12]+")\n+++ "+diffBase+" (version ") {
		t.Errorf("diff %s %s: exit %d, stdout starting %.120q; want exit 1 and the two sides named", malta2022, diffBase, code, stdout)
	}
	for _, line := range []string{
		fmt.Sprintf("parties: 2 added, %d removed, 0 changed\n", len(ds.Parties())),
		fmt.Sprintf("candidates: 13 added, %d removed, 0 changed\n", len(ds.Candidates())),
	} {
		if !strings.Contains(stdout, line) {
			t.Errorf("diff %s %s does not say %q", malta2022, diffBase, line)
		}
	}
}

// TestDiffInvalid: an invalid side is reported on stderr exactly as validate
// reports it, under a line naming it, with exit 2 and nothing on stdout.
func TestDiffInvalid(t *testing.T) {
	report := func(dir, format string) string {
		_, stdout, stderr := run(t, "validate", "--format", format, dir)
		return stdout + stderr
	}
	const badColor, wrongType = "testdata/datasets/bad-color", "testdata/datasets/wrong-type"
	tests := []struct {
		name       string
		args       []string
		wantStderr string
	}{
		{"new invalid", []string{diffBase, badColor},
			"ballot: " + badColor + " is not a valid dataset:\n" + report(badColor, "text")},
		{"old invalid", []string{badColor, diffBase},
			"ballot: " + badColor + " is not a valid dataset:\n" + report(badColor, "text")},
		{"both invalid", []string{badColor, wrongType},
			"ballot: " + badColor + " is not a valid dataset:\n" + report(badColor, "text") +
				"ballot: " + wrongType + " is not a valid dataset:\n" + report(wrongType, "text")},
		{"json", []string{"--format", "json", diffBase, badColor}, report(badColor, "json")},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			code, stdout, stderr := run(t, append([]string{"diff"}, tt.args...)...)
			if code != 2 || stdout != "" || stderr != tt.wantStderr {
				t.Errorf("diff %v: exit %d, stdout %q, stderr:\n%s\nwant exit 2, no stdout, stderr:\n%s", tt.args, code, stdout, stderr, tt.wantStderr)
			}
		})
	}
}

// TestDiffUsage: a wrong command line is exit 2 with a one-line reason.
func TestDiffUsage(t *testing.T) {
	tests := []struct {
		name string
		args []string
		want string
	}{
		{"no argument", nil, `ballot: diff takes two datasets, OLD and NEW (a directory or "embedded"), got 0 arguments` + "\n"},
		{"one argument", []string{diffBase}, `ballot: diff takes two datasets, OLD and NEW (a directory or "embedded"), got 1 argument` + "\n"},
		{"three arguments", []string{diffBase, diffBase, diffBase}, `ballot: diff takes two datasets, OLD and NEW (a directory or "embedded"), got 3 arguments` + "\n"},
		{"not a directory", []string{diffBase, "testdata/diff/changed.txt"}, `ballot: testdata/diff/changed.txt is not a directory (write "embedded" for the embedded dataset)` + "\n"},
		{"missing", []string{"testdata/no-such-dir", diffBase}, `ballot: testdata/no-such-dir is not a directory (write "embedded" for the embedded dataset)` + "\n"},
		{"unknown format", []string{"--format", "xml", diffBase, diffBase}, `ballot: --format must be text or json, got "xml"` + "\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			code, stdout, stderr := run(t, append([]string{"diff"}, tt.args...)...)
			if code != 2 || stdout != "" || stderr != tt.want {
				t.Errorf("diff %v: exit %d, stdout %q, stderr %q; want exit 2, stderr %q", tt.args, code, stdout, stderr, tt.want)
			}
		})
	}
}

// TestDiffMemory: diff of two large editions peaks at no more than 12
// times the larger one's files (it took 55 times, and two 40 MB editions
// ran out of memory), in text and in JSON.
func TestDiffMemory(t *testing.T) {
	t.Parallel()
	old, new := filesCopyValid(t), filesCopyValid(t)
	size := max(diffWriteEdition(t, old, 0), diffWriteEdition(t, new, 1))
	for _, format := range []string{"text", "json"} {
		cmd := exec.Command(e2eBuild(t), "diff", "--format", format, old, new)
		cmd.Env = filesEnv()
		var stderr bytes.Buffer
		cmd.Stdout, cmd.Stderr = io.Discard, &stderr
		peak, err := runPeak(cmd)
		var exit *exec.ExitError
		if !errors.As(err, &exit) || exit.ExitCode() != 1 {
			t.Fatalf("diff --format %s: %v, want exit status 1; stderr:\n%.2000s", format, err, stderr.String())
		}
		t.Logf("diff --format %s: %d bytes in, peak %d bytes, %.1f times", format, size, peak, float64(peak)/float64(size))
		if peak > 12*size {
			t.Errorf("diff --format %s of two editions of %d bytes peaked at %d bytes, %.1f times; want at most 12", format, size, peak, float64(peak)/float64(size))
		}
	}
}

// diffWriteEdition writes a candidates.json of 30,000 candidates (about 10
// MB) into the dataset dir and returns the size of dir's files. Edition 1
// renames every third candidate, stands every fifth in a second district
// and drops every seventh.
func diffWriteEdition(t *testing.T, dir string, edition int) int64 {
	t.Helper()
	var b bytes.Buffer
	b.WriteString("[\n")
	const d1, d2 = "54eb2986-b9b2-5cff-988a-1bd4d9e1e9f3", "75dcfac0-1b7e-55cc-b197-6e0102e57555"
	first := true
	for i := range 30_000 {
		name, districts := fmt.Sprintf("Number%d", i), fmt.Sprintf("%q", d1)
		if edition == 1 {
			if i%7 == 0 {
				continue
			}
			if i%3 == 0 {
				name += "-Renamed"
			}
			if i%5 == 0 {
				districts += fmt.Sprintf(", %q", d2)
			}
		}
		if !first {
			b.WriteString(",\n")
		}
		first = false
		fmt.Fprintf(&b, `  {"id": "00000000-0000-4000-8000-%012d", "slug": "person-%d", "name": "Person %s", "given_name": "Person", "family_name": %q, "party_id": null, "primary_district_id": %q, "district_ids": [%s], "elected": null, "website": "https://people.example/person-%d"}`, i, i, name, name, d1, districts, i)
	}
	b.WriteString("\n]\n")
	if err := os.WriteFile(filepath.Join(dir, "candidates.json"), b.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	var size int64
	entries, _ := os.ReadDir(dir)
	for _, e := range entries {
		if fi, err := e.Info(); err == nil {
			size += fi.Size()
		}
	}
	return size
}

// TestDiffResults: the count sheets are compared too, as election night
// changes them. The embedded sheets with district 5's stopped at its 12th
// count (counting; imported from the committed sheets so cut) against the
// embedded 2022 election's directory, a dataset as they are, show that sheet's status, its six counts added and
// each row's changes, rows named by candidate whatever their order; and
// a dataset without counts.json shows its 13 sheets removed, not "no
// differences". The temporary directories' paths are written as COUNTING
// and NOSHEETS in the golden files.
func TestDiffResults(t *testing.T) {
	const embedded = "../dataset/malta-2022"
	tmp := t.TempDir()
	sheets := filepath.Join(tmp, "sheets")
	if err := os.CopyFS(sheets, os.DirFS(filepath.Join(embedded, "sheets"))); err != nil {
		t.Fatal(err)
	}
	editCSV(t, filepath.Join(sheets, "counts.csv"), func(row []string) []string {
		if row[0] == "5" {
			for k := 4 + 12; k < len(row); k++ { // count_13 on
				row[k] = ""
			}
		}
		return row
	})
	editCSV(t, filepath.Join(sheets, "district_totals.csv"), func(row []string) []string {
		switch row[0] {
		case "district":
			return append(row, "status")
		case "5":
			row[len(row)-1] = "12" // the counts column is the last
			return append(row, "counting")
		default:
			return append(row, "final")
		}
	})
	counting := filepath.Join(tmp, "counting")
	if code, _, stderr := run(t, "import", sheets, counting); code != 0 {
		t.Fatalf("import of the cut sheets: exit %d\n%s", code, stderr)
	}
	noSheets := filesCopyRecords(t, embedded)
	paths := strings.NewReplacer(counting, "COUNTING", noSheets, "NOSHEETS")
	diff := func(args ...string) string {
		t.Helper()
		code, stdout, stderr := run(t, append([]string{"diff"}, args...)...)
		if code != 1 || stderr != "" {
			t.Errorf("diff %s: exit %d, stderr %q; want exit 1 and nothing on stderr", paths.Replace(strings.Join(args, " ")), code, stderr)
		}
		return paths.Replace(stdout)
	}
	golden(t, "testdata/diff/results.txt", []byte(diff(counting, embedded)))
	golden(t, "testdata/diff/results.json", []byte(diff("--format", "json", counting, embedded)))
	golden(t, "testdata/diff/results-removed.txt", []byte(diff(embedded, noSheets)))
	// In JSON, each removed sheet is held whole, as /results/{number}
	// serves it: the 13 sheets, in the district's order.
	var report struct {
		Collections []struct {
			Name    string `json:"name"`
			Removed []struct {
				Key    json.RawMessage `json:"key"`
				Record json.RawMessage `json:"record"`
			} `json:"removed"`
		} `json:"collections"`
	}
	if err := json.Unmarshal([]byte(diff("--format", "json", embedded, noSheets)), &report); err != nil {
		t.Fatal(err)
	}
	ds, err := dataset.Default()
	if err != nil {
		t.Fatal(err)
	}
	if n := len(report.Collections); n != 4 || report.Collections[3].Name != "results" {
		t.Fatalf("%d collections, the last %q; want 4, the last results", n, report.Collections[n-1].Name)
	}
	removed := report.Collections[3].Removed
	if len(removed) != 13 {
		t.Fatalf("results: %d removed, want 13", len(removed))
	}
	for i, rec := range removed {
		sheet, _ := ds.Sheet(i + 1)
		var got bytes.Buffer // the report is indented
		if err := json.Compact(&got, rec.Record); err != nil {
			t.Fatal(err)
		}
		if want := dataset.EncodeRecord(sheet); string(rec.Key) != strconv.Itoa(i+1) || !bytes.Equal(got.Bytes(), want) {
			t.Errorf("results: removed %d is key %s, record %.80s; want key %d, record %.80s", i, rec.Key, got.Bytes(), i+1, want)
		}
	}
}

// editCSV rewrites the CSV file path with each row replaced by what edit
// makes of it, the header first.
func editCSV(t *testing.T, path string, edit func(row []string) []string) {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	rows, err := csv.NewReader(bytes.NewReader(b)).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	w := csv.NewWriter(&out)
	for _, row := range rows {
		if err := w.Write(edit(row)); err != nil {
			t.Fatal(err)
		}
	}
	w.Flush()
	if err := os.WriteFile(path, out.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
}
