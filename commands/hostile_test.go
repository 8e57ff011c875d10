package commands_test

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"errors"
	"io"
	"net"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// rawExchange writes payload on a fresh TCP connection and reads until the
// server closes it or the deadline passes. It returns the status code of the
// first status line (0 if none), everything read, and whether the server
// closed the connection.
func rawExchange(t *testing.T, addr string, payload []byte) (int, []byte, bool) {
	t.Helper()
	conn, err := net.DialTimeout("tcp", addr, 5*time.Second)
	if err != nil {
		t.Fatalf("dial %s: %v", addr, err)
	}
	defer conn.Close()
	_ = conn.SetDeadline(time.Now().Add(5 * time.Second))
	writeErr := make(chan error, 1)
	go func() {
		_, err := conn.Write(payload)
		writeErr <- err
	}()
	var got bytes.Buffer
	_, err = io.Copy(&got, conn)
	closed := err == nil || errors.Is(err, syscall.ECONNRESET)
	<-writeErr // a write cut short by the server's answer is fine
	status := 0
	if line, _, ok := strings.Cut(got.String(), "\r\n"); ok {
		f := strings.Fields(line)
		if len(f) >= 2 && strings.HasPrefix(f[0], "HTTP/1.") {
			status, _ = strconv.Atoi(f[1])
		}
	}
	return status, got.Bytes(), closed
}

// TestE2EHostileInput sends what a careless or hostile client might: never a
// 5xx, never internals in a body.
func TestE2EHostileInput(t *testing.T) {
	t.Parallel()
	p := serveInProcess(t)
	t.Run("net/http", func(t *testing.T) {
		for _, tt := range hostileRequests() {
			t.Run(tt.name, func(t *testing.T) { checkHostileRequest(t, p, tt) })
		}
	})
	t.Run("raw TCP", func(t *testing.T) {
		for _, tt := range hostileRawRequests(p.addr) {
			t.Run(tt.name, func(t *testing.T) { checkHostileRawRequest(t, p.addr, tt) })
		}
	})
	// The process stops gracefully after all that (checked by the cleanup).
}

// hostileRequest is a request Go's client can send, and the status it must
// get.
type hostileRequest struct {
	name   string
	method string
	path   string
	hdr    map[string]string
	status int    // 0: any answer below 500
	param  string // the parameter a 400 must name
}

func hostileRequests() []hostileRequest {
	long := func(s string) string { return strings.Repeat(s, 6000/len(s)) }
	return []hostileRequest{
		{"long limit", "GET", e2eBase + "/candidates?limit=" + long("9"), nil, 400, "limit"},
		{"long district", "GET", e2eBase + "/candidates?district=" + long("a"), nil, 400, "district"},
		{"long numeric district", "GET", e2eBase + "/candidates?district=" + long("1"), nil, 400, "district"},
		{"long party", "GET", e2eBase + "/candidates?party=" + long("a"), nil, 400, "party"},
		{"long slug-like party", "GET", e2eBase + "/candidates?party=" + long("ab-"), nil, 400, "party"},
		{"long unknown parameter", "GET", e2eBase + "/candidates?x=" + long("y"), nil, 200, ""},
		{"long parameter name", "GET", e2eBase + "/candidates?" + long("z") + "=1", nil, 200, ""},
		{"many parameters", "GET", e2eBase + "/candidates?" + long("a=1&"), nil, 200, ""},
		{"many limits", "GET", e2eBase + "/candidates?" + long("limit=1&"), nil, 400, "limit"},
		{"bare percent", "GET", e2eBase + "/candidates?limit=%", nil, 400, "limit"},
		{"bad escape", "GET", e2eBase + "/candidates?district=%zz", nil, 400, "district"},
		{"escaped NUL", "GET", e2eBase + "/candidates?party=%00", nil, 400, "party"},
		{"invalid UTF-8", "GET", e2eBase + "/candidates?party=%ff%fe", nil, 400, "party"},
		{"invalid UTF-8 slug", "GET", e2eBase + "/candidates?party=p%ffn", nil, 400, "party"},
		{"escaped newline", "GET", e2eBase + "/candidates?limit=1%0d%0aX-Injected:%201", nil, 400, "limit"},
		{"bad escape in a name", "GET", e2eBase + "/candidates?%zz=1&%=2", nil, 200, ""},
		{"semicolon", "GET", e2eBase + "/candidates?limit=1;limit=2", nil, 400, "limit"},
		{"path traversal", "GET", e2eBase + "/../../etc/passwd", nil, 404, ""},
		{"encoded path traversal", "GET", e2eBase + "/%2e%2e/%2e%2e/etc/passwd", nil, 404, ""},
		{"encoded slash", "GET", e2eBase + "%2fparties", nil, 0, ""},
		{"double slash", "GET", "//api/public/v1/parties", nil, 404, ""},
		{"dot segment", "GET", e2eBase + "/./parties", nil, 404, ""},
		{"long path", "GET", e2eBase + "/" + long("x/"), nil, 404, ""},
		{"method BREW", "BREW", e2eBase + "/parties", nil, 405, ""},
		{"method PROPFIND", "PROPFIND", e2eBase + "/districts", nil, 405, ""},
		{"method TRACE", "TRACE", e2eBase + "/districts", nil, 405, ""},
		{"method CONNECT-like", "CONNECTX", e2eBase + "/candidates", nil, 405, ""},
		{"300-char method", strings.Repeat("M", 300), e2eBase + "/candidates", nil, 405, ""},
		{"lower-case get", "get", e2eBase + "/parties", nil, 405, ""},
		{"BREW elsewhere", "BREW", "/coffee", nil, 404, ""},
		{"junk headers", "GET", e2eBase + "/parties", map[string]string{
			"Accept":          long("x"),
			"Accept-Encoding": "gzip;q=abc, br;q=, *;q=-1",
			"If-None-Match":   long(`"`),
			"Origin":          "null",
			"X-Forwarded-For": "not an address, ::1, 999.1.1.1",
			"Forwarded":       "for=\"[::1\";;;",
			"Cookie":          long("a=b; "),
			"Range":           "bytes=0-1",
		}, 200, ""},
		{"junk preflight", "OPTIONS", e2eBase + "/parties", map[string]string{
			"Origin":                         "https://evil.example",
			"Access-Control-Request-Method":  "DELETE",
			"Access-Control-Request-Headers": "X-A\tb, ,,\"<script>",
		}, 204, ""},
	}
}

// checkHostileRequest sends tt: never a 5xx nor internals, always the CORS
// and rate-limit headers, and the status and body tt wants.
func checkHostileRequest(t *testing.T, p *e2eProc, tt hostileRequest) {
	c := p.client(t, "127.0.0.1")
	r := c.send(t, tt.method, tt.path, tt.hdr)
	if r.status >= 500 {
		t.Fatalf("%s %.100s: status %d; body %s", tt.method, tt.path, r.status, r.body)
	}
	checkNoLeak(t, r.body)
	if r.header.Get("Access-Control-Allow-Origin") != "*" || r.header.Get("X-RateLimit-Limit") == "" {
		t.Errorf("status %d without the CORS and rate-limit headers: %q", r.status, r.header)
	}
	if r.header.Get("Content-Encoding") == "gzip" {
		zr, err := gzip.NewReader(bytes.NewReader(r.body))
		if err != nil {
			t.Fatalf("Content-Encoding gzip, but the body is not gzip: %v", err)
		}
		if r.body, err = io.ReadAll(zr); err != nil {
			t.Fatalf("Content-Encoding gzip, but the body is not valid gzip: %v", err)
		}
	}
	switch {
	case tt.status == 0: // any answer below 500
	case tt.status == http.StatusOK:
		checkOK(t, r)
	case tt.status == http.StatusNoContent:
		if r.status != tt.status {
			t.Errorf("status %d, want 204", r.status)
		}
		if strings.ContainsAny(r.header.Get("Access-Control-Allow-Headers"), "\"<\t") {
			t.Errorf("junk echoed in Access-Control-Allow-Headers: %q", r.header.Get("Access-Control-Allow-Headers"))
		}
	default:
		pb := checkProblem(t, r, tt.status)
		if tt.param != "" && !slices.ContainsFunc(pb.InvalidParams, func(ip struct {
			Name   string `json:"name"`
			Reason string `json:"reason"`
		}) bool {
			return ip.Name == tt.param
		}) {
			t.Errorf("invalid_params does not name %s: %s", tt.param, r.body)
		}
		if len(r.body) > 4096 {
			t.Errorf("a %d-byte problem body for a hostile request: the input seems echoed", len(r.body))
		}
	}
}

// hostileRawRequest is bytes written on a TCP connection, and the status
// they must get.
type hostileRawRequest struct {
	name    string
	payload []byte
	status  int // the handler's answer; 0: the HTTP library's own 4xx
}

func hostileRawRequests(addr string) []hostileRawRequest {
	req := func(line string, headers ...string) []byte {
		return []byte(line + "\r\nHost: " + addr + "\r\nConnection: close\r\n" + strings.Join(headers, "") + "\r\n")
	}
	return []hostileRawRequest{
		{"well-formed, for reference", req("GET " + e2eBase + "/parties HTTP/1.1"), 200},
		{"HTTP/1.0", []byte("GET " + e2eBase + "/districts HTTP/1.0\r\n\r\n"), 200},
		{"NUL in the path", req("GET " + e2eBase + "/par\x00ties HTTP/1.1"), 0},
		{"NUL in the query", req("GET " + e2eBase + "/candidates?limit=1\x00 HTTP/1.1"), 0},
		{"control characters in the query", req("GET " + e2eBase + "/candidates?party=\x01\x1b[31m\x7f HTTP/1.1"), 0},
		{"bare CR in the request line", req("GET " + e2eBase + "/parties\rX HTTP/1.1"), 0},
		{"NUL in a header value", req("GET "+e2eBase+"/parties HTTP/1.1", "X-Junk: a\x00b\r\n"), 0},
		{"control character in a header value", req("GET "+e2eBase+"/parties HTTP/1.1", "X-Junk: a\x07\x1bb\r\n"), 0},
		{"space in a header name", req("GET "+e2eBase+"/parties HTTP/1.1", "X Junk: a\r\n"), 0},
		{"header without colon", req("GET "+e2eBase+"/parties HTTP/1.1", "NoColonHere\r\n"), 0},
		{"8-bit bytes in a header", req("GET "+e2eBase+"/parties HTTP/1.1", "X-Junk: \xff\xfe\xfd\r\n"), 200},
		{"bad escape in the path", req("GET " + e2eBase + "/%zz HTTP/1.1"), 0},
		{"bare percent in the path", req("GET " + e2eBase + "/% HTTP/1.1"), 0},
		{"escaped NUL in the path", req("GET " + e2eBase + "/%00 HTTP/1.1"), 404},
		{"invalid UTF-8 in the path", req("GET " + e2eBase + "/%ff%fe HTTP/1.1"), 404},
		{"raw 8-bit path", req("GET " + e2eBase + "/\xff\xfe HTTP/1.1"), 404},
		{"raw path traversal", req("GET " + e2eBase + "/../../../../etc/passwd HTTP/1.1"), 404},
		{"absolute-form target", req("GET http://" + addr + e2eBase + "/parties HTTP/1.1"), 200},
		{"asterisk target", req("GET * HTTP/1.1"), 404},
		{"no target", req("GET  HTTP/1.1"), 0},
		{"two Hosts", req("GET "+e2eBase+"/parties HTTP/1.1", "Host: other\r\n"), 0},
		{"no Host", []byte("GET " + e2eBase + "/parties HTTP/1.1\r\nConnection: close\r\n\r\n"), 0},
		{"body on a GET", append(req("GET "+e2eBase+"/parties HTTP/1.1", "Content-Length: 5\r\n"), "hello"...), 200},
		{"bad Content-Length", req("GET "+e2eBase+"/parties HTTP/1.1", "Content-Length: -1\r\n"), 0},
		{"huge Content-Length", req("POST "+e2eBase+"/parties HTTP/1.1", "Content-Length: 99999999999999999999\r\n"), 0},
		{"header over 64 KiB", req("GET "+e2eBase+"/parties HTTP/1.1", "X-Big: "+strings.Repeat("b", 100<<10)+"\r\n"), 0},
		{"many headers", req("GET "+e2eBase+"/parties HTTP/1.1", strings.Repeat("X-Many: 1\r\n", 8000)), 0},
		{"not HTTP at all", []byte("HELLO WORLD\r\n\r\n"), 0},
		{"only a method", []byte("GET\r\n\r\n"), 0},
		{"binary junk", []byte("\x16\x03\x01\x02\x00\x01\x00\x01\xfc\x03\x03\x00\xff\r\n\r\n"), 0},
		{"SSH banner", []byte("SSH-2.0-OpenSSH_9.6\r\n\r\n"), 0},
	}
}

// checkHostileRawRequest writes tt's bytes: a status line, never a 5xx nor
// internals, the status tt wants, and the connection closed.
func checkHostileRawRequest(t *testing.T, addr string, tt hostileRawRequest) {
	status, got, closed := rawExchange(t, addr, tt.payload)
	if status == 0 {
		t.Fatalf("no HTTP status line in the answer: %.200q", got)
	}
	if status >= 500 {
		t.Errorf("status %d: %.300q", status, got)
	}
	switch {
	case tt.status == 0 && (status < 400 || status > 499):
		t.Errorf("status %d, want a 4xx: %.300q", status, got)
	case tt.status != 0 && status != tt.status:
		t.Errorf("status %d, want %d: %.300q", status, tt.status, got)
	case tt.status != 0:
		// Answered by the API: its headers and body type.
		resp, err := http.ReadResponse(bufio.NewReader(bytes.NewReader(got)), nil)
		if err != nil {
			t.Fatalf("unreadable answer: %v: %.300q", err, got)
		}
		resp.Body.Close()
		if resp.Header.Get("Access-Control-Allow-Origin") != "*" || resp.Header.Get("X-RateLimit-Limit") != strconv.Itoa(e2eLimit) {
			t.Errorf("the answer lacks the CORS or rate-limit headers: %q", resp.Header)
		}
		want := "application/json; charset=utf-8"
		if status != http.StatusOK {
			want = "application/problem+json"
		}
		if got := resp.Header.Get("Content-Type"); got != want {
			t.Errorf("Content-Type = %q, want %q", got, want)
		}
	}
	if !closed {
		t.Errorf("the server did not close the connection within the deadline")
	}
	checkNoLeak(t, got)
}

// TestProdSlowHeaderCutOff sends half a request and nothing more: the
// server closes the connection after read_header_timeout, while other
// clients are answered normally.
func TestProdSlowHeaderCutOff(t *testing.T) {
	t.Parallel()
	p := serveInProcess(t, "--read-header-timeout", "300ms", "--admin-listen", "")
	conn, err := net.DialTimeout("tcp", p.addr, 5*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	start := time.Now()
	if _, err := conn.Write([]byte("GET " + e2eBase + "/parties HTTP/1.1\r\nHost: x\r\n")); err != nil {
		t.Fatal(err)
	}
	_ = conn.SetReadDeadline(time.Now().Add(5 * time.Second))

	// Meanwhile a normal client is answered.
	checkOK(t, p.client(t, "127.0.0.2").send(t, http.MethodGet, e2eBase+"/parties", nil))

	got, err := io.ReadAll(conn)
	took := time.Since(start)
	var ne net.Error
	switch {
	case errors.As(err, &ne) && ne.Timeout():
		t.Fatalf("the connection was still open after %v", took)
	case err != nil && !errors.Is(err, syscall.ECONNRESET):
		t.Fatalf("reading: %v", err)
	}
	if len(got) > 0 && !bytes.HasPrefix(got, []byte("HTTP/1.1 408 ")) {
		t.Errorf("the server answered the cut-off client with %.100q, want nothing or a 408", got)
	}
	// Well under the 5 s default: the configured 300 ms cut it off (a
	// loaded machine running the tests in parallel may add a few seconds).
	if took < 250*time.Millisecond || took > 4*time.Second {
		t.Errorf("the connection closed %v after the partial request, want about read_header_timeout (300ms)", took)
	}
	t.Logf("cut off after %v with %q", took.Round(time.Millisecond), got)

	// A client that sends its headers slowly but within the timeout is
	// answered.
	conn2, err := net.DialTimeout("tcp", p.addr, 5*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	defer conn2.Close()
	_ = conn2.SetDeadline(time.Now().Add(5 * time.Second))
	for _, part := range []string{"GET " + e2eBase + "/parties HTTP/1.1\r\n", "Host: x\r\n", "Connection: close\r\n\r\n"} {
		if _, err := conn2.Write([]byte(part)); err != nil {
			t.Fatal(err)
		}
		time.Sleep(50 * time.Millisecond)
	}
	resp, err := http.ReadResponse(bufio.NewReader(conn2), nil)
	if err != nil {
		t.Fatalf("a client within the timeout: %v", err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Errorf("a client within the timeout: status %d", resp.StatusCode)
	}
}
