package commands_test

import (
	"bytes"
	"io/fs"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"ballot/dataset"
)

// A count sheet that is broken, huge or hostile is refused by a reload
// with the reason, and the last good dataset, its sheets included, keeps
// serving; once the publisher mends it, the next reload serves it.
func TestCountSheetReloadRefused(t *testing.T) {
	data := t.TempDir()
	for _, name := range []string{dataset.ManifestFile, dataset.PartiesFile, dataset.DistrictsFile, dataset.CandidatesFile, dataset.CountsFile} {
		b, err := fs.ReadFile(dataset.DefaultFS(), name)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(data, name), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	counts := filepath.Join(data, dataset.CountsFile)
	good, _ := os.ReadFile(counts)
	p := serveInProcess(t, "--data", data, "--admin-listen", "127.0.0.1:0", "--max-dataset-bytes", "1048576")
	admin := prodAdmin(t, p)
	hc := &http.Client{Timeout: time.Minute, Transport: &http.Transport{Proxy: nil}}
	before := prodDo(t, hc, http.MethodGet, p.url("/api/public/v1/results/5"), nil)
	if before.status != http.StatusOK {
		t.Fatalf("GET /results/5: %d %s", before.status, before.body)
	}

	// One vote moved from Robert Abela's total at count 6 of district 5,
	// as a typing error would.
	broken := bytes.Replace(good, []byte(`"totals":[9996,3799,3799,3799,3799,3799,`), []byte(`"totals":[9996,3799,3799,3799,3799,3798,`), 1)
	if bytes.Equal(broken, good) {
		t.Fatal("district 5's row of Robert Abela not found")
	}
	cases := []struct {
		name string
		body []byte
		want string // in the refusal
	}{
		{"a count that does not add up", broken, `counts.json: /4/counts/5: district 5, count 6: the totals add up to 22,788, and the valid votes are 22,789`},
		{"larger than the limit", append(bytes.Repeat([]byte(" "), 1<<20), good...), `counts.json: is 1182397 bytes, more than the limit of 1048576 bytes a file (max_dataset_bytes)`},
		{"not JSON", []byte(`[{"district_id":`), `counts.json:1:17: not JSON`},
		{"nested past the limit", []byte(strings.Repeat("[", 100) + strings.Repeat("]", 100)), `counts.json:1:65: `},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			if err := os.WriteFile(counts, tc.body, 0o644); err != nil {
				t.Fatal(err)
			}
			r := prodDo(t, hc, http.MethodPost, "http://"+admin+"/reload", nil)
			if r.status != http.StatusUnprocessableEntity || !strings.Contains(string(r.body), tc.want) {
				t.Errorf("POST /reload: %d %s; want 422 naming %s", r.status, r.body, tc.want)
			}
			after := prodDo(t, hc, http.MethodGet, p.url("/api/public/v1/results/5"), nil)
			if after.status != http.StatusOK || after.header.Get("ETag") != before.header.Get("ETag") {
				t.Errorf("GET /results/5 after the refusal: %d, ETag %q; want 200 and the last good one's %q", after.status, after.header.Get("ETag"), before.header.Get("ETag"))
			}
		})
	}

	// Mended, and one byte more: a new version, which the reload serves.
	if err := os.WriteFile(counts, append(good, '\n'), 0o644); err != nil {
		t.Fatal(err)
	}
	if r := prodDo(t, hc, http.MethodPost, "http://"+admin+"/reload", nil); r.status != http.StatusOK {
		t.Errorf("POST /reload of the mended dataset: %d %s", r.status, r.body)
	}
	if after := prodDo(t, hc, http.MethodGet, p.url("/api/public/v1/results/5"), nil); after.status != http.StatusOK || after.header.Get("ETag") == before.header.Get("ETag") {
		t.Errorf("GET /results/5 after the mended reload: %d, ETag %q, the old one's %q; want 200 and a new ETag", after.status, after.header.Get("ETag"), before.header.Get("ETag"))
	}
}
