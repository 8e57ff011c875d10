package commands_test

import (
	"net/http"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

// TestProdReadyzAfterRefusal: after a reload is refused, serve stays ready
// (the dataset before it is served), and /readyz says what is served and
// what was refused: when, from which directory, with its first problems.
// The metrics count the refusal and name the build and the dataset's
// published_at.
func TestProdReadyzAfterRefusal(t *testing.T) {
	t.Parallel()
	dir := filepath.Join(t.TempDir(), "current")
	files := map[string][]byte{}
	for _, name := range []string{"dataset.toml", "parties.json", "districts.json", "candidates.json"} {
		b, err := os.ReadFile(filepath.Join(prodValidDataset, name))
		if err != nil {
			t.Fatal(err)
		}
		files[name] = b
	}
	writeFiles(t, dir, files)
	p := serveInProcess(t, "--data", dir, "--admin-listen", "127.0.0.1:0")
	admin, hc := prodAdmin(t, p), prodHTTP(t)
	before := prodReadyz(t, hc, admin)

	writeFiles(t, dir, map[string][]byte{"parties.json": []byte("[{]")})
	prodJSON(t, prodDo(t, hc, http.MethodPost, "http://"+admin+"/reload", nil), http.StatusUnprocessableEntity)

	if after := prodReadyz(t, hc, admin); after != before {
		t.Errorf("/readyz's dataset after a refused reload: %+v, want the one served before: %+v", after, before)
	}
	ready := prodJSON(t, prodDo(t, hc, http.MethodGet, "http://"+admin+"/readyz", nil), http.StatusOK)
	ds, _ := ready["dataset"].(map[string]any)
	if ds["published_at"] != "2026-01-15" {
		t.Errorf("/readyz dataset.published_at = %v, want 2026-01-15 (the manifest's)", ds["published_at"])
	}
	refusal, _ := ready["last_refusal"].(map[string]any)
	if refusal == nil {
		t.Fatalf("/readyz after a refused reload has no last_refusal: %v", ready)
	}
	if refusal["path"] != dir || refusal["error_count"] != 1.0 {
		t.Errorf("last_refusal path %v, error_count %v; want %s, 1", refusal["path"], refusal["error_count"], dir)
	}
	if errs := refusal["errors"].([]any); len(errs) != 1 || !strings.HasPrefix(errs[0].(string), "parties.json:1:3: not JSON: ") {
		t.Errorf("last_refusal errors %v, want the syntax error in parties.json", errs)
	}
	detail, _ := ready["detail"].(string)
	if !strings.HasPrefix(detail, "the last reload, at "+refusal["at"].(string)+", was refused (1 error): still serving the dataset loaded at "+ds["loaded_at"].(string)) {
		t.Errorf("/readyz detail %q, want the refusal's time and the dataset still served", detail)
	}

	mfs := prodMetrics(t, hc, admin)
	for _, tt := range []struct {
		name   string
		labels []string
	}{
		{"ballot_dataset_reload_failures_total", nil},
		{"ballot_dataset_reloads_total", []string{"outcome", "failure"}},
		{"ballot_dataset_info", []string{"version", before.Version, "published_at", "2026-01-15"}},
		{"ballot_build_info", []string{"go_version", runtime.Version()}},
	} {
		if got, ok := prodSeries(mfs, tt.name, tt.labels...); got != 1 {
			t.Errorf("%s%v = %v (present %v), want 1", tt.name, tt.labels, got, ok)
		}
	}
	if got, _ := prodSeries(mfs, "ballot_dataset_reload_failure_timestamp_seconds"); got < float64(before.LoadedAt.Unix()) {
		t.Errorf("ballot_dataset_reload_failure_timestamp_seconds = %v, want after the load at %v", got, before.LoadedAt)
	}
}
