package commands_test

// The fleet: Debian's nginx, run with deploy/nginx/ballot.conf, balancing
// three "ballot serve --watch" replicas on loopback sharing their rate-limit
// counts through a redis-server, as the README's
// "Running a fleet" describes. Under load through nginx: a rolling restart
// and a publish (an atomic swap of the dataset link) fail no request and mix
// no editions; through nginx, clients are counted by the address nginx saw,
// whatever X-Forwarded-For they forge; nginx's cache answers a second
// request itself and passes on no rate-limit header.
//
// Every process is started by the test and stopped by its PID (nginx with
// SIGTERM, each replica with SIGTERM and a graceful exit 0 expected); every
// wait is for an event (a log line, an answer, a counter) with a generous
// bound; everything listens on 127.0.0.1.

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net"
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

	"ballot/internal/redistest"
	"ballot/internal/testprograms"
)

const (
	// fleetConf is the nginx configuration the fleet runs, as operators
	// get it.
	fleetConf = "../deploy/nginx/ballot.conf"
	// fleetConverge bounds the time from a swap of the dataset link to
	// the last replica serving the new edition: the README states it.
	fleetConverge = 10 * time.Second
)

// fleetStoreConfig starts a redis-server for the fleet (stopped by its PID
// when the test ends) and returns the replicas' config.toml line that
// shares their rate-limit counts through it, as an operator running
// replicas behind a balancer would configure them.
func fleetStoreConfig(t *testing.T) string {
	t.Helper()
	return fmt.Sprintf("rate_limit_store = %q", redistest.Start(t).URL())
}

// fleetReplica is one ballot replica, restarted on the same port.
type fleetReplica struct {
	port int
	proc *publishProc
}

// fleet is nginx and three replicas.
type fleet struct {
	root     *testing.T // the test, whose cleanups stop the processes
	bin      string
	dir      string
	replicas [3]*fleetReplica
	nginx    *exec.Cmd
	nginxLog *publishLog   // nginx's stderr
	nginxErr string        // nginx's error log
	done     chan struct{} // closed when nginx has exited
	balancer string        // host:port of the balancer
	cache    string        // host:port of the balancer with the cache
}

// fleetSettings are the replicas' settings that differ between fleets.
type fleetSettings struct {
	data      string
	rateLimit int
	accessLog bool
	extra     string // more config.toml lines
}

// startFleet starts three replicas with s, then nginx in front of them.
func startFleet(t *testing.T, bin string, s fleetSettings) *fleet {
	t.Helper()
	nginx := testprograms.Need(t, testprograms.Nginx)[0]
	f := &fleet{root: t, bin: bin, dir: t.TempDir()}
	config := fmt.Sprintf(`admin_listen = "127.0.0.1:0"
data = %q
watch = true
trusted_proxies = ["127.0.0.1/32", "::1/128"]
rate_limit = %d
access_log = %t
%s
%s
`, s.data, s.rateLimit, s.accessLog, s.extra, fleetStoreConfig(t))
	if err := os.WriteFile(filepath.Join(f.dir, "replica.toml"), []byte(config), 0o644); err != nil {
		t.Fatal(err)
	}
	for i := range f.replicas {
		r := &fleetReplica{}
		r.proc = f.startReplica(t, 0)
		_, port, _ := net.SplitHostPort(r.proc.api)
		r.port, _ = strconv.Atoi(port)
		f.replicas[i] = r
	}
	f.startNginx(t, nginx)
	return f
}

// startReplica starts "ballot serve" with the fleet's configuration on
// port (0: one the system picks) and waits for its serving line.
func (f *fleet) startReplica(t *testing.T, port int) *publishProc {
	t.Helper()
	cmd := exec.Command(f.bin, "serve", "--config", filepath.Join(f.dir, "replica.toml"), "--listen", fmt.Sprintf("127.0.0.1:%d", port))
	cmd.Dir = f.dir
	p := startPublishProc(t, cmd)
	tr := &http.Transport{Proxy: nil, DisableCompression: true}
	p.hc = &http.Client{Transport: tr, Timeout: 10 * time.Second}
	root := f.root
	root.Cleanup(func() {
		tr.CloseIdleConnections()
		p.stop(root)
		if root.Failed() {
			root.Logf("stderr of ballot serve (pid %d), last 3000 bytes:\n%s", cmd.Process.Pid, tail(p.log.String(), 3000))
		}
	})
	m := p.waitLog(t, publishServing, "the serving line")
	p.api, p.admin = m[1], m[2]
	return p
}

// tail is the end of s.
func tail(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return "…" + s[len(s)-n:]
}

// freePort returns a loopback port free at the time of the call.
func freePort(t *testing.T) int {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port
}

// startNginx writes deploy/nginx/ballot.conf with the fleet's ports and
// paths in place of its own, includes it in a main configuration that keeps
// every file nginx writes in the test's directory, and runs nginx in the
// foreground as the test's user. Ports free when picked may be taken by
// the time nginx binds them: then it tries again with others.
func (f *fleet) startNginx(t *testing.T, nginx string) {
	t.Helper()
	conf, err := os.ReadFile(fleetConf)
	if err != nil {
		t.Fatal(err)
	}
	for attempt := 1; ; attempt++ {
		f.balancer = fmt.Sprintf("127.0.0.1:%d", freePort(t))
		f.cache = fmt.Sprintf("127.0.0.1:%d", freePort(t))
		pairs := []string{
			"127.0.0.1:8080", f.balancer,
			"127.0.0.1:8088", f.cache,
			"/var/cache/nginx/ballot", filepath.Join(f.dir, "nginx-cache"),
			"/var/log/nginx/ballot.access.log", filepath.Join(f.dir, "nginx-access.log"),
		}
		for i, r := range f.replicas {
			pairs = append(pairs, fmt.Sprintf("127.0.0.1:%d", 8081+i), fmt.Sprintf("127.0.0.1:%d", r.port))
		}
		for i := 0; i < len(pairs); i += 2 {
			if !bytes.Contains(conf, []byte(pairs[i])) {
				t.Fatalf("%s no longer names %s, which the test replaces", fleetConf, pairs[i])
			}
		}
		if err := os.WriteFile(filepath.Join(f.dir, "ballot.conf"), []byte(strings.NewReplacer(pairs...).Replace(string(conf))), 0o644); err != nil {
			t.Fatal(err)
		}
		// The main configuration of Debian's nginx.conf, reduced to what
		// the test needs, with its temporary files here.
		main := `worker_processes 1;
events { worker_connections 1024; }
http {
    client_body_temp_path tmp/body;
    proxy_temp_path tmp/proxy;
    fastcgi_temp_path tmp/fastcgi;
    uwsgi_temp_path tmp/uwsgi;
    scgi_temp_path tmp/scgi;
    include ballot.conf;
}
`
		if err := os.WriteFile(filepath.Join(f.dir, "nginx.conf"), []byte(main), 0o644); err != nil {
			t.Fatal(err)
		}
		if err := os.MkdirAll(filepath.Join(f.dir, "tmp"), 0o755); err != nil {
			t.Fatal(err)
		}
		f.nginxErr = filepath.Join(f.dir, "nginx-error.log")
		global := fmt.Sprintf("daemon off; pid %s; error_log %s notice;", filepath.Join(f.dir, "nginx.pid"), f.nginxErr)
		if os.Geteuid() == 0 {
			// As root, nginx's workers would become "nobody", who cannot
			// write the test's directory: they stay the test's user.
			global += " user root;"
		}
		cmd := exec.Command(nginx, "-p", f.dir, "-c", filepath.Join(f.dir, "nginx.conf"), "-e", f.nginxErr, "-g", global)
		// Its own process group, so that a master that has to be killed
		// takes its worker with it.
		cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
		log := &publishLog{}
		cmd.Stdout, cmd.Stderr = log, log
		if err := cmd.Start(); err != nil {
			t.Fatalf("starting %s: %v", nginx, err)
		}
		done := make(chan struct{})
		go func() {
			_ = cmd.Wait()
			close(done)
		}()
		if f.waitNginx(done) {
			f.nginx, f.nginxLog, f.done = cmd, log, done
			f.root.Cleanup(f.stopNginx)
			return
		}
		select {
		case <-done:
		default:
			_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
			<-done
		}
		errLog, _ := os.ReadFile(f.nginxErr)
		if attempt == 3 || !strings.Contains(string(errLog)+log.String(), "Address already in use") {
			t.Fatalf("nginx did not start:\n%s%s", log, errLog)
		}
		_ = os.Remove(f.nginxErr)
	}
}

// waitNginx waits until the balancer answers the index with 200, or nginx
// exits (false), within publishWait.
func (f *fleet) waitNginx(done chan struct{}) bool {
	hc := &http.Client{Transport: &http.Transport{Proxy: nil, DisableKeepAlives: true}, Timeout: 5 * time.Second}
	deadline := time.Now().Add(publishWait)
	for time.Now().Before(deadline) {
		select {
		case <-done:
			return false
		default:
		}
		if resp, err := hc.Get("http://" + f.balancer + "/api/public/v1/"); err == nil {
			_, _ = io.Copy(io.Discard, resp.Body)
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				return true
			}
		}
		time.Sleep(20 * time.Millisecond)
	}
	return false
}

// stopNginx stops nginx with SIGTERM by its PID, and kills its process
// group if it has not exited within publishWait.
func (f *fleet) stopNginx() {
	t := f.root
	if err := f.nginx.Process.Signal(syscall.SIGTERM); err != nil {
		t.Errorf("SIGTERM to nginx (pid %d): %v", f.nginx.Process.Pid, err)
	}
	select {
	case <-f.done:
	case <-time.After(publishWait):
		_ = syscall.Kill(-f.nginx.Process.Pid, syscall.SIGKILL)
		<-f.done
		t.Errorf("nginx (pid %d) did not exit within %v of SIGTERM; killed", f.nginx.Process.Pid, publishWait)
	}
	if t.Failed() {
		errLog, _ := os.ReadFile(f.nginxErr)
		t.Logf("nginx's output:\n%s\nits error log, last 3000 bytes:\n%s", f.nginxLog, tail(string(errLog), 3000))
	}
}

// restart stops replica i with SIGTERM, waits for its exit 0, starts it
// again on its port, and waits until it answers directly and nginx sends
// it requests again.
func (f *fleet) restart(t *testing.T, i int) {
	t.Helper()
	r := f.replicas[i]
	r.proc.stop(t)
	r.proc = f.startReplica(t, r.port)
	resp, err := r.proc.hc.Get("http://" + r.proc.api + "/api/public/v1/")
	if err != nil {
		t.Fatalf("replica %d after its restart: %v", i+1, err)
	}
	_, _ = io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("replica %d after its restart: status %d", i+1, resp.StatusCode)
	}
	prodEventually(t, publishWait, fmt.Sprintf("replica %d back in nginx's rotation", i+1), func() (bool, string) {
		n := f.answered(t, i)
		return n >= 10, fmt.Sprintf("%.0f requests answered", n)
	})
}

// answered is the number of requests replica i has answered, from its
// metrics.
func (f *fleet) answered(t *testing.T, i int) float64 {
	t.Helper()
	p := f.replicas[i].proc
	mfs := prodMetrics(t, p.hc, p.admin)
	var n float64
	for _, m := range mfs["ballot_http_requests_total"].GetMetric() {
		n += m.GetCounter().GetValue()
	}
	return n
}

// answeredOn is the number of requests on route all replicas answered.
func (f *fleet) answeredOn(t *testing.T, route string) float64 {
	t.Helper()
	var n float64
	for _, r := range f.replicas {
		mfs := prodMetrics(t, r.proc.hc, r.proc.admin)
		for _, m := range mfs["ballot_http_requests_total"].GetMetric() {
			for _, l := range m.GetLabel() {
				if l.GetName() == "route" && l.GetValue() == route {
					n += m.GetCounter().GetValue()
				}
			}
		}
	}
	return n
}

// indexVersion is the version replica i's index says it serves, or "".
func (f *fleet) indexVersion(i int) string {
	p := f.replicas[i].proc
	resp, err := p.hc.Get("http://" + p.api + "/api/public/v1/")
	if err != nil {
		return ""
	}
	defer resp.Body.Close()
	var idx struct {
		Version string `json:"version"`
	}
	if resp.StatusCode != http.StatusOK || json.NewDecoder(resp.Body).Decode(&idx) != nil {
		return ""
	}
	return idx.Version
}

// fleetLoad is clients reading through nginx until stopped, each from its
// own loopback address, checking that every answer is 200 and belongs
// whole to one edition.
type fleetLoad struct {
	stop      atomic.Bool
	requests  atomic.Int64
	failures  atomic.Int64
	served    [2]atomic.Int64 // answers of each edition
	problemMu sync.Mutex
	problems  []string
	wg        sync.WaitGroup
}

// fleetClient is an HTTP client that connects from localIP.
func fleetClient(t *testing.T, localIP string) *http.Client {
	t.Helper()
	dialer := &net.Dialer{Timeout: 5 * time.Second, LocalAddr: &net.TCPAddr{IP: net.ParseIP(localIP)}}
	tr := &http.Transport{Proxy: nil, DialContext: dialer.DialContext, MaxIdleConnsPerHost: 2, DisableCompression: true}
	t.Cleanup(tr.CloseIdleConnections)
	return &http.Client{Transport: tr, Timeout: 10 * time.Second}
}

func startLoad(t *testing.T, addr string, eds [2]publishEdition) *fleetLoad {
	t.Helper()
	l := &fleetLoad{}
	paths := []string{"/api/public/v1/", "/api/public/v1/candidates?limit=500"}
	deadline := time.Now().Add(3 * time.Minute) // far beyond the planned run
	for c := range 3 {
		hc := fleetClient(t, fmt.Sprintf("127.0.0.%d", 10+c))
		l.wg.Add(1)
		go func() {
			defer l.wg.Done()
			for i := 0; !l.stop.Load() && time.Now().Before(deadline); i++ {
				path := paths[(i+c)%len(paths)]
				l.requests.Add(1)
				e, problem := -1, ""
				resp, err := hc.Get("http://" + addr + path)
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
					if l.failures.Add(1) <= 10 {
						l.problemMu.Lock()
						l.problems = append(l.problems, problem)
						l.problemMu.Unlock()
					}
					continue
				}
				l.served[e].Add(1)
			}
		}()
	}
	t.Cleanup(l.end)
	return l
}

// end stops the clients and waits for them.
func (l *fleetLoad) end() {
	l.stop.Store(true)
	l.wg.Wait()
}

// check reports failed or mixed answers.
func (l *fleetLoad) check(t *testing.T, what string) {
	t.Helper()
	if f := l.failures.Load(); f != 0 {
		t.Errorf("%s: %d of %d requests through nginx failed or mixed editions; the first:\n%s", what, f, l.requests.Load(), strings.Join(l.problems, "\n"))
	}
}

// TestFleet runs the fleet under load through a rolling restart and a
// publish.
func TestFleet(t *testing.T) {
	// Both programs are looked for before anything is built.
	testprograms.Need(t, testprograms.Nginx, testprograms.Redis)
	t.Parallel()
	bin := e2eBuild(t)
	eds := publishEditions(t)
	pub := newPublisher(t, bin, eds)
	f := startFleet(t, bin, fleetSettings{data: pub.current, rateLimit: 1_000_000_000})

	t.Run("rolling restart", func(t *testing.T) {
		load := startLoad(t, f.balancer, eds)
		var took []time.Duration
		for i := range f.replicas {
			before := load.requests.Load()
			start := time.Now()
			f.restart(t, i)
			took = append(took, time.Since(start))
			// The clients kept reading while the replica was away.
			prodEventually(t, publishWait, fmt.Sprintf("requests after replica %d's restart", i+1), func() (bool, string) {
				n := load.requests.Load() - before
				return n >= 50, fmt.Sprintf("%d requests", n)
			})
		}
		load.end()
		load.check(t, "rolling restart")
		errLog, _ := os.ReadFile(f.nginxErr)
		retried := strings.Count(string(errLog), "while connecting to upstream") + strings.Count(string(errLog), "while reading response header from upstream")
		t.Logf("rolling restart of 3 replicas under load: %d requests through nginx, %d failed; %d upstream errors retried by nginx; each replica away and back in rotation in %v",
			load.requests.Load(), load.failures.Load(), retried, roundAll(took))
	})

	t.Run("publish", func(t *testing.T) {
		load := startLoad(t, f.balancer, eds)
		var converged []time.Duration
		for swap := 1; swap <= 4; swap++ {
			e := swap % 2
			dir := pub.write(e)
			before := load.served[e].Load()
			start := time.Now()
			pub.swap(dir)
			var last string
			deadline := start.Add(fleetConverge)
			for {
				var lag []string
				for i := range f.replicas {
					if v := f.indexVersion(i); v != eds[e].version {
						lag = append(lag, fmt.Sprintf("replica %d serves %.12s", i+1, v))
					}
				}
				if lag == nil {
					break
				}
				last = strings.Join(lag, ", ")
				if time.Now().After(deadline) {
					t.Fatalf("swap %d: not every replica serves %.12s within %v of the swap: %s", swap, eds[e].version, fleetConverge, last)
				}
				time.Sleep(10 * time.Millisecond)
			}
			converged = append(converged, time.Since(start))
			prodEventually(t, publishWait, fmt.Sprintf("swap %d: clients read edition %d through nginx", swap, e), func() (bool, string) {
				n := load.served[e].Load() - before
				return n >= 20, fmt.Sprintf("%d answers", n)
			})
		}
		load.end()
		load.check(t, "publish")
		slices.Sort(converged)
		t.Logf("4 swaps of the dataset link under load: %d requests through nginx, %d failed or mixed; answers per edition %d and %d; swap to the last of 3 replicas serving it: min %v, max %v (bound %v)",
			load.requests.Load(), load.failures.Load(), load.served[0].Load(), load.served[1].Load(),
			converged[0].Round(time.Millisecond), converged[len(converged)-1].Round(time.Millisecond), fleetConverge)
	})
}

func roundAll(ds []time.Duration) []time.Duration {
	out := make([]time.Duration, len(ds))
	for i, d := range ds {
		out[i] = d.Round(time.Millisecond)
	}
	return out
}

// fleetGet sends one GET from client hc (which bounds it in time) to addr
// and reads the answer.
func fleetGet(t *testing.T, hc *http.Client, addr, path string, hdr map[string]string) reply {
	t.Helper()
	return prodDo(t, hc, http.MethodGet, "http://"+addr+path, hdr)
}

// fleetRateHeaders are the rate-limit fields ballot sets on every answer.
var fleetRateHeaders = []string{"X-RateLimit-Limit", "X-RateLimit-Remaining", "X-RateLimit-Reset", "RateLimit", "RateLimit-Policy"}

// TestFleetClients checks, through nginx, whom the replicas count and log,
// the rate limit, and nginx's cache. Clients connect from loopback
// addresses other than 127.0.0.1, which is nginx's own and trusted: a
// client there could name any address in X-Forwarded-For and be believed,
// as a client on a trusted proxy's host always can.
func TestFleetClients(t *testing.T) {
	// Both programs are looked for before anything is built.
	testprograms.Need(t, testprograms.Nginx, testprograms.Redis)
	t.Parallel()
	const limit = 10
	bin := e2eBuild(t)
	eds := publishEditions(t)
	pub := newPublisher(t, bin, eds)
	const cacheControl = "public, max-age=60, s-maxage=300, stale-while-revalidate=30, stale-if-error=3600"
	f := startFleet(t, bin, fleetSettings{data: pub.current, rateLimit: limit, accessLog: true,
		extra: "cache_s_maxage = 300\ncache_stale_while_revalidate = 30\ncache_stale_if_error = 3600"})
	parties := "/api/public/v1/parties"

	t.Run("addresses", func(t *testing.T) {
		// nginx appends the address it saw to the forged header; the
		// replica reads from the right and stops at the first untrusted
		// hop: 127.0.0.2, not 203.0.113.9.
		r := fleetGet(t, fleetClient(t, "127.0.0.2"), f.balancer, parties, map[string]string{"X-Forwarded-For": "203.0.113.9"})
		if r.status != http.StatusOK || r.header.Get("X-RateLimit-Remaining") != strconv.Itoa(limit-1) {
			t.Errorf("first request of 127.0.0.2: status %d, X-RateLimit-Remaining %q; want 200 and %d", r.status, r.header.Get("X-RateLimit-Remaining"), limit-1)
		}
		line := regexp.MustCompile(`msg=request client_ip=(\S+) method=GET route=parties uri=/api/public/v1/parties status=200 `)
		var seen []string
		prodEventually(t, publishWait, "the access-log line of 127.0.0.2's request", func() (bool, string) {
			seen = nil
			for _, rep := range f.replicas {
				for _, m := range line.FindAllStringSubmatch(rep.proc.log.String(), -1) {
					seen = append(seen, m[1])
				}
			}
			return len(seen) > 0, "no access-log line for /parties"
		})
		if !slices.Equal(seen, []string{"127.0.0.2"}) {
			t.Errorf("the replicas logged /parties for %q, want once for 127.0.0.2 (the address nginx saw, not the forged 203.0.113.9)", seen)
		}
	})

	t.Run("rate limit", func(t *testing.T) {
		// 127.0.0.3 reads until it is refused, one request every 100 ms,
		// as a script polling for results would. Round-robin spreads it
		// over three replicas, which share their counts through Redis
		// every 100 ms: at least the limit passes, and less than twice it
		// (each replica counting alone would let up to three times it
		// through).
		hc := fleetClient(t, "127.0.0.3")
		passed := 0
		var refused reply
		tick := time.NewTicker(100 * time.Millisecond)
		defer tick.Stop()
		for range 3*limit + 1 {
			<-tick.C
			r := fleetGet(t, hc, f.balancer, parties, nil)
			if r.status == http.StatusTooManyRequests {
				refused = r
				break
			}
			if r.status != http.StatusOK {
				t.Fatalf("request %d of 127.0.0.3: status %d: %s", passed+1, r.status, r.body)
			}
			passed++
		}
		if refused.status != http.StatusTooManyRequests || passed < limit || passed >= 2*limit {
			t.Fatalf("127.0.0.3: %d requests passed before a 429 (status %d); want from %d to %d", passed, refused.status, limit, 2*limit-1)
		}
		if ra, err := strconv.Atoi(refused.header.Get("Retry-After")); err != nil || ra < 1 || refused.header.Get("X-RateLimit-Remaining") != "0" {
			t.Errorf("429: Retry-After %q, X-RateLimit-Remaining %q; want at least 1 and 0", refused.header.Get("Retry-After"), refused.header.Get("X-RateLimit-Remaining"))
		}
		// 127.0.0.4 naming 127.0.0.3 in the header is still itself,
		// with a fresh counter on whichever replica answers.
		r := fleetGet(t, fleetClient(t, "127.0.0.4"), f.balancer, parties, map[string]string{"X-Forwarded-For": "127.0.0.3"})
		if r.status != http.StatusOK || r.header.Get("X-RateLimit-Remaining") != strconv.Itoa(limit-1) {
			t.Errorf("127.0.0.4 forging X-Forwarded-For: 127.0.0.3: status %d, X-RateLimit-Remaining %q; want 200 and %d (its own counter)", r.status, r.header.Get("X-RateLimit-Remaining"), limit-1)
		}
		t.Logf("rate limit %d shared on Redis by 3 replicas through nginx: 127.0.0.3, one request every 100 ms, passed %d requests before a 429 (each replica alone: up to %d)", limit, passed, 3*limit)
	})

	t.Run("cache", func(t *testing.T) {
		path := "/api/public/v1/districts"
		hc := fleetClient(t, "127.0.0.5")
		before := f.answeredOn(t, "districts")
		miss := fleetGet(t, hc, f.cache, path, nil)
		checkOK(t, miss)
		if got := miss.header.Get("X-Cache-Status"); got != "MISS" {
			t.Errorf("first request: X-Cache-Status %q, want MISS", got)
		}
		prodEventually(t, publishWait, "the miss answered by a replica", func() (bool, string) {
			n := f.answeredOn(t, "districts") - before
			return n == 1, fmt.Sprintf("%.0f requests on districts", n)
		})
		// Hits, more than a replica would let one client make: nginx
		// answers them and the replicas count none.
		for i := range 3*limit + 1 {
			hit := fleetGet(t, fleetClient(t, fmt.Sprintf("127.0.0.%d", 20+i%3)), f.cache, path, nil)
			if hit.status != http.StatusOK || hit.header.Get("X-Cache-Status") != "HIT" || !bytes.Equal(hit.body, miss.body) || hit.header.Get("ETag") != miss.header.Get("ETag") {
				t.Fatalf("request %d after the miss: status %d, X-Cache-Status %q, ETag %q; want 200, HIT and the miss's body and ETag %q",
					i+2, hit.status, hit.header.Get("X-Cache-Status"), hit.header.Get("ETag"), miss.header.Get("ETag"))
			}
			for _, name := range fleetRateHeaders {
				if v, ok := hit.header[http.CanonicalHeaderKey(name)]; ok {
					t.Errorf("a cached answer carries %s: %q, which describes the client that filled the cache", name, v)
				}
			}
			if got := hit.header.Get("Cache-Control"); got != cacheControl {
				t.Errorf("a cached answer: Cache-Control %q, want %q", got, cacheControl)
			}
		}
		if n := f.answeredOn(t, "districts") - before; n != 1 {
			t.Errorf("the replicas answered %.0f requests on districts, want 1: the miss", n)
		}
		for _, name := range fleetRateHeaders {
			if v, ok := miss.header[http.CanonicalHeaderKey(name)]; ok {
				t.Errorf("the miss through the cache carries %s: %q; the cache's server hides them", name, v)
			}
		}
		// The balancer without the cache passes each client's own.
		direct := fleetGet(t, hc, f.balancer, path, nil)
		checkOK(t, direct)
		// Its Remaining is limit-1 or limit-2, as the replica that
		// answers did or did not answer the miss.
		if rem := prodHeaderInt(direct, "X-RateLimit-Remaining"); direct.header.Get("X-Cache-Status") != "" || direct.header.Get("X-RateLimit-Limit") != strconv.Itoa(limit) ||
			rem < limit-2 || rem > limit-1 || direct.header.Get("Cache-Control") != cacheControl {
			t.Errorf("through the balancer: X-Cache-Status %q, X-RateLimit-Limit %q, X-RateLimit-Remaining %q, Cache-Control %q; want none, %d, %d or %d, and %q",
				direct.header.Get("X-Cache-Status"), direct.header.Get("X-RateLimit-Limit"), direct.header.Get("X-RateLimit-Remaining"), direct.header.Get("Cache-Control"), limit, limit-2, limit-1, cacheControl)
		}
		t.Logf("nginx's cache: 1 miss and %d hits of /districts, 1 request answered by the replicas", 3*limit+1)
	})
}
