package server

import (
	"encoding/json"
	"log/slog"
	"maps"
	"net/http"
	"net/http/httptest"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/gorilla/mux"

	"ballot/archive"
	"ballot/dataset"
)

// TestPanicBecomesProblem makes the real handler panic (no dataset to
// answer from) and checks the answer: 500 problem+json with no internals,
// the CORS and rate-limit headers kept, the panic in the error log.
func TestPanicBecomesProblem(t *testing.T) {
	for _, accept := range []string{"", "gzip"} {
		t.Run("Accept-Encoding "+accept, func(t *testing.T) {
			ds, err := dataset.Default()
			if err != nil {
				t.Fatal(err)
			}
			var logged strings.Builder
			opts := DefaultOptions()
			opts.Logger = slog.New(slog.NewTextHandler(&logged, nil))
			s := New(archive.Of(ds), opts)
			s.snap.Store(&snapshot{}) // no dataset: the handlers panic
			req := httptest.NewRequest(http.MethodGet, "/api/public/v1/parties", nil)
			req.Header.Set("Accept-Encoding", accept)
			rec := httptest.NewRecorder()
			s.ServeHTTP(rec, req)
			if rec.Code != http.StatusInternalServerError {
				t.Fatalf("status = %d, want 500", rec.Code)
			}
			for k, want := range map[string]string{
				"Content-Type":                "application/problem+json",
				"Content-Encoding":            "",
				"Access-Control-Allow-Origin": "*",
				"X-RateLimit-Remaining":       "59",
			} {
				if got := rec.Header().Get(k); got != want {
					t.Errorf("%s = %q, want %q", k, got, want)
				}
			}
			const want = `{"type":"about:blank","title":"Internal Server Error","status":500,"detail":"the server could not answer this request"}` + "\n"
			if rec.Body.String() != want {
				t.Errorf("body = %q, want %q", rec.Body, want)
			}
			if !strings.Contains(logged.String(), `msg="panic serving a request" method=GET path=/api/public/v1/parties panic="runtime error`) {
				t.Errorf("error log = %q, want the panic", logged.String())
			}
		})
	}
}

func TestParseQuery(t *testing.T) {
	tests := []struct {
		raw  string
		want dataset.Params
	}{
		{"", nil},
		{"limit=5", dataset.Params{"limit": {"5"}}},
		{"limit=5&limit=6", dataset.Params{"limit": {"5", "6"}}},
		{"district=&party=pn", dataset.Params{"district": {""}, "party": {"pn"}}},
		{"limit", dataset.Params{"limit": {""}}},
		{"_=123&foo=bar", nil},
		{"%6Cimit=%31%30", dataset.Params{"limit": {"10"}}},
		{"party=p+n", dataset.Params{"party": {"p n"}}},
		{"limit=%zz", dataset.Params{"limit": {"%zz"}}},
		{"%zz=1&limit=2", dataset.Params{"limit": {"2"}}},
		{"limit=5;district=3", dataset.Params{"limit": {"5;district=3"}}},
		{"&&limit=1&", dataset.Params{"limit": {"1"}}},
		{"offset=3&limit=2", dataset.Params{"offset": {"3"}, "limit": {"2"}}},
		{"stood_in=5&elected=true&q=%C5%BC+ab", dataset.Params{"stood_in": {"5"}, "elected": {"true"}, "q": {"ż ab"}}},
		{"stood_in=5&stood_in=6&Q=x&elected", dataset.Params{"stood_in": {"5", "6"}, "elected": {""}}},
	}
	for _, tt := range tests {
		t.Run(tt.raw, func(t *testing.T) {
			got := parseQuery(tt.raw)
			if len(got) != len(tt.want) {
				t.Fatalf("parseQuery(%q) = %q, want %q", tt.raw, got, tt.want)
			}
			for k, v := range tt.want {
				if strings.Join(got[k], "\x00") != strings.Join(v, "\x00") || len(got[k]) != len(v) {
					t.Errorf("parseQuery(%q)[%s] = %q, want %q", tt.raw, k, got[k], v)
				}
			}
		})
	}
}

// FuzzCandidatesQuery sends arbitrary query strings through the whole
// handler: the answer is always a 200 envelope or a 400 problem, never
// anything else, and a 400 never echoes the client's bytes.
func FuzzCandidatesQuery(f *testing.F) {
	for _, seed := range []string{"", "limit=5", "district=5&party=pn", "limit=0", "district=%zz", "party=" + strings.Repeat("a", 300), "limit=1&limit=2", "_=1", "district=D0E4F679-6E46-543C-A8F9-478075ABCC0A", "limit=%00", "party=%c3%28", "offset=100", "offset=140&limit=1", "district=5&offset=7&limit=3", "offset=141", "offset=-1", "offset=1&offset=1", "offset=%31%30",
		"stood_in=5", "stood_in=14", "stood_in=D0E4F679-6E46-543C-A8F9-478075ABCC0A&district=6", "elected=true", "elected=TRUE", "elected=false&party=pn",
		"q=zammit", "q=%C5%BBAMMIT", "q=g%C4%A7", "q=a", "q=+%C5%BC+", "q=ab%FF", "q=%00%00", "q=%CC%81%CC%81", "q=%C3%9F", "q=" + strings.Repeat("%C4%A7", 101), "q=ab&q=cd",
		"q=ar&elected=true&stood_in=5&party=pl&limit=1&offset=1", "q=zammit&offset=5", "stood_in=5&offset=18&limit=1"} {
		f.Add(seed)
	}
	ds, err := dataset.Default()
	if err != nil {
		f.Fatal(err)
	}
	opts := DefaultOptions()
	opts.RateLimit = 1 << 30
	s := New(archive.Of(ds), opts)
	f.Fuzz(func(t *testing.T, raw string) {
		req := httptest.NewRequest(http.MethodGet, "/api/public/v1/candidates", nil)
		req.URL.RawQuery = raw
		rec := httptest.NewRecorder()
		s.ServeHTTP(rec, req)
		switch rec.Code {
		case http.StatusOK:
			if !strings.HasPrefix(rec.Body.String(), `{"data":[`) {
				t.Fatalf("200 body %q", rec.Body)
			}
			// A page: within the total, with a link to the next
			// exactly while records remain.
			var env struct {
				Meta struct{ Count, Total, Offset int }
			}
			if err := json.Unmarshal(rec.Body.Bytes(), &env); err != nil {
				t.Fatalf("200 body %q: %v", rec.Body, err)
			}
			m := env.Meta
			if m.Offset+m.Count > m.Total || (m.Offset+m.Count < m.Total) != (rec.Header().Get("Link") != "") {
				t.Fatalf("query %q: count %d, offset %d, total %d, Link %q", raw, m.Count, m.Offset, m.Total, rec.Header().Get("Link"))
			}
		case http.StatusBadRequest:
			if rec.Header().Get("Content-Type") != "application/problem+json" {
				t.Fatalf("400 Content-Type %q", rec.Header().Get("Content-Type"))
			}
			if !utf8.Valid(rec.Body.Bytes()) {
				t.Fatalf("400 body is not UTF-8: %q", rec.Body)
			}
		default:
			t.Fatalf("query %q: status %d", raw, rec.Code)
		}
	})
}

// FuzzParseQuery checks that splitting never fails and keeps only the
// parameters the API knows.
func FuzzParseQuery(f *testing.F) {
	for _, seed := range []string{"", "limit=5&limit=6", "%zz=1", "a=b=c", "limit=%", "&&&", "district=1;party=2", "offset=3&offset=", "%6Fffset=1",
		"stood_in=5&elected=true&q=ab", "%71=zammit", "q=a+b&q=", "stood%5Fin=1", "elected&q"} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, raw string) {
		for name := range parseQuery(raw) {
			if !dataset.IsParam(name) {
				t.Fatalf("kept unknown parameter %q", name)
			}
		}
	})
}

// TestEndpointsMatchOpenAPI walks the router: the API's routes and
// openapi.json name the same paths, so a route added without its OpenAPI
// entry, or an entry without its route, fails here; and every route's name
// is one of the metrics' fixed set. The API's routes are the named ones
// (a page's has none); a path without variables is matched by comparison,
// not by a template, so each of openapi.json's paths is asked of the
// router, with a key in its variable.
func TestEndpointsMatchOpenAPI(t *testing.T) {
	var doc struct{ Paths map[string]json.RawMessage }
	if err := json.Unmarshal(openAPI, &doc); err != nil {
		t.Fatal(err)
	}
	ds, err := dataset.Default()
	if err != nil {
		t.Fatal(err)
	}
	s := New(archive.Of(ds), DefaultOptions())
	api := map[*mux.Route]bool{}
	err = s.router.Walk(func(route *mux.Route, _ *mux.Router, _ []*mux.Route) error {
		if route.GetName() == "" {
			return nil // a page
		}
		api[route] = true
		if _, ok := s.metrics.routes[route.GetName()]; !ok {
			t.Errorf("route name %q has no metrics", route.GetName())
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	routed := map[*mux.Route]string{}
	for path := range doc.Paths {
		target := regexp.MustCompile(`\{[^}]*\}`).ReplaceAllString(path, "k")
		var m mux.RouteMatch
		if !s.router.Match(httptest.NewRequest(http.MethodGet, target, nil), &m) || !api[m.Route] {
			t.Errorf("openapi.json has %s, which the router lacks", path)
			continue
		}
		if other, ok := routed[m.Route]; ok {
			t.Errorf("openapi.json's %s and %s are one route's", path, other)
		}
		routed[m.Route] = path
	}
	for route := range api {
		if _, ok := routed[route]; !ok {
			t.Errorf("the router has route %q at a path openapi.json's paths lack", route.GetName())
		}
	}
	if len(api) != 2*(2*len(dataset.Table)+1)+4+4 {
		t.Errorf("the router has %d API paths, want a list and a record for each of the %d collections and the national totals, each also under an election's path, the elections and one election, the people and one person, the 3 documents and the index without its slash", len(api), len(dataset.Table))
	}
	// An election's collections are named as the collections: the names
	// are a fixed set, whatever the elections.
	names := slices.Sorted(maps.Keys(s.metrics.routes))
	if want := []string{"candidate", "candidates", "catalog", "district", "districts", "election", "elections", "index", "national", "openapi", "other", "page", "parties", "party", "people", "person", "result", "results"}; !slices.Equal(names, want) {
		t.Errorf("metrics' routes %q, want %q", names, want)
	}
}

// TestQueryReuse: a query parsed into a pooled query, released and parsed
// again, has the new parameters alone, each with every value it was given.
func TestQueryReuse(t *testing.T) {
	q := queries.Get().(*query)
	for _, raw := range []string{"district=5&party=pn&limit=3&offset=1&locality=x", "limit=7", "", "party=a&party=b&district=1", "district=2",
		"district=5&party=pn&stood_in=5&elected=true&q=a+b&limit=3&offset=1&locality=x", "q=ab&q=cd&elected=false"} {
		got, want := q.parse(raw), parseQuery(raw)
		if len(got) != len(want) {
			t.Fatalf("%q: parsed %v, want %v", raw, got, want)
		}
		for name, vs := range want {
			if !slices.Equal(got[name], vs) {
				t.Errorf("%q: %s = %q, want %q", raw, name, got[name], vs)
			}
		}
		q.release()
		q = queries.Get().(*query)
	}
	q.release()
}

// TestFieldValues: each header value a response's fieldValues makes keeps
// its text while more are made after it, past its array of text (copied)
// and past its array of values (a slice of their own).
func TestFieldValues(t *testing.T) {
	f := new(fieldValues)
	var made [][]string
	var want []string
	for i := range 2 * len(f.values) {
		text := strings.Repeat(strconv.Itoa(i), i+1) // 78 bytes in all: past the array
		if i == 3 {
			made, want = append(made, f.value("W/\"tag\"")), append(want, "W/\"tag\"")
		}
		made, want = append(made, f.text(append(f.buffer(), text...))), append(want, text)
	}
	made, want = append(made, f.text(f.buffer())), append(want, "")
	for i, v := range made {
		if len(v) != 1 || cap(v) != 1 || v[0] != want[i] {
			t.Errorf("value %d: %q (capacity %d), want [%q] (capacity 1)", i, v, cap(v), want[i])
		}
	}
}

// TestPreparedQueriesHold: the queries prepared at load are exactly each
// collection with no query, /candidates and /results of each district by
// number, and /candidates of each party by slug, as sent; a query string
// the query's path reads the same way, but written otherwise, is not
// among them (TestPreparedQueriesAnswerAsParsed holds the answers).
func TestPreparedQueriesHold(t *testing.T) {
	ds, err := dataset.Default()
	if err != nil {
		t.Fatal(err)
	}
	s := New(archive.Of(ds), DefaultOptions())
	got := s.snap.Load().queries
	want := map[preparedQuery]bool{}
	for _, c := range dataset.Table {
		want[preparedQuery{c.Name, ""}] = true
	}
	for _, d := range ds.Districts() {
		want[preparedQuery{dataset.Candidates, "district=" + strconv.Itoa(d.Number)}] = true
		want[preparedQuery{dataset.Results, "district=" + strconv.Itoa(d.Number)}] = true
	}
	for _, p := range ds.Parties() {
		want[preparedQuery{dataset.Candidates, "party=" + p.Slug}] = true
	}
	if len(got) != len(want) {
		t.Errorf("%d queries prepared, want %d", len(got), len(want))
	}
	for k := range want {
		if _, ok := got[k]; !ok {
			t.Errorf("%s?%s not prepared", k.c, k.raw)
		}
	}
	for _, raw := range []string{"district=05", "district=5&", "party=PN", "district=5&party=pn", "limit=100"} {
		if _, ok := got[preparedQuery{dataset.Candidates, raw}]; ok {
			t.Errorf("candidates?%s prepared; it takes the query's path", raw)
		}
	}
}
