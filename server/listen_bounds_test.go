package server_test

import (
	"context"
	"io"
	"math"
	"net"
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
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() {
		done <- server.Serve(ctx, ln, s, server.Timeouts{
			ReadHeader: longest, Read: longest, Write: longest, Idle: longest, Shutdown: longest,
			MaxHeaderBytes: 1 << 20,
		}, nil)
	}()
	tr := &http.Transport{Proxy: nil}
	hc := &http.Client{Transport: tr, Timeout: 20 * time.Second}
	for _, tt := range []struct {
		name   string
		header int // bytes of one extra header field
		status int
	}{
		{"a plain request", 0, http.StatusOK},
		{"900 KiB of headers", 900 << 10, http.StatusOK},
	} {
		req, err := http.NewRequest(http.MethodGet, "http://"+ln.Addr().String()+"/api/public/v1/parties", nil)
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
	// Idle keep-alive connections would hold a graceful stop for as long
	// as the idle timeout.
	tr.CloseIdleConnections()
	cancel()
	select {
	case err := <-done:
		if err != nil {
			t.Errorf("Serve: %v", err)
		}
	case <-time.After(20 * time.Second):
		t.Error("Serve did not return within 20 s of its context ending")
	}
}
