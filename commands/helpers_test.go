package commands_test

// Helpers shared by the command tests. The tests are black-box: they run
// ballot's command line as a user would ("ballot serve --listen
// 127.0.0.1:0", no config file, no environment) and talk to it over real
// TCP on loopback. Most run it in this process, through commands.Run with
// buffers for stdout and stderr (run, serveInProcess): a serve is stopped
// by ending its context, as main does on SIGTERM, expecting exit 0; a
// command that reads config.toml or BALLOT_ variables runs in a directory
// and environment of its own (runIn, serveIn). A test that needs a real process (a
// signal, an exit status, its peak memory) runs the binary, built once
// per test binary (e2eBuild), and stops it by its PID with SIGTERM (SIGKILL
// after a timeout); such a test is end-to-end (testprograms.EndToEnd) and
// go test -short skips it. Nothing here imports the product's packages but
// commands: the expectations come from the contract (API.md), not from the
// code; only internal/apitest holds every answer to the published OpenAPI
// document as well.
//
// Every helper is bounded: loops have counts and deadlines, and waits are
// for an event (a log line, a counter, a closed pipe), never a fixed time.

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime/debug"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"
	"unicode"

	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"
	"golang.org/x/text/runes"
	"golang.org/x/text/transform"
	"golang.org/x/text/unicode/norm"

	"ballot/commands"
	"ballot/internal/apitest"
	"ballot/internal/testprograms"
)

const (
	e2eBase    = "/api/public/v1"
	e2eLimit   = 60 // the default rate limit, per client IP and endpoint
	e2eTimeout = 10 * time.Second
	// e2eStartWait bounds a start: the embedded archive's 25 elections
	// are checked whole before serve listens, and under -race on a shared
	// machine that takes seconds.
	e2eStartWait = time.Minute
)

var (
	e2eBuildOnce sync.Once
	e2eBinary    string
	e2eBuildErr  error
	e2eBuildDir  string

	e2eListening = regexp.MustCompile(`ballot: serving ".*" \(version [^)]*\) on https?://(127\.0\.0\.1:\d+)/api/public/v1/`)
	e2eUUID      = regexp.MustCompile(`^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$`)
	e2eSlug      = regexp.MustCompile(`^[a-z0-9]+(-[a-z0-9]+)*$`)
	e2eColor     = regexp.MustCompile(`^#[0-9a-f]{6}$`)
	e2eTime      = regexp.MustCompile(`^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$`)
	e2eGenerated = regexp.MustCompile(`"generatedAt":"[^"]*"`)
)

func TestMain(m *testing.M) {
	// A command run in this process reads the environment as the binary
	// would, and the binary is started with none of the caller's BALLOT_
	// variables (launchServe): so neither sees those it reads, which serve's
	// help lists. The tests' own (BALLOT_TEST_REQUIRE, BALLOT_SCREENSHOTS)
	// stay.
	var help bytes.Buffer
	commands.Run(context.Background(), []string{"ballot", "serve", "--help"}, &help, io.Discard)
	read := regexp.MustCompile(`\$(BALLOT_[A-Z0-9_]+)`).FindAllStringSubmatch(help.String(), -1)
	if len(read) == 0 {
		fmt.Fprintf(os.Stderr, "ballot serve --help names no BALLOT_ variable:\n%s", &help)
		os.Exit(1)
	}
	for _, m := range read {
		_ = os.Unsetenv(m[1])
	}
	// serve --watch in this process (watch_test.go) reloads after 25 ms
	// of quiet rather than 250: a reload in the middle of a copy is
	// refused and the next one serves the whole dataset, as they wait for
	// it to. A serve started as a program keeps its own.
	commands.SetWatchDelay(25 * time.Millisecond)
	code := testprograms.Main(m, "ballot/commands")
	if e2eBuildDir != "" {
		_ = os.RemoveAll(e2eBuildDir)
	}
	os.Exit(code)
}

// e2eBuild builds the binary once for the whole test binary. A test that
// runs the binary is end-to-end: under -short it is skipped here.
func e2eBuild(t *testing.T) string {
	t.Helper()
	testprograms.EndToEnd(t, "runs the built binary")
	e2eBuildOnce.Do(func() {
		dir, err := os.MkdirTemp("", "ballot-e2e-")
		if err != nil {
			e2eBuildErr = err
			return
		}
		e2eBuildDir = dir
		e2eBinary = filepath.Join(dir, "ballot")
		goTool, err := exec.LookPath("go")
		if err != nil {
			e2eBuildErr = fmt.Errorf("the go command is needed to build the binary: %w", err)
			return
		}
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
		defer cancel()
		cmd := exec.CommandContext(ctx, goTool, "build", "-o", e2eBinary, "..")
		out, err := cmd.CombinedOutput()
		if err != nil {
			e2eBuildErr = fmt.Errorf("go build -o %s ..: %v\n%s", e2eBinary, err, out)
		}
	})
	if e2eBuildErr != nil {
		t.Fatal(e2eBuildErr)
	}
	return e2eBinary
}

// stderrLog collects a process's stderr and spots the "serving" line.
type stderrLog struct {
	mu    sync.Mutex
	buf   bytes.Buffer
	addr  string
	found chan string
}

func (l *stderrLog) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.buf.Write(p)
	if l.addr == "" {
		m := e2eListening.FindSubmatch(l.buf.Bytes())
		if m == nil {
			m = prodAPIJSON.FindSubmatch(l.buf.Bytes()) // --log-format json
		}
		if m != nil {
			l.addr = string(m[1])
			l.found <- l.addr
		}
	}
	return len(p), nil
}

func (l *stderrLog) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.buf.String()
}

// shortened is the log with each line cut to a readable length: hostile
// requests make very long access-log lines.
func (l *stderrLog) shortened() string {
	lines := strings.SplitAfter(l.String(), "\n")
	for i, line := range lines {
		if len(line) > 300 {
			lines[i] = line[:300] + fmt.Sprintf("… (%d bytes)\n", len(line))
		}
	}
	return strings.Join(lines, "")
}

// e2eProc is one running ballot serve: a process, or a run of
// commands.Run in this process (serveInProcess).
type e2eProc struct {
	t      *testing.T
	cmd    *exec.Cmd          // nil in-process
	cancel context.CancelFunc // in-process: ending the context stands for SIGTERM
	addr   string             // host:port
	stderr *stderrLog
	done   chan struct{}
	err    error // Wait's result, or in-process Run's exit code as an error, once done is closed

	signaled atomic.Bool
	waited   sync.Once
}

// String names the serve in messages: its PID, or that it runs in-process.
func (p *e2eProc) String() string {
	if p.cmd == nil {
		return "ballot serve (in-process)"
	}
	return fmt.Sprintf("ballot serve (pid %d)", p.cmd.Process.Pid)
}

// inProcessServes counts the serves running in this process. Each sets
// the process's soft memory limit for its own heap; the first to start
// keeps the limit the tests run under, and the last to end puts it back.
var inProcessServes struct {
	sync.Mutex
	n     int
	limit int64
}

func inProcessServeStarts() {
	inProcessServes.Lock()
	defer inProcessServes.Unlock()
	if inProcessServes.n == 0 {
		inProcessServes.limit = debug.SetMemoryLimit(-1)
	}
	inProcessServes.n++
}

func inProcessServeEnds() {
	inProcessServes.Lock()
	defer inProcessServes.Unlock()
	if inProcessServes.n--; inProcessServes.n == 0 {
		debug.SetMemoryLimit(inProcessServes.limit)
	}
}

// runServe runs "ballot ARGS…" (a serve) in this process through
// commands.Run until ctx ends, its output to stderr, and returns a channel
// closed once Run has returned, with its exit code other than 0 as an error
// in *exit by then. The two in-process serves of the tests (serveInProcess,
// watchServe) run through it, so that each keeps the soft memory limit of
// the tests as the others do (inProcessServeStarts).
func runServe(ctx context.Context, stderr io.Writer, exit *error, args ...string) chan struct{} {
	done := make(chan struct{})
	inProcessServeStarts()
	go func() {
		defer close(done)
		defer inProcessServeEnds()
		if code := commands.Run(ctx, append([]string{"ballot"}, args...), io.Discard, stderr); code != commands.ExitOK {
			*exit = fmt.Errorf("exit status %d", code)
		}
	}()
	return done
}

// serveInProcess runs "ballot serve --listen 127.0.0.1:0 ARGS…" in this
// process through commands.Run, in the package's directory (which has no
// config.toml) and with no BALLOT_ variables (TestMain), waits for its
// address, and registers its graceful stop (its context ended, as main
// ends it on SIGTERM; exit 0) as a cleanup. It answers as the binary
// would; a test that sends it a signal, or reads its exit status or
// memory, starts the binary instead (startServerWith).
func serveInProcess(t *testing.T, args ...string) *e2eProc {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	p := &e2eProc{t: t, cancel: cancel, stderr: &stderrLog{found: make(chan string, 1)}}
	p.done = runServe(ctx, p.stderr, &p.err, append([]string{"serve", "--listen", "127.0.0.1:0"}, args...)...)
	p.started(t)
	return p
}

// startServer starts "ballot serve --listen 127.0.0.1:0" in a fresh, empty
// working directory with no BALLOT_* variables, waits for its address, and
// registers its graceful stop (SIGTERM, exit 0) as a cleanup.
func startServer(t *testing.T) *e2eProc {
	t.Helper()
	return startServerWith(t)
}

// launchServe starts "ballot serve --listen 127.0.0.1:0" with args in dir,
// with none of the caller's BALLOT_ variables but env. The caller stops it.
func launchServe(t *testing.T, dir string, env []string, args ...string) *e2eProc {
	t.Helper()
	bin := e2eBuild(t)
	cmd := exec.Command(bin, append([]string{"serve", "--listen", "127.0.0.1:0"}, args...)...)
	cmd.Dir = dir
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "BALLOT_") {
			cmd.Env = append(cmd.Env, kv)
		}
	}
	cmd.Env = append(cmd.Env, env...)
	p := &e2eProc{t: t, cmd: cmd, stderr: &stderrLog{found: make(chan string, 1)}, done: make(chan struct{})}
	cmd.Stdout = io.Discard
	cmd.Stderr = p.stderr
	if err := cmd.Start(); err != nil {
		t.Fatalf("starting %s: %v", bin, err)
	}
	go func() {
		p.err = cmd.Wait()
		close(p.done)
	}()
	return p
}

// startServerWith is startServer with more arguments after
// "serve --listen 127.0.0.1:0".
func startServerWith(t *testing.T, args ...string) *e2eProc {
	t.Helper()
	p := launchServe(t, t.TempDir(), nil, args...)
	p.started(t)
	return p
}

// started registers p's graceful stop as a cleanup and waits for the
// "serving" line with its address, in the text or the JSON log.
func (p *e2eProc) started(t *testing.T) {
	t.Helper()
	t.Cleanup(func() {
		if log := p.stderr.String(); prodAPIJSON.MatchString(log) && !strings.Contains(log, "ballot: serving") {
			prodStopJSON(t, p)
		} else {
			p.stop(t)
		}
		if t.Failed() {
			t.Logf("stderr of %s:\n%s", p, p.stderr.shortened())
		}
	})
	select {
	case p.addr = <-p.stderr.found:
	case <-p.done:
		t.Fatalf("ballot serve exited before listening: %v\nstderr:\n%s", p.err, p.stderr)
	case <-time.After(e2eStartWait):
		t.Fatalf("ballot serve did not print its address within %v\nstderr:\n%s", e2eStartWait, p.stderr)
	}
}

// stop sends SIGTERM unless it was sent already, waits for the exit
// (SIGKILL after a timeout) and checks that the process stopped gracefully
// with status 0. It checks once.
func (p *e2eProc) stop(t *testing.T) {
	t.Helper()
	select {
	case <-p.done:
		if !p.signaled.Load() {
			t.Errorf("%s exited on its own before being stopped: %v", p, p.err)
			return
		}
	default:
	}
	p.terminate(t)
	p.waited.Do(func() { p.waitExit(t) })
}

// terminate sends SIGTERM, once; in-process, it ends serve's context.
func (p *e2eProc) terminate(t *testing.T) {
	t.Helper()
	if p.signaled.Swap(true) {
		return
	}
	if p.cmd == nil {
		p.cancel()
		return
	}
	if err := p.cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Errorf("SIGTERM to pid %d: %v", p.cmd.Process.Pid, err)
	}
}

// exited waits for the process after SIGTERM; after 15 s it kills it,
// says so and returns false. In-process, there is nothing to kill: it says
// so and returns false.
func (p *e2eProc) exited(t *testing.T) bool {
	t.Helper()
	select {
	case <-p.done:
		return true
	case <-time.After(15 * time.Second):
		if p.cmd == nil {
			t.Errorf("%s did not return within 15 s of its context's end", p)
			return false
		}
		_ = p.cmd.Process.Signal(syscall.SIGKILL)
		<-p.done
		t.Errorf("ballot serve (pid %d) did not exit within 15 s of SIGTERM; killed", p.cmd.Process.Pid)
		return false
	}
}

// waitExit waits for the process after SIGTERM and checks its exit.
func (p *e2eProc) waitExit(t *testing.T) {
	t.Helper()
	if !p.exited(t) {
		return
	}
	if p.err != nil || p.cmd != nil && p.cmd.ProcessState.ExitCode() != 0 {
		t.Errorf("%s exited with %v after SIGTERM, want a graceful exit 0", p, p.err)
	}
	log := p.stderr.String()
	if !strings.Contains(log, "ballot: stopped") {
		t.Errorf("stderr does not say \"ballot: stopped\" after SIGTERM")
	}
	if strings.Contains(log, "panic serving") || strings.Contains(log, "goroutine ") {
		var panics []string
		for _, line := range strings.Split(log, "\n") {
			if strings.Contains(line, "panic serving") || strings.Contains(line, "goroutine ") {
				panics = append(panics, line)
			}
		}
		t.Errorf("the server logged a panic, whole:\n%s", strings.Join(panics, "\n"))
	}
}

func (p *e2eProc) url(path string) string { return "http://" + p.addr + path }

// e2eClient is an HTTP client bound to one loopback source address. It
// keeps track of how many requests it made to each rate-limit bucket, so
// every response's rate-limit headers can be checked exactly.
type e2eClient struct {
	p      *e2eProc
	hc     *http.Client
	counts map[string]int
	resets map[string]int64
}

func (p *e2eProc) client(t *testing.T, localIP string) *e2eClient {
	t.Helper()
	dialer := &net.Dialer{Timeout: 5 * time.Second}
	if localIP != "" {
		dialer.LocalAddr = &net.TCPAddr{IP: net.ParseIP(localIP)}
	}
	tr := &http.Transport{
		Proxy:               nil,
		DialContext:         dialer.DialContext,
		DisableCompression:  true, // headers and bodies are checked as sent
		MaxIdleConnsPerHost: 4,
	}
	t.Cleanup(tr.CloseIdleConnections)
	return &e2eClient{
		p:      p,
		hc:     &http.Client{Transport: tr, Timeout: e2eTimeout},
		counts: map[string]int{},
		resets: map[string]int64{},
	}
}

// reply is a response read whole.
type reply struct {
	status int
	header http.Header
	body   []byte
	// The answer was made between sent and when: the request was sent at
	// sent, and the answer read whole at when.
	sent, when time.Time
	proto      string // "HTTP/1.1", "HTTP/2.0"
}

// e2eBucket is the rate-limit counter a path uses, per the contract: one per
// collection, which its records (/parties/pn) share, and one shared by every
// other path.
func e2eBucket(path string) string {
	path, _, _ = strings.Cut(path, "?")
	for _, c := range []string{"parties", "districts", "candidates"} {
		key, isRecord := strings.CutPrefix(path, e2eBase+"/"+c+"/")
		if path == e2eBase+"/"+c || isRecord && key != "" && !strings.Contains(key, "/") && !strings.Contains(strings.ToLower(key), "%2f") {
			return c
		}
	}
	return "other"
}

// do sends one request and checks the headers every response carries, with
// the exact X-RateLimit-Remaining this client should see.
func (c *e2eClient) do(t *testing.T, method, path string, hdr map[string]string) reply {
	t.Helper()
	r := c.send(t, method, path, hdr)
	b := e2eBucket(path)
	switch method {
	case http.MethodGet, http.MethodHead: // "every GET and HEAD counts"
		c.counts[b]++
	case http.MethodOptions: // a preflight does not count
	default:
		// The contract does not say whether a refused method counts:
		// accept either, and follow what the server did.
		if n, err := strconv.Atoi(r.header.Get("X-RateLimit-Remaining")); err == nil && n == max(0, e2eLimit-c.counts[b]-1) {
			c.counts[b]++
		}
	}
	c.checkCommon(t, r, b, max(0, e2eLimit-c.counts[b]), method != http.MethodOptions)
	return r
}

// send sends one request and checks nothing but that the answer is as the
// OpenAPI document says.
func (c *e2eClient) send(t *testing.T, method, path string, hdr map[string]string) reply {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), e2eTimeout)
	defer cancel()
	u := &url.URL{Scheme: "http", Host: c.p.addr, Opaque: "//" + c.p.addr + path}
	if p, q, ok := strings.Cut(path, "?"); ok {
		u.Opaque, u.RawQuery = "//"+c.p.addr+p, q
	}
	req, err := http.NewRequestWithContext(ctx, method, "", nil)
	if err != nil {
		t.Fatalf("%s %s: %v", method, path, err)
	}
	req.URL = u
	req.Host = c.p.addr
	for k, v := range hdr {
		req.Header.Set(k, v)
	}
	sent := time.Now()
	resp, err := c.hc.Do(req)
	if err != nil {
		t.Fatalf("%s %s: %v", method, path, err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatalf("%s %s: reading the body: %v", method, path, err)
	}
	when := time.Now()
	apitest.Check(t, req, resp.StatusCode, resp.Header, body)
	return reply{status: resp.StatusCode, header: resp.Header, body: body, sent: sent, when: when, proto: resp.Proto}
}

func (c *e2eClient) get(t *testing.T, path string) reply {
	t.Helper()
	return c.do(t, http.MethodGet, path, nil)
}

// checkCommon checks the CORS and rate-limit headers of any response.
func (c *e2eClient) checkCommon(t *testing.T, r reply, bucket string, wantRemaining int, counted bool) {
	t.Helper()
	h := r.header
	if got := h.Get("Access-Control-Allow-Origin"); got != "*" {
		t.Errorf("status %d: Access-Control-Allow-Origin = %q, want *", r.status, got)
	}
	exposed := map[string]bool{}
	for _, v := range h.Values("Access-Control-Expose-Headers") {
		for _, name := range strings.Split(v, ",") {
			exposed[strings.ToLower(strings.TrimSpace(name))] = true
		}
	}
	for _, name := range []string{"X-RateLimit-Limit", "X-RateLimit-Remaining", "X-RateLimit-Reset", "Retry-After", "ETag", "Link"} {
		if !exposed[strings.ToLower(name)] {
			t.Errorf("status %d: Access-Control-Expose-Headers %q does not list %s", r.status, h.Values("Access-Control-Expose-Headers"), name)
		}
	}
	if got := h.Get("X-RateLimit-Limit"); got != strconv.Itoa(e2eLimit) {
		t.Errorf("status %d: X-RateLimit-Limit = %q, want %d", r.status, got, e2eLimit)
	}
	remaining, err := strconv.Atoi(h.Get("X-RateLimit-Remaining"))
	switch {
	case err != nil || remaining < 0:
		t.Errorf("status %d: X-RateLimit-Remaining = %q, want a non-negative integer", r.status, h.Get("X-RateLimit-Remaining"))
	case remaining != wantRemaining:
		t.Errorf("status %d: X-RateLimit-Remaining = %d, want %d (request %d on %s)", r.status, remaining, wantRemaining, c.counts[bucket], bucket)
	}
	reset, err := strconv.ParseInt(h.Get("X-RateLimit-Reset"), 10, 64)
	if err != nil {
		t.Errorf("status %d: X-RateLimit-Reset = %q, want Unix seconds", r.status, h.Get("X-RateLimit-Reset"))
		return
	}
	// The window began when the server took the request, between sent and
	// when: on a loaded machine these can be seconds apart.
	sent, now := r.sent.Unix(), r.when.Unix()
	if reset < sent || reset > now+62 {
		t.Errorf("status %d: X-RateLimit-Reset = %d, want a Unix time within 60 s of the request (sent %d, answered by %d)", r.status, reset, sent, now)
	}
	if !counted {
		return
	}
	if first, ok := c.resets[bucket]; !ok {
		c.resets[bucket] = reset
		if reset < sent+58 {
			t.Errorf("status %d: first request on %s: X-RateLimit-Reset = %d, want about 60 s after %d", r.status, bucket, reset, sent)
		}
	} else if reset != first {
		t.Errorf("status %d: X-RateLimit-Reset on %s moved from %d to %d within one window", r.status, bucket, first, reset)
	}
}

// envelope is a decoded success body.
type envelope struct {
	Data []json.RawMessage `json:"data"`
	Meta struct {
		Count       int    `json:"count"`
		GeneratedAt string `json:"generatedAt"`
	} `json:"meta"`
}

// objectKeys returns the keys of a JSON object in the order they appear.
func objectKeys(t *testing.T, raw []byte) []string {
	t.Helper()
	dec := json.NewDecoder(bytes.NewReader(raw))
	tok, err := dec.Token()
	if err != nil || tok != json.Delim('{') {
		t.Fatalf("not a JSON object: %.200s", raw)
	}
	var keys []string
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			t.Fatalf("bad JSON object: %v: %.200s", err, raw)
		}
		keys = append(keys, tok.(string))
		var skip json.RawMessage
		if err := dec.Decode(&skip); err != nil {
			t.Fatalf("bad JSON object: %v: %.200s", err, raw)
		}
	}
	return keys
}

// checkOK checks a success response: status, type, envelope and meta.
func checkOK(t *testing.T, r reply) envelope {
	t.Helper()
	if r.status != http.StatusOK {
		t.Fatalf("status %d, want 200; body %.300s", r.status, r.body)
	}
	if got := r.header.Get("Content-Type"); got != "application/json; charset=utf-8" {
		t.Errorf("Content-Type = %q, want application/json; charset=utf-8", got)
	}
	if !bytes.HasPrefix(r.body, []byte(`{"data":[`)) {
		t.Errorf("body does not start with {\"data\":[ : %.80s", r.body)
	}
	if got := objectKeys(t, r.body); !slices.Equal(got, []string{"data", "meta"}) {
		t.Errorf("envelope keys %q, want [data meta]", got)
	}
	var env envelope
	var meta struct {
		Meta json.RawMessage `json:"meta"`
	}
	if err := json.Unmarshal(r.body, &env); err != nil {
		t.Fatalf("body is not the envelope: %v", err)
	}
	if err := json.Unmarshal(r.body, &meta); err != nil {
		t.Fatal(err)
	}
	// A collection's meta, or a page of candidates' meta.
	if got := objectKeys(t, meta.Meta); !slices.Equal(got, []string{"count", "total", "generatedAt"}) &&
		!slices.Equal(got, []string{"count", "total", "limit", "offset", "filters", "generatedAt"}) {
		t.Errorf("meta keys %q, want [count total generatedAt] or [count total limit offset filters generatedAt]", got)
	}
	if env.Data == nil {
		t.Errorf("data is null, want an array")
	}
	if env.Meta.Count != len(env.Data) {
		t.Errorf("meta.count = %d, len(data) = %d", env.Meta.Count, len(env.Data))
	}
	if !e2eTime.MatchString(env.Meta.GeneratedAt) {
		t.Errorf("meta.generatedAt = %q, want YYYY-MM-DDTHH:MM:SS.mmmZ", env.Meta.GeneratedAt)
	} else if at, err := time.Parse(time.RFC3339Nano, env.Meta.GeneratedAt); err != nil {
		t.Errorf("meta.generatedAt = %q: %v", env.Meta.GeneratedAt, err)
	} else if at.Before(r.sent.Add(-5*time.Second)) || at.After(r.when.Add(5*time.Second)) {
		t.Errorf("meta.generatedAt = %q, more than 5 s away from the request (sent %s, answered by %s)", env.Meta.GeneratedAt, r.sent.UTC().Format(time.RFC3339Nano), r.when.UTC().Format(time.RFC3339Nano))
	}
	return env
}

// problemBody is an RFC 9457 problem.
type problemBody struct {
	Type          string `json:"type"`
	Title         string `json:"title"`
	Status        int    `json:"status"`
	Detail        string `json:"detail"`
	InvalidParams []struct {
		Name   string `json:"name"`
		Reason string `json:"reason"`
	} `json:"invalid_params"`
}

// checkProblem checks an error response of the given status.
func checkProblem(t *testing.T, r reply, status int) problemBody {
	t.Helper()
	if r.status != status {
		t.Fatalf("status %d, want %d; body %.300s", r.status, status, r.body)
	}
	if got := r.header.Get("Content-Type"); got != "application/problem+json" {
		t.Errorf("Content-Type = %q, want application/problem+json", got)
	}
	var p problemBody
	if err := json.Unmarshal(r.body, &p); err != nil {
		t.Fatalf("body is not JSON: %v: %.300s", err, r.body)
	}
	if p.Type == "" || p.Title != http.StatusText(status) || p.Status != status || p.Detail == "" {
		t.Errorf("problem = %+v, want type, title %q, status %d and a detail", p, http.StatusText(status), status)
	}
	if r.header.Get("ETag") != "" {
		t.Errorf("an error carries ETag %q", r.header.Get("ETag"))
	}
	checkNoLeak(t, r.body)
	return p
}

func checkNoLeak(t *testing.T, body []byte) {
	t.Helper()
	for _, s := range []string{"goroutine", ".go:", "panic", "/root/", "/home/", "runtime."} {
		if bytes.Contains(body, []byte(s)) {
			t.Errorf("body leaks internals (%q): %.500s", s, body)
		}
	}
}

// Records, decoded.
type (
	party struct {
		ID, Slug, Name, ShortName string
		Color, Website            *string
	}
	district struct {
		ID, Name   string
		Number     int
		Localities []map[string]json.RawMessage
	}
	candidate struct {
		ID, Slug, Name, GivenName, FamilyName string
		PartyID                               *string
		PrimaryDistrictID                     string
		DistrictIDs                           []string
	}
)

// decodeRecords checks that every record has the same keys, including the
// required ones, and decodes each field strictly by its snake_case name.
func decodeRecords(t *testing.T, data []json.RawMessage, required []string) []map[string]json.RawMessage {
	t.Helper()
	var out []map[string]json.RawMessage
	var firstKeys []string
	for i, raw := range data {
		var m map[string]json.RawMessage
		if err := json.Unmarshal(raw, &m); err != nil {
			t.Fatalf("record %d is not an object: %v", i, err)
		}
		keys := objectKeys(t, raw)
		slices.Sort(keys)
		if i == 0 {
			firstKeys = keys
			for _, k := range required {
				if _, ok := m[k]; !ok {
					t.Errorf("record 0 lacks the required field %q: %s", k, raw)
				}
			}
		} else if !slices.Equal(keys, firstKeys) {
			t.Errorf("record %d has keys %q, record 0 has %q", i, keys, firstKeys)
		}
		out = append(out, m)
	}
	return out
}

func str(t *testing.T, m map[string]json.RawMessage, key string) string {
	t.Helper()
	var s string
	if err := json.Unmarshal(m[key], &s); err != nil || s == "" {
		t.Errorf("%s = %s, want a non-empty string", key, m[key])
	}
	return s
}

func nullableStr(t *testing.T, m map[string]json.RawMessage, key string) *string {
	t.Helper()
	var s *string
	if err := json.Unmarshal(m[key], &s); err != nil {
		t.Errorf("%s = %s, want a string or null", key, m[key])
	}
	return s
}

func checkUUID(t *testing.T, what, s string) {
	t.Helper()
	if !e2eUUID.MatchString(s) {
		t.Errorf("%s = %q, want a lowercase canonical UUID", what, s)
	}
}

func decodeParties(t *testing.T, data []json.RawMessage) []party {
	t.Helper()
	var out []party
	for _, m := range decodeRecords(t, data, []string{"id", "slug", "name", "short_name", "color", "website"}) {
		p := party{ID: str(t, m, "id"), Slug: str(t, m, "slug"), Name: str(t, m, "name"), ShortName: str(t, m, "short_name"),
			Color: nullableStr(t, m, "color"), Website: nullableStr(t, m, "website")}
		out = append(out, p)
	}
	return out
}

func decodeDistricts(t *testing.T, data []json.RawMessage) []district {
	t.Helper()
	var out []district
	for _, m := range decodeRecords(t, data, []string{"id", "number", "name", "localities"}) {
		d := district{ID: str(t, m, "id"), Name: str(t, m, "name")}
		if err := json.Unmarshal(m["number"], &d.Number); err != nil {
			t.Errorf("number = %s, want an integer", m["number"])
		}
		if err := json.Unmarshal(m["localities"], &d.Localities); err != nil || d.Localities == nil {
			t.Errorf("district %d: localities = %.100s, want an array of objects", d.Number, m["localities"])
		}
		out = append(out, d)
	}
	return out
}

func decodeCandidates(t *testing.T, data []json.RawMessage) []candidate {
	t.Helper()
	var out []candidate
	for _, m := range decodeRecords(t, data, []string{"id", "slug", "name", "given_name", "family_name", "party_id", "primary_district_id", "district_ids"}) {
		c := candidate{ID: str(t, m, "id"), Slug: str(t, m, "slug"), Name: str(t, m, "name"),
			GivenName: str(t, m, "given_name"), FamilyName: str(t, m, "family_name"),
			PartyID: nullableStr(t, m, "party_id"), PrimaryDistrictID: str(t, m, "primary_district_id")}
		if err := json.Unmarshal(m["district_ids"], &c.DistrictIDs); err != nil || c.DistrictIDs == nil {
			t.Errorf("candidate %s: district_ids = %s, want an array of UUIDs", c.ID, m["district_ids"])
		}
		out = append(out, c)
	}
	return out
}

// fold lower-cases s and strips its accents, for the contract's "case- and
// accent-insensitive" ordering. Letters Unicode does not decompose (Maltese
// ħ among them) are mapped by hand.
var e2eUndecomposable = strings.NewReplacer("ħ", "h", "Ħ", "h", "ø", "o", "Ø", "o", "ł", "l", "Ł", "l", "đ", "d", "Đ", "d", "ß", "ss", "æ", "ae", "Æ", "ae", "œ", "oe", "Œ", "oe")

func fold(s string) string {
	t := transform.Chain(norm.NFD, runes.Remove(runes.In(unicode.Mn)), norm.NFC)
	out, _, err := transform.String(t, e2eUndecomposable.Replace(s))
	if err != nil {
		out = s
	}
	return strings.ToLower(out)
}

func ids[T any](recs []T, id func(T) string) []string {
	out := make([]string, len(recs))
	for i, r := range recs {
		out[i] = id(r)
	}
	return out
}

func candidateIDs(cs []candidate) []string { return ids(cs, func(c candidate) string { return c.ID }) }

var (
	prodAdminText = regexp.MustCompile(`level=INFO msg=serving .*admin=http://(127\.0\.0\.1:\d+)/`)
	prodAdminJSON = regexp.MustCompile(`"msg":"serving".*"admin":"http://(127\.0\.0\.1:\d+)/"`)
	prodAPIJSON   = regexp.MustCompile(`"msg":"serving".*"api":"http://(127\.0\.0\.1:\d+)/api/public/v1/"`)
	prodVersion   = regexp.MustCompile(`^[0-9a-f]{64}$`)
)

// prodValidDataset is a small valid dataset: 13 districts, 2 parties, 13
// candidates.
const prodValidDataset = "testdata/datasets/valid"

// prodAdmin returns the admin listener's address, read from the "serving"
// log line that serve writes once it listens.
func prodAdmin(t *testing.T, p *e2eProc) string {
	t.Helper()
	deadline := time.Now().Add(e2eStartWait)
	for time.Now().Before(deadline) {
		log := p.stderr.String()
		for _, re := range []*regexp.Regexp{prodAdminText, prodAdminJSON} {
			if m := re.FindStringSubmatch(log); m != nil {
				return m[1]
			}
		}
		select {
		case <-p.done:
			t.Fatalf("ballot serve exited before logging its admin address: %v\nstderr:\n%s", p.err, p.stderr.shortened())
		case <-time.After(10 * time.Millisecond):
		}
	}
	t.Fatalf("ballot serve did not log its admin address within %v\nstderr:\n%s", e2eStartWait, p.stderr.shortened())
	return ""
}

// prodStart starts "ballot serve --listen 127.0.0.1:0 ARGS…" like
// startServerWith, but in working directory dir (with whatever config.toml
// the test put there) and with env added to an environment that has no
// other BALLOT_* variable. It finds the address in the text or the JSON
// log, and its cleanup stops the process with SIGTERM and expects exit 0.
func prodStart(t *testing.T, dir string, env []string, args ...string) *e2eProc {
	t.Helper()
	return prodStartWithin(t, dir, env, e2eStartWait, args...)
}

// prodStartWithin is prodStart waiting up to wait for the address: for a
// serve that loads a large dataset first.
func prodStartWithin(t *testing.T, dir string, env []string, wait time.Duration, args ...string) *e2eProc {
	t.Helper()
	p := launchServe(t, dir, env, args...)
	t.Cleanup(func() {
		if strings.Contains(p.stderr.String(), "ballot: serving") {
			p.stop(t) // the text log: the end-to-end checks, "ballot: stopped" included
		} else {
			prodStopJSON(t, p)
		}
		if t.Failed() {
			t.Logf("stderr of %s:\n%s", p, p.stderr.shortened())
		}
	})
	deadline := time.Now().Add(wait)
	for p.addr == "" {
		log := p.stderr.String()
		if m := e2eListening.FindStringSubmatch(log); m != nil {
			p.addr = m[1]
		} else if m := prodAPIJSON.FindStringSubmatch(log); m != nil {
			p.addr = m[1]
		} else if time.Now().After(deadline) {
			t.Fatalf("ballot serve did not log its address within %v\nstderr:\n%s", wait, log)
		} else {
			select {
			case <-p.done:
				t.Fatalf("ballot serve exited before listening: %v\nstderr:\n%s", p.err, log)
			case <-time.After(10 * time.Millisecond):
			}
		}
	}
	return p
}

// prodStopJSON is e2eProc.stop for a process logging JSON, which writes no
// "ballot: stopped" line but a JSON "stopped" message.
func prodStopJSON(t *testing.T, p *e2eProc) {
	t.Helper()
	p.terminate(t)
	p.waited.Do(func() {
		if !p.exited(t) {
			return
		}
		if p.err != nil {
			t.Errorf("%s exited with %v after SIGTERM, want exit 0", p, p.err)
		}
		if !strings.Contains(p.stderr.String(), `"msg":"stopped"`) {
			t.Errorf("the JSON log has no \"stopped\" message after SIGTERM")
		}
	})
}

// prodRun runs ballot with args in dir, with env added, and returns its exit
// code, stderr and how long it ran. It is for runs that must end by
// themselves: they are killed after 30 s, a bound far beyond what a loaded
// machine needs.
func prodRun(t *testing.T, dir string, env []string, args ...string) (int, string, time.Duration) {
	t.Helper()
	const bound = 30 * time.Second
	ctx, cancel := context.WithTimeout(context.Background(), bound)
	defer cancel()
	cmd := exec.CommandContext(ctx, e2eBuild(t), args...)
	cmd.Dir = dir
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "BALLOT_") {
			cmd.Env = append(cmd.Env, kv)
		}
	}
	cmd.Env = append(cmd.Env, env...)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	cmd.Stdout = io.Discard
	start := time.Now()
	err := cmd.Run()
	elapsed := time.Since(start)
	if ctx.Err() != nil {
		t.Fatalf("ballot %q did not end within %v; killed. stderr:\n%s", args, bound, stderr.String())
	}
	var exit *exec.ExitError
	switch {
	case err == nil:
		return 0, stderr.String(), elapsed
	case errors.As(err, &exit):
		return exit.ExitCode(), stderr.String(), elapsed
	}
	t.Fatalf("running ballot %q: %v", args, err)
	return 0, "", 0
}

// prodHTTP is a plain client for the admin listener.
func prodHTTP(t *testing.T) *http.Client {
	tr := &http.Transport{Proxy: nil, DisableCompression: true}
	t.Cleanup(tr.CloseIdleConnections)
	return &http.Client{Transport: tr, Timeout: e2eTimeout}
}

// prodDo sends one request to a full URL and reads the whole answer.
func prodDo(t *testing.T, hc *http.Client, method, rawURL string, hdr map[string]string) reply {
	t.Helper()
	req, err := http.NewRequest(method, rawURL, nil)
	if err != nil {
		t.Fatal(err)
	}
	for k, v := range hdr {
		req.Header.Set(k, v)
	}
	sent := time.Now()
	resp, err := hc.Do(req)
	if err != nil {
		t.Fatalf("%s %s: %v", method, rawURL, err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatalf("%s %s: reading the body: %v", method, rawURL, err)
	}
	return reply{status: resp.StatusCode, header: resp.Header, body: body, sent: sent, when: time.Now(), proto: resp.Proto}
}

// prodJSON decodes an admin answer, a JSON object.
func prodJSON(t *testing.T, r reply, status int) map[string]any {
	t.Helper()
	if r.status != status {
		t.Fatalf("status %d, want %d; body %.500s", r.status, status, r.body)
	}
	if got := r.header.Get("Content-Type"); got != "application/json; charset=utf-8" {
		t.Errorf("Content-Type %q, want application/json; charset=utf-8", got)
	}
	var v map[string]any
	if err := json.Unmarshal(r.body, &v); err != nil {
		t.Fatalf("not a JSON object: %v: %.300s", err, r.body)
	}
	return v
}

// prodReady is what /readyz says of the dataset being served.
type prodReady struct {
	Title, Version string
	LoadedAt       time.Time
}

func prodReadyz(t *testing.T, hc *http.Client, admin string) prodReady {
	t.Helper()
	var v struct {
		Status  string `json:"status"`
		Dataset struct {
			Title    string `json:"title"`
			Version  string `json:"version"`
			LoadedAt string `json:"loaded_at"`
		} `json:"dataset"`
	}
	r := prodDo(t, hc, http.MethodGet, "http://"+admin+"/readyz", nil)
	prodJSON(t, r, http.StatusOK)
	if err := json.Unmarshal(r.body, &v); err != nil {
		t.Fatal(err)
	}
	if v.Status != "ready" {
		t.Errorf("/readyz status %q, want ready", v.Status)
	}
	if !prodVersion.MatchString(v.Dataset.Version) {
		t.Errorf("/readyz version %q, want a SHA-256 in hex", v.Dataset.Version)
	}
	if !e2eTime.MatchString(v.Dataset.LoadedAt) {
		t.Fatalf("/readyz loaded_at %q, want YYYY-MM-DDTHH:MM:SS.mmmZ", v.Dataset.LoadedAt)
	}
	at, err := time.Parse(time.RFC3339Nano, v.Dataset.LoadedAt)
	if err != nil {
		t.Fatal(err)
	}
	if d := time.Since(at); d < -2*time.Second || d > time.Minute {
		t.Errorf("/readyz loaded_at %s is %v before now", v.Dataset.LoadedAt, d)
	}
	return prodReady{Title: v.Dataset.Title, Version: v.Dataset.Version, LoadedAt: at}
}

// prodMetrics scrapes /metrics and parses it as the Prometheus text format.
func prodMetrics(t *testing.T, hc *http.Client, admin string) map[string]*dto.MetricFamily {
	t.Helper()
	r := prodDo(t, hc, http.MethodGet, "http://"+admin+"/metrics", nil)
	if r.status != http.StatusOK {
		t.Fatalf("/metrics: status %d", r.status)
	}
	if ct := r.header.Get("Content-Type"); !strings.HasPrefix(ct, "text/plain; version=0.0.4") {
		t.Errorf("/metrics Content-Type %q, want the Prometheus text format (text/plain; version=0.0.4)", ct)
	}
	parser := expfmt.NewTextParser(model.UTF8Validation)
	mfs, err := parser.TextToMetricFamilies(bytes.NewReader(r.body))
	if err != nil {
		t.Fatalf("/metrics is not the Prometheus text format: %v", err)
	}
	return mfs
}

// prodSeries returns the value of the series of family name whose labels
// include the given name/value pairs: a counter's or gauge's value, a
// histogram's sample count.
func prodSeries(mfs map[string]*dto.MetricFamily, name string, labels ...string) (float64, bool) {
	mf := mfs[name]
	if mf == nil {
		return 0, false
	}
next:
	for _, m := range mf.GetMetric() {
		have := map[string]string{}
		for _, lp := range m.GetLabel() {
			have[lp.GetName()] = lp.GetValue()
		}
		for i := 0; i+1 < len(labels); i += 2 {
			if have[labels[i]] != labels[i+1] {
				continue next
			}
		}
		switch {
		case m.Counter != nil:
			return m.Counter.GetValue(), true
		case m.Gauge != nil:
			return m.Gauge.GetValue(), true
		case m.Histogram != nil:
			return float64(m.Histogram.GetSampleCount()), true
		case m.Untyped != nil:
			return m.Untyped.GetValue(), true
		}
	}
	return 0, false
}

// prodEventually polls cond every 20 ms until it holds or timeout passes.
func prodEventually(t *testing.T, timeout time.Duration, what string, cond func() (bool, string)) {
	t.Helper()
	deadline := time.Now().Add(timeout)
	for {
		ok, state := cond()
		if ok {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s: not so within %v; last: %s", what, timeout, state)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// prodWaitLog waits until the process's stderr matches re.
func prodWaitLog(t *testing.T, p *e2eProc, re *regexp.Regexp, what string) string {
	t.Helper()
	var found string
	prodEventually(t, 5*time.Second, what, func() (bool, string) {
		found = re.FindString(p.stderr.String())
		return found != "", "no such line in stderr"
	})
	return found
}

// prodHeaderInt reads an integer header, or -1.
func prodHeaderInt(r reply, name string) int {
	n, err := strconv.Atoi(r.header.Get(name))
	if err != nil {
		return -1
	}
	return n
}

// run runs the command line in-process and returns its exit code and
// output.
func run(t *testing.T, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	var out, errOut bytes.Buffer
	code = commands.Run(context.Background(), append([]string{"ballot"}, args...), &out, &errOut)
	return code, out.String(), errOut.String()
}

// runWithin is run for a command that must end by itself, such as a serve
// that refuses to start: one still running after bound fails the test (and
// is left behind, to end with the test binary).
func runWithin(t *testing.T, bound time.Duration, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	type result struct {
		code           int
		stdout, stderr string
	}
	done := make(chan result, 1)
	go func() {
		var out, errOut bytes.Buffer
		code := commands.Run(context.Background(), append([]string{"ballot"}, args...), &out, &errOut)
		done <- result{code, out.String(), errOut.String()}
	}()
	select {
	case r := <-done:
		return r.code, r.stdout, r.stderr
	case <-time.After(bound):
		t.Fatalf("ballot %q did not end within %v", args, bound)
		return 0, "", ""
	}
}

// runIn is runWithin in working directory dir with the variables env
// ("NAME=value") set and no other BALLOT_ variable, for a command that
// reads its configuration from there. The directory and the variables are
// the process's own, so the test may not be parallel (t.Chdir and t.Setenv
// refuse); both are put back when it ends.
func runIn(t *testing.T, dir string, env []string, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	enterIn(t, dir, env)
	return runWithin(t, 30*time.Second, args...)
}

// serveIn is serveInProcess in working directory dir with the variables
// env set and no other BALLOT_ variable, as runIn.
func serveIn(t *testing.T, dir string, env []string, args ...string) *e2eProc {
	t.Helper()
	enterIn(t, dir, env)
	return serveInProcess(t, args...)
}

// enterIn makes dir the working directory and env the only BALLOT_
// variables (but BALLOT_TEST_REQUIRE) until t ends.
func enterIn(t *testing.T, dir string, env []string) {
	t.Helper()
	t.Chdir(dir)
	for _, kv := range os.Environ() {
		if name, _, _ := strings.Cut(kv, "="); strings.HasPrefix(name, "BALLOT_") && name != testprograms.RequireVar {
			t.Setenv(name, "") // put back when t ends
			_ = os.Unsetenv(name)
		}
	}
	for _, kv := range env {
		name, value, _ := strings.Cut(kv, "=")
		t.Setenv(name, value)
	}
}

var update = flag.Bool("update", false, "rewrite the golden files in testdata/")

func golden(t *testing.T, path string, got []byte) {
	t.Helper()
	if *update {
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test ./commands -update to create it)", err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("output differs from %s (run go test ./commands -update if the change is intended)\n got:\n%s\nwant:\n%s", path, got, want)
	}
}

// runPeak runs cmd and returns its peak resident memory in bytes, read
// from the process's own high-water mark (VmHWM) while it runs, with
// Wait's error. Its rusage would not do: it counts the memory of this
// test too, which the child shares until it runs its program.
func runPeak(cmd *exec.Cmd) (int64, error) {
	if err := cmd.Start(); err != nil {
		return 0, err
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	var peak int64
	for {
		if hwm := vmHWM(cmd.Process.Pid); hwm > 0 {
			peak = hwm
		}
		select {
		case err := <-done:
			return peak, err
		case <-time.After(5 * time.Millisecond):
		}
	}
}

// vmHWM is a running process's peak resident memory (VmHWM) in bytes, or
// 0 once it has ended.
func vmHWM(pid int) int64 { return procMemory(pid, "VmHWM") }

// procMemory reads one memory figure of a running process (VmRSS, VmHWM)
// from /proc/PID/status, in bytes; 0 once it has ended.
func procMemory(pid int, key string) int64 {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return 0
	}
	for line := range strings.Lines(string(b)) {
		if rest, ok := strings.CutPrefix(line, key+":"); ok {
			kb, _ := strconv.ParseInt(strings.TrimSuffix(strings.TrimSpace(rest), " kB"), 10, 64)
			return kb << 10
		}
	}
	return 0
}

// stopWhileHolding starts cmd, waits until it holds more than size bytes
// of resident memory (it is reading or checking a large file, which takes
// seconds more), sends it SIGTERM, and checks that it exits with status 1
// within a minute. It returns what cmd wrote on stderr.
func stopWhileHolding(t *testing.T, cmd *exec.Cmd, size int64, what string) string {
	t.Helper()
	var stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = io.Discard, &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan struct{})
	var waitErr error
	go func() {
		waitErr = cmd.Wait()
		close(done)
	}()
	t.Cleanup(func() {
		select {
		case <-done:
		default:
			_ = cmd.Process.Kill()
			<-done
		}
	})
	pid := cmd.Process.Pid
	prodEventually(t, time.Minute, what, func() (bool, string) {
		rss := procMemory(pid, "VmRSS")
		return rss > size, fmt.Sprintf("RSS %d bytes, file %d bytes", rss, size)
	})
	if err := cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	select {
	case <-done:
		var exit *exec.ExitError
		if !errors.As(waitErr, &exit) || exit.ExitCode() != 1 {
			t.Errorf("exit %v, want status 1", waitErr)
		}
	case <-time.After(time.Minute):
		t.Fatalf("%s did not end within a minute of SIGTERM; stderr:\n%.2000s", cmd.Args[1], stderr.String())
	}
	return stderr.String()
}
