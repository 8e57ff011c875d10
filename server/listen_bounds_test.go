package server_test

import (
	"io"
	"math"
	"net/http"
	"strings"
	"testing"
	"time"

	"ballot/server"
)

// TestServeAtTheBounds: at the largest values the configuration accepts
// (1 MiB of headers, the longest durations Go parses), Serve still answers:
// nothing derived from them overflows.
func TestServeAtTheBounds(t *testing.T) {
	s, _ := newServer(t, server.Options{})
	const longest = time.Duration(math.MaxInt64)
	addr := serveLoopback(t, s, server.Timeouts{
		ReadHeader: longest, Read: longest, Write: longest, Idle: longest, Shutdown: longest,
		MaxHeaderBytes: 1 << 20,
	})
	tr := &http.Transport{Proxy: nil}
	defer tr.CloseIdleConnections()
	hc := &http.Client{Transport: tr, Timeout: 20 * time.Second}
	for _, tt := range []struct {
		name   string
		header int // bytes of one extra header field
		status int
	}{
		{"a plain request", 0, http.StatusOK},
		{"900 KiB of headers", 900 << 10, http.StatusOK},
	} {
		req, err := http.NewRequest(http.MethodGet, "http://"+addr+"/api/public/v1/parties", nil)
		if err != nil {
			t.Fatal(err)
		}
		if tt.header > 0 {
			req.Header.Set("X-Padding", strings.Repeat("a", tt.header))
		}
		resp, err := hc.Do(req)
		if err != nil {
			t.Errorf("%s: %v", tt.name, err)
			continue
		}
		_, _ = io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		if resp.StatusCode != tt.status {
			t.Errorf("%s: status %d, want %d", tt.name, resp.StatusCode, tt.status)
		}
	}
}
