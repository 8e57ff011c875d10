package server

import (
	"encoding/json"
	"log/slog"
	"maps"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/gorilla/mux"

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
			s := New(ds, opts)
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
	s := New(ds, opts)
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
// is one of the metrics' fixed set.
func TestEndpointsMatchOpenAPI(t *testing.T) {
	var doc struct{ Paths map[string]json.RawMessage }
	if err := json.Unmarshal(openAPI, &doc); err != nil {
		t.Fatal(err)
	}
	ds, err := dataset.Default()
	if err != nil {
		t.Fatal(err)
	}
	s := New(ds, DefaultOptions())
	routed := map[string]bool{}
	err = s.router.Walk(func(route *mux.Route, _ *mux.Router, _ []*mux.Route) error {
		tpl, err := route.GetPathTemplate()
		if err != nil {
			return err
		}
		path := tpl
		if path != BasePath && !strings.HasPrefix(path, BasePath+"/") {
			return nil // a page
		}
		if routed[path] {
			t.Errorf("the router has %s twice", path)
		}
		routed[path] = true
		if _, ok := doc.Paths[path]; !ok {
			t.Errorf("the router has %s, which openapi.json's paths lack", path)
		}
		if _, ok := s.metrics.routes[route.GetName()]; !ok {
			t.Errorf("%s: route name %q has no metrics", path, route.GetName())
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	for path := range doc.Paths {
		if !routed[path] {
			t.Errorf("openapi.json has %s, which the router lacks", path)
		}
	}
	if len(routed) != 2*len(dataset.Table)+5 {
		t.Errorf("the router has %d API paths, want a list and a record for each of the %d collections, the national totals, the 3 documents and the index without its slash", len(routed), len(dataset.Table))
	}
	names := slices.Sorted(maps.Keys(s.metrics.routes))
	if want := []string{"candidate", "candidates", "catalog", "district", "districts", "index", "national", "openapi", "other", "page", "parties", "party", "result", "results"}; !slices.Equal(names, want) {
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
