package dataset

import (
	"fmt"
	"net/netip"
	"net/url"
	"strconv"
	"strings"
)

// URLProblem says why s is not a URL a dataset may hold, or returns "" when
// it is one: an absolute http or https URL, written in RFC 3986's characters
// only (others percent-encoded, a host name in its ASCII form), with no
// user information before the host, a valid host name or IP address, and a
// port from 1 to 65535 when it has one. Such a URL is safe to write into a
// page's link and shows the reader the host it leads to.
func URLProblem(s string) string {
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c == ' ':
			return "it holds a space (write %20)"
		case c == '%':
			if i+2 >= len(s) || !isHex(s[i+1]) || !isHex(s[i+2]) {
				return "a % is not followed by two hexadecimal digits"
			}
		case c < 0x80 && !urlChar(c):
			return fmt.Sprintf("the character %q is not allowed in a URL (percent-encode it)", string(c))
		case c >= 0x80:
			return "it holds a character that is not ASCII (percent-encode it, and write a host name in its xn-- form)"
		}
	}
	u, err := url.Parse(s)
	switch {
	case err != nil:
		return "it cannot be read as a URL"
	case u.Scheme == "":
		return "it is relative (write the whole URL, beginning https://)"
	case u.Scheme != "http" && u.Scheme != "https":
		return "only http and https URLs are allowed"
	case u.Opaque != "" || u.Host == "":
		return "it has no host (write it as https://host/…)"
	case u.User != nil:
		return "it has user information before its host (user@host), which hides the host it leads to"
	}
	host, port := u.Hostname(), u.Port()
	if strings.HasSuffix(u.Host, ":") {
		return "its port is empty"
	}
	if port != "" {
		if n, err := strconv.Atoi(port); err != nil || n < 1 || n > 65535 {
			return fmt.Sprintf("port %s is not from 1 to 65535", port)
		}
	}
	if strings.HasPrefix(u.Host, "[") {
		if a, err := netip.ParseAddr(host); err != nil || !a.Is6() || a.Zone() != "" {
			return fmt.Sprintf("host %q is not an IPv6 address", host)
		}
		return ""
	}
	if !hostName(host) {
		return fmt.Sprintf("host %q is not a valid host name", host)
	}
	return ""
}

// AbsoluteHTTP reports whether s is a URL a dataset may hold (see
// URLProblem).
func AbsoluteHTTP(s string) bool { return URLProblem(s) == "" }

// urlChar reports whether RFC 3986 allows the ASCII byte c in a URL, as an
// unreserved or a reserved character ("%" is checked apart).
func urlChar(c byte) bool {
	return 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' ||
		strings.IndexByte("-._~:/?#[]@!$&'()*+,;=", c) >= 0
}

func isHex(c byte) bool {
	return '0' <= c && c <= '9' || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F'
}

// hostName reports whether h is a DNS host name (labels of letters, digits
// and hyphens, 1 to 63 long, not beginning or ending with a hyphen, 253 in
// all, a final dot allowed, the last not a number) or a dotted IPv4
// address.
func hostName(h string) bool {
	h = strings.TrimSuffix(h, ".")
	if h == "" || len(h) > 253 {
		return false
	}
	if a, err := netip.ParseAddr(h); err == nil {
		return a.Is4()
	}
	// A name whose last label is a number is read as an IPv4 address by
	// browsers (WHATWG URL): it must be one, which it is not.
	last := h[strings.LastIndexByte(h, '.')+1:]
	if strings.Trim(last, "0123456789") == "" {
		return false
	}
	for label := range strings.SplitSeq(h, ".") {
		if label == "" || len(label) > 63 || label[0] == '-' || label[len(label)-1] == '-' {
			return false
		}
		for i := 0; i < len(label); i++ {
			c := label[i]
			if !('a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || c == '-') {
				return false
			}
		}
	}
	return true
}
