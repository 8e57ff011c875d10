package server_test

import (
	"net/http/httptest"
	"net/netip"
	"strings"
	"testing"

	"ballot/server"
)

func TestClientIP(t *testing.T) {
	trusted := []netip.Prefix{
		netip.MustParsePrefix("10.0.0.0/8"),
		netip.MustParsePrefix("2001:db8:ffff::/48"),
	}
	proxies := server.ClientIP{Trusted: trusted}
	rfc7239 := server.ClientIP{Trusted: trusted, Header: "Forwarded"}
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
		{"Forwarded", rfc7239, "10.1.2.3:5000", map[string]string{"Forwarded": `for=192.0.2.60;proto=http;by=203.0.113.43`}, "192.0.2.60"},
		{"Forwarded, quoted IPv6 with port", rfc7239, "10.1.2.3:5000", map[string]string{"Forwarded": `for="[2001:db8:cafe::17]:4711"`}, "2001:db8:cafe::17"},
		{"Forwarded, several elements", rfc7239, "10.1.2.3:5000", map[string]string{"Forwarded": `for=192.0.2.43, for=198.51.100.17;by=10.1.2.3`}, "198.51.100.17"},
		{"only the configured header is read: X-Forwarded-For", proxies, "10.1.2.3:5000", map[string]string{"Forwarded": "for=192.0.2.60", "X-Forwarded-For": "198.51.100.1"}, "198.51.100.1"},
		{"only the configured header is read: Forwarded", rfc7239, "10.1.2.3:5000", map[string]string{"Forwarded": "for=192.0.2.60", "X-Forwarded-For": "198.51.100.1"}, "192.0.2.60"},
		{"a client's own Forwarded is not believed when the proxy writes X-Forwarded-For", proxies, "10.1.2.3:5000", map[string]string{"Forwarded": "for=9.9.9.9"}, "10.1.2.3"},
		{"a client's own X-Forwarded-For is not believed when the proxy writes Forwarded", rfc7239, "10.1.2.3:5000", map[string]string{"X-Forwarded-For": "9.9.9.9"}, "10.1.2.3"},
		{"malformed X-Forwarded-For: the peer", proxies, "10.1.2.3:5000", map[string]string{"X-Forwarded-For": "198.51.100.1, not-an-ip"}, "10.1.2.3"},
		{"empty hop: the peer", proxies, "10.1.2.3:5000", map[string]string{"X-Forwarded-For": "198.51.100.1,,"}, "10.1.2.3"},
		{"obfuscated Forwarded hop: the peer", rfc7239, "10.1.2.3:5000", map[string]string{"Forwarded": "for=unknown"}, "10.1.2.3"},
		{"Forwarded element without for: the peer", rfc7239, "10.1.2.3:5000", map[string]string{"Forwarded": "proto=https"}, "10.1.2.3"},
		{"Forwarded with two for: the peer", rfc7239, "10.1.2.3:5000", map[string]string{"Forwarded": "for=192.0.2.1;for=192.0.2.2"}, "10.1.2.3"},
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

// FuzzClientIP feeds arbitrary X-Forwarded-For headers from a trusted proxy
// and compares the answer with a plain model of the rule: read right to
// left, skip trusted hops, the first other hop is the client, and any hop
// that is not an address on the way makes it the peer.
func FuzzClientIP(f *testing.F) {
	for _, seed := range []string{
		"198.51.100.1",
		"1.2.3.4, 198.51.100.1, 10.0.0.9",
		"::ffff:1.2.3.4",
		"[2001:db8::1]:80",
		",,,",
		"10.0.0.1, 10.0.0.2",
		"junk, 198.51.100.1",
	} {
		f.Add(seed)
	}
	trusted := netip.MustParsePrefix("10.0.0.0/8")
	c := server.ClientIP{Trusted: []netip.Prefix{trusted}}
	peer := netip.MustParseAddr("10.1.2.3")
	model := func(xff string) netip.Addr {
		hops := strings.Split(xff, ",")
		if len(hops) > 32 {
			return peer
		}
		client := peer
		for i := len(hops) - 1; i >= 0; i-- {
			hop := strings.TrimSpace(hops[i])
			a, err := netip.ParseAddr(hop)
			if err != nil {
				ap, err2 := netip.ParseAddrPort(hop)
				if err2 != nil {
					return peer
				}
				a = ap.Addr()
			}
			if a.Zone() != "" {
				return peer
			}
			client = a.Unmap()
			if !trusted.Contains(client) {
				return client
			}
		}
		return client
	}
	f.Fuzz(func(t *testing.T, xff string) {
		r := httptest.NewRequest("GET", "/", nil)
		r.RemoteAddr = "10.1.2.3:5000"
		r.Header.Set("X-Forwarded-For", xff)
		got, want := c.Resolve(r), model(xff)
		if xff == "" || strings.ContainsAny(xff, "[]\"") {
			// Bracketed and quoted forms are the parser's own extension.
			if !got.IsValid() {
				t.Fatalf("no address for %q", xff)
			}
			return
		}
		if got != want {
			t.Fatalf("X-Forwarded-For %q: client %s, want %s", xff, got, want)
		}
	})
}
