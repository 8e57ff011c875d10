package server

import (
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/gorilla/mux"

	"ballot/archive"
	"ballot/dataset"
)

// TestRecordRoutes: a record's path is its collection's record route, named
// in metrics and logs by the collection, never by the key; what is not a
// record's path is "other".
func TestRecordRoutes(t *testing.T) {
	tests := []struct {
		target, route string
	}{
		{"/api/public/v1/parties/pn", "party"},
		{"/api/public/v1/parties/anything-at-all", "party"},
		{"/api/public/v1/districts/5", "district"},
		{"/api/public/v1/candidates/toni-bezzina", "candidate"},
		{"/api/public/v1/candidates/%C5%BC", "candidate"},
		{"/api/public/v1/districts?locality=Luqa", "districts"},
		{"/api/public/v1/parties/", "other"},
		{"/api/public/v1/parties/pn/", "other"},
		{"/api/public/v1/parties/a/b", "other"},
		{"/api/public/v1/parties/a%2Fb", "other"},
		{"/api/public/v1/parties/a%2fb", "other"},
		{"/api/public/v1/ballots/x", "other"},
		{"/api/public/v1//pn", "other"},
	}
	ds, err := dataset.Default()
	if err != nil {
		t.Fatal(err)
	}
	router := New(archive.Of(ds), DefaultOptions()).router
	for _, tt := range tests {
		req := httptest.NewRequest(http.MethodGet, tt.target, nil)
		var m mux.RouteMatch
		got := otherRoute
		if router.Match(canonicalPath(req), &m) && m.Route != nil {
			got = m.Route.GetName()
		}
		if got != tt.route {
			t.Errorf("%s: route %q, want %q", tt.target, got, tt.route)
		}
	}
}

// answersFuzz sends one request through the whole handler and checks that
// the answer is a 200 envelope or, with the status allowed, a problem in
// valid UTF-8: never anything else.
func answersFuzz(t *testing.T, s *Server, target string, allowed int) {
	t.Helper()
	req, err := http.NewRequest(http.MethodGet, "http://ballot.test"+target, nil)
	if err != nil {
		return // not a request a client could send
	}
	rec := httptest.NewRecorder()
	s.ServeHTTP(rec, req)
	switch rec.Code {
	case http.StatusOK:
		if !strings.HasPrefix(rec.Body.String(), `{"data":[`) {
			t.Fatalf("%s: 200 body %q", target, rec.Body)
		}
	case allowed, http.StatusNotFound:
		if rec.Header().Get("Content-Type") != "application/problem+json" || !utf8.Valid(rec.Body.Bytes()) {
			t.Fatalf("%s: %d with Content-Type %q, body %q", target, rec.Code, rec.Header().Get("Content-Type"), rec.Body)
		}
	default:
		t.Fatalf("%s: status %d", target, rec.Code)
	}
}

// fuzzServer is a server of the embedded dataset whose rate limit no
// test reaches.
func fuzzServer(t testing.TB) *Server {
	ds, err := dataset.Default()
	if err != nil {
		t.Fatal(err)
	}
	opts := DefaultOptions()
	opts.RateLimit = 1 << 30
	return New(archive.Of(ds), opts)
}

// FuzzLocality sends any value of the locality parameter: the answer is
// the districts holding it or a 400 naming locality, never anything else.
func FuzzLocality(f *testing.F) {
	for _, seed := range []string{"", "Luqa", "Birżebbuġa", "BIRZEBBUGA", "Vittoriosa", "St Paul's Bay", "Mars", "\xff", "a\x00b", "!!!", strings.Repeat("ż", 500), "Ħ",
		"Ħal Għaxaq", "Haz-Zebbug", "san pawl il bahar", "birzebuga", "Zejtun ", "  ", "Sliema;", "Mosta&x=1", "Valletta%", strings.Repeat("a", 65), "a-" + strings.Repeat("b", 63), "Ix-Xagħra, Għawdex"} {
		f.Add(seed)
	}
	s := fuzzServer(f)
	// Every locality's name, English name and slug, and each with one
	// letter gone: the matcher's hits, and its suggestions.
	for _, d := range s.snap.Load().ds.Districts() {
		for _, l := range d.Localities {
			names := []string{l.Name, l.Slug}
			if l.NameEN != nil {
				names = append(names, *l.NameEN)
			}
			for _, n := range names {
				f.Add(n)
				if r := []rune(n); len(r) > 3 {
					f.Add(string(append(r[:len(r)/2:len(r)/2], r[len(r)/2+1:]...)))
				}
			}
		}
	}
	f.Fuzz(func(t *testing.T, locality string) {
		answersFuzz(t, s, "/api/public/v1/districts?locality="+url.QueryEscape(locality), http.StatusBadRequest)
		if l := dataset.LocalityKey(locality); l != "" {
			if res, err := s.snap.Load().ds.Query(dataset.Districts, dataset.Params{"locality": {locality}}); err == nil && res.Count() == 0 {
				t.Fatalf("locality %q: 200 with no district", locality)
			}
		}
	})
}

// FuzzRecordKey sends any key to each collection's record path: the answer
// is the record or a 404 problem, never anything else.
func FuzzRecordKey(f *testing.F) {
	for _, seed := range []string{"pn", "PN", "5", "05", "toni-bezzina", "2acf0508-f838-57a5-918a-affa0a1b1d89", "", "a/b", "\xff", "%zz", strings.Repeat("a", 300)} {
		f.Add(seed)
	}
	s := fuzzServer(f)
	f.Fuzz(func(t *testing.T, key string) {
		for _, c := range dataset.Collections {
			answersFuzz(t, s, "/api/public/v1/"+string(c)+"/"+url.PathEscape(key), 0)
		}
	})
}
