package server

import (
	"crypto/sha256"
	"net/http"
	"net/netip"
	"strings"

	"ballot/server/ratelimit"
)

// ClientIP resolves whom a request is counted and logged under. It is the
// TCP peer's address, unless the peer is a trusted proxy: only then is the
// forwarding header read, right to left, and only as far as the hops trusted
// proxies wrote. Everything left of the first untrusted hop was written by
// the client or by proxies nobody vouches for, so it is never parsed: a
// client cannot choose its counter by sending a header. Home-made:
// gorilla/handlers' ProxyHeaders believes those headers from any peer.
type ClientIP struct {
	// Trusted are the proxies whose forwarding header is believed. An
	// IPv4-mapped IPv6 range (::ffff:10.0.0.0/104) matches the IPv4
	// addresses it maps.
	Trusted []netip.Prefix
	// Header is the one header the proxies write: "X-Forwarded-For" (the
	// default) or "Forwarded" (RFC 7239). Only that one is read: a proxy
	// appends to its own header and passes the other through as the
	// client sent it, so reading both would let a client choose.
	Header string
}

// Client is whom a request is counted and logged under: an address, or a
// client a trusted proxy did not name.
type Client struct {
	// Addr is the client's address, IPv4-mapped IPv6 unmapped. For a
	// client a trusted proxy did not name, it is that proxy's address.
	Addr netip.Addr
	// Hidden is empty for a client known by its address. Otherwise the
	// proxy at Addr wrote a hop that is not an address, and Hidden is what
	// it wrote instead: "unknown", an RFC 7239 obfuscated identifier such
	// as "_hidden", or "invalid" for anything else.
	Hidden string
}

// String is the client as the access log shows it: the address, or
// "_hidden@10.0.0.5" for a client the proxy 10.0.0.5 did not name.
func (c Client) String() string {
	if c.Hidden == "" {
		return c.Addr.String()
	}
	return c.Hidden + "@" + c.Addr.String()
}

// hiddenBucket marks the counters of clients a proxy did not name. The
// route buckets are small numbers, so these keys can never be an
// address's: such a client neither shares nor uses up its proxy's own
// counter, nor anyone else's.
const hiddenBucket = 0x80

// key is the rate-limit counter of c for bucket b. A hidden client's is
// derived from its proxy and what the proxy wrote, so clients a proxy tells
// apart by obfuscated identifiers keep apart, and those it calls "unknown"
// share one counter, as the proxy chose.
func (c Client) key(ipv6Prefix int, b uint8) ratelimit.Key {
	if c.Hidden == "" {
		return ratelimit.KeyFor(c.Addr, ipv6Prefix, b)
	}
	proxy := c.Addr.As16()
	sum := sha256.Sum256(append(proxy[:], c.Hidden...))
	k := ratelimit.Key{Bucket: b | hiddenBucket}
	copy(k.Addr[:], sum[:])
	return k
}

// Resolve returns the client of r. From the right, each hop a trusted
// proxy wrote is read: the first address that is not a trusted proxy's is
// the client; when every hop is trusted, the farthest one is. A hop a
// trusted proxy wrote that is not an address (for=unknown, for=_hidden, an
// empty or malformed entry) makes the client a hidden one of that proxy.
// Nothing further left is looked at, however long the header.
func (c ClientIP) Resolve(r *http.Request) Client {
	return c.resolve(r, connectionOf(r))
}

// resolve is Resolve with the connection r came on, nil if unknown, whose
// peer was parsed when it was accepted.
func (c ClientIP) resolve(r *http.Request, conn *connection) Client {
	var peer netip.Addr
	if conn != nil {
		peer = conn.peer
	} else {
		peer = peerAddr(r.RemoteAddr)
	}
	if len(c.Trusted) == 0 || !c.trusted(peer) {
		return Client{Addr: peer}
	}
	forwarded := strings.EqualFold(c.Header, "Forwarded")
	name := "X-Forwarded-For"
	if forwarded {
		name = "Forwarded"
	}
	values := r.Header.Values(name)
	proxy := peer // the trusted proxy that wrote the next hop read
	for i := len(values) - 1; i >= 0; i-- {
		rest := values[i]
		for more := true; more; {
			var el string
			el, rest, more = lastElement(rest, forwarded)
			hop := el
			if forwarded {
				var ok bool
				if hop, ok = forwardedFor(el); !ok {
					return Client{Addr: proxy, Hidden: "invalid"}
				}
			}
			addr, hidden := parseHop(hop)
			if hidden != "" {
				return Client{Addr: proxy, Hidden: hidden}
			}
			if !c.trusted(addr) {
				return Client{Addr: addr}
			}
			proxy = addr
		}
	}
	return Client{Addr: proxy} // no header, or every hop trusted
}

func (c ClientIP) trusted(a netip.Addr) bool {
	var mapped netip.Addr // a as an IPv4-mapped IPv6 address, if IPv4
	if a.Is4() {
		mapped = netip.AddrFrom16(a.As16())
	}
	for _, p := range c.Trusted {
		if p.Contains(a) || mapped.IsValid() && p.Contains(mapped) {
			return true
		}
	}
	return false
}

// peerAddr is the address of a "host:port" RemoteAddr, IPv4-mapped IPv6
// unmapped.
func peerAddr(remote string) netip.Addr {
	ap, err := netip.ParseAddrPort(remote)
	if err != nil {
		return netip.Addr{}
	}
	return ap.Addr().Unmap()
}

// lastElement splits the last element off a comma-separated header value,
// trimmed, and reports whether s had more before it. In a Forwarded header
// a comma inside a quoted string does not separate elements; quotes are
// paired from the right, where the trusted proxies wrote, so an unbalanced
// quote further left cannot change how their elements are read.
func lastElement(s string, quoted bool) (el, rest string, more bool) {
	inQuote := false
	for i := len(s) - 1; i >= 0; i-- {
		switch s[i] {
		case '"':
			if !inQuote || !escaped(s, i) {
				inQuote = !inQuote
			}
		case ',':
			if !quoted || !inQuote {
				return strings.TrimSpace(s[i+1:]), s[:i], true
			}
		}
	}
	return strings.TrimSpace(s), "", false
}

// escaped reports whether s[i] is preceded by an odd number of
// backslashes: inside a quoted string it is then a quoted-pair.
func escaped(s string, i int) bool {
	n := 0
	for i--; i >= 0 && s[i] == '\\'; i-- {
		n++
	}
	return n%2 == 1
}

// forwardedFor returns the for= value of one Forwarded element. An element
// with no for= or with two has no hop that can be believed.
func forwardedFor(el string) (string, bool) {
	var value string
	found := false
	for el != "" {
		var pair string
		pair, el = firstPair(el)
		name, v, _ := strings.Cut(strings.TrimSpace(pair), "=")
		if strings.EqualFold(name, "for") {
			if found {
				return "", false
			}
			value, found = v, true
		}
	}
	return value, found
}

// firstPair splits a Forwarded element at its first semicolon outside a
// quoted string.
func firstPair(el string) (pair, rest string) {
	inQuote := false
	for i := 0; i < len(el); i++ {
		switch el[i] {
		case '\\':
			if inQuote {
				i++
			}
		case '"':
			inQuote = !inQuote
		case ';':
			if !inQuote {
				return el[:i], el[i+1:]
			}
		}
	}
	return el, ""
}

// parseHop parses one hop: an IP address, optionally quoted, optionally
// with a port ("192.0.2.1:8080", "[2001:db8::1]:443"). A hop that is not an
// address gives what the client is hidden behind instead: "unknown" or an
// obfuscated identifier (RFC 7239, section 6), else "invalid".
func parseHop(s string) (addr netip.Addr, hidden string) {
	if len(s) >= 2 && s[0] == '"' && s[len(s)-1] == '"' {
		s = s[1 : len(s)-1]
	}
	if a, err := netip.ParseAddr(s); err == nil && a.Zone() == "" {
		return a.Unmap(), ""
	}
	if ap, err := netip.ParseAddrPort(s); err == nil && ap.Addr().Zone() == "" {
		return ap.Addr().Unmap(), ""
	}
	if len(s) >= 2 && s[0] == '[' && s[len(s)-1] == ']' { // "[2001:db8::1]"
		if a, err := netip.ParseAddr(s[1 : len(s)-1]); err == nil && a.Is6() && a.Zone() == "" {
			return a.Unmap(), ""
		}
	}
	node, port, hasPort := strings.Cut(s, ":")
	if hasPort && !isNodePort(port) {
		return netip.Addr{}, "invalid"
	}
	switch {
	case strings.EqualFold(node, "unknown"):
		return netip.Addr{}, "unknown"
	case isObfuscated(node):
		return netip.Addr{}, node
	}
	return netip.Addr{}, "invalid"
}

// isObfuscated reports whether s is an obfuscated identifier: "_" and one
// or more letters, digits, ".", "_" or "-".
func isObfuscated(s string) bool {
	if len(s) < 2 || s[0] != '_' {
		return false
	}
	for i := 1; i < len(s); i++ {
		c := s[i]
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '.' || c == '_' || c == '-') {
			return false
		}
	}
	return true
}

// isNodePort reports whether s is a port, 1 to 5 digits, or an obfuscated
// one.
func isNodePort(s string) bool {
	if isObfuscated(s) {
		return true
	}
	if len(s) < 1 || len(s) > 5 {
		return false
	}
	return strings.Trim(s, "0123456789") == ""
}
