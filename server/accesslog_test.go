package server

import (
	"bytes"
	"context"
	"log/slog"
	"net/netip"
	"net/url"
	"testing"
	"time"
)

// slogLine is the access-log line log/slog's text handler writes for the
// same request.
func slogLine(at time.Time, client, method, route, uri string, status, size int, elapsed time.Duration) []byte {
	var b bytes.Buffer
	r := slog.NewRecord(at, slog.LevelInfo, "request", 0)
	r.AddAttrs(
		slog.String("client_ip", client),
		slog.String("method", method),
		slog.String("route", route),
		slog.String("uri", uri),
		slog.Int("status", status),
		slog.Int("bytes", size),
		slog.Duration("duration", elapsed),
	)
	_ = slog.NewTextHandler(&b, nil).Handle(context.Background(), r)
	return b.Bytes()
}

// handLine is the hand-written line, which must be the same whether the
// client is written with the line or was written before, as a
// connection's peer is: when the two differ, the line says so.
func handLine(at time.Time, client Client, method, route string, u *url.URL, status, size int, elapsed time.Duration) []byte {
	var b, written bytes.Buffer
	writeAccessLine(&b, at, clientText{client: client}, method, route, u, status, size, elapsed)
	writeAccessLine(&written, at, clientText{text: appendClient(nil, client)}, method, route, u, status, size, elapsed)
	if !bytes.Equal(b.Bytes(), written.Bytes()) {
		return append(b.Bytes(), "with the client's text written before: "+written.String()...)
	}
	return b.Bytes()
}

// requestURL is the URL of a request to target: as net/http parses a
// request line's target, or, for a target it would refuse, one whose
// RequestURI is target as it is.
func requestURL(target string) *url.URL {
	if u, err := url.ParseRequestURI(target); err == nil {
		return u
	}
	return &url.URL{Opaque: target}
}

// TestAccessLogLineIsSlogs: the hand-written line is the one slog writes,
// byte for byte, whatever a client put in its request line.
func TestAccessLogLineIsSlogs(t *testing.T) {
	at := time.Date(2026, 11, 21, 4, 16, 1, 123456789, time.UTC)
	v4 := Client{Addr: netip.MustParseAddr("198.51.100.7")}
	tests := []struct {
		name    string
		client  Client
		method  string
		uri     *url.URL
		elapsed time.Duration
	}{
		{"plain", v4, "GET", requestURL("/api/public/v1/parties"), 13656 * time.Nanosecond},
		{"a query", v4, "GET", requestURL("/api/public/v1/candidates?district=5&party=pn"), time.Millisecond},
		{"an empty query", v4, "GET", requestURL("/api/public/v1/candidates?"), time.Millisecond},
		{"IPv6", Client{Addr: netip.MustParseAddr("2001:db8:1:2::")}, "HEAD", requestURL("/"), 0},
		{"IPv6 with a zone", Client{Addr: netip.MustParseAddr("fe80::1%eth0")}, "GET", requestURL("/"), 0},
		{"IPv6 with a zone that needs quotes", Client{Addr: netip.MustParseAddr("fe80::1%a=b")}, "GET", requestURL("/"), 0},
		{"a client the proxy hid", Client{Addr: v4.Addr, Hidden: "_hidden"}, "GET", requestURL("/"), 0},
		{"no client", Client{}, "GET", requestURL("/"), 0},
		{"quotes and backslashes", v4, "GET", &url.URL{Opaque: `/a"b\c`}, time.Second},
		{"a quote and a backslash in the query", v4, "GET", requestURL(`/a?b"c\d`), time.Second},
		{"a space, a tab, a newline", v4, "GET", &url.URL{Opaque: "/a b\tc\nd"}, time.Minute},
		{"a space in the query", v4, "GET", &url.URL{Path: "/a", RawQuery: "b c"}, time.Minute},
		{"a path escaped", v4, "GET", &url.URL{Path: "/a b", RawQuery: "c"}, time.Minute},
		{"control and DEL", v4, "GET", &url.URL{Opaque: "/\x01\x7f"}, 5},
		{"Maltese letters", v4, "GET", &url.URL{Opaque: "/candidates/ħal-għargħur"}, 999},
		{"Maltese letters in the query", v4, "GET", &url.URL{Path: "/candidates", RawQuery: "q=għargħur"}, 999},
		{"a non-breaking space", v4, "GET", &url.URL{Opaque: "/a\u00a0b"}, 1},
		{"invalid UTF-8", v4, "GET", &url.URL{Opaque: "/\xff\xfe"}, 1},
		{"invalid UTF-8 in the query", v4, "GET", &url.URL{Path: "/", RawQuery: "\xff\xfe"}, 1},
		{"an odd method", v4, "BR=EW", requestURL("*"), 1},
		{"empty", v4, "", &url.URL{}, 0},
		{"unprintable", v4, "GET", &url.URL{Opaque: "/\u200b\u2028"}, 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			for _, zone := range []*time.Location{time.UTC, time.FixedZone("CET", 3600)} {
				when := at.In(zone)
				want := slogLine(when, tt.client.String(), tt.method, "page", tt.uri.RequestURI(), 404, 238, tt.elapsed)
				if got := handLine(when, tt.client, tt.method, "page", tt.uri, 404, 238, tt.elapsed); !bytes.Equal(got, want) {
					t.Errorf("line\n%q, slog writes\n%q", got, want)
				}
			}
		})
	}
}

// TestAccessLogTimeIsSlogs: the time of a line, written from the second
// kept from the line before when they share it, is the one slog writes,
// line after line: in one second and the next, in another zone, and in
// years of other than four digits.
func TestAccessLogTimeIsSlogs(t *testing.T) {
	at := time.Date(2026, 11, 21, 4, 16, 1, 0, time.UTC)
	cet := time.FixedZone("CET", 3600)
	times := []time.Time{
		at, at.Add(999 * time.Millisecond), at.Add(1500 * time.Microsecond), at.Add(time.Second - 1),
		at.Add(time.Second), at.Add(time.Second).In(cet), at.Add(time.Second + 7*time.Millisecond).In(cet),
		at.Add(time.Second + 8*time.Millisecond), at.In(time.Local), at.Add(time.Millisecond).In(time.Local),
		time.Date(12026, 1, 1, 0, 0, 0, 5e6, time.UTC), time.Date(12026, 1, 1, 0, 0, 0, 6e6, time.UTC),
		time.Date(1, 1, 1, 0, 0, 0, 0, cet), time.Date(1, 1, 1, 0, 0, 0, 1e6, cet),
		time.Date(-5, 1, 1, 0, 0, 0, 0, time.UTC), time.Date(-5, 1, 1, 0, 0, 0, 1e6, time.UTC),
		at.Add(time.Second + 9*time.Millisecond),
	}
	for _, when := range times {
		want := slogLine(when, "198.51.100.7", "GET", "other", "/", 200, 7, 1)
		if got := handLine(when, Client{Addr: netip.MustParseAddr("198.51.100.7")}, "GET", "other", requestURL("/"), 200, 7, 1); !bytes.Equal(got, want) {
			t.Errorf("line\n%q, slog writes\n%q", got, want)
		}
	}
}

// FuzzAccessLogLine: for any request line, the hand-written line is the
// one slog writes.
func FuzzAccessLogLine(f *testing.F) {
	f.Add("GET", "/api/public/v1/candidates?district=5", int64(1234567), int64(1))
	f.Add("B\"R", "/a b=c\\d\x00\u00a0ż\xff", int64(0), int64(-5))
	f.Add("GET", "/a?b c=\"d\xff", int64(5), int64(5))
	// The edges of quoting printable ASCII as it is: the space, the
	// tilde, DEL, and a query of only a quote and a backslash.
	f.Add("GET", "/a?b=~\x7f", int64(6), int64(6))
	f.Add("GET", "/a?x=\"\\", int64(7), int64(7))
	f.Add("GET", "/~?= ~", int64(8), int64(8))
	// A path of every mark that is its own escaped form, and an empty
	// query.
	f.Add("GET", "/a-._~$&+,/:;@Z9?", int64(9), int64(9))
	f.Add("GET", "/a=b!*'()?c", int64(10), int64(10))
	client := Client{Addr: netip.MustParseAddr("198.51.100.7")}
	f.Fuzz(func(t *testing.T, method, target string, nanos, elapsed int64) {
		at := time.Unix(1795000000, nanos%int64(time.Second)).UTC()
		u := requestURL(target)
		want := slogLine(at, client.String(), method, "other", u.RequestURI(), 200, 7, time.Duration(elapsed))
		if got := handLine(at, client, method, "other", u, 200, 7, time.Duration(elapsed)); !bytes.Equal(got, want) {
			t.Errorf("line\n%q, slog writes\n%q", got, want)
		}
	})
}
