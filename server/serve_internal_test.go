package server

import (
	"context"
	"net"
	"net/http"
	"testing"
	"time"
)

// ServeOn runs Serve with h and timeouts on ln until the test ends, as
// serve does; the test's end stops it and checks that it stopped cleanly.
// It is the tests' one way to run Serve, this package's and server_test's.
func ServeOn(t *testing.T, ln net.Listener, h http.Handler, timeouts Timeouts) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- Serve(ctx, ln, h, timeouts, nil) }()
	t.Cleanup(func() {
		cancel()
		select {
		case err := <-done:
			if err != nil {
				t.Errorf("Serve: %v", err)
			}
		case <-time.After(20 * time.Second):
			t.Error("Serve did not return within 20 s of its context ending")
		}
	})
}
