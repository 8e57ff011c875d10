package server

import (
	"io"
	"strconv"
	"sync"
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
func writeAccessLine(w io.Writer, at time.Time, client, method, route, uri string, status, size int, elapsed time.Duration) {
	bp := accessLines.Get().(*[]byte)
	b := append((*bp)[:0], "time="...)
	b = appendRFC3339Millis(b, at)
	b = append(b, " level=INFO msg=request client_ip="...)
	b = appendTextValue(b, client)
	b = append(b, " method="...)
	b = appendTextValue(b, method)
	b = append(b, " route="...)
	b = appendTextValue(b, route)
	b = append(b, " uri="...)
	b = appendTextValue(b, uri)
	b = append(b, " status="...)
	b = strconv.AppendInt(b, int64(status), 10)
	b = append(b, " bytes="...)
	b = strconv.AppendInt(b, int64(size), 10)
	b = append(b, " duration="...)
	b = appendTextValue(b, elapsed.String())
	b = append(b, '\n')
	_, _ = w.Write(b) // a log that cannot be written has nowhere to say so
	*bp = b
	accessLines.Put(bp)
}

// appendRFC3339Millis appends t as slog's text handler writes a record's
// time: RFC 3339 with exactly three fractional digits, in t's zone.
func appendRFC3339Millis(b []byte, t time.Time) []byte {
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
		return strconv.AppendQuote(b, s)
	}
	return append(b, s...)
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
