package server

import (
	"cmp"
	"context"
	"errors"
	"log"
	"net"
	"net/http"
	"time"
)

// Timeouts bound how long a connection may hold the server. The zero value
// of a field means its default.
type Timeouts struct {
	ReadHeader time.Duration // default 5 s: a slow-header client is cut off
	Read       time.Duration // default 10 s
	Write      time.Duration // default 30 s
	Idle       time.Duration // default 120 s
	Shutdown   time.Duration // default 10 s: how long in-flight requests may finish
	// MaxHeaderBytes bounds a request's headers (default 64 KiB).
	MaxHeaderBytes int
}

// Serve answers HTTP on ln with h until ctx is done, then stops accepting
// connections and lets requests in flight finish, up to t.Shutdown. The
// caller listens first, so a busy port fails before anything is served.
func Serve(ctx context.Context, ln net.Listener, h http.Handler, t Timeouts, errorLog *log.Logger) error {
	or := func(d, def time.Duration) time.Duration {
		if d > 0 {
			return d
		}
		return def
	}
	srv := &http.Server{
		Handler:           h,
		ReadHeaderTimeout: or(t.ReadHeader, 5*time.Second),
		ReadTimeout:       or(t.Read, 10*time.Second),
		WriteTimeout:      or(t.Write, 30*time.Second),
		IdleTimeout:       or(t.Idle, 120*time.Second),
		MaxHeaderBytes:    cmp.Or(t.MaxHeaderBytes, 64<<10),
		ErrorLog:          errorLog,
		// "OPTIONS *" goes to the handler too, so it carries the CORS and
		// rate-limit headers like every other answer.
		DisableGeneralOptionsHandler: true,
	}
	done := make(chan error, 1)
	go func() { done <- srv.Serve(ln) }()
	select {
	case err := <-done:
		return err
	case <-ctx.Done():
	}
	shutdownCtx, cancel := context.WithTimeout(context.Background(), or(t.Shutdown, 10*time.Second))
	defer cancel()
	err := srv.Shutdown(shutdownCtx)
	if serveErr := <-done; !errors.Is(serveErr, http.ErrServerClosed) && err == nil {
		err = serveErr
	}
	return err
}
