package server_test

import (
	"bytes"
	"compress/gzip"
	"encoding/json"
	"flag"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"ballot/dataset"
	"ballot/server"
)

// pagesOut, when set, is a directory the pages test writes every page it
// renders into, for .ci/lint-html to validate.
var pagesOut = flag.String("pages-out", "", "write every page rendered by TestPages into this `directory`")

const csp = "default-src 'none'; style-src 'self'; img-src 'self'; form-action 'self'; base-uri 'none'; frame-ancestors 'none'"

// pageGet sends one request to h. Pages are no answer of the API, so,
// unlike do, it does not hold them to openapi.json.
func pageGet(t testing.TB, h http.Handler, method, target string, header map[string]string) *httptest.ResponseRecorder {
	t.Helper()
	req := httptest.NewRequest(method, target, nil)
	req.RemoteAddr = "203.0.113.7:52100"
	for k, v := range header {
		req.Header.Set(k, v)
	}
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, req)
	return rec
}

func pagesServer(t testing.TB) *server.Server {
	t.Helper()
	s, _ := newServer(t, server.Options{Pages: true, RateLimit: 1000})
	return s
}

// writePage keeps a page for .ci/lint-html when -pages-out is given.
func writePage(t *testing.T, name string, body []byte) {
	t.Helper()
	if *pagesOut == "" {
		return
	}
	if err := os.MkdirAll(*pagesOut, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(*pagesOut, name), body, 0o644); err != nil {
		t.Fatal(err)
	}
}

// TestPages requests every page: its status, its headers, and its HTML
// against a golden file of the embedded data.
func TestPages(t *testing.T) {
	s := pagesServer(t)
	api := func(target string) map[string]any {
		t.Helper()
		rec := do(t, s, request{target: target})
		var m map[string]any
		if err := json.Unmarshal(rec.Body.Bytes(), &m); err != nil {
			t.Fatalf("%s: %v", target, err)
		}
		return m
	}
	badDetail := api("/api/public/v1/candidates?district=14&party=nope&limit=0")["detail"].(string)
	badLimitDetail := api("/api/public/v1/candidates?limit=501")["detail"].(string)

	tests := []struct {
		name, target string
		status       int
		golden       string   // under testdata/pages/; "" for none
		contains     []string // in the body
	}{
		{"home", "/", 200, "home.html", []string{
			"<h1>Malta general election, 26 March 2022</h1>", `<strong>140</strong> candidates`,
			`<form class="filters" action="/districts" method="get">`, `href="/api/public/v1/"`}},
		{"home ignores parameters", "/?_=1", 200, "home.html", nil},
		{"parties", "/parties", 200, "parties.html", []string{`<a href="/parties/pn">Partit Nazzjonalista</a>`, `href="/api/public/v1/parties"`}},
		{"districts", "/districts", 200, "districts.html", []string{"Birżebbuġa", "Ħal Farruġ", `href="/api/public/v1/districts"`}},
		{"districts with a locality", "/districts?locality=Birgu", 200, "", []string{`value="Birgu"`, `href="/api/public/v1/districts?locality=Birgu"`, `holding “Birgu”: 1.`, `id="district-2"`}},
		{"a locality read as the API reads it", "/districts?locality=vittoriosa;&x=%zz", 200, "", []string{`holding “vittoriosa;”: 1.`, `id="district-2"`}},
		{"a split council", "/districts?locality=Naxxar", 200, "", []string{`holding “Naxxar”: 2.`, `id="district-10"`, `id="district-12"`}},
		{"a locality that matches none", "/districts?locality=Birzebuga", 400, "", []string{"did you mean Birżebbuġa?", `<code>locality</code>`}},
		{"candidates", "/candidates", 200, "candidates.html", []string{"Candidates 1 to 100 of 140,", `href="/api/public/v1/candidates"`, `<a rel="next" href="/candidates?offset=100">`}},
		{"candidates with empty filters", "/candidates?district=&party=&limit=", 200, "candidates.html", nil},
		{"candidates of district 5 and PN", "/candidates?district=5&party=pn", 200, "candidates-5-pn.html", []string{
			`<option value="5" selected>`, `<option value="pn" selected>`, `href="/api/public/v1/candidates?district=5&amp;party=pn"`}},
		{"the same filter written otherwise", "/candidates?party=PN&district=d0e4f679-6e46-543c-a8f9-478075abcc0a&limit=100", 200, "candidates-5-pn.html", nil},
		{"the same filter with a leading zero", "/candidates?district=05&party=pn&limit=100&_=1", 200, "candidates-5-pn.html", nil},
		{"candidates limited", "/candidates?limit=3", 200, "", []string{"Candidates 1 to 3 of 140,", `value="3"`, `href="/api/public/v1/candidates?limit=3"`, `<a rel="next" href="/candidates?limit=3&amp;offset=3">`}},
		{"candidates, a later page", "/candidates?limit=3&offset=3", 200, "", []string{"Candidates 4 to 6 of 140,", `href="/api/public/v1/candidates?limit=3&amp;offset=3"`, `<a rel="prev" href="/candidates?limit=3">`, `<a rel="next" href="/candidates?limit=3&amp;offset=6">`}},
		{"candidates, the last page", "/candidates?offset=100", 200, "", []string{"Candidates 101 to 140 of 140,", `<a rel="prev" href="/candidates">`}},
		{"candidates, past the last", "/candidates?offset=140", 200, "", []string{"No candidates after the first 140 of 140,", `<a rel="prev" href="/candidates?offset=40">`}},
		{"refused filters", "/candidates?district=14&party=nope&limit=0", 400, "candidates-400.html", []string{badDetail, `value="0"`, `href="/api/public/v1/candidates?district=14&amp;party=nope&amp;limit=0"`}},
		{"a refused limit keeps the other filters in the form", "/candidates?district=5&party=PN&limit=501", 400, "", []string{`<option value="5" selected>`, `<option value="pn" selected>`, `value="501"`}},
		{"refused limit", "/candidates?limit=501", 400, "", []string{badLimitDetail}},
		{"party", "/parties/pn", 200, "party-pn.html", []string{`href="/api/public/v1/parties/pn"`, `<a href="/candidates/toni-bezzina">Toni Bezzina</a>`}},
		{"a party by its id, in capitals", "/parties/2ACF0508-F838-57A5-918A-AFFA0A1B1D89", 200, "party-pn.html", nil},
		{"a candidate by its id", "/candidates/c8a434ca-00bf-5ee8-9c7f-f7d204b6abe9", 200, "", []string{"<h1>Toni Bezzina</h1>", `href="/api/public/v1/candidates/toni-bezzina"`}},
		{"party in capitals", "/parties/PN", 200, "party-pn.html", nil},
		{"candidate", "/candidates/robert-abela", 200, "candidate-robert-abela.html", []string{`href="/api/public/v1/candidates/robert-abela"`, `<a href="/parties/pl">Partit Laburista</a>`}},
		{"independent", "/candidates/arnold-cassola", 200, "candidate-arnold-cassola.html", []string{"independent"}},
		{"reference", "/reference", 200, "reference.html", []string{`href="/api/public/v1/openapi.json"`}},
		{"unknown party", "/parties/no-such-party", 404, "party-404.html", []string{`No party has this slug`}},
		{"unknown candidate", "/candidates/nobody", 404, "", []string{`No candidate has this slug`}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rec := pageGet(t, s, http.MethodGet, tt.target, nil)
			if rec.Code != tt.status {
				t.Fatalf("status %d, want %d; body %.300s", rec.Code, tt.status, rec.Body)
			}
			cache := "public, max-age=60"
			if tt.status != 200 {
				cache = "no-store"
			}
			wantHeaders(t, rec.Header(), map[string]string{
				"Content-Type":                "text/html; charset=utf-8",
				"Content-Security-Policy":     csp,
				"Cache-Control":               cache,
				"Access-Control-Allow-Origin": "*",
				"X-Content-Type-Options":      "nosniff",
				"X-RateLimit-Limit":           "1000",
				"Vary":                        "Accept-Encoding",
				"Content-Length":              itoa(rec.Body.Len()),
			})
			body := rec.Body.Bytes()
			for _, want := range tt.contains {
				if !bytes.Contains(body, []byte(want)) {
					t.Errorf("the page lacks %q", want)
				}
			}
			for _, want := range []string{"<!DOCTYPE html>\n<html lang=\"en\">", `<meta charset="utf-8">`, `<meta name="viewport" content="width=device-width, initial-scale=1">`} {
				if !bytes.Contains(body, []byte(want)) {
					t.Errorf("the page lacks %q", want)
				}
			}
			if bytes.Contains(body, []byte("<script")) || bytes.Contains(body, []byte(`src="http`)) || bytes.Contains(body, []byte(`href="//`)) {
				t.Errorf("the page has a script or a resource of another origin")
			}
			if tt.golden != "" {
				golden(t, filepath.Join("pages", tt.golden), body)
			}
			writePage(t, strings.NewReplacer("/", "_", "?", "_", "&", "_", "=", "-").Replace(strings.TrimPrefix(tt.target, "/"))+".html", body)

			etag := rec.Header().Get("ETag")
			if tt.status != 200 {
				if etag != "" {
					t.Errorf("an error page carries ETag %q", etag)
				}
				return
			}
			checkPageCaching(t, s, tt.target, etag, body)
		})
	}
}

// checkPageCaching checks what a page shares with every successful answer:
// 304 for its ETag, HEAD, and gzip with an ETag of its own. A page rendered
// for its request (a query's, a candidate's) is never compressed per
// request: it goes out as it is, with its one ETag, to a client that
// accepts gzip too.
func checkPageCaching(t *testing.T, s http.Handler, target, etag string, body []byte) {
	t.Helper()
	if !strings.HasPrefix(etag, `"`) || !strings.HasSuffix(etag, `"`) {
		t.Fatalf("ETag %q is not a strong entity tag", etag)
	}
	rec := pageGet(t, s, http.MethodGet, target, map[string]string{"If-None-Match": etag})
	if rec.Code != http.StatusNotModified || rec.Body.Len() != 0 || rec.Header().Get("ETag") != etag {
		t.Errorf("If-None-Match %s: status %d, ETag %q, %d bytes; want 304, the same ETag, no body", etag, rec.Code, rec.Header().Get("ETag"), rec.Body.Len())
	}
	head := pageGet(t, s, http.MethodHead, target, nil)
	if head.Code != http.StatusOK || head.Body.Len() != 0 || head.Header().Get("Content-Length") != itoa(len(body)) || head.Header().Get("ETag") != etag {
		t.Errorf("HEAD: status %d, %d bytes, Content-Length %q, ETag %q; want 200, none, %d, %s",
			head.Code, head.Body.Len(), head.Header().Get("Content-Length"), head.Header().Get("ETag"), len(body), etag)
	}
	gz := pageGet(t, s, http.MethodGet, target, map[string]string{"Accept-Encoding": "gzip"})
	if rendered := strings.HasPrefix(etag, `"candidates-`) || strings.HasPrefix(etag, `"districts-`) || strings.HasPrefix(etag, `"candidate-`); rendered {
		if gz.Header().Get("Content-Encoding") != "" || gz.Header().Get("ETag") != etag || !bytes.Equal(gz.Body.Bytes(), body) {
			t.Errorf("rendered per request, with gzip accepted: Content-Encoding %q, ETag %q (plain %s), same body %v; want none, the same ETag and body",
				gz.Header().Get("Content-Encoding"), gz.Header().Get("ETag"), etag, bytes.Equal(gz.Body.Bytes(), body))
		}
		return
	}
	if gz.Header().Get("Content-Encoding") != "gzip" || gz.Header().Get("ETag") == etag {
		t.Fatalf("gzip: Content-Encoding %q, ETag %q (plain %s)", gz.Header().Get("Content-Encoding"), gz.Header().Get("ETag"), etag)
	}
	zr, err := gzip.NewReader(gz.Body)
	if err != nil {
		t.Fatal(err)
	}
	plain, err := io.ReadAll(zr)
	if err != nil || !bytes.Equal(plain, body) {
		t.Errorf("the gzip body is not the page (%v)", err)
	}
	if rec := pageGet(t, s, http.MethodGet, target, map[string]string{"Accept-Encoding": "gzip", "If-None-Match": gz.Header().Get("ETag")}); rec.Code != http.StatusNotModified {
		t.Errorf("If-None-Match with the gzip ETag: status %d, want 304", rec.Code)
	}
}

// TestPagesNotFound: the pages answer only their own paths; elsewhere a
// browser gets the 404 page and every other client the 404 problem.
func TestPagesNotFound(t *testing.T) {
	s := pagesServer(t)
	browser := map[string]string{"Accept": "text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8"}
	tests := []struct {
		name, target string
		header       map[string]string
		html         bool
	}{
		{"a browser outside the API", "/nothing", browser, true},
		{"a browser under a page", "/parties/pn/more", browser, true},
		{"a program outside the API", "/nothing", nil, false},
		{"a browser in the API", "/api/public/v1/nothing", browser, false},
		{"a trailing slash", "/parties/", browser, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rec := pageGet(t, s, http.MethodGet, tt.target, tt.header)
			if rec.Code != http.StatusNotFound {
				t.Fatalf("status %d, want 404", rec.Code)
			}
			vary := "Accept-Encoding, Accept"
			if strings.HasPrefix(tt.target, server.BasePath) {
				vary = "Accept-Encoding"
			}
			want := map[string]string{"Cache-Control": "no-store", "Vary": vary, "ETag": "", "Content-Type": "application/problem+json", "Content-Security-Policy": ""}
			if tt.html {
				want["Content-Type"], want["Content-Security-Policy"] = "text/html; charset=utf-8", csp
			}
			wantHeaders(t, rec.Header(), want)
			if tt.html {
				golden(t, filepath.Join("pages", "404.html"), rec.Body.Bytes())
				writePage(t, "404.html", rec.Body.Bytes())
			} else {
				checkProblem(t, rec.Body.Bytes(), http.StatusNotFound)
			}
		})
	}
	t.Run("POST to a page", func(t *testing.T) {
		rec := pageGet(t, s, http.MethodPost, "/candidates", nil)
		if rec.Code != http.StatusMethodNotAllowed || rec.Header().Get("Allow") != "GET, HEAD, OPTIONS" {
			t.Errorf("status %d, Allow %q; want 405 and GET, HEAD, OPTIONS", rec.Code, rec.Header().Get("Allow"))
		}
	})
}

// TestPagesOff: without the pages, / and every page's path are the 404
// problem they were, for browsers too.
func TestPagesOff(t *testing.T) {
	s, _ := newServer(t, server.Options{})
	for _, target := range []string{"/", "/parties", "/candidates?district=5", "/parties/pn", "/reference", "/style.css"} {
		rec := pageGet(t, s, http.MethodGet, target, map[string]string{"Accept": "text/html"})
		if rec.Code != http.StatusNotFound || rec.Header().Get("Content-Type") != "application/problem+json" {
			t.Errorf("%s: status %d, Content-Type %q; want the 404 problem", target, rec.Code, rec.Header().Get("Content-Type"))
		}
	}
}

// TestPageAssets: the stylesheet and the icon the pages use.
func TestPageAssets(t *testing.T) {
	s := pagesServer(t)
	for _, tt := range []struct{ target, contentType string }{
		{"/style.css", "text/css; charset=utf-8"},
		{"/favicon.svg", "image/svg+xml"},
	} {
		rec := pageGet(t, s, http.MethodGet, tt.target, nil)
		if rec.Code != http.StatusOK || rec.Header().Get("Content-Type") != tt.contentType || rec.Body.Len() == 0 {
			t.Errorf("%s: status %d, Content-Type %q, %d bytes", tt.target, rec.Code, rec.Header().Get("Content-Type"), rec.Body.Len())
			continue
		}
		checkPageCaching(t, s, tt.target, rec.Header().Get("ETag"), rec.Body.Bytes())
	}
}

// TestPagesShareTheRateLimit: a page spends the counter of every other
// path, and past it gets the 429 problem.
func TestPagesShareTheRateLimit(t *testing.T) {
	s, _ := newServer(t, server.Options{Pages: true, RateLimit: 3})
	for i, target := range []string{"/", server.BasePath + "/", "/candidates?district=5"} {
		rec := pageGet(t, s, http.MethodGet, target, nil)
		if got, want := rec.Header().Get("X-RateLimit-Remaining"), itoa(2-i); rec.Code != http.StatusOK || got != want {
			t.Errorf("%s: status %d, X-RateLimit-Remaining %s; want 200 and %s", target, rec.Code, got, want)
		}
	}
	rec := pageGet(t, s, http.MethodGet, "/parties", nil)
	if rec.Code != http.StatusTooManyRequests || rec.Header().Get("Retry-After") == "" {
		t.Errorf("the fourth request: status %d, Retry-After %q; want 429 with Retry-After", rec.Code, rec.Header().Get("Retry-After"))
	}
	if rec := pageGet(t, s, http.MethodGet, server.BasePath+"/parties", nil); rec.Code != http.StatusOK {
		t.Errorf("the parties endpoint, on its own counter: status %d, want 200", rec.Code)
	}

	// In the metrics, the pages are one route: two 200s, one 429.
	metrics := pageGet(t, s.AdminHandler(nil), http.MethodGet, "/metrics", nil).Body.String()
	for _, want := range []string{
		`ballot_http_requests_total{route="page",status="200"} 2`,
		`ballot_http_requests_total{route="page",status="429"} 1`,
		`ballot_rate_limited_requests_total{route="page"} 1`,
	} {
		if !strings.Contains(metrics, want+"\n") {
			t.Errorf("the metrics lack %s", want)
		}
	}
}

// TestPagesFollowReload: the pages show the dataset being served.
func TestPagesFollowReload(t *testing.T) {
	s := pagesServer(t)
	before := pageGet(t, s, http.MethodGet, "/", nil).Header().Get("ETag")
	next := edition(t, "Second edition")
	if _, err := s.Reload(func() (*dataset.Dataset, error) { return next, nil }); err != nil {
		t.Fatal(err)
	}
	rec := pageGet(t, s, http.MethodGet, "/", nil)
	if rec.Header().Get("ETag") == before || !strings.Contains(rec.Body.String(), "<h1>Second edition</h1>") {
		t.Errorf("after a reload the home page is still the old one")
	}
}

// TestEveryRecordPage renders the page of every party and every candidate
// of the embedded data: each links to its JSON record and to the pages of
// the records it names.
func TestEveryRecordPage(t *testing.T) {
	s := pagesServer(t)
	ds := malta(t)
	partySlug := map[string]string{}
	for _, p := range ds.Parties() {
		partySlug[p.ID] = p.Slug
	}
	check := func(path string, links ...string) {
		t.Helper()
		rec := pageGet(t, s, http.MethodGet, path, nil)
		if rec.Code != http.StatusOK || rec.Header().Get("Content-Type") != "text/html; charset=utf-8" {
			t.Errorf("%s: status %d, Content-Type %q", path, rec.Code, rec.Header().Get("Content-Type"))
			return
		}
		for _, l := range append(links, server.BasePath+path) {
			if !strings.Contains(rec.Body.String(), `href="`+l+`"`) {
				t.Errorf("%s does not link to %s", path, l)
			}
		}
		writePage(t, strings.ReplaceAll(strings.TrimPrefix(path, "/"), "/", "-")+".html", rec.Body.Bytes())
	}
	for _, p := range ds.Parties() {
		var links []string
		for _, c := range ds.Candidates() {
			if c.PartyID != nil && *c.PartyID == p.ID {
				links = append(links, "/candidates/"+c.Slug)
			}
		}
		check("/parties/"+p.Slug, links...)
	}
	for _, c := range ds.Candidates() {
		var links []string
		if c.PartyID != nil {
			links = append(links, "/parties/"+partySlug[*c.PartyID])
		}
		check("/candidates/"+c.Slug, links...)
	}
}

// TestCandidatesPageETag: a filtered page's ETag names its canonical
// filters, however the query spells them, and differs with them.
func TestCandidatesPageETag(t *testing.T) {
	s := pagesServer(t)
	etag := func(target string) string {
		t.Helper()
		rec := pageGet(t, s, http.MethodHead, target, nil)
		if rec.Code != http.StatusOK {
			t.Fatalf("%s: status %d", target, rec.Code)
		}
		return rec.Header().Get("ETag")
	}
	want := etag("/candidates?district=5&party=pn")
	for _, target := range []string{
		"/candidates?party=pn&district=5",
		"/candidates?district=05&party=PN&limit=100",
		"/candidates?district=D0E4F679-6E46-543C-A8F9-478075ABCC0A&party=2acf0508-f838-57a5-918a-affa0a1b1d89",
	} {
		if got := etag(target); got != want {
			t.Errorf("%s: ETag %s, want %s", target, got, want)
		}
	}
	for _, target := range []string{"/candidates?district=5&party=pn&limit=5", "/candidates?district=5", "/candidates?party=pn", "/candidates"} {
		if got := etag(target); got == want {
			t.Errorf("%s: the ETag of district 5 and pn, %s", target, got)
		}
	}
}

// BenchmarkCandidatesPage: a filtered page rendered for the request, and
// the 304 that renders nothing.
func BenchmarkCandidatesPage(b *testing.B) {
	s, _ := newServer(b, server.Options{Pages: true, RateLimit: 1 << 30})
	const target = "/candidates?district=5&party=pn"
	etag := pageGet(b, s, http.MethodGet, target, nil).Header().Get("ETag")
	for _, bb := range []struct {
		name   string
		header map[string]string
		status int
	}{
		{"render", nil, http.StatusOK},
		{"304", map[string]string{"If-None-Match": etag}, http.StatusNotModified},
	} {
		b.Run(bb.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if rec := pageGet(b, s, http.MethodGet, target, bb.header); rec.Code != bb.status {
					b.Fatalf("status %d, want %d", rec.Code, bb.status)
				}
			}
		})
	}
}
