package commands_test

// The real binary behind a trusted proxy on loopback (127.0.0.2 plays the
// proxy): what a client writes in front of the proxies' hops never changes
// its counter, a client the proxy does not name never touches the proxy's
// own counter, a proxy written as an IPv4-mapped address is trusted, and a
// reload slower than the public write timeout still gets its answer on the
// admin listener.

import (
	"fmt"
	"net/http"
	"regexp"
	"strings"
	"testing"
	"time"
)

// guardSteps sends each step's request from c and checks its status and
// X-RateLimit-Remaining.
func guardSteps(t *testing.T, c *e2eClient, steps []guardStep) {
	t.Helper()
	for _, st := range steps {
		r := c.send(t, http.MethodGet, e2eBase+"/parties", st.hdr)
		if r.status != st.status || prodHeaderInt(r, "X-RateLimit-Remaining") != st.remaining {
			t.Errorf("%s: status %d, X-RateLimit-Remaining %q; want %d, %d", st.what, r.status, r.header.Get("X-RateLimit-Remaining"), st.status, st.remaining)
		}
	}
}

// guardStep is one request of guardSteps.
type guardStep struct {
	what      string
	hdr       map[string]string
	status    int
	remaining int
}

// guardLogCount waits until the access log holds n lines that match re,
// and fails if it ever holds more.
func guardLogCount(t *testing.T, p *e2eProc, re *regexp.Regexp, n int, what string) {
	t.Helper()
	prodEventually(t, 10*time.Second, what, func() (bool, string) {
		got := len(re.FindAllString(p.stderr.String(), -1))
		if got > n {
			t.Fatalf("%s: %d access-log lines, want %d", what, got, n)
		}
		return got == n, fmt.Sprintf("%d access-log lines", got)
	})
}

// guardMadeUp is n made-up hops a client writes in front of its own.
func guardMadeUp(n int, format string) string {
	var b strings.Builder
	for i := range n {
		fmt.Fprintf(&b, format+", ", i%250+1)
	}
	return b.String()
}

// TestGuardPrependedHops is the attack of issue 11, item 1: a client behind
// a trusted proxy writes 33 made-up hops, or a malformed element, in front
// of the address the proxy appends, hoping to be counted under the proxy.
func TestGuardPrependedHops(t *testing.T) {
	t.Parallel()
	t.Run("X-Forwarded-For", func(t *testing.T) {
		t.Parallel()
		p := serveInProcess(t, "--trusted-proxies", "127.0.0.2/32", "--rate-limit", "3", "--admin-listen", "")
		proxy := p.client(t, "127.0.0.2")
		plain := map[string]string{"X-Forwarded-For": "203.0.113.7"}
		prepended := map[string]string{"X-Forwarded-For": guardMadeUp(33, "192.0.2.%d") + "203.0.113.7"}
		guardSteps(t, proxy, []guardStep{
			{"203.0.113.7, 1st", plain, 200, 2},
			{"203.0.113.7, 2nd", plain, 200, 1},
			{"203.0.113.7, 3rd", plain, 200, 0},
			{"203.0.113.7, 4th", plain, 429, 0},
			{"33 hops in front of 203.0.113.7", prepended, 429, 0},
			{"1,000 hops in front of 203.0.113.7", map[string]string{"X-Forwarded-For": guardMadeUp(1000, "10.0.0.%d") + "203.0.113.7"}, 429, 0},
			{"junk in front of 203.0.113.7", map[string]string{"X-Forwarded-For": "junk,,unknown, 203.0.113.7"}, 429, 0},
			{"the proxy's own counter is untouched", nil, 200, 2},
		})
		guardLogCount(t, p, regexp.MustCompile(`client_ip=203\.0\.113\.7 method=GET route=parties `), 7, "requests logged under 203.0.113.7")
		guardLogCount(t, p, regexp.MustCompile(`client_ip=127\.0\.0\.2 `), 1, "requests logged under the proxy")
	})
	t.Run("Forwarded", func(t *testing.T) {
		t.Parallel()
		p := serveInProcess(t, "--trusted-proxies", "127.0.0.2/32", "--forwarded-header", "Forwarded", "--rate-limit", "3", "--admin-listen", "")
		proxy := p.client(t, "127.0.0.2")
		plain := map[string]string{"Forwarded": "for=203.0.113.7;proto=https"}
		guardSteps(t, proxy, []guardStep{
			{"203.0.113.7, 1st", plain, 200, 2},
			{"a malformed element in front of 203.0.113.7", map[string]string{"Forwarded": "proto=https;;, for=203.0.113.7"}, 200, 1},
			{"an unbalanced quote in front of 203.0.113.7", map[string]string{"Forwarded": `for="192.0.2.1, for=203.0.113.7`}, 200, 0},
			{"33 elements in front of 203.0.113.7", map[string]string{"Forwarded": guardMadeUp(33, "for=192.0.2.%d") + "for=203.0.113.7"}, 429, 0},
			// Hidden clients count apart from the proxy and share one
			// counter per identifier.
			{"unknown, 1st", map[string]string{"Forwarded": "for=unknown"}, 200, 2},
			{"unknown, 2nd", map[string]string{"Forwarded": "for=unknown"}, 200, 1},
			{"unknown, 3rd", map[string]string{"Forwarded": "for=203.0.113.8, for=unknown"}, 200, 0},
			{"unknown, 4th", map[string]string{"Forwarded": "for=unknown"}, 429, 0},
			{"_hidden has its own counter", map[string]string{"Forwarded": "for=_hidden"}, 200, 2},
			{"the proxy's own counter is untouched", nil, 200, 2},
		})
		guardLogCount(t, p, regexp.MustCompile(`client_ip=203\.0\.113\.7 `), 4, "requests logged under 203.0.113.7")
		guardLogCount(t, p, regexp.MustCompile(`client_ip=unknown@127\.0\.0\.2 `), 4, "requests logged as unknown behind the proxy")
		guardLogCount(t, p, regexp.MustCompile(`client_ip=_hidden@127\.0\.0\.2 `), 1, "requests logged as _hidden behind the proxy")
		guardLogCount(t, p, regexp.MustCompile(`client_ip=127\.0\.0\.2 `), 1, "requests logged under the proxy")
	})
}

// TestGuardMappedTrustedProxy: a proxy configured as an IPv4-mapped IPv6
// address is the IPv4 proxy, and mapped hops are the IPv4 clients, logged
// unmapped.
func TestGuardMappedTrustedProxy(t *testing.T) {
	t.Parallel()
	p := serveInProcess(t, "--trusted-proxies", "::ffff:127.0.0.2/128", "--rate-limit", "2", "--admin-listen", "")
	proxy := p.client(t, "127.0.0.2")
	guardSteps(t, proxy, []guardStep{
		{"203.0.113.7", map[string]string{"X-Forwarded-For": "203.0.113.7"}, 200, 1},
		{"203.0.113.7 written IPv4-mapped", map[string]string{"X-Forwarded-For": "::ffff:203.0.113.7"}, 200, 0},
		{"203.0.113.7 in brackets, mapped, then the proxy mapped", map[string]string{"X-Forwarded-For": "[::ffff:203.0.113.7], ::ffff:127.0.0.2"}, 429, 0},
		{"the proxy's own counter is untouched", nil, 200, 1},
	})
	guardLogCount(t, p, regexp.MustCompile(`client_ip=203\.0\.113\.7 `), 3, "requests logged under 203.0.113.7, unmapped")
	if strings.Contains(p.stderr.String(), "client_ip=::ffff:") {
		t.Error("the access log shows an IPv4-mapped address")
	}
}

// TestGuardAdminReloadAnswer: the admin listener does not share the public
// write timeout, so a reload that takes longer still gets its answer.
func TestGuardAdminReloadAnswer(t *testing.T) {
	t.Parallel()
	// Loading and preparing the embedded dataset takes far longer than
	// 1 ms: with the public timeout, the answer would be cut off.
	p := serveInProcess(t, "--write-timeout", "1ms", "--admin-listen", "127.0.0.1:0")
	admin := prodAdmin(t, p)
	hc := prodHTTP(t)
	r := prodDo(t, hc, http.MethodPost, "http://"+admin+"/reload", nil)
	v := prodJSON(t, r, http.StatusOK)
	if v["status"] != "reloaded" || !prodVersion.MatchString(fmt.Sprint(v["version"])) {
		t.Errorf("POST /reload: %s, want status reloaded and a version", r.body)
	}
	prodWaitLog(t, p, regexp.MustCompile(`msg="dataset reloaded"`), "the reload's log line")
}
