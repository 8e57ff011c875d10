package commands_test

import (
	"fmt"
	"net/http"
	"regexp"
	"strings"
	"testing"
)

// TestProdTrustedProxies counts clients behind a trusted proxy by their
// forwarded address, a client sending forged headers directly by its own,
// and a request with a malformed header under the proxy's address.
func TestProdTrustedProxies(t *testing.T) {
	t.Parallel()
	p := serveInProcess(t, "--trusted-proxies", "127.0.0.1/32", "--rate-limit", "5", "--admin-listen", "")
	path := e2eBase + "/parties"
	proxy := p.client(t, "127.0.0.1")
	direct := p.client(t, "127.0.0.2")

	// send sends one request and checks its status and X-RateLimit-Remaining.
	send := func(c *e2eClient, hdr map[string]string, status, remaining int, what string) reply {
		t.Helper()
		r := c.send(t, http.MethodGet, path, hdr)
		if r.status != status || prodHeaderInt(r, "X-RateLimit-Remaining") != remaining || r.header.Get("X-RateLimit-Limit") != "5" {
			t.Errorf("%s: status %d, X-RateLimit-Limit %q, X-RateLimit-Remaining %q; want %d, 5, %d",
				what, r.status, r.header.Get("X-RateLimit-Limit"), r.header.Get("X-RateLimit-Remaining"), status, remaining)
		}
		if got, want := r.header.Get("RateLimit"), fmt.Sprintf(`"endpoint";r=%d;`, remaining); !strings.HasPrefix(got, want) {
			t.Errorf("%s: RateLimit %q, want it to start %q", what, got, want)
		}
		return r
	}

	// A client behind the proxy: limited by its forwarded address.
	xff7 := map[string]string{"X-Forwarded-For": "198.51.100.7"}
	for i := range 5 {
		checkOK(t, send(proxy, xff7, http.StatusOK, 4-i, fmt.Sprintf("request %d for 198.51.100.7 via the proxy", i+1)))
	}
	r := send(proxy, xff7, http.StatusTooManyRequests, 0, "request 6 for 198.51.100.7 via the proxy")
	checkProblem(t, r, http.StatusTooManyRequests)
	if prodHeaderInt(r, "Retry-After") < 1 {
		t.Errorf("429 with Retry-After %q", r.header.Get("Retry-After"))
	}
	// Another client behind the same proxy has its own counter.
	send(proxy, map[string]string{"X-Forwarded-For": "198.51.100.8"}, http.StatusOK, 4, "198.51.100.8 via the proxy")
	// A chain: the proxy's own hop (trusted) is skipped, the first
	// untrusted hop from the right is the client.
	send(proxy, map[string]string{"X-Forwarded-For": "203.0.113.1, 198.51.100.7, 127.0.0.1"}, http.StatusTooManyRequests, 0, "X-Forwarded-For: 203.0.113.1, 198.51.100.7, 127.0.0.1 via the proxy")

	// A client not behind the proxy forging the header: counted as itself.
	forged := map[string]string{"X-Forwarded-For": "198.51.100.8"}
	for i := range 5 {
		send(direct, forged, http.StatusOK, 4-i, fmt.Sprintf("request %d from 127.0.0.2 forging 198.51.100.8", i+1))
	}
	send(direct, forged, http.StatusTooManyRequests, 0, "request 6 from 127.0.0.2 forging 198.51.100.8")
	send(direct, map[string]string{"Forwarded": "for=198.51.100.9"}, http.StatusTooManyRequests, 0, "127.0.0.2 forging Forwarded: for=198.51.100.9")
	// 198.51.100.8 behind the proxy still has its own count (1 used).
	send(proxy, map[string]string{"X-Forwarded-For": "198.51.100.8"}, http.StatusOK, 3, "198.51.100.8 via the proxy, after the forgeries")

	// Malformed headers from the proxy: a client it did not name, counted
	// apart from the proxy's own address, on one counter for them all.
	malformed := []map[string]string{
		{"X-Forwarded-For": "not-an-ip"},
		{"X-Forwarded-For": "198.51.100.9, ,"},
	}
	for i, hdr := range malformed {
		send(proxy, hdr, http.StatusOK, 4-i, fmt.Sprintf("malformed %v from the proxy", hdr))
	}
	send(proxy, nil, http.StatusOK, 4, "a plain request from the proxy after the malformed ones")
	// The proxy writes X-Forwarded-For: a Forwarded header it passed
	// through is the client's own, and is not read.
	send(proxy, map[string]string{"Forwarded": "for=198.51.100.11"}, http.StatusOK, 3, "Forwarded: for=198.51.100.11 via a proxy that writes X-Forwarded-For")
	send(proxy, map[string]string{"X-Forwarded-For": "198.51.100.9"}, http.StatusOK, 4, "198.51.100.9 well-formed: not charged for the malformed header naming it")

	// The access log carries the resolved address.
	prodWaitLog(t, p, regexp.MustCompile(`msg=request client_ip=198\.51\.100\.7 method=GET route=parties uri=/api/public/v1/parties status=200 bytes=\d+ duration=`), "an access-log line for 198.51.100.7's 200")
	prodWaitLog(t, p, regexp.MustCompile(`msg=request client_ip=198\.51\.100\.7 method=GET route=parties uri=/api/public/v1/parties status=429 `), "an access-log line for 198.51.100.7's 429")
	prodWaitLog(t, p, regexp.MustCompile(`msg=request client_ip=127\.0\.0\.2 method=GET route=parties .*status=429 `), "an access-log line for the forger 127.0.0.2")
	prodWaitLog(t, p, regexp.MustCompile(`msg=request client_ip=198\.51\.100\.9 `), "the access-log line of the last request")
	log := p.stderr.String()
	if n := strings.Count(log, "client_ip=198.51.100.9 "); n != 1 {
		t.Errorf("%d access-log lines for 198.51.100.9, want 1: the malformed header naming it must be logged under the proxy", n)
	}
	if n := strings.Count(log, "client_ip=127.0.0.1 "); n != 2 {
		t.Errorf("%d access-log lines for the proxy 127.0.0.1, want 2 (the plain request and the unread Forwarded)", n)
	}
	if n := strings.Count(log, "client_ip=invalid@127.0.0.1 "); n != 2 {
		t.Errorf("%d access-log lines for invalid@127.0.0.1, want 2 (the malformed headers)", n)
	}
	if n := strings.Count(log, "client_ip=198.51.100.8 "); n != 2 {
		t.Errorf("%d access-log lines for 198.51.100.8, want 2 (via the proxy; the forgeries are 127.0.0.2's)", n)
	}
}

// TestProdTrustedProxiesForwarded: a proxy that writes RFC 7239's Forwarded
// header, configured with --forwarded-header Forwarded.
func TestProdTrustedProxiesForwarded(t *testing.T) {
	t.Parallel()
	p := serveInProcess(t, "--trusted-proxies", "127.0.0.1/32", "--forwarded-header", "Forwarded", "--rate-limit", "5", "--admin-listen", "")
	proxy := p.client(t, "127.0.0.1")
	steps := []struct {
		hdr       map[string]string
		status    int
		remaining int
		what      string
	}{
		{map[string]string{"Forwarded": "for=198.51.100.7"}, 200, 4, "198.51.100.7"},
		{map[string]string{"Forwarded": `for="198.51.100.7:4711";proto=http`}, 200, 3, "198.51.100.7 quoted, with a port"},
		{map[string]string{"Forwarded": "for=192.0.2.1, for=198.51.100.7;by=127.0.0.1"}, 200, 2, "198.51.100.7 as the rightmost hop"},
		{map[string]string{"X-Forwarded-For": "198.51.100.7"}, 200, 4, "X-Forwarded-For is not read: the proxy's own counter"},
		{map[string]string{"Forwarded": "for=unknown"}, 200, 4, "an obfuscated hop: a counter of its own, not the proxy's"},
		{map[string]string{"Forwarded": "for=_hidden, for=198.51.100.10"}, 200, 4, "198.51.100.10, read before the hidden hop"},
		{map[string]string{"Forwarded": "for=198.51.100.10, for=_hidden"}, 200, 4, "the hidden hop nearest: a counter of its own"},
		{nil, 200, 3, "the proxy's own counter, untouched by the hidden hops"},
	}
	for _, st := range steps {
		r := proxy.send(t, http.MethodGet, e2eBase+"/parties", st.hdr)
		if r.status != st.status || prodHeaderInt(r, "X-RateLimit-Remaining") != st.remaining {
			t.Errorf("%s: status %d, remaining %s; want %d, %d", st.what, r.status, r.header.Get("X-RateLimit-Remaining"), st.status, st.remaining)
		}
	}
}
