package server_test

import (
	"net/http"
	"net/http/httptest"
	"testing"

	"ballot/server"
)

// discard is a ResponseWriter that keeps nothing, so the benchmarks measure
// the server and not a recorder.
type discard struct{ h http.Header }

func (d *discard) Header() http.Header         { return d.h }
func (d *discard) Write(b []byte) (int, error) { return len(b), nil }
func (d *discard) WriteHeader(int)             {}

// BenchmarkServe drives the whole handler, every middleware included, as
// net/http would, and reports the allocations per request.
func BenchmarkServe(b *testing.B) {
	s := server.New(malta(b), server.Options{RateLimit: 1 << 30})
	for _, bm := range []struct {
		name, target, encoding string
	}{
		{"parties", "/api/public/v1/parties", ""},
		{"candidates", "/api/public/v1/candidates", ""},
		{"candidates-gzip", "/api/public/v1/candidates", "gzip"},
		{"district-5", "/api/public/v1/candidates?district=5", ""},
		{"bad-limit", "/api/public/v1/candidates?limit=0", ""},
	} {
		b.Run(bm.name, func(b *testing.B) {
			req := httptest.NewRequest(http.MethodGet, bm.target, nil)
			req.RemoteAddr = "203.0.113.7:52100"
			if bm.encoding != "" {
				req.Header.Set("Accept-Encoding", bm.encoding)
			}
			w := &discard{h: http.Header{}}
			b.ReportAllocs()
			for b.Loop() {
				clear(w.h)
				s.ServeHTTP(w, req)
			}
		})
	}
}
