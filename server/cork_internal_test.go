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

// TestWriteCorked: an answer of corkAt bytes or more on a plain TCP
// connection corks the socket, is written whole, and uncorks it before
// the handler returns; a smaller answer, a HEAD, a 304 and an answer over
// TLS are written as net/http writes them, with no cork. The socket is
// left uncorked (read back with getsockopt on Linux).
func TestWriteCorked(t *testing.T) {
	ds, err := dataset.Default()
	if err != nil {
		t.Fatal(err)
	}
	var mu sync.Mutex
	var calls []bool
	real := setCork
	setCork = func(raw syscall.RawConn, on bool) {
		mu.Lock()
		calls = append(calls, on)
		mu.Unlock()
		real(raw, on)
	}
	t.Cleanup(func() { setCork = real })

	opts := DefaultOptions()
	opts.RateLimit = 1_000_000
	s := New(ds, opts)
	etag := func(path string) string {
		rec := httptest.NewRecorder()
		s.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, path, nil))
		return rec.Header().Get("Etag")
	}
	const candidates, parties = "/api/public/v1/candidates", "/api/public/v1/parties"
	tests := []struct {
		name, method, path, encoding, ifNoneMatch string
		tls                                       bool
		status                                    int
		corked                                    bool
	}{
		{"a large answer", http.MethodGet, candidates, "", "", false, http.StatusOK, true},
		{"a large page", http.MethodGet, "/candidates", "", "", false, http.StatusOK, true},
		{"a small answer", http.MethodGet, parties, "", "", false, http.StatusOK, false},
		{"a large answer, gzipped", http.MethodGet, candidates, "gzip", "", false, http.StatusOK, true},
		{"HEAD of a large answer", http.MethodHead, candidates, "", "", false, http.StatusOK, false},
		{"304 of a large answer", http.MethodGet, candidates, "", etag(candidates), false, http.StatusNotModified, false},
		{"a large answer over TLS", http.MethodGet, candidates, "", "", true, http.StatusOK, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ts := httptest.NewUnstartedServer(s)
			ln := &acceptedConns{Listener: ts.Listener}
			ts.Listener = ln
			ts.Config.ConnContext = ConnContext
			if tt.tls {
				ts.StartTLS()
			} else {
				ts.Start()
			}
			defer ts.Close()
			client := ts.Client()
			client.Transport.(*http.Transport).DisableCompression = true
			mu.Lock()
			calls = nil
			mu.Unlock()

			req, _ := http.NewRequest(tt.method, ts.URL+tt.path, nil)
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
			if resp.StatusCode != tt.status {
				t.Fatalf("status %d, want %d", resp.StatusCode, tt.status)
			}
			length := resp.Header.Get("Content-Length")
			if tt.method == http.MethodGet && tt.status == http.StatusOK && length != strconv.Itoa(len(body)) {
				t.Errorf("%d bytes read, Content-Length %s", len(body), length)
			}
			n, _ := strconv.Atoi(length)
			if tt.corked != (n >= corkAt && tt.method == http.MethodGet && tt.status == http.StatusOK && !tt.tls) {
				t.Fatalf("the case is misnamed: %d bytes", n)
			}
			mu.Lock()
			got := append([]bool(nil), calls...)
			mu.Unlock()
			want := []bool(nil)
			if tt.corked && corks {
				want = []bool{true, false}
			}
			if len(got) != len(want) || len(want) == 2 && (!got[0] || got[1]) {
				t.Errorf("setCork calls %v, want %v", got, want)
			}
			if !corks || tt.tls {
				return
			}
			ln.mu.Lock()
			conns := ln.conns
			ln.mu.Unlock()
			if len(conns) != 1 {
				t.Fatalf("%d connections accepted, want 1", len(conns))
			}
			raw, err := conns[0].SyscallConn()
			if err != nil {
				t.Fatal(err)
			}
			cork := -1
			if err := raw.Control(func(fd uintptr) { cork, err = getCork(fd) }); err != nil {
				t.Fatal(err)
			}
			if err != nil || cork != 0 {
				t.Errorf("the socket's TCP_CORK is %d (%v) after the answer, want 0", cork, err)
			}
		})
	}
}
