package commands_test

// Production behaviour of the real ballot binary, black-box, on loopback
// only: reloading the dataset (SIGHUP and POST /reload) under load, the
// graceful stop on SIGTERM with requests in flight, client addresses behind
// a trusted proxy, the admin listener and its metrics, configuration from
// the file, the environment and flags, and the cut-off of a slow-header
// client. It reuses e2e_test.go's binary, process and client helpers; what
// is added here is what they lack: the admin address, a start with another
// working directory or environment or a JSON log, the Prometheus text
// format, and dataset directories rewritten while the server runs.
//
// Every test is bounded: loops have counts and deadlines, every process is
// stopped by its PID (SIGTERM, then SIGKILL after a timeout).

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"net"
	"net/http"
	"net/http/httptrace"
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

	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"
)

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
	t.Cleanup(func() {
		if strings.Contains(p.stderr.String(), "ballot: serving") {
			p.stop(t) // the text log: e2e_test.go's checks, "ballot: stopped" included
		} else {
			prodStopJSON(t, p)
		}
		if t.Failed() {
			t.Logf("stderr of ballot serve (pid %d):\n%s", cmd.Process.Pid, p.stderr.shortened())
		}
	})
	deadline := time.Now().Add(e2eStartWait)
	for p.addr == "" {
		log := p.stderr.String()
		if m := e2eListening.FindStringSubmatch(log); m != nil {
			p.addr = m[1]
		} else if m := prodAPIJSON.FindStringSubmatch(log); m != nil {
			p.addr = m[1]
		} else if time.Now().After(deadline) {
			t.Fatalf("ballot serve did not log its address within %v\nstderr:\n%s", e2eStartWait, log)
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
		select {
		case <-p.done:
		case <-time.After(15 * time.Second):
			_ = p.cmd.Process.Signal(syscall.SIGKILL)
			<-p.done
			t.Errorf("ballot serve (pid %d) did not exit within 15 s of SIGTERM; killed", p.cmd.Process.Pid)
			return
		}
		if p.err != nil {
			t.Errorf("ballot serve (pid %d) exited with %v after SIGTERM, want exit 0", p.cmd.Process.Pid, p.err)
		}
		if !strings.Contains(p.stderr.String(), `"msg":"stopped"`) {
			t.Errorf("the JSON log has no \"stopped\" message after SIGTERM")
		}
	})
}

// prodRun runs ballot with args in dir, with env added, and returns its exit
// code, stderr and how long it ran. It is for runs that must end by
// themselves: they are killed after 10 s.
func prodRun(t *testing.T, dir string, env []string, args ...string) (int, string, time.Duration) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
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
		t.Fatalf("ballot %q did not end within 10 s; killed. stderr:\n%s", args, stderr.String())
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
	resp, err := hc.Do(req)
	if err != nil {
		t.Fatalf("%s %s: %v", method, rawURL, err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatalf("%s %s: reading the body: %v", method, rawURL, err)
	}
	return reply{status: resp.StatusCode, header: resp.Header, body: body, when: time.Now()}
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

// ---------------------------------------------------------------------------
// 1. Reload under load.

// prodVersions is a dataset directory being rewritten: the valid dataset,
// with the name of its first party ("Alpha Party") and the elected field of
// its first candidate marking the version, so that any answer tells which
// version produced it.
type prodVersions struct {
	dir, stage string
	files      map[string][]byte // the original files
	alphaID    string
	partyIDs   map[string]bool
	seq        int
}

func prodNewVersions(t *testing.T) *prodVersions {
	t.Helper()
	root := t.TempDir()
	v := &prodVersions{dir: filepath.Join(root, "data"), stage: filepath.Join(root, "stage"), files: map[string][]byte{}, partyIDs: map[string]bool{}}
	for _, d := range []string{v.dir, v.stage} {
		if err := os.Mkdir(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	for _, name := range []string{"dataset.toml", "parties.json", "districts.json", "candidates.json"} {
		b, err := os.ReadFile(filepath.Join(prodValidDataset, name))
		if err != nil {
			t.Fatal(err)
		}
		v.files[name] = b
		if err := os.WriteFile(filepath.Join(v.dir, name), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	var parties []struct{ ID, Name string }
	if err := json.Unmarshal(v.files["parties.json"], &parties); err != nil {
		t.Fatal(err)
	}
	if len(parties) != 2 || parties[0].Name != "Alpha Party" {
		t.Fatalf("%s/parties.json changed: %+v", prodValidDataset, parties)
	}
	v.alphaID = parties[0].ID
	for _, p := range parties {
		v.partyIDs[p.ID] = true
	}
	return v
}

// edit returns a copy of a JSON array file with field set to value in its
// first record (and, when set, party_id of the first record too).
func (v *prodVersions) edit(t *testing.T, name, field string, value any, partyID string) []byte {
	t.Helper()
	var recs []map[string]json.RawMessage
	if err := json.Unmarshal(v.files[name], &recs); err != nil {
		t.Fatal(err)
	}
	b, err := json.Marshal(value)
	if err != nil {
		t.Fatal(err)
	}
	recs[0][field] = b
	if partyID != "" {
		recs[0]["party_id"] = json.RawMessage(strconv.Quote(partyID))
	}
	out, err := json.MarshalIndent(recs, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	return append(out, '\n')
}

// version returns the files of a version: the first party named name, the
// first candidate's elected set to elected.
func (v *prodVersions) version(t *testing.T, name string, elected any) map[string][]byte {
	t.Helper()
	files := maps.Clone(v.files)
	files["parties.json"] = v.edit(t, "parties.json", "name", name, "")
	files["candidates.json"] = v.edit(t, "candidates.json", "elected", elected, "")
	return files
}

// publish writes the files of a version into the dataset directory, each
// written in full to a staging directory first and renamed into place.
func (v *prodVersions) publish(t *testing.T, files map[string][]byte) {
	t.Helper()
	v.seq++
	for _, name := range slices.Sorted(maps.Keys(files)) {
		tmp := filepath.Join(v.stage, fmt.Sprintf("%s.%d", name, v.seq))
		if err := os.WriteFile(tmp, files[name], 0o644); err != nil {
			t.Fatal(err)
		}
		if err := os.Rename(tmp, filepath.Join(v.dir, name)); err != nil {
			t.Fatal(err)
		}
	}
}

// prodChecker checks public answers during the reload test and tells which
// valid version each came from.
type prodChecker struct {
	v        *prodVersions
	names    []string // the first party's name, by valid version
	elected  []string // the first candidate's elected field, by valid version
	firstCID string   // the first candidate's id
}

// check returns the valid version an answer came from, or a problem.
func (c *prodChecker) check(path string, resp *http.Response, body []byte) (int, string) {
	if resp.StatusCode != http.StatusOK {
		return -1, fmt.Sprintf("%s: status %d, want 200: %.200s", path, resp.StatusCode, body)
	}
	if ct := resp.Header.Get("Content-Type"); ct != "application/json; charset=utf-8" {
		return -1, fmt.Sprintf("%s: Content-Type %q", path, ct)
	}
	if resp.ContentLength >= 0 && int64(len(body)) != resp.ContentLength {
		return -1, fmt.Sprintf("%s: %d body bytes, Content-Length %d", path, len(body), resp.ContentLength)
	}
	var env envelope
	if err := json.Unmarshal(body, &env); err != nil {
		return -1, fmt.Sprintf("%s: not the envelope: %v: %.200q", path, err, body)
	}
	if env.Meta.Count != len(env.Data) || !e2eTime.MatchString(env.Meta.GeneratedAt) {
		return -1, fmt.Sprintf("%s: meta %+v with %d records", path, env.Meta, len(env.Data))
	}
	switch path {
	case e2eBase + "/parties":
		if len(env.Data) != 2 {
			return -1, fmt.Sprintf("%s: %d parties, want 2", path, len(env.Data))
		}
		for _, raw := range env.Data {
			var p struct{ ID, Name string }
			if err := json.Unmarshal(raw, &p); err != nil {
				return -1, fmt.Sprintf("%s: %v", path, err)
			}
			if p.ID == c.v.alphaID {
				if i := slices.Index(c.names, p.Name); i >= 0 {
					return i, ""
				}
				return -1, fmt.Sprintf("%s: party named %q: not a valid version's data", path, p.Name)
			}
		}
		return -1, fmt.Sprintf("%s: no party %s: %.300s", path, c.v.alphaID, body)
	case e2eBase + "/candidates":
		if len(env.Data) != 13 {
			return -1, fmt.Sprintf("%s: %d candidates, want 13", path, len(env.Data))
		}
		version := -1
		for _, raw := range env.Data {
			var cand struct {
				ID      string          `json:"id"`
				PartyID *string         `json:"party_id"`
				Elected json.RawMessage `json:"elected"`
			}
			if err := json.Unmarshal(raw, &cand); err != nil {
				return -1, fmt.Sprintf("%s: %v", path, err)
			}
			if cand.PartyID != nil && !c.v.partyIDs[*cand.PartyID] {
				return -1, fmt.Sprintf("%s: candidate %s has party_id %s, which no valid version has", path, cand.ID, *cand.PartyID)
			}
			if cand.ID == c.firstCID {
				version = slices.Index(c.elected, string(cand.Elected))
			}
		}
		if version < 0 {
			return -1, fmt.Sprintf("%s: candidate %s missing or with an elected field no valid version has: %.300s", path, c.firstCID, body)
		}
		return version, ""
	}
	return -1, "unexpected path " + path
}

// TestProdReloadUnderLoad reloads the dataset with SIGHUP and POST /reload,
// valid and broken versions alike, while eight clients keep requesting: not
// one request fails, no answer comes from a broken version, each client sees
// the versions in order, and each valid version is served once reloaded.
// The metrics and /readyz agree.
func TestProdReloadUnderLoad(t *testing.T) {
	t.Parallel()
	v := prodNewVersions(t)
	var first []struct {
		ID string `json:"id"`
	}
	if err := json.Unmarshal(v.files["candidates.json"], &first); err != nil {
		t.Fatal(err)
	}
	c := &prodChecker{
		v:        v,
		names:    []string{"Alpha Party", "Alpha Party (reload 1)", "Alpha Party (reload 2)"},
		elected:  []string{"false", "true", "null"},
		firstCID: first[0].ID,
	}
	v1 := v.version(t, c.names[1], true)
	v2 := v.version(t, c.names[2], nil)
	// Broken by a syntax error in candidates.json, with a party name that
	// must never be served.
	brokenSyntax := v.version(t, "Alpha Party (BROKEN: syntax)", true)
	brokenSyntax["candidates.json"] = bytes.TrimRight(bytes.TrimSpace(brokenSyntax["candidates.json"]), "]")
	// Broken by a candidate of a party that does not exist.
	brokenParty := v.version(t, "Alpha Party (BROKEN: unknown party)", true)
	const unknownParty = "00000000-0000-5000-8000-00000000abcd"
	brokenParty["candidates.json"] = v.edit(t, "candidates.json", "elected", true, unknownParty)

	p := startServerWith(t, "--data", v.dir, "--rate-limit", "100000000", "--admin-listen", "127.0.0.1:0")
	admin := prodAdmin(t, p)
	hc := prodHTTP(t)
	initial := prodReadyz(t, hc, admin)
	if initial.Title != "Small test election" {
		t.Errorf("/readyz title %q, want Small test election", initial.Title)
	}

	// The load: eight clients, each on its own loopback address, each
	// alternating /parties and /candidates, one request after another.
	const workers = 8
	var (
		stop       atomic.Bool
		sent       [2]atomic.Int64 // parties, candidates: requests sent, the checker's included
		ok         atomic.Int64
		seen       [3]atomic.Int64 // answers from each valid version
		failMu     sync.Mutex
		failures   []string
		failCount  atomic.Int64
		started    sync.WaitGroup
		workerDone sync.WaitGroup
	)
	paths := [2]string{e2eBase + "/parties", e2eBase + "/candidates"}
	fail := func(msg string) {
		if failCount.Add(1) <= 20 {
			failMu.Lock()
			failures = append(failures, msg)
			failMu.Unlock()
		}
	}
	// get sends one request and checks the answer; it returns the version.
	get := func(hc *http.Client, which int) int {
		sent[which].Add(1)
		resp, err := hc.Get(p.url(paths[which]))
		if err != nil {
			fail(fmt.Sprintf("%s: no answer: %v", paths[which], err))
			return -1
		}
		body, err := io.ReadAll(resp.Body)
		resp.Body.Close()
		if err != nil {
			fail(fmt.Sprintf("%s: answer cut short after %d bytes: %v", paths[which], len(body), err))
			return -1
		}
		version, problem := c.check(paths[which], resp, body)
		if problem != "" {
			fail(problem)
			return -1
		}
		ok.Add(1)
		seen[version].Add(1)
		return version
	}
	loadDeadline := time.Now().Add(12 * time.Second) // a bound far beyond the planned ~2 s of load
	started.Add(workers)
	workerDone.Add(workers)
	for w := range workers {
		wc := p.client(t, fmt.Sprintf("127.0.0.%d", 30+w)).hc
		go func() {
			defer workerDone.Done()
			last, running := 0, false
			defer func() {
				if !running {
					started.Done()
				}
			}()
			for i := 0; i < 200000 && !stop.Load() && time.Now().Before(loadDeadline); i++ {
				version := get(wc, i%2)
				if i == 1 {
					started.Done()
					running = true
				}
				if version >= 0 && version < last {
					fail(fmt.Sprintf("worker %d: version %d served after version %d", w, version, last))
				}
				last = max(last, version)
			}
		}()
	}
	started.Wait()
	hold := func() { time.Sleep(400 * time.Millisecond) } // let the load run on each state
	hold()

	// Our own view, from another address: the version served now.
	probe := p.client(t, "127.0.0.99").hc
	served := func() (int, string) {
		pv, cv := get(probe, 0), get(probe, 1)
		return pv, fmt.Sprintf("parties from version %d, candidates from version %d", pv, cv)
	}
	reloads := func(outcome string) float64 {
		n, ok := prodSeries(prodMetrics(t, hc, admin), "ballot_dataset_reloads_total", "outcome", outcome)
		if !ok {
			t.Fatalf("/metrics has no ballot_dataset_reloads_total{outcome=%q}", outcome)
		}
		return n
	}
	hup := func() {
		if err := p.cmd.Process.Signal(syscall.SIGHUP); err != nil {
			t.Fatalf("SIGHUP to pid %d: %v", p.cmd.Process.Pid, err)
		}
	}
	if got, state := served(); got != 0 {
		t.Fatalf("at start: %s, want version 0", state)
	}

	// (a) A valid new version, then SIGHUP: served soon after.
	v.publish(t, v1)
	hup()
	prodEventually(t, 5*time.Second, "version 1 served after SIGHUP", func() (bool, string) {
		got, state := served()
		return got == 1, state
	})
	ready1 := prodReadyz(t, hc, admin)
	if ready1.Version == initial.Version || !ready1.LoadedAt.After(initial.LoadedAt) {
		t.Errorf("/readyz after the SIGHUP reload: %+v, before: %+v; want a new version and load time", ready1, initial)
	}
	if s, f := reloads("success"), reloads("failure"); s != 1 || f != 0 {
		t.Errorf("after one good SIGHUP: reloads success %v, failure %v; want 1, 0", s, f)
	}
	hold()

	// (b) A broken version, then SIGHUP: refused, the previous one stays.
	v.publish(t, brokenSyntax)
	hup()
	prodEventually(t, 5*time.Second, "the broken SIGHUP reload counted as a failure", func() (bool, string) {
		f := reloads("failure")
		return f == 1, fmt.Sprintf("failure = %v", f)
	})
	prodWaitLog(t, p, regexp.MustCompile(`level=ERROR msg="reload refused: still serving the previous dataset" version=`+ready1.Version+` error=.*candidates\.json`),
		"the log line of the refused SIGHUP reload")
	if r := prodReadyz(t, hc, admin); r != ready1 {
		t.Errorf("/readyz after a refused reload: %+v, want it unchanged: %+v", r, ready1)
	}
	if got, state := served(); got != 1 {
		t.Errorf("after the broken SIGHUP reload: %s, want version 1 still", state)
	}
	hold()

	// (c) Another broken version, then POST /reload: 422, and the answer
	// says the previous version is still served.
	v.publish(t, brokenParty)
	r := prodDo(t, hc, http.MethodPost, "http://"+admin+"/reload", nil)
	refused := prodJSON(t, r, http.StatusUnprocessableEntity)
	if refused["status"] != "refused" || refused["version"] != ready1.Version || !strings.Contains(fmt.Sprint(refused["detail"]), "previous one is still served") {
		t.Errorf("POST /reload of a broken dataset: %s; want status refused, the version still served (%s) and a detail saying so", r.body, ready1.Version)
	}
	if errs, _ := refused["errors"].([]any); len(errs) == 0 || !strings.Contains(fmt.Sprint(errs), "candidates.json") || !strings.Contains(fmt.Sprint(errs), unknownParty) {
		t.Errorf("POST /reload of a broken dataset: errors %v, want the problem in candidates.json naming %s", refused["errors"], unknownParty)
	}
	if got, state := served(); got != 1 {
		t.Errorf("after the refused POST /reload: %s, want version 1 still", state)
	}
	if r := prodReadyz(t, hc, admin); r != ready1 {
		t.Errorf("/readyz after a refused POST /reload: %+v, want it unchanged: %+v", r, ready1)
	}
	hold()

	// (d) A valid version again, then POST /reload: 200 with the new
	// version, served from the next request on.
	v.publish(t, v2)
	r = prodDo(t, hc, http.MethodPost, "http://"+admin+"/reload", nil)
	reloaded := prodJSON(t, r, http.StatusOK)
	if got, state := served(); got != 2 {
		t.Errorf("right after POST /reload answered 200: %s, want version 2", state)
	}
	ready2 := prodReadyz(t, hc, admin)
	if reloaded["status"] != "reloaded" || reloaded["version"] != ready2.Version || ready2.Version == ready1.Version || !ready2.LoadedAt.After(ready1.LoadedAt) {
		t.Errorf("POST /reload of a valid dataset: %s; /readyz then %+v (before: %+v)", r.body, ready2, ready1)
	}
	hold()

	stop.Store(true)
	workerDone.Wait()

	failMu.Lock()
	for _, f := range failures {
		t.Errorf("failed request: %s", f)
	}
	failMu.Unlock()
	total := sent[0].Load() + sent[1].Load()
	t.Logf("%d requests, %d complete valid 200s, %d failures; answers by version: %d, %d, %d",
		total, ok.Load(), failCount.Load(), seen[0].Load(), seen[1].Load(), seen[2].Load())
	if ok.Load() != total {
		t.Errorf("%d of %d requests did not get a complete, valid 200", total-ok.Load(), total)
	}
	for i := range seen {
		if seen[i].Load() < workers {
			t.Errorf("only %d answers from version %d: the load did not overlap the reloads", seen[i].Load(), i)
		}
	}

	// The metrics: two reloads of each outcome, the last version's info,
	// and exactly the requests sent, every one a 200.
	mfs := prodMetrics(t, hc, admin)
	for outcome, want := range map[string]float64{"success": 2, "failure": 2} {
		if got, _ := prodSeries(mfs, "ballot_dataset_reloads_total", "outcome", outcome); got != want {
			t.Errorf("ballot_dataset_reloads_total{outcome=%q} = %v, want %v", outcome, got, want)
		}
	}
	if info := mfs["ballot_dataset_info"]; info == nil || len(info.GetMetric()) != 1 {
		t.Errorf("ballot_dataset_info: %v, want one series, the dataset served", info)
	} else if got, _ := prodSeries(mfs, "ballot_dataset_info", "version", ready2.Version, "title", "Small test election"); got != 1 {
		t.Errorf("ballot_dataset_info: %v, want 1 for version %s", info, ready2.Version)
	}
	if mf := mfs["ballot_http_requests_total"]; mf == nil {
		t.Errorf("/metrics has no ballot_http_requests_total")
	} else {
		want := map[string]float64{"parties/200": float64(sent[0].Load()), "candidates/200": float64(sent[1].Load())}
		got := map[string]float64{}
		for _, m := range mf.GetMetric() {
			var route, status string
			for _, lp := range m.GetLabel() {
				switch lp.GetName() {
				case "route":
					route = lp.GetValue()
				case "status":
					status = lp.GetValue()
				}
			}
			if v := m.GetCounter().GetValue(); v != 0 { // series are exported at zero from the start
				got[route+"/"+status] = v
			}
		}
		if !maps.Equal(got, want) {
			t.Errorf("ballot_http_requests_total by route/status = %v, want %v (every request sent, all 200)", got, want)
		}
	}
	if n := strings.Count(p.stderr.String(), `msg="dataset reloaded"`); n != 2 {
		t.Errorf("%d \"dataset reloaded\" log lines, want 2", n)
	}
	if n := strings.Count(p.stderr.String(), `msg="reload refused: still serving the previous dataset"`); n != 2 {
		t.Errorf("%d \"reload refused\" log lines, want 2", n)
	}
}

// ---------------------------------------------------------------------------
// 2. SIGTERM with requests in flight.

// TestProdShutdownCompletesInFlight sends SIGTERM while requests are in
// flight, and checks what each gets:
//
//   - answers not yet delivered: a large answer (48 kB) to clients with a
//     small receive buffer that read only the status line before SIGTERM
//     and the body slowly after it. Each must arrive whole. (The socket
//     buffers hold the whole answer, so the handler has returned; an
//     answer whose handler is still writing at SIGTERM needs more than the
//     buffers hold, hence pipelining: see TestProdShutdownPipelined.)
//   - keep-alive clients requesting in a loop. Any answer that began must
//     be a complete 200 with its whole body.
//   - what is not in flight gets no answer, cleanly: a request that got no
//     answer at all is allowed only after SIGTERM was sent, and only as a
//     connection-level failure (refused, or closed before any byte of an
//     answer), never a 5xx, a truncated body or a reset mid-answer. That is
//     the decision for a request the server had not begun to handle when
//     it stopped: one on an idle keep-alive connection, in the accept
//     queue, or whose header was still arriving. net/http's Shutdown closes
//     idle connections, and drops a request whose header completes after
//     Shutdown began (it waits for it, then closes the connection without
//     an answer); HTTP/1.1 (RFC 9112, section 9.3.1) lets a client retry
//     such a request, which Go's client does for an idle connection,
//     meeting the closed port. Half-sent requests are sent here to check
//     that they get either a complete 200 or a clean close, and do not
//     hold the shutdown up.
//
// Meanwhile a new connection is refused (the listener is closed while the
// answers are still being sent), and the process exits 0 well within
// shutdown_timeout.
func TestProdShutdownCompletesInFlight(t *testing.T) {
	t.Parallel()
	const shutdownTimeout = 5 * time.Second
	p := startServerWith(t, "--rate-limit", "1000000", "--admin-listen", "", "--shutdown-timeout", shutdownTimeout.String())
	big := e2eBase + "/candidates?limit=500" // the embedded dataset: 139 candidates

	// The size of the big answer, for the slow readers' check.
	ref := p.client(t, "127.0.0.50").send(t, http.MethodGet, big, nil)
	bigEnv := checkOK(t, ref)
	refBody := e2eGenerated.ReplaceAll(ref.body, nil) // the answer but for its time
	if len(bigEnv.Data) < 100 || len(ref.body) < 30000 {
		t.Fatalf("%s: %d records, %d bytes; want the embedded dataset's large answer", big, len(bigEnv.Data), len(ref.body))
	}

	// Keep-alive clients in a loop.
	type result struct {
		worker     int
		path       string
		err        error
		errAt      time.Time
		wroteAt    time.Time // when the request was written, if it was
		status     int
		problem    string
		answerSeen bool
	}
	const workers = 8
	var (
		wg      sync.WaitGroup
		flowing sync.WaitGroup
		resMu   sync.Mutex
		results []result
	)
	ctx, cancel := context.WithTimeout(context.Background(), 15*time.Second)
	defer cancel()
	flowing.Add(workers)
	for w := range workers {
		hc := p.client(t, fmt.Sprintf("127.0.0.%d", 60+w)).hc
		wg.Add(1)
		go func() {
			defer wg.Done()
			paths := []string{big, e2eBase + "/districts", e2eBase + "/parties"}
			answered := false
			defer func() {
				if !answered {
					flowing.Done()
				}
			}()
			for i := 0; i < 20000 && ctx.Err() == nil; i++ {
				res := result{worker: w, path: paths[i%3]}
				// WroteRequest runs on the transport's goroutine.
				var wrote atomic.Int64
				trace := &httptrace.ClientTrace{
					WroteRequest: func(info httptrace.WroteRequestInfo) {
						if info.Err == nil {
							wrote.CompareAndSwap(0, time.Now().UnixNano())
						}
					},
				}
				req, _ := http.NewRequestWithContext(httptrace.WithClientTrace(ctx, trace), http.MethodGet, p.url(res.path), nil)
				resp, err := hc.Do(req)
				if err != nil {
					res.err, res.errAt = err, time.Now()
				} else {
					res.answerSeen, res.status = true, resp.StatusCode
					body, err := io.ReadAll(resp.Body)
					resp.Body.Close()
					var env envelope
					switch {
					case err != nil:
						res.problem = fmt.Sprintf("answer cut short after %d bytes: %v", len(body), err)
					case resp.StatusCode != http.StatusOK:
						res.problem = fmt.Sprintf("status %d: %.200s", resp.StatusCode, body)
					case resp.ContentLength >= 0 && int64(len(body)) != resp.ContentLength:
						res.problem = fmt.Sprintf("%d body bytes, Content-Length %d", len(body), resp.ContentLength)
					case json.Unmarshal(body, &env) != nil || env.Meta.Count != len(env.Data) || env.Meta.Count == 0:
						res.problem = fmt.Sprintf("incomplete body %.80q…%.80q", body, body[max(0, len(body)-80):])
					}
				}
				if n := wrote.Load(); n != 0 {
					res.wroteAt = time.Unix(0, n)
				}
				resMu.Lock()
				results = append(results, res)
				resMu.Unlock()
				if !answered {
					answered = true
					flowing.Done()
				}
				if res.err != nil || res.problem != "" {
					break
				}
			}
		}()
	}

	// Half-sent requests: the request line and Host sent, the rest held
	// back until after SIGTERM.
	const begun = 6
	partial := make([]net.Conn, begun)
	for i := range partial {
		d := net.Dialer{Timeout: 5 * time.Second, LocalAddr: &net.TCPAddr{IP: net.IPv4(127, 0, 0, byte(70+i))}}
		conn, err := d.Dial("tcp", p.addr)
		if err != nil {
			t.Fatalf("dial: %v", err)
		}
		defer conn.Close()
		if _, err := conn.Write([]byte("GET " + big + " HTTP/1.1\r\nHost: " + p.addr + "\r\n")); err != nil {
			t.Fatal(err)
		}
		partial[i] = conn
	}

	// Answers not yet delivered: only the status line read before SIGTERM,
	// and a small receive buffer.
	const slowReaders = 4
	type slowReader struct {
		conn net.Conn
		br   *bufio.Reader
		resp *http.Response
		ip   string
	}
	slow := make([]slowReader, slowReaders)
	for i := range slow {
		d := net.Dialer{
			Timeout:   5 * time.Second,
			LocalAddr: &net.TCPAddr{IP: net.IPv4(127, 0, 0, byte(80+i))},
			Control: func(_, _ string, rc syscall.RawConn) error {
				var serr error
				err := rc.Control(func(fd uintptr) { serr = syscall.SetsockoptInt(int(fd), syscall.SOL_SOCKET, syscall.SO_RCVBUF, 2048) })
				return errors.Join(err, serr)
			},
		}
		conn, err := d.Dial("tcp", p.addr)
		if err != nil {
			t.Fatalf("dial: %v", err)
		}
		defer conn.Close()
		_ = conn.SetDeadline(time.Now().Add(15 * time.Second))
		if _, err := conn.Write([]byte("GET " + big + " HTTP/1.1\r\nHost: " + p.addr + "\r\n\r\n")); err != nil {
			t.Fatal(err)
		}
		br := bufio.NewReaderSize(conn, 512)
		resp, err := http.ReadResponse(br, nil)
		if err != nil {
			t.Fatalf("slow reader %d: reading the status line: %v", i, err)
		}
		if resp.StatusCode != http.StatusOK {
			t.Fatalf("slow reader %d: status %d", i, resp.StatusCode)
		}
		slow[i] = slowReader{conn, br, resp, fmt.Sprintf("127.0.0.%d", 80+i)}
	}
	// handled counts the answers to ip whose handler has returned: the
	// access-log line is written then.
	handled := func(ip string) int {
		return strings.Count(p.stderr.String(), "msg=request client_ip="+ip+" method=GET route=candidates")
	}

	flowing.Wait()                     // every keep-alive client has had an answer
	time.Sleep(300 * time.Millisecond) // the half-sent connections are accepted
	sigAt := time.Now()
	p.terminate(t)

	// The listener closes at once: a new connection is refused while the
	// requests in flight are still open.
	prodEventually(t, 3*time.Second, "a new connection refused after SIGTERM", func() (bool, string) {
		conn, err := net.DialTimeout("tcp", p.addr, time.Second)
		if err == nil {
			conn.Close()
			return false, "accepted"
		}
		return errors.Is(err, syscall.ECONNREFUSED), err.Error()
	})
	refusedAfter := time.Since(sigAt)
	select {
	case <-p.done:
		t.Fatalf("ballot serve exited %v after SIGTERM with requests in flight: %v", time.Since(sigAt), p.err)
	default:
	}

	// The half-sent requests are finished now: a complete 200 or a clean
	// close, nothing in between.
	time.Sleep(200 * time.Millisecond)
	var halfAnswered, halfClosed atomic.Int64
	var done sync.WaitGroup
	errs := make(chan string, begun+slowReaders)
	for i, conn := range partial {
		done.Add(1)
		go func() {
			defer done.Done()
			_ = conn.SetDeadline(time.Now().Add(10 * time.Second))
			if _, err := conn.Write([]byte("Accept: application/json\r\n\r\n")); err != nil {
				errs <- fmt.Sprintf("half-sent request %d: sending the rest after SIGTERM: %v", i, err)
				return
			}
			br := bufio.NewReader(conn)
			if _, err := br.Peek(1); errors.Is(err, io.EOF) || errors.Is(err, syscall.ECONNRESET) {
				halfClosed.Add(1) // closed without a byte of answer
				return
			}
			resp, err := http.ReadResponse(br, nil)
			if err != nil {
				errs <- fmt.Sprintf("half-sent request %d: after SIGTERM, an answer that is not HTTP: %v", i, err)
				return
			}
			halfAnswered.Add(1)
			body, err := io.ReadAll(resp.Body)
			resp.Body.Close()
			var env envelope
			switch {
			case err != nil:
				errs <- fmt.Sprintf("half-sent request %d: body cut short after %d bytes: %v", i, len(body), err)
			case resp.StatusCode != http.StatusOK || json.Unmarshal(body, &env) != nil || len(env.Data) != len(bigEnv.Data):
				errs <- fmt.Sprintf("half-sent request %d: status %d, %d bytes: not the complete 200", i, resp.StatusCode, len(body))
			case !resp.Close:
				errs <- fmt.Sprintf("half-sent request %d: answered during shutdown without Connection: close", i)
			}
			// Then the server closes the connection.
			if n, err := br.Read(make([]byte, 1)); n != 0 || err == nil {
				errs <- fmt.Sprintf("half-sent request %d: the connection stays open after the answer", i)
			}
		}()
	}
	received := make([]int, slowReaders)
	for i, s := range slow {
		done.Add(1)
		go func() {
			defer done.Done()
			var body []byte
			buf := make([]byte, 4096)
			for range 1000 { // 48 kB, read slowly
				n, err := s.resp.Body.Read(buf)
				body = append(body, buf[:n]...)
				if err == io.EOF {
					break
				}
				if err != nil {
					errs <- fmt.Sprintf("slow reader %d: answer cut short after %d of %d bytes: %v", i, len(body), s.resp.ContentLength, err)
					return
				}
				time.Sleep(time.Millisecond)
			}
			if int64(len(body)) != s.resp.ContentLength || !bytes.Equal(e2eGenerated.ReplaceAll(body, nil), refBody) {
				errs <- fmt.Sprintf("slow reader %d: %d bytes of %d: not the complete answer", i, len(body), s.resp.ContentLength)
				return
			}
			received[i] = 1
			// Then the server has closed the connection.
			if _, err := s.br.Peek(1); !errors.Is(err, io.EOF) {
				errs <- fmt.Sprintf("slow reader %d: after the answer, %v; want the connection closed", i, err)
			}
		}()
	}
	done.Wait()
	close(errs)
	for e := range errs {
		t.Error(e)
	}

	// The process exits, well within shutdown_timeout, with status 0.
	select {
	case <-p.done:
	case <-time.After(shutdownTimeout + 2*time.Second):
		t.Errorf("ballot serve still running %v after SIGTERM (shutdown_timeout %v)", time.Since(sigAt), shutdownTimeout)
	}
	exitAfter := time.Since(sigAt)
	p.stop(t) // exit status 0, "ballot: stopped"
	cancel()
	wg.Wait()

	completed, refused, droppedAfterWrite := 0, 0, 0
	for _, r := range results {
		switch {
		case r.answerSeen && r.problem != "":
			t.Errorf("keep-alive worker %d: %s: an answer that is not a complete 200: %s", r.worker, r.path, r.problem)
		case r.answerSeen:
			completed++
		case r.errAt.Before(sigAt):
			t.Errorf("keep-alive worker %d: %s: no answer, before SIGTERM: %v", r.worker, r.path, r.err)
		case errors.Is(r.err, syscall.ECONNREFUSED) || errors.Is(r.err, syscall.ECONNRESET) || errors.Is(r.err, io.EOF) ||
			strings.Contains(r.err.Error(), "server closed idle connection"):
			refused++
			if !r.wroteAt.IsZero() && r.wroteAt.Before(sigAt) {
				droppedAfterWrite++
			}
		default:
			t.Errorf("keep-alive worker %d: %s: after SIGTERM, not a clean connection-level failure: %v", r.worker, r.path, r.err)
		}
	}
	t.Logf("SIGTERM: new connections refused after %v, exit after %v; slow readers: answers received whole %v; half-sent requests: %d answered, %d closed unanswered; keep-alive clients: %d complete answers, %d requests refused or closed unanswered after SIGTERM (%d of them written before it)",
		refusedAfter.Round(time.Millisecond), exitAfter.Round(time.Millisecond), received,
		halfAnswered.Load(), halfClosed.Load(), completed, refused, droppedAfterWrite)
	for i, s := range slow {
		if got := handled(s.ip); got != 1 || received[i] != 1 {
			t.Errorf("slow reader %d: %d answers handled, %d received whole; want 1, 1", i, got, received[i])
		}
	}
	if completed < workers {
		t.Errorf("only %d complete answers to the keep-alive clients", completed)
	}
}

// TestProdShutdownPipelined sends SIGTERM while the server is writing an
// answer: an HTTP/1.1 client pipelines 120 requests for a 48 kB answer
// (about 6 MB, more than the socket buffers hold, the sender's growing to
// 4 MB) and reads nothing but the first status line until SIGTERM, so the
// server is blocked writing. Every answer the server handled (its
// access-log line says status=200 bytes=48141) must then reach the client
// whole, the one being written at SIGTERM included; the requests not yet
// begun may go unanswered, the connection closing after the last answer.
//
// A server that closes a connection with requests it has not read must
// close it in stages (RFC 9112, section 9.6): an immediate close makes the
// TCP stack answer with a reset that can erase answers already sent.
func TestProdShutdownPipelined(t *testing.T) {
	t.Parallel()
	p := startServerWith(t, "--rate-limit", "1000000", "--admin-listen", "", "--shutdown-timeout", "5s")
	big := e2eBase + "/candidates?limit=500"
	ref := p.client(t, "127.0.0.50").send(t, http.MethodGet, big, nil)
	checkOK(t, ref)
	refBody := e2eGenerated.ReplaceAll(ref.body, nil)

	const pipelined = 120
	d := net.Dialer{
		Timeout:   5 * time.Second,
		LocalAddr: &net.TCPAddr{IP: net.IPv4(127, 0, 0, 90)},
		Control: func(_, _ string, rc syscall.RawConn) error {
			var serr error
			err := rc.Control(func(fd uintptr) { serr = syscall.SetsockoptInt(int(fd), syscall.SOL_SOCKET, syscall.SO_RCVBUF, 2048) })
			return errors.Join(err, serr)
		},
	}
	conn, err := d.Dial("tcp", p.addr)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	_ = conn.SetDeadline(time.Now().Add(15 * time.Second))
	req := "GET " + big + " HTTP/1.1\r\nHost: " + p.addr + "\r\n\r\n"
	if _, err := conn.Write([]byte(strings.Repeat(req, pipelined))); err != nil {
		t.Fatal(err)
	}
	br := bufio.NewReaderSize(conn, 512)
	resp, err := http.ReadResponse(br, nil)
	if err != nil || resp.StatusCode != http.StatusOK {
		t.Fatalf("the first answer: %v, %v", resp, err)
	}
	// Wait until the server is blocked: no new access-log line for 300 ms.
	handled := func() int { return strings.Count(p.stderr.String(), "msg=request client_ip=127.0.0.90 ") }
	last, since := handled(), time.Now()
	for deadline := time.Now().Add(5 * time.Second); time.Since(since) < 300*time.Millisecond; {
		if time.Now().After(deadline) {
			t.Fatalf("the server kept answering for 5 s: %d answers", handled())
		}
		time.Sleep(20 * time.Millisecond)
		if n := handled(); n != last {
			last, since = n, time.Now()
		}
	}
	atSIGTERM := handled()
	if atSIGTERM >= pipelined {
		t.Fatalf("all %d answers handled before SIGTERM: none in flight", pipelined)
	}
	p.terminate(t)
	time.Sleep(200 * time.Millisecond)

	received := 0
	var cut error
	for n := 1; n <= pipelined; n++ {
		body, err := io.ReadAll(resp.Body)
		if err != nil {
			cut = fmt.Errorf("answer %d cut short after %d of %d bytes: %w", n, len(body), resp.ContentLength, err)
			break
		}
		if resp.StatusCode != http.StatusOK || int64(len(body)) != resp.ContentLength || !bytes.Equal(e2eGenerated.ReplaceAll(body, nil), refBody) {
			t.Fatalf("answer %d: status %d, %d bytes of %d: not the complete 200", n, resp.StatusCode, len(body), resp.ContentLength)
		}
		received = n
		if _, err := br.Peek(1); errors.Is(err, io.EOF) {
			break // closed after the last answer
		}
		if resp, err = http.ReadResponse(br, nil); err != nil {
			cut = fmt.Errorf("after %d complete answers: %w", n, err)
			break
		}
	}
	select {
	case <-p.done:
	case <-time.After(7 * time.Second):
		t.Errorf("ballot serve still running 7 s after SIGTERM")
	}
	total := handled()
	t.Logf("answers handled: %d at SIGTERM, %d in all; received whole: %d", atSIGTERM, total, received)
	if received < total || cut != nil {
		t.Errorf("PRODUCT BUG: SIGTERM lost answers the server had handled: it logged %d answers of status 200 (%d of them before SIGTERM), the client received %d whole, then: %v", total, atSIGTERM, received, cut)
	}
}

// TestProdSIGHUPRightAfterStart sends SIGHUP as soon as serve has said it
// is serving: a reload must follow, never the signal's default action
// (terminating the process). SIGHUP is caught only once the goroutine that
// handles it runs, so the test tries up to 30 starts and stops at the
// first process killed.
func TestProdSIGHUPRightAfterStart(t *testing.T) {
	t.Parallel()
	bin := e2eBuild(t)
	dir := t.TempDir()
	const attempts = 30
	for i := range attempts {
		cmd := exec.Command(bin, "serve", "--listen", "127.0.0.1:0", "--admin-listen", "")
		cmd.Dir = dir
		cmd.Stdout = io.Discard
		stderr, err := cmd.StderrPipe()
		if err != nil {
			t.Fatal(err)
		}
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		done := make(chan struct{})
		var rest bytes.Buffer
		br := bufio.NewReader(stderr)
		line, err := br.ReadString('\n')
		if err != nil || !e2eListening.MatchString(line) {
			_ = cmd.Process.Kill()
			_ = cmd.Wait()
			t.Fatalf("start %d: first stderr line %q, %v", i+1, line, err)
		}
		go func() {
			_, _ = io.Copy(&rest, br)
			close(done)
		}()
		hupAt := time.Now()
		if err := cmd.Process.Signal(syscall.SIGHUP); err != nil {
			t.Fatal(err)
		}
		select {
		case <-done: // stderr closed: the process is gone
		case <-time.After(200 * time.Millisecond):
		}
		select {
		case <-done:
			_ = cmd.Wait()
			t.Fatalf("PRODUCT BUG: start %d of %d: SIGHUP sent right after the line %q killed the process within %v (%v) instead of reloading the dataset; stderr after the line: %q",
				i+1, attempts, strings.TrimSpace(line), time.Since(hupAt).Round(time.Millisecond), cmd.ProcessState, rest.String())
		default:
		}
		if err := cmd.Process.Signal(syscall.SIGTERM); err != nil {
			t.Fatal(err)
		}
		select {
		case <-done:
		case <-time.After(10 * time.Second):
			_ = cmd.Process.Kill()
			<-done
		}
		if err := cmd.Wait(); err != nil {
			t.Fatalf("start %d: after SIGHUP then SIGTERM: %v; stderr %q", i+1, err, rest.String())
		}
		if !strings.Contains(rest.String(), `msg="dataset reloaded"`) {
			t.Errorf("start %d: no \"dataset reloaded\" line after SIGHUP: %q", i+1, rest.String())
		}
	}
}

// TestProdShutdownDeadline holds a request in flight past shutdown_timeout:
// the server must stop at the deadline, and, as the README and the issue
// say ("let requests in flight finish (up to shutdown_timeout), exit 0"),
// exit 0.
func TestProdShutdownDeadline(t *testing.T) {
	t.Parallel()
	p := startServerWith(t, "--admin-listen", "", "--shutdown-timeout", "1s", "--read-header-timeout", "10s")
	conn, err := net.DialTimeout("tcp", p.addr, 5*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	// A request begun and never finished.
	if _, err := conn.Write([]byte("GET " + e2eBase + "/parties HTTP/1.1\r\nHost: x\r\n")); err != nil {
		t.Fatal(err)
	}
	time.Sleep(300 * time.Millisecond)
	sigAt := time.Now()
	p.terminate(t)
	select {
	case <-p.done:
	case <-time.After(5 * time.Second):
		t.Fatalf("ballot serve still running 5 s after SIGTERM with shutdown_timeout 1s")
	}
	took := time.Since(sigAt)
	if took < 900*time.Millisecond || took > 3*time.Second {
		t.Errorf("ballot serve exited %v after SIGTERM, want about shutdown_timeout (1s)", took)
	}
	// The exit status is checked here rather than by e2eProc.stop, to say
	// what is wrong.
	p.waited.Do(func() {})
	if code := p.cmd.ProcessState.ExitCode(); code != 0 {
		lines := strings.Split(strings.TrimSpace(p.stderr.String()), "\n")
		t.Errorf("PRODUCT BUG: after SIGTERM with a request still in flight at shutdown_timeout, exit status %d (want 0, per README \"Operating it\" and issue 4); last stderr line: %q",
			code, lines[len(lines)-1])
	}
	if !strings.Contains(p.stderr.String(), "ballot: stopped") {
		t.Errorf("stderr does not say \"ballot: stopped\"")
	}
}

// ---------------------------------------------------------------------------
// 3. Trusted proxies.

// TestProdTrustedProxies counts clients behind a trusted proxy by their
// forwarded address, a client sending forged headers directly by its own,
// and a request with a malformed header under the proxy's address.
func TestProdTrustedProxies(t *testing.T) {
	t.Parallel()
	p := startServerWith(t, "--trusted-proxies", "127.0.0.1/32", "--rate-limit", "5", "--admin-listen", "")
	path := e2eBase + "/parties"
	proxy := p.client(t, "127.0.0.1")
	direct := p.client(t, "127.0.0.2")

	// send sends one request and checks its status and X-RateLimit-Remaining.
	send := func(c *e2eClient, hdr map[string]string, status, remaining int, what string) reply {
		t.Helper()
		r := c.send(t, http.MethodGet, path, hdr)
		if r.status != status || prodHeaderInt(r, "X-RateLimit-Remaining") != remaining || r.header.Get("X-RateLimit-Limit") != "5" {
			t.Errorf("%s: status %d, X-RateLimit-Limit %q, X-RateLimit-Remaining %q; want %d, 5, %d",
				what, r.status, r.header.Get("X-RateLimit-Limit"), r.header.Get("X-RateLimit-Remaining"), status, remaining)
		}
		if got, want := r.header.Get("RateLimit"), fmt.Sprintf(`"endpoint";r=%d;`, remaining); !strings.HasPrefix(got, want) {
			t.Errorf("%s: RateLimit %q, want it to start %q", what, got, want)
		}
		return r
	}

	// A client behind the proxy: limited by its forwarded address.
	xff7 := map[string]string{"X-Forwarded-For": "198.51.100.7"}
	for i := range 5 {
		checkOK(t, send(proxy, xff7, http.StatusOK, 4-i, fmt.Sprintf("request %d for 198.51.100.7 via the proxy", i+1)))
	}
	r := send(proxy, xff7, http.StatusTooManyRequests, 0, "request 6 for 198.51.100.7 via the proxy")
	checkProblem(t, r, http.StatusTooManyRequests)
	if prodHeaderInt(r, "Retry-After") < 1 {
		t.Errorf("429 with Retry-After %q", r.header.Get("Retry-After"))
	}
	// Another client behind the same proxy has its own counter.
	send(proxy, map[string]string{"X-Forwarded-For": "198.51.100.8"}, http.StatusOK, 4, "198.51.100.8 via the proxy")
	// A chain: the proxy's own hop (trusted) is skipped, the first
	// untrusted hop from the right is the client.
	send(proxy, map[string]string{"X-Forwarded-For": "203.0.113.1, 198.51.100.7, 127.0.0.1"}, http.StatusTooManyRequests, 0, "X-Forwarded-For: 203.0.113.1, 198.51.100.7, 127.0.0.1 via the proxy")

	// A client not behind the proxy forging the header: counted as itself.
	forged := map[string]string{"X-Forwarded-For": "198.51.100.8"}
	for i := range 5 {
		send(direct, forged, http.StatusOK, 4-i, fmt.Sprintf("request %d from 127.0.0.2 forging 198.51.100.8", i+1))
	}
	send(direct, forged, http.StatusTooManyRequests, 0, "request 6 from 127.0.0.2 forging 198.51.100.8")
	send(direct, map[string]string{"Forwarded": "for=198.51.100.9"}, http.StatusTooManyRequests, 0, "127.0.0.2 forging Forwarded: for=198.51.100.9")
	// 198.51.100.8 behind the proxy still has its own count (1 used).
	send(proxy, map[string]string{"X-Forwarded-For": "198.51.100.8"}, http.StatusOK, 3, "198.51.100.8 via the proxy, after the forgeries")

	// Malformed headers from the proxy: a client it did not name, counted
	// apart from the proxy's own address, on one counter for them all.
	malformed := []map[string]string{
		{"X-Forwarded-For": "not-an-ip"},
		{"X-Forwarded-For": "198.51.100.9, ,"},
	}
	for i, hdr := range malformed {
		send(proxy, hdr, http.StatusOK, 4-i, fmt.Sprintf("malformed %v from the proxy", hdr))
	}
	send(proxy, nil, http.StatusOK, 4, "a plain request from the proxy after the malformed ones")
	// The proxy writes X-Forwarded-For: a Forwarded header it passed
	// through is the client's own, and is not read.
	send(proxy, map[string]string{"Forwarded": "for=198.51.100.11"}, http.StatusOK, 3, "Forwarded: for=198.51.100.11 via a proxy that writes X-Forwarded-For")
	send(proxy, map[string]string{"X-Forwarded-For": "198.51.100.9"}, http.StatusOK, 4, "198.51.100.9 well-formed: not charged for the malformed header naming it")

	// The access log carries the resolved address.
	prodWaitLog(t, p, regexp.MustCompile(`msg=request client_ip=198\.51\.100\.7 method=GET route=parties uri=/api/public/v1/parties status=200 bytes=\d+ duration=`), "an access-log line for 198.51.100.7's 200")
	prodWaitLog(t, p, regexp.MustCompile(`msg=request client_ip=198\.51\.100\.7 method=GET route=parties uri=/api/public/v1/parties status=429 `), "an access-log line for 198.51.100.7's 429")
	prodWaitLog(t, p, regexp.MustCompile(`msg=request client_ip=127\.0\.0\.2 method=GET route=parties .*status=429 `), "an access-log line for the forger 127.0.0.2")
	prodWaitLog(t, p, regexp.MustCompile(`msg=request client_ip=198\.51\.100\.9 `), "the access-log line of the last request")
	log := p.stderr.String()
	if n := strings.Count(log, "client_ip=198.51.100.9 "); n != 1 {
		t.Errorf("%d access-log lines for 198.51.100.9, want 1: the malformed header naming it must be logged under the proxy", n)
	}
	if n := strings.Count(log, "client_ip=127.0.0.1 "); n != 2 {
		t.Errorf("%d access-log lines for the proxy 127.0.0.1, want 2 (the plain request and the unread Forwarded)", n)
	}
	if n := strings.Count(log, "client_ip=invalid@127.0.0.1 "); n != 2 {
		t.Errorf("%d access-log lines for invalid@127.0.0.1, want 2 (the malformed headers)", n)
	}
	if n := strings.Count(log, "client_ip=198.51.100.8 "); n != 2 {
		t.Errorf("%d access-log lines for 198.51.100.8, want 2 (via the proxy; the forgeries are 127.0.0.2's)", n)
	}
}

// TestProdTrustedProxiesForwarded: a proxy that writes RFC 7239's Forwarded
// header, configured with --forwarded-header Forwarded.
func TestProdTrustedProxiesForwarded(t *testing.T) {
	t.Parallel()
	p := startServerWith(t, "--trusted-proxies", "127.0.0.1/32", "--forwarded-header", "Forwarded", "--rate-limit", "5", "--admin-listen", "")
	proxy := p.client(t, "127.0.0.1")
	steps := []struct {
		hdr       map[string]string
		status    int
		remaining int
		what      string
	}{
		{map[string]string{"Forwarded": "for=198.51.100.7"}, 200, 4, "198.51.100.7"},
		{map[string]string{"Forwarded": `for="198.51.100.7:4711";proto=http`}, 200, 3, "198.51.100.7 quoted, with a port"},
		{map[string]string{"Forwarded": "for=192.0.2.1, for=198.51.100.7;by=127.0.0.1"}, 200, 2, "198.51.100.7 as the rightmost hop"},
		{map[string]string{"X-Forwarded-For": "198.51.100.7"}, 200, 4, "X-Forwarded-For is not read: the proxy's own counter"},
		{map[string]string{"Forwarded": "for=unknown"}, 200, 4, "an obfuscated hop: a counter of its own, not the proxy's"},
		{map[string]string{"Forwarded": "for=_hidden, for=198.51.100.10"}, 200, 4, "198.51.100.10, read before the hidden hop"},
		{map[string]string{"Forwarded": "for=198.51.100.10, for=_hidden"}, 200, 4, "the hidden hop nearest: a counter of its own"},
		{nil, 200, 3, "the proxy's own counter, untouched by the hidden hops"},
	}
	for _, st := range steps {
		r := proxy.send(t, http.MethodGet, e2eBase+"/parties", st.hdr)
		if r.status != st.status || prodHeaderInt(r, "X-RateLimit-Remaining") != st.remaining {
			t.Errorf("%s: status %d, remaining %s; want %d, %d", st.what, r.status, r.header.Get("X-RateLimit-Remaining"), st.status, st.remaining)
		}
	}
}

// ---------------------------------------------------------------------------
// 4. The admin listener.

// TestProdAdminListener checks the admin endpoints, their headers, and the
// metrics the issue names, with values that follow the requests made.
func TestProdAdminListener(t *testing.T) {
	t.Parallel()
	p := startServerWith(t, "--rate-limit", "2", "--admin-listen", "127.0.0.1:0")
	admin := prodAdmin(t, p)
	if admin == p.addr {
		t.Fatalf("the admin listener is the public address %s", admin)
	}
	hc := prodHTTP(t)
	u := func(path string) string { return "http://" + admin + path }

	// No rate limit, no CORS, no caching on the admin listener: ten quick
	// requests with an Origin, well over the public limit of 2.
	for i := range 10 {
		r := prodDo(t, hc, http.MethodGet, u("/healthz"), map[string]string{"Origin": "https://evil.example"})
		if v := prodJSON(t, r, http.StatusOK); v["status"] != "alive" {
			t.Errorf("/healthz: %s", r.body)
		}
		for name := range r.header {
			if strings.HasPrefix(strings.ToLower(name), "x-ratelimit") || strings.HasPrefix(strings.ToLower(name), "ratelimit") ||
				strings.HasPrefix(strings.ToLower(name), "access-control") || name == "Retry-After" {
				t.Errorf("/healthz request %d carries %s: %q", i+1, name, r.header.Get(name))
			}
		}
		if r.header.Get("Cache-Control") != "no-store" {
			t.Errorf("/healthz: Cache-Control %q, want no-store", r.header.Get("Cache-Control"))
		}
	}
	ready := prodReadyz(t, hc, admin)
	if !strings.HasPrefix(ready.Title, "Malta general election") {
		t.Errorf("/readyz title %q, want the embedded dataset's", ready.Title)
	}
	if !strings.Contains(p.stderr.String(), "(version "+ready.Version[:12]+")") {
		t.Errorf("/readyz version %s is not the version serve logged at start", ready.Version)
	}
	for _, tt := range []struct {
		method, path string
		status       int
		allow        string
	}{
		{http.MethodGet, "/nope", http.StatusNotFound, ""},
		{http.MethodGet, "/healthz/", http.StatusNotFound, ""},
		{http.MethodGet, e2eBase + "/parties", http.StatusNotFound, ""}, // the API is not on the admin listener
		{http.MethodGet, "/reload", http.StatusMethodNotAllowed, "POST"},
		{http.MethodPost, "/healthz", http.StatusMethodNotAllowed, "GET, HEAD"},
		{http.MethodDelete, "/metrics", http.StatusMethodNotAllowed, "GET, HEAD"},
	} {
		r := prodDo(t, hc, tt.method, u(tt.path), map[string]string{"Origin": "https://evil.example"})
		if r.status != tt.status || r.header.Get("Allow") != tt.allow {
			t.Errorf("%s %s on the admin listener: status %d, Allow %q; want %d, %q", tt.method, tt.path, r.status, r.header.Get("Allow"), tt.status, tt.allow)
		}
		if r.header.Get("Access-Control-Allow-Origin") != "" || r.header.Get("X-RateLimit-Limit") != "" {
			t.Errorf("%s %s on the admin listener carries CORS or rate-limit headers: %q", tt.method, tt.path, r.header)
		}
		checkNoLeak(t, r.body)
	}
	// And the admin endpoints are not on the public listener.
	// (From an address each: "other" is one rate-limit counter.)
	for i, path := range []string{"/metrics", "/healthz", "/readyz", "/reload"} {
		if r := p.client(t, fmt.Sprintf("127.0.0.%d", 10+i)).send(t, http.MethodGet, path, nil); r.status != http.StatusNotFound {
			t.Errorf("GET %s on the public listener: status %d, want 404", path, r.status)
		}
	}
	postReload := p.client(t, "127.0.0.14").send(t, http.MethodPost, "/reload", nil)
	if postReload.status != http.StatusNotFound && postReload.status != http.StatusMethodNotAllowed || strings.Contains(string(postReload.body), "reloaded") {
		t.Errorf("POST /reload on the public listener: status %d: %s", postReload.status, postReload.body)
	}
	other404 := 4.0
	if postReload.status == http.StatusNotFound {
		other404++
	}

	// Public traffic the metrics must show: 3 parties (the third a 429), 1
	// candidates 400, 1 districts 200, and the 5 admin paths above as
	// "other" 404 on the public side (4 GETs and a POST).
	c := p.client(t, "127.0.0.1")
	checkOK(t, c.send(t, http.MethodGet, e2eBase+"/parties", nil))
	checkOK(t, c.send(t, http.MethodGet, e2eBase+"/parties", nil))
	checkProblem(t, c.send(t, http.MethodGet, e2eBase+"/parties", nil), http.StatusTooManyRequests)
	checkProblem(t, c.send(t, http.MethodGet, e2eBase+"/candidates?limit=0", nil), http.StatusBadRequest)
	checkOK(t, c.send(t, http.MethodGet, e2eBase+"/districts", nil))

	// A request is counted when its handler returns, which for an answer
	// longer than the write buffer can be just after the client has read
	// it: wait (briefly) for the last one.
	mfs := prodMetrics(t, hc, admin)
	for deadline := time.Now().Add(2 * time.Second); time.Now().Before(deadline); mfs = prodMetrics(t, hc, admin) {
		if got, _ := prodSeries(mfs, "ballot_http_requests_total", "route", "districts", "status", "200"); got == 1 {
			break
		}
		time.Sleep(10 * time.Millisecond)
	}
	for _, tt := range []struct {
		name   string
		typ    dto.MetricType
		labels []string
		want   float64
	}{
		{"ballot_http_requests_total", dto.MetricType_COUNTER, []string{"route", "parties", "status", "200"}, 2},
		{"ballot_http_requests_total", dto.MetricType_COUNTER, []string{"route", "parties", "status", "429"}, 1},
		{"ballot_http_requests_total", dto.MetricType_COUNTER, []string{"route", "candidates", "status", "400"}, 1},
		{"ballot_http_requests_total", dto.MetricType_COUNTER, []string{"route", "districts", "status", "200"}, 1},
		{"ballot_http_requests_total", dto.MetricType_COUNTER, []string{"route", "other", "status", "404"}, other404},
		{"ballot_http_request_duration_seconds", dto.MetricType_HISTOGRAM, []string{"route", "parties"}, 3},
		{"ballot_http_request_duration_seconds", dto.MetricType_HISTOGRAM, []string{"route", "districts"}, 1},
		{"ballot_rate_limited_requests_total", dto.MetricType_COUNTER, []string{"route", "parties"}, 1},
		{"ballot_rate_limit_evictions_total", dto.MetricType_COUNTER, nil, 0},
		{"ballot_dataset_reloads_total", dto.MetricType_COUNTER, []string{"outcome", "success"}, 0},
		{"ballot_dataset_reloads_total", dto.MetricType_COUNTER, []string{"outcome", "failure"}, 0},
		{"ballot_dataset_info", dto.MetricType_GAUGE, []string{"version", ready.Version, "title", ready.Title}, 1},
	} {
		mf := mfs[tt.name]
		if mf == nil {
			t.Errorf("/metrics has no %s", tt.name)
			continue
		}
		if mf.GetType() != tt.typ || mf.GetHelp() == "" {
			t.Errorf("%s: type %v, help %q; want %v with a help text", tt.name, mf.GetType(), mf.GetHelp(), tt.typ)
		}
		if got, ok := prodSeries(mfs, tt.name, tt.labels...); !ok || got != tt.want {
			t.Errorf("%s%v = %v (present %v), want %v", tt.name, tt.labels, got, ok, tt.want)
		}
	}
	// 127.0.0.1 on three endpoints, 127.0.0.10-14 on "other": 8 counters.
	if got, ok := prodSeries(mfs, "ballot_rate_limit_tracked_clients"); !ok || got != 8 {
		t.Errorf("ballot_rate_limit_tracked_clients = %v (present %v), want 8", got, ok)
	}
	// The POST to /reload on the public side: 405 or 404, as "other".
	var other float64
	for _, m := range mfs["ballot_http_requests_total"].GetMetric() {
		for _, lp := range m.GetLabel() {
			if lp.GetName() == "route" && lp.GetValue() == "other" {
				other += m.GetCounter().GetValue()
			}
		}
	}
	if other != 5 {
		t.Errorf("ballot_http_requests_total{route=\"other\"} sums to %v, want 5", other)
	}
	if h := mfs["ballot_http_request_duration_seconds"]; h != nil {
		for _, m := range h.GetMetric() {
			if m.GetHistogram().GetSampleCount() == 0 {
				continue // a route with no request yet
			}
			if len(m.GetHistogram().GetBucket()) < 5 || m.GetHistogram().GetSampleSum() <= 0 {
				t.Errorf("ballot_http_request_duration_seconds: a histogram of %d buckets, sum %v", len(m.GetHistogram().GetBucket()), m.GetHistogram().GetSampleSum())
			}
		}
	}

	t.Run("evictions", func(t *testing.T) {
		p := startServerWith(t, "--max-tracked-clients", "2", "--rate-limit", "3", "--admin-listen", "127.0.0.1:0")
		admin := prodAdmin(t, p)
		first := p.client(t, "127.0.0.1")
		for i := range 3 {
			if r := first.send(t, http.MethodGet, e2eBase+"/parties", nil); r.status != http.StatusOK || prodHeaderInt(r, "X-RateLimit-Remaining") != 2-i {
				t.Fatalf("127.0.0.1 request %d: status %d, Remaining %q", i+1, r.status, r.header.Get("X-RateLimit-Remaining"))
			}
		}
		for ip := 2; ip <= 5; ip++ {
			c := p.client(t, fmt.Sprintf("127.0.0.%d", ip))
			if r := c.send(t, http.MethodGet, e2eBase+"/parties", nil); r.status != http.StatusOK || prodHeaderInt(r, "X-RateLimit-Remaining") != 2 {
				t.Errorf("127.0.0.%d: status %d, Remaining %q; want 200, 2", ip, r.status, r.header.Get("X-RateLimit-Remaining"))
			}
		}
		mfs := prodMetrics(t, hc, admin)
		evicted, _ := prodSeries(mfs, "ballot_rate_limit_evictions_total")
		tracked, _ := prodSeries(mfs, "ballot_rate_limit_tracked_clients")
		if evicted < 3 || tracked < 1 || tracked > 2 {
			t.Errorf("5 clients with max_tracked_clients 2: evictions %v, tracked %v; want at least 3 and at most 2", evicted, tracked)
		}
		// 127.0.0.1's window was the oldest: dropped, so it starts afresh.
		if r := first.send(t, http.MethodGet, e2eBase+"/parties", nil); r.status != http.StatusOK || prodHeaderInt(r, "X-RateLimit-Remaining") != 2 {
			t.Errorf("127.0.0.1 after its window was evicted: status %d, Remaining %q; want a fresh window (200, 2)", r.status, r.header.Get("X-RateLimit-Remaining"))
		}
		t.Logf("evictions %v, tracked %v", evicted, tracked)
	})
}

// ---------------------------------------------------------------------------
// 5. Configuration from outside.

// TestProdConfiguration starts the binary with a config.toml in its working
// directory, environment variables and flags.
func TestProdConfiguration(t *testing.T) {
	t.Parallel()

	t.Run("unknown key in ./config.toml", func(t *testing.T) {
		dir := t.TempDir()
		if err := os.WriteFile(filepath.Join(dir, "config.toml"), []byte("listen = \"127.0.0.1:0\"\nadmin_listen = \"\"\nrate_limitt = 5\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		code, stderr, took := prodRun(t, dir, nil, "serve")
		if code != 1 || strings.Count(stderr, "\n") != 1 || !strings.Contains(stderr, "rate_limitt") || !strings.Contains(stderr, "config.toml") {
			t.Errorf("exit %d, stderr %q; want exit 1 and one line naming config.toml and rate_limitt", code, stderr)
		}
		if took > 3*time.Second {
			t.Errorf("took %v to refuse the file", took)
		}
	})

	t.Run("invalid value in the environment", func(t *testing.T) {
		code, stderr, _ := prodRun(t, t.TempDir(), []string{"BALLOT_LOG_FORMAT=xml"}, "serve", "--listen", "127.0.0.1:0", "--admin-listen", "")
		if code != 2 || strings.Count(stderr, "\n") != 1 || !strings.Contains(stderr, "log_format") || !strings.Contains(stderr, "json") {
			t.Errorf("BALLOT_LOG_FORMAT=xml: exit %d, stderr %q; want exit 2 and one line naming log_format and what it accepts", code, stderr)
		}
	})

	// The file says 2, the environment 3, the flag 4: later wins.
	t.Run("file, then environment, then flag", func(t *testing.T) {
		dir := t.TempDir()
		if err := os.WriteFile(filepath.Join(dir, "config.toml"), []byte("rate_limit = 2\nadmin_listen = \"\"\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		limited := func(p *e2eProc, limit int) {
			t.Helper()
			c := p.client(t, "127.0.0.1")
			for i := range limit + 1 {
				r := c.send(t, http.MethodGet, e2eBase+"/districts", nil)
				want := http.StatusOK
				if i == limit {
					want = http.StatusTooManyRequests
				}
				if r.status != want || r.header.Get("X-RateLimit-Limit") != strconv.Itoa(limit) {
					t.Errorf("request %d: status %d, X-RateLimit-Limit %q; want %d, %d", i+1, r.status, r.header.Get("X-RateLimit-Limit"), want, limit)
				}
			}
		}
		limited(prodStart(t, dir, nil), 2)
		limited(prodStart(t, dir, []string{"BALLOT_RATE_LIMIT=3"}), 3)
		limited(prodStart(t, dir, []string{"BALLOT_RATE_LIMIT=3"}, "--rate-limit", "4"), 4)
	})

	t.Run("JSON log", func(t *testing.T) {
		p := prodStart(t, t.TempDir(), nil, "--log-format", "json", "--admin-listen", "")
		c := p.client(t, "127.0.0.3")
		ok := c.send(t, http.MethodGet, e2eBase+"/candidates?limit=2", nil)
		checkOK(t, ok)
		missing := c.send(t, http.MethodGet, e2eBase+"/nope", nil)
		type line struct {
			Msg      string   `json:"msg"`
			Level    string   `json:"level"`
			ClientIP string   `json:"client_ip"`
			Method   string   `json:"method"`
			Route    string   `json:"route"`
			URI      string   `json:"uri"`
			Status   *int     `json:"status"`
			Bytes    *int     `json:"bytes"`
			Duration *float64 `json:"duration"`
		}
		var requests []line
		prodEventually(t, 5*time.Second, "two access-log lines", func() (bool, string) {
			requests = requests[:0]
			for _, s := range strings.Split(strings.TrimSpace(p.stderr.String()), "\n") {
				var l line
				if err := json.Unmarshal([]byte(s), &l); err != nil {
					t.Fatalf("a stderr line that is not JSON with --log-format json: %q", s)
				}
				if l.Msg == "request" {
					requests = append(requests, l)
				}
			}
			return len(requests) == 2, fmt.Sprintf("%d lines", len(requests))
		})
		for i, want := range []struct {
			route, uri string
			r          reply
		}{
			{"candidates", e2eBase + "/candidates?limit=2", ok},
			{"other", e2eBase + "/nope", missing},
		} {
			l := requests[i]
			if l.Level != "INFO" || l.ClientIP != "127.0.0.3" || l.Method != "GET" || l.Route != want.route || l.URI != want.uri ||
				l.Status == nil || *l.Status != want.r.status || l.Bytes == nil || *l.Bytes != len(want.r.body) || l.Duration == nil || *l.Duration <= 0 {
				t.Errorf("access-log line %d: %+v; want client_ip 127.0.0.3, route %s, uri %s, status %d, bytes %d and a duration", i+1, l, want.route, want.uri, want.r.status, len(want.r.body))
			}
		}
		if strings.Contains(p.stderr.String(), "ballot: serving") {
			t.Errorf("a text line in the JSON log")
		}
	})

	t.Run("busy admin_listen set explicitly", func(t *testing.T) {
		busy, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		defer busy.Close()
		code, stderr, took := prodRun(t, t.TempDir(), nil, "serve", "--listen", "127.0.0.1:0", "--admin-listen", busy.Addr().String())
		if code != 1 || !strings.Contains(stderr, "admin_listen") || !strings.Contains(stderr, busy.Addr().String()) || strings.Contains(stderr, "serving") {
			t.Errorf("exit %d, stderr %q; want exit 1 with a message naming admin_listen and %s, before serving", code, stderr, busy.Addr())
		}
		if took > 3*time.Second {
			t.Errorf("took %v to fail on a busy admin port, want at once", took)
		}
		// The same through the environment.
		code, stderr, _ = prodRun(t, t.TempDir(), []string{"BALLOT_ADMIN_LISTEN=" + busy.Addr().String()}, "serve", "--listen", "127.0.0.1:0")
		if code != 1 || !strings.Contains(stderr, "admin_listen") {
			t.Errorf("BALLOT_ADMIN_LISTEN busy: exit %d, stderr %q; want exit 1 naming admin_listen", code, stderr)
		}
	})
}

// ---------------------------------------------------------------------------
// 6. A slow-header client.

// TestProdSlowHeaderCutOff sends half a request and nothing more: the
// server closes the connection after read_header_timeout, while other
// clients are answered normally.
func TestProdSlowHeaderCutOff(t *testing.T) {
	t.Parallel()
	p := startServerWith(t, "--read-header-timeout", "300ms", "--admin-listen", "")
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
