package server_test

import (
	"bufio"
	"bytes"
	"io"
	"maps"
	"net"
	"net/http"
	"net/http/httptest"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"ballot/server"
)

// syncBuffer is an access log the test reads while the server writes it.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// TestConnectionAnswersEachRequestItsOwn: requests pipelined on one HTTP/1
// connection, whose peer is parsed once and whose responses' header
// values are made in one store, each get the answer the same request gets
// on its own, field for field and byte for byte (a twin server, on the
// same clock, answers each through ServeHTTP, as the loopback client
// 127.0.0.1), and the access log names the peer on each line.
func TestConnectionAnswersEachRequestItsOwn(t *testing.T) {
	log := &syncBuffer{}
	s, _ := newServer(t, server.Options{AccessLog: true, AccessLogText: log})
	twin, _ := newServer(t, server.Options{})
	addr := serveLoopback(t, s, server.DefaultTimeouts())

	requests := []struct {
		method, target string
		header         map[string]string
	}{
		{"GET", "/api/public/v1/parties", nil},
		{"GET", "/api/public/v1/candidates?district=5", nil},
		{"HEAD", "/api/public/v1/districts", nil},
		{"GET", "/api/public/v1/candidates?district=5", map[string]string{"Accept-Encoding": "gzip"}},
		{"GET", "/api/public/v1/nope", nil},
		{"OPTIONS", "/api/public/v1/parties", map[string]string{"Origin": "https://news.example", "Access-Control-Request-Method": "GET"}},
		{"GET", "/api/public/v1/parties", map[string]string{"If-None-Match": `W/"nothing", *`}},
		{"GET", "/api/public/v1/candidates?limit=0", nil},
		{"GET", "/api/public/v1/candidates?limit=2&offset=3", nil},
		{"GET", "/api/public/v1/results/5", nil},
		{"DELETE", "/api/public/v1/parties", nil},
		{"GET", "/api/public/v1/parties", nil},
	}
	var sent bytes.Buffer
	for _, q := range requests {
		sent.WriteString(q.method + " " + q.target + " HTTP/1.1\r\nHost: " + addr + "\r\n")
		for k, v := range q.header {
			sent.WriteString(k + ": " + v + "\r\n")
		}
		sent.WriteString("\r\n")
	}
	c, err := net.DialTimeout("tcp", addr, 10*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	_ = c.SetDeadline(time.Now().Add(30 * time.Second))
	if _, err := c.Write(sent.Bytes()); err != nil {
		t.Fatal(err)
	}
	br := bufio.NewReader(c)
	for i, q := range requests {
		what := q.method + " " + q.target
		req := httptest.NewRequest(q.method, q.target, nil)
		resp, err := http.ReadResponse(br, req)
		if err != nil {
			t.Fatalf("request %d, %s: %v", i+1, what, err)
		}
		body, err := io.ReadAll(resp.Body)
		resp.Body.Close()
		if err != nil {
			t.Fatalf("request %d, %s: %v", i+1, what, err)
		}
		req.RemoteAddr = "127.0.0.1:40000"
		for k, v := range q.header {
			req.Header.Set(k, v)
		}
		want := httptest.NewRecorder()
		twin.ServeHTTP(want, req)
		if resp.StatusCode != want.Code {
			t.Errorf("request %d, %s: status %d, alone %d", i+1, what, resp.StatusCode, want.Code)
		}
		got := maps.Clone(resp.Header)
		delete(got, "Date")
		if !maps.EqualFunc(got, want.Header(), func(a, b []string) bool { return strings.Join(a, "\n") == strings.Join(b, "\n") }) {
			t.Errorf("request %d, %s: header\n%v\nalone\n%v", i+1, what, got, want.Header())
		}
		if !bytes.Equal(body, want.Body.Bytes()) {
			t.Errorf("request %d, %s: body\n%.300q\nalone\n%.300q", i+1, what, body, want.Body.Bytes())
		}
	}
	// The last line is written after its answer: wait for it.
	deadline := time.Now().Add(20 * time.Second)
	for strings.Count(log.String(), "\n") < len(requests) && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	lines := strings.Split(strings.TrimSuffix(log.String(), "\n"), "\n")
	if len(lines) != len(requests) {
		t.Fatalf("%d access-log lines for %d requests:\n%s", len(lines), len(requests), log)
	}
	peer := regexp.MustCompile(` client_ip=127\.0\.0\.1 method=`)
	for i, line := range lines {
		if !peer.MatchString(line) {
			t.Errorf("access-log line %d does not name the peer 127.0.0.1: %s", i+1, line)
		}
	}
}
