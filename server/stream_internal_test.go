package server

import (
	"bytes"
	"compress/gzip"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strconv"
	"testing"
)

// TestWriteStream: a download made as it is written is sent with its
// length when it ends within streamAt bytes; past them, without a length,
// as it is made, its bytes the same; gzip, compressed as it is made; a
// HEAD past them makes no more of it than the buffer holds.
func TestWriteStream(t *testing.T) {
	// Lines of digits that do not repeat, so that gzip leaves them past
	// the buffer too.
	const line = 100
	body := func(size int) []byte {
		var b []byte
		x := uint64(1)
		for len(b)+line <= size {
			for range line / 20 {
				x = x*6364136223846793005 + 1442695040888963407
				b = fmt.Appendf(b, "%019d,", x>>1)
			}
			b[len(b)-1] = '\n'
		}
		return b
	}
	for _, tt := range []struct {
		name   string
		size   int
		method string
		gzip   bool
		length bool // Content-Length sent
	}{
		{"within the buffer", streamAt - 100, http.MethodGet, false, true},
		{"within the buffer, HEAD", streamAt - 100, http.MethodHead, false, true},
		{"past the buffer", 5 * streamAt, http.MethodGet, false, false},
		{"past the buffer, gzip", 5 * streamAt, http.MethodGet, true, false},
		{"past the buffer, HEAD", 5 * streamAt, http.MethodHead, false, false},
	} {
		t.Run(tt.name, func(t *testing.T) {
			want := body(tt.size)
			made := 0
			stream := func(w io.Writer) error {
				for i := 0; i < len(want); i += line {
					made += line
					if _, err := w.Write(want[i : i+line]); err != nil {
						return err
					}
				}
				return nil
			}
			rec := httptest.NewRecorder()
			r := httptest.NewRequest(tt.method, "/candidates.csv", nil)
			if tt.gzip {
				rec.Header()["Content-Encoding"] = gzipValue
			}
			writeStream(rec, r, csvValue, stream, tt.gzip, []string{"public, max-age=60"})
			length, sent := rec.Header()["Content-Length"]
			if sent != tt.length || sent && length[0] != strconv.Itoa(len(want)) {
				t.Errorf("Content-Length %q (%v), want it sent: %v, of %d", length, sent, tt.length, len(want))
			}
			if rec.Code != http.StatusOK || rec.Header().Get("Content-Type") != csvValue[0] {
				t.Errorf("status %d, Content-Type %q", rec.Code, rec.Header().Get("Content-Type"))
			}
			got := rec.Body.Bytes()
			switch {
			case tt.method == http.MethodHead:
				if len(got) > 0 {
					t.Errorf("HEAD: %d bytes of body", len(got))
				}
				if made > streamAt+line {
					t.Errorf("HEAD: %d bytes made, want no more than the buffer's %d", made, streamAt)
				}
				return
			case tt.gzip:
				zr, err := gzip.NewReader(bytes.NewReader(got))
				if err != nil {
					t.Fatal(err)
				}
				if got, err = io.ReadAll(zr); err != nil {
					t.Fatal(err)
				}
			}
			if !bytes.Equal(got, want) {
				t.Errorf("%d bytes, want the %d written", len(got), len(want))
			}
		})
	}
}
