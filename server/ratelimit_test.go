package server_test

import (
	"encoding/json"
	"net/http"
	"strconv"
	"testing"
	"time"

	"ballot/server"
)

// TestRateLimit follows one client through its window: 60 requests pass,
// the 61st is refused with Retry-After, and a new window starts when the old
// one ends.
func TestRateLimit(t *testing.T) {
	s, clock := newServer(t, server.Options{})
	parties := request{target: "/api/public/v1/parties"}
	for i := 1; i <= 60; i++ {
		rec := do(t, s, parties)
		if rec.Code != 200 {
			t.Fatalf("request %d: status %d, want 200", i, rec.Code)
		}
		wantHeaders(t, rec.Header(), map[string]string{
			"X-RateLimit-Limit": "60", "X-RateLimit-Remaining": strconv.Itoa(60 - i), "X-RateLimit-Reset": firstReset,
		})
		clock.Advance(100 * time.Millisecond)
	}
	// 6 s have passed since the window began at start (04:15:00.123); it
	// ends at 04:16:00.123, so 54 s are left.
	rec := do(t, s, parties)
	if rec.Code != http.StatusTooManyRequests {
		t.Fatalf("61st request: status %d, want 429", rec.Code)
	}
	wantHeaders(t, rec.Header(), merge(everyResponse, failure, map[string]string{
		"X-RateLimit-Remaining": "0",
		"Retry-After":           "54",
		"RateLimit":             `"endpoint";r=0;t=54`,
	}))
	golden(t, "429.json", rec.Body.Bytes())
	checkProblem(t, rec.Body.Bytes(), 429)

	clock.Advance(53*time.Second + 900*time.Millisecond) // 0.1 s left: rounded up to 1
	if rec := do(t, s, parties); rec.Code != 429 || rec.Header().Get("Retry-After") != "1" {
		t.Errorf("just before the window ends: status %d, Retry-After %q; want 429 and 1", rec.Code, rec.Header().Get("Retry-After"))
	}
	clock.Advance(200 * time.Millisecond) // the window has ended
	rec = do(t, s, parties)
	if rec.Code != 200 {
		t.Fatalf("after the window: status %d, want 200", rec.Code)
	}
	wantHeaders(t, rec.Header(), map[string]string{"X-RateLimit-Remaining": "59", "X-RateLimit-Reset": "1795234621"})
}

// TestRateLimitCounters checks what shares a counter and what does not.
func TestRateLimitCounters(t *testing.T) {
	const client = "198.51.100.20:40000"
	exhaust := func(t *testing.T, s http.Handler, target, remote string) {
		t.Helper()
		for range 60 {
			do(t, s, request{target: target, remote: remote})
		}
		if rec := do(t, s, request{target: target, remote: remote}); rec.Code != 429 {
			t.Fatalf("61st request to %s: status %d, want 429", target, rec.Code)
		}
	}
	tests := []struct {
		name      string
		then      request
		status    int
		remaining string
	}{
		{"another endpoint has its own counter", request{target: "/api/public/v1/districts", remote: client}, 200, "59"},
		{"the same endpoint with other parameters shares the counter", request{target: "/api/public/v1/candidates?district=3", remote: client}, 429, "0"},
		{"another client has its own counter", request{target: "/api/public/v1/candidates", remote: "198.51.100.21:40000"}, 200, "59"},
		{"another port of the same client shares it", request{target: "/api/public/v1/candidates", remote: "198.51.100.20:40001"}, 429, "0"},
		{"a forged X-Forwarded-For changes nothing", request{target: "/api/public/v1/candidates", remote: client, header: map[string]string{"X-Forwarded-For": "192.0.2.1"}}, 429, "0"},
		{"a forged Forwarded changes nothing", request{target: "/api/public/v1/candidates", remote: client, header: map[string]string{"Forwarded": "for=192.0.2.1"}}, 429, "0"},
		{"a forged X-Real-IP changes nothing", request{target: "/api/public/v1/candidates", remote: client, header: map[string]string{"X-Real-Ip": "192.0.2.1"}}, 429, "0"},
		{"unknown paths share one other counter", request{target: "/nowhere", remote: client}, 404, "59"},
		{"an encoded slash is another path, on the other counter", request{target: "/api/public/v1%2Fcandidates", remote: client}, 404, "59"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s, _ := newServer(t, server.Options{})
			exhaust(t, s, "/api/public/v1/candidates", client)
			rec := do(t, s, tt.then)
			if rec.Code != tt.status {
				t.Errorf("status %d, want %d", rec.Code, tt.status)
			}
			wantHeaders(t, rec.Header(), map[string]string{"X-RateLimit-Remaining": tt.remaining})
		})
	}
	t.Run("IPv6 clients are counted per /64", func(t *testing.T) {
		s, _ := newServer(t, server.Options{})
		exhaust(t, s, "/api/public/v1/parties", "[2001:db8:1:2::1]:443")
		if rec := do(t, s, request{target: "/api/public/v1/parties", remote: "[2001:db8:1:2:ffff::9]:443"}); rec.Code != 429 {
			t.Errorf("same /64: status %d, want 429", rec.Code)
		}
		if rec := do(t, s, request{target: "/api/public/v1/parties", remote: "[2001:db8:1:3::1]:443"}); rec.Code != 200 {
			t.Errorf("another /64: status %d, want 200", rec.Code)
		}
	})
	t.Run("errors count too", func(t *testing.T) {
		s, _ := newServer(t, server.Options{})
		for range 60 {
			do(t, s, request{target: "/api/public/v1/candidates?limit=0"})
		}
		if rec := do(t, s, request{target: "/api/public/v1/candidates"}); rec.Code != 429 {
			t.Errorf("after 60 bad requests: status %d, want 429", rec.Code)
		}
	})
	t.Run("preflights do not count", func(t *testing.T) {
		s, _ := newServer(t, server.Options{})
		for range 100 {
			do(t, s, request{method: http.MethodOptions, target: "/api/public/v1/parties"})
		}
		if rec := do(t, s, request{target: "/api/public/v1/parties"}); rec.Code != 200 || rec.Header().Get("X-RateLimit-Remaining") != "59" {
			t.Errorf("after 100 preflights: status %d, remaining %s; want 200 and 59", rec.Code, rec.Header().Get("X-RateLimit-Remaining"))
		}
	})
	t.Run("a preflight on a spent quota is still answered", func(t *testing.T) {
		s, _ := newServer(t, server.Options{})
		exhaust(t, s, "/api/public/v1/parties", client)
		rec := do(t, s, request{method: http.MethodOptions, target: "/api/public/v1/parties", remote: client, header: map[string]string{"Access-Control-Request-Method": "GET"}})
		if rec.Code != http.StatusNoContent {
			t.Errorf("status %d, want 204", rec.Code)
		}
		wantHeaders(t, rec.Header(), map[string]string{"X-RateLimit-Remaining": "0", "Access-Control-Allow-Methods": "GET, HEAD, OPTIONS", "Retry-After": ""})
	})
	t.Run("the limit is configurable", func(t *testing.T) {
		s, _ := newServer(t, server.Options{RateLimit: 2})
		codes := []int{}
		for range 3 {
			codes = append(codes, do(t, s, request{target: "/api/public/v1/parties"}).Code)
		}
		if codes[0] != 200 || codes[1] != 200 || codes[2] != 429 {
			t.Errorf("statuses %v, want [200 200 429]", codes)
		}
	})
}

func TestRateLimitDetail(t *testing.T) {
	s, _ := newServer(t, server.Options{RateLimit: 1})
	do(t, s, request{target: "/api/public/v1/parties"})
	var p struct{ Detail string }
	if err := json.Unmarshal(do(t, s, request{target: "/api/public/v1/parties"}).Body.Bytes(), &p); err != nil {
		t.Fatal(err)
	}
	const want = "rate limit of 1 requests per minute for this endpoint exceeded; retry after 60 s, at 2026-11-21T04:16:01Z"
	if p.Detail != want {
		t.Errorf("detail = %q, want %q", p.Detail, want)
	}
}
