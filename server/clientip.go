package server

import (
	"net/http"
	"net/netip"
	"strings"
)

// ClientIP resolves the address a request is counted and logged under.
// It is the TCP peer's address, unless the peer is a trusted proxy: only
// then is the forwarding header read, right to left, skipping trusted hops,
// so a client cannot choose its own address by sending a header.
type ClientIP struct {
	// Trusted are the proxies whose forwarding header is believed.
	Trusted []netip.Prefix
	// Header is the one header the proxies write: "X-Forwarded-For" (the
	// default) or "Forwarded" (RFC 7239). Only that one is read: a proxy
	// appends to its own header and passes the other through as the
	// client sent it, so reading both would let a client choose.
	Header string
}

// maxForwardedHops bounds the work a long forwarding header can cause.
const maxForwardedHops = 32

// Resolve returns the client address of r. A header that is malformed
// anywhere in the hops read falls back to the peer.
func (c ClientIP) Resolve(r *http.Request) netip.Addr {
	peer := peerAddr(r.RemoteAddr)
	if len(c.Trusted) == 0 || !c.trusted(peer) {
		return peer
	}
	var hops []string
	var ok bool
	if strings.EqualFold(c.Header, "Forwarded") {
		hops, ok = forwardedFor(r.Header.Values("Forwarded"))
	} else {
		hops, ok = splitList(r.Header.Values("X-Forwarded-For"))
	}
	if !ok || len(hops) == 0 {
		return peer
	}
	client := peer
	for i := len(hops) - 1; i >= 0; i-- {
		addr, ok := parseHop(hops[i])
		if !ok {
			return peer
		}
		client = addr
		if !c.trusted(addr) {
			return addr
		}
	}
	return client // every hop is trusted: the farthest one is the client
}

func (c ClientIP) trusted(a netip.Addr) bool {
	for _, p := range c.Trusted {
		if p.Contains(a) {
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

// splitList splits comma-separated header values into trimmed items.
func splitList(values []string) ([]string, bool) {
	var items []string
	for _, v := range values {
		for item := range strings.SplitSeq(v, ",") {
			items = append(items, strings.TrimSpace(item))
			if len(items) > maxForwardedHops {
				return nil, false
			}
		}
	}
	return items, true
}

// forwardedFor returns the for= value of every element of Forwarded
// headers, in order. An element without for= is malformed for this purpose:
// it hides a hop.
func forwardedFor(values []string) ([]string, bool) {
	elements, ok := splitList(values)
	if !ok {
		return nil, false
	}
	hops := make([]string, 0, len(elements))
	for _, el := range elements {
		var found bool
		for pair := range strings.SplitSeq(el, ";") {
			name, value, _ := strings.Cut(strings.TrimSpace(pair), "=")
			if strings.EqualFold(name, "for") {
				if found {
					return nil, false
				}
				hops = append(hops, value)
				found = true
			}
		}
		if !found {
			return nil, false
		}
	}
	return hops, true
}

// parseHop parses one hop: an IP address, optionally quoted, optionally
// with a port ("192.0.2.1:8080", "[2001:db8::1]:443"). Obfuscated
// identifiers ("unknown", "_hidden") are not addresses.
func parseHop(s string) (netip.Addr, bool) {
	if len(s) >= 2 && s[0] == '"' && s[len(s)-1] == '"' {
		s = s[1 : len(s)-1]
	}
	if a, err := netip.ParseAddr(s); err == nil && a.Zone() == "" {
		return a.Unmap(), true
	}
	if ap, err := netip.ParseAddrPort(s); err == nil && ap.Addr().Zone() == "" {
		return ap.Addr().Unmap(), true
	}
	if len(s) >= 2 && s[0] == '[' && s[len(s)-1] == ']' { // "[2001:db8::1]"
		if a, err := netip.ParseAddr(s[1 : len(s)-1]); err == nil && a.Is6() && a.Zone() == "" {
			return a, true
		}
	}
	return netip.Addr{}, false
}
