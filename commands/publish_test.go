package commands_test

// Publishing as the README describes it, with the real binary on loopback:
// write a new dataset directory, validate it, swap the "current" symbolic
// link to it atomically (a rename, as "mv -T" does), then SIGHUP or let
// serve --watch see it; while clients keep reading, not one request fails
// and no answer mixes two datasets.
//
// The binary is e2eBuild's; the process helpers here (publishProc) run it
// much as the end-to-end tests (helpers_test.go) do, with both addresses read from the log. Every wait is for an
// event (a log line, a version served, a counter) with a generous bound;
// every process is stopped by its PID.

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
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

	"ballot/dataset"
	"ballot/internal/testprograms"
)

// publishWait bounds every wait for something to happen: the machine that
// runs the tests may be loaded.
const publishWait = 15 * time.Second

var publishServing = regexp.MustCompile(`level=INFO msg=serving .* api=http://(127\.0\.0\.1:\d+)/api/public/v1/ admin=http://(127\.0\.0\.1:\d+)/`)

// publishLog is a process's stderr, safe to read while it is written.
type publishLog struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (l *publishLog) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.buf.Write(p)
}

func (l *publishLog) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.buf.String()
}

// publishProc is one running "ballot serve".
type publishProc struct {
	cmd        *exec.Cmd
	log        *publishLog
	done       chan struct{}
	api, admin string // host:port
	exitErr    error
	stopped    atomic.Bool
	hc         *http.Client
}

// publishServe starts "ballot serve" on loopback ports chosen by the
// system, with no rate limit to speak of and no access log, in an empty
// working directory and with no BALLOT_* variable; its cleanup stops it
// with SIGTERM (SIGKILL after a bound) and expects exit 0.
func publishServe(t *testing.T, bin string, args ...string) *publishProc {
	t.Helper()
	cmd := exec.Command(bin, append([]string{"serve", "--listen", "127.0.0.1:0", "--admin-listen", "127.0.0.1:0",
		"--rate-limit", "1000000000", "--access-log=false"}, args...)...)
	cmd.Dir = t.TempDir()
	p := startPublishProc(t, cmd)
	tr := &http.Transport{Proxy: nil, MaxIdleConnsPerHost: 16, DisableCompression: true}
	p.hc = &http.Client{Transport: tr, Timeout: 10 * time.Second}
	t.Cleanup(func() {
		tr.CloseIdleConnections()
		p.stop(t)
		if t.Failed() {
			t.Logf("stderr of ballot serve (pid %d):\n%s", cmd.Process.Pid, p.log)
		}
	})
	m := p.waitLog(t, publishServing, "the serving line")
	p.api, p.admin = m[1], m[2]
	return p
}

// startPublishProc starts cmd, "ballot serve", with no BALLOT_* variable,
// its standard error kept in the log and its exit awaited in the
// background; the caller arranges its stop.
func startPublishProc(t *testing.T, cmd *exec.Cmd) *publishProc {
	t.Helper()
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "BALLOT_") {
			cmd.Env = append(cmd.Env, kv)
		}
	}
	p := &publishProc{cmd: cmd, log: &publishLog{}, done: make(chan struct{})}
	cmd.Stdout = io.Discard
	cmd.Stderr = p.log
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() {
		p.exitErr = cmd.Wait()
		close(p.done)
	}()
	return p
}

// stop sends SIGTERM to the process, once, and waits for its exit 0.
func (p *publishProc) stop(t *testing.T) {
	t.Helper()
	if p.stopped.Swap(true) {
		return
	}
	select {
	case <-p.done:
		t.Errorf("ballot serve (pid %d) exited on its own: %v", p.cmd.Process.Pid, p.exitErr)
		return
	default:
	}
	if err := p.cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Errorf("SIGTERM to pid %d: %v", p.cmd.Process.Pid, err)
	}
	select {
	case <-p.done:
		if p.exitErr != nil {
			t.Errorf("ballot serve (pid %d) exited with %v after SIGTERM, want 0", p.cmd.Process.Pid, p.exitErr)
		}
	case <-time.After(publishWait):
		_ = p.cmd.Process.Signal(syscall.SIGKILL)
		<-p.done
		t.Errorf("ballot serve (pid %d) did not exit within %v of SIGTERM; killed", p.cmd.Process.Pid, publishWait)
	}
}

// waitLog waits until the log matches re and returns the submatches.
func (p *publishProc) waitLog(t *testing.T, re *regexp.Regexp, what string) []string {
	t.Helper()
	var m []string
	prodEventually(t, publishWait, what, func() (bool, string) {
		select {
		case <-p.done:
			t.Fatalf("ballot serve exited while waiting for %s: %v\nstderr:\n%s", what, p.exitErr, p.log)
		default:
		}
		m = re.FindStringSubmatch(p.log.String())
		return m != nil, "not in the log"
	})
	return m
}

// readyVersion is the version /readyz says is served, or "".
func (p *publishProc) readyVersion() string {
	resp, err := p.hc.Get("http://" + p.admin + "/readyz")
	if err != nil {
		return ""
	}
	defer resp.Body.Close()
	var r struct {
		Dataset struct{ Version string } `json:"dataset"`
	}
	if resp.StatusCode != http.StatusOK || json.NewDecoder(resp.Body).Decode(&r) != nil {
		return ""
	}
	return r.Dataset.Version
}

// publishEdition is one dataset a publisher swaps in.
type publishEdition struct {
	files      map[string][]byte
	version    string
	candidates int
}

// publishEditions returns two valid datasets with different numbers of
// candidates: the test dataset, and the same with one more candidate.
func publishEditions(t *testing.T) [2]publishEdition {
	t.Helper()
	base := map[string][]byte{}
	for _, name := range []string{dataset.ManifestFile, dataset.PartiesFile, dataset.DistrictsFile, dataset.CandidatesFile} {
		b, err := os.ReadFile(filepath.Join(diffBase, name))
		if err != nil {
			t.Fatal(err)
		}
		base[name] = b
	}
	var cands []map[string]any
	if err := json.Unmarshal(base[dataset.CandidatesFile], &cands); err != nil {
		t.Fatal(err)
	}
	extra := map[string]any{}
	for k, v := range cands[0] {
		extra[k] = v
	}
	extra["id"], extra["slug"], extra["family_name"], extra["name"] = "0d6c1f3e-2a4b-5c6d-8e9f-a0b1c2d3e4f5", "person-14", "Number14", "Person Number14"
	more, err := json.MarshalIndent(append(cands, extra), "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	second := map[string][]byte{}
	for k, v := range base {
		second[k] = v
	}
	second[dataset.CandidatesFile] = append(more, '\n')

	var eds [2]publishEdition
	for i, files := range []map[string][]byte{base, second} {
		dir := filepath.Join(t.TempDir(), "edition")
		writeFiles(t, dir, files)
		ds, err := dataset.LoadDir(dir)
		if err != nil {
			t.Fatal(err)
		}
		eds[i] = publishEdition{files: files, version: ds.Version, candidates: len(ds.Candidates())}
	}
	if eds[0].candidates == eds[1].candidates || eds[0].version == eds[1].version {
		t.Fatalf("the two editions do not differ: %d and %d candidates", eds[0].candidates, eds[1].candidates)
	}
	return eds
}

// publisher publishes editions as the README says: a new directory,
// validated, then the link swapped by a rename.
type publisher struct {
	t        *testing.T
	bin      string
	root     string
	current  string // the symbolic link serve reads
	editions [2]publishEdition
	seq      int
}

func newPublisher(t *testing.T, bin string, editions [2]publishEdition) *publisher {
	t.Helper()
	pub := &publisher{t: t, bin: bin, root: t.TempDir(), editions: editions}
	pub.current = filepath.Join(pub.root, "current")
	dir := pub.write(0)
	if err := os.Symlink(dir, pub.current); err != nil {
		t.Fatal(err)
	}
	return pub
}

// write writes edition e into a new directory and validates it.
func (pub *publisher) write(e int) string {
	pub.t.Helper()
	pub.seq++
	dir := filepath.Join(pub.root, fmt.Sprintf("edition-%02d", pub.seq))
	writeFiles(pub.t, dir, pub.editions[e].files)
	if out, err := exec.Command(pub.bin, "validate", dir).CombinedOutput(); err != nil {
		pub.t.Fatalf("ballot validate %s: %v\n%s", dir, err, out)
	}
	return dir
}

// swap points the link at dir at once: "ln -s dir tmp-link && mv -T
// tmp-link current".
func (pub *publisher) swap(dir string) {
	pub.t.Helper()
	tmp := filepath.Join(pub.root, "tmp-link")
	if err := os.Symlink(dir, tmp); err != nil {
		pub.t.Fatal(err)
	}
	if err := os.Rename(tmp, pub.current); err != nil {
		pub.t.Fatal(err)
	}
}

// publishETag reads a candidates ETag: the dataset version, the list, the
// count, and where they are not implied, the limit, filters and offset.
var publishETag = regexp.MustCompile(`^W/"([0-9a-f]{16})-[a-z0-9-]*?-(\d+)(?:-l\d+(?:-d\d+-p\d+@\d+)?)?"$`)

// publishCheck checks one answer of the index or of the candidates and
// returns the edition it came from, or a problem. An answer must be 200,
// JSON, and belong whole to one edition: the index's version and its
// candidate count; the candidates' ETag (which carries the version), their
// meta.count and the records.
func publishCheck(eds [2]publishEdition, path string, resp *http.Response, body []byte) (int, string) {
	if resp.StatusCode != http.StatusOK {
		return -1, fmt.Sprintf("%s: status %d: %.200s", path, resp.StatusCode, body)
	}
	if ct := resp.Header.Get("Content-Type"); ct != "application/json; charset=utf-8" {
		return -1, fmt.Sprintf("%s: Content-Type %q", path, ct)
	}
	byVersion := func(prefix string) int {
		for i, e := range eds {
			if strings.HasPrefix(e.version, prefix) {
				return i
			}
		}
		return -1
	}
	if strings.HasSuffix(path, "/") {
		var idx struct {
			Version string `json:"version"`
			Counts  struct {
				Candidates *int `json:"candidates"`
			} `json:"counts"`
		}
		if err := json.Unmarshal(body, &idx); err != nil || idx.Counts.Candidates == nil || len(idx.Version) != 64 {
			return -1, fmt.Sprintf("%s: not the index (%v): %.200s", path, err, body)
		}
		e := byVersion(idx.Version)
		if e < 0 || *idx.Counts.Candidates != eds[e].candidates {
			return -1, fmt.Sprintf("%s: version %.12s with %d candidates: a mixed answer", path, idx.Version, *idx.Counts.Candidates)
		}
		return e, ""
	}
	var env struct {
		Data []json.RawMessage `json:"data"`
		Meta struct {
			Count *int `json:"count"`
		} `json:"meta"`
	}
	if err := json.Unmarshal(body, &env); err != nil || env.Meta.Count == nil || *env.Meta.Count != len(env.Data) {
		return -1, fmt.Sprintf("%s: not a well-formed envelope (%v): %.200s", path, err, body)
	}
	m := publishETag.FindStringSubmatch(resp.Header.Get("ETag"))
	if m == nil {
		return -1, fmt.Sprintf("%s: ETag %q", path, resp.Header.Get("ETag"))
	}
	e := byVersion(m[1])
	if e < 0 || len(env.Data) != eds[e].candidates || m[2] != strconv.Itoa(len(env.Data)) {
		return -1, fmt.Sprintf("%s: ETag %s with %d candidates: a mixed answer", path, m[0], len(env.Data))
	}
	return e, ""
}

// publishUnderLoad swaps the two editions 20 times while four clients read
// the index and the candidates, each swap followed by SIGHUP, or by nothing
// when serve watches. It waits for each edition to be served and read
// before the next swap.
func publishUnderLoad(t *testing.T, watch bool) {
	bin := e2eBuild(t)
	eds := publishEditions(t)
	pub := newPublisher(t, bin, eds)
	// serve --watch needs no process: it runs in-process, and waits 25 ms
	// of quiet before it reloads rather than 250. SIGHUP needs the binary.
	var p *publishProc
	if watch {
		p = watchServe(t, "--data", pub.current, "--watch")
	} else {
		p = publishServe(t, bin, "--data", pub.current)
	}
	if v := p.readyVersion(); v != eds[0].version {
		t.Fatalf("serving version %.12s at start, want %.12s", v, eds[0].version)
	}

	const (
		clients = 4
		swaps   = 20
	)
	paths := []string{"/api/public/v1/", "/api/public/v1/candidates?limit=500"}
	var (
		stop      atomic.Bool
		requests  atomic.Int64
		failures  atomic.Int64
		served    [2]atomic.Int64 // answers from each edition
		problemMu sync.Mutex
		problems  []string
		wg        sync.WaitGroup
	)
	deadline := time.Now().Add(3 * time.Minute) // a bound far beyond the planned run
	for c := range clients {
		tr := &http.Transport{Proxy: nil, MaxIdleConnsPerHost: 2, DisableCompression: true}
		hc := &http.Client{Transport: tr, Timeout: 10 * time.Second}
		wg.Add(1)
		go func() {
			defer wg.Done()
			defer tr.CloseIdleConnections()
			for i := 0; i < 1_000_000 && !stop.Load() && time.Now().Before(deadline); i++ {
				path := paths[(i+c)%len(paths)]
				requests.Add(1)
				e, problem := -1, ""
				resp, err := hc.Get("http://" + p.api + path)
				if err != nil {
					problem = fmt.Sprintf("%s: no answer: %v", path, err)
				} else {
					body, err := io.ReadAll(resp.Body)
					resp.Body.Close()
					if err != nil {
						problem = fmt.Sprintf("%s: answer cut short: %v", path, err)
					} else {
						e, problem = publishCheck(eds, path, resp, body)
					}
				}
				if problem != "" {
					if failures.Add(1) <= 10 {
						problemMu.Lock()
						problems = append(problems, problem)
						problemMu.Unlock()
					}
					continue
				}
				served[e].Add(1)
				// Paced: a swap meets requests in flight all the same,
				// and the clients leave the machine's other tests a core.
				time.Sleep(time.Millisecond)
			}
		}()
	}
	stopClients := func() {
		stop.Store(true)
		wg.Wait()
	}
	defer stopClients()

	var seenAfter []time.Duration
	for i := 1; i <= swaps; i++ {
		e := i % 2
		dir := pub.write(e)
		before := served[e].Load()
		start := time.Now()
		pub.swap(dir)
		if !watch {
			if err := p.cmd.Process.Signal(syscall.SIGHUP); err != nil {
				t.Fatalf("SIGHUP to pid %d: %v", p.cmd.Process.Pid, err)
			}
		}
		prodEventually(t, publishWait, fmt.Sprintf("swap %d: version %.12s served", i, eds[e].version), func() (bool, string) {
			v := p.readyVersion()
			return v == eds[e].version, "/readyz version " + v
		})
		seenAfter = append(seenAfter, time.Since(start))
		// The clients read this edition for a while before the next swap.
		prodEventually(t, publishWait, fmt.Sprintf("swap %d: clients read edition %d", i, e), func() (bool, string) {
			n := served[e].Load() - before
			return n >= 20, fmt.Sprintf("%d answers", n)
		})
	}
	stopClients()

	last := eds[swaps%2]
	resp, err := p.hc.Get("http://" + p.api + paths[0])
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if e, problem := publishCheck(eds, paths[0], resp, body); problem != "" || eds[e].version != last.version {
		t.Errorf("after the last swap: edition %d served (%s), want version %.12s", e, problem, last.version)
	}
	// The log is written out in batches (every 100 ms at most): wait for
	// a reload line for each swap, then count them.
	prodEventually(t, publishWait, "a reload logged for each swap", func() (bool, string) {
		n := strings.Count(p.log.String(), `msg="dataset reloaded"`)
		return n >= swaps, fmt.Sprintf("%d reloads logged", n)
	})
	log := p.log.String()
	reloaded := strings.Count(log, `msg="dataset reloaded"`)
	if n := strings.Count(log, `msg="reload refused`); n != 0 {
		t.Errorf("%d reloads refused, want none", n)
	}
	if !watch && reloaded != swaps {
		t.Errorf("%d reloads logged after %d SIGHUPs", reloaded, swaps)
	}
	if watch && reloaded < swaps {
		t.Errorf("%d reloads logged after %d swaps, want one at least for each", reloaded, swaps)
	}
	if f := failures.Load(); f != 0 {
		t.Errorf("%d of %d requests failed or mixed editions; the first:\n%s", f, requests.Load(), strings.Join(problems, "\n"))
	}
	slices.Sort(seenAfter)
	t.Logf("%d swaps, %d reloads; %d requests, %d failed or mixed; answers per edition: %d (%d candidates), %d (%d candidates); swap to served: min %v, median %v, max %v",
		swaps, reloaded, requests.Load(), failures.Load(), served[0].Load(), eds[0].candidates, served[1].Load(), eds[1].candidates,
		seenAfter[0].Round(time.Millisecond), seenAfter[len(seenAfter)/2].Round(time.Millisecond), seenAfter[len(seenAfter)-1].Round(time.Millisecond))
}

// TestPublishSymlinkSwapSIGHUP: 20 atomic swaps of the "current" link, each
// followed by SIGHUP, under load.
func TestPublishSymlinkSwapSIGHUP(t *testing.T) {
	testprograms.EndToEnd(t, "sends SIGHUP to the binary")
	t.Parallel()
	publishUnderLoad(t, false)
}

// TestWatchSymlinkSwap: 20 atomic swaps of the "current" link with serve
// --watch and no signal, under load.
func TestWatchSymlinkSwap(t *testing.T) {
	testprograms.EndToEnd(t, "runs the binary through a publishing routine")
	t.Parallel()
	publishUnderLoad(t, true)
}

// TestWatchConfigMap: serve --watch on a directory laid out as a Kubernetes
// ConfigMap volume (files that are links through a "..data" link, swapped
// by a rename) follows each swap; a swap to an invalid dataset is logged
// and refused, the previous dataset stays, and the next swap is served.
func TestWatchConfigMap(t *testing.T) {
	t.Parallel()
	eds := publishEditions(t)
	vol := t.TempDir()
	seq := 0
	// swapTo does what the kubelet does: a new timestamped directory, a
	// temporary link to it, renamed over ..data.
	swapTo := func(files map[string][]byte) {
		t.Helper()
		seq++
		name := fmt.Sprintf("..2026_11_22_10_00_%02d.%d", seq, seq)
		writeFiles(t, filepath.Join(vol, name), files)
		if err := os.Symlink(name, filepath.Join(vol, "..data_tmp")); err != nil {
			t.Fatal(err)
		}
		if err := os.Rename(filepath.Join(vol, "..data_tmp"), filepath.Join(vol, dataset.ConfigMapLink)); err != nil {
			t.Fatal(err)
		}
	}
	swapTo(eds[0].files)
	for name := range eds[0].files {
		if err := os.Symlink(filepath.Join(dataset.ConfigMapLink, name), filepath.Join(vol, name)); err != nil {
			t.Fatal(err)
		}
	}
	p := watchServe(t, "--data", vol, "--watch")
	if v := p.readyVersion(); v != eds[0].version {
		t.Fatalf("serving version %.12s at start, want %.12s", v, eds[0].version)
	}
	waitVersion := func(want string) {
		t.Helper()
		prodEventually(t, publishWait, "version "+want[:12]+" served", func() (bool, string) {
			v := p.readyVersion()
			return v == want, "/readyz version " + v
		})
	}

	swapTo(eds[1].files)
	waitVersion(eds[1].version)

	broken := map[string][]byte{}
	for k, v := range eds[0].files {
		broken[k] = v
	}
	broken[dataset.PartiesFile] = []byte("[\n")
	swapTo(broken)
	p.waitLog(t, regexp.MustCompile(`level=ERROR msg="reload refused: still serving the previous dataset" version=`+eds[1].version+` error=".*parties\.json`),
		"the refused reload in the log")
	if v := p.readyVersion(); v != eds[1].version {
		t.Errorf("after a refused reload: version %.12s served, want %.12s still", v, eds[1].version)
	}

	swapTo(eds[0].files)
	waitVersion(eds[0].version)
}

// TestWatchDirectoryRecreated: serve --watch on a plain directory that is
// deleted and made again (rm -rf, then mkdir and a copy, as some deploy
// tools and rsync --delete-after do) serves the new files: the watcher
// re-arms on the new directory, which has the old one's name.
func TestWatchDirectoryRecreated(t *testing.T) {
	t.Parallel()
	eds := publishEditions(t)
	dir := filepath.Join(t.TempDir(), "data")
	writeFiles(t, dir, eds[0].files)
	p := watchServe(t, "--data", dir, "--watch")
	if v := p.readyVersion(); v != eds[0].version {
		t.Fatalf("serving version %.12s at start, want %.12s", v, eds[0].version)
	}
	refused := regexp.MustCompile(`level=ERROR msg="reload refused: still serving the previous dataset"`)
	for round, e := range []int{1, 0} {
		before := len(refused.FindAllString(p.log.String(), -1))
		if err := os.RemoveAll(dir); err != nil {
			t.Fatal(err)
		}
		if err := os.Mkdir(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		// The empty directory is read and refused before the files come.
		prodEventually(t, publishWait, fmt.Sprintf("round %d: the empty directory refused", round), func() (bool, string) {
			n := len(refused.FindAllString(p.log.String(), -1))
			return n > before, fmt.Sprintf("%d refusals logged", n-before)
		})
		writeFiles(t, dir, eds[e].files)
		prodEventually(t, publishWait, fmt.Sprintf("round %d: version %.12s served", round, eds[e].version), func() (bool, string) {
			v := p.readyVersion()
			return v == eds[e].version, "/readyz version " + v
		})
	}
}

// TestWatchNeedsData: --watch without a dataset directory is a usage error.
func TestWatchNeedsData(t *testing.T) {
	code, stdout, stderr := run(t, "serve", "--watch", "--listen", "127.0.0.1:0", "--admin-listen", "")
	want := "ballot: flag --watch: watch needs a dataset directory (--data or data): the embedded dataset never changes\n"
	if code != 2 || stdout != "" || stderr != want {
		t.Errorf("serve --watch: exit %d, stdout %q, stderr %q; want exit 2 and %q", code, stdout, stderr, want)
	}
}
