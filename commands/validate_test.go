package commands_test

import (
	"encoding/json"
	"path/filepath"
	"testing"

	"ballot/commands"
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
	if code, stdout, _ := run(t, "validate"); code != commands.ExitOK || stdout != "" {
		t.Errorf("the embedded dataset: exit %d, output %q; want 0 and no problem", code, stdout)
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
