package commands_test

import (
	"io"
	"net/http"
	"path/filepath"
	"testing"
	"time"
)

// TestServeRequiredOnly: a dataset whose records hold only the required
// fields is served with every key of each record type, the optional ones
// null (a locality's split false).
func TestServeRequiredOnly(t *testing.T) {
	abs, err := filepath.Abs(filepath.Join("testdata", "datasets", "required-only"))
	if err != nil {
		t.Fatal(err)
	}
	p := serveInProcess(t, "--data", abs)
	hc := &http.Client{Timeout: 10 * time.Second}
	for _, c := range []string{"parties", "districts", "candidates"} {
		t.Run(c, func(t *testing.T) {
			resp, err := hc.Get(p.url("/api/public/v1/" + c))
			if err != nil {
				t.Fatal(err)
			}
			defer resp.Body.Close()
			body, err := io.ReadAll(resp.Body)
			if err != nil {
				t.Fatal(err)
			}
			if resp.StatusCode != http.StatusOK || resp.Header.Get("Content-Type") != "application/json; charset=utf-8" {
				t.Errorf("status %d, Content-Type %q; want 200, application/json; charset=utf-8", resp.StatusCode, resp.Header.Get("Content-Type"))
			}
			golden(t, filepath.Join("testdata", "required-only", c+".json"), normalise(body))
		})
	}
}
