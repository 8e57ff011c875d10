package commands_test

// The shared rate limit (rate_limit_store = a Redis URL), end to end: three
// ballot serve replicas and one real redis-server, all on loopback, each
// started and stopped by its PID. README "Shared limits across replicas"
// states what is checked: a client spread round robin over the replicas is
// admitted at least the limit and at most the limit plus what it sends in
// two sync cycles; Redis stopped under load fails no request; Redis back
// on the same port is shared again.

import (
	"fmt"
	"io"
	"math"
	"net"
	"net/http"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"ballot/commands"
	"ballot/internal/redistest"
)

var (
	redisConnected   = regexp.MustCompile(`msg="rate-limit store connected: counts are shared"`)
	redisUnreachable = regexp.MustCompile(`msg="rate-limit store unreachable: counting in this process alone until it answers"`)
	redisBack        = regexp.MustCompile(`msg="rate-limit store reachable again: counts are shared"`)
	redisAtStartup   = regexp.MustCompile(`level=WARN msg="rate-limit store unreachable at start-up: counting in this process alone until it answers" error=`)
	datasetReloaded  = regexp.MustCompile(`msg="dataset reloaded"`)
)

// replica is one ballot serve of the fleet, with its admin address.
type replica struct {
	p     *e2eProc
	admin string
}

// startReplicas starts n replicas sharing the Redis at url, with the
// access log off (the load would fill the log), and waits until each says
// it is connected.
func startReplicas(t *testing.T, n int, url string) []replica {
	t.Helper()
	var rs []replica
	for range n {
		p := prodStart(t, t.TempDir(), nil, "--admin-listen", "127.0.0.1:0", "--access-log=false", "--rate-limit-store", url)
		rs = append(rs, replica{p, prodAdmin(t, p)})
	}
	for _, r := range rs {
		prodWaitLog(t, r.p, redisConnected, "the replica's log says the store is connected")
	}
	return rs
}

// boundClient is an HTTP client whose connections come from localIP, so
// each test client is its own rate-limit client.
func boundClient(t *testing.T, localIP string) *http.Client {
	t.Helper()
	dialer := &net.Dialer{Timeout: 5 * time.Second, LocalAddr: &net.TCPAddr{IP: net.ParseIP(localIP)}}
	tr := &http.Transport{Proxy: nil, DialContext: dialer.DialContext, DisableCompression: true, MaxIdleConnsPerHost: 4}
	t.Cleanup(tr.CloseIdleConnections)
	// The bound on an answer: far beyond what a loaded machine needs, far
	// below a request that waits for a Redis that does not answer.
	return &http.Client{Transport: tr, Timeout: 5 * time.Second}
}

// limited is one answer of the public API, as the rate limit shows it.
type limited struct {
	status            int
	remaining, reset  int64
	retryAfter        int64
	sent, answered    time.Time
	transportFailure  error
	wrongHeaderReason string
}

// getLimited sends one GET and reads the rate-limit headers, noting what
// breaks the contract: an error, a status other than 200 and 429, or a
// header that is missing or wrong.
func getLimited(hc *http.Client, url string, limit int) limited {
	l := limited{sent: time.Now()}
	resp, err := hc.Get(url)
	if err != nil {
		l.transportFailure = err
		return l
	}
	_, err = io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	l.answered = time.Now()
	if err != nil {
		l.transportFailure = err
		return l
	}
	l.status = resp.StatusCode
	h := resp.Header
	num := func(name string) int64 {
		n, err := strconv.ParseInt(h.Get(name), 10, 64)
		if err != nil {
			l.wrongHeaderReason += fmt.Sprintf("%s %q; ", name, h.Get(name))
			return -1
		}
		return n
	}
	if got := h.Get("X-RateLimit-Limit"); got != strconv.Itoa(limit) {
		l.wrongHeaderReason += fmt.Sprintf("X-RateLimit-Limit %q, want %d; ", got, limit)
	}
	l.remaining, l.reset = num("X-RateLimit-Remaining"), num("X-RateLimit-Reset")
	if l.remaining < 0 || l.remaining > int64(limit) {
		l.wrongHeaderReason += fmt.Sprintf("X-RateLimit-Remaining %d out of 0..%d; ", l.remaining, limit)
	}
	// The window began at most a minute before the answer and ends at
	// most a minute after it (rounded up to whole seconds).
	if l.reset < l.sent.Unix() || l.reset > l.answered.Unix()+61 {
		l.wrongHeaderReason += fmt.Sprintf("X-RateLimit-Reset %d not within a minute of %d; ", l.reset, l.sent.Unix())
	}
	switch l.status {
	case http.StatusOK:
		if h.Get("Retry-After") != "" {
			l.wrongHeaderReason += "Retry-After on a 200; "
		}
	case http.StatusTooManyRequests:
		l.retryAfter = num("Retry-After")
		if l.retryAfter < 1 || l.retryAfter > 60 {
			l.wrongHeaderReason += fmt.Sprintf("Retry-After %d, want 1 to 60; ", l.retryAfter)
		}
		if ct := h.Get("Content-Type"); ct != "application/problem+json" {
			l.wrongHeaderReason += fmt.Sprintf("429 Content-Type %q; ", ct)
		}
	default:
		l.wrongHeaderReason += fmt.Sprintf("status %d, want 200 or 429; ", l.status)
	}
	return l
}

// spread sends n GETs of path from one client, round robin over the
// replicas, one every gap (a client that paces itself, as a script does),
// and returns the answers in order.
func spread(t *testing.T, rs []replica, localIP, path string, n int, gap time.Duration) []limited {
	t.Helper()
	hc := boundClient(t, localIP)
	tick := time.NewTicker(gap)
	defer tick.Stop()
	out := make([]limited, 0, n)
	for i := range n {
		<-tick.C
		l := getLimited(hc, rs[i%len(rs)].p.url(path), e2eLimit)
		if l.transportFailure != nil || l.wrongHeaderReason != "" {
			t.Fatalf("request %d to replica %d: %v %s", i, i%len(rs), l.transportFailure, l.wrongHeaderReason)
		}
		out = append(out, l)
	}
	return out
}

// syncCycle is the longest sync cycle the replicas' histograms
// (ballot_rate_limit_store_sync_cycle_seconds) can hold: the upper bound of
// the smallest bucket that holds every sample, on each replica.
func syncCycle(t *testing.T, rs []replica) time.Duration {
	t.Helper()
	hc := prodHTTP(t)
	var longest float64
	for _, r := range rs {
		mf := prodMetrics(t, hc, r.admin)["ballot_rate_limit_store_sync_cycle_seconds"]
		if mf == nil || len(mf.GetMetric()) != 1 {
			t.Fatalf("replica %s: no ballot_rate_limit_store_sync_cycle_seconds histogram", r.admin)
		}
		h := mf.GetMetric()[0].GetHistogram()
		bound := math.Inf(1)
		for _, b := range h.GetBucket() {
			if b.GetCumulativeCount() == h.GetSampleCount() {
				bound = b.GetUpperBound()
				break
			}
		}
		longest = max(longest, bound)
	}
	if math.IsInf(longest, 1) {
		t.Fatal("a sync cycle took longer than the largest bucket")
	}
	return time.Duration(longest * float64(time.Second))
}

// checkShared checks the README's bound on a paced client's answers: at
// least the limit admitted, at most the limit plus the requests sent in any
// two sync cycles; each replica's Remaining never goes up within the
// window; and once every replica has synced, they all show one reset.
func checkShared(t *testing.T, rs []replica, answers []limited) {
	t.Helper()
	admitted := 0
	for _, a := range answers {
		if a.status == http.StatusOK {
			admitted++
		}
	}
	lag := 2 * syncCycle(t, rs)
	slack := 0
	for i := range answers {
		j := i
		for j < len(answers) && answers[j].sent.Sub(answers[i].sent) <= lag {
			j++
		}
		slack = max(slack, j-i)
	}
	t.Logf("%d requests over %d replicas: %d admitted (limit %d, slack %d = requests in two sync cycles of at most %v)",
		len(answers), len(rs), admitted, e2eLimit, slack, lag/2)
	if admitted < e2eLimit || admitted > e2eLimit+slack {
		t.Errorf("%d admitted, want %d to %d", admitted, e2eLimit, e2eLimit+slack)
	}
	for i := range rs {
		last := int64(e2eLimit)
		for j := i; j < len(answers); j += len(rs) {
			if answers[j].remaining > last {
				t.Errorf("replica %d: X-RateLimit-Remaining went up from %d to %d at request %d", i, last, answers[j].remaining, j)
			}
			last = answers[j].remaining
		}
	}
	// The last round: every replica has synced since its first answer to
	// this client, so all show the window the first one fixed.
	tail := answers[len(answers)-len(rs):]
	for i, a := range tail {
		if d := a.reset - tail[0].reset; d < -1 || d > 1 {
			t.Errorf("replica %d shows X-RateLimit-Reset %d, replica 0 %d: want one shared window", i, a.reset, tail[0].reset)
		}
	}
}

// TestE2ESharedRateLimit runs three replicas on one redis-server: a client
// spread over them is limited as one; Redis killed under load fails no
// request; Redis back on its port shares the counts again.
func TestE2ESharedRateLimit(t *testing.T) {
	redis := redistest.Start(t)
	rs := startReplicas(t, 3, redis.URL())
	const path = e2eBase + "/parties"
	// 150 requests a second: over a 0.2 s lag, a slack of about 30.
	const gap = time.Second / 150

	t.Run("a client spread over the replicas is limited as one", func(t *testing.T) {
		answers := spread(t, rs, "127.0.0.41", path, 4*e2eLimit, gap)
		checkShared(t, rs, answers)
		if got := redis.Keys(t); got != 1 {
			t.Errorf("redis holds %d keys, want 1 (one client, one endpoint)", got)
		}
		// A reload keeps the counters: the client is still refused.
		if err := rs[0].p.cmd.Process.Signal(syscall.SIGHUP); err != nil {
			t.Fatal(err)
		}
		prodWaitLog(t, rs[0].p, datasetReloaded, "the reload is logged")
		if l := getLimited(boundClient(t, "127.0.0.41"), rs[0].p.url(path), e2eLimit); l.status != http.StatusTooManyRequests {
			t.Errorf("after SIGHUP: status %d (%v %s), want 429: the counters were lost", l.status, l.transportFailure, l.wrongHeaderReason)
		}
	})
	if t.Failed() {
		return
	}

	t.Run("redis stopped under load fails no request", func(t *testing.T) {
		var (
			stop     = make(chan struct{})
			wg       sync.WaitGroup
			total    atomic.Int64
			statuses sync.Map // status -> *atomic.Int64
			mu       sync.Mutex
			failures []string
			slowest  atomic.Int64
		)
		for c := range 4 {
			wg.Add(1)
			go func() {
				defer wg.Done()
				hc := boundClient(t, fmt.Sprintf("127.0.0.%d", 50+c))
				for i := 0; ; i++ {
					select {
					case <-stop:
						return
					default:
					}
					r := rs[(i+c)%len(rs)]
					l := getLimited(hc, r.p.url([]string{path, e2eBase + "/districts", e2eBase + "/candidates?limit=1"}[i%3]), e2eLimit)
					total.Add(1)
					if l.transportFailure != nil || l.wrongHeaderReason != "" {
						mu.Lock()
						failures = append(failures, fmt.Sprintf("%v %s", l.transportFailure, l.wrongHeaderReason))
						mu.Unlock()
						continue
					}
					n, _ := statuses.LoadOrStore(l.status, new(atomic.Int64))
					n.(*atomic.Int64).Add(1)
					if d := l.answered.Sub(l.sent); int64(d) > slowest.Load() {
						slowest.Store(int64(d))
					}
				}
			}()
		}
		// Under load first, then Redis killed by its PID.
		prodEventually(t, 30*time.Second, "200 requests under load", func() (bool, string) {
			return total.Load() >= 200, fmt.Sprintf("%d requests", total.Load())
		})
		before := total.Load()
		redis.Stop(t, syscall.SIGKILL)
		hc := prodHTTP(t)
		for _, r := range rs {
			prodWaitLog(t, r.p, redisUnreachable, "the replica logs that the store is unreachable")
			prodEventually(t, 10*time.Second, "ballot_rate_limit_store_up 0", func() (bool, string) {
				up, ok := prodSeries(prodMetrics(t, hc, r.admin), "ballot_rate_limit_store_up")
				return ok && up == 0, fmt.Sprintf("up %v (present %v)", up, ok)
			})
		}
		down := total.Load()
		prodEventually(t, 30*time.Second, "300 more requests with Redis down", func() (bool, string) {
			return total.Load() >= down+300, fmt.Sprintf("%d requests since", total.Load()-down)
		})
		close(stop)
		wg.Wait()
		var counts []string
		statuses.Range(func(k, v any) bool {
			counts = append(counts, fmt.Sprintf("%v: %d", k, v.(*atomic.Int64).Load()))
			return true
		})
		slices.Sort(counts)
		t.Logf("%d requests (%d before Redis was killed, %d once every replica knew), answers %v, %d failed, slowest %v",
			total.Load(), before, total.Load()-down, counts, len(failures), time.Duration(slowest.Load()))
		if len(failures) > 0 {
			t.Errorf("%d of %d requests failed; first: %s", len(failures), total.Load(), failures[0])
		}
		for _, r := range rs {
			errs, _ := prodSeries(prodMetrics(t, hc, r.admin), "ballot_rate_limit_store_errors_total")
			if errs < 1 {
				t.Errorf("replica %s: ballot_rate_limit_store_errors_total %v, want at least 1", r.admin, errs)
			}
		}
	})
	if t.Failed() {
		return
	}

	t.Run("redis restarted shares the counts again", func(t *testing.T) {
		redis.Restart(t)
		hc := prodHTTP(t)
		for _, r := range rs {
			prodEventually(t, 20*time.Second, "the replica logs that the store is back", func() (bool, string) {
				return redisBack.MatchString(r.p.stderr.String()), "no such line"
			})
			if up, _ := prodSeries(prodMetrics(t, hc, r.admin), "ballot_rate_limit_store_up"); up != 1 {
				t.Errorf("replica %s: ballot_rate_limit_store_up %v after the line saying it is back, want 1", r.admin, up)
			}
			// One line when it went, one when it came back.
			log := r.p.stderr.String()
			if a, b := len(redisUnreachable.FindAllString(log, -1)), len(redisBack.FindAllString(log, -1)); a != 1 || b != 1 {
				t.Errorf("replica %s logged the outage %d times and the return %d times, want once each", r.admin, a, b)
			}
		}
		answers := spread(t, rs, "127.0.0.42", path, 4*e2eLimit, gap)
		checkShared(t, rs, answers)
	})
	if t.Failed() {
		return
	}

	t.Run("redis hung fails no request", func(t *testing.T) {
		// SIGSTOP: Redis keeps its connections and port but answers
		// nothing, the outage a refused connection does not show. The
		// requests never wait for it (the sync does, within its timeout,
		// off their path): every one is answered while it hangs, and each
		// replica notices the outage and, after SIGCONT, its end.
		pid := redis.PID()
		if err := syscall.Kill(pid, syscall.SIGSTOP); err != nil {
			t.Fatal(err)
		}
		resumed := false
		resume := func() {
			if !resumed {
				resumed = true
				if err := syscall.Kill(pid, syscall.SIGCONT); err != nil {
					t.Error(err)
				}
			}
		}
		t.Cleanup(resume)
		hc := boundClient(t, "127.0.0.43")
		var slowest time.Duration
		n := 0
		prodEventually(t, 60*time.Second, "every replica logging a second outage, while its requests are answered", func() (bool, string) {
			for i := range 30 {
				l := getLimited(hc, rs[(n+i)%len(rs)].p.url(e2eBase+"/districts"), e2eLimit)
				if l.transportFailure != nil || l.wrongHeaderReason != "" || (l.status != http.StatusOK && l.status != http.StatusTooManyRequests) {
					t.Fatalf("with Redis hung: status %d, %v %s", l.status, l.transportFailure, l.wrongHeaderReason)
				}
				slowest = max(slowest, l.answered.Sub(l.sent))
			}
			n += 30
			for _, r := range rs {
				if got := len(redisUnreachable.FindAllString(r.p.stderr.String(), -1)); got < 2 {
					return false, fmt.Sprintf("replica %s has logged %d outages", r.admin, got)
				}
			}
			return true, ""
		})
		resume()
		for _, r := range rs {
			prodEventually(t, 20*time.Second, "the replica logs that the store is back after SIGCONT", func() (bool, string) {
				got := len(redisBack.FindAllString(r.p.stderr.String(), -1))
				return got >= 2, fmt.Sprintf("%d lines saying it is back", got)
			})
		}
		t.Logf("Redis hung (SIGSTOP) then resumed: %d requests answered while it hung, none failed, slowest %v", n, slowest)
	})
}

// TestE2ERateLimitStoreAtStartup: a URL that cannot be read stops serve
// with one line that does not repeat it; a Redis that does not answer does
// not, and serve counts alone.
func TestE2ERateLimitStoreAtStartup(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name, url, want string
	}{
		{"another scheme", "http://127.0.0.1:6379", `ballot: flag --rate-limit-store: rate_limit_store must be "memory" or a redis:// or rediss:// URL such as "redis://127.0.0.1:6379/0": redis: invalid URL scheme: http`},
		{"a broken URL with a password", "redis://:hunter2@[::1", `missing ']' in host`},
		{"a database that is not a number", "redis://127.0.0.1:6379/zero", `invalid database number: "zero"`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			code, _, stderr := runWithin(t, 30*time.Second, "serve", "--listen", "127.0.0.1:0", "--admin-listen", "", "--rate-limit-store", tc.url)
			if code != commands.ExitUsage || strings.Count(stderr, "\n") != 1 || !strings.Contains(stderr, tc.want) {
				t.Errorf("exit %d, stderr %q; want exit %d and one line containing %q", code, stderr, commands.ExitUsage, tc.want)
			}
			if strings.Contains(stderr, "hunter2") {
				t.Errorf("stderr repeats the password: %q", stderr)
			}
		})
	}

	t.Run("redis not answering", func(t *testing.T) {
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		free := ln.Addr().String()
		ln.Close() // nothing listens there now
		p := serveInProcess(t, "--admin-listen", "127.0.0.1:0", "--rate-limit-store", "redis://"+free+"/0")
		admin := prodAdmin(t, p)
		prodWaitLog(t, p, redisAtStartup, "the start-up line saying the store is unreachable")
		hc := boundClient(t, "127.0.0.43")
		for i := range e2eLimit + 1 {
			l := getLimited(hc, p.url(e2eBase+"/districts"), e2eLimit)
			want := http.StatusOK
			if i == e2eLimit {
				want = http.StatusTooManyRequests
			}
			if l.transportFailure != nil || l.wrongHeaderReason != "" || l.status != want || l.remaining != int64(max(0, e2eLimit-1-i)) {
				t.Fatalf("request %d: status %d remaining %d (%v %s), want %d and %d", i+1, l.status, l.remaining, l.transportFailure, l.wrongHeaderReason, want, max(0, e2eLimit-1-i))
			}
		}
		if up, ok := prodSeries(prodMetrics(t, prodHTTP(t), admin), "ballot_rate_limit_store_up"); !ok || up != 0 {
			t.Errorf("ballot_rate_limit_store_up %v (present %v), want 0", up, ok)
		}
		// One line for the outage, however many syncs failed.
		if n := strings.Count(p.stderr.String(), "rate-limit store unreachable"); n != 1 {
			t.Errorf("%d lines say the store is unreachable, want 1", n)
		}
	})
}
