package ratelimit_test

import (
	"bytes"
	"context"
	"errors"
	"log/slog"
	"strings"
	"sync"
	"testing"
	"time"

	"ballot/server/ratelimit"
)

// fakeStore is a Store that behaves as the Redis script does, on the fake
// clock: a counter per key that expires Left after its creation. down makes
// every call fail; slow makes every call wait for its context to end.
type fakeStore struct {
	mu       sync.Mutex
	clock    *fakeClock
	counters map[ratelimit.Key]*fakeCounter
	down     bool
	slow     bool
	received int // keys received by Add
}

type fakeCounter struct {
	n   int64
	end time.Time
}

func newFakeStore(c *fakeClock) *fakeStore {
	return &fakeStore{clock: c, counters: map[ratelimit.Key]*fakeCounter{}}
}

var errDown = errors.New("connection refused")

func (f *fakeStore) fail(ctx context.Context) error {
	f.mu.Lock()
	down, slow := f.down, f.slow
	f.mu.Unlock()
	if slow {
		<-ctx.Done()
		return ctx.Err()
	}
	if down {
		return errDown
	}
	return nil
}

func (f *fakeStore) Ping(ctx context.Context) error { return f.fail(ctx) }

func (f *fakeStore) Add(ctx context.Context, deltas []ratelimit.Delta) ([]ratelimit.Total, error) {
	if err := f.fail(ctx); err != nil {
		return nil, err
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	now := f.clock.Now()
	out := make([]ratelimit.Total, len(deltas))
	for i, d := range deltas {
		f.received++
		c := f.counters[d.Key]
		if c == nil || !now.Before(c.end) {
			c = &fakeCounter{end: now.Add(d.Left)}
			f.counters[d.Key] = c
		}
		c.n += d.N
		out[i] = ratelimit.Total{N: c.n, Left: c.end.Sub(now)}
	}
	return out, nil
}

func (f *fakeStore) total(k ratelimit.Key) int64 {
	f.mu.Lock()
	defer f.mu.Unlock()
	if c := f.counters[k]; c != nil && f.clock.Now().Before(c.end) {
		return c.n
	}
	return 0
}

func (f *fakeStore) set(down, slow bool) {
	f.mu.Lock()
	f.down, f.slow = down, slow
	f.mu.Unlock()
}

// replica is one server's Limiter and its Sync.
type replica struct {
	l *ratelimit.Limiter
	s *ratelimit.Sync
}

func newReplicas(t *testing.T, n int, c *fakeClock, store ratelimit.Store, log *bytes.Buffer) []replica {
	t.Helper()
	var out []replica
	for range n {
		l := ratelimit.New(limit, window, 1000, c.Now)
		opts := ratelimit.SyncOptions{Timeout: 50 * time.Millisecond}
		if log != nil {
			opts.Logger = slog.New(slog.NewTextHandler(log, nil))
		}
		s := ratelimit.NewSync(l, store, opts)
		if err := s.Start(context.Background()); err != nil {
			t.Fatalf("Start: %v", err)
		}
		out = append(out, replica{l, s})
	}
	return out
}

func take(t *testing.T, r replica, k ratelimit.Key, n int) ratelimit.Decision {
	t.Helper()
	var d ratelimit.Decision
	for range n {
		d = r.l.Take(k)
	}
	return d
}

func syncNow(t *testing.T, r replica) {
	t.Helper()
	if err := r.s.Sync(context.Background()); err != nil {
		t.Fatalf("Sync: %v", err)
	}
}

// TestSyncFoldsOtherReplicasCounts: a replica's view is its own requests
// plus the others' as of its last sync.
func TestSyncFoldsOtherReplicasCounts(t *testing.T) {
	c := newClock(t0)
	store := newFakeStore(c)
	rs := newReplicas(t, 3, c, store, nil)
	k := key("192.0.2.1", 0)

	for _, r := range rs {
		if d := take(t, r, k, 10); d.Remaining != limit-10 {
			t.Fatalf("10 requests on one replica: Remaining %d, want %d", d.Remaining, limit-10)
		}
	}
	for _, r := range rs {
		c.Advance(time.Millisecond)
		syncNow(t, r)
	}
	if got := store.total(k); got != 30 {
		t.Fatalf("store total %d, want 30", got)
	}
	// The last to sync knows all 30; the first knew only its own 10.
	if d := rs[2].l.Peek(k); d.Remaining != limit-30 {
		t.Errorf("third replica after its sync: Remaining %d, want %d", d.Remaining, limit-30)
	}
	if d := rs[0].l.Peek(k); d.Remaining != limit-10 {
		t.Errorf("first replica before learning the others: Remaining %d, want %d", d.Remaining, limit-10)
	}
	if d := take(t, rs[0], k, 1); d.Remaining != limit-11 {
		t.Errorf("first replica, one more request: Remaining %d, want %d", d.Remaining, limit-11)
	}
	syncNow(t, rs[0])
	if d := rs[0].l.Peek(k); d.Remaining != limit-31 {
		t.Errorf("first replica after its next sync: Remaining %d, want %d", d.Remaining, limit-31)
	}
	// A request on another key is another counter in the store too.
	k2 := key("192.0.2.1", 1)
	take(t, rs[1], k2, 1)
	syncNow(t, rs[1])
	if store.total(k2) != 1 || store.total(k) != 31 {
		t.Errorf("store totals %d and %d, want 31 and 1", store.total(k), store.total(k2))
	}
}

// TestRoundRobinStaysWithinTheSlack: requests spread over three replicas,
// each syncing every sync interval, are admitted at most limit plus what
// the client sent in two sync intervals.
func TestRoundRobinStaysWithinTheSlack(t *testing.T) {
	for _, perInterval := range []int{1, 3, 10, 30} {
		c := newClock(t0)
		store := newFakeStore(c)
		rs := newReplicas(t, 3, c, store, nil)
		k := key("192.0.2.2", 0)
		admitted, sent := 0, 0
		for interval := 0; sent < 5*limit; interval++ {
			for range perInterval {
				if rs[sent%3].l.Take(k).Allowed {
					admitted++
				}
				sent++
			}
			c.Advance(ratelimit.DefaultSyncInterval)
			for _, r := range rs {
				syncNow(t, r)
			}
		}
		slack := 2 * perInterval
		if admitted < limit || admitted > limit+slack {
			t.Errorf("%d requests per sync interval: %d admitted, want %d to %d", perInterval, admitted, limit, limit+slack)
		}
	}
}

// TestFirstReplicaFixesTheWindow: a replica whose client arrived later
// adopts the window of the counter another replica created.
func TestFirstReplicaFixesTheWindow(t *testing.T) {
	c := newClock(t0)
	store := newFakeStore(c)
	rs := newReplicas(t, 2, c, store, nil)
	k := key("2001:db8::1", 2)

	take(t, rs[0], k, 1) // the window is t0 .. t0+60s
	c.Advance(100 * time.Millisecond)
	syncNow(t, rs[0])
	c.Advance(30 * time.Second)
	if d := take(t, rs[1], k, 1); !d.Reset.Equal(t0.Add(30*time.Second + 100*time.Millisecond + window)) {
		t.Fatalf("second replica before its sync: Reset %v, want its own window", d.Reset)
	}
	c.Advance(100 * time.Millisecond)
	syncNow(t, rs[1])
	d := rs[1].l.Peek(k)
	if !d.Reset.Equal(t0.Add(window)) || d.Remaining != limit-2 {
		t.Errorf("second replica after its sync: Reset %v Remaining %d, want %v and %d", d.Reset, d.Remaining, t0.Add(window), limit-2)
	}
	// When the shared window ends, both start afresh.
	c.Advance(30 * time.Second)
	for i, r := range rs {
		if d := take(t, r, k, 1); d.Remaining != limit-1 {
			t.Errorf("replica %d after the window: Remaining %d, want %d", i, d.Remaining, limit-1)
		}
	}
}

// TestStoreDownFailsOpen: while the store is down each replica counts
// alone, one line is logged per outage, errors are counted, and the counts
// kept meanwhile reach the store when it is back.
func TestStoreDownFailsOpen(t *testing.T) {
	c := newClock(t0)
	store := newFakeStore(c)
	var log bytes.Buffer
	rs := newReplicas(t, 1, c, store, &log)
	r := rs[0]
	k := key("192.0.2.3", 0)

	take(t, r, k, 5)
	syncNow(t, r)
	store.set(true, false)
	for i := range 3 {
		d := take(t, r, k, 5)
		if !d.Allowed || d.Remaining != limit-10-5*i {
			t.Fatalf("outage, request batch %d: %+v, want allowed with Remaining %d", i, d, limit-10-5*i)
		}
		c.Advance(ratelimit.DefaultSyncInterval)
		if err := r.s.Sync(context.Background()); !errors.Is(err, errDown) {
			t.Fatalf("Sync with the store down: %v, want its error", err)
		}
	}
	if r.s.Up() || r.s.Errors() != 3 {
		t.Errorf("during the outage: Up %v Errors %d, want false and 3", r.s.Up(), r.s.Errors())
	}
	store.set(false, false)
	syncNow(t, r)
	if !r.s.Up() {
		t.Error("after the store answered: Up false")
	}
	if got := store.total(k); got != 20 {
		t.Errorf("store total after the outage %d, want 20 (5 before, 15 during)", got)
	}
	// A second outage is logged again.
	store.set(true, false)
	take(t, r, k, 1)
	_ = r.s.Sync(context.Background())
	store.set(false, false)
	syncNow(t, r)
	if got := store.total(k); got != 21 {
		t.Errorf("store total after the second outage %d, want 21", got)
	}
	text := log.String()
	for _, tc := range []struct {
		line string
		want int
	}{
		{"rate-limit store connected", 1},
		{"rate-limit store unreachable: counting in this process alone", 2},
		{"rate-limit store reachable again", 2},
	} {
		if got := strings.Count(text, tc.line); got != tc.want {
			t.Errorf("%q logged %d times, want %d; log:\n%s", tc.line, got, tc.want, text)
		}
	}
}

// TestSlowStoreTimesOut: a store that does not answer costs a sync its
// timeout, not more, and keeps the counts for later.
func TestSlowStoreTimesOut(t *testing.T) {
	c := newClock(t0)
	store := newFakeStore(c)
	rs := newReplicas(t, 1, c, store, nil)
	r := rs[0]
	k := key("192.0.2.4", 0)
	take(t, r, k, 7)
	store.set(false, true)
	if err := r.s.Sync(context.Background()); !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("Sync with a store that does not answer: %v, want a deadline error", err)
	}
	if d := take(t, r, k, 1); d.Remaining != limit-8 {
		t.Errorf("after the timeout: Remaining %d, want %d", d.Remaining, limit-8)
	}
	store.set(false, false)
	syncNow(t, r)
	if got := store.total(k); got != 8 {
		t.Errorf("store total %d, want 8", got)
	}
}

// TestStartWithTheStoreDown: Start reports the error and the replica serves
// from its own counters; the first sync that reaches the store shares them.
func TestStartWithTheStoreDown(t *testing.T) {
	c := newClock(t0)
	store := newFakeStore(c)
	store.set(true, false)
	var log bytes.Buffer
	l := ratelimit.New(limit, window, 1000, c.Now)
	s := ratelimit.NewSync(l, store, ratelimit.SyncOptions{Logger: slog.New(slog.NewTextHandler(&log, nil))})
	if err := s.Start(context.Background()); !errors.Is(err, errDown) {
		t.Fatalf("Start: %v, want the store's error", err)
	}
	k := key("192.0.2.5", 0)
	if d := l.Take(k); !d.Allowed {
		t.Fatal("a request with the store down at start-up was refused")
	}
	if err := s.Sync(context.Background()); err == nil {
		t.Fatal("Sync with the store down: no error")
	}
	store.set(false, false)
	if err := s.Sync(context.Background()); err != nil {
		t.Fatal(err)
	}
	if store.total(k) != 1 {
		t.Errorf("store total %d, want 1", store.total(k))
	}
	if n := strings.Count(log.String(), "unreachable"); n != 1 {
		t.Errorf("%d lines say unreachable, want 1:\n%s", n, log.String())
	}
}

// TestPendingCountsStayBounded: with the store down and far more clients
// than the cap, what waits for the store is at most one count per tracked
// key, and ended windows are not sent.
func TestPendingCountsStayBounded(t *testing.T) {
	c := newClock(t0)
	store := newFakeStore(c)
	const capacity = 100
	l := ratelimit.New(limit, window, capacity, c.Now)
	s := ratelimit.NewSync(l, store, ratelimit.SyncOptions{})
	store.set(true, false)
	for i := range 10_000 {
		l.Take(ratelimit.KeyFor(addrN(i), 64, 0))
	}
	_ = s.Sync(context.Background())
	store.set(false, false)
	if err := s.Sync(context.Background()); err != nil {
		t.Fatal(err)
	}
	if store.received > capacity {
		t.Errorf("%d keys sent after the outage, want at most the cap, %d", store.received, capacity)
	}
	// Windows that ended before the sync are not sent.
	store.received = 0
	l.Take(key("192.0.2.6", 0))
	c.Advance(window)
	if err := s.Sync(context.Background()); err != nil {
		t.Fatal(err)
	}
	if store.received != 0 {
		t.Errorf("%d keys of ended windows sent, want 0", store.received)
	}
}

// TestSharedTakeStillMatchesTheContract: sharing with no other replica
// changes no answer.
func TestSharedTakeStillMatchesTheContract(t *testing.T) {
	c := newClock(t0)
	store := newFakeStore(c)
	rs := newReplicas(t, 1, c, store, nil)
	k := key("192.0.2.7", 3)
	for i := 1; i <= limit+5; i++ {
		d := rs[0].l.Take(k)
		if d.Allowed != (i <= limit) || d.Remaining != max(0, limit-i) || !d.Reset.Equal(t0.Add(window)) {
			t.Fatalf("request %d: %+v", i, d)
		}
		if i%7 == 0 {
			syncNow(t, rs[0])
		}
	}
}

// TestConcurrentTakeAndSyncCountEveryRequestOnce: requests taken while
// syncs run (with the store failing now and then) all reach the store,
// each once.
func TestConcurrentTakeAndSyncCountEveryRequestOnce(t *testing.T) {
	c := newClock(t0)
	store := newFakeStore(c)
	rs := newReplicas(t, 2, c, store, nil)
	keys := []ratelimit.Key{key("192.0.2.20", 0), key("192.0.2.21", 0), key("192.0.2.20", 1)}
	const perWorker = 5000
	var wg sync.WaitGroup
	for w := range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range perWorker {
				rs[w%2].l.Take(keys[i%len(keys)])
			}
		}()
	}
	done := make(chan struct{})
	go func() {
		wg.Wait()
		close(done)
	}()
	for i := 0; ; i++ {
		store.set(i%5 == 4, false)
		for _, r := range rs {
			_ = r.s.Sync(context.Background())
		}
		select {
		case <-done:
		default:
			continue
		}
		break
	}
	store.set(false, false)
	for _, r := range rs {
		syncNow(t, r)
	}
	var total int64
	for _, k := range keys {
		total += store.total(k)
	}
	if total != 4*perWorker {
		t.Errorf("store totals add up to %d, want every request once: %d", total, 4*perWorker)
	}
}

// TestSyncStoppedIsNoOutage: a sync cut short because the server is
// stopping logs and counts nothing, and keeps the counts.
func TestSyncStoppedIsNoOutage(t *testing.T) {
	c := newClock(t0)
	store := newFakeStore(c)
	var log bytes.Buffer
	rs := newReplicas(t, 1, c, store, &log)
	k := key("192.0.2.30", 0)
	take(t, rs[0], k, 3)
	store.set(false, true)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if err := rs[0].s.Sync(ctx); err == nil {
		t.Fatal("Sync with its context ended: no error")
	}
	if !rs[0].s.Up() || rs[0].s.Errors() != 0 || strings.Contains(log.String(), "unreachable") {
		t.Errorf("a stopped sync: Up %v, Errors %d, log %q; want up, 0 and no outage line", rs[0].s.Up(), rs[0].s.Errors(), log.String())
	}
	store.set(false, false)
	syncNow(t, rs[0])
	if got := store.total(k); got != 3 {
		t.Errorf("store total %d, want 3", got)
	}
}
