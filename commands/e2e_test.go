package commands_test

// End-to-end tests of the real ballot binary, black-box: each test builds the
// binary once, starts it as a user would ("ballot serve --listen
// 127.0.0.1:0", no config file, no environment), talks to it over real TCP on
// loopback, and stops it with SIGTERM, expecting a graceful exit 0. Nothing
// here imports the product's packages: the expectations come from the
// contract (API.md), not from the code; only internal/apitest holds every
// answer to the published OpenAPI document as well.

import (
	"bufio"
	"bytes"
	"cmp"
	"compress/gzip"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"
	"unicode"

	"golang.org/x/text/runes"
	"golang.org/x/text/transform"
	"golang.org/x/text/unicode/norm"

	"ballot/internal/apitest"
)

const (
	e2eBase      = "/api/public/v1"
	e2eLimit     = 60 // the default rate limit, per client IP and endpoint
	e2eTimeout   = 10 * time.Second
	e2eStartWait = 10 * time.Second
)

var (
	e2eBuildOnce sync.Once
	e2eBinary    string
	e2eBuildErr  error
	e2eBuildDir  string

	e2eListening = regexp.MustCompile(`ballot: serving ".*" \(version [^)]*\) on http://(127\.0\.0\.1:\d+)/api/public/v1/`)
	e2eUUID      = regexp.MustCompile(`^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$`)
	e2eSlug      = regexp.MustCompile(`^[a-z0-9]+(-[a-z0-9]+)*$`)
	e2eColor     = regexp.MustCompile(`^#[0-9a-f]{6}$`)
	e2eTime      = regexp.MustCompile(`^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$`)
	e2eGenerated = regexp.MustCompile(`"generatedAt":"[^"]*"`)
)

func TestMain(m *testing.M) {
	code := m.Run()
	if e2eBuildDir != "" {
		_ = os.RemoveAll(e2eBuildDir)
	}
	os.Exit(code)
}

// e2eBuild builds the binary once for the whole test binary.
func e2eBuild(t *testing.T) string {
	t.Helper()
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
		if m := e2eListening.FindSubmatch(l.buf.Bytes()); m != nil {
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

// e2eProc is one running ballot serve process.
type e2eProc struct {
	t      *testing.T
	cmd    *exec.Cmd
	addr   string // host:port
	stderr *stderrLog
	done   chan struct{}
	err    error // Wait's result, once done is closed

	signaled atomic.Bool
	waited   sync.Once
}

// startServer starts "ballot serve --listen 127.0.0.1:0" in a fresh, empty
// working directory with no BALLOT_* variables, waits for its address, and
// registers its graceful stop (SIGTERM, exit 0) as a cleanup.
func startServer(t *testing.T) *e2eProc {
	t.Helper()
	return startServerWith(t)
}

// startServerWith is startServer with more arguments after
// "serve --listen 127.0.0.1:0".
func startServerWith(t *testing.T, args ...string) *e2eProc {
	t.Helper()
	bin := e2eBuild(t)
	cmd := exec.Command(bin, append([]string{"serve", "--listen", "127.0.0.1:0"}, args...)...)
	cmd.Dir = t.TempDir()
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "BALLOT_") {
			cmd.Env = append(cmd.Env, kv)
		}
	}
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
	t.Cleanup(func() {
		p.stop(t)
		if t.Failed() {
			t.Logf("stderr of ballot serve (pid %d):\n%s", cmd.Process.Pid, p.stderr.shortened())
		}
	})
	select {
	case p.addr = <-p.stderr.found:
	case <-p.done:
		t.Fatalf("ballot serve exited before listening: %v\nstderr:\n%s", p.err, p.stderr)
	case <-time.After(e2eStartWait):
		t.Fatalf("ballot serve did not print its address within %v\nstderr:\n%s", e2eStartWait, p.stderr)
	}
	return p
}

// stop sends SIGTERM unless it was sent already, waits for the exit
// (SIGKILL after a timeout) and checks that the process stopped gracefully
// with status 0. It checks once.
func (p *e2eProc) stop(t *testing.T) {
	t.Helper()
	select {
	case <-p.done:
		if !p.signaled.Load() {
			t.Errorf("ballot serve (pid %d) exited on its own before being stopped: %v", p.cmd.Process.Pid, p.err)
			return
		}
	default:
	}
	p.terminate(t)
	p.waited.Do(func() { p.waitExit(t) })
}

// terminate sends SIGTERM, once.
func (p *e2eProc) terminate(t *testing.T) {
	t.Helper()
	if p.signaled.Swap(true) {
		return
	}
	if err := p.cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Errorf("SIGTERM to pid %d: %v", p.cmd.Process.Pid, err)
	}
}

// waitExit waits for the process after SIGTERM and checks its exit.
func (p *e2eProc) waitExit(t *testing.T) {
	t.Helper()
	select {
	case <-p.done:
	case <-time.After(15 * time.Second):
		_ = p.cmd.Process.Signal(syscall.SIGKILL)
		<-p.done
		t.Errorf("ballot serve (pid %d) did not exit within 15 s of SIGTERM; killed", p.cmd.Process.Pid)
		return
	}
	if p.err != nil || p.cmd.ProcessState.ExitCode() != 0 {
		t.Errorf("ballot serve (pid %d) exited with %v after SIGTERM, want a graceful exit 0", p.cmd.Process.Pid, p.err)
	}
	log := p.stderr.String()
	if !strings.Contains(log, "ballot: stopped") {
		t.Errorf("stderr does not say \"ballot: stopped\" after SIGTERM")
	}
	if strings.Contains(log, "panic serving") || strings.Contains(log, "goroutine ") {
		t.Errorf("the server logged a panic")
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
	when   time.Time
}

// e2eBucket is the rate-limit counter a path uses, per the contract: one per
// collection and one shared by every other path.
func e2eBucket(path string) string {
	path, _, _ = strings.Cut(path, "?")
	for _, c := range []string{"parties", "districts", "candidates"} {
		if path == e2eBase+"/"+c {
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
	resp, err := c.hc.Do(req)
	if err != nil {
		t.Fatalf("%s %s: %v", method, path, err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatalf("%s %s: reading the body: %v", method, path, err)
	}
	apitest.Check(t, req, resp.StatusCode, resp.Header, body)
	return reply{status: resp.StatusCode, header: resp.Header, body: body, when: time.Now()}
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
	for _, name := range []string{"X-RateLimit-Limit", "X-RateLimit-Remaining", "X-RateLimit-Reset", "Retry-After", "ETag"} {
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
	now := r.when.Unix()
	if reset < now || reset > now+62 {
		t.Errorf("status %d: X-RateLimit-Reset = %d, want a Unix time within 60 s from now (%d)", r.status, reset, now)
	}
	if !counted {
		return
	}
	if first, ok := c.resets[bucket]; !ok {
		c.resets[bucket] = reset
		if reset < now+58 {
			t.Errorf("status %d: first request on %s: X-RateLimit-Reset = %d, want about 60 s after %d", r.status, bucket, reset, now)
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
	if got := objectKeys(t, meta.Meta); !slices.Equal(got, []string{"count", "generatedAt"}) {
		t.Errorf("meta keys %q, want [count generatedAt]", got)
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
	} else if d := r.when.Sub(at); d < -5*time.Second || d > 5*time.Second {
		t.Errorf("meta.generatedAt = %q, %v away from now", env.Meta.GeneratedAt, d)
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

// TestE2EContract checks the contract's successful and refused answers on
// one fresh process, request by request, with the exact rate-limit headers.
func TestE2EContract(t *testing.T) {
	t.Parallel()
	p := startServer(t)
	c := p.client(t, "127.0.0.1")

	t.Run("envelope", func(t *testing.T) {
		for _, name := range []string{"parties", "districts", "candidates"} {
			t.Run(name, func(t *testing.T) {
				r := c.get(t, e2eBase+"/"+name)
				env := checkOK(t, r)
				if len(env.Data) == 0 {
					t.Errorf("no %s", name)
				}
				if !strings.HasPrefix(r.header.Get("Cache-Control"), "public, max-age=") {
					t.Errorf("Cache-Control = %q, want public, max-age=…", r.header.Get("Cache-Control"))
				}
			})
		}
	})

	// The whole dataset, as the records subtest reads it; later subtests
	// compute their expectations from it.
	var (
		parties    []party
		districts  []district
		candidates []candidate // all of them, in the documented order
		rawAll     []json.RawMessage
	)
	partyByID := map[string]party{}
	districtByID := map[string]district{}

	t.Run("records", func(t *testing.T) {
		t.Run("parties", func(t *testing.T) {
			parties = decodeParties(t, checkOK(t, c.get(t, e2eBase+"/parties")).Data)
			slugs := map[string]bool{}
			for _, p := range parties {
				checkUUID(t, "party id", p.ID)
				if !e2eSlug.MatchString(p.Slug) || slugs[p.Slug] {
					t.Errorf("party %s: slug %q is not a unique lowercase slug", p.ID, p.Slug)
				}
				slugs[p.Slug] = true
				if p.Color != nil && !e2eColor.MatchString(*p.Color) {
					t.Errorf("party %s: color %q, want #rrggbb or null", p.Slug, *p.Color)
				}
				if p.Website != nil {
					if u, err := url.Parse(*p.Website); err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
						t.Errorf("party %s: website %q, want an http(s) URL or null", p.Slug, *p.Website)
					}
				}
				if _, dup := partyByID[p.ID]; dup {
					t.Errorf("party id %s twice", p.ID)
				}
				partyByID[p.ID] = p
			}
			if !slices.IsSortedFunc(parties, func(a, b party) int {
				return cmp.Or(strings.Compare(strings.ToLower(a.Name), strings.ToLower(b.Name)), strings.Compare(a.ID, b.ID))
			}) {
				t.Errorf("parties are not ordered by name (case-insensitive), then id: %q", ids(parties, func(p party) string { return p.Name }))
			}
		})
		t.Run("districts", func(t *testing.T) {
			districts = decodeDistricts(t, checkOK(t, c.get(t, e2eBase+"/districts")).Data)
			if len(districts) != 13 {
				t.Fatalf("%d districts, want 13", len(districts))
			}
			for i, d := range districts {
				checkUUID(t, "district id", d.ID)
				if d.Number != i+1 {
					t.Errorf("district %d has number %d, want districts 1..13 in order", i, d.Number)
				}
				if len(d.Localities) == 0 {
					t.Errorf("district %d has no localities", d.Number)
				}
				raws := make([]json.RawMessage, len(d.Localities))
				for j, l := range d.Localities {
					raws[j], _ = json.Marshal(l)
				}
				slugs := map[string]bool{}
				for _, l := range decodeRecords(t, raws, []string{"name", "slug"}) {
					str(t, l, "name")
					s := str(t, l, "slug")
					if !e2eSlug.MatchString(s) || slugs[s] {
						t.Errorf("district %d: locality slug %q is not a unique ASCII slug", d.Number, s)
					}
					slugs[s] = true
				}
				districtByID[d.ID] = d
			}
		})
		t.Run("candidates", func(t *testing.T) {
			env := checkOK(t, c.get(t, e2eBase+"/candidates?limit=500"))
			rawAll = env.Data
			candidates = decodeCandidates(t, env.Data)
			if len(candidates) == 0 {
				t.Fatal("no candidates")
			}
			seen, slugs := map[string]bool{}, map[string]bool{}
			for _, k := range candidates {
				checkUUID(t, "candidate id", k.ID)
				checkUUID(t, "primary_district_id", k.PrimaryDistrictID)
				if seen[k.ID] || slugs[k.Slug] {
					t.Errorf("candidate %s (%s) listed twice", k.ID, k.Slug)
				}
				seen[k.ID], slugs[k.Slug] = true, true
				if k.PartyID != nil {
					checkUUID(t, "party_id", *k.PartyID)
					if _, ok := partyByID[*k.PartyID]; !ok {
						t.Errorf("candidate %s: party_id %s names no party", k.Slug, *k.PartyID)
					}
				}
				if _, ok := districtByID[k.PrimaryDistrictID]; !ok {
					t.Errorf("candidate %s: primary_district_id %s names no district", k.Slug, k.PrimaryDistrictID)
				}
				if len(k.DistrictIDs) == 0 || k.DistrictIDs[0] != k.PrimaryDistrictID {
					t.Errorf("candidate %s: district_ids %q does not start with primary_district_id %s", k.Slug, k.DistrictIDs, k.PrimaryDistrictID)
				}
				for _, id := range k.DistrictIDs {
					checkUUID(t, "district_ids[]", id)
					if _, ok := districtByID[id]; !ok {
						t.Errorf("candidate %s: district_ids names no district: %s", k.Slug, id)
					}
				}
			}
			order := func(a, b candidate) int {
				return cmp.Or(
					cmp.Compare(districtByID[a.PrimaryDistrictID].Number, districtByID[b.PrimaryDistrictID].Number),
					strings.Compare(fold(a.FamilyName), fold(b.FamilyName)),
					strings.Compare(fold(a.GivenName), fold(b.GivenName)),
					strings.Compare(a.ID, b.ID))
			}
			for i := 1; i < len(candidates); i++ {
				if order(candidates[i-1], candidates[i]) > 0 {
					a, b := candidates[i-1], candidates[i]
					t.Errorf("candidates %d and %d out of order: (district %d, %s, %s, %s) before (district %d, %s, %s, %s)", i-1, i,
						districtByID[a.PrimaryDistrictID].Number, a.FamilyName, a.GivenName, a.ID,
						districtByID[b.PrimaryDistrictID].Number, b.FamilyName, b.GivenName, b.ID)
				}
			}
		})
	})
	if t.Failed() || len(candidates) == 0 || len(districts) != 13 || len(parties) == 0 {
		t.Fatal("the records could not be read; the other checks need them")
	}

	t.Run("limits and filters", func(t *testing.T) {
		byDistrict := func(n int) func(candidate) bool {
			return func(k candidate) bool { return districtByID[k.PrimaryDistrictID].Number == n }
		}
		byParty := func(id string) func(candidate) bool {
			return func(k candidate) bool { return k.PartyID != nil && *k.PartyID == id }
		}
		all := func(candidate) bool { return true }
		and := func(f, g func(candidate) bool) func(candidate) bool {
			return func(k candidate) bool { return f(k) && g(k) }
		}
		// A party and a district with no candidate of that party in it.
		var emptyDistrict int
		var emptyParty party
	search:
		for _, pa := range parties {
			for _, d := range districts {
				if !slices.ContainsFunc(candidates, and(byDistrict(d.Number), byParty(pa.ID))) {
					emptyDistrict, emptyParty = d.Number, pa
					break search
				}
			}
		}
		// The party with the most candidates, so its filter says something.
		big := parties[0]
		for _, pa := range parties {
			if len(slices.DeleteFunc(slices.Clone(candidates), func(k candidate) bool { return !byParty(pa.ID)(k) })) >
				len(slices.DeleteFunc(slices.Clone(candidates), func(k candidate) bool { return !byParty(big.ID)(k) })) {
				big = pa
			}
		}
		d5 := districts[4]
		tests := []struct {
			name  string
			query string
			keep  func(candidate) bool
			limit int
		}{
			{"no parameter: default limit 100", "", all, 100},
			{"limit=1", "limit=1", all, 1},
			{"limit=7", "limit=7", all, 7},
			{"limit=500", "limit=500", all, 500},
			{"empty values are absent", "district=&party=&limit=", all, 100},
			{"unknown parameter ignored", "_=123", all, 100},
			{"unknown parameters ignored with a limit", "limit=2&callback=x&utm_source=y", all, 2},
			{"district by number", "district=5&limit=500", byDistrict(5), 500},
			{"district by number, limited", "district=5&limit=2", byDistrict(5), 2},
			{"district 13", "district=13&limit=500", byDistrict(13), 500},
			{"district by UUID", "district=" + d5.ID + "&limit=500", byDistrict(5), 500},
			{"district by upper-case UUID", "district=" + strings.ToUpper(d5.ID) + "&limit=500", byDistrict(5), 500},
			{"party by slug", "party=" + big.Slug + "&limit=500", byParty(big.ID), 500},
			{"party by upper-case slug", "party=" + strings.ToUpper(big.Slug) + "&limit=500", byParty(big.ID), 500},
			{"party by UUID", "party=" + big.ID + "&limit=500", byParty(big.ID), 500},
			{"party by upper-case UUID", "party=" + strings.ToUpper(big.ID) + "&limit=500", byParty(big.ID), 500},
			{"district and party: AND", "district=5&party=" + big.Slug + "&limit=500", and(byDistrict(5), byParty(big.ID)), 500},
			{"filters matching nothing", fmt.Sprintf("district=%d&party=%s", emptyDistrict, emptyParty.Slug), and(byDistrict(emptyDistrict), byParty(emptyParty.ID)), 100},
		}
		for _, tt := range tests {
			t.Run(tt.name, func(t *testing.T) {
				path := e2eBase + "/candidates"
				if tt.query != "" {
					path += "?" + tt.query
				}
				r := c.get(t, path)
				env := checkOK(t, r)
				var wantRaw []json.RawMessage
				var want []string
				for i, k := range candidates {
					if tt.keep(k) && len(want) < tt.limit {
						want = append(want, k.ID)
						wantRaw = append(wantRaw, rawAll[i])
					}
				}
				got := candidateIDs(decodeCandidates(t, env.Data))
				if !slices.Equal(got, want) {
					t.Errorf("GET %s: got %d candidates %q,\nwant %d %q", path, len(got), got, len(want), want)
				}
				// The records are the same bytes as in the full list: a
				// smaller limit or a filter gives a prefix or a subset.
				for i := range min(len(env.Data), len(wantRaw)) {
					if !bytes.Equal(env.Data[i], wantRaw[i]) {
						t.Errorf("record %d differs from the full list's: %s vs %s", i, env.Data[i], wantRaw[i])
						break
					}
				}
				if len(want) == 0 && !bytes.HasPrefix(r.body, []byte(`{"data":[],"meta":{"count":0,`)) {
					t.Errorf("an empty result is %.100s, want data [] and count 0", r.body)
				}
			})
		}
	})

	t.Run("400", func(t *testing.T) {
		unknownUUID := "00000000-0000-4000-8000-000000000000"
		tests := []struct {
			query string
			param []string // the refused parameters, in order
		}{
			{"limit=0", []string{"limit"}},
			{"limit=501", []string{"limit"}},
			{"limit=abc", []string{"limit"}},
			{"limit=-1", []string{"limit"}},
			{"limit=1.5", []string{"limit"}},
			{"limit=99999999999999999999999999", []string{"limit"}},
			{"limit=%201", []string{"limit"}},
			{"district=0", []string{"district"}},
			{"district=14", []string{"district"}},
			{"district=-5", []string{"district"}},
			{"district=foo", []string{"district"}},
			{"district=" + unknownUUID, []string{"district"}},
			{"party=no-such-party", []string{"party"}},
			{"party=" + unknownUUID, []string{"party"}},
			{"party=pn!", []string{"party"}},
			{"limit=1&limit=2", []string{"limit"}},
			{"limit=5&limit=5", []string{"limit"}},
			{"district=1&district=2", []string{"district"}},
			{"party=" + parties[0].Slug + "&party=" + parties[0].Slug, []string{"party"}},
			{"district=14&limit=0", []string{"district", "limit"}},
		}
		for _, tt := range tests {
			t.Run(tt.query, func(t *testing.T) {
				r := c.get(t, e2eBase+"/candidates?"+tt.query)
				p := checkProblem(t, r, http.StatusBadRequest)
				var names []string
				for _, ip := range p.InvalidParams {
					names = append(names, ip.Name)
					if ip.Reason == "" {
						t.Errorf("invalid_params entry %q has no reason", ip.Name)
					}
				}
				slices.Sort(names)
				if !slices.Equal(names, tt.param) {
					t.Errorf("invalid_params names %q, want %q; body %s", names, tt.param, r.body)
				}
				for _, name := range tt.param {
					if !strings.Contains(p.Detail, name) {
						t.Errorf("detail %q does not name %s", p.Detail, name)
					}
				}
			})
		}
	})

}

// TestE2EHTTP checks the HTTP behaviour around the data on a fresh process:
// 404, 405, HEAD, ETag and If-None-Match, gzip and the CORS preflight.
func TestE2EHTTP(t *testing.T) {
	t.Parallel()
	p := startServer(t)
	c := p.client(t, "127.0.0.1")

	t.Run("404", func(t *testing.T) {
		for _, path := range []string{
			"/",
			"/favicon.ico",
			"/api/public/v1/nothing",
			"/api/public/v2/parties",
			"/api/public/v1/parties/extra",
			"/api/public/v1/candidates/1",
			"/api/public/v1/PARTIES",
		} {
			t.Run(path, func(t *testing.T) {
				checkProblem(t, c.get(t, path), http.StatusNotFound)
			})
		}
	})

	t.Run("405", func(t *testing.T) {
		for _, name := range []string{"parties", "districts", "candidates"} {
			for _, method := range []string{http.MethodPost, http.MethodPut, http.MethodDelete, http.MethodPatch} {
				t.Run(method+" "+name, func(t *testing.T) {
					r := c.do(t, method, e2eBase+"/"+name, nil)
					checkProblem(t, r, http.StatusMethodNotAllowed)
					if got := r.header.Get("Allow"); got != "GET, HEAD, OPTIONS" {
						t.Errorf("Allow = %q, want GET, HEAD, OPTIONS", got)
					}
				})
			}
		}
	})

	t.Run("HEAD, ETag and gzip", func(t *testing.T) {
		// Headers that differ from one response to the next by design.
		varying := map[string]bool{"Date": true, "X-Ratelimit-Remaining": true, "Ratelimit": true}
		sameHeaders := func(t *testing.T, get, head reply, ignore ...string) {
			t.Helper()
			for k := range get.header {
				if varying[k] || slices.Contains(ignore, k) {
					continue
				}
				if !slices.Equal(get.header[k], head.header[k]) {
					t.Errorf("%s: GET has %q, HEAD has %q", k, get.header[k], head.header[k])
				}
			}
			for k := range head.header {
				if _, ok := get.header[k]; !ok && !varying[k] && !slices.Contains(ignore, k) {
					t.Errorf("HEAD has %s: %q, GET has none", k, head.header[k])
				}
			}
		}
		for _, path := range []string{e2eBase + "/parties", e2eBase + "/districts", e2eBase + "/candidates?limit=3"} {
			t.Run(path, func(t *testing.T) {
				get := c.get(t, path)
				checkOK(t, get)
				etag := get.header.Get("ETag")
				if etag == "" {
					t.Fatal("no ETag on a success")
				}
				if get.header.Get("Content-Length") != strconv.Itoa(len(get.body)) {
					t.Errorf("Content-Length = %q, body has %d bytes", get.header.Get("Content-Length"), len(get.body))
				}

				head := c.do(t, http.MethodHead, path, nil)
				if head.status != http.StatusOK || len(head.body) != 0 {
					t.Errorf("HEAD: status %d with %d body bytes, want 200 and none", head.status, len(head.body))
				}
				sameHeaders(t, get, head)

				for _, method := range []string{http.MethodGet, http.MethodHead} {
					for _, inm := range []string{etag, strings.TrimPrefix(etag, "W/"), `"nope", ` + etag} {
						r := c.do(t, method, path, map[string]string{"If-None-Match": inm})
						if r.status != http.StatusNotModified || len(r.body) != 0 {
							t.Errorf("%s with If-None-Match %s: status %d with %d body bytes, want 304 and none", method, inm, r.status, len(r.body))
						}
						if r.header.Get("ETag") != etag {
							t.Errorf("304: ETag = %q, want %q", r.header.Get("ETag"), etag)
						}
					}
				}
				r := c.do(t, http.MethodGet, path, map[string]string{"If-None-Match": `W/"not-this-one"`})
				checkOK(t, r)

				gz := c.do(t, http.MethodGet, path, map[string]string{"Accept-Encoding": "gzip"})
				if gz.status != http.StatusOK || gz.header.Get("Content-Encoding") != "gzip" {
					t.Fatalf("GET with Accept-Encoding gzip: status %d, Content-Encoding %q, want 200 gzip", gz.status, gz.header.Get("Content-Encoding"))
				}
				if !slices.ContainsFunc(gz.header.Values("Vary"), func(v string) bool { return strings.Contains(strings.ToLower(v), "accept-encoding") }) {
					t.Errorf("gzip answer has Vary %q, want Accept-Encoding", gz.header.Values("Vary"))
				}
				zr, err := gzip.NewReader(bytes.NewReader(gz.body))
				if err != nil {
					t.Fatalf("body is not gzip: %v", err)
				}
				plain, err := io.ReadAll(zr)
				if err != nil {
					t.Fatalf("body is not valid gzip: %v", err)
				}
				gz.body = plain
				checkOK(t, gz)
				strip := func(b []byte) []byte { return e2eGenerated.ReplaceAll(b, []byte(`"generatedAt":""`)) }
				if !bytes.Equal(strip(plain), strip(get.body)) {
					t.Errorf("gunzipped body differs from the plain body:\n%.300s\n%.300s", plain, get.body)
				}

				gzHead := c.do(t, http.MethodHead, path, map[string]string{"Accept-Encoding": "gzip"})
				if gzHead.status != http.StatusOK || len(gzHead.body) != 0 {
					t.Errorf("HEAD with gzip: status %d with %d body bytes, want 200 and none", gzHead.status, len(gzHead.body))
				}
				sameHeaders(t, gz, gzHead, "Content-Length") // RFC 9110 lets HEAD omit it

				gz304 := c.do(t, http.MethodGet, path, map[string]string{"Accept-Encoding": "gzip", "If-None-Match": etag})
				if gz304.status != http.StatusNotModified || len(gz304.body) != 0 {
					t.Errorf("GET with gzip and If-None-Match: status %d with %d body bytes, want 304 and none", gz304.status, len(gz304.body))
				}
			})
		}
		t.Run("HEAD of errors", func(t *testing.T) {
			for _, tt := range []struct {
				path   string
				status int
			}{
				{e2eBase + "/candidates?limit=0", http.StatusBadRequest},
				{e2eBase + "/candidates?party=no-such-party", http.StatusBadRequest},
				{e2eBase + "/nothing", http.StatusNotFound},
			} {
				get := c.get(t, tt.path)
				checkProblem(t, get, tt.status)
				head := c.do(t, http.MethodHead, tt.path, nil)
				if head.status != tt.status || len(head.body) != 0 {
					t.Errorf("HEAD %s: status %d with %d body bytes, want %d and none", tt.path, head.status, len(head.body), tt.status)
				}
				sameHeaders(t, get, head)
			}
		})
		t.Run("ETag depends on the answer", func(t *testing.T) {
			one := c.get(t, e2eBase+"/candidates?limit=1")
			two := c.get(t, e2eBase+"/candidates?limit=2")
			if one.header.Get("ETag") == two.header.Get("ETag") {
				t.Fatalf("limit=1 and limit=2 have the same ETag %q", one.header.Get("ETag"))
			}
			r := c.do(t, http.MethodGet, e2eBase+"/candidates?limit=2", map[string]string{"If-None-Match": one.header.Get("ETag")})
			checkOK(t, r)
		})
	})

	t.Run("preflight", func(t *testing.T) {
		for _, name := range []string{"parties", "districts", "candidates", "nothing"} {
			t.Run(name, func(t *testing.T) {
				path := e2eBase + "/" + name
				hdr := map[string]string{
					"Origin":                         "https://example.org",
					"Access-Control-Request-Method":  "GET",
					"Access-Control-Request-Headers": "If-None-Match, X-Requested-With",
				}
				before := c.counts[e2eBucket(path)]
				for range 3 {
					r := c.do(t, http.MethodOptions, path, hdr) // checks Remaining is unchanged
					if r.status != http.StatusNoContent || len(r.body) != 0 {
						t.Errorf("OPTIONS: status %d with %d body bytes, want 204 and none", r.status, len(r.body))
					}
					if got := r.header.Get("Access-Control-Allow-Methods"); got != "GET, HEAD, OPTIONS" {
						t.Errorf("Access-Control-Allow-Methods = %q, want GET, HEAD, OPTIONS", got)
					}
					allowed := map[string]bool{}
					for _, v := range r.header.Values("Access-Control-Allow-Headers") {
						for _, h := range strings.Split(v, ",") {
							allowed[strings.ToLower(strings.TrimSpace(h))] = true
						}
					}
					if !(allowed["*"] || allowed["if-none-match"] && allowed["x-requested-with"]) {
						t.Errorf("Access-Control-Allow-Headers = %q, want the requested If-None-Match, X-Requested-With", r.header.Values("Access-Control-Allow-Headers"))
					}
					if age, err := strconv.Atoi(r.header.Get("Access-Control-Max-Age")); err != nil || age <= 0 {
						t.Errorf("Access-Control-Max-Age = %q, want a positive number of seconds", r.header.Get("Access-Control-Max-Age"))
					}
				}
				if c.counts[e2eBucket(path)] != before {
					t.Fatal("the helper counted a preflight")
				}
				// The next GET is counted as the very next request.
				c.get(t, path)
			})
		}
	})
}

// TestE2ERateLimit exhausts one endpoint's quota and checks the 429, the
// separate counters per endpoint and per IP, and that forged forwarding
// headers change nothing.
func TestE2ERateLimit(t *testing.T) {
	t.Parallel()
	p := startServer(t)
	c := p.client(t, "127.0.0.1")
	const path = e2eBase + "/candidates?limit=1"

	for i := range e2eLimit {
		r := c.get(t, path) // checks Remaining = 59, 58, …, 0
		if r.status != http.StatusOK {
			t.Fatalf("request %d of %d: status %d, want 200; body %s", i+1, e2eLimit, r.status, r.body)
		}
	}

	t.Run("61st is 429", func(t *testing.T) {
		r := c.get(t, path)
		pb := checkProblem(t, r, http.StatusTooManyRequests)
		ra, err := strconv.Atoi(r.header.Get("Retry-After"))
		if err != nil || ra < 1 || ra > 60 {
			t.Fatalf("Retry-After = %q, want whole seconds from 1 to 60", r.header.Get("Retry-After"))
		}
		reset, _ := strconv.ParseInt(r.header.Get("X-RateLimit-Reset"), 10, 64)
		if d := reset - (r.when.Unix() + int64(ra)); d < -2 || d > 2 {
			t.Errorf("Retry-After %d s and X-RateLimit-Reset %d disagree (now %d)", ra, reset, r.when.Unix())
		}
		resetAt := time.Unix(reset, 0).UTC().Format(time.RFC3339)
		if !strings.Contains(strings.ToLower(pb.Detail), "retry") ||
			!(strings.Contains(pb.Detail, strconv.Itoa(ra)) || strings.Contains(pb.Detail, resetAt)) {
			t.Errorf("detail %q does not say when to retry (in %d s, at %s)", pb.Detail, ra, resetAt)
		}
	})

	t.Run("still 429 whatever the request", func(t *testing.T) {
		for _, tt := range []struct {
			name   string
			method string
			path   string
			hdr    map[string]string
		}{
			{"forged X-Forwarded-For", http.MethodGet, path, map[string]string{"X-Forwarded-For": "1.2.3.4"}},
			{"forged Forwarded", http.MethodGet, path, map[string]string{"Forwarded": "for=1.2.3.4"}},
			{"forged X-Real-IP", http.MethodGet, path, map[string]string{"X-Real-IP": "1.2.3.4"}},
			{"other query", http.MethodGet, e2eBase + "/candidates?district=3&_=1", nil},
			{"invalid query", http.MethodGet, e2eBase + "/candidates?limit=0", nil},
			{"HEAD", http.MethodHead, path, nil},
			{"If-None-Match", http.MethodGet, path, map[string]string{"If-None-Match": "*"}},
		} {
			t.Run(tt.name, func(t *testing.T) {
				r := c.do(t, tt.method, tt.path, tt.hdr)
				if r.status != http.StatusTooManyRequests {
					t.Fatalf("status %d, want 429; body %s", r.status, r.body)
				}
				if tt.method != http.MethodHead {
					checkProblem(t, r, http.StatusTooManyRequests)
				}
				if ra, err := strconv.Atoi(r.header.Get("Retry-After")); err != nil || ra < 1 {
					t.Errorf("Retry-After = %q, want an integer ≥ 1", r.header.Get("Retry-After"))
				}
			})
		}
	})

	t.Run("preflight on an exhausted endpoint", func(t *testing.T) {
		// API.md: a preflight "does not count, but still carries the
		// headers", and is answered 204. A browser whose preflight fails
		// never sends the real request, so a page's script could not read
		// the 429's Retry-After: the preflight must pass even when the
		// quota is used up, and the real request then gets the 429.
		r := c.do(t, http.MethodOptions, path, map[string]string{
			"Origin":                         "https://example.org",
			"Access-Control-Request-Method":  "GET",
			"Access-Control-Request-Headers": "If-None-Match",
		})
		if r.status != http.StatusNoContent || len(r.body) != 0 {
			t.Errorf("OPTIONS %s after the quota is used up: status %d, want 204 with no body; body %s", path, r.status, r.body)
		}
		if got := r.header.Get("Access-Control-Allow-Methods"); got != "GET, HEAD, OPTIONS" {
			t.Errorf("Access-Control-Allow-Methods = %q, want GET, HEAD, OPTIONS", got)
		}
		if got := r.header.Get("Access-Control-Allow-Headers"); !strings.EqualFold(got, "If-None-Match") && got != "*" {
			t.Errorf("Access-Control-Allow-Headers = %q, want If-None-Match", got)
		}
	})

	t.Run("other endpoints have their own counters", func(t *testing.T) {
		for _, other := range []string{e2eBase + "/parties", e2eBase + "/districts"} {
			checkOK(t, c.get(t, other)) // Remaining 59
		}
		checkProblem(t, c.get(t, e2eBase+"/nothing"), http.StatusNotFound) // the shared counter: 59
	})

	t.Run("another IP has its own counter", func(t *testing.T) {
		c2 := p.client(t, "127.0.0.2")
		r := c2.get(t, path) // Remaining 59
		checkOK(t, r)
		if got := r.header.Get("X-RateLimit-Remaining"); got != "59" {
			t.Errorf("127.0.0.2: X-RateLimit-Remaining = %q, want 59", got)
		}
		// And 127.0.0.1 is still limited.
		if r := c.get(t, path); r.status != http.StatusTooManyRequests {
			t.Errorf("127.0.0.1 after 127.0.0.2: status %d, want 429", r.status)
		}
	})
}

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
	p := startServer(t)
	long := func(s string) string { return strings.Repeat(s, 6000/len(s)) }

	t.Run("net/http", func(t *testing.T) {
		tests := []struct {
			name   string
			method string
			path   string
			hdr    map[string]string
			status int
			param  string // the parameter a 400 must name
		}{
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
		for _, tt := range tests {
			t.Run(tt.name, func(t *testing.T) {
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
			})
		}
	})

	t.Run("raw TCP", func(t *testing.T) {
		req := func(line string, headers ...string) []byte {
			return []byte(line + "\r\nHost: " + p.addr + "\r\nConnection: close\r\n" + strings.Join(headers, "") + "\r\n")
		}
		tests := []struct {
			name    string
			payload []byte
			status  int // the handler's answer; 0: the HTTP library's own 4xx
		}{
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
			{"absolute-form target", req("GET http://" + p.addr + e2eBase + "/parties HTTP/1.1"), 200},
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
		for _, tt := range tests {
			t.Run(tt.name, func(t *testing.T) {
				status, got, closed := rawExchange(t, p.addr, tt.payload)
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
			})
		}
	})

	// The process stops gracefully after all that (checked by the cleanup).
}

// TestE2EGracefulShutdown sends SIGTERM while requests are running: every
// request that got an answer got a complete 200, and the process exits 0.
// (A request whose header is still arriving when SIGTERM comes may be
// dropped: net/http closes such a connection without an answer, which a
// client sees as a connection closed before any response.)
func TestE2EGracefulShutdown(t *testing.T) {
	t.Parallel()
	p := startServer(t)

	// Workers, each on its own loopback address (so with its own quota),
	// requesting in a loop until the server goes away.
	type result struct {
		worker int
		status int
		err    error // no answer at all
		early  bool  // err came before SIGTERM was sent
		detail string
	}
	var stopping atomic.Bool
	const workers = 8
	results := make(chan result, workers*(3*e2eLimit+1))
	var answered sync.WaitGroup
	answered.Add(workers)
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	var wg sync.WaitGroup
	for w := range workers {
		c := p.client(t, fmt.Sprintf("127.0.0.%d", 10+w))
		wg.Add(1)
		go func() {
			defer wg.Done()
			first := true
			paths := []string{e2eBase + "/candidates?limit=500", e2eBase + "/districts", e2eBase + "/parties"}
			for i := 0; i < 3*(e2eLimit-2); i++ {
				path := paths[i%3]
				req, _ := http.NewRequestWithContext(ctx, http.MethodGet, p.url(path), nil)
				resp, err := c.hc.Do(req)
				if err != nil {
					// No answer: allowed only once the server is stopping.
					results <- result{worker: w, err: err, early: !stopping.Load()}
					break
				}
				body, err := io.ReadAll(resp.Body)
				resp.Body.Close()
				res := result{worker: w, status: resp.StatusCode}
				if err != nil {
					res.detail = fmt.Sprintf("%s: answer cut short after %d body bytes: %v", path, len(body), err)
				} else {
					var env envelope
					switch {
					case resp.StatusCode != http.StatusOK:
						res.detail = string(body)
					case resp.ContentLength >= 0 && int64(len(body)) != resp.ContentLength:
						res.detail = fmt.Sprintf("%s: %d body bytes, Content-Length %d", path, len(body), resp.ContentLength)
					case json.Unmarshal(body, &env) != nil || env.Meta.Count != len(env.Data) || env.Meta.Count == 0:
						res.detail = fmt.Sprintf("%s: incomplete body %.100q…%.100q", path, body, body[max(0, len(body)-100):])
					}
				}
				results <- res
				if first {
					first = false
					answered.Done()
				}
				if res.detail != "" {
					break
				}
			}
			if first {
				answered.Done()
			}
		}()
	}
	answered.Wait() // every worker has had at least one answer: traffic is flowing

	stopping.Store(true)
	p.terminate(t)

	wg.Wait()
	close(results)
	ok, failed := 0, 0
	for r := range results {
		switch {
		case r.err != nil && r.early:
			t.Errorf("worker %d: no answer before SIGTERM was sent: %v", r.worker, r.err)
		case r.err != nil:
			failed++ // refused or closed before any answer: allowed once stopping
		case r.status != http.StatusOK || r.detail != "":
			t.Errorf("worker %d got an answer that is not a complete 200: status %d, %s", r.worker, r.status, r.detail)
		default:
			ok++
		}
	}
	t.Logf("%d complete answers, %d requests refused after SIGTERM", ok, failed)
	if ok < workers {
		t.Errorf("only %d complete answers", ok)
	}
	p.stop(t)
}
