package commands_test

import (
	"fmt"
	"net/http"
	"strings"
	"testing"

	dto "github.com/prometheus/client_model/go"
)

// TestProdAdminListener checks the admin endpoints, their headers, and the
// metrics the issue names, with values that follow the requests made.
func TestProdAdminListener(t *testing.T) {
	t.Parallel()
	p := serveInProcess(t, "--rate-limit", "2", "--admin-listen", "127.0.0.1:0")
	admin := prodAdmin(t, p)
	if admin == p.addr {
		t.Fatalf("the admin listener is the public address %s", admin)
	}
	hc := prodHTTP(t)
	u := func(path string) string { return "http://" + admin + path }

	checkAdminHeaders(t, hc, u)
	ready := prodReadyz(t, hc, admin)
	if !strings.HasPrefix(ready.Title, "Malta general election") {
		t.Errorf("/readyz title %q, want the embedded dataset's", ready.Title)
	}
	if !strings.Contains(p.stderr.String(), "(version "+ready.Version[:12]+")") {
		t.Errorf("/readyz version %s is not the version serve logged at start", ready.Version)
	}
	checkAdminRefusals(t, hc, u)
	other404 := checkAdminNotPublic(t, p)

	// Public traffic the metrics must show: 3 parties (the third a 429), 1
	// candidates 400, 1 districts 200, and the 5 admin paths above as
	// "other" 404 on the public side (4 GETs and a POST).
	c := p.client(t, "127.0.0.1")
	checkOK(t, c.send(t, http.MethodGet, e2eBase+"/parties", nil))
	checkOK(t, c.send(t, http.MethodGet, e2eBase+"/parties", nil))
	checkProblem(t, c.send(t, http.MethodGet, e2eBase+"/parties", nil), http.StatusTooManyRequests)
	checkProblem(t, c.send(t, http.MethodGet, e2eBase+"/candidates?limit=0", nil), http.StatusBadRequest)
	checkOK(t, c.send(t, http.MethodGet, e2eBase+"/districts", nil))

	// A request is counted when its handler returns, which for an answer
	// longer than the write buffer can be just after the client has read
	// it: wait for the last one.
	var mfs map[string]*dto.MetricFamily
	prodEventually(t, e2eTimeout, "the last request counted", func() (bool, string) {
		mfs = prodMetrics(t, hc, admin)
		got, _ := prodSeries(mfs, "ballot_http_requests_total", "route", "districts", "status", "200")
		return got == 1, fmt.Sprintf("districts 200: %v", got)
	})
	checkAdminMetrics(t, mfs, ready, other404)

	t.Run("evictions", func(t *testing.T) { checkEvictions(t, hc) })
}

// checkAdminHeaders checks that the admin listener has no rate limit, no
// CORS and no caching: ten quick requests with an Origin, well over the
// public limit of 2.
func checkAdminHeaders(t *testing.T, hc *http.Client, u func(string) string) {
	for i := range 10 {
		r := prodDo(t, hc, http.MethodGet, u("/healthz"), map[string]string{"Origin": "https://evil.example"})
		if v := prodJSON(t, r, http.StatusOK); v["status"] != "alive" {
			t.Errorf("/healthz: %s", r.body)
		}
		for name := range r.header {
			if strings.HasPrefix(strings.ToLower(name), "x-ratelimit") || strings.HasPrefix(strings.ToLower(name), "ratelimit") ||
				strings.HasPrefix(strings.ToLower(name), "access-control") || name == "Retry-After" {
				t.Errorf("/healthz request %d carries %s: %q", i+1, name, r.header.Get(name))
			}
		}
		if r.header.Get("Cache-Control") != "no-store" {
			t.Errorf("/healthz: Cache-Control %q, want no-store", r.header.Get("Cache-Control"))
		}
	}
}

// checkAdminRefusals checks the admin listener's 404s and 405s, without
// CORS or rate-limit headers and without internals.
func checkAdminRefusals(t *testing.T, hc *http.Client, u func(string) string) {
	for _, tt := range []struct {
		method, path string
		status       int
		allow        string
	}{
		{http.MethodGet, "/nope", http.StatusNotFound, ""},
		{http.MethodGet, "/healthz/", http.StatusNotFound, ""},
		{http.MethodGet, e2eBase + "/parties", http.StatusNotFound, ""}, // the API is not on the admin listener
		{http.MethodGet, "/reload", http.StatusMethodNotAllowed, "POST"},
		{http.MethodPost, "/healthz", http.StatusMethodNotAllowed, "GET, HEAD"},
		{http.MethodDelete, "/metrics", http.StatusMethodNotAllowed, "GET, HEAD"},
	} {
		r := prodDo(t, hc, tt.method, u(tt.path), map[string]string{"Origin": "https://evil.example"})
		if r.status != tt.status || r.header.Get("Allow") != tt.allow {
			t.Errorf("%s %s on the admin listener: status %d, Allow %q; want %d, %q", tt.method, tt.path, r.status, r.header.Get("Allow"), tt.status, tt.allow)
		}
		if r.header.Get("Access-Control-Allow-Origin") != "" || r.header.Get("X-RateLimit-Limit") != "" {
			t.Errorf("%s %s on the admin listener carries CORS or rate-limit headers: %q", tt.method, tt.path, r.header)
		}
		checkNoLeak(t, r.body)
	}
}

// checkAdminNotPublic checks that the admin endpoints are not on the public
// listener, and returns how many of those requests were counted as "other"
// 404s.
func checkAdminNotPublic(t *testing.T, p *e2eProc) float64 {
	for i, path := range []string{"/metrics", "/healthz", "/readyz", "/reload"} {
		if r := p.client(t, fmt.Sprintf("127.0.0.%d", 10+i)).send(t, http.MethodGet, path, nil); r.status != http.StatusNotFound {
			t.Errorf("GET %s on the public listener: status %d, want 404", path, r.status)
		}
	}
	postReload := p.client(t, "127.0.0.14").send(t, http.MethodPost, "/reload", nil)
	if postReload.status != http.StatusNotFound && postReload.status != http.StatusMethodNotAllowed || strings.Contains(string(postReload.body), "reloaded") {
		t.Errorf("POST /reload on the public listener: status %d: %s", postReload.status, postReload.body)
	}
	other404 := 4.0
	if postReload.status == http.StatusNotFound {
		other404++
	}
	return other404
}

// checkAdminMetrics checks the metrics against the traffic
// TestProdAdminListener sent.
func checkAdminMetrics(t *testing.T, mfs map[string]*dto.MetricFamily, ready prodReady, other404 float64) {
	for _, tt := range []struct {
		name   string
		typ    dto.MetricType
		labels []string
		want   float64
	}{
		{"ballot_http_requests_total", dto.MetricType_COUNTER, []string{"route", "parties", "status", "200"}, 2},
		{"ballot_http_requests_total", dto.MetricType_COUNTER, []string{"route", "parties", "status", "429"}, 1},
		{"ballot_http_requests_total", dto.MetricType_COUNTER, []string{"route", "candidates", "status", "400"}, 1},
		{"ballot_http_requests_total", dto.MetricType_COUNTER, []string{"route", "districts", "status", "200"}, 1},
		{"ballot_http_requests_total", dto.MetricType_COUNTER, []string{"route", "other", "status", "404"}, other404},
		{"ballot_http_request_duration_seconds", dto.MetricType_HISTOGRAM, []string{"route", "parties"}, 3},
		{"ballot_http_request_duration_seconds", dto.MetricType_HISTOGRAM, []string{"route", "districts"}, 1},
		{"ballot_rate_limited_requests_total", dto.MetricType_COUNTER, []string{"route", "parties"}, 1},
		{"ballot_rate_limit_evictions_total", dto.MetricType_COUNTER, nil, 0},
		{"ballot_dataset_reloads_total", dto.MetricType_COUNTER, []string{"outcome", "success"}, 0},
		{"ballot_dataset_reloads_total", dto.MetricType_COUNTER, []string{"outcome", "failure"}, 0},
		{"ballot_dataset_info", dto.MetricType_GAUGE, []string{"version", ready.Version, "title", ready.Title}, 1},
	} {
		mf := mfs[tt.name]
		if mf == nil {
			t.Errorf("/metrics has no %s", tt.name)
			continue
		}
		if mf.GetType() != tt.typ || mf.GetHelp() == "" {
			t.Errorf("%s: type %v, help %q; want %v with a help text", tt.name, mf.GetType(), mf.GetHelp(), tt.typ)
		}
		if got, ok := prodSeries(mfs, tt.name, tt.labels...); !ok || got != tt.want {
			t.Errorf("%s%v = %v (present %v), want %v", tt.name, tt.labels, got, ok, tt.want)
		}
	}
	// 127.0.0.1 on three endpoints, 127.0.0.10-14 on "other": 8 counters.
	if got, ok := prodSeries(mfs, "ballot_rate_limit_tracked_clients"); !ok || got != 8 {
		t.Errorf("ballot_rate_limit_tracked_clients = %v (present %v), want 8", got, ok)
	}
	// The POST to /reload on the public side: 405 or 404, as "other".
	var other float64
	for _, m := range mfs["ballot_http_requests_total"].GetMetric() {
		for _, lp := range m.GetLabel() {
			if lp.GetName() == "route" && lp.GetValue() == "other" {
				other += m.GetCounter().GetValue()
			}
		}
	}
	if other != 5 {
		t.Errorf("ballot_http_requests_total{route=\"other\"} sums to %v, want 5", other)
	}
	if h := mfs["ballot_http_request_duration_seconds"]; h != nil {
		for _, m := range h.GetMetric() {
			if m.GetHistogram().GetSampleCount() == 0 {
				continue // a route with no request yet
			}
			if len(m.GetHistogram().GetBucket()) < 5 || m.GetHistogram().GetSampleSum() <= 0 {
				t.Errorf("ballot_http_request_duration_seconds: a histogram of %d buckets, sum %v", len(m.GetHistogram().GetBucket()), m.GetHistogram().GetSampleSum())
			}
		}
	}
}

// checkEvictions starts a server tracking two clients and sends five: the
// oldest windows are dropped, counted, and start afresh.
func checkEvictions(t *testing.T, hc *http.Client) {
	p := serveInProcess(t, "--max-tracked-clients", "2", "--rate-limit", "3", "--admin-listen", "127.0.0.1:0")
	admin := prodAdmin(t, p)
	first := p.client(t, "127.0.0.1")
	for i := range 3 {
		if r := first.send(t, http.MethodGet, e2eBase+"/parties", nil); r.status != http.StatusOK || prodHeaderInt(r, "X-RateLimit-Remaining") != 2-i {
			t.Fatalf("127.0.0.1 request %d: status %d, Remaining %q", i+1, r.status, r.header.Get("X-RateLimit-Remaining"))
		}
	}
	for ip := 2; ip <= 5; ip++ {
		c := p.client(t, fmt.Sprintf("127.0.0.%d", ip))
		if r := c.send(t, http.MethodGet, e2eBase+"/parties", nil); r.status != http.StatusOK || prodHeaderInt(r, "X-RateLimit-Remaining") != 2 {
			t.Errorf("127.0.0.%d: status %d, Remaining %q; want 200, 2", ip, r.status, r.header.Get("X-RateLimit-Remaining"))
		}
	}
	mfs := prodMetrics(t, hc, admin)
	evicted, _ := prodSeries(mfs, "ballot_rate_limit_evictions_total")
	tracked, _ := prodSeries(mfs, "ballot_rate_limit_tracked_clients")
	if evicted < 3 || tracked < 1 || tracked > 2 {
		t.Errorf("5 clients with max_tracked_clients 2: evictions %v, tracked %v; want at least 3 and at most 2", evicted, tracked)
	}
	// 127.0.0.1's window was the oldest: dropped, so it starts afresh.
	if r := first.send(t, http.MethodGet, e2eBase+"/parties", nil); r.status != http.StatusOK || prodHeaderInt(r, "X-RateLimit-Remaining") != 2 {
		t.Errorf("127.0.0.1 after its window was evicted: status %d, Remaining %q; want a fresh window (200, 2)", r.status, r.header.Get("X-RateLimit-Remaining"))
	}
	t.Logf("evictions %v, tracked %v", evicted, tracked)
}
