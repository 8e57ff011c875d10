package server_test

import (
	"bytes"
	"cmp"
	"net/http"
	"strings"
	"testing"

	"ballot/archive"
	"ballot/internal/datasettest"
	"ballot/server"
)

// countsServer is newServer over the dataset with the 2022 count sheets
// (datasettest.Counts), or the same dataset without them.
func countsServer(t testing.TB, sheets bool, opts server.Options) (*server.Server, *clock) {
	t.Helper()
	def := server.DefaultOptions()
	opts.CacheMaxAge = cmp.Or(opts.CacheMaxAge, def.CacheMaxAge)
	opts.RateLimit = cmp.Or(opts.RateLimit, def.RateLimit)
	opts.RateWindow = cmp.Or(opts.RateWindow, def.RateWindow)
	opts.MaxClients = cmp.Or(opts.MaxClients, def.MaxClients)
	opts.IPv6Prefix = cmp.Or(opts.IPv6Prefix, def.IPv6Prefix)
	c := &clock{now: start}
	opts.Now = c.Now
	return server.New(archive.Of(datasettest.Counts(t, sheets)), opts), c
}

// TestResults checks the results' endpoints on status, headers and the
// exact body, with the count sheets and without: the list, its district
// filter, one sheet by its key, the national totals, and the refusals.
func TestResults(t *testing.T) {
	withSheets := datasettest.Counts(t, true)
	version := withSheets.Version[:16]
	etag := func(tag string) map[string]string {
		return merge(success, map[string]string{"ETag": `W/"` + version + "-f3" + tag + `"`})
	}
	noneVersion := datasettest.Counts(t, false).Version[:16]
	etagNone := func(tag string) map[string]string {
		return merge(success, map[string]string{"ETag": `W/"` + noneVersion + "-f3" + tag + `"`})
	}
	tests := []struct {
		name   string
		sheets bool
		target string
		status int
		header map[string]string
		golden string
	}{
		{"every sheet, by district number", true, "/api/public/v1/results", 200, etag("r-13"), "results.json"},
		{"limit and offset are not read", true, "/api/public/v1/results?limit=1&offset=5", 200, etag("r-13"), "results.json"},
		{"the district filter by number", true, "/api/public/v1/results?district=5", 200, etag("r5-1"), "result-5.json"},
		{"the district filter with a leading zero", true, "/api/public/v1/results?district=05", 200, etag("r5-1"), "result-5.json"},
		{"the district filter by UUID in upper case", true, "/api/public/v1/results?district=" + strings.ToUpper(district5ID), 200, etag("r5-1"), "result-5.json"},
		{"one sheet by number", true, "/api/public/v1/results/5", 200, etag("r5-1"), "result-5.json"},
		{"one sheet by UUID", true, "/api/public/v1/results/" + district5ID, 200, etag("r5-1"), "result-5.json"},
		{"the national totals", true, "/api/public/v1/results/national", 200, etag("n-1"), "results-national.json"},
		{"the national totals ignore parameters", true, "/api/public/v1/results/national?district=14", 200, etag("n-1"), "results-national.json"},

		{"district 14", true, "/api/public/v1/results?district=14", 400, failure, "400-district.json"},
		{"district not a number", true, "/api/public/v1/results?district=foo", 400, failure, "400-district.json"},
		{"district UUID naming nothing", true, "/api/public/v1/results?district=" + unknownID, 400, failure, "400-district-unknown.json"},
		{"district given twice", true, "/api/public/v1/results?district=5&district=5", 400, failure, "400-results-district-twice.json"},
		{"no district 14", true, "/api/public/v1/results/14", 404, failure, "404-result.json"},
		{"no district 0", true, "/api/public/v1/results/0", 404, failure, "404-result-0.json"},
		{"national in capitals is no key", true, "/api/public/v1/results/NATIONAL", 404, failure, "404-result-national.json"},
		{"one segment more", true, "/api/public/v1/results/national/5", 404, failure, "404.json"},

		{"without sheets: none", false, "/api/public/v1/results", 200, etagNone("r-0"), "results-none.json"},
		{"without sheets: none of a district", false, "/api/public/v1/results?district=5", 200, etagNone("r--0"), "results-none.json"},
		{"without sheets: a refused district all the same", false, "/api/public/v1/results?district=14", 400, failure, "400-district.json"},
		{"without sheets: no record", false, "/api/public/v1/results/5", 404, failure, "404-result-5.json"},
		{"without sheets: national totals of nothing", false, "/api/public/v1/results/national", 200, etagNone("n-1"), "results-national-none.json"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s, _ := countsServer(t, tt.sheets, server.Options{})
			rec := do(t, s, request{target: tt.target})
			if rec.Code != tt.status {
				t.Fatalf("status = %d, want %d; body %s", rec.Code, tt.status, rec.Body)
			}
			wantHeaders(t, rec.Header(), merge(everyResponse, tt.header))
			if got, want := rec.Header().Get("Content-Length"), itoa(rec.Body.Len()); got != want {
				t.Errorf("Content-Length = %q, want %q", got, want)
			}
			golden(t, tt.golden, rec.Body.Bytes())
			if tt.status != 200 {
				checkProblem(t, rec.Body.Bytes(), tt.status)
				return
			}
			checkEnvelope(t, rec.Body.Bytes())

			// The same body gzipped, under the same weak tag.
			zipped := do(t, s, request{target: tt.target, header: map[string]string{"Accept-Encoding": "gzip"}})
			wantHeaders(t, zipped.Header(), merge(tt.header, map[string]string{"Content-Encoding": "gzip", "X-RateLimit-Remaining": "58"}))
			if got := gunzip(t, zipped.Body.Bytes()); !bytes.Equal(got, rec.Body.Bytes()) {
				t.Errorf("gzip: the body unzipped differs from the plain one:\n got %.300s\nwant %.300s", got, rec.Body.Bytes())
			}
			// A client holding it gets 304, whichever encoding it takes.
			for _, enc := range []string{"", "gzip"} {
				again := do(t, s, request{target: tt.target, header: map[string]string{"If-None-Match": tt.header["ETag"], "Accept-Encoding": enc}})
				if again.Code != http.StatusNotModified || again.Body.Len() != 0 || again.Header().Get("ETag") != tt.header["ETag"] {
					t.Errorf("If-None-Match, Accept-Encoding %q: status %d, %d bytes, ETag %s; want 304, none, the same tag",
						enc, again.Code, again.Body.Len(), again.Header().Get("ETag"))
				}
			}
			head := do(t, s, request{method: http.MethodHead, target: tt.target})
			if head.Code != 200 || head.Body.Len() != 0 || head.Header().Get("Content-Length") != itoa(rec.Body.Len()) {
				t.Errorf("HEAD: status %d, %d bytes, Content-Length %s", head.Code, head.Body.Len(), head.Header().Get("Content-Length"))
			}
		})
	}
}

// TestResultsRateLimit: the results' three endpoints spend one counter,
// the collection's, as each collection's list and record share theirs,
// and no other endpoint's.
func TestResultsRateLimit(t *testing.T) {
	s, _ := countsServer(t, true, server.Options{RateLimit: 3})
	for i, target := range []string{"/api/public/v1/results", "/api/public/v1/results/5", "/api/public/v1/results/national"} {
		rec := do(t, s, request{target: target})
		if got, want := rec.Header().Get("X-RateLimit-Remaining"), itoa(2-i); rec.Code != http.StatusOK || got != want {
			t.Errorf("%s: status %d, X-RateLimit-Remaining %s; want 200 and %s", target, rec.Code, got, want)
		}
	}
	if rec := do(t, s, request{target: "/api/public/v1/results?district=1"}); rec.Code != http.StatusTooManyRequests {
		t.Errorf("the fourth request: status %d, want 429", rec.Code)
	}
	if rec := do(t, s, request{target: "/api/public/v1/districts/5"}); rec.Code != http.StatusOK || rec.Header().Get("X-RateLimit-Remaining") != "2" {
		t.Errorf("districts: status %d, X-RateLimit-Remaining %s; want 200 and 2", rec.Code, rec.Header().Get("X-RateLimit-Remaining"))
	}
}

// TestSheetDownload checks a district's count sheet as CSV: its bytes
// (golden), its headers, 304 and gzip, and the 404 of a district without
// a sheet.
func TestSheetDownload(t *testing.T) {
	withSheets, _ := countsServer(t, true, server.Options{Pages: true, RateLimit: 1000})
	without, _ := countsServer(t, false, server.Options{Pages: true, RateLimit: 1000})
	version := datasettest.Counts(t, true).Version[:16]
	download := map[string]string{
		"Content-Type":        "text/csv; charset=utf-8",
		"Content-Disposition": `attachment; filename="district-5-count.csv"`,
		"Cache-Control":       "public, max-age=60",
		"ETag":                `"` + version + `-csv2s5-19"`,
		"Content-Encoding":    "",
	}
	// A download is a page's path: what it cannot find is the 404 page, as
	// the district's own page answers it.
	notFound := map[string]string{"Content-Type": "text/html; charset=utf-8", "Cache-Control": "no-store", "Content-Disposition": "", "ETag": ""}
	tests := []struct {
		name   string
		s      *server.Server
		target string
		status int
		header map[string]string
		golden string
	}{
		{"by number", withSheets, "/districts/5/count.csv", 200, download, "csv/district-5-count.csv"},
		{"by number with a zero", withSheets, "/districts/05/count.csv", 200, download, "csv/district-5-count.csv"},
		{"by UUID", withSheets, "/districts/" + district5ID + "/count.csv", 200, download, "csv/district-5-count.csv"},
		{"no district 14", withSheets, "/districts/14/count.csv", 404, notFound, "/districts/14"},
		{"a district without a sheet", without, "/districts/5/count.csv", 404, notFound, "/districts/14"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rec := pageGet(t, tt.s, http.MethodGet, tt.target, nil)
			if rec.Code != tt.status {
				t.Fatalf("status %d, want %d: %s", rec.Code, tt.status, rec.Body)
			}
			wantHeaders(t, rec.Header(), tt.header)
			if got, want := rec.Header().Get("Content-Length"), itoa(rec.Body.Len()); got != want {
				t.Errorf("Content-Length = %q, want %q", got, want)
			}
			if tt.status == 404 {
				page := pageGet(t, tt.s, http.MethodGet, tt.golden, nil)
				if page.Code != 404 || !bytes.Equal(rec.Body.Bytes(), page.Body.Bytes()) {
					t.Errorf("the body is not the 404 page of %s (status %d):\n%.300s", tt.golden, page.Code, rec.Body)
				}
				return
			}
			golden(t, tt.golden, rec.Body.Bytes())
			etag := tt.header["ETag"]
			if again := pageGet(t, tt.s, http.MethodGet, tt.target, map[string]string{"If-None-Match": etag}); again.Code != 304 || again.Body.Len() != 0 {
				t.Errorf("If-None-Match: status %d, %d bytes; want 304", again.Code, again.Body.Len())
			}
			gzipTag := strings.TrimSuffix(etag, `"`) + `-gzip"`
			zipped := pageGet(t, tt.s, http.MethodGet, tt.target, map[string]string{"Accept-Encoding": "gzip"})
			wantHeaders(t, zipped.Header(), merge(tt.header, map[string]string{"Content-Encoding": "gzip", "ETag": gzipTag}))
			if got := gunzip(t, zipped.Body.Bytes()); !bytes.Equal(got, rec.Body.Bytes()) {
				t.Errorf("gzip: the body unzipped is %d bytes unlike the plain one's %d", len(got), rec.Body.Len())
			}
		})
	}
}
