package server

import (
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"slices"
	"strconv"
	"sync"
	"testing"

	"ballot/archive"
	"ballot/dataset"
)

// TestConnectionHTTP2StreamsMakeTheirOwnValues: the streams of one HTTP/2
// connection are answered at the same time, so none of them uses the
// connection's store of header values: 64 requests at once on one
// connection each get a rate-limit count of their own and the answer's
// length and tag (and, under -race, share nothing they write).
func TestConnectionHTTP2StreamsMakeTheirOwnValues(t *testing.T) {
	ds, err := dataset.Default()
	if err != nil {
		t.Fatal(err)
	}
	opts := DefaultOptions()
	opts.RateLimit = 1000
	s := New(archive.Of(ds), opts)
	ts := httptest.NewUnstartedServer(s)
	ts.EnableHTTP2 = true
	ts.Config.ConnContext = ConnContext
	ts.StartTLS()
	defer ts.Close()
	client := ts.Client()
	client.Transport.(*http.Transport).DisableCompression = true // keep Content-Length

	// Every other request asks for gzip, whose answer has other values.
	encodings := []string{"", "gzip"}
	wants := map[string]*httptest.ResponseRecorder{}
	for _, enc := range encodings {
		req := httptest.NewRequest(http.MethodGet, "/api/public/v1/parties", nil)
		req.Header.Set("Accept-Encoding", enc)
		wants[enc] = httptest.NewRecorder()
		s.ServeHTTP(wants[enc], req)
	}
	const n = 64
	remaining := make([]int, n)
	var wg sync.WaitGroup
	for i := range n {
		wg.Go(func() {
			enc := encodings[i%2]
			want := wants[enc]
			req, _ := http.NewRequest(http.MethodGet, ts.URL+"/api/public/v1/parties", nil)
			req.Header.Set("Accept-Encoding", enc)
			resp, err := client.Do(req)
			if err != nil {
				t.Error(err)
				return
			}
			defer resp.Body.Close()
			body, err := io.ReadAll(resp.Body)
			if err != nil {
				t.Error(err)
				return
			}
			if resp.ProtoMajor != 2 {
				t.Errorf("request %d: %s, want HTTP/2", i, resp.Proto)
			}
			// The HTTP/2 client reads Content-Length into ContentLength.
			if got := resp.Header.Get("Content-Encoding"); got != enc {
				t.Errorf("request %d: Content-Encoding %q, want %q", i, got, enc)
			}
			if got := strconv.FormatInt(resp.ContentLength, 10); got != strconv.Itoa(len(body)) || got != want.Header().Get("Content-Length") {
				t.Errorf("request %d: Content-Length %s for %d bytes, want %s", i, got, len(body), want.Header().Get("Content-Length"))
			}
			if got := resp.Header.Get("Etag"); got != want.Header().Get("Etag") {
				t.Errorf("request %d: ETag %s, want %s", i, got, want.Header().Get("Etag"))
			}
			remaining[i], _ = strconv.Atoi(resp.Header.Get("X-Ratelimit-Remaining"))
			// t= is 60 while the streams take under a second after the
			// window opened, and less on a slower machine; never more.
			var r, reset int
			field := resp.Header.Get("Ratelimit")
			if n, _ := fmt.Sscanf(field, `"endpoint";r=%d;t=%d`, &r, &reset); n != 2 || r != remaining[i] || reset < 1 || reset > 60 {
				t.Errorf("request %d: RateLimit %q for X-RateLimit-Remaining %d, want r=%[3]d;t= 1 to 60", i, field, remaining[i])
			}
		})
	}
	wg.Wait()
	// The loopback client's counter, after the recorder's request (from
	// another address): each stream one of 999 down to 999-n+1.
	slices.Sort(remaining)
	for i, r := range remaining {
		if want := 1000 - n + i; r != want {
			t.Fatalf("X-RateLimit-Remaining of the %d streams, sorted: %v, want %d to %d", n, remaining, 1000-n, 999)
		}
	}
}
