package server_test

import (
	"bytes"
	"compress/gzip"
	"encoding/json"
	"flag"
	"io"
	"io/fs"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"testing/fstest"

	"ballot/archive"
	"ballot/dataset"
	"ballot/server"
	"ballot/server/pages"
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
	_ = api

	tests := []pageCase{
		{"home", "/", 200, "home.html", []string{
			"<h1>Malta general election, 26 March 2022</h1>", `<strong>177</strong> candidates`,
			`<form class="filters" action="/districts" method="get">`, `href="/api/public/v1/"`,
			`<html lang="en">`, `<a href="/mt/" hreflang="mt" lang="mt">Malti</a>`}, nil},
		{"home ignores parameters", "/?_=1", 200, "home.html", nil, nil},
		{"the English home's own address", "/en/", 200, "home.html", nil, nil},
		{"the Maltese home", "/mt/", 200, "home-mt.html", []string{
			`<html lang="mt">`, `<h1 lang="en">Malta general election, 26 March 2022</h1>`, `<strong>177</strong> kandidati`,
			`<form class="filters" action="/mt/districts" method="get">`, `<a href="/en/" hreflang="en" lang="en">English</a>`,
			`<label for="q">Fittex kandidat bl-isem</label>`}, nil},
		{"parties", "/parties", 200, "parties.html", []string{`<a href="/parties/pn" lang="mt">Partit Nazzjonalista</a>`, `href="/api/public/v1/parties"`,
			`<span>Nationalist Party</span>`}, nil},
		{"Maltese parties", "/mt/parties", 200, "", []string{`<a href="/mt/parties/pn">Partit Nazzjonalista</a>`, `<span lang="en">Nationalist Party</span>`, `<a href="/parties" hreflang="en" lang="en">English</a>`}, nil},
		{"districts", "/districts", 200, "districts.html", []string{"Birżebbuġa", "Ħal Farruġ", `href="/api/public/v1/districts"`, `<a href="/districts/10">The candidates who stood in district 10</a>`}, []string{"Candidates of district"}},
		{"Maltese districts", "/mt/districts", 200, "", []string{`<h2><a href="/mt/districts/10">Distrett 10</a></h2>`, `<span>Birżebbuġa</span>`}, nil},
		{"districts with a locality", "/districts?locality=Birgu", 200, "", []string{`value="Birgu"`, `href="/api/public/v1/districts?locality=Birgu"`, `holding “Birgu”: 1.`, `id="district-2"`, `<a href="/mt/districts?locality=Birgu" hreflang="mt" lang="mt">Malti</a>`}, nil},
		{"a locality read as the API reads it", "/districts?locality=vittoriosa;&x=%zz", 200, "", []string{`holding “vittoriosa;”: 1.`, `id="district-2"`}, nil},
		{"a split council", "/districts?locality=Naxxar", 200, "", []string{`holding “Naxxar”: 2.`, `id="district-10"`, `id="district-12"`}, nil},
		{"a locality that matches none", "/districts?locality=Birzebuga", 400, "", []string{
			`<span class="error" id="locality-error">No locality is called “Birzebuga”: did you mean Birżebbuġa?</span>`,
			`value="Birzebuga" placeholder="for example Birżebbuġa" aria-invalid="true" aria-describedby="locality-error"`}, []string{"<code>locality</code>", "names no locality", "parameter"}},
		{"in Maltese, a locality that matches none", "/mt/districts?locality=Birzebuga", 400, "", []string{
			`<span class="error" id="locality-error">L-ebda lokalità ma jisimha “Birzebuga”: forsi tfisser Birżebbuġa?</span>`}, nil},
		{"in Maltese, several suggestions, listed in Maltese", "/mt/districts?locality=Mars", 400, "", []string{
			`<span class="error" id="locality-error">L-ebda lokalità ma jisimha “Mars”: forsi tfisser Marsa, Marsaskala jew Marsaxlokk?</span>`}, nil},
		{"a district's page", "/districts/10", 200, "district-10.html", []string{
			"<h1>District 10</h1>", `<h2 id="count-heading">The count</h2>`, `<caption id="sheet-caption">District 10: quota 3,529</caption>`,
			"9 of them list district 10 as their primary district.", `href="/api/public/v1/candidates?stood_in=10"`}, nil},
		{"a district's page in Maltese", "/mt/districts/10", 200, "", []string{"<h1>Distrett 10</h1>", `<h2 id="count-heading">L-għadd</h2>`, `<a href="/districts/10" hreflang="en" lang="en">English</a>`}, nil},
		{"candidates", "/candidates", 200, "candidates.html", []string{"Candidates 1 to 100 of 177;", `href="/api/public/v1/candidates"`, `<a rel="next" href="/candidates?offset=100">`}, nil},
		{"candidates with empty filters", "/candidates?district=&party=&limit=", 200, "candidates.html", nil, nil},
		{"candidates of district 5 and PN", "/candidates?district=5&party=pn", 200, "candidates-5-pn.html", []string{
			`<option value="5" selected>`, `<option value="pn" selected>Nationalist Party</option>`, `href="/api/public/v1/candidates?district=5&amp;party=pn"`,
			`<a href="/mt/candidates?district=5&amp;party=pn" hreflang="mt" lang="mt">Malti</a>`}, nil},
		{"the same filter written otherwise", "/candidates?party=PN&district=d0e4f679-6e46-543c-a8f9-478075abcc0a&limit=100", 200, "candidates-5-pn.html", nil, nil},
		{"the same filter with a leading zero", "/candidates?district=05&party=pn&limit=100&_=1", 200, "candidates-5-pn.html", nil, nil},
		{"the same filter in Maltese", "/mt/candidates?district=5&party=pn", 200, "candidates-5-pn-mt.html", []string{`<option value="5" selected>Distrett 5</option>`, "5 kandidati: distrett ewlieni 5, Partit Nazzjonalista"}, nil},
		{"the form offers both district filters, named", "/candidates", 200, "", []string{
			`<label for="stood_in">Stood in district</label>`, `<select id="stood_in" name="stood_in">`,
			`<label for="district">Primary district</label>`, `<select id="elected" name="elected">`,
			`<label for="elected">Elected</label>`, `<th scope="col" class="number">Primary district</th>`}, nil},
		{"who stood in district 10", "/candidates?stood_in=10", 200, "", []string{
			"<caption>28 candidates: stood in district 10; by primary district, family name and given name</caption>",
			`<select id="stood_in" name="stood_in">`, `<option value="10" selected>District 10</option>`,
			`href="/api/public/v1/candidates?stood_in=10"`}, nil},
		{"the elected of district 10", "/candidates?stood_in=10&elected=true", 200, "", []string{
			"<caption>11 candidates: stood in district 10, elected;", `<option value="true" selected>elected</option>`,
			`href="/api/public/v1/candidates?elected=true&amp;stood_in=10"`}, []string{"<td data-label=\"Elected\">no</td>"}},
		{"those not elected stay chosen in the form", "/candidates?elected=false", 200, "", []string{
			`<option value="false" selected>not elected</option>`, `href="/api/public/v1/candidates?elected=false"`}, []string{`<option value="true" selected>`}},
		{"a name in the form", "/mt/candidates?q=zammit", 200, "", []string{`<input id="name" name="q" type="search" value="zammit">`, `bl-isem “zammit”`}, nil},
		{"a refused stood_in and name", "/candidates?stood_in=99&q=x", 400, "", []string{
			`<span class="error" id="stood_in-error">There is no district “99”: choose one of the list.</span>`,
			`<span class="error" id="name-error">Give a name of 2 to 100 letters; “x” is not one.</span>`}, nil},
		{"the search page", "/search", 200, "search.html", []string{`<input id="q" name="q" type="search" value=""`}, []string{`class="search"`}},
		{"a search", "/search?q=zammit", 200, "search-zammit.html", []string{`<caption>4 candidates named “zammit”</caption>`, `<a href="/candidates/`}, nil},
		{"a search, with Maltese letters folded", "/search?q=%C5%BCammit", 200, "", []string{`<a href="/candidates/`}, []string{`id="none"`}},
		{"a search that finds nobody", "/search?q=abella", 200, "", []string{
			`<p class="note" id="none">No candidate is named “abella”.</p>`, `<li><a href="/candidates/robert-abela">Robert Abela</a></li>`}, nil},
		{"a Maltese search", "/mt/search?q=abella", 200, "", []string{`L-ebda kandidat ma jismu “abella”.`, `<li><a href="/mt/candidates/robert-abela">Robert Abela</a></li>`}, nil},
		{"a refused search", "/search?q=x", 400, "", []string{`<span class="error" id="q-error">Give a name of 2 to 100 letters; “x” is not one.</span>`, `value="x"`}, nil},
		{"candidates limited", "/candidates?limit=3", 200, "", []string{"Candidates 1 to 3 of 177;", `value="3"`, `href="/api/public/v1/candidates?limit=3"`, `<a rel="next" href="/candidates?limit=3&amp;offset=3">`}, nil},
		{"candidates, a later page", "/candidates?limit=3&offset=3", 200, "", []string{"Candidates 4 to 6 of 177;", `href="/api/public/v1/candidates?limit=3&amp;offset=3"`, `<a rel="prev" href="/candidates?limit=3">`, `<a rel="next" href="/candidates?limit=3&amp;offset=6">`}, nil},
		{"Maltese candidates, a later page", "/mt/candidates?limit=3&offset=3", 200, "", []string{"Kandidati 4 sa 6 minn 177;", `<a rel="prev" href="/mt/candidates?limit=3">`, `<a rel="next" href="/mt/candidates?limit=3&amp;offset=6">`}, nil},
		{"candidates, the last page", "/candidates?offset=100", 200, "", []string{"Candidates 101 to 177 of 177;", `<a rel="prev" href="/candidates">`}, nil},
		{"candidates, past the last", "/candidates?offset=177", 200, "", []string{"No candidates after the first 177 of 177;", `<a rel="prev" href="/candidates?offset=77">`}, nil},
		{"refused filters", "/candidates?district=14&party=nope&limit=0", 400, "candidates-400.html", []string{
			`<span class="error" id="district-error">There is no district “14”: choose one of the list.</span>`,
			`<span class="error" id="party-error">No party is called “nope”: choose one of the list.</span>`,
			`<span class="error" id="limit-error">“0” is not a number from 1 to 500.</span>`,
			`<option value="14" selected>14</option>`, `<option value="nope" selected>nope</option>`, `value="0" aria-invalid="true" aria-describedby="limit-error"`,
			`href="/api/public/v1/candidates?district=14&amp;party=nope&amp;limit=0"`}, []string{"must be", "parameter", "problem", "refused", "<table"}},
		{"refused filters in Maltese", "/mt/candidates?district=14&limit=x", 400, "", []string{
			`M&#39;hemm l-ebda distrett “14”: agħżel wieħed mil-lista.`, `“x” mhuwiex numru minn 1 sa 500.`, `value="x"`}, nil},
		{"a refused limit keeps the other filters in the form", "/candidates?district=5&party=PN&limit=501", 400, "", []string{`<option value="5" selected>`, `<option value="pn" selected>Nationalist Party</option>`, `value="501"`}, nil},
		{"refused limit", "/candidates?limit=501", 400, "", []string{"“501” is not a number from 1 to 500."}, nil},
		{"a filter given twice", "/candidates?district=5&district=6", 400, "", []string{`<span class="error" id="district-error">Give this only once.</span>`}, nil},
		{"party", "/parties/pn", 200, "party-pn.html", []string{`href="/api/public/v1/parties/pn"`, `<a href="/candidates/toni-bezzina">Toni Bezzina</a>`, `<h1><span>Nationalist Party</span></h1>`, `<dd lang="mt">Partit Nazzjonalista</dd>`}, []string{"2acf0508"}},
		{"a party by its id, in capitals", "/parties/2ACF0508-F838-57A5-918A-AFFA0A1B1D89", 200, "party-pn.html", nil, nil},
		{"a candidate by its id", "/candidates/c8a434ca-00bf-5ee8-9c7f-f7d204b6abe9", 200, "", []string{"<h1>Toni Bezzina</h1>", `href="/api/public/v1/candidates/toni-bezzina"`}, nil},
		{"party in capitals", "/parties/PN", 200, "party-pn.html", nil, nil},
		{"candidate", "/candidates/robert-abela", 200, "candidate-robert-abela.html", []string{`href="/api/public/v1/candidates/robert-abela"`, `<a href="/parties/pl">Labour Party</a>`, `<a href="/districts/2">District 2</a>`, `<dt>Also stood in</dt>`, `<a href="/districts/5">District 5</a>`}, []string{"robert-abela</code>", "<dt>Slug</dt>", "<dt>Id</dt>"}},
		{"a candidate in Maltese", "/mt/candidates/robert-abela", 200, "", []string{`<a href="/mt/parties/pl">Partit Laburista</a>`, `<a href="/mt/districts/2">Distrett 2</a>`, "<dt>Elett</dt>"}, nil},
		{"independent", "/candidates/arnold-cassola", 200, "candidate-arnold-cassola.html", []string{"independent"}, nil},
		{"reference", "/reference", 200, "reference.html", []string{`href="/api/public/v1/openapi.json"`}, nil},
		{"the reference in Maltese", "/mt/reference", 200, "", []string{`<p class="note">Din ir-referenza hija miktuba bl-Ingliż biss.</p>`, `<div lang="en">`}, nil},
		{"unknown party", "/parties/no-such-party", 404, "party-404.html", []string{`No party has this address`}, nil},
		{"unknown candidate", "/candidates/nobody", 404, "", []string{`No candidate has this address`}, nil},
		{"unknown district", "/districts/14", 404, "", []string{`There is no page at this address.`}, nil},
		{"unknown candidate in Maltese", "/mt/candidates/nobody", 404, "", []string{`<html lang="mt">`, `L-ebda kandidat m&#39;għandu dan l-indirizz`}, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) { checkPage(t, s, tt, "") })
	}
	// The count sheets, on the district pages and the results page, from
	// the dataset that holds them (datasettest.Counts).
	counts, _ := countsServer(t, true, server.Options{Pages: true, RateLimit: 1000})
	for _, tt := range countPageCases {
		t.Run("counts/"+tt.name, func(t *testing.T) { checkPage(t, counts, tt, "counts_") })
	}
	// The same dataset without its count sheets: the pages as they were
	// before the count.
	none, _ := countsServer(t, false, server.Options{Pages: true, RateLimit: 1000})
	for _, tt := range noSheetPageCases {
		t.Run("no sheets/"+tt.name, func(t *testing.T) { checkPage(t, none, tt, "nosheets_") })
	}
}

// pageCase is a page TestPages requests, and what it must show.
type pageCase struct {
	name, target string
	status       int
	golden       string   // under testdata/pages/; "" for none
	contains     []string // in the body
	lacks        []string // not in the body
}

// checkPage requests a page of s: its status, its headers, what it
// contains and lacks, its golden file and its caching; it writes the page
// for .ci/lint-html under a name made of prefix and its path.
func checkPage(t *testing.T, s http.Handler, tt pageCase, prefix string) {
	t.Helper()
	rec := pageGet(t, s, http.MethodGet, tt.target, nil)
	if rec.Code != tt.status {
		t.Fatalf("status %d, want %d; body %.300s", rec.Code, tt.status, rec.Body)
	}
	cache := "public, max-age=60"
	if tt.status != 200 {
		cache = "no-store"
	}
	vary := "Accept-Encoding"
	if strings.HasPrefix(tt.target, "/?") || tt.target == "/" {
		vary = "Accept-Encoding, Accept-Language"
	}
	wantHeaders(t, rec.Header(), map[string]string{
		"Content-Type":                "text/html; charset=utf-8",
		"Content-Security-Policy":     csp,
		"Cache-Control":               cache,
		"Access-Control-Allow-Origin": "*",
		"X-Content-Type-Options":      "nosniff",
		"X-RateLimit-Limit":           "1000",
		"Vary":                        vary,
		"Content-Length":              itoa(rec.Body.Len()),
	})
	body := rec.Body.Bytes()
	for _, want := range tt.contains {
		if !bytes.Contains(body, []byte(want)) {
			t.Errorf("the page lacks %q", want)
		}
	}
	for _, unwanted := range tt.lacks {
		if bytes.Contains(body, []byte(unwanted)) {
			t.Errorf("the page has %q", unwanted)
		}
	}
	for _, want := range []string{"<!DOCTYPE html>\n<html lang=\"", `<meta charset="utf-8">`, `<meta name="viewport" content="width=device-width, initial-scale=1">`} {
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
	writePage(t, prefix+strings.NewReplacer("/", "_", "?", "_", "&", "_", "=", "-").Replace(strings.TrimPrefix(tt.target, "/"))+".html", body)

	etag := rec.Header().Get("ETag")
	if tt.status != 200 {
		if etag != "" {
			t.Errorf("an error page carries ETag %q", etag)
		}
		return
	}
	checkPageCaching(t, s, tt.target, etag, body)
}

// checkPageCaching checks what a page shares with every successful answer:
// 304 for its ETag, HEAD, and gzip with an ETag of its own. A page rendered
// for its request (a query's, a party's, a district's, a candidate's) is never compressed per
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
	if rendered := strings.HasPrefix(etag, `"candidates-`) || strings.HasPrefix(etag, `"districts-`) || strings.HasPrefix(etag, `"candidate-`) || strings.HasPrefix(etag, `"party-`) || strings.HasPrefix(etag, `"district-`) || strings.HasPrefix(etag, `"search-`) ||
		strings.HasPrefix(etag, `"person-`) || strings.HasPrefix(etag, `"people-`); rendered {
		if gz.Header().Get("Content-Encoding") != "" || gz.Header().Get("ETag") != etag || !bytes.Equal(gz.Body.Bytes(), body) {
			t.Errorf("rendered per request, with gzip accepted: Content-Encoding %q, ETag %q (plain %s), same body %v; want none, the same ETag and body",
				gz.Header().Get("Content-Encoding"), gz.Header().Get("ETag"), etag, bytes.Equal(gz.Body.Bytes(), body))
		}
		// A browser revalidating the page it holds: gzip accepted, its
		// one ETag.
		rec := pageGet(t, s, http.MethodGet, target, map[string]string{"Accept-Encoding": "gzip", "If-None-Match": etag})
		if rec.Code != http.StatusNotModified || rec.Body.Len() != 0 || rec.Header().Get("ETag") != etag {
			t.Errorf("gzip accepted, If-None-Match %s: status %d, ETag %q, %d bytes; want 304, the same ETag, no body", etag, rec.Code, rec.Header().Get("ETag"), rec.Body.Len())
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
	for _, target := range []string{"/", "/parties", "/candidates?district=5", "/parties/pn", "/reference", "/style.css", "/mt/", "/en/", "/mt/parties", "/districts/10", "/search?q=zammit"} {
		rec := pageGet(t, s, http.MethodGet, target, map[string]string{"Accept": "text/html"})
		if rec.Code != http.StatusNotFound || rec.Header().Get("Content-Type") != "application/problem+json" {
			t.Errorf("%s: status %d, Content-Type %q; want the 404 problem", target, rec.Code, rec.Header().Get("Content-Type"))
		}
	}
}

// TestPageAssets: the stylesheet and the icon the pages use, under their
// plain paths and the fingerprinted ones the pages link to, which are
// cached for a year.
func TestPageAssets(t *testing.T) {
	s := pagesServer(t)
	home := pageGet(t, s, http.MethodGet, "/", nil).Body.String()
	for _, tt := range []struct {
		target, contentType, cache string
	}{
		{"/style.css", "text/css; charset=utf-8", "public, max-age=60"},
		{"/favicon.svg", "image/svg+xml", "public, max-age=60"},
		{pages.StyleURL, "text/css; charset=utf-8", "public, max-age=31536000, immutable"},
		{pages.IconURL, "image/svg+xml", "public, max-age=31536000, immutable"},
	} {
		rec := pageGet(t, s, http.MethodGet, tt.target, nil)
		if rec.Code != http.StatusOK || rec.Header().Get("Content-Type") != tt.contentType || rec.Body.Len() == 0 ||
			rec.Header().Get("Cache-Control") != tt.cache {
			t.Errorf("%s: status %d, Content-Type %q, Cache-Control %q, %d bytes; want 200, %s, %s",
				tt.target, rec.Code, rec.Header().Get("Content-Type"), rec.Header().Get("Cache-Control"), rec.Body.Len(), tt.contentType, tt.cache)
			continue
		}
		if rec.Header().Get("X-RateLimit-Remaining") != "" {
			t.Errorf("%s is counted by the rate limit", tt.target)
		}
		checkPageCaching(t, s, tt.target, rec.Header().Get("ETag"), rec.Body.Bytes())
	}
	for _, want := range []string{`<link rel="stylesheet" href="` + pages.StyleURL + `">`, `<link rel="icon" href="` + pages.IconURL + `" type="image/svg+xml">`} {
		if !strings.Contains(home, want) {
			t.Errorf("the home page lacks %s", want)
		}
	}
	if !regexp.MustCompile(`^/style\.[0-9a-f]{12}\.css$`).MatchString(pages.StyleURL) || !regexp.MustCompile(`^/favicon\.[0-9a-f]{12}\.svg$`).MatchString(pages.IconURL) {
		t.Errorf("fingerprinted paths %s and %s", pages.StyleURL, pages.IconURL)
	}
	if rec := pageGet(t, s, http.MethodGet, "/style.000000000000.css", nil); rec.Code != http.StatusNotFound {
		t.Errorf("a stylesheet of another fingerprint: status %d, want 404", rec.Code)
	}
}

// TestPagesShareTheRateLimit: a page spends the counter of every other
// path, its stylesheet and icon spend nothing, and past the limit a page
// gets a page that says when to try again, the API the 429 problem.
func TestPagesShareTheRateLimit(t *testing.T) {
	s, _ := newServer(t, server.Options{Pages: true, RateLimit: 3})
	for i, target := range []string{"/", server.BasePath + "/", "/candidates?district=5"} {
		rec := pageGet(t, s, http.MethodGet, target, nil)
		if got, want := rec.Header().Get("X-RateLimit-Remaining"), itoa(2-i); rec.Code != http.StatusOK || got != want {
			t.Errorf("%s: status %d, X-RateLimit-Remaining %s; want 200 and %s", target, rec.Code, got, want)
		}
		for _, asset := range []string{pages.StyleURL, pages.IconURL, "/style.css", "/favicon.svg"} {
			if rec := pageGet(t, s, http.MethodGet, asset, nil); rec.Code != http.StatusOK {
				t.Errorf("%s after %s: status %d, want 200", asset, target, rec.Code)
			}
		}
	}
	rec := pageGet(t, s, http.MethodGet, "/parties", nil)
	retry := rec.Header().Get("Retry-After")
	if rec.Code != http.StatusTooManyRequests || retry == "" || rec.Header().Get("Content-Type") != "text/html; charset=utf-8" ||
		rec.Header().Get("Content-Security-Policy") != csp || rec.Header().Get("Cache-Control") != "no-store" {
		t.Errorf("the fourth request: status %d, Retry-After %q, Content-Type %q, Cache-Control %q; want 429 with Retry-After, HTML, no-store",
			rec.Code, retry, rec.Header().Get("Content-Type"), rec.Header().Get("Cache-Control"))
	}
	for _, want := range []string{"<h1>Too many requests</h1>", "Try again in " + retry + " seconds, at "} {
		if !strings.Contains(rec.Body.String(), want) {
			t.Errorf("the 429 page lacks %q: %s", want, rec.Body)
		}
	}
	writePage(t, "429.html", rec.Body.Bytes())
	if rec := pageGet(t, s, http.MethodGet, "/mt/parties", nil); rec.Code != http.StatusTooManyRequests ||
		!strings.Contains(rec.Body.String(), "<h1>Wisq talbiet</h1>") || !strings.Contains(rec.Body.String(), "Erġa&#39; pprova fi żmien "+rec.Header().Get("Retry-After")+" sekonda") {
		t.Errorf("a Maltese page past the limit: status %d, body %.2000s", rec.Code, rec.Body)
	}
	if rec := pageGet(t, s, http.MethodGet, server.BasePath+"/", nil); rec.Code != http.StatusTooManyRequests || rec.Header().Get("Content-Type") != "application/problem+json" {
		t.Errorf("the API's index past the limit: status %d, Content-Type %q; want the 429 problem", rec.Code, rec.Header().Get("Content-Type"))
	}
	if rec := pageGet(t, s, http.MethodGet, server.BasePath+"/parties", nil); rec.Code != http.StatusOK {
		t.Errorf("the parties endpoint, on its own counter: status %d, want 200", rec.Code)
	}

	// In the metrics, the pages are one route: two 200s, two 429s, and
	// the assets' twelve 200s.
	metrics := pageGet(t, s.AdminHandler(nil), http.MethodGet, "/metrics", nil).Body.String()
	for _, want := range []string{
		`ballot_http_requests_total{route="page",status="200"} 14`,
		`ballot_http_requests_total{route="page",status="429"} 2`,
		`ballot_rate_limited_requests_total{route="page"} 2`,
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
	if _, err := s.Reload(func() (*archive.Archive, error) { return archive.Of(next), nil }); err != nil {
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

// TestPagesLanguage: / chooses its language from Accept-Language, and each
// language's pages have their own stable address.
func TestPagesLanguage(t *testing.T) {
	s := pagesServer(t)
	for _, tt := range []struct {
		accept   string
		status   int
		location string
		lang     string
	}{
		{"", 200, "", `<html lang="en">`},
		{"en-GB,en;q=0.9", 200, "", `<html lang="en">`},
		{"mt-MT,mt;q=0.9,en;q=0.8", 302, "/mt/", ""},
		{"fr, mt;q=0.5", 302, "/mt/", ""},
		{"en, mt;q=0.5", 200, "", `<html lang="en">`},
	} {
		rec := pageGet(t, s, http.MethodGet, "/", map[string]string{"Accept-Language": tt.accept})
		if rec.Code != tt.status || rec.Header().Get("Location") != tt.location || rec.Header().Get("Vary") != "Accept-Encoding, Accept-Language" {
			t.Errorf("Accept-Language %q: status %d, Location %q, Vary %q; want %d, %q, Accept-Encoding, Accept-Language",
				tt.accept, rec.Code, rec.Header().Get("Location"), rec.Header().Get("Vary"), tt.status, tt.location)
		}
		if tt.lang != "" && !strings.Contains(rec.Body.String(), tt.lang) {
			t.Errorf("Accept-Language %q: the page is not %s", tt.accept, tt.lang)
		}
	}
	// The stable addresses do not depend on Accept-Language.
	for _, tt := range []struct{ target, accept, lang string }{
		{"/en/", "mt", `<html lang="en">`},
		{"/mt/", "en", `<html lang="mt">`},
		{"/parties", "mt", `<html lang="en">`},
		{"/mt/parties", "en", `<html lang="mt">`},
	} {
		rec := pageGet(t, s, http.MethodGet, tt.target, map[string]string{"Accept-Language": tt.accept})
		if rec.Code != 200 || !strings.Contains(rec.Body.String(), tt.lang) || rec.Header().Get("Vary") != "Accept-Encoding" {
			t.Errorf("%s with Accept-Language %s: status %d, Vary %q; want 200, %s, Accept-Encoding", tt.target, tt.accept, rec.Code, rec.Header().Get("Vary"), tt.lang)
		}
	}
	// A language's home typed without its slash leads to it.
	for _, tt := range []struct{ target, location string }{{"/mt", "/mt/"}, {"/en", "/en/"}} {
		rec := pageGet(t, s, http.MethodGet, tt.target, nil)
		if rec.Code != http.StatusPermanentRedirect || rec.Header().Get("Location") != tt.location {
			t.Errorf("%s: status %d, Location %q; want 308 and %s", tt.target, rec.Code, rec.Header().Get("Location"), tt.location)
		}
	}
	if rec := pageGet(t, s, http.MethodGet, "/mt/parties/no-such-party", nil); rec.Code != 404 || !strings.Contains(rec.Body.String(), "Dan il-partit ma jeżistix") {
		t.Errorf("a Maltese 404: status %d", rec.Code)
	}
}

// TestPartyColours: a party's colour, when the dataset gives one, is a
// swatch beside its written-out name wherever the name appears.
func TestPartyColours(t *testing.T) {
	files := fstest.MapFS{}
	for _, name := range []string{dataset.ManifestFile, dataset.PartiesFile, dataset.DistrictsFile, dataset.CandidatesFile} {
		b, err := fs.ReadFile(dataset.DefaultFS(), name)
		if err != nil {
			t.Fatal(err)
		}
		files[name] = &fstest.MapFile{Data: b}
	}
	parties := string(files[dataset.PartiesFile].Data)
	files[dataset.PartiesFile].Data = []byte(strings.Replace(parties, `"color": null`, `"color": "#e4002b"`, 1)) // pl, the first
	ds, err := dataset.Load(files)
	if err != nil {
		t.Fatal(err)
	}
	opts := server.DefaultOptions()
	opts.Pages = true
	s := server.New(archive.Of(ds), opts)
	swatch := `<svg class="swatch" width="12" height="12" viewBox="0 0 12 12" aria-hidden="true"><rect width="12" height="12" fill="#e4002b"/></svg>`
	for _, tt := range []struct{ target, want string }{
		{"/", swatch + `<a href="/parties/pl">Labour Party</a>`},
		{"/parties", swatch + `<a href="/parties/pl" lang="mt">Partit Laburista</a>`},
		{"/parties/pl", `<rect width="12" height="12" fill="#e4002b"/></svg><span>Labour Party</span></h1>`},
		{"/candidates", swatch + `<a href="/parties/pl">Labour Party</a>`},
		{"/candidates/robert-abela", swatch + `<a href="/parties/pl">Labour Party</a>`},
		{"/districts/2", swatch + `<a href="/parties/pl">Labour Party</a>`},
		{"/mt/candidates/robert-abela", swatch + `<a href="/mt/parties/pl">Partit Laburista</a>`},
	} {
		rec := pageGet(t, s, http.MethodGet, tt.target, nil)
		if rec.Code != 200 || !strings.Contains(rec.Body.String(), tt.want) {
			t.Errorf("%s: status %d, lacks %s", tt.target, rec.Code, tt.want)
		}
		if strings.Contains(rec.Body.String(), `<a href="/parties/pn">Nationalist Party</a>`) && strings.Contains(rec.Body.String(), `</svg><a href="/parties/pn">`) {
			t.Errorf("%s: a swatch for a party without a colour", tt.target)
		}
		if tt.target == "/candidates" {
			writePage(t, "candidates-colours.html", rec.Body.Bytes())
		}
	}
}

// TestPagesSeats: the seats won per party, counted from elected, with the
// total, on the home page and the parties page; elected candidates are
// marked in the tables, and first on a district's page.
func TestPagesSeats(t *testing.T) {
	s := pagesServer(t)
	ds := malta(t)
	seats := map[string]int{}
	total := 0
	for _, c := range ds.Candidates() {
		if c.Elected != nil && *c.Elected && c.PartyID != nil {
			seats[*c.PartyID]++
			total++
		}
	}
	for _, target := range []string{"/", "/parties"} {
		body := pageGet(t, s, http.MethodGet, target, nil).Body.String()
		for _, want := range []string{
			"<caption>Seats won per party, counted from the elected candidates: " + itoa(total) + " in all</caption>",
			`<tr><th scope="row">All parties</th><td class="number">` + itoa(total) + `</td></tr>`,
			`<th scope="row"><a href="/parties/pl">Labour Party</a></th>` + "\n" + `<td class="number">` + itoa(seats["3340687a-1cbe-535f-87e7-72791cd00741"]) + `</td>`,
		} {
			if !strings.Contains(body, want) {
				t.Errorf("%s lacks %s", target, want)
			}
		}
	}
	body := pageGet(t, s, http.MethodGet, "/districts/10", nil).Body.String()
	first, last := strings.Index(body, `<tr class="elected">`), strings.LastIndex(body, `<tr class="elected">`)
	if first < 0 || strings.Contains(body[:last], "<tr>\n<th scope=\"row\"><a href=\"/candidates/") {
		t.Errorf("district 10's page does not list its elected candidates first")
	}
	if !strings.Contains(body, `<li><strong class="mark">✓</strong> <a href="/candidates/`) {
		t.Errorf("district 10's page does not mark the elected")
	}
}

// TestPagesLinkTheCSV: each listing page links to the same rows as CSV,
// with its filters, and each link is a CSV download of this server.
func TestPagesLinkTheCSV(t *testing.T) {
	s := pagesServer(t)
	for _, tt := range []struct{ target, csv string }{
		{"/parties", "/parties.csv"},
		{"/districts", "/districts.csv"},
		{"/districts?locality=Naxxar", "/districts.csv?locality=Naxxar"},
		{"/districts/10", "/candidates.csv?stood_in=10"},
		{"/candidates", "/candidates.csv"},
		{"/candidates?stood_in=5&party=PN&elected=true&limit=3&offset=3", "/candidates.csv?elected=true&amp;party=pn&amp;stood_in=5"},
		{"/mt/candidates?q=zammit", "/candidates.csv?q=zammit"},
		{"/search?q=zammit", "/candidates.csv?q=zammit"},
	} {
		body := pageGet(t, s, http.MethodGet, tt.target, nil).Body.String()
		if want := `<p class="csv"><a href="` + tt.csv + `" download>`; !strings.Contains(body, want) {
			t.Errorf("%s lacks %s", tt.target, want)
			continue
		}
		rec := pageGet(t, s, http.MethodGet, strings.ReplaceAll(tt.csv, "&amp;", "&"), nil)
		if rec.Code != http.StatusOK || !strings.HasPrefix(rec.Header().Get("Content-Type"), "text/csv") {
			t.Errorf("%s: status %d, Content-Type %q; want 200 and CSV", tt.csv, rec.Code, rec.Header().Get("Content-Type"))
		}
	}
	for _, target := range []string{"/search?q=abella", "/candidates/robert-abela", "/"} {
		if body := pageGet(t, s, http.MethodGet, target, nil).Body.String(); strings.Contains(body, `class="csv"`) {
			t.Errorf("%s links to a CSV download", target)
		}
	}
}
