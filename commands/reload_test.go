package commands_test

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
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

	"ballot/internal/testprograms"
)

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
	testprograms.EndToEnd(t, "sends SIGHUP to the binary under load")
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
	rig := &reloadRig{p: p, admin: prodAdmin(t, p), hc: prodHTTP(t), load: &reloadLoad{p: p, c: c}}
	initial := prodReadyz(t, rig.hc, rig.admin)
	if initial.Title != "Small test election" {
		t.Errorf("/readyz title %q, want Small test election", initial.Title)
	}
	const workers = 8
	rig.load.start(t, workers)
	rig.hold(t)
	rig.probe = p.client(t, "127.0.0.99").hc
	if got, state := rig.served(); got != 0 {
		t.Fatalf("at start: %s, want version 0", state)
	}

	ready1 := rig.reloadBySIGHUP(t, v1, initial)
	rig.refuseBySIGHUP(t, brokenSyntax, ready1)
	rig.refuseByPOST(t, brokenParty, ready1, unknownParty)
	ready2 := rig.reloadByPOST(t, v2, ready1)

	rig.load.stopAndCheck(t, workers)
	rig.checkMetricsAndLog(t, ready2)
}

// reloadLoad is the load of TestProdReloadUnderLoad: clients, each on its
// own loopback address, alternating /parties and /candidates, one request
// after another, every answer checked.
type reloadLoad struct {
	p          *e2eProc
	c          *prodChecker
	stop       atomic.Bool
	sent       [2]atomic.Int64 // parties, candidates: requests sent, the probe's included
	ok         atomic.Int64
	seen       [3]atomic.Int64 // answers from each valid version
	failMu     sync.Mutex
	failures   []string
	failCount  atomic.Int64
	workerDone sync.WaitGroup
}

var reloadPaths = [2]string{e2eBase + "/parties", e2eBase + "/candidates"}

func (l *reloadLoad) fail(msg string) {
	if l.failCount.Add(1) <= 20 {
		l.failMu.Lock()
		l.failures = append(l.failures, msg)
		l.failMu.Unlock()
	}
}

// get sends one request and checks the answer; it returns the version.
func (l *reloadLoad) get(hc *http.Client, which int) int {
	l.sent[which].Add(1)
	resp, err := hc.Get(l.p.url(reloadPaths[which]))
	if err != nil {
		l.fail(fmt.Sprintf("%s: no answer: %v", reloadPaths[which], err))
		return -1
	}
	body, err := io.ReadAll(resp.Body)
	resp.Body.Close()
	if err != nil {
		l.fail(fmt.Sprintf("%s: answer cut short after %d bytes: %v", reloadPaths[which], len(body), err))
		return -1
	}
	version, problem := l.c.check(reloadPaths[which], resp, body)
	if problem != "" {
		l.fail(problem)
		return -1
	}
	l.ok.Add(1)
	l.seen[version].Add(1)
	return version
}

// start starts the workers and returns once each has had two answers (or
// given up). Each checks that versions never go back.
func (l *reloadLoad) start(t *testing.T, workers int) {
	loadDeadline := time.Now().Add(12 * time.Second) // a bound far beyond the planned ~2 s of load
	var started sync.WaitGroup
	started.Add(workers)
	l.workerDone.Add(workers)
	for w := range workers {
		wc := l.p.client(t, fmt.Sprintf("127.0.0.%d", 30+w)).hc
		go func() {
			defer l.workerDone.Done()
			last, running := 0, false
			defer func() {
				if !running {
					started.Done()
				}
			}()
			for i := 0; i < 200000 && !l.stop.Load() && time.Now().Before(loadDeadline); i++ {
				version := l.get(wc, i%2)
				if i == 1 {
					started.Done()
					running = true
				}
				if version >= 0 && version < last {
					l.fail(fmt.Sprintf("worker %d: version %d served after version %d", w, version, last))
				}
				last = max(last, version)
			}
		}()
	}
	started.Wait()
}

// stopAndCheck stops the workers and checks that every request got a
// complete, valid 200, and that each version was served to them.
func (l *reloadLoad) stopAndCheck(t *testing.T, workers int) {
	l.stop.Store(true)
	l.workerDone.Wait()
	l.failMu.Lock()
	for _, f := range l.failures {
		t.Errorf("failed request: %s", f)
	}
	l.failMu.Unlock()
	total := l.sent[0].Load() + l.sent[1].Load()
	t.Logf("%d requests, %d complete valid 200s, %d failures; answers by version: %d, %d, %d",
		total, l.ok.Load(), l.failCount.Load(), l.seen[0].Load(), l.seen[1].Load(), l.seen[2].Load())
	if l.ok.Load() != total {
		t.Errorf("%d of %d requests did not get a complete, valid 200", total-l.ok.Load(), total)
	}
	for i := range l.seen {
		if l.seen[i].Load() < int64(workers) {
			t.Errorf("only %d answers from version %d: the load did not overlap the reloads", l.seen[i].Load(), i)
		}
	}
}

// reloadRig is the server of TestProdReloadUnderLoad, its admin listener,
// the load on it, and a probe: a client of its own that asks which version
// is served.
type reloadRig struct {
	p     *e2eProc
	admin string
	hc    *http.Client // for the admin listener
	probe *http.Client
	load  *reloadLoad
}

// hold lets the load run on the state the server is in: it returns once
// the clients have had another 32 complete answers.
func (r *reloadRig) hold(t *testing.T) {
	t.Helper()
	want := r.load.ok.Load() + 32
	prodEventually(t, 10*time.Second, "32 more answers to the load", func() (bool, string) {
		got := r.load.ok.Load()
		return got >= want, fmt.Sprintf("%d answers, %d failures", got, r.load.failCount.Load())
	})
}

// served asks, from the probe's address, which version is served now.
func (r *reloadRig) served() (int, string) {
	pv, cv := r.load.get(r.probe, 0), r.load.get(r.probe, 1)
	return pv, fmt.Sprintf("parties from version %d, candidates from version %d", pv, cv)
}

func (r *reloadRig) reloads(t *testing.T, outcome string) float64 {
	t.Helper()
	n, ok := prodSeries(prodMetrics(t, r.hc, r.admin), "ballot_dataset_reloads_total", "outcome", outcome)
	if !ok {
		t.Fatalf("/metrics has no ballot_dataset_reloads_total{outcome=%q}", outcome)
	}
	return n
}

func (r *reloadRig) hup(t *testing.T) {
	t.Helper()
	if err := r.p.cmd.Process.Signal(syscall.SIGHUP); err != nil {
		t.Fatalf("SIGHUP to pid %d: %v", r.p.cmd.Process.Pid, err)
	}
}

// reloadBySIGHUP publishes a valid new version and sends SIGHUP: it is
// served soon after, and /readyz and the metrics say so.
func (r *reloadRig) reloadBySIGHUP(t *testing.T, files map[string][]byte, initial prodReady) prodReady {
	r.load.c.v.publish(t, files)
	r.hup(t)
	prodEventually(t, 5*time.Second, "version 1 served after SIGHUP", func() (bool, string) {
		got, state := r.served()
		return got == 1, state
	})
	ready1 := prodReadyz(t, r.hc, r.admin)
	if ready1.Version == initial.Version || !ready1.LoadedAt.After(initial.LoadedAt) {
		t.Errorf("/readyz after the SIGHUP reload: %+v, before: %+v; want a new version and load time", ready1, initial)
	}
	if s, f := r.reloads(t, "success"), r.reloads(t, "failure"); s != 1 || f != 0 {
		t.Errorf("after one good SIGHUP: reloads success %v, failure %v; want 1, 0", s, f)
	}
	r.hold(t)
	return ready1
}

// refuseBySIGHUP publishes a broken version and sends SIGHUP: it is
// refused, logged and counted, and the previous version stays.
func (r *reloadRig) refuseBySIGHUP(t *testing.T, files map[string][]byte, ready1 prodReady) {
	r.load.c.v.publish(t, files)
	r.hup(t)
	prodEventually(t, 5*time.Second, "the broken SIGHUP reload counted as a failure", func() (bool, string) {
		f := r.reloads(t, "failure")
		return f == 1, fmt.Sprintf("failure = %v", f)
	})
	prodWaitLog(t, r.p, regexp.MustCompile(`level=ERROR msg="reload refused: still serving the previous dataset" version=`+ready1.Version+` error=.*candidates\.json`),
		"the log line of the refused SIGHUP reload")
	if got := prodReadyz(t, r.hc, r.admin); got != ready1 {
		t.Errorf("/readyz after a refused reload: %+v, want it unchanged: %+v", got, ready1)
	}
	if got, state := r.served(); got != 1 {
		t.Errorf("after the broken SIGHUP reload: %s, want version 1 still", state)
	}
	r.hold(t)
}

// refuseByPOST publishes another broken version and sends POST /reload:
// 422, and the answer says the previous version is still served.
func (r *reloadRig) refuseByPOST(t *testing.T, files map[string][]byte, ready1 prodReady, unknownParty string) {
	r.load.c.v.publish(t, files)
	resp := prodDo(t, r.hc, http.MethodPost, "http://"+r.admin+"/reload", nil)
	refused := prodJSON(t, resp, http.StatusUnprocessableEntity)
	if refused["status"] != "refused" || refused["version"] != ready1.Version || !strings.Contains(fmt.Sprint(refused["detail"]), "previous one is still served") {
		t.Errorf("POST /reload of a broken dataset: %s; want status refused, the version still served (%s) and a detail saying so", resp.body, ready1.Version)
	}
	if errs, _ := refused["errors"].([]any); len(errs) == 0 || !strings.Contains(fmt.Sprint(errs), "candidates.json") || !strings.Contains(fmt.Sprint(errs), unknownParty) {
		t.Errorf("POST /reload of a broken dataset: errors %v, want the problem in candidates.json naming %s", refused["errors"], unknownParty)
	}
	if got, state := r.served(); got != 1 {
		t.Errorf("after the refused POST /reload: %s, want version 1 still", state)
	}
	if got := prodReadyz(t, r.hc, r.admin); got != ready1 {
		t.Errorf("/readyz after a refused POST /reload: %+v, want it unchanged: %+v", got, ready1)
	}
	r.hold(t)
}

// reloadByPOST publishes a valid version again and sends POST /reload: 200
// with the new version, served from the next request on.
func (r *reloadRig) reloadByPOST(t *testing.T, files map[string][]byte, ready1 prodReady) prodReady {
	r.load.c.v.publish(t, files)
	resp := prodDo(t, r.hc, http.MethodPost, "http://"+r.admin+"/reload", nil)
	reloaded := prodJSON(t, resp, http.StatusOK)
	if got, state := r.served(); got != 2 {
		t.Errorf("right after POST /reload answered 200: %s, want version 2", state)
	}
	ready2 := prodReadyz(t, r.hc, r.admin)
	if reloaded["status"] != "reloaded" || reloaded["version"] != ready2.Version || ready2.Version == ready1.Version || !ready2.LoadedAt.After(ready1.LoadedAt) {
		t.Errorf("POST /reload of a valid dataset: %s; /readyz then %+v (before: %+v)", resp.body, ready2, ready1)
	}
	r.hold(t)
	return ready2
}

// checkMetricsAndLog checks the metrics and the log once the load has
// stopped: two reloads of each outcome, the last version's info, exactly
// the requests sent, every one a 200, and a log line for each reload.
func (r *reloadRig) checkMetricsAndLog(t *testing.T, ready2 prodReady) {
	mfs := prodMetrics(t, r.hc, r.admin)
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
		want := map[string]float64{"parties/200": float64(r.load.sent[0].Load()), "candidates/200": float64(r.load.sent[1].Load())}
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
	// The log is written out in batches (every 100 ms at most): wait for
	// the lines, then count them.
	prodEventually(t, 10*time.Second, "two reloads and two refusals logged", func() (bool, string) {
		log := r.p.stderr.String()
		ok, refused := strings.Count(log, `msg="dataset reloaded"`), strings.Count(log, `msg="reload refused: still serving the previous dataset"`)
		return ok >= 2 && refused >= 2, fmt.Sprintf("%d reloaded, %d refused", ok, refused)
	})
	if n := strings.Count(r.p.stderr.String(), `msg="dataset reloaded"`); n != 2 {
		t.Errorf("%d \"dataset reloaded\" log lines, want 2", n)
	}
	if n := strings.Count(r.p.stderr.String(), `msg="reload refused: still serving the previous dataset"`); n != 2 {
		t.Errorf("%d \"reload refused\" log lines, want 2", n)
	}
}

// TestProdSIGHUPRightAfterStart sends SIGHUP as soon as serve has said it
// is serving: a reload must follow, never the signal's default action
// (terminating the process). As soon as serve logs that it is reloading,
// SIGTERM follows: serve must finish that reload and log its outcome before
// it stops. SIGHUP is caught only once the goroutine that handles it runs,
// so the test tries 30 starts and stops at the first failure. Nothing waits
// a fixed time: each step waits for a log line or the process's exit,
// bounded by a generous deadline.
func TestProdSIGHUPRightAfterStart(t *testing.T) {
	testprograms.EndToEnd(t, "sends SIGHUP to the binary as it starts")
	t.Parallel()
	bin := e2eBuild(t)
	dir := t.TempDir()
	const attempts = 30
	for i := range attempts {
		line, rest, state := hangUpThenTerminate(t, bin, dir)
		if ws, ok := state.Sys().(syscall.WaitStatus); ok && ws.Signaled() && ws.Signal() == syscall.SIGHUP {
			t.Fatalf("PRODUCT BUG: start %d of %d: SIGHUP sent right after the line %q killed the process instead of reloading the dataset; stderr after the line: %q",
				i+1, attempts, strings.TrimSpace(line), rest)
		}
		if !state.Success() {
			t.Fatalf("start %d: after SIGHUP then SIGTERM: %v; stderr %q", i+1, state, rest)
		}
		reloaded := strings.Index(rest, `msg="dataset reloaded"`)
		stopped := strings.Index(rest, "ballot: stopped")
		if reloaded < 0 || stopped < reloaded {
			t.Fatalf("start %d of %d: want a \"dataset reloaded\" line before \"ballot: stopped\": %q", i+1, attempts, rest)
		}
	}
}

// hangUpThenTerminate starts serve in dir and waits for its first stderr
// line; then it sends SIGHUP, waits for the line saying the reload begins
// (or for the process's end), sends SIGTERM and waits for the process to
// exit, killing it after e2eTimeout. It returns the first line, the rest of
// stderr and how the process exited.
func hangUpThenTerminate(t *testing.T, bin, dir string) (line, rest string, state *os.ProcessState) {
	t.Helper()
	// A small dataset: what is tested is the signal, not the load, and
	// each of the starts loads it twice.
	data, err := filepath.Abs(filepath.Join("testdata", "datasets", "valid"))
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(bin, "serve", "--listen", "127.0.0.1:0", "--admin-listen", "", "--data", data)
	cmd.Dir = dir
	cmd.Stdout = io.Discard
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	// A dataset's warnings are logged before the serving line.
	br := bufio.NewReader(stderr)
	for line, err = br.ReadString('\n'); err == nil && strings.Contains(line, " level=WARN "); line, err = br.ReadString('\n') {
	}
	if err != nil || !e2eListening.MatchString(line) {
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
		t.Fatalf("first stderr line after the warnings %q, %v", line, err)
	}
	var buf strings.Builder
	reloading := make(chan struct{})
	done := make(chan struct{})
	go func() {
		defer close(done)
		seen := false
		for {
			l, err := br.ReadString('\n')
			buf.WriteString(l)
			if !seen && strings.Contains(l, `msg="SIGHUP: reloading the dataset"`) {
				seen = true
				close(reloading)
			}
			if err != nil {
				return
			}
		}
	}()
	if err := cmd.Process.Signal(syscall.SIGHUP); err != nil {
		t.Fatal(err)
	}
	select {
	case <-reloading:
	case <-done: // the process is gone: the caller says why
	case <-time.After(e2eTimeout):
		t.Errorf("no line saying the reload begins within %v of SIGHUP", e2eTimeout)
	}
	if err := cmd.Process.Signal(syscall.SIGTERM); err != nil && !errors.Is(err, os.ErrProcessDone) {
		t.Fatal(err)
	}
	select {
	case <-done: // stderr closed: the process is gone
	case <-time.After(e2eTimeout):
		_ = cmd.Process.Kill()
		<-done
	}
	_ = cmd.Wait() // the state says how it ended
	return line, buf.String(), cmd.ProcessState
}
