//go:build !race

// The race detector's sync.Pool drops some of what is put back, so that
// a pooled buffer is allocated again: allocations are counted without it.

package bench

import (
	"net"
	"net/http"
	"net/http/httptest"
	"testing"

	"ballot/archive"
	"ballot/server"
)

// TestPreparedAnswersAllocateNothing: an answer prepared at load (today's
// paths, and an election's once it is prepared) is written with no
// allocation a request, plain or gzip, with the whole middleware stack
// and the default options but the rate limit: the figure the benchmarks
// report, held. A pointer that escaped to the heap in writeAnswer made
// one allocation of 384 bytes a request.
func TestPreparedAnswersAllocateNothing(t *testing.T) {
	a, err := archive.Default()
	if err != nil {
		t.Fatal(err)
	}
	opts := server.DefaultOptions()
	opts.RateLimit, opts.MaxClients = 1_000_000_000, 1_000_000
	srv := server.New(a, opts)
	peer := &net.TCPAddr{IP: net.IPv4(192, 0, 2, 7), Port: 40000}
	for _, target := range []string{api + "/parties", api + "/candidates", api + "/candidates?district=5", api + "/elections/2017/candidates"} {
		for _, encoding := range []string{"", "gzip"} {
			req := httptest.NewRequest(http.MethodGet, target, nil)
			req.RemoteAddr = peer.String()
			req = req.WithContext(server.ConnContext(req.Context(), peerConn{peer: peer}))
			if encoding != "" {
				req.Header.Set("Accept-Encoding", encoding)
			}
			w := &discard{h: http.Header{}}
			srv.ServeHTTP(w, req) // an election's answers are prepared at its first request
			if w.status != http.StatusOK || w.n == 0 {
				t.Fatalf("GET %s (%q): status %d, %d bytes", target, encoding, w.status, w.n)
			}
			if n := testing.AllocsPerRun(200, func() {
				clear(w.h)
				w.n = 0
				srv.ServeHTTP(w, req)
			}); n != 0 {
				t.Errorf("GET %s (Accept-Encoding %q): %.1f allocations a request, want none", target, encoding, n)
			}
		}
	}
}
