package server_test

import (
	"bytes"
	"compress/gzip"
	"encoding/csv"
	"io"
	"net/http"
	"strings"
	"testing"

	"ballot/server"
)

// TestDownloads checks the CSV downloads' status, headers and exact bytes
// (golden files in testdata/csv): a byte order mark, the header, a row per
// record the filters keep (every one: limit and offset do not apply), and
// the API's 400 problem for a refused filter.
func TestDownloads(t *testing.T) {
	download := func(name string) map[string]string {
		return map[string]string{
			"Content-Type":        "text/csv; charset=utf-8",
			"Content-Disposition": `attachment; filename="` + name + `"`,
			"Cache-Control":       "public, max-age=60",
			"Content-Encoding":    "",
			"Link":                "",
		}
	}
	refused := map[string]string{"Content-Type": "application/problem+json", "Cache-Control": "no-store", "Content-Disposition": "", "ETag": ""}
	tests := []struct {
		name, target string
		status       int
		header       map[string]string
		golden       string
	}{
		{"parties", "/parties.csv", 200, download("parties.csv"), "csv/parties.csv"},
		{"parties ignore parameters", "/parties.csv?district=99&q=x", 200, download("parties.csv"), "csv/parties.csv"},
		{"districts", "/districts.csv", 200, download("districts.csv"), "csv/districts.csv"},
		{"districts holding a locality", "/districts.csv?locality=birzebbuga", 200, download("districts.csv"), "csv/districts-locality-birzebbuga.csv"},
		{"every candidate, past the API's limit", "/candidates.csv", 200, download("candidates.csv"), "csv/candidates.csv"},
		{"limit and offset do not apply", "/candidates.csv?limit=1&offset=5", 200, download("candidates.csv"), "csv/candidates.csv"},
		{"the API's filters", "/candidates.csv?district=5&party=PN", 200, download("candidates.csv"), "csv/candidates-district-5-party-pn.csv"},
		{"the readers' filters", "/candidates.csv?stood_in=5&elected=true&q=%20AR", 200, download("candidates.csv"), "csv/candidates-stood-in-5-elected-q-ar.csv"},
		{"filters matching nobody: the header alone", "/candidates.csv?q=qqq", 200, download("candidates.csv"), "csv/candidates-none.csv"},

		{"a refused filter", "/candidates.csv?stood_in=14&elected=yes", 400, refused, "400-csv-refused.json"},
		{"a refused limit is not read", "/candidates.csv?limit=0&district=14", 400, refused, "400-district.json"},
		{"a locality naming none", "/districts.csv?locality=Atlantis", 400, refused, "400-csv-locality.json"},
	}
	s := pagesServer(t) // one for every download: none changes what the next answers
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rec := pageGet(t, s, http.MethodGet, tt.target, nil)
			if rec.Code != tt.status {
				t.Fatalf("status %d, want %d: %s", rec.Code, tt.status, rec.Body)
			}
			wantHeaders(t, rec.Header(), tt.header)
			if got, want := rec.Header().Get("Content-Length"), itoa(rec.Body.Len()); got != want {
				t.Errorf("Content-Length = %q, want %q", got, want)
			}
			golden(t, tt.golden, rec.Body.Bytes())
			if tt.status != 200 {
				checkProblem(t, rec.Body.Bytes(), tt.status)
				return
			}
			body := rec.Body.Bytes()
			if !bytes.HasPrefix(body, []byte("\xEF\xBB\xBF")) {
				t.Fatal("the body does not start with a UTF-8 byte order mark")
			}
			rows, err := csv.NewReader(bytes.NewReader(body[3:])).ReadAll()
			if err != nil {
				t.Fatalf("not CSV: %v", err)
			}
			for _, row := range rows {
				for _, cell := range row {
					if cell != "" && strings.ContainsAny(cell[:1], "=+-@\t\r") {
						t.Errorf("cell %q begins as a formula", cell)
					}
				}
			}
			etag := rec.Header().Get("ETag")
			if !strings.HasPrefix(etag, `"`) {
				t.Errorf("ETag %q, want a strong tag", etag)
			}
			again := pageGet(t, s, http.MethodGet, tt.target, map[string]string{"If-None-Match": etag})
			if again.Code != http.StatusNotModified || again.Body.Len() != 0 {
				t.Errorf("If-None-Match: status %d, %d bytes; want 304", again.Code, again.Body.Len())
			}
			head := pageGet(t, s, http.MethodHead, tt.target, nil)
			if head.Code != 200 || head.Body.Len() != 0 || head.Header().Get("Content-Length") != itoa(len(body)) {
				t.Errorf("HEAD: status %d, %d bytes, Content-Length %s", head.Code, head.Body.Len(), head.Header().Get("Content-Length"))
			}

			// The same rows gzipped, under their own strong tag.
			gzipTag := strings.TrimSuffix(etag, `"`) + `-gzip"`
			zipped := pageGet(t, s, http.MethodGet, tt.target, map[string]string{"Accept-Encoding": "gzip"})
			h := download(strings.TrimPrefix(strings.Split(tt.target, "?")[0], "/"))
			h["Content-Encoding"], h["ETag"], h["Vary"] = "gzip", gzipTag, "Accept-Encoding"
			wantHeaders(t, zipped.Header(), h)
			if got, want := zipped.Header().Get("Content-Length"), itoa(zipped.Body.Len()); zipped.Code != 200 || got != want {
				t.Errorf("gzip: status %d, Content-Length = %q, want %q", zipped.Code, got, want)
			}
			if got := gunzip(t, zipped.Body.Bytes()); !bytes.Equal(got, body) {
				t.Errorf("gzip: the body unzipped is %d bytes unlike the plain one's %d", len(got), len(body))
			}
			for _, c := range []struct {
				encoding, tag string
				status        int
			}{{"gzip", gzipTag, 304}, {"gzip", etag, 200}, {"", gzipTag, 200}, {"gzip;q=0", etag, 304}} {
				again := pageGet(t, s, http.MethodGet, tt.target, map[string]string{"Accept-Encoding": c.encoding, "If-None-Match": c.tag})
				if again.Code != c.status {
					t.Errorf("Accept-Encoding %q, If-None-Match %s: status %d, want %d", c.encoding, c.tag, again.Code, c.status)
				}
			}
			zhead := pageGet(t, s, http.MethodHead, tt.target, map[string]string{"Accept-Encoding": "gzip"})
			if zhead.Code != 200 || zhead.Body.Len() != 0 || zhead.Header().Get("Content-Length") != itoa(zipped.Body.Len()) {
				t.Errorf("HEAD, gzip: status %d, %d bytes, Content-Length %s", zhead.Code, zhead.Body.Len(), zhead.Header().Get("Content-Length"))
			}
		})
	}
}

// TestDownloadsETags: downloads of different rows have different tags,
// and the same rows asked for in other words the same tag.
func TestDownloadsETags(t *testing.T) {
	s := pagesServer(t)
	tagOf := func(target string) string {
		t.Helper()
		rec := pageGet(t, s, http.MethodGet, target, nil)
		if rec.Code != 200 {
			t.Fatalf("%s: status %d", target, rec.Code)
		}
		return rec.Header().Get("ETag")
	}
	same := [][]string{
		{"/candidates.csv", "/candidates.csv?limit=3", "/candidates.csv?offset=9&_=1"},
		{"/candidates.csv?q=zammit", "/candidates.csv?q=%C5%BBAMMIT+"},
		{"/candidates.csv?stood_in=5", "/candidates.csv?stood_in=05"},
		{"/districts.csv?locality=luqa", "/districts.csv?locality=Luqa"},
	}
	seen := map[string]string{}
	for _, group := range same {
		tag := tagOf(group[0])
		for _, target := range group[1:] {
			if got := tagOf(target); got != tag {
				t.Errorf("%s: ETag %s, %s has %s", target, got, group[0], tag)
			}
		}
		seen[tag] = group[0]
	}
	for _, target := range []string{"/parties.csv", "/districts.csv", "/candidates.csv?stood_in=6", "/candidates.csv?q=abela",
		"/candidates.csv?elected=true", "/candidates.csv?elected=false", "/candidates.csv?district=5", "/districts.csv?locality=birzebbuga"} {
		tag := tagOf(target)
		if prev, ok := seen[tag]; ok {
			t.Errorf("%s and %s share the ETag %s", target, prev, tag)
		}
		seen[tag] = target
	}
}

// TestDownloadsShareThePagesRateLimit: a download spends the counter of
// the pages.
func TestDownloadsShareThePagesRateLimit(t *testing.T) {
	s, _ := newServer(t, server.Options{Pages: true, RateLimit: 3})
	for i, target := range []string{"/parties", server.CandidatesCSVPath, server.DistrictsCSVPath} {
		rec := pageGet(t, s, http.MethodGet, target, nil)
		if got, want := rec.Header().Get("X-RateLimit-Remaining"), itoa(2-i); rec.Code != http.StatusOK || got != want {
			t.Errorf("%s: status %d, X-RateLimit-Remaining %s; want 200 and %s", target, rec.Code, got, want)
		}
	}
	rec := pageGet(t, s, http.MethodGet, server.PartiesCSVPath, nil)
	if rec.Code != http.StatusTooManyRequests || rec.Header().Get("Retry-After") == "" {
		t.Errorf("the fourth request: status %d, Retry-After %q; want 429 with Retry-After", rec.Code, rec.Header().Get("Retry-After"))
	}
}

// TestDownloadsOnlyWithPages: without the pages, the downloads' paths are
// no route's.
func TestDownloadsOnlyWithPages(t *testing.T) {
	s, _ := newServer(t, server.Options{})
	for _, target := range []string{server.PartiesCSVPath, server.DistrictsCSVPath, server.CandidatesCSVPath, "/districts/5/count.csv"} {
		if rec := do(t, s, request{target: target}); rec.Code != http.StatusNotFound {
			t.Errorf("%s: status %d, want 404", target, rec.Code)
		}
	}
}

// gunzip is a gzip body unzipped, or the test's end.
func gunzip(t *testing.T, b []byte) []byte {
	t.Helper()
	zr, err := gzip.NewReader(bytes.NewReader(b))
	if err != nil {
		t.Fatalf("not gzip: %v", err)
	}
	out, err := io.ReadAll(zr)
	if err != nil {
		t.Fatalf("gzip: %v", err)
	}
	return out
}
