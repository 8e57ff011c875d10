package server_test

import (
	"fmt"
	"net/http"
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
	mapped := server.ClientIP{Trusted: []netip.Prefix{netip.MustParsePrefix("::ffff:10.0.0.0/104")}}
	mappedOne := server.ClientIP{Trusted: []netip.Prefix{netip.MustParsePrefix("::ffff:127.0.0.2/128")}}
	xff := func(v ...string) http.Header { return http.Header{"X-Forwarded-For": v} }
	fwd := func(v ...string) http.Header { return http.Header{"Forwarded": v} }
	// madeUp is n made-up hops a client writes in front of its own.
	madeUp := func(n int) string {
		var b strings.Builder
		for i := range n {
			fmt.Fprintf(&b, "192.0.2.%d, ", i%250+1)
		}
		return b.String()
	}
	tests := []struct {
		name   string
		c      server.ClientIP
		remote string
		header http.Header
		want   string
	}{
		{"no proxy trusted: the peer, whatever the headers", server.ClientIP{}, "203.0.113.9:5000", xff("198.51.100.1"), "203.0.113.9"},
		{"an untrusted peer's header is ignored", proxies, "203.0.113.9:5000", http.Header{"X-Forwarded-For": {"198.51.100.1"}, "Forwarded": {"for=198.51.100.2"}}, "203.0.113.9"},
		{"trusted proxy without a header", proxies, "10.1.2.3:5000", nil, "10.1.2.3"},
		{"trusted proxy: the forwarded client", proxies, "10.1.2.3:5000", xff("198.51.100.1"), "198.51.100.1"},
		{"right to left, skipping trusted hops", proxies, "10.1.2.3:5000", xff("192.0.2.66, 198.51.100.1, 10.9.9.9"), "198.51.100.1"},
		{"a forged leftmost entry is not believed", proxies, "10.1.2.3:5000", xff("1.2.3.4, 198.51.100.1"), "198.51.100.1"},
		{"several X-Forwarded-For headers are one list", proxies, "10.1.2.3:5000", xff("198.51.100.1", "10.9.9.9"), "198.51.100.1"},
		{"every hop trusted: the farthest", proxies, "10.1.2.3:5000", xff("10.0.0.1, 10.0.0.2"), "10.0.0.1"},
		{"a port on a hop", proxies, "10.1.2.3:5000", xff("198.51.100.1:4711"), "198.51.100.1"},
		{"IPv6 hop", proxies, "10.1.2.3:5000", xff("2001:db8:1::7"), "2001:db8:1::7"},
		{"IPv4-mapped hop", proxies, "10.1.2.3:5000", xff("::ffff:198.51.100.1"), "198.51.100.1"},
		{"IPv4-mapped hop in brackets", proxies, "10.1.2.3:5000", xff("[::ffff:198.51.100.1]"), "198.51.100.1"},
		{"IPv4-mapped trusted hop is skipped", proxies, "10.1.2.3:5000", xff("198.51.100.1, ::ffff:10.9.9.9"), "198.51.100.1"},
		{"IPv6 proxy", proxies, "[2001:db8:ffff::1]:443", xff("198.51.100.1"), "198.51.100.1"},
		{"IPv4-mapped peer", proxies, "[::ffff:10.1.2.3]:5000", xff("198.51.100.1"), "198.51.100.1"},
		{"a proxy range written IPv4-mapped", mapped, "10.1.2.3:5000", xff("198.51.100.1"), "198.51.100.1"},
		{"a proxy written IPv4-mapped", mappedOne, "127.0.0.2:5000", xff("203.0.113.7"), "203.0.113.7"},
		{"a proxy written IPv4-mapped, another peer", mappedOne, "127.0.0.3:5000", xff("203.0.113.7"), "127.0.0.3"},
		{"Forwarded", rfc7239, "10.1.2.3:5000", fwd(`for=192.0.2.60;proto=http;by=203.0.113.43`), "192.0.2.60"},
		{"Forwarded, quoted IPv6 with port", rfc7239, "10.1.2.3:5000", fwd(`for="[2001:db8:cafe::17]:4711"`), "2001:db8:cafe::17"},
		{"Forwarded, quoted IPv4-mapped", rfc7239, "10.1.2.3:5000", fwd(`for="[::ffff:198.51.100.17]:80"`), "198.51.100.17"},
		{"Forwarded, several elements", rfc7239, "10.1.2.3:5000", fwd(`for=192.0.2.43, for=198.51.100.17;by=10.1.2.3`), "198.51.100.17"},
		{"Forwarded, a comma in a quoted value", rfc7239, "10.1.2.3:5000", fwd(`for=198.51.100.17;host="a,b"`), "198.51.100.17"},
		{"Forwarded, a semicolon in a quoted value", rfc7239, "10.1.2.3:5000", fwd(`host="a;for=1.2.3.4";for=198.51.100.17`), "198.51.100.17"},
		{"Forwarded, several headers", rfc7239, "10.1.2.3:5000", fwd("for=192.0.2.43", "for=198.51.100.17"), "198.51.100.17"},
		{"only the configured header is read: X-Forwarded-For", proxies, "10.1.2.3:5000", http.Header{"Forwarded": {"for=192.0.2.60"}, "X-Forwarded-For": {"198.51.100.1"}}, "198.51.100.1"},
		{"only the configured header is read: Forwarded", rfc7239, "10.1.2.3:5000", http.Header{"Forwarded": {"for=192.0.2.60"}, "X-Forwarded-For": {"198.51.100.1"}}, "192.0.2.60"},
		{"a client's own Forwarded is not believed when the proxy writes X-Forwarded-For", proxies, "10.1.2.3:5000", fwd("for=9.9.9.9"), "10.1.2.3"},
		{"a client's own X-Forwarded-For is not believed when the proxy writes Forwarded", rfc7239, "10.1.2.3:5000", xff("9.9.9.9"), "10.1.2.3"},

		// Whatever the client writes in front of the hops the proxies
		// wrote is never read.
		{"33 made-up hops in front of the client", proxies, "10.1.2.3:5000", xff(madeUp(33) + "203.0.113.7"), "203.0.113.7"},
		{"10,000 made-up hops in front of the client", proxies, "10.1.2.3:5000", xff(madeUp(10_000) + "203.0.113.7, 10.0.0.9"), "203.0.113.7"},
		{"made-up trusted hops in front of the client", proxies, "10.1.2.3:5000", xff(strings.Repeat("10.0.0.1, ", 40) + "198.51.100.1"), "198.51.100.1"},
		{"a malformed hop in front of the client", proxies, "10.1.2.3:5000", xff("junk, 198.51.100.1"), "198.51.100.1"},
		{"unknown in front of the client", proxies, "10.1.2.3:5000", xff("unknown, 198.51.100.1"), "198.51.100.1"},
		{"a made-up header line in front of the client", proxies, "10.1.2.3:5000", xff("junk,,", "198.51.100.1"), "198.51.100.1"},
		{"Forwarded: a malformed element in front of the client", rfc7239, "10.1.2.3:5000", fwd(`proto=https;;, for=a;for=b, for=198.51.100.1`), "198.51.100.1"},
		{"Forwarded: an unbalanced quote in front of the client", rfc7239, "10.1.2.3:5000", fwd(`for="192.0.2.1, for=198.51.100.1`), "198.51.100.1"},
		{"Forwarded: an escaped quote in front of the client", rfc7239, "10.1.2.3:5000", fwd(`for="\"", for=198.51.100.1`), "198.51.100.1"},
		{"Forwarded: made-up hops in front of the client", rfc7239, "10.1.2.3:5000", fwd(strings.Repeat("for=192.0.2.1, ", 100) + "for=198.51.100.1"), "198.51.100.1"},
		{"Forwarded: a hidden hop in front of the client", rfc7239, "10.1.2.3:5000", fwd("for=_hidden, for=198.51.100.10"), "198.51.100.10"},

		// A hop a trusted proxy wrote that is not an address: a client
		// hidden behind that proxy, never the proxy itself.
		{"Forwarded: unknown", rfc7239, "10.1.2.3:5000", fwd("for=unknown"), "unknown@10.1.2.3"},
		{"Forwarded: UNKNOWN", rfc7239, "10.1.2.3:5000", fwd(`for="UNKNOWN:8080"`), "unknown@10.1.2.3"},
		{"Forwarded: an obfuscated identifier", rfc7239, "10.1.2.3:5000", fwd("for=198.51.100.10, for=_hidden"), "_hidden@10.1.2.3"},
		{"Forwarded: an obfuscated identifier and port", rfc7239, "10.1.2.3:5000", fwd(`for="_x.9-Z:_p1"`), "_x.9-Z@10.1.2.3"},
		{"Forwarded: hidden by the second proxy", rfc7239, "10.1.2.3:5000", fwd("for=_abc, for=10.7.7.7"), "_abc@10.7.7.7"},
		{"Forwarded: not an obfuscated identifier", rfc7239, "10.1.2.3:5000", fwd("for=_a!b"), "invalid@10.1.2.3"},
		{"Forwarded: a bad port", rfc7239, "10.1.2.3:5000", fwd(`for="_a:123456"`), "invalid@10.1.2.3"},
		{"Forwarded: an element without for", rfc7239, "10.1.2.3:5000", fwd("proto=https"), "invalid@10.1.2.3"},
		{"Forwarded: an element with two for", rfc7239, "10.1.2.3:5000", fwd("for=192.0.2.1;for=192.0.2.2"), "invalid@10.1.2.3"},
		{"X-Forwarded-For: unknown", proxies, "10.1.2.3:5000", xff("198.51.100.1, unknown"), "unknown@10.1.2.3"},
		{"X-Forwarded-For: an obfuscated identifier", proxies, "10.1.2.3:5000", xff("_hidden"), "_hidden@10.1.2.3"},
		{"X-Forwarded-For: not an address", proxies, "10.1.2.3:5000", xff("198.51.100.1, not-an-ip"), "invalid@10.1.2.3"},
		{"X-Forwarded-For: an empty hop", proxies, "10.1.2.3:5000", xff("198.51.100.1,,"), "invalid@10.1.2.3"},
		{"X-Forwarded-For: an empty header", proxies, "10.1.2.3:5000", xff(""), "invalid@10.1.2.3"},
		{"X-Forwarded-For: a zone is not an address", proxies, "10.1.2.3:5000", xff("fe80::1%eth0"), "invalid@10.1.2.3"},
		{"X-Forwarded-For: hidden by the second proxy", proxies, "10.1.2.3:5000", xff("198.51.100.1, unknown, 10.7.7.7"), "unknown@10.7.7.7"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := httptest.NewRequest("GET", "/", nil)
			r.RemoteAddr = tt.remote
			r.Header = tt.header
			if r.Header == nil {
				r.Header = http.Header{}
			}
			if got := tt.c.Resolve(r); got.String() != tt.want {
				t.Errorf("Resolve = %s, want %s", got, tt.want)
			}
		})
	}
}

// TestHiddenClientCounters follows the counters of clients a trusted proxy
// does not name: they never share the proxy's own counter nor a named
// client's, and clients the proxy tells apart by obfuscated identifiers
// keep apart.
func TestHiddenClientCounters(t *testing.T) {
	s, _ := newServer(t, server.Options{
		RateLimit: 2,
		ClientIP:  server.ClientIP{Trusted: []netip.Prefix{netip.MustParsePrefix("10.0.0.0/8")}, Header: "Forwarded"},
	})
	const proxy = "10.1.2.3:5000"
	steps := []struct {
		what, remote, forwarded string
		status                  int
		remaining               string
	}{
		{"unknown, 1st", proxy, "for=unknown", 200, "1"},
		{"unknown, 2nd", proxy, "for=unknown", 200, "0"},
		{"unknown, 3rd", proxy, `for="unknown:4711"`, 429, "0"},
		{"the proxy's own requests are not charged for the unknown ones", proxy, "", 200, "1"},
		{"a named client is not charged for them either", proxy, "for=198.51.100.1", 200, "1"},
		{"an obfuscated client has its own counter", proxy, "for=_a", 200, "1"},
		{"another obfuscated client has its own counter", proxy, "for=_b", 200, "1"},
		{"the first obfuscated client again", proxy, "for=_a", 200, "0"},
		{"a malformed hop: one more counter", proxy, "for=a;for=b", 200, "1"},
		{"another malformed hop shares it", proxy, "proto=https", 200, "0"},
		{"the proxy's own requests still have theirs", proxy, "", 200, "0"},
		{"unknown behind another proxy has its own counter", "10.9.9.9:5000", "for=unknown", 200, "1"},
		{"a client prepending hops to unknown is still unknown", proxy, "for=198.51.100.77, for=unknown", 429, "0"},
	}
	for _, st := range steps {
		q := request{target: "/api/public/v1/parties", remote: st.remote}
		if st.forwarded != "" {
			q.header = map[string]string{"Forwarded": st.forwarded}
		}
		rec := do(t, s, q)
		if rec.Code != st.status || rec.Header().Get("X-RateLimit-Remaining") != st.remaining {
			t.Errorf("%s: status %d, X-RateLimit-Remaining %q; want %d, %q", st.what, rec.Code, rec.Header().Get("X-RateLimit-Remaining"), st.status, st.remaining)
		}
	}
}

// FuzzClientIP feeds arbitrary X-Forwarded-For headers from a trusted proxy
// and compares the answer with a plain model of the rule: read right to
// left; skip trusted hops; the first other address is the client; a hop
// that is not an address on the way hides the client behind the proxy
// that wrote it.
func FuzzClientIP(f *testing.F) {
	for _, seed := range []string{
		"198.51.100.1",
		"1.2.3.4, 198.51.100.1, 10.0.0.9",
		"::ffff:1.2.3.4",
		"[2001:db8::1]:80",
		",,,",
		"10.0.0.1, 10.0.0.2",
		"junk, 198.51.100.1",
		"198.51.100.1, unknown, 10.0.0.9",
	} {
		f.Add(seed)
	}
	trusted := netip.MustParsePrefix("10.0.0.0/8")
	c := server.ClientIP{Trusted: []netip.Prefix{trusted}}
	peer := netip.MustParseAddr("10.1.2.3")
	model := func(xff string) (netip.Addr, bool) {
		hops := strings.Split(xff, ",")
		client := peer
		for i := len(hops) - 1; i >= 0; i-- {
			hop := strings.TrimSpace(hops[i])
			a, err := netip.ParseAddr(hop)
			if err != nil {
				ap, err2 := netip.ParseAddrPort(hop)
				if err2 != nil {
					return client, true
				}
				a = ap.Addr()
			}
			if a.Zone() != "" {
				return client, true
			}
			a = a.Unmap()
			if !trusted.Contains(a) {
				return a, false
			}
			client = a
		}
		return client, false
	}
	f.Fuzz(func(t *testing.T, xff string) {
		r := httptest.NewRequest("GET", "/", nil)
		r.RemoteAddr = "10.1.2.3:5000"
		r.Header.Set("X-Forwarded-For", xff)
		got := c.Resolve(r)
		if !got.Addr.IsValid() {
			t.Fatalf("X-Forwarded-For %q: no address", xff)
		}
		if strings.ContainsAny(xff, "[]\"") {
			return // bracketed and quoted forms are the parser's own extension
		}
		want, hidden := model(xff)
		if got.Addr != want || (got.Hidden != "") != hidden {
			t.Fatalf("X-Forwarded-For %q: client %s, want %s (hidden: %v)", xff, got, want, hidden)
		}
	})
}

// FuzzForwardingPrepend checks the rule that keeps a client behind trusted
// proxies from choosing its counter, for both headers: whatever the client
// writes in front of the hops the proxies append, the request is counted
// under the same client. The client's own text is arbitrary; the proxies
// (a first one at the address the fuzzer picks, up to seven trusted ones
// behind it) append what real proxies write: the client's address, or an
// obfuscated identifier, as an X-Forwarded-For entry or a Forwarded
// element, on the client's header line or on a line of their own.
func FuzzForwardingPrepend(f *testing.F) {
	f.Add("", []byte{203, 0, 113, 7}, uint8(0), uint8(0))
	f.Add(strings.Repeat("192.0.2.1, ", 40), []byte{203, 0, 113, 7}, uint8(2), uint8(0))
	f.Add(`for="192.0.2.1, for=_x;;`, []byte{0x20, 0x01, 0x0d, 0xb8, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1}, uint8(1), uint8(1))
	f.Add(`junk"\`, []byte{198, 51, 100, 1}, uint8(3), uint8(7))
	trusted := []netip.Prefix{netip.MustParsePrefix("10.0.0.0/8"), netip.MustParsePrefix("::ffff:172.16.0.0/108")}
	f.Fuzz(func(t *testing.T, written string, client []byte, proxies, mode uint8) {
		forwarded, ownLine, hidden := mode&1 != 0, mode&2 != 0, mode&4 != 0
		c := server.ClientIP{Trusted: trusted}
		if forwarded {
			c.Header = "Forwarded"
		}
		addr, ok := netip.AddrFromSlice(client)
		if !ok {
			return
		}
		addr = addr.Unmap()
		if addr.Is4() && (addr.As4()[0] == 10 || addr.As4()[0] == 172 && addr.As4()[1]&0xf0 == 16) {
			return // a trusted address: the walk goes on, as it should
		}
		// The proxies, farthest first: each appends the address of its
		// peer, and the nearest is the server's peer. The farthest writes
		// the client's address, or hides it behind a token.
		first := fmt.Sprintf("10.%d.%d.%d", proxies, mode, len(client))
		chain := []string{first}
		for i := range int(proxies % 8) {
			chain = append(chain, fmt.Sprintf("::ffff:172.16.0.%d", i))
		}
		want := addr.String()
		clientHop := addr.String()
		switch {
		case hidden:
			clientHop = fmt.Sprintf("_%x", client)
			want = clientHop + "@" + first
		case forwarded && addr.Is6():
			clientHop = `"[` + addr.String() + `]:4711"`
		}
		hops := append([]string{clientHop}, chain[:len(chain)-1]...)
		nearest := netip.MustParseAddr(chain[len(chain)-1])
		for i, h := range hops {
			if forwarded {
				if strings.Contains(h, ":") && !strings.HasPrefix(h, `"`) {
					h = `"[` + h + `]"`
				}
				hops[i] = "for=" + h + ";proto=https"
			}
		}
		appended := strings.Join(hops, ", ")
		header := []string{written + ", " + appended}
		if ownLine {
			header = []string{written, appended}
		}
		name := "X-Forwarded-For"
		if forwarded {
			name = "Forwarded"
		}
		r := &http.Request{RemoteAddr: netip.AddrPortFrom(nearest, 443).String(), Header: http.Header{name: header}}
		if got := c.Resolve(r).String(); got != want {
			t.Fatalf("%s: %q from %s: client %s, want %s", name, header, nearest, got, want)
		}
	})
}
