package commands_test

import (
	"net/http"
	"strconv"
	"strings"
	"testing"
	"time"
)

// TestE2ERateLimit exhausts one endpoint's quota and checks the 429, the
// separate counters per endpoint and per IP, and that forged forwarding
// headers change nothing.
func TestE2ERateLimit(t *testing.T) {
	t.Parallel()
	p := serveInProcess(t)
	c := p.client(t, "127.0.0.1")
	const path = e2eBase + "/candidates?limit=1"

	for i := range e2eLimit {
		r := c.get(t, path) // checks Remaining = 59, 58, …, 0
		if r.status != http.StatusOK {
			t.Fatalf("request %d of %d: status %d, want 200; body %s", i+1, e2eLimit, r.status, r.body)
		}
	}

	t.Run("61st is 429", func(t *testing.T) { checkFirstRefusal(t, c, path) })
	t.Run("still 429 whatever the request", func(t *testing.T) { checkStillRefused(t, c, path) })
	t.Run("preflight on an exhausted endpoint", func(t *testing.T) { checkExhaustedPreflight(t, c, path) })
	t.Run("other endpoints have their own counters", func(t *testing.T) {
		for _, other := range []string{e2eBase + "/parties", e2eBase + "/districts"} {
			checkOK(t, c.get(t, other)) // Remaining 59
		}
		checkProblem(t, c.get(t, e2eBase+"/nothing"), http.StatusNotFound) // the shared counter: 59
	})

	t.Run("another IP has its own counter", func(t *testing.T) {
		c2 := p.client(t, "127.0.0.2")
		r := c2.get(t, path) // Remaining 59
		checkOK(t, r)
		if got := r.header.Get("X-RateLimit-Remaining"); got != "59" {
			t.Errorf("127.0.0.2: X-RateLimit-Remaining = %q, want 59", got)
		}
		// And 127.0.0.1 is still limited.
		if r := c.get(t, path); r.status != http.StatusTooManyRequests {
			t.Errorf("127.0.0.1 after 127.0.0.2: status %d, want 429", r.status)
		}
	})
}

// checkFirstRefusal checks the first request over the limit: 429, with a
// Retry-After that agrees with X-RateLimit-Reset and a detail saying when
// to retry.
func checkFirstRefusal(t *testing.T, c *e2eClient, path string) {
	r := c.get(t, path)
	pb := checkProblem(t, r, http.StatusTooManyRequests)
	ra, err := strconv.Atoi(r.header.Get("Retry-After"))
	if err != nil || ra < 1 || ra > 60 {
		t.Fatalf("Retry-After = %q, want whole seconds from 1 to 60", r.header.Get("Retry-After"))
	}
	reset, _ := strconv.ParseInt(r.header.Get("X-RateLimit-Reset"), 10, 64)
	// Both count from when the server answered, between sent and when.
	if at := reset - int64(ra); at < r.sent.Unix()-2 || at > r.when.Unix()+2 {
		t.Errorf("Retry-After %d s and X-RateLimit-Reset %d disagree (request sent %d, answered by %d)", ra, reset, r.sent.Unix(), r.when.Unix())
	}
	resetAt := time.Unix(reset, 0).UTC().Format(time.RFC3339)
	if !strings.Contains(strings.ToLower(pb.Detail), "retry") ||
		!(strings.Contains(pb.Detail, strconv.Itoa(ra)) || strings.Contains(pb.Detail, resetAt)) {
		t.Errorf("detail %q does not say when to retry (in %d s, at %s)", pb.Detail, ra, resetAt)
	}
}

// checkStillRefused checks that no header, query or method gets past an
// exhausted quota.
func checkStillRefused(t *testing.T, c *e2eClient, path string) {
	for _, tt := range []struct {
		name   string
		method string
		path   string
		hdr    map[string]string
	}{
		{"forged X-Forwarded-For", http.MethodGet, path, map[string]string{"X-Forwarded-For": "1.2.3.4"}},
		{"forged Forwarded", http.MethodGet, path, map[string]string{"Forwarded": "for=1.2.3.4"}},
		{"forged X-Real-IP", http.MethodGet, path, map[string]string{"X-Real-IP": "1.2.3.4"}},
		{"other query", http.MethodGet, e2eBase + "/candidates?district=3&_=1", nil},
		{"invalid query", http.MethodGet, e2eBase + "/candidates?limit=0", nil},
		{"HEAD", http.MethodHead, path, nil},
		{"If-None-Match", http.MethodGet, path, map[string]string{"If-None-Match": "*"}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			r := c.do(t, tt.method, tt.path, tt.hdr)
			if r.status != http.StatusTooManyRequests {
				t.Fatalf("status %d, want 429; body %s", r.status, r.body)
			}
			if tt.method != http.MethodHead {
				checkProblem(t, r, http.StatusTooManyRequests)
			}
			if ra, err := strconv.Atoi(r.header.Get("Retry-After")); err != nil || ra < 1 {
				t.Errorf("Retry-After = %q, want an integer ≥ 1", r.header.Get("Retry-After"))
			}
		})
	}
}

// checkExhaustedPreflight checks a preflight on an exhausted endpoint.
func checkExhaustedPreflight(t *testing.T, c *e2eClient, path string) {
	// API.md: a preflight "does not count, but still carries the
	// headers", and is answered 204. A browser whose preflight fails
	// never sends the real request, so a page's script could not read
	// the 429's Retry-After: the preflight must pass even when the
	// quota is used up, and the real request then gets the 429.
	r := c.do(t, http.MethodOptions, path, map[string]string{
		"Origin":                         "https://example.org",
		"Access-Control-Request-Method":  "GET",
		"Access-Control-Request-Headers": "If-None-Match",
	})
	if r.status != http.StatusNoContent || len(r.body) != 0 {
		t.Errorf("OPTIONS %s after the quota is used up: status %d, want 204 with no body; body %s", path, r.status, r.body)
	}
	if got := r.header.Get("Access-Control-Allow-Methods"); got != "GET, HEAD, OPTIONS" {
		t.Errorf("Access-Control-Allow-Methods = %q, want GET, HEAD, OPTIONS", got)
	}
	if got := r.header.Get("Access-Control-Allow-Headers"); !strings.EqualFold(got, "If-None-Match") && got != "*" {
		t.Errorf("Access-Control-Allow-Headers = %q, want If-None-Match", got)
	}
}
