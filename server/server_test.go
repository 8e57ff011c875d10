package server_test

import (
	"bytes"
	"cmp"
	"compress/gzip"
	"encoding/json"
	"flag"
	"io"
	"maps"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"ballot/answers"
	"ballot/archive"
	"ballot/dataset"
	"ballot/internal/apitest"
	"ballot/server"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata/")

// start is the fake clock's first instant: a window begun at it ends at
// 1795234561 (04:16:01, rounded up), the value every fresh X-RateLimit-Reset below carries.
var start = time.Date(2026, 11, 21, 4, 15, 0, 123_000_000, time.UTC)

const firstReset = "1795234561"

// clock is a fake clock the tests move by hand.
type clock struct {
	mu  sync.Mutex
	now time.Time
}

func (c *clock) Now() time.Time { c.mu.Lock(); defer c.mu.Unlock(); return c.now }
func (c *clock) Advance(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.now = c.now.Add(d)
}

func malta(t testing.TB) *dataset.Dataset {
	t.Helper()
	ds, err := dataset.Default()
	if err != nil {
		t.Fatalf("loading the embedded dataset: %v", err)
	}
	return ds
}

// newServer returns a server over the embedded archive on a fixed clock.
// Each number the test leaves zero is server.DefaultOptions's, so a test
// names only what it is about.
func newServer(t testing.TB, opts server.Options) (*server.Server, *clock) {
	t.Helper()
	return serverOn(embedded(t), opts)
}

// ownClient gives the i-th request of a table a client address of its own
// (from 198.51.100.0/24, reserved for documentation), unless it names one:
// the table's requests share one server, building one being the costly
// part of such a test, and each sees the rate limit's counters fresh.
func ownClient(q request, i int) request {
	if q.remote == "" {
		if i >= 254 {
			panic("ownClient: more requests than addresses")
		}
		q.remote = "198.51.100." + strconv.Itoa(i+1) + ":52100"
	}
	return q
}

// serverOf is newServer over the dataset ds, an archive of one.
func serverOf(ds *dataset.Dataset, opts server.Options) (*server.Server, *clock) {
	return serverOn(archive.Of(ds), opts)
}

// serverOn is newServer over the archive a.
func serverOn(a *archive.Archive, opts server.Options) (*server.Server, *clock) {
	def := server.DefaultOptions()
	opts.CacheMaxAge = cmp.Or(opts.CacheMaxAge, def.CacheMaxAge)
	opts.RateLimit = cmp.Or(opts.RateLimit, def.RateLimit)
	opts.RateWindow = cmp.Or(opts.RateWindow, def.RateWindow)
	opts.MaxClients = cmp.Or(opts.MaxClients, def.MaxClients)
	opts.IPv6Prefix = cmp.Or(opts.IPv6Prefix, def.IPv6Prefix)
	c := &clock{now: start}
	opts.Now = c.Now
	return server.New(a, opts), c
}

// embedded is the embedded archive: 2022, current, and 2017.
func embedded(t testing.TB) *archive.Archive {
	t.Helper()
	a, err := archive.Default()
	if err != nil {
		t.Fatalf("loading the embedded archive: %v", err)
	}
	return a
}

// request describes one request; the zero RemoteAddr is a fixed client.
type request struct {
	method string
	target string
	header map[string]string
	remote string
}

func do(t testing.TB, h http.Handler, q request) *httptest.ResponseRecorder {
	t.Helper()
	method := q.method
	if method == "" {
		method = http.MethodGet
	}
	req := httptest.NewRequest(method, q.target, nil)
	req.RemoteAddr = "203.0.113.7:52100"
	if q.remote != "" {
		req.RemoteAddr = q.remote
	}
	for k, v := range q.header {
		req.Header.Set(k, v)
	}
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, req)
	if _, public := h.(*server.Server); public { // the public API answers as server/openapi.json says
		apitest.Check(t, req, rec.Code, rec.Header(), rec.Body.Bytes())
	}
	return rec
}

// golden compares body with testdata/name, or rewrites it under -update.
func golden(t *testing.T, name string, body []byte) {
	t.Helper()
	path := filepath.Join("testdata", name)
	if *update {
		if err := os.WriteFile(path, body, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test ./server -update to create it)", err)
	}
	if !bytes.Equal(body, want) {
		t.Errorf("body differs from %s (run go test ./server -update if the change is intended)\n got: %.600s\nwant: %.600s", path, body, want)
	}
}

// wantHeaders checks exact header values; "" means the header must be absent.
func wantHeaders(t *testing.T, h http.Header, want map[string]string) {
	t.Helper()
	for k, v := range want {
		if got := strings.Join(h.Values(k), ", "); got != v {
			t.Errorf("header %s = %q, want %q", k, got, v)
		}
	}
}

// Headers every response carries, whatever its status.
var everyResponse = map[string]string{
	"Access-Control-Allow-Origin":   "*",
	"Access-Control-Expose-Headers": "ETag, Link, Retry-After, X-RateLimit-Limit, X-RateLimit-Remaining, X-RateLimit-Reset, RateLimit-Policy, RateLimit",
	"X-Content-Type-Options":        "nosniff",
	"X-RateLimit-Limit":             "60",
	"X-RateLimit-Remaining":         "59",
	"X-RateLimit-Reset":             firstReset,
	"RateLimit-Policy":              `"endpoint";q=60;w=60`,
	"RateLimit":                     `"endpoint";r=59;t=60`,
}

func merge(maps ...map[string]string) map[string]string {
	out := map[string]string{}
	for _, m := range maps {
		for k, v := range m {
			out[k] = v
		}
	}
	return out
}

var success = map[string]string{
	"Content-Type":  "application/json; charset=utf-8",
	"Cache-Control": "public, max-age=60",
	"Vary":          "Accept-Encoding",
	"Retry-After":   "",
	"Link":          "",
}

// linkTo is a success whose records continue on the next page, query.
func linkTo(query string) map[string]string {
	return merge(success, map[string]string{"Link": "</api/public/v1/candidates?" + query + `>; rel="next"`})
}

var failure = map[string]string{
	"Content-Type":  "application/problem+json",
	"Cache-Control": "no-store",
	"ETag":          "",
}

// uncounted is the rate limit of a request that spent none of it.
var uncounted = map[string]string{"X-RateLimit-Remaining": "60", "RateLimit": `"endpoint";r=60;t=60`}

const (
	district5ID = "d0e4f679-6e46-543c-a8f9-478075abcc0a"
	partyPNID   = "2acf0508-f838-57a5-918a-affa0a1b1d89"
	unknownID   = "00000000-0000-4000-8000-000000000000"
)

// TestEndpoints checks each rule of the contract on status, headers and the
// exact body (golden files, with the clock fixed so generatedAt is fixed).
func TestEndpoints(t *testing.T) {
	tests := []struct {
		name   string
		req    request
		status int
		header map[string]string
		golden string
	}{
		{"parties, ordered by name", request{target: "/api/public/v1/parties"}, 200, success, "parties.json"},
		{"districts 1 to 13 with their localities", request{target: "/api/public/v1/districts"}, 200, success, "districts.json"},
		{"candidates, default limit 100 in the documented order", request{target: "/api/public/v1/candidates"}, 200, linkTo("limit=100&offset=100"), "candidates.json"},
		{"candidates, limit 500 returns all", request{target: "/api/public/v1/candidates?limit=500"}, 200, success, "candidates-limit-500.json"},
		{"candidates, limit 1", request{target: "/api/public/v1/candidates?limit=1"}, 200, linkTo("limit=1&offset=1"), "candidates-limit-1.json"},
		{"district by number", request{target: "/api/public/v1/candidates?district=5"}, 200, success, "candidates-district-5.json"},
		{"district by UUID in upper case", request{target: "/api/public/v1/candidates?district=" + strings.ToUpper(district5ID)}, 200, success, "candidates-district-5.json"},
		{"district number with a leading zero", request{target: "/api/public/v1/candidates?district=05"}, 200, success, "candidates-district-5.json"},
		{"party by slug in any case", request{target: "/api/public/v1/candidates?party=Pn"}, 200, success, "candidates-party-pn.json"},
		{"party by UUID in upper case", request{target: "/api/public/v1/candidates?party=" + strings.ToUpper(partyPNID)}, 200, success, "candidates-party-pn.json"},
		{"district and party together: both must match", request{target: "/api/public/v1/candidates?district=5&party=pn"}, 200, success, "candidates-district-5-party-pn.json"},
		{"valid filters matching nothing", request{target: "/api/public/v1/candidates?district=13&party=volt"}, 200, success, "empty.json"},
		{"empty values count as absent", request{target: "/api/public/v1/candidates?district=&party=&limit=&offset="}, 200, linkTo("limit=100&offset=100"), "candidates.json"},
		{"unknown parameters are ignored", request{target: "/api/public/v1/candidates?_=1700000000&foo=bar&limit=1"}, 200, linkTo("limit=1&offset=1"), "candidates-limit-1.json"},
		{"percent-encoded values are decoded", request{target: "/api/public/v1/candidates?%6Cimit=%31"}, 200, linkTo("limit=1&offset=1"), "candidates-limit-1.json"},
		{"parameters on parties are ignored", request{target: "/api/public/v1/parties?limit=0&district=99&offset=-1"}, 200, success, "parties.json"},
		{"offset 0 is the first page", request{target: "/api/public/v1/candidates?offset=0"}, 200, linkTo("limit=100&offset=100"), "candidates.json"},
		{"offset 100: the last page, with no link", request{target: "/api/public/v1/candidates?offset=100"}, 200, success, "candidates-offset-100.json"},
		{"offset with a leading zero", request{target: "/api/public/v1/candidates?offset=0100&limit=100"}, 200, success, "candidates-offset-100.json"},
		{"a page in the middle links the next, filters in canonical form", request{target: "/api/public/v1/candidates?party=PN&district=" + strings.ToUpper(district5ID) + "&limit=2&offset=2"}, 200, linkTo("district=5&party=pn&limit=2&offset=4"), "candidates-district-5-party-pn-offset-2.json"},
		{"the filters' canonical form whatever form they came in", request{target: "/api/public/v1/candidates?party=" + strings.ToUpper(partyPNID) + "&district=05&limit=2&offset=2"}, 200, linkTo("district=5&party=pn&limit=2&offset=4"), "candidates-district-5-party-pn-offset-2.json"},
		{"offset equal to the total: no records", request{target: "/api/public/v1/candidates?district=5&party=pn&offset=5"}, 200, success, "candidates-offset-total.json"},
		{"stood_in: every district stood in, not only the primary", request{target: "/api/public/v1/candidates?stood_in=5"}, 200, success, "candidates-stood-in-5.json"},
		{"stood_in by UUID in upper case", request{target: "/api/public/v1/candidates?stood_in=" + strings.ToUpper(district5ID)}, 200, success, "candidates-stood-in-5.json"},
		{"stood_in with a leading zero", request{target: "/api/public/v1/candidates?stood_in=05"}, 200, success, "candidates-stood-in-5.json"},
		{"elected true, with district", request{target: "/api/public/v1/candidates?elected=true&district=5"}, 200, success, "candidates-district-5-elected.json"},
		{"elected false", request{target: "/api/public/v1/candidates?elected=false&limit=500"}, 200, success, "candidates-not-elected.json"},
		{"q: any part of a name, folded", request{target: "/api/public/v1/candidates?q=zammit"}, 200, success, "candidates-q-zammit.json"},
		{"q in upper case with accents, trimmed", request{target: "/api/public/v1/candidates?q=%20%C5%BBAMMIT%20"}, 200, success, "candidates-q-zammit-as-given.json"},
		{"q matching nobody", request{target: "/api/public/v1/candidates?q=qqq"}, 200, success, "candidates-q-none.json"},
		{"every filter together, paged: the link keeps them", request{target: "/api/public/v1/candidates?q=%20Ar&elected=true&stood_in=5&party=PL&limit=1&offset=1"},
			200, linkTo("party=pl&stood_in=5&elected=true&q=Ar&limit=1&offset=2"), "candidates-filters-all.json"},
		{"q escaped in the link", request{target: "/api/public/v1/candidates?q=N+C&limit=1&_=1"}, 200, linkTo("q=N+C&limit=1&offset=1"), "candidates-q-escaped.json"},
		{"q with a character to escape, matching nobody", request{target: "/api/public/v1/candidates?q=a+b%26c"}, 200, success, "candidates-q-none-escaped.json"},
		{"a readers' filter with an empty value counts as absent", request{target: "/api/public/v1/candidates?stood_in=&elected=&q=&limit=1"}, 200, linkTo("limit=1&offset=1"), "candidates-limit-1.json"},

		{"limit 0", request{target: "/api/public/v1/candidates?limit=0"}, 400, failure, "400-limit.json"},
		{"limit 501", request{target: "/api/public/v1/candidates?limit=501"}, 400, failure, "400-limit.json"},
		{"limit not a number", request{target: "/api/public/v1/candidates?limit=abc"}, 400, failure, "400-limit.json"},
		{"limit negative", request{target: "/api/public/v1/candidates?limit=-1"}, 400, failure, "400-limit.json"},
		{"limit with a plus sign", request{target: "/api/public/v1/candidates?limit=%2B5"}, 400, failure, "400-limit.json"},
		{"limit fractional", request{target: "/api/public/v1/candidates?limit=1.5"}, 400, failure, "400-limit.json"},
		{"limit huge", request{target: "/api/public/v1/candidates?limit=99999999999999999999999"}, 400, failure, "400-limit.json"},
		{"limit badly percent-encoded", request{target: "/api/public/v1/candidates?limit=%zz"}, 400, failure, "400-limit.json"},
		{"district 0", request{target: "/api/public/v1/candidates?district=0"}, 400, failure, "400-district.json"},
		{"district 14", request{target: "/api/public/v1/candidates?district=14"}, 400, failure, "400-district.json"},
		{"district not a number", request{target: "/api/public/v1/candidates?district=foo"}, 400, failure, "400-district.json"},
		{"district UUID naming nothing", request{target: "/api/public/v1/candidates?district=" + unknownID}, 400, failure, "400-district-unknown.json"},
		{"party slug naming nothing", request{target: "/api/public/v1/candidates?party=no-such-party"}, 400, failure, "400-party-unknown.json"},
		{"party UUID naming nothing", request{target: "/api/public/v1/candidates?party=" + unknownID}, 400, failure, "400-party-unknown.json"},
		{"party malformed", request{target: "/api/public/v1/candidates?party=a_b%00"}, 400, failure, "400-party.json"},
		{"parameter given twice", request{target: "/api/public/v1/candidates?limit=5&limit=5"}, 400, failure, "400-limit-twice.json"},
		{"every refused parameter is named", request{target: "/api/public/v1/candidates?district=14&party=nope&limit=0"}, 400, failure, "400-all.json"},
		{"offset beyond the total", request{target: "/api/public/v1/candidates?offset=178"}, 400, failure, "400-offset.json"},
		{"offset negative", request{target: "/api/public/v1/candidates?offset=-1"}, 400, failure, "400-offset.json"},
		{"offset not a number", request{target: "/api/public/v1/candidates?offset=abc"}, 400, failure, "400-offset.json"},
		{"offset fractional", request{target: "/api/public/v1/candidates?offset=1.5"}, 400, failure, "400-offset.json"},
		{"offset with a plus sign", request{target: "/api/public/v1/candidates?offset=%2B1"}, 400, failure, "400-offset.json"},
		{"offset huge", request{target: "/api/public/v1/candidates?offset=99999999999999999999999"}, 400, failure, "400-offset.json"},
		{"offset badly percent-encoded", request{target: "/api/public/v1/candidates?offset=%zz"}, 400, failure, "400-offset.json"},
		{"offset beyond the total of the filters", request{target: "/api/public/v1/candidates?district=5&party=pn&offset=7"}, 400, failure, "400-offset-filtered.json"},
		{"offset given twice", request{target: "/api/public/v1/candidates?offset=1&offset=1"}, 400, failure, "400-offset-twice.json"},
		{"stood_in 14", request{target: "/api/public/v1/candidates?stood_in=14"}, 400, failure, "400-stood-in.json"},
		{"stood_in 0", request{target: "/api/public/v1/candidates?stood_in=0"}, 400, failure, "400-stood-in.json"},
		{"stood_in not a number", request{target: "/api/public/v1/candidates?stood_in=five"}, 400, failure, "400-stood-in.json"},
		{"stood_in UUID naming nothing", request{target: "/api/public/v1/candidates?stood_in=" + unknownID}, 400, failure, "400-stood-in-unknown.json"},
		{"elected not true or false", request{target: "/api/public/v1/candidates?elected=yes"}, 400, failure, "400-elected.json"},
		{"elected in upper case", request{target: "/api/public/v1/candidates?elected=TRUE"}, 400, failure, "400-elected.json"},
		{"elected 1", request{target: "/api/public/v1/candidates?elected=1"}, 400, failure, "400-elected.json"},
		{"q of one character", request{target: "/api/public/v1/candidates?q=a"}, 400, failure, "400-q.json"},
		{"q of one character once trimmed", request{target: "/api/public/v1/candidates?q=+%C5%BC+"}, 400, failure, "400-q.json"},
		{"q not UTF-8", request{target: "/api/public/v1/candidates?q=ab%FF"}, 400, failure, "400-q.json"},
		{"q given twice", request{target: "/api/public/v1/candidates?q=ab&q=cd"}, 400, failure, "400-q-twice.json"},
		{"every refused readers' filter is named", request{target: "/api/public/v1/candidates?stood_in=14&elected=no&q=x&offset=x"}, 400, failure, "400-readers-all.json"},
		{"offset beyond the total of q", request{target: "/api/public/v1/candidates?q=zammit&offset=5"}, 400, failure, "400-offset-q.json"},
		{"offset beside a refused filter: its range is unknown", request{target: "/api/public/v1/candidates?district=14&limit=0&offset=x"}, 400, failure, "400-offset-unknown-range.json"},
		{"a valid offset beside a refused filter is not named", request{target: "/api/public/v1/candidates?district=14&offset=500"}, 400, failure, "400-district.json"},

		{"unknown path", request{target: "/api/public/v1/ballots"}, 404, failure, "404.json"},
		{"trailing slash", request{target: "/api/public/v1/parties/"}, 404, failure, "404.json"},
		{"path traversal", request{target: "/api/public/v1/../../../etc/passwd"}, 404, failure, "404.json"},
		{"encoded traversal", request{target: "/api/public/v1/%2e%2e/%2e%2e/etc/passwd"}, 404, failure, "404.json"},
		{"root", request{target: "/"}, 404, failure, "404.json"},
		{"an encoded slash is not a separator", request{target: "/api/public/v1%2Fparties"}, 404, failure, "404.json"},
		{"an encoded slash in lower case", request{target: "/api/public/v1%2fopenapi.json"}, 404, failure, "404.json"},
		{"encoded letters name the same path", request{target: "/api/public/v1/p%61rties"}, 200, success, "parties.json"},
		{"CONNECT to a host", request{method: http.MethodConnect, target: "ballot.example:443"}, 405, merge(failure, map[string]string{"Allow": "GET, HEAD, OPTIONS"}), "405.json"},
		{"CONNECT to a path", request{method: http.MethodConnect, target: "/api/public/v1/parties"}, 405, merge(failure, map[string]string{"Allow": "GET, HEAD, OPTIONS"}), "405.json"},
		{"POST", request{method: http.MethodPost, target: "/api/public/v1/parties"}, 405, merge(failure, map[string]string{"Allow": "GET, HEAD, OPTIONS"}), "405.json"},
		{"DELETE", request{method: http.MethodDelete, target: "/api/public/v1/candidates"}, 405, merge(failure, map[string]string{"Allow": "GET, HEAD, OPTIONS"}), "405.json"},
		{"an odd method", request{method: "BREW", target: "/api/public/v1/districts"}, 405, merge(failure, map[string]string{"Allow": "GET, HEAD, OPTIONS"}), "405.json"},
		// Not a preflight of anything, so not counted, as preflights are not.
		{"OPTIONS on an unknown path", request{method: http.MethodOptions, target: "/api/public/v1/ballots"}, 404, merge(failure, uncounted), "404.json"},
		{"OPTIONS on a record's path with an encoded slash", request{method: http.MethodOptions, target: "/api/public/v1/parties/a%2Fb"}, 404, merge(failure, uncounted), "404.json"},
	}
	s, _ := newServer(t, server.Options{})
	for i, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rec := do(t, s, ownClient(tt.req, i))
			if rec.Code != tt.status {
				t.Fatalf("status = %d, want %d; body %s", rec.Code, tt.status, rec.Body)
			}
			wantHeaders(t, rec.Header(), merge(everyResponse, tt.header))
			if got, want := rec.Header().Get("Content-Length"), itoa(rec.Body.Len()); got != want {
				t.Errorf("Content-Length = %q, want %q", got, want)
			}
			golden(t, tt.golden, rec.Body.Bytes())
			if tt.status == 200 {
				checkEnvelope(t, rec.Body.Bytes())
			} else {
				checkProblem(t, rec.Body.Bytes(), tt.status)
			}
		})
	}
}

func itoa(n int) string { return strconv.Itoa(n) }

// checkEnvelope checks the shape every success shares: data an array,
// meta.count its length, generatedAt in UTC with milliseconds.
func checkEnvelope(t *testing.T, body []byte) {
	t.Helper()
	var env struct {
		Data []json.RawMessage `json:"data"`
		Meta struct {
			Count   *int `json:"count"`
			Total   *int `json:"total"`
			Limit   *int `json:"limit"`
			Offset  *int `json:"offset"`
			Filters *struct {
				District *struct {
					Number int
					ID     string
				} `json:"district"`
				Party   *struct{ Slug, ID string } `json:"party"`
				StoodIn *struct {
					Number int
					ID     string
				} `json:"stood_in"`
				Elected *bool   `json:"elected"`
				Q       *string `json:"q"`
			} `json:"filters"`
			GeneratedAt string `json:"generatedAt"`
		} `json:"meta"`
	}
	dec := json.NewDecoder(bytes.NewReader(body))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&env); err != nil {
		t.Fatalf("body is not the envelope: %v", err)
	}
	if env.Data == nil {
		t.Error("data is null, want an array")
	}
	if env.Meta.Count == nil || *env.Meta.Count != len(env.Data) {
		t.Errorf("meta.count = %v, want %d", env.Meta.Count, len(env.Data))
	}
	m := env.Meta
	switch {
	case m.Total == nil:
		t.Error("meta.total is missing")
	case m.Limit == nil && *m.Total != len(env.Data): // parties, districts
		t.Errorf("meta.total = %d, want count, %d", *m.Total, len(env.Data))
	case m.Limit != nil && (m.Offset == nil || m.Filters == nil):
		t.Errorf("a page's meta without offset or filters: %s", body)
	case m.Limit != nil && (len(env.Data) > *m.Limit || *m.Offset+len(env.Data) > *m.Total ||
		len(env.Data) < *m.Limit && *m.Offset+len(env.Data) != *m.Total):
		t.Errorf("meta says count %d, total %d, limit %d, offset %d: not a page of the total", len(env.Data), *m.Total, *m.Limit, *m.Offset)
	}
	if _, err := time.Parse(answers.TimeFormat, env.Meta.GeneratedAt); err != nil || len(env.Meta.GeneratedAt) != 24 {
		t.Errorf("generatedAt = %q, want YYYY-MM-DDTHH:MM:SS.mmmZ", env.Meta.GeneratedAt)
	}
	if !bytes.HasPrefix(body, []byte(`{"data":[`)) {
		t.Errorf("body starts %.20q, want data first", body)
	}
}

func checkProblem(t *testing.T, body []byte, status int) {
	t.Helper()
	var p struct {
		Type   string `json:"type"`
		Title  string `json:"title"`
		Status int    `json:"status"`
		Detail string `json:"detail"`
	}
	if err := json.Unmarshal(body, &p); err != nil {
		t.Fatalf("problem body: %v", err)
	}
	if p.Type != "about:blank" || p.Title != http.StatusText(status) || p.Status != status || p.Detail == "" {
		t.Errorf("problem = %+v, want type about:blank, title %q, status %d and a detail", p, http.StatusText(status), status)
	}
}

// TestCandidateOrder checks the documented total order on the whole
// collection, and that a smaller limit is a prefix of a larger one at the
// same offset.
func TestCandidateOrder(t *testing.T) {
	ds := malta(t)
	number := map[string]int{}
	for _, d := range ds.Districts() {
		number[d.ID] = d.Number
	}
	s, _ := newServer(t, server.Options{RateLimit: 1000})
	var all struct{ Data []dataset.Candidate }
	if err := json.Unmarshal(do(t, s, request{target: "/api/public/v1/candidates?limit=500"}).Body.Bytes(), &all); err != nil {
		t.Fatal(err)
	}
	if len(all.Data) != 177 {
		t.Fatalf("got %d candidates, want all 177", len(all.Data))
	}
	for i := 1; i < len(all.Data); i++ {
		a, b := all.Data[i-1], all.Data[i]
		ka := []string{itoa(100 + number[a.PrimaryDistrictID]), dataset.Fold(a.FamilyName), dataset.Fold(a.GivenName), a.ID}
		kb := []string{itoa(100 + number[b.PrimaryDistrictID]), dataset.Fold(b.FamilyName), dataset.Fold(b.GivenName), b.ID}
		if slices.Compare(ka, kb) >= 0 {
			t.Errorf("record %d (%s) is not before record %d (%s)", i-1, a.Name, i, b.Name)
		}
	}
	for _, n := range []int{1, 7, 100, 138} {
		var some struct{ Data []dataset.Candidate }
		if err := json.Unmarshal(do(t, s, request{target: "/api/public/v1/candidates?limit=" + itoa(n)}).Body.Bytes(), &some); err != nil {
			t.Fatal(err)
		}
		if !slices.EqualFunc(some.Data, all.Data[:n], func(a, b dataset.Candidate) bool { return a.ID == b.ID }) {
			t.Errorf("limit=%d is not the first %d records of the full order", n, n)
		}
	}
	// At an offset, a smaller limit is a prefix of a larger one too.
	for _, offset := range []int{1, 7, 100, 139} {
		for _, n := range []int{1, 13, 500} {
			var some struct{ Data []dataset.Candidate }
			if err := json.Unmarshal(do(t, s, request{target: "/api/public/v1/candidates?offset=" + itoa(offset) + "&limit=" + itoa(n)}).Body.Bytes(), &some); err != nil {
				t.Fatal(err)
			}
			want := all.Data[offset:min(offset+n, len(all.Data))]
			if !slices.EqualFunc(some.Data, want, func(a, b dataset.Candidate) bool { return a.ID == b.ID }) {
				t.Errorf("offset=%d&limit=%d is not records %d to %d of the full order", offset, n, offset, offset+len(want))
			}
		}
	}
}

// TestFiltersMatchData checks every district and party filter against the
// records themselves: a district filter keeps candidates whose primary
// district it is, a party filter those of the party.
func TestFiltersMatchData(t *testing.T) {
	ds := malta(t)
	s, _ := newServer(t, server.Options{RateLimit: 10000})
	for _, d := range ds.Districts() {
		for _, p := range append([]dataset.Party{{}}, ds.Parties()...) {
			target := "/api/public/v1/candidates?limit=500&district=" + itoa(d.Number)
			if p.ID != "" {
				target += "&party=" + p.Slug
			}
			var got struct{ Data []dataset.Candidate }
			if err := json.Unmarshal(do(t, s, request{target: target}).Body.Bytes(), &got); err != nil {
				t.Fatal(err)
			}
			want := 0
			for _, c := range ds.Candidates() {
				if c.PrimaryDistrictID == d.ID && (p.ID == "" || c.PartyID != nil && *c.PartyID == p.ID) {
					want++
				}
			}
			if len(got.Data) != want {
				t.Errorf("%s: %d candidates, want %d", target, len(got.Data), want)
			}
			for _, c := range got.Data {
				if c.PrimaryDistrictID != d.ID || p.ID != "" && (c.PartyID == nil || *c.PartyID != p.ID) {
					t.Errorf("%s returned %s, who does not match", target, c.Name)
				}
			}
		}
	}
}

func TestHeadIsGetWithoutBody(t *testing.T) {
	for _, target := range []string{"/api/public/v1/parties", "/api/public/v1/candidates?district=3", "/api/public/v1/candidates?limit=0", "/nowhere"} {
		t.Run(target, func(t *testing.T) {
			s, _ := newServer(t, server.Options{})
			get := do(t, s, request{target: target})
			s, _ = newServer(t, server.Options{})
			head := do(t, s, request{method: http.MethodHead, target: target})
			if head.Code != get.Code {
				t.Errorf("HEAD status %d, GET status %d", head.Code, get.Code)
			}
			if head.Code == http.StatusOK && head.Body.Len() != 0 {
				t.Errorf("HEAD wrote %d body bytes", head.Body.Len())
			}
			for _, k := range []string{"Content-Type", "Content-Length", "ETag", "Cache-Control", "X-RateLimit-Remaining", "Access-Control-Allow-Origin"} {
				if head.Header().Get(k) != get.Header().Get(k) {
					t.Errorf("%s: HEAD %q, GET %q", k, head.Header().Get(k), get.Header().Get(k))
				}
			}
		})
	}
}

func TestConditionalRequests(t *testing.T) {
	s, _ := newServer(t, server.Options{RateLimit: 1000})
	first := do(t, s, request{target: "/api/public/v1/candidates?district=5"})
	etag := first.Header().Get("ETag")
	if !strings.HasPrefix(etag, `W/"`) {
		t.Fatalf("ETag = %q, want a weak tag (generatedAt differs between bodies)", etag)
	}
	tests := []struct {
		name, target, ifNoneMatch string
		status                    int
	}{
		{"same tag", "/api/public/v1/candidates?district=5", etag, 304},
		{"same tag among others", "/api/public/v1/candidates?district=5", `"x", ` + etag, 304},
		{"the strong form matches weakly", "/api/public/v1/candidates?district=5", strings.TrimPrefix(etag, "W/"), 304},
		{"star", "/api/public/v1/candidates?district=5", "*", 304},
		{"same query written differently", "/api/public/v1/candidates?district=" + district5ID, etag, 304},
		{"another query", "/api/public/v1/candidates?district=6", etag, 200},
		{"another limit", "/api/public/v1/candidates?district=5&limit=1", etag, 200},
		{"stale tag", "/api/public/v1/candidates?district=5", `W/"0000000000000000-c0-1"`, 200},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rec := do(t, s, request{target: tt.target, header: map[string]string{"If-None-Match": tt.ifNoneMatch}})
			if rec.Code != tt.status {
				t.Fatalf("status = %d, want %d", rec.Code, tt.status)
			}
			if tt.status == 304 {
				if rec.Body.Len() != 0 {
					t.Errorf("304 with a body: %q", rec.Body)
				}
				wantHeaders(t, rec.Header(), map[string]string{
					"ETag": etag, "Cache-Control": "public, max-age=60", "Access-Control-Allow-Origin": "*", "X-RateLimit-Limit": "1000", "Content-Type": "",
				})
			}
		})
	}
	t.Run("another collection has another tag", func(t *testing.T) {
		if other := do(t, s, request{target: "/api/public/v1/parties"}).Header().Get("ETag"); other == etag {
			t.Errorf("parties and candidates share the tag %s", etag)
		}
	})
	t.Run("another version of the data has another tag", func(t *testing.T) {
		ds := edition(t, "A new edition")
		other := server.New(archive.Of(ds), server.DefaultOptions())
		rec := do(t, other, request{target: "/api/public/v1/candidates?district=5", header: map[string]string{"If-None-Match": etag}})
		if rec.Code != 200 || rec.Header().Get("ETag") == etag {
			t.Errorf("status %d, ETag %s: the old version's tag still matches", rec.Code, rec.Header().Get("ETag"))
		}
	})
}

// TestCacheControl: the exact Cache-Control of a successful answer and of
// a 304, with and without the directives for shared caches; a problem is
// never stored.
func TestCacheControl(t *testing.T) {
	for _, tt := range []struct {
		name                        string
		maxAge, sMaxAge, swr, stale time.Duration
		want                        string
	}{
		{"default", server.DefaultOptions().CacheMaxAge, 0, 0, 0, "public, max-age=60"},
		{"max-age 300", 300 * time.Second, 0, 0, 0, "public, max-age=300"},
		{"max-age 0", 0, 0, 0, 0, "public, max-age=0"},
		{"s-maxage", 60 * time.Second, 600 * time.Second, 0, 0, "public, max-age=60, s-maxage=600"},
		{"stale-while-revalidate", 60 * time.Second, 0, 30 * time.Second, 0, "public, max-age=60, stale-while-revalidate=30"},
		{"stale-if-error", 60 * time.Second, 0, 0, 86400 * time.Second, "public, max-age=60, stale-if-error=86400"},
		{"all three", 0, 300 * time.Second, 30 * time.Second, 3600 * time.Second, "public, max-age=0, s-maxage=300, stale-while-revalidate=30, stale-if-error=3600"},
		{"under a second is off", 60 * time.Second, 999 * time.Millisecond, 0, 0, "public, max-age=60"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			opts := server.DefaultOptions()
			opts.CacheMaxAge, opts.CacheSMaxAge, opts.CacheStaleWhileRevalidate, opts.CacheStaleIfError = tt.maxAge, tt.sMaxAge, tt.swr, tt.stale
			s := server.New(archive.Of(malta(t)), opts)
			ok := do(t, s, request{target: "/api/public/v1/parties"})
			if ok.Code != 200 || ok.Header().Get("Cache-Control") != tt.want {
				t.Errorf("200: status %d, Cache-Control %q, want %q", ok.Code, ok.Header().Get("Cache-Control"), tt.want)
			}
			notModified := do(t, s, request{target: "/api/public/v1/parties", header: map[string]string{"If-None-Match": ok.Header().Get("ETag")}})
			if notModified.Code != 304 || notModified.Header().Get("Cache-Control") != tt.want {
				t.Errorf("304: status %d, Cache-Control %q, want %q", notModified.Code, notModified.Header().Get("Cache-Control"), tt.want)
			}
			problem := do(t, s, request{target: "/api/public/v1/candidates?limit=0"})
			if problem.Code != 400 || problem.Header().Get("Cache-Control") != "no-store" {
				t.Errorf("400: status %d, Cache-Control %q, want no-store", problem.Code, problem.Header().Get("Cache-Control"))
			}
		})
	}
}

func TestGzip(t *testing.T) {
	tests := []struct {
		acceptEncoding string
		gzip           bool
	}{
		{"gzip", true},
		{"deflate, gzip;q=0.5, br", true},
		{"GZIP", true},
		{"*", true},
		{"gzip;q=0", false},
		{"gzip;q=0, *", false},
		{"identity", false},
		{"br, deflate", false},
		{"", false},
	}
	for _, tt := range tests {
		t.Run(tt.acceptEncoding, func(t *testing.T) {
			s, _ := newServer(t, server.Options{})
			plain := do(t, s, request{target: "/api/public/v1/candidates"})
			rec := do(t, s, request{target: "/api/public/v1/candidates", header: map[string]string{"Accept-Encoding": tt.acceptEncoding}})
			if got := rec.Header().Get("Content-Encoding") == "gzip"; got != tt.gzip {
				t.Fatalf("Content-Encoding = %q, want gzip: %v", rec.Header().Get("Content-Encoding"), tt.gzip)
			}
			body := rec.Body.Bytes()
			if tt.gzip {
				zr, err := gzip.NewReader(bytes.NewReader(body))
				if err != nil {
					t.Fatal(err)
				}
				if body, err = io.ReadAll(zr); err != nil {
					t.Fatalf("invalid gzip: %v", err)
				}
				if got, want := rec.Header().Get("Content-Length"), strconv.Itoa(rec.Body.Len()); got != want {
					t.Errorf("Content-Length = %s, want the compressed length %s", got, want)
				}
			}
			if !bytes.Equal(body, plain.Body.Bytes()) {
				t.Error("decompressed body differs from the plain one")
			}
			wantHeaders(t, rec.Header(), map[string]string{"Vary": "Accept-Encoding", "ETag": plain.Header().Get("ETag")})
		})
	}
	t.Run("304 and HEAD carry no gzip stream", func(t *testing.T) {
		s, _ := newServer(t, server.Options{})
		etag := do(t, s, request{target: "/api/public/v1/parties"}).Header().Get("ETag")
		rec := do(t, s, request{target: "/api/public/v1/parties", header: map[string]string{"Accept-Encoding": "gzip", "If-None-Match": etag}})
		if rec.Code != 304 || rec.Body.Len() != 0 || rec.Header().Get("Content-Encoding") != "" {
			t.Errorf("304: status %d, %d body bytes, Content-Encoding %q", rec.Code, rec.Body.Len(), rec.Header().Get("Content-Encoding"))
		}
		rec = do(t, s, request{method: http.MethodHead, target: "/api/public/v1/parties", header: map[string]string{"Accept-Encoding": "gzip"}})
		if rec.Code != 200 || rec.Body.Len() != 0 || rec.Header().Get("Content-Encoding") != "gzip" {
			t.Errorf("HEAD: status %d, %d body bytes, Content-Encoding %q", rec.Code, rec.Body.Len(), rec.Header().Get("Content-Encoding"))
		}
	})
}

func TestPreflight(t *testing.T) {
	s, _ := newServer(t, server.Options{})
	rec := do(t, s, request{method: http.MethodOptions, target: "/api/public/v1/candidates", header: map[string]string{
		"Origin":                         "https://news.example",
		"Access-Control-Request-Method":  "GET",
		"Access-Control-Request-Headers": "X-Requested-With, If-None-Match",
	}})
	if rec.Code != http.StatusNoContent {
		t.Fatalf("status = %d, want 204", rec.Code)
	}
	wantHeaders(t, rec.Header(), merge(everyResponse, map[string]string{
		"Access-Control-Allow-Methods": "GET, HEAD, OPTIONS",
		"Access-Control-Allow-Headers": "X-Requested-With, If-None-Match",
		"Access-Control-Max-Age":       "86400",
		"X-RateLimit-Remaining":        "60", // a preflight is not counted
		"RateLimit":                    `"endpoint";r=60;t=60`,
	}))
	if rec.Body.Len() != 0 {
		t.Errorf("preflight body %q", rec.Body)
	}
	rec = do(t, s, request{method: http.MethodOptions, target: "/api/public/v1/candidates", header: map[string]string{"Access-Control-Request-Headers": "X-Ok, Bad\r\nHeader: 1"}})
	if got := rec.Header().Get("Access-Control-Allow-Headers"); got != "" {
		t.Errorf("echoed a malformed header list: %q", got)
	}
}

// TestPreparingIsPaced: a server calls Options.PaceGC while it prepares
// what it serves of a dataset, at start and on each reload, and ends each
// pacing before it serves.
func TestPreparingIsPaced(t *testing.T) {
	ds, err := dataset.Default()
	if err != nil {
		t.Fatal(err)
	}
	started, ended := 0, 0
	opts := server.DefaultOptions()
	opts.PaceGC = func() func() {
		started++
		return func() { ended++ }
	}
	srv := server.New(archive.Of(ds), opts)
	if _, err := srv.Reload(func() (*archive.Archive, error) { return archive.Of(ds), nil }); err != nil {
		t.Fatal(err)
	}
	if started != 2 || ended != 2 {
		t.Errorf("paced %d times and ended %d, want 2 and 2: at start and on the reload", started, ended)
	}
}

// TestPreparedQueriesAnswerAsParsed: a collection's common queries (none,
// one district, one party; TestPreparedQueriesHold lists them) are
// answered from results prepared at load; each answer is the one the same
// parameters get through the query's own path, which a query string with a
// trailing "&" takes: status, every header field and the body, byte for
// byte, for GET, HEAD, gzip and a matching If-None-Match alike.
func TestPreparedQueriesAnswerAsParsed(t *testing.T) {
	ds := malta(t)
	first, last := ds.Parties()[0].Slug, ds.Parties()[len(ds.Parties())-1].Slug
	targets := []string{
		"/api/public/v1/parties?", "/api/public/v1/districts?", "/api/public/v1/candidates?", "/api/public/v1/results?",
		"/api/public/v1/candidates?district=1", "/api/public/v1/candidates?district=5", "/api/public/v1/candidates?district=13",
		"/api/public/v1/candidates?party=" + first, "/api/public/v1/candidates?party=" + last,
		"/api/public/v1/results?district=1", "/api/public/v1/results?district=13",
	}
	// Two servers asked the same in the same order, so that their
	// rate-limit fields agree, and a third for the ETags to match.
	opts := server.Options{RateLimit: 1000}
	preparedSrv, _ := newServer(t, opts)
	parsedSrv, _ := newServer(t, opts)
	etagSrv, _ := newServer(t, opts)
	etag := func(target string) string {
		return do(t, etagSrv, request{target: target + "&"}).Header().Get("ETag")
	}
	for _, target := range targets {
		for _, v := range []struct {
			name   string
			method string
			gzip   bool
			match  bool
		}{{"GET", http.MethodGet, false, false}, {"HEAD", http.MethodHead, false, false}, {"gzip", http.MethodGet, true, false}, {"If-None-Match", http.MethodGet, false, true}} {
			t.Run(target+" "+v.name, func(t *testing.T) {
				h := map[string]string{}
				if v.gzip {
					h["Accept-Encoding"] = "gzip"
				}
				if v.match {
					h["If-None-Match"] = etag(target)
				}
				prepared := do(t, preparedSrv, request{method: v.method, target: target, header: h})
				parsed := do(t, parsedSrv, request{method: v.method, target: target + "&", header: h})
				want := http.StatusOK
				if v.match {
					want = http.StatusNotModified
				}
				if prepared.Code != want || parsed.Code != prepared.Code {
					t.Fatalf("status %d, and %d through the query's path; want %d for both", prepared.Code, parsed.Code, want)
				}
				if !maps.EqualFunc(prepared.Header(), parsed.Header(), slices.Equal) {
					t.Errorf("header\n%v\nthrough the query's path\n%v", prepared.Header(), parsed.Header())
				}
				if !bytes.Equal(prepared.Body.Bytes(), parsed.Body.Bytes()) {
					t.Errorf("body\n%q\nthrough the query's path\n%q", prepared.Body, parsed.Body)
				}
			})
		}
	}
}
