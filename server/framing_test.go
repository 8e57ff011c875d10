package server_test

import (
	"bufio"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"ballot/server"
)

// TestBodyFramingClosesConnection: a request that frames a body with
// Transfer-Encoding (with Content-Length beside it or not) is answered, and
// the connection is closed after the answer (RFC 9112 §6.1: such a request is
// the shape request smuggling takes). A request framed by Content-Length
// alone keeps its connection.
func TestBodyFramingClosesConnection(t *testing.T) {
	s, _ := newServer(t, server.Options{Pages: true})
	ts := httptest.NewServer(s)
	defer ts.Close()
	addr := ts.Listener.Addr().String()

	tests := []struct {
		name    string
		request string
		status  int
		closed  bool
	}{
		{"chunked and Content-Length", "GET /api/public/v1/parties HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\nContent-Length: 5\r\n\r\n0\r\n\r\n", 200, true},
		{"Content-Length and chunked, unknown path", "GET /nowhere HTTP/1.1\r\nHost: x\r\nContent-Length: 3\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n", 404, true},
		{"chunked and Content-Length, OPTIONS", "OPTIONS /api/public/v1/candidates HTTP/1.1\r\nHost: x\r\nOrigin: https://a.example\r\nAccess-Control-Request-Method: GET\r\nTransfer-Encoding: chunked\r\nContent-Length: 5\r\n\r\n0\r\n\r\n", 204, true},
		{"chunked and Content-Length, method not allowed", "POST /api/public/v1/districts HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\nContent-Length: 5\r\n\r\n0\r\n\r\n", 405, true},
		{"chunked and Content-Length, a page", "GET / HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\nContent-Length: 5\r\n\r\n0\r\n\r\n", 200, true},
		{"chunked alone", "GET /api/public/v1/parties HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n", 200, true},
		{"Content-Length alone", "GET /api/public/v1/parties HTTP/1.1\r\nHost: x\r\nContent-Length: 5\r\n\r\nhello", 200, false},
		{"no body", "GET /api/public/v1/parties HTTP/1.1\r\nHost: x\r\n\r\n", 200, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			conn, err := net.Dial("tcp", addr)
			if err != nil {
				t.Fatal(err)
			}
			defer conn.Close()
			if err := conn.SetDeadline(time.Now().Add(30 * time.Second)); err != nil {
				t.Fatal(err)
			}
			if _, err := io.WriteString(conn, tt.request); err != nil {
				t.Fatal(err)
			}
			br := bufio.NewReader(conn)
			resp, err := http.ReadResponse(br, nil)
			if err != nil {
				t.Fatalf("reading the answer: %v", err)
			}
			if _, err := io.Copy(io.Discard, resp.Body); err != nil {
				t.Fatalf("reading the body: %v", err)
			}
			resp.Body.Close()
			if resp.StatusCode != tt.status {
				t.Errorf("status %d, want %d", resp.StatusCode, tt.status)
			}
			// resp.Close: the answer said "Connection: close" (which
			// ReadResponse takes out of the header).
			if resp.Close != tt.closed {
				t.Errorf("Connection: close in the answer: %v, want %v", resp.Close, tt.closed)
			}
			// A second request on the same connection: answered when the
			// connection is kept, the end of the stream when it is closed.
			if _, err := io.WriteString(conn, "GET /api/public/v1/districts HTTP/1.1\r\nHost: x\r\n\r\n"); err != nil && !tt.closed {
				t.Fatal(err)
			}
			second, err := http.ReadResponse(br, nil)
			if tt.closed {
				if err == nil {
					second.Body.Close()
					t.Errorf("a second request on the connection was answered (%d); want the connection closed", second.StatusCode)
				}
				return
			}
			if err != nil {
				t.Fatalf("a second request on a kept connection: %v", err)
			}
			second.Body.Close()
			if second.StatusCode != http.StatusOK {
				t.Errorf("second request: status %d, want 200", second.StatusCode)
			}
		})
	}
}
