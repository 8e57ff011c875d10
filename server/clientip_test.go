package server_test

import (
	"net/http/httptest"
	"net/netip"
	"strings"
	"testing"
	"unicode"

	"ballot/server"
)

func TestClientIP(t *testing.T) {
	proxies := server.ClientIP{Trusted: []netip.Prefix{
		netip.MustParsePrefix("10.0.0.0/8"),
		netip.MustParsePrefix("2001:db8:ffff::/48"),
	}}
	tests := []struct {
		name   string
		c      server.ClientIP
		remote string
		header map[string]string
		want   string
	}{
		{"no proxy trusted: the peer, whatever the headers", server.ClientIP{}, "203.0.113.9:5000", map[string]string{"X-Forwarded-For": "198.51.100.1"}, "203.0.113.9"},
		{"an untrusted peer's header is ignored", proxies, "203.0.113.9:5000", map[string]string{"X-Forwarded-For": "198.51.100.1", "Forwarded": "for=198.51.100.2"}, "203.0.113.9"},
		{"trusted proxy without a header", proxies, "10.1.2.3:5000", nil, "10.1.2.3"},
		{"trusted proxy: the forwarded client", proxies, "10.1.2.3:5000", map[string]string{"X-Forwarded-For": "198.51.100.1"}, "198.51.100.1"},
		{"right to left, skipping trusted hops", proxies, "10.1.2.3:5000", map[string]string{"X-Forwarded-For": "192.0.2.66, 198.51.100.1, 10.9.9.9"}, "198.51.100.1"},
		{"a forged leftmost entry is not believed", proxies, "10.1.2.3:5000", map[string]string{"X-Forwarded-For": "1.2.3.4, 198.51.100.1"}, "198.51.100.1"},
		{"several X-Forwarded-For headers are one list", proxies, "10.1.2.3:5000", map[string]string{"X-Forwarded-For": "198.51.100.1"}, "198.51.100.1"},
		{"every hop trusted: the farthest", proxies, "10.1.2.3:5000", map[string]string{"X-Forwarded-For": "10.0.0.1, 10.0.0.2"}, "10.0.0.1"},
		{"a port on a hop", proxies, "10.1.2.3:5000", map[string]string{"X-Forwarded-For": "198.51.100.1:4711"}, "198.51.100.1"},
		{"IPv6 hop", proxies, "10.1.2.3:5000", map[string]string{"X-Forwarded-For": "2001:db8:1::7"}, "2001:db8:1::7"},
		{"IPv4-mapped hop", proxies, "10.1.2.3:5000", map[string]string{"X-Forwarded-For": "::ffff:198.51.100.1"}, "198.51.100.1"},
		{"IPv6 proxy", proxies, "[2001:db8:ffff::1]:443", map[string]string{"X-Forwarded-For": "198.51.100.1"}, "198.51.100.1"},
		{"Forwarded", proxies, "10.1.2.3:5000", map[string]string{"Forwarded": `for=192.0.2.60;proto=http;by=203.0.113.43`}, "192.0.2.60"},
		{"Forwarded, quoted IPv6 with port", proxies, "10.1.2.3:5000", map[string]string{"Forwarded": `for="[2001:db8:cafe::17]:4711"`}, "2001:db8:cafe::17"},
		{"Forwarded, several elements", proxies, "10.1.2.3:5000", map[string]string{"Forwarded": `for=192.0.2.43, for=198.51.100.17;by=10.1.2.3`}, "198.51.100.17"},
		{"Forwarded wins over X-Forwarded-For", proxies, "10.1.2.3:5000", map[string]string{"Forwarded": "for=192.0.2.60", "X-Forwarded-For": "198.51.100.1"}, "192.0.2.60"},
		{"malformed X-Forwarded-For: the peer", proxies, "10.1.2.3:5000", map[string]string{"X-Forwarded-For": "198.51.100.1, not-an-ip"}, "10.1.2.3"},
		{"empty hop: the peer", proxies, "10.1.2.3:5000", map[string]string{"X-Forwarded-For": "198.51.100.1,,"}, "10.1.2.3"},
		{"obfuscated Forwarded hop: the peer", proxies, "10.1.2.3:5000", map[string]string{"Forwarded": "for=unknown"}, "10.1.2.3"},
		{"Forwarded element without for: the peer", proxies, "10.1.2.3:5000", map[string]string{"Forwarded": "proto=https"}, "10.1.2.3"},
		{"Forwarded with two for: the peer", proxies, "10.1.2.3:5000", map[string]string{"Forwarded": "for=192.0.2.1;for=192.0.2.2"}, "10.1.2.3"},
		{"a zone is not an address: the peer", proxies, "10.1.2.3:5000", map[string]string{"X-Forwarded-For": "fe80::1%eth0"}, "10.1.2.3"},
		{"too many hops: the peer", proxies, "10.1.2.3:5000", map[string]string{"X-Forwarded-For": strings.Repeat("10.0.0.1, ", 40) + "198.51.100.1"}, "10.1.2.3"},
		{"a malformed hop beyond the client is not read", proxies, "10.1.2.3:5000", map[string]string{"X-Forwarded-For": "junk, 198.51.100.1"}, "198.51.100.1"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := httptest.NewRequest("GET", "/", nil)
			r.RemoteAddr = tt.remote
			for k, v := range tt.header {
				r.Header.Set(k, v)
			}
			if got := tt.c.Resolve(r); got.String() != tt.want {
				t.Errorf("Resolve = %s, want %s", got, tt.want)
			}
		})
	}
}

// FuzzClientIP feeds arbitrary forwarding headers from a trusted proxy:
// the answer is always the peer or an address that is in the header, never
// a trusted hop when an untrusted one is nearer, and never a panic.
func FuzzClientIP(f *testing.F) {
	for _, seed := range [][2]string{
		{"198.51.100.1", ""},
		{"1.2.3.4, 198.51.100.1, 10.0.0.9", ""},
		{"", `for="[2001:db8:cafe::17]:4711";proto=https`},
		{"", "for=unknown, for=192.0.2.1"},
		{"::ffff:1.2.3.4", "for=_hidden"},
		{"[2001:db8::1]:80", `for="`},
		{",,,", "for=;for="},
	} {
		f.Add(seed[0], seed[1])
	}
	c := server.ClientIP{Trusted: []netip.Prefix{netip.MustParsePrefix("10.0.0.0/8")}}
	f.Fuzz(func(t *testing.T, xff, fwd string) {
		r := httptest.NewRequest("GET", "/", nil)
		r.RemoteAddr = "10.1.2.3:5000"
		if xff != "" {
			r.Header.Set("X-Forwarded-For", xff)
		}
		if fwd != "" {
			r.Header.Set("Forwarded", fwd)
		}
		got := c.Resolve(r)
		if !got.IsValid() {
			t.Fatalf("no address for X-Forwarded-For %q, Forwarded %q", xff, fwd)
		}
		if got == netip.MustParseAddr("10.1.2.3") {
			return
		}
		// Any other answer is an address written in one of the headers.
		for _, tok := range strings.FieldsFunc(xff+","+fwd, func(r rune) bool { return strings.ContainsRune(",;=\"", r) || unicode.IsSpace(r) }) {
			if a, err := netip.ParseAddr(tok); err == nil && a.Unmap() == got {
				return
			}
			if ap, err := netip.ParseAddrPort(tok); err == nil && ap.Addr().Unmap() == got {
				return
			}
			if a, err := netip.ParseAddr(strings.Trim(tok, "[]")); err == nil && a.Unmap() == got {
				return
			}
		}
		t.Fatalf("%s is neither the peer nor an address in X-Forwarded-For %q, Forwarded %q", got, xff, fwd)
	})
}
