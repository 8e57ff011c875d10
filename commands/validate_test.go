package commands_test

import (
	"encoding/json"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"ballot/archive"
	"ballot/commands"
	"ballot/dataset"
)

// TestValidateCorpus runs validate on every dataset in
// testdata/datasets: one valid, one with warnings only, and one per defect
// (and one with several), each against its golden report, in text and JSON.
func TestValidateCorpus(t *testing.T) {
	dirs, err := filepath.Glob(filepath.Join("testdata", "datasets", "*"))
	if err != nil || len(dirs) < 20 {
		t.Fatalf("corpus: %d datasets, %v", len(dirs), err)
	}
	for _, dir := range dirs {
		name := filepath.Base(dir)
		t.Run(name, func(t *testing.T) {
			wantCode := commands.ExitFailure
			if name == "valid" || name == "warnings" || name == "required-only" {
				wantCode = commands.ExitOK
			}
			code, stdout, stderr := run(t, "validate", dir)
			if code != wantCode {
				t.Errorf("exit %d, want %d; stderr %q", code, wantCode, stderr)
			}
			golden(t, filepath.Join("testdata", "reports", name+".txt"), []byte(stdout))

			code, stdout, _ = run(t, "validate", "--format", "json", dir)
			if code != wantCode {
				t.Errorf("--format json: exit %d, want %d", code, wantCode)
			}
			var report struct {
				Valid    *bool             `json:"valid"`
				Errors   []json.RawMessage `json:"errors"`
				Warnings []json.RawMessage `json:"warnings"`
			}
			if err := json.Unmarshal([]byte(stdout), &report); err != nil || report.Valid == nil || report.Errors == nil || report.Warnings == nil {
				t.Fatalf("JSON report %q: %v", stdout, err)
			}
			if *report.Valid != (wantCode == commands.ExitOK) {
				t.Errorf("valid = %v, want %v", *report.Valid, wantCode == commands.ExitOK)
			}
			golden(t, filepath.Join("testdata", "reports", name+".json"), []byte(stdout))
		})
	}
}

func TestValidateStrict(t *testing.T) {
	dir := filepath.Join("testdata", "datasets")
	if code, _, _ := run(t, "validate", "--strict", filepath.Join(dir, "valid")); code != commands.ExitOK {
		t.Errorf("valid dataset with --strict: exit %d, want 0", code)
	}
	if code, _, stderr := run(t, "validate", "--strict", filepath.Join(dir, "warnings")); code != commands.ExitFailure {
		t.Errorf("warnings with --strict: exit %d, want 1; stderr %q", code, stderr)
	}
	if code, _, _ := run(t, "validate", "--strict"); code != commands.ExitFailure {
		t.Errorf("the embedded archive with --strict: exit %d, want 1 for its warnings", code)
	}
}

// TestValidateEmbedded: validate of the embedded archive reports exactly
// the known problems of its record, and nothing else, each a warning:
// testdata/validate-embedded.txt holds every one, and each is of a kind
// the archive's sources state, as many as they state: a known defect for
// each line of the history's defects.csv files, a district without
// localities for each district of an election before 2017, the ties
// docs/RECORD.md lists, and three of its people: the two Ivan Bartolos of
// 2017 and 2022 and the two Joseph Grechs of 1966's CWP, each told apart
// (SOURCES.md).
func TestValidateEmbedded(t *testing.T) {
	code, stdout, stderr := run(t, "validate")
	if code != commands.ExitOK || stderr != "ballot: archive valid: 25 elections, 0 errors, 275 warnings\n" {
		t.Fatalf("the embedded archive: exit %d, stderr %q; want 0, valid with 275 warnings", code, stderr)
	}
	golden(t, filepath.Join("testdata", "validate-embedded.txt"), []byte(stdout))

	defects, districts := 0, 0
	files, _ := filepath.Glob(filepath.Join("..", "dataset", "malta-history", "*", "sheets", "defects.csv"))
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		defects += strings.Count(string(b), "\n") - 1 // its header
	}
	arch, err := archive.Default()
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range arch.Elections() {
		if !strings.HasPrefix(e.Dir, "malta-history/") {
			continue
		}
		districts += len(e.Dataset().Districts())
	}
	kinds := map[string]int{}
	for line := range strings.Lines(stdout) {
		switch {
		case strings.Contains(line, "; a known defect, stated at "):
			kinds["defect"]++
		case strings.HasSuffix(line, "has no localities: its record says so in its note\n"):
			kinds["localities"]++
		case strings.Contains(line, "for the lowest place") && strings.Contains(line, "state it in ties"):
			kinds["tie"]++
		case strings.HasPrefix(line, "malta-2022/candidates.json: warning: Ivan Bartolo, PN, in 2017 and 2022 (two different person_ids)"),
			strings.HasPrefix(line, "malta-history/1966/candidates.json: warning: Joseph Grech, CWP, in 1962 and 1966 (two different person_ids)"),
			strings.HasPrefix(line, `malta-history/1966/candidates.json: /204/name: warning: "Joseph Grech" of the same party is also at candidates.json#/203`):
			kinds["people"]++
		default:
			t.Errorf("a warning of no known kind: %s", line)
		}
	}
	want := map[string]int{"defect": defects, "localities": districts, "tie": 8, "people": 3}
	if !maps.Equal(kinds, want) {
		t.Errorf("warnings by kind %v, want %v", kinds, want)
	}
}

func TestValidateUsage(t *testing.T) {
	tests := []struct {
		name   string
		args   []string
		stderr string
	}{
		{"directory missing", []string{"validate", "no/such/dir"}, "ballot: no/such/dir is not a directory\n"},
		{"unknown flag", []string{"validate", "--fix", "."}, "ballot: flag provided but not defined: -fix\n"},
		{"unknown format", []string{"validate", "--format", "xml"}, "ballot: --format must be text or json, got \"xml\"\n"},
		{"two directories", []string{"validate", "a", "b"}, "ballot: validate takes at most one directory, got 2 arguments\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			code, stdout, stderr := run(t, tt.args...)
			if code != commands.ExitUsage || stdout != "" || stderr != tt.stderr {
				t.Errorf("exit %d, stdout %q, stderr %q; want 2, nothing, %q", code, stdout, stderr, tt.stderr)
			}
		})
	}
}

// TestServeRefusesWhatValidateRefuses: "valid" means exactly "serve would
// start on it", and serve prints the same problems.
func TestServeRefusesWhatValidateRefuses(t *testing.T) {
	dirs, _ := filepath.Glob(filepath.Join("testdata", "datasets", "*"))
	for _, dir := range dirs {
		t.Run(filepath.Base(dir), func(t *testing.T) {
			vcode, report, _ := run(t, "validate", dir)
			if vcode == commands.ExitOK {
				return // serving a valid dataset is the end-to-end tests' job
			}
			_, _, summary := run(t, "validate", dir)
			code, stdout, stderr := run(t, "serve", "--listen", "127.0.0.1:0", "--data", dir)
			if code != commands.ExitFailure || stdout != "" {
				t.Errorf("serve: exit %d, stdout %q; want 1 and nothing", code, stdout)
			}
			if stderr != report+summary {
				t.Errorf("serve's stderr:\n%s\nwant validate's report:\n%s", stderr, report+summary)
			}
		})
	}
}

// TestValidateReadsServeConfig: validate takes max_dataset_bytes from the
// configuration serve reads (--config, config.toml in the working
// directory, BALLOT_MAX_DATASET_BYTES, --max-dataset-bytes), so a file
// serve refuses as too large is refused by validate too, in the same words.
func TestValidateReadsServeConfig(t *testing.T) {
	valid, err := filepath.Abs(filepath.Join("testdata", "datasets", "valid"))
	if err != nil {
		t.Fatal(err)
	}
	const summary = "ballot: dataset invalid: 2 errors, 0 warnings\n"
	const oneTooLarge = "candidates.json: is 5080 bytes, more than the limit of 4000 bytes a file (max_dataset_bytes)\n"
	const oneSummary = "ballot: dataset invalid: 1 error, 0 warnings\n"
	dir := t.TempDir()
	small := filepath.Join(dir, "small.toml")
	large := filepath.Join(dir, "large.toml")
	bad := filepath.Join(dir, "bad.toml")
	unknown := filepath.Join(dir, "unknown.toml")
	writeFiles(t, dir, map[string][]byte{
		"small.toml":   []byte("max_dataset_bytes = 4000\n"),
		"large.toml":   []byte("max_dataset_bytes = 65536\n"),
		"bad.toml":     []byte("max_dataset_bytes = 10\n"),
		"unknown.toml": []byte("max_dataset_byte = 4000\n"),
	})

	tests := []struct {
		name           string
		env            []string
		args           []string
		code           int
		stdout, stderr string
	}{
		{"--config", nil, []string{"--config", small}, commands.ExitFailure, oneTooLarge, oneSummary},
		{"the flag over the file", nil, []string{"--config", small, "--max-dataset-bytes", "65536"}, commands.ExitOK, "", "ballot: dataset valid: 0 errors, 0 warnings\n"},
		{"the variable over the file", []string{"BALLOT_MAX_DATASET_BYTES=4000"}, []string{"--config", large}, commands.ExitFailure, oneTooLarge, oneSummary},
		{"a value out of bounds in the file", nil, []string{"--config", bad}, commands.ExitUsage, "",
			"ballot: config " + bad + ": max_dataset_bytes must be a number of bytes from 1024 to 1073741824 (1 GiB)\n"},
		{"a value out of bounds in the flag", nil, []string{"--max-dataset-bytes", "10"}, commands.ExitUsage, "",
			"ballot: flag --max-dataset-bytes: max_dataset_bytes must be a number of bytes from 1024 to 1073741824 (1 GiB)\n"},
		{"an unknown key", nil, []string{"--config", unknown}, commands.ExitUsage, "",
			"ballot: config " + unknown + ": unknown key max_dataset_byte (did you mean \"max_dataset_bytes\"?) (known keys: listen, "},
		{"a missing --config", nil, []string{"--config", filepath.Join(dir, "none.toml")}, commands.ExitUsage, "",
			"ballot: config " + filepath.Join(dir, "none.toml") + ": no such file or directory\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			for _, kv := range tt.env {
				k, v, _ := strings.Cut(kv, "=")
				t.Setenv(k, v)
			}
			code, stdout, stderr := run(t, append(append([]string{"validate"}, tt.args...), valid)...)
			// The unknown key's line goes on to list every key.
			if code != tt.code || stdout != tt.stdout || !strings.HasPrefix(stderr, tt.stderr) || strings.Count(stderr, "\n") != 1 {
				t.Errorf("exit %d, stdout %q, stderr %q\nwant %d, %q, %q", code, stdout, stderr, tt.code, tt.stdout, tt.stderr)
			}
		})
	}

	t.Run("config.toml in the working directory", func(t *testing.T) {
		wd := t.TempDir()
		writeFiles(t, wd, map[string][]byte{"config.toml": []byte("max_dataset_bytes = 3000\n")})
		t.Chdir(wd)
		code, stdout, stderr := run(t, "validate", valid)
		want := "districts.json: is 3825 bytes, more than the limit of 3000 bytes a file (max_dataset_bytes)\n" +
			"candidates.json: is 5080 bytes, more than the limit of 3000 bytes a file (max_dataset_bytes)\n"
		if code != commands.ExitFailure || stdout != want || stderr != summary {
			t.Errorf("exit %d, stdout %q, stderr %q\nwant 1, %q, %q", code, stdout, stderr, want, summary)
		}
		// serve, with the same configuration, refuses the same dataset
		// with the same report.
		code, _, serveErr := run(t, "serve", "--listen", "127.0.0.1:0", "--admin-listen", "", "--data", valid)
		if code != commands.ExitFailure || serveErr != stdout+stderr {
			t.Errorf("serve: exit %d, stderr %q; want 1 and validate's report %q", code, serveErr, stdout+stderr)
		}
	})
}

// TestValidateBoundsTheReport: of a counts.json of 2,000 empty sheets,
// each missing its 7 required fields, validate lists the first
// dataset.KeptOfAKind problems, then a line with how many more of the
// same kind there are, and counts every one; in JSON, the count is in
// "unlisted".
func TestValidateBoundsTheReport(t *testing.T) {
	dir := filesCopyValid(t)
	sheets := "[" + strings.Repeat("{},", 1999) + "{}]"
	if err := os.WriteFile(filepath.Join(dir, dataset.CountsFile), []byte(sheets), 0o644); err != nil {
		t.Fatal(err)
	}
	code, stdout, stderr := run(t, "validate", dir)
	lines := strings.Split(strings.TrimSuffix(stdout, "\n"), "\n")
	if code != commands.ExitFailure || stderr != "ballot: dataset invalid: 14000 errors, 0 warnings\n" || len(lines) != dataset.KeptOfAKind+1 {
		t.Fatalf("exit %d, %d lines, stderr %q; want exit 1, %d lines and 14000 errors", code, len(lines), stderr, dataset.KeptOfAKind+1)
	}
	// 142 sheets whole, and 6 of the 143rd's 7 fields.
	if want := []string{
		`counts.json: /142/counts: required field "counts" is missing`,
		`counts.json: … and 13,000 more problems of the same kind`,
	}; !slices.Equal(lines[dataset.KeptOfAKind-1:], want) {
		t.Errorf("the last lines:\n%s\nwant\n%s", strings.Join(lines[dataset.KeptOfAKind-1:], "\n"), strings.Join(want, "\n"))
	}

	code, stdout, _ = run(t, "validate", "--format", "json", dir)
	var report struct {
		Valid    bool              `json:"valid"`
		Errors   []json.RawMessage `json:"errors"`
		Warnings []json.RawMessage `json:"warnings"`
		Unlisted []json.RawMessage `json:"unlisted"`
	}
	if err := json.Unmarshal([]byte(stdout), &report); err != nil || code != commands.ExitFailure || report.Valid {
		t.Fatalf("exit %d, JSON report %.300q: %v", code, stdout, err)
	}
	if len(report.Errors) != dataset.KeptOfAKind || len(report.Warnings) != 0 || len(report.Unlisted) != 1 {
		t.Fatalf("%d errors, %d warnings, %d unlisted; want %d, 0, 1", len(report.Errors), len(report.Warnings), len(report.Unlisted), dataset.KeptOfAKind)
	}
	if got, want := string(report.Unlisted[0]), `{
      "file": "counts.json",
      "rule": "required",
      "warning": false,
      "count": 13000
    }`; got != want {
		t.Errorf("unlisted:\n%s\nwant\n%s", got, want)
	}
}
