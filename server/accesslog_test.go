package server

import (
	"bytes"
	"context"
	"log/slog"
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

func handLine(at time.Time, client, method, route, uri string, status, size int, elapsed time.Duration) []byte {
	var b bytes.Buffer
	writeAccessLine(&b, at, client, method, route, uri, status, size, elapsed)
	return b.Bytes()
}

// TestAccessLogLineIsSlogs: the hand-written line is the one slog writes,
// byte for byte, whatever a client put in its request line.
func TestAccessLogLineIsSlogs(t *testing.T) {
	at := time.Date(2026, 11, 21, 4, 16, 1, 123456789, time.UTC)
	tests := []struct {
		name, client, method, uri string
		elapsed                   time.Duration
	}{
		{"plain", "198.51.100.7", "GET", "/api/public/v1/parties", 13656 * time.Nanosecond},
		{"a query", "198.51.100.7", "GET", "/api/public/v1/candidates?district=5&party=pn", time.Millisecond},
		{"IPv6", "2001:db8:1:2::/64", "HEAD", "/", 0},
		{"quotes and backslashes", "198.51.100.7", "GET", `/a"b\c`, time.Second},
		{"a space, a tab, a newline", "198.51.100.7", "GET", "/a b\tc\nd", time.Minute},
		{"control and DEL", "198.51.100.7", "GET", "/\x01\x7f", 5},
		{"Maltese letters", "198.51.100.7", "GET", "/candidates/ħal-għargħur", 999},
		{"a non-breaking space", "198.51.100.7", "GET", "/a\u00a0b", 1},
		{"invalid UTF-8", "198.51.100.7", "GET", "/\xff\xfe", 1},
		{"an odd method", "198.51.100.7", "BR=EW", "*", 1},
		{"empty", "", "", "", 0},
		{"unprintable", "198.51.100.7", "GET", "/\u200b\u2028", 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			for _, zone := range []*time.Location{time.UTC, time.FixedZone("CET", 3600)} {
				when := at.In(zone)
				want := slogLine(when, tt.client, tt.method, "page", tt.uri, 404, 238, tt.elapsed)
				if got := handLine(when, tt.client, tt.method, "page", tt.uri, 404, 238, tt.elapsed); !bytes.Equal(got, want) {
					t.Errorf("line\n%q, slog writes\n%q", got, want)
				}
			}
		})
	}
}

// FuzzAccessLogLine: for any request line, the hand-written line is the
// one slog writes.
func FuzzAccessLogLine(f *testing.F) {
	f.Add("GET", "/api/public/v1/candidates?district=5", int64(1234567), int64(1))
	f.Add("B\"R", "/a b=c\\d\x00\u00a0ż\xff", int64(0), int64(-5))
	f.Fuzz(func(t *testing.T, method, uri string, nanos, elapsed int64) {
		at := time.Unix(1795000000, nanos%int64(time.Second)).UTC()
		want := slogLine(at, "198.51.100.7", method, "other", uri, 200, 7, time.Duration(elapsed))
		if got := handLine(at, "198.51.100.7", method, "other", uri, 200, 7, time.Duration(elapsed)); !bytes.Equal(got, want) {
			t.Errorf("line\n%q, slog writes\n%q", got, want)
		}
	})
}
