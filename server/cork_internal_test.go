package server

import (
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strconv"
	"sync"
	"syscall"
	"testing"
	"time"

	"ballot/archive"
	"ballot/dataset"
)

// acceptedConns is a listener that keeps the server's side of each
// connection it accepts.
type acceptedConns struct {
	net.Listener
	mu    sync.Mutex
	conns []*net.TCPConn
}

func (l *acceptedConns) Accept() (net.Conn, error) {
	c, err := l.Listener.Accept()
	if tc, ok := c.(*net.TCPConn); ok {
		l.mu.Lock()
		l.conns = append(l.conns, tc)
		l.mu.Unlock()
	}
	return c, err
}

func (l *acceptedConns) only(t *testing.T) *net.TCPConn {
	t.Helper()
	l.mu.Lock()
	defer l.mu.Unlock()
	if len(l.conns) != 1 {
		t.Fatalf("%d connections accepted, want 1", len(l.conns))
	}
	return l.conns[0]
}

// corkCall is one call of setCork, and what the socket was just before an
// uncork: its TCP_CORK, and the bytes written to it (corkState).
type corkCall struct {
	on              bool
	corked, written int
}

// TestWriteCorked: an answer of corkAt bytes or more on a plain TCP
// connection of Serve corks the socket, and before it uncorks it the socket
// is still corked and has been written the whole answer (net/http flushed it); the
// socket is uncorked once the answer is read. A smaller answer, a HEAD, a
// 304 and an answer over TLS are written as net/http writes them, with no
// cork. On a system with no TCP_CORK, nothing is corked.
func TestWriteCorked(t *testing.T) {
	ds, err := dataset.Default()
	if err != nil {
		t.Fatal(err)
	}
	var mu sync.Mutex
	var calls []corkCall
	real := setCork
	setCork = func(raw syscall.RawConn, on bool) {
		call := corkCall{on: on, corked: -1, written: -1}
		if !on {
			if err := raw.Control(func(fd uintptr) { call.corked, call.written = corkState(fd) }); err != nil {
				t.Error(err)
			}
		}
		mu.Lock()
		calls = append(calls, call)
		mu.Unlock()
		real(raw, on)
	}
	t.Cleanup(func() { setCork = real })

	opts := DefaultOptions()
	opts.RateLimit = 1_000_000
	s := New(archive.Of(ds), opts)
	etag := func(path string) string {
		rec := httptest.NewRecorder()
		s.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, path, nil))
		return rec.Header().Get("Etag")
	}
	const candidates, district5, parties = "/api/public/v1/candidates", "/api/public/v1/candidates?district=5", "/api/public/v1/parties"
	tests := []struct {
		name, method, path, encoding, ifNoneMatch string
		tls, corked                               bool
	}{
		{"a large answer", http.MethodGet, candidates, "", "", false, true},
		// Its last 1.5 KB stay in net/http's buffer unless flushed.
		{"an answer a little over 4 KiB", http.MethodGet, district5, "", "", false, true},
		{"a large page", http.MethodGet, "/candidates", "", "", false, true},
		{"a large answer, gzipped", http.MethodGet, candidates, "gzip", "", false, true},
		{"a small answer", http.MethodGet, parties, "", "", false, false},
		{"HEAD of a large answer", http.MethodHead, candidates, "", "", false, false},
		{"304 of a large answer", http.MethodGet, candidates, "", etag(candidates), false, false},
		{"a large answer over TLS", http.MethodGet, candidates, "", "", true, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			mu.Lock()
			calls = nil
			mu.Unlock()
			var client *http.Client
			var base string
			var ln *acceptedConns
			if tt.tls {
				ts := httptest.NewUnstartedServer(s)
				ts.Config.ConnContext = ConnContext
				ts.StartTLS()
				defer ts.Close()
				client, base = ts.Client(), ts.URL
			} else {
				client, base, ln = serveForTest(t, s)
			}
			client.Transport.(*http.Transport).DisableCompression = true

			req, _ := http.NewRequest(tt.method, base+tt.path, nil)
			req.Header.Set("Accept-Encoding", tt.encoding)
			req.Header.Set("If-None-Match", tt.ifNoneMatch)
			resp, err := client.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			body, err := io.ReadAll(resp.Body)
			resp.Body.Close()
			if err != nil {
				t.Fatal(err)
			}
			length, _ := strconv.Atoi(resp.Header.Get("Content-Length"))
			if ok := resp.StatusCode == http.StatusOK && tt.method == http.MethodGet; ok && length != len(body) {
				t.Errorf("%d bytes read, Content-Length %d", len(body), length)
			} else if tt.corked != (ok && length >= corkAt && !tt.tls) {
				t.Fatalf("the case is misnamed: status %d, %d bytes", resp.StatusCode, length)
			}
			mu.Lock()
			got := append([]corkCall(nil), calls...)
			mu.Unlock()
			if !tt.corked || !corks {
				if len(got) > 0 {
					t.Errorf("setCork calls %+v, want none", got)
				}
				return
			}
			if len(got) != 2 || !got[0].on || got[1].on {
				t.Fatalf("setCork calls %+v, want a cork, then an uncork", got)
			}
			if got[1].corked != 1 {
				t.Errorf("before the uncork, TCP_CORK is %d, want 1", got[1].corked)
			}
			// The last bytes of an answer of 4 to 8 KiB stay in net/http's
			// buffer until it is flushed: before the uncork, the whole
			// response, its header block and its body, is written to the
			// socket (the connection's first, so all it was written).
			if got[1].written < len(body) {
				t.Errorf("before the uncork, %d bytes written to the socket, want the %d of the body at least: the answer was not flushed", got[1].written, len(body))
			}
			raw, err := ln.only(t).SyscallConn()
			if err != nil {
				t.Fatal(err)
			}
			cork := -1
			if err := raw.Control(func(fd uintptr) { cork, _ = corkState(fd) }); err != nil {
				t.Fatal(err)
			}
			if cork != 0 {
				t.Errorf("the socket's TCP_CORK is %d once the answer is read, want 0", cork)
			}
		})
	}
}

// serveForTest serves h with Serve, as serve does, on a loopback port
// until the test ends, and returns a client, the base URL and the
// listener's record of the connections.
func serveForTest(t *testing.T, h http.Handler) (*http.Client, string, *acceptedConns) {
	t.Helper()
	inner, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ln := &acceptedConns{Listener: inner}
	ServeOn(t, ln, h, DefaultTimeouts())
	tr := &http.Transport{Proxy: nil}
	t.Cleanup(tr.CloseIdleConnections) // before Serve stops: cleanups run last first
	return &http.Client{Transport: tr, Timeout: 30 * time.Second}, "http://" + inner.Addr().String(), ln
}

// TestCorkAllocatesNothing: corking and uncorking a socket allocates
// nothing, as nothing else of a request of ballot's does.
func TestCorkAllocatesNothing(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	c, err := net.Dial("tcp", ln.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	raw, err := c.(*net.TCPConn).SyscallConn()
	if err != nil {
		t.Fatal(err)
	}
	if n := testing.AllocsPerRun(100, func() { setCork(raw, true); setCork(raw, false) }); n != 0 {
		t.Errorf("a cork and an uncork allocate %v times, want 0", n)
	}
}
