package server

import (
	"io"
	"net/url"
	"strconv"
	"sync"
	"sync/atomic"
	"time"
	"unicode"
	"unicode/utf8"
)

// The access log's line, written by hand in the format of log/slog's
// TextHandler, byte for byte (TestAccessLogLineIsSlogs and
// FuzzAccessLogLine hold it to slog's own output): a line a request, on
// every request, where slog's generic path (a Record, its attributes, the
// handler's state and lock) cost several times what the line itself does.
// It is written to Options.AccessLogText in one Write, as slog's handlers
// write theirs, so the lines of concurrent requests never interleave with
// each other or with the logger's other lines.

var accessLines = sync.Pool{New: func() any { b := make([]byte, 0, 256); return &b }}

// writeAccessLine writes the access-log line of one answered request.
func writeAccessLine(w io.Writer, at time.Time, client clientText, method, route string, u *url.URL, status, size int, elapsed time.Duration) {
	bp := accessLines.Get().(*[]byte)
	b := append((*bp)[:0], "time="...)
	b = appendRFC3339Millis(b, at)
	b = append(b, " level=INFO msg=request client_ip="...)
	if client.text != nil {
		b = append(b, client.text...)
	} else {
		b = appendClient(b, client.client)
	}
	b = append(b, " method="...)
	b = appendTextValue(b, method)
	b = append(b, " route="...)
	b = appendTextValue(b, route)
	b = append(b, " uri="...)
	b = appendRequestURI(b, u)
	b = append(b, " status="...)
	b = strconv.AppendInt(b, int64(status), 10)
	b = append(b, " bytes="...)
	b = strconv.AppendInt(b, int64(size), 10)
	b = append(b, " duration="...)
	b = append(b, elapsed.String()...) // as slog writes a duration: never quoted
	b = append(b, '\n')
	_, _ = w.Write(b) // a log that cannot be written has nowhere to say so
	*bp = b
	accessLines.Put(bp)
}

// clientText is the client of an access-log line: its text, written
// before (appendClient), or else the client.
type clientText struct {
	text   []byte
	client Client
}

// appendClient appends the client as appendTextValue(b, c.String()) does,
// but writes an address into b rather than into a string of its own (an
// allocation on every line).
func appendClient(b []byte, c Client) []byte {
	if c.Hidden != "" || !c.Addr.IsValid() {
		return appendTextValue(b, c.String())
	}
	n := len(b)
	b = c.Addr.AppendTo(b) // the text of String, for a valid address
	if needsQuoting(string(b[n:])) {
		return appendTextValue(b[:n], c.String()) // an odd zone
	}
	return b
}

// appendRequestURI appends u.RequestURI() as appendTextValue does, without
// making that string: with a query, it is the path and the query joined
// by "?", a new string on every request. Quoting, which a query's "="
// always asks for, is decided and done character by character, and the
// "?" needs none, so the two parts are checked and quoted apart.
func appendRequestURI(b []byte, u *url.URL) []byte {
	if b, ok := appendPlainRequestURI(b, u); ok {
		return b
	}
	if u.RawQuery == "" && !u.ForceQuery {
		return appendTextValue(b, u.RequestURI()) // the path, made by no concatenation
	}
	path := *u
	path.RawQuery, path.ForceQuery = "", false
	p := path.RequestURI()
	if !needsQuoting(p) && (u.RawQuery == "" || !needsQuoting(u.RawQuery)) {
		b = append(b, p...)
		b = append(b, '?')
		return append(b, u.RawQuery...)
	}
	b = appendQuote(b, p)
	b[len(b)-1] = '?' // the path's closing quote
	n := len(b)
	b = appendQuote(b, u.RawQuery)
	return append(b[:n], b[n+1:]...) // without the query's opening quote
}

// appendPlainRequestURI is appendRequestURI for the URI nearly every
// request has, in one look at each byte: a path sent without escapes,
// made of letters, digits and the marks that the path's escaping leaves
// as they are and that need no quotes ("=" aside), so that it is its own
// escaped form; and a query of printable ASCII with no quote or
// backslash, which is quoted as it is when it holds an "=". It reports
// false, having appended nothing, for any other URI.
func appendPlainRequestURI(b []byte, u *url.URL) ([]byte, bool) {
	if u.Opaque != "" || u.RawPath != "" || u.Path == "" {
		return b, false
	}
	for i := 0; i < len(u.Path); i++ {
		if !plainPathByte[u.Path[i]] {
			return b, false
		}
	}
	quote := false
	for i := 0; i < len(u.RawQuery); i++ {
		switch c := u.RawQuery[i]; {
		case c <= ' ' || c > '~' || c == '"' || c == '\\':
			return b, false
		case c == '=':
			quote = true
		}
	}
	if quote {
		b = append(b, '"')
	}
	b = append(b, u.Path...)
	if u.RawQuery != "" || u.ForceQuery {
		b = append(b, '?')
		b = append(b, u.RawQuery...)
	}
	if quote {
		b = append(b, '"')
	}
	return b, true
}

// plainPathByte marks the bytes of a path that url.URL.EscapedPath leaves
// as they are and that no text value quotes: the unreserved characters
// and the path's sub-delimiters but "=" (RFC 3986), with "/", ":" and "@".
var plainPathByte = func() (t [256]bool) {
	for c := 'a'; c <= 'z'; c++ {
		t[c], t[c-'a'+'A'] = true, true
	}
	for c := '0'; c <= '9'; c++ {
		t[c] = true
	}
	for _, c := range "-._~$&+,/:;@" {
		t[c] = true
	}
	return t
}()

// appendRFC3339Millis appends t as slog's text handler writes a record's
// time: RFC 3339 with exactly three fractional digits, in t's zone.
//
// A line a request shares its second with the lines around it: the text of
// that second, before and after the milliseconds, is kept (lastSecond) and
// only the milliseconds are written, a fifth of the cost of formatting the
// whole time.
func appendRFC3339Millis(b []byte, t time.Time) []byte {
	sec := t.Unix()
	if c := lastSecond.Load(); c != nil && c.unix == sec && c.loc == t.Location() {
		b = append(b, c.date...)
		ms := t.Nanosecond() / int(time.Millisecond)
		b = append(b, '.', byte('0'+ms/100), byte('0'+ms/10%10), byte('0'+ms%10))
		return append(b, c.zone...)
	}
	n := len(b)
	b = formatRFC3339Millis(b, t)
	const date = len("2006-01-02T15:04:05")
	if text := b[n:]; len(text) > date && text[4] == '-' && text[date] == '.' { // a year of four digits
		lastSecond.Store(&secondText{unix: sec, loc: t.Location(), date: string(text[:date]), zone: string(text[date+len(".000"):])})
	}
	return b
}

// secondText is the text of one second in one zone, as
// formatRFC3339Millis writes it: the date and time to the second, and
// the zone after the milliseconds ("Z", "+01:00"). A zone's offset
// changes only on a whole second, so the second and the zone name it.
type secondText struct {
	unix       int64
	loc        *time.Location
	date, zone string
}

var lastSecond atomic.Pointer[secondText]

// formatRFC3339Millis is appendRFC3339Millis without the kept second.
func formatRFC3339Millis(b []byte, t time.Time) []byte {
	const prefixLen = len("2006-01-02T15:04:05.000")
	n := len(b)
	// RFC3339Nano trims trailing zeros: a tenth of a millisecond more
	// keeps four digits, and the fourth is dropped.
	t = t.Truncate(time.Millisecond).Add(time.Millisecond / 10)
	b = t.AppendFormat(b, time.RFC3339Nano)
	return append(b[:n+prefixLen], b[n+prefixLen+1:]...)
}

// appendTextValue appends a string value as slog's text handler does:
// as it is, or quoted when it is empty or holds a space, "=", a quote, a
// control character, or a character that is no printable rune.
func appendTextValue(b []byte, s string) []byte {
	if needsQuoting(s) {
		return appendQuote(b, s)
	}
	return append(b, s...)
}

// appendQuote appends s quoted as strconv.AppendQuote does. Printable ASCII
// but for the quote and the backslash, the whole of a query such as
// "district=5", is quoted as it is, between quotes, without strconv's
// decision rune by rune.
func appendQuote(b []byte, s string) []byte {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c < ' ' || c > '~' || c == '"' || c == '\\' {
			return strconv.AppendQuote(b, s)
		}
	}
	b = append(b, '"')
	b = append(b, s...)
	return append(b, '"')
}

func needsQuoting(s string) bool {
	if s == "" {
		return true
	}
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			// What JSON would escape, but the backslash, and the space
			// and "=" of a key=value pair.
			if c != '\\' && (c <= ' ' || c == '=' || c == '"') {
				return true
			}
			i++
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError || unicode.IsSpace(r) || !unicode.IsPrint(r) {
			return true
		}
		i += size
	}
	return false
}
