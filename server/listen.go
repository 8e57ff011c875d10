package server

import (
	"context"
	"errors"
	"io"
	"log"
	"net"
	"net/http"
	"sync"
	"time"
)

// Timeouts bound how long a connection may hold the server. Serve takes
// them as given: a caller starts from DefaultTimeouts.
type Timeouts struct {
	ReadHeader time.Duration // a client slower to send its headers is cut off
	Read       time.Duration // to read a whole request
	Write      time.Duration // to write an answer
	Idle       time.Duration // a keep-alive connection with no request
	Shutdown   time.Duration // how long requests in flight may finish
	// MaxHeaderBytes bounds a request's headers.
	MaxHeaderBytes int
}

// DefaultTimeouts are the limits ballot serves with when its operator sets
// none. The configuration's defaults are read from here, so each is written
// once.
func DefaultTimeouts() Timeouts {
	return Timeouts{
		ReadHeader:     5 * time.Second,
		Read:           10 * time.Second,
		Write:          30 * time.Second,
		Idle:           2 * time.Minute,
		Shutdown:       10 * time.Second,
		MaxHeaderBytes: 64 << 10,
	}
}

// adminWrite is how long the admin listener gives an answer to be written:
// its write timeout, and the fresh window a reload's answer gets once the
// reload is done.
const adminWrite = 30 * time.Second

// AdminTimeouts are the admin listener's. Its clients are operators and
// their tools on a private address, and POST /reload answers only once a
// whole dataset is loaded, so the public limits, which may be tuned tight
// against slow clients, are not its own. Shutdown is given: both listeners
// stop together.
func AdminTimeouts(shutdown time.Duration) Timeouts {
	return Timeouts{
		ReadHeader: 5 * time.Second,
		Read:       10 * time.Second,
		Write:      adminWrite,
		Idle:       120 * time.Second,
		Shutdown:   shutdown,
	}
}

// Serve answers HTTP on ln with h until ctx is done, then stops accepting
// connections and lets requests in flight finish, up to t.Shutdown. The
// caller listens first, so a busy port fails before anything is served.
func Serve(ctx context.Context, ln net.Listener, h http.Handler, t Timeouts, errorLog *log.Logger) error {
	srv := &http.Server{
		Handler:           h,
		ReadHeaderTimeout: t.ReadHeader,
		ReadTimeout:       t.Read,
		WriteTimeout:      t.Write,
		IdleTimeout:       t.Idle,
		MaxHeaderBytes:    t.MaxHeaderBytes,
		ErrorLog:          errorLog,
		// "OPTIONS *" goes to the handler too, so it carries the CORS and
		// rate-limit headers like every other answer.
		DisableGeneralOptionsHandler: true,
		// Each connection's peer is parsed once, not on every request.
		ConnContext: ConnContext,
	}
	lingering := &sync.WaitGroup{}
	done := make(chan error, 1)
	go func() { done <- srv.Serve(lingerListener{ln, lingering}) }()
	select {
	case err := <-done:
		return err
	case <-ctx.Done():
	}
	shutdownCtx, cancel := context.WithTimeout(context.Background(), t.Shutdown)
	defer cancel()
	err := srv.Shutdown(shutdownCtx)
	if errors.Is(err, context.DeadlineExceeded) {
		// The deadline is the operator's choice: what has not finished by
		// then is cut off, and stopping is still a success.
		if errorLog != nil {
			errorLog.Printf("shutdown: requests still running after %v were cut off", t.Shutdown)
		}
		err = srv.Close()
	}
	if serveErr := <-done; !errors.Is(serveErr, http.ErrServerClosed) && err == nil {
		err = serveErr
	}
	waitTimeout(lingering, lingerTimeout)
	return err
}

// lingerTimeout bounds how long a closed connection keeps reading what the
// client had already sent.
const lingerTimeout = time.Second

// lingerListener hands out connections that close gracefully.
type lingerListener struct {
	net.Listener
	lingering *sync.WaitGroup
}

func (l lingerListener) Accept() (net.Conn, error) {
	c, err := l.Listener.Accept()
	if tc, ok := c.(*net.TCPConn); ok && err == nil {
		return &lingerConn{TCPConn: tc, lingering: l.lingering}, nil
	}
	return c, err
}

// lingerConn closes in stages (RFC 9112, section 9.6): it sends its FIN
// first and reads what the client had already sent before closing. Closing
// a socket with unread data makes the kernel send a reset, which destroys
// answers still on their way, such as those to a client that pipelined
// requests when shutdown began.
type lingerConn struct {
	*net.TCPConn
	lingering *sync.WaitGroup
	once      sync.Once
}

func (c *lingerConn) Close() error {
	var err error
	c.once.Do(func() {
		if err = c.CloseWrite(); err != nil {
			err = c.TCPConn.Close()
			return
		}
		c.lingering.Add(1)
		go func() {
			defer c.lingering.Done()
			_ = c.SetReadDeadline(time.Now().Add(lingerTimeout))
			_, _ = io.Copy(io.Discard, io.LimitReader(c.TCPConn, 1<<20))
			_ = c.TCPConn.Close()
		}()
	})
	return err
}

func waitTimeout(wg *sync.WaitGroup, d time.Duration) {
	done := make(chan struct{})
	go func() { wg.Wait(); close(done) }()
	select {
	case <-done:
	case <-time.After(d + 100*time.Millisecond):
	}
}
