package commands_test

// A real browser as a client: headless Chromium (Debian's chromium package)
// loads a page from one origin (an httptest.Server on 127.0.0.1) whose
// script reads the API of a real "ballot serve" process on another origin
// (another port) with fetch(), as a third party's web page would. The test
// reads what the page's script could see from the page's DOM and checks it
// exactly: the bodies, the rate-limit headers and the ETag (readable only
// through Access-Control-Expose-Headers), a 304 after a preflight, and the
// 429 with Retry-After once the quota is spent. Everything stays on loopback.

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/chromedp/cdproto/log"
	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/chromedp"

	"ballot/internal/testprograms"
)

const (
	// browserTimeout bounds everything the browser does in one test: a
	// bound for a hung browser, generous because Chromium starts slowly on
	// a loaded machine, not a measure of speed.
	browserTimeout = 90 * time.Second
)

// browserFlags are the flags Chromium starts with, besides the empty
// --user-data-dir the test makes. chromedp adds only --remote-debugging-pipe
// (the DevTools protocol over file descriptors 3 and 4, so no port is
// opened) and the first page, about:blank. Without the background-networking
// flags, Chromium tries to reach Google's hosts, which this machine's closed
// network refuses.
var browserFlags = []string{
	"headless",
	"no-sandbox",
	"disable-gpu",
	"no-first-run",
	"disable-background-networking",
	"disable-component-update",
	"disable-sync",
	"disable-quic",
}

// browserRateLimit is the IETF RateLimit field the server sends
// (draft-ietf-httpapi-ratelimit-headers-10): remaining, seconds to reset.
var browserRateLimit = regexp.MustCompile(`^"endpoint";r=(\d+);t=(\d+)$`)

// needBrowser returns the path of Chromium (Debian's chromium, on PATH),
// or skips the test, naming how to install it (.ci/browser-deps); under
// BALLOT_TEST_REQUIRE=all, as in CI, its absence fails the test.
func needBrowser(t *testing.T) string {
	t.Helper()
	return testprograms.Need(t, testprograms.Chromium)[0]
}

// pageView is what the page's script saw, as it writes it into <pre
// id="result">.
type pageView struct {
	Fatal       string                `json:"fatal"`
	Origin      string                `json:"origin"`
	API         string                `json:"api"`
	Lists       map[string]pageAnswer `json:"lists"`
	Conditional pageAnswer            `json:"conditional"`
	Loop        []struct {
		Status    int     `json:"status"`
		Remaining *string `json:"remaining"`
		Reset     *string `json:"reset"`
		Error     *string `json:"error"`
	} `json:"loop"`
	Limited            *pageAnswer `json:"limited"`
	LimitedConditional *pageAnswer `json:"limitedConditional"`
	Control            *pageAnswer `json:"control"`
}

// pageAnswer is one fetch() as the script saw it. A header the script could
// not read is null (nil here).
type pageAnswer struct {
	URL           string             `json:"url"`
	Status        int                `json:"status"`
	Type          string             `json:"type"`
	Headers       map[string]*string `json:"headers"`
	Error         *string            `json:"error"`
	BodyLength    int                `json:"bodyLength"`
	DataLength    *int               `json:"dataLength"`
	MetaCount     *int               `json:"metaCount"`
	ProblemStatus int                `json:"problemStatus"`
	Title         string             `json:"title"`
	Detail        string             `json:"detail"`
}

func (a pageAnswer) header(name string) string {
	if v := a.Headers[strings.ToLower(name)]; v != nil {
		return *v
	}
	return ""
}

// browserEvents collects what the browser reports besides the page: network
// failures (with the CORS reason, if any), requests, console messages and
// uncaught exceptions.
type browserEvents struct {
	mu         sync.Mutex
	urls       map[network.RequestID]string
	failed     []string // "URL: reason"
	corsFailed map[string]string
	preflights []string // URLs
	console    []string
	internal   []string // chromedp's own error reports
}

func (e *browserEvents) listen(ev any) {
	e.mu.Lock()
	defer e.mu.Unlock()
	switch ev := ev.(type) {
	case *network.EventRequestWillBeSent:
		e.urls[ev.RequestID] = ev.Request.Method + " " + ev.Request.URL
	case *network.EventResponseReceived:
		// Chromium reports a preflight's request as of type Other, and
		// its response as of type Preflight.
		if ev.Type == network.ResourceTypePreflight {
			e.preflights = append(e.preflights, fmt.Sprintf("%s: %d", e.urls[ev.RequestID], ev.Response.Status))
		}
	case *network.EventLoadingFailed:
		u := e.urls[ev.RequestID]
		reason := ev.ErrorText
		if ev.BlockedReason != "" {
			reason += ", blocked: " + ev.BlockedReason.String()
		}
		if ev.CorsErrorStatus != nil {
			reason += fmt.Sprintf(", CORS error %s (%q)", ev.CorsErrorStatus.CorsError, ev.CorsErrorStatus.FailedParameter)
			e.corsFailed[u] = ev.CorsErrorStatus.CorsError.String()
		}
		e.failed = append(e.failed, fmt.Sprintf("%s %s: %s", ev.Type, u, reason))
	case *log.EventEntryAdded:
		e.console = append(e.console, fmt.Sprintf("log %s/%s: %s (%s)", ev.Entry.Source, ev.Entry.Level, ev.Entry.Text, ev.Entry.URL))
	case *runtime.EventConsoleAPICalled:
		var args []string
		for _, a := range ev.Args {
			args = append(args, string(a.Value))
		}
		e.console = append(e.console, fmt.Sprintf("console.%s: %s", ev.Type, strings.Join(args, " ")))
	case *runtime.EventExceptionThrown:
		d := ev.ExceptionDetails
		text := d.Text
		if d.Exception != nil {
			text += " " + d.Exception.Description
		}
		e.console = append(e.console, "uncaught exception: "+text)
	}
}

func (e *browserEvents) errorf(format string, args ...any) {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.internal = append(e.internal, fmt.Sprintf(format, args...))
}

// procStat is one process as /proc/PID/stat shows it.
type procStat struct {
	ppid      int
	state     string
	startTime string // clock ticks after boot: tells a reused PID apart
}

func readProcStat(pid int) (procStat, bool) {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return procStat{}, false
	}
	// The command name, in parentheses, may contain spaces: split after it.
	s := string(b)
	i := strings.LastIndexByte(s, ')')
	if i < 0 {
		return procStat{}, false
	}
	f := strings.Fields(s[i+1:])
	if len(f) < 20 {
		return procStat{}, false
	}
	ppid, _ := strconv.Atoi(f[1])
	return procStat{ppid: ppid, state: f[0], startTime: f[19]}, true
}

// processTree returns pid and its descendants, each with its start time.
func processTree(pid int) map[int]string {
	entries, _ := os.ReadDir("/proc")
	children := map[int][]int{}
	starts := map[int]string{}
	for _, e := range entries {
		p, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		if st, ok := readProcStat(p); ok {
			children[st.ppid] = append(children[st.ppid], p)
			starts[p] = st.startTime
		}
	}
	tree := map[int]string{}
	var walk func(int)
	walk = func(p int) {
		if _, seen := tree[p]; seen {
			return
		}
		tree[p] = starts[p]
		for _, c := range children[p] {
			walk(c)
		}
	}
	if _, ok := starts[pid]; ok {
		walk(pid)
	}
	return tree
}

// survivors returns the processes of tree that still run (a zombie, or a
// PID reused by another process, does not count).
func survivors(tree map[int]string) []int {
	var alive []int
	for pid, start := range tree {
		if st, ok := readProcStat(pid); ok && st.startTime == start && st.state != "Z" && st.state != "X" {
			alive = append(alive, pid)
		}
	}
	return alive
}

// servePage serves testdata/browser/page.html at / on a second origin.
func servePage(t *testing.T) *httptest.Server {
	t.Helper()
	page, err := os.ReadFile(filepath.Join("testdata", "browser", "page.html"))
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/":
		case "/favicon.ico":
			w.WriteHeader(http.StatusNoContent) // no icon, and no error in the console
			return
		default:
			http.NotFound(w, r)
			return
		}
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		w.Header().Set("Cache-Control", "no-store")
		_, _ = w.Write(page)
	}))
	srv.Config.ReadHeaderTimeout = 5 * time.Second
	srv.Config.WriteTimeout = 10 * time.Second
	srv.Start() // on 127.0.0.1, a port of its own
	t.Cleanup(srv.Close)
	return srv
}

// startBrowser starts Chromium with its own empty profile directory and
// returns its context, in which ev hears what the browser reports, and the
// function that stops it: a graceful close, then every process of the
// browser's tree checked gone (killed by PID if not, and the test failed).
// The stop is registered as a cleanup too; it returns how many processes
// it checked. bound bounds the browser's whole life.
func startBrowser(t *testing.T, ev *browserEvents, bound time.Duration) (context.Context, func() int) {
	t.Helper()
	browserPath := needBrowser(t)
	opts := []chromedp.ExecAllocatorOption{chromedp.ExecPath(browserPath), chromedp.UserDataDir(t.TempDir())}
	for _, f := range browserFlags {
		opts = append(opts, chromedp.Flag(f, true))
	}
	rootCtx, rootCancel := context.WithTimeout(context.Background(), bound)
	t.Cleanup(rootCancel)
	allocCtx, allocCancel := chromedp.NewExecAllocator(rootCtx, opts...)
	t.Cleanup(allocCancel)
	browserCtx, browserCancel := chromedp.NewContext(allocCtx, chromedp.WithErrorf(ev.errorf))
	t.Cleanup(browserCancel)

	// Start the browser (the first Do does), and note its processes.
	if err := chromedp.Do(browserCtx); err != nil {
		t.Fatalf("starting %s: %v", browserPath, err)
	}
	proc := chromedp.FromContext(browserCtx).Browser.Process()
	if cmdline, err := os.ReadFile(fmt.Sprintf("/proc/%d/cmdline", proc.Pid)); err == nil {
		t.Logf("Chromium pid %d: %s", proc.Pid, strings.ReplaceAll(strings.TrimRight(string(cmdline), "\x00"), "\x00", " "))
	}
	var tree map[int]string
	stopped := false
	stopBrowser := func() int {
		if stopped {
			return len(tree)
		}
		stopped = true
		tree = processTree(proc.Pid) // the browser, its zygotes, renderers and utilities
		// A graceful close (Browser.close over the protocol), then the
		// allocator's cancel, which kills whatever is left and waits.
		if err := chromedp.Cancel(browserCtx); err != nil {
			t.Errorf("closing Chromium: %v", err)
		}
		allocCancel()
		deadline := time.Now().Add(5 * time.Second)
		alive := survivors(tree)
		for len(alive) > 0 && time.Now().Before(deadline) {
			time.Sleep(50 * time.Millisecond)
			alive = survivors(tree)
		}
		if len(alive) > 0 {
			t.Errorf("Chromium processes %v (of %d started) still run after the browser was closed: killed", alive, len(tree))
			for _, pid := range alive {
				_ = syscall.Kill(pid, syscall.SIGKILL)
			}
		}
		return len(tree)
	}
	t.Cleanup(func() { stopBrowser() }) // also on t.Fatal, before t.TempDir's removal
	return browserCtx, stopBrowser
}

// TestBrowserCrossOrigin: Chromium's fetch() on a page of another origin
// reads the three collections, their rate-limit headers and ETag, gets a 304
// after a preflight, and runs into the 429.
func TestBrowserCrossOrigin(t *testing.T) {
	needBrowser(t)
	t.Parallel()
	start := time.Now()

	p := startServer(t) // default rate limit: e2eLimit per minute and endpoint
	page := servePage(t)
	// The control: a third origin that sends no CORS headers at all.
	control := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write([]byte(`{"data":[]}`))
	}))
	t.Cleanup(control.Close)

	apiBase := "http://" + p.addr + e2eBase
	pageURL := page.URL + "/?" + url.Values{"api": {apiBase}, "control": {control.URL + "/nocors"}}.Encode()
	if page.URL == "http://"+p.addr {
		t.Fatalf("the page and the API share the origin %s", page.URL)
	}

	ev := &browserEvents{urls: map[network.RequestID]string{}, corsFailed: map[string]string{}}
	browserCtx, stopBrowser := startBrowser(t, ev, browserTimeout+15*time.Second)

	// Load the page and wait for its script to finish.
	var resultJSON string
	runCtx, runCancel := context.WithTimeout(browserCtx, browserTimeout)
	defer runCancel()
	err := chromedp.Listen(browserCtx, ev.listen)
	if err == nil {
		err = chromedp.Do(runCtx,
			chromedp.Navigate(pageURL),
			chromedp.WaitReady(chromedp.CSS(`#result[data-state="done"]`)),
		)
	}
	if err == nil {
		resultJSON, err = chromedp.Run(runCtx, chromedp.TextContent(chromedp.CSS(`#result`)))
	}
	elapsed := time.Since(start)
	checked := stopBrowser()
	t.Logf("Chromium closed (%d processes checked); the page's work took %v from the server's start", checked, elapsed.Round(time.Millisecond))

	ev.mu.Lock()
	defer ev.mu.Unlock()
	if err != nil {
		t.Fatalf("driving the page: %v\nbrowser messages:\n%s\nfailed loads: %q", err, strings.Join(ev.console, "\n"), ev.failed)
	}
	defer func() {
		if t.Failed() {
			t.Logf("what the page saw:\n%s", resultJSON)
		}
	}()
	for _, m := range ev.internal {
		t.Logf("chromedp: %s", m)
	}

	var view pageView
	if err := json.Unmarshal([]byte(resultJSON), &view); err != nil {
		t.Fatalf("the page's result is not JSON: %v\n%s", err, resultJSON)
	}
	if view.Fatal != "" {
		t.Fatalf("the page's script failed: %s", view.Fatal)
	}
	if view.Origin != page.URL || view.API != apiBase {
		t.Errorf("page origin %q and API %q, want %q and %q", view.Origin, view.API, page.URL, apiBase)
	}

	// The browser's own account: no CORS error, nor any other failed load,
	// on the API's origin. The control shows that a CORS error is seen.
	apiOrigin := "http://" + p.addr + "/"
	for _, f := range ev.failed {
		if strings.Contains(f, apiOrigin) {
			t.Errorf("the browser failed a request to the API: %s", f)
		}
	}
	for _, m := range ev.console {
		switch {
		case strings.Contains(m, control.URL):
			// The control's CORS error, expected.
		case strings.Contains(m, "CORS") || strings.Contains(m, "Access-Control") || strings.Contains(m, "blocked"):
			t.Errorf("the browser reported: %s", m)
		default:
			t.Logf("the browser reported: %s", m)
		}
	}
	if got := ev.corsFailed["GET "+control.URL+"/nocors"]; got == "" {
		t.Errorf("the control (a server without CORS headers) raised no CORS error; failed loads: %q", ev.failed)
	} else if view.Control == nil || view.Control.Error == nil || view.Control.Status != 0 {
		t.Errorf("the control: the script read %+v, want a TypeError", view.Control)
	}
	// Two preflights, both 204: one for each request with If-None-Match
	// (on two URLs, so the first one's cached answer does not serve the
	// second). The simple GETs go without one.
	if want := []string{"OPTIONS " + apiBase + "/parties: 204", "OPTIONS " + apiBase + "/districts: 204"}; !slices.Equal(ev.preflights, want) {
		t.Errorf("preflights %q, want %q", ev.preflights, want)
	}

	// checkAnswer checks what every answer shows to the script.
	checkAnswer := func(name string, a pageAnswer, status, remaining int) int64 {
		t.Helper()
		if a.Error != nil {
			t.Errorf("%s: fetch failed in the browser: %s", name, *a.Error)
			return 0
		}
		if a.Status != status || a.Type != "cors" {
			t.Errorf("%s: status %d, response type %q, want %d and cors", name, a.Status, a.Type, status)
		}
		if got := a.header("X-RateLimit-Limit"); got != strconv.Itoa(e2eLimit) {
			t.Errorf("%s: the script reads X-RateLimit-Limit %q, want %d", name, got, e2eLimit)
		}
		if got := a.header("X-RateLimit-Remaining"); got != strconv.Itoa(remaining) {
			t.Errorf("%s: the script reads X-RateLimit-Remaining %q, want %d", name, got, remaining)
		}
		reset, err := strconv.ParseInt(a.header("X-RateLimit-Reset"), 10, 64)
		if err != nil || reset < start.Unix() || reset > time.Now().Unix()+e2eLimit+2 {
			t.Errorf("%s: the script reads X-RateLimit-Reset %q, want a Unix time within a minute", name, a.header("X-RateLimit-Reset"))
		}
		// The IETF fields (issue 4: sent and exposed to CORS too).
		if got, want := a.header("RateLimit-Policy"), fmt.Sprintf(`"endpoint";q=%d;w=60`, e2eLimit); got != want {
			t.Errorf("%s: the script reads RateLimit-Policy %q, want %q", name, got, want)
		}
		if m := browserRateLimit.FindStringSubmatch(a.header("RateLimit")); m == nil || m[1] != strconv.Itoa(remaining) {
			t.Errorf("%s: the script reads RateLimit %q, want \"endpoint\";r=%d;t=SECONDS", name, a.header("RateLimit"), remaining)
		} else if secs, _ := strconv.Atoi(m[2]); secs > 60 {
			t.Errorf("%s: RateLimit %q: t beyond the 60 s window", name, a.header("RateLimit"))
		}
		return reset
	}

	// The three collections: 200, their records, Remaining one below the
	// limit (each is its own counter), an ETag.
	wantCounts := map[string]int{"parties": 6, "districts": 13, "candidates": 100}
	resets := map[string]int64{}
	for _, name := range []string{"parties", "districts", "candidates"} {
		a, ok := view.Lists[name]
		if !ok {
			t.Errorf("%s: the page did not fetch it", name)
			continue
		}
		resets[name] = checkAnswer(name, a, http.StatusOK, e2eLimit-1)
		if a.DataLength == nil || *a.DataLength != wantCounts[name] || a.MetaCount == nil || *a.MetaCount != wantCounts[name] {
			t.Errorf("%s: %v records, meta.count %v, want %d", name, ptrText(a.DataLength), ptrText(a.MetaCount), wantCounts[name])
		}
		if got := a.header("Content-Type"); got != "application/json; charset=utf-8" {
			t.Errorf("%s: Content-Type %q", name, got)
		}
		if etag := a.header("ETag"); etag == "" || !strings.HasSuffix(etag, `"`) {
			t.Errorf("%s: the script reads ETag %q, want a non-empty entity tag", name, etag)
		}
		// 100 of the 177 candidates: a link to the rest, which the
		// script can read; the other collections are never cut.
		wantLink := ""
		if name == "candidates" {
			wantLink = `</api/public/v1/candidates?limit=100&offset=100>; rel="next"`
		}
		if got := a.header("Link"); got != wantLink {
			t.Errorf("%s: the script reads Link %q, want %q", name, got, wantLink)
		}
	}

	// If-None-Match with the parties' ETag: a preflight, then 304, the
	// second request on parties.
	c := view.Conditional
	if c.Error != nil {
		t.Errorf("If-None-Match: fetch failed in the browser: %s", *c.Error)
	} else {
		if reset := checkAnswer("If-None-Match", c, http.StatusNotModified, e2eLimit-2); reset != resets["parties"] {
			t.Errorf("If-None-Match: X-RateLimit-Reset %d, want the window's %d", reset, resets["parties"])
		}
		if c.BodyLength != 0 {
			t.Errorf("the 304 has a %d-character body", c.BodyLength)
		}
		if got, want := c.header("ETag"), view.Lists["parties"].header("ETag"); got != want {
			t.Errorf("the 304 shows ETag %q, want %q", got, want)
		}
	}

	// Districts again and again: Remaining goes down by one per request to
	// 0, then 429.
	if len(view.Loop) != e2eLimit {
		t.Errorf("the loop made %d requests before stopping, want %d (%d left after the first, then the 429)", len(view.Loop), e2eLimit, e2eLimit-1)
	}
	for i, l := range view.Loop {
		want, wantStatus := e2eLimit-2-i, http.StatusOK
		if i == e2eLimit-1 {
			want, wantStatus = 0, http.StatusTooManyRequests
		}
		switch {
		case l.Error != nil:
			t.Errorf("loop request %d: fetch failed in the browser: %s", i+1, *l.Error)
		case l.Status != wantStatus || l.Remaining == nil || *l.Remaining != strconv.Itoa(want):
			t.Errorf("loop request %d: status %d, Remaining %s, want %d and %d", i+1, l.Status, ptrText(l.Remaining), wantStatus, want)
		case l.Reset == nil || *l.Reset != strconv.FormatInt(resets["districts"], 10):
			t.Errorf("loop request %d: X-RateLimit-Reset %s, want the window's %d", i+1, ptrText(l.Reset), resets["districts"])
		}
	}

	// The 429 as the script sees it: Retry-After, a problem body whose
	// detail says when to retry.
	if lim := view.Limited; lim == nil {
		t.Errorf("the page never got a 429")
	} else if lim.Error == nil {
		checkAnswer("429", *lim, http.StatusTooManyRequests, 0)
		retry, err := strconv.Atoi(lim.header("Retry-After"))
		if err != nil || retry < 1 || retry > 60 {
			t.Errorf("429: the script reads Retry-After %q, want whole seconds from 1 to 60", lim.header("Retry-After"))
		}
		if got := lim.header("Content-Type"); got != "application/problem+json" {
			t.Errorf("429: Content-Type %q, want application/problem+json", got)
		}
		if lim.ProblemStatus != http.StatusTooManyRequests || lim.Title != "Too Many Requests" {
			t.Errorf("429: problem status %d, title %q", lim.ProblemStatus, lim.Title)
		}
		if !strings.Contains(strings.ToLower(lim.Detail), "retry") || !strings.Contains(lim.Detail, strconv.Itoa(retry)) {
			t.Errorf("429: detail %q does not say when to retry (Retry-After %d)", lim.Detail, retry)
		}
		if lim.header("ETag") != "" {
			t.Errorf("429: carries ETag %q", lim.header("ETag"))
		}
	}

	// Past the limit, a request that needs a preflight: the browser sends
	// it, and the script reads the 429.
	if lc := view.LimitedConditional; lc == nil {
		t.Errorf("the page did not send If-None-Match past the limit")
	} else if lc.Error != nil {
		t.Errorf("If-None-Match past the limit: fetch failed in the browser (was the preflight refused?): %s", *lc.Error)
	} else {
		checkAnswer("If-None-Match past the limit", *lc, http.StatusTooManyRequests, 0)
		if retry, err := strconv.Atoi(lc.header("Retry-After")); err != nil || retry < 1 {
			t.Errorf("If-None-Match past the limit: the script reads Retry-After %q", lc.header("Retry-After"))
		}
	}

}

func ptrText[T any](p *T) string {
	if p == nil {
		return "null"
	}
	return fmt.Sprint(*p)
}
