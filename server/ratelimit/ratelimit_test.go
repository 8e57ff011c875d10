package ratelimit_test

import (
	"fmt"
	"math"
	"net/netip"
	"os"
	"runtime"
	"sync"
	"testing"
	"time"

	"ballot/server/ratelimit"
)

// fakeClock is a settable clock; tests advance it instead of sleeping.
type fakeClock struct {
	mu sync.Mutex
	t  time.Time
}

func newClock(t time.Time) *fakeClock { return &fakeClock{t: t} }

func (c *fakeClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.t
}

func (c *fakeClock) Advance(d time.Duration) {
	c.mu.Lock()
	c.t = c.t.Add(d)
	c.mu.Unlock()
}

// t0 is a whole second, so window ends are easy to state.
var t0 = time.Date(2026, 11, 21, 4, 12, 33, 0, time.UTC)

const (
	limit  = 60
	window = time.Minute
)

func key(s string, bucket uint8) ratelimit.Key {
	return ratelimit.KeyFor(netip.MustParseAddr(s), 64, bucket)
}

// step is one action in a scenario: advance the clock, then Take (or Peek)
// on a key, and check what the contract says about the answer.
type step struct {
	advance time.Duration
	addr    string
	bucket  uint8
	peek    bool
	times   int // repeat the call; 0 means once

	// Expectations on the last call; a nil pointer means "don't care".
	allowed    *bool
	remaining  *int
	reset      *time.Time
	retryAfter *int64 // RetryAfterSeconds
}

func ptr[T any](v T) *T { return &v }

func TestContract(t *testing.T) {
	a := "198.51.100.7"
	b := "203.0.113.9"
	cases := []struct {
		name  string
		start time.Time
		steps []step
	}{
		{
			name:  "60 quick requests are allowed",
			start: t0,
			steps: []step{
				{addr: a, allowed: ptr(true), remaining: ptr(59), reset: ptr(t0.Add(window))},
				{addr: a, times: 59, allowed: ptr(true), remaining: ptr(0), reset: ptr(t0.Add(window))},
			},
		},
		{
			name:  "the 61st is denied with Remaining 0 and Retry-After the seconds left",
			start: t0,
			steps: []step{
				{addr: a, times: 60},
				{advance: 10*time.Second + 300*time.Millisecond, addr: a,
					allowed: ptr(false), remaining: ptr(0), reset: ptr(t0.Add(window)),
					retryAfter: ptr(int64(50))}, // 49.7 s left, rounded up
			},
		},
		{
			name:  "Retry-After is at least 1 s just before the window ends",
			start: t0,
			steps: []step{
				{addr: a, times: 60},
				{advance: window - time.Nanosecond, addr: a, allowed: ptr(false), retryAfter: ptr(int64(1))},
			},
		},
		{
			name:  "after the window ends a new window starts",
			start: t0,
			steps: []step{
				{addr: a, times: 61, allowed: ptr(false)},
				{advance: window, addr: a, allowed: ptr(true), remaining: ptr(59),
					reset: ptr(t0.Add(2 * window)), retryAfter: ptr(int64(0))},
			},
		},
		{
			name:  "a denied request does not extend the window",
			start: t0,
			steps: []step{
				{addr: a, times: 60},
				{advance: 30 * time.Second, addr: a, times: 5, allowed: ptr(false), reset: ptr(t0.Add(window))},
				{advance: 29 * time.Second, addr: a, allowed: ptr(false), retryAfter: ptr(int64(1))},
				{advance: time.Second, addr: a, allowed: ptr(true), remaining: ptr(59)},
			},
		},
		{
			name:  "buckets are counted separately",
			start: t0,
			steps: []step{
				{addr: a, bucket: 0, times: 61, allowed: ptr(false)},
				{addr: a, bucket: 1, allowed: ptr(true), remaining: ptr(59)},
				{addr: a, bucket: 0, allowed: ptr(false)},
			},
		},
		{
			name:  "two clients are counted separately",
			start: t0,
			steps: []step{
				{addr: a, times: 61, allowed: ptr(false)},
				{addr: b, allowed: ptr(true), remaining: ptr(59)},
			},
		},
		{
			name:  "two IPv6 addresses in the same /64 share a counter",
			start: t0,
			steps: []step{
				{addr: "2001:db8:1:2::1", times: 30},
				{addr: "2001:db8:1:2:ffff:ffff:ffff:ffff", times: 30, remaining: ptr(0), allowed: ptr(true)},
				{addr: "2001:db8:1:2:abcd::5%eth0", allowed: ptr(false)},
			},
		},
		{
			name:  "IPv6 addresses in different /64s do not",
			start: t0,
			steps: []step{
				{addr: "2001:db8:1:2::1", times: 61, allowed: ptr(false)},
				{addr: "2001:db8:1:3::1", allowed: ptr(true), remaining: ptr(59)},
			},
		},
		{
			name:  "an IPv4-mapped IPv6 address is the IPv4 client",
			start: t0,
			steps: []step{
				{addr: "::ffff:" + a, times: 60},
				{addr: a, allowed: ptr(false)},
			},
		},
		{
			name:  "an IPv4 client and the IPv6 address ::a.b.c.d do not collide",
			start: t0,
			steps: []step{
				{addr: a, times: 61, allowed: ptr(false)},
				{addr: "::" + a, allowed: ptr(true), remaining: ptr(59)},
			},
		},
		{
			name:  "Peek does not count",
			start: t0,
			steps: []step{
				{addr: a, times: 10},
				{advance: 5 * time.Second, addr: a, peek: true, times: 100,
					allowed: ptr(true), remaining: ptr(50), reset: ptr(t0.Add(window)), retryAfter: ptr(int64(0))},
				{addr: a, remaining: ptr(49)},
			},
		},
		{
			name:  "Peek on an unknown key reports a full quota",
			start: t0,
			steps: []step{
				{advance: 7 * time.Second, addr: b, peek: true,
					allowed: ptr(true), remaining: ptr(60), reset: ptr(t0.Add(7*time.Second + window))},
				{addr: b, remaining: ptr(59)},
			},
		},
		{
			name:  "Peek on an exhausted key reports the wait",
			start: t0,
			steps: []step{
				{addr: a, times: 61},
				{advance: 20 * time.Second, addr: a, peek: true,
					allowed: ptr(false), remaining: ptr(0), retryAfter: ptr(int64(40))},
			},
		},
		{
			name:  "Peek after the window ended reports a full quota",
			start: t0,
			steps: []step{
				{addr: a, times: 61},
				{advance: window + 2*time.Second, addr: a, peek: true,
					allowed: ptr(true), remaining: ptr(60), reset: ptr(t0.Add(2*window + 2*time.Second))},
			},
		},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			clk := newClock(tc.start)
			l := ratelimit.New(limit, window, 1000, clk.Now)
			for i, st := range tc.steps {
				clk.Advance(st.advance)
				k := key(st.addr, st.bucket)
				var d ratelimit.Decision
				for range max(1, st.times) {
					if st.peek {
						d = l.Peek(k)
					} else {
						d = l.Take(k)
					}
				}
				checkDecision(t, i, d)
				if st.allowed != nil && d.Allowed != *st.allowed {
					t.Errorf("step %d: Allowed = %v, want %v", i, d.Allowed, *st.allowed)
				}
				if st.remaining != nil && d.Remaining != *st.remaining {
					t.Errorf("step %d: Remaining = %d, want %d", i, d.Remaining, *st.remaining)
				}
				if st.reset != nil && !d.Reset.Equal(*st.reset) {
					t.Errorf("step %d: Reset = %v, want %v", i, d.Reset, *st.reset)
				}
				if st.retryAfter != nil && d.RetryAfterSeconds() != *st.retryAfter {
					t.Errorf("step %d: RetryAfterSeconds = %d, want %d", i, d.RetryAfterSeconds(), *st.retryAfter)
				}
			}
		})
	}
}

// checkDecision checks the invariants every Decision must hold.
func checkDecision(t *testing.T, step int, d ratelimit.Decision) {
	t.Helper()
	if d.Limit != limit {
		t.Errorf("step %d: Limit = %d, want %d", step, d.Limit, limit)
	}
	if d.Remaining < 0 || d.Remaining > d.Limit {
		t.Errorf("step %d: Remaining = %d, want 0..%d", step, d.Remaining, d.Limit)
	}
	if d.Allowed && d.RetryAfter != 0 {
		t.Errorf("step %d: allowed but RetryAfter = %v", step, d.RetryAfter)
	}
	if !d.Allowed && (d.RetryAfter <= 0 || d.RetryAfterSeconds() < 1) {
		t.Errorf("step %d: denied but RetryAfter = %v (%d s)", step, d.RetryAfter, d.RetryAfterSeconds())
	}
}

func TestResetUnixRoundsUp(t *testing.T) {
	cases := []struct {
		name  string
		start time.Time
		want  int64
	}{
		{"window starting on a whole second", t0, t0.Unix() + 60},
		{"window starting at a fractional second", t0.Add(250 * time.Millisecond), t0.Unix() + 61},
		{"window starting 1 ns after a second", t0.Add(time.Nanosecond), t0.Unix() + 61},
		{"window starting 1 ns before a second", t0.Add(-time.Nanosecond), t0.Unix() + 60},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			clk := newClock(tc.start)
			l := ratelimit.New(limit, window, 1000, clk.Now)
			k := key("192.0.2.1", 0)
			if got := l.Take(k).ResetUnix(); got != tc.want {
				t.Errorf("Take: ResetUnix = %d, want %d", got, tc.want)
			}
			clk.Advance(1500 * time.Millisecond)
			if got := l.Take(k).ResetUnix(); got != tc.want {
				t.Errorf("later Take: ResetUnix = %d, want %d", got, tc.want)
			}
			if got := l.Peek(k).ResetUnix(); got != tc.want {
				t.Errorf("Peek: ResetUnix = %d, want %d", got, tc.want)
			}
		})
	}
}

// TestRequestReadBeforeItsWindowOpened: two requests of one client at once
// each read the clock, and the later reading can take the counter first and
// open the window. The earlier one is counted in that window, and is told
// the window's end, but never more than one window to wait: RateLimit's
// t=, Retry-After.
func TestRequestReadBeforeItsWindowOpened(t *testing.T) {
	const skew = 5 * time.Millisecond
	for _, peek := range []bool{false, true} {
		t.Run(fmt.Sprintf("peek=%v", peek), func(t *testing.T) {
			l := ratelimit.New(1, window, 1000, newClock(t0).Now)
			k := key("192.0.2.1", 0)
			if d := l.TakeAt(k, t0.Add(skew)); !d.Allowed || d.ResetIn != window {
				t.Fatalf("first request: allowed %v, ResetIn %v, want true, %v", d.Allowed, d.ResetIn, window)
			}
			take := l.TakeAt
			if peek {
				take = l.PeekAt
			}
			d := take(k, t0)
			if d.Allowed {
				t.Errorf("allowed past the limit of 1")
			}
			if want := t0.Add(skew + window); !d.Reset.Equal(want) {
				t.Errorf("Reset %v, want the window's end %v", d.Reset, want)
			}
			if d.ResetIn != window || d.RetryAfter != window || d.RetryAfterSeconds() != 60 {
				t.Errorf("ResetIn %v, RetryAfter %v (%d s), want %v, %v (60 s)", d.ResetIn, d.RetryAfter, d.RetryAfterSeconds(), window, window)
			}
		})
	}
}

func TestRetryAfterSeconds(t *testing.T) {
	cases := []struct {
		name string
		d    ratelimit.Decision
		want int64
	}{
		{"allowed", ratelimit.Decision{Allowed: true}, 0},
		{"denied, whole seconds", ratelimit.Decision{RetryAfter: 42 * time.Second}, 42},
		{"denied, fraction rounds up", ratelimit.Decision{RetryAfter: 41*time.Second + time.Millisecond}, 42},
		{"denied, under a second is 1", ratelimit.Decision{RetryAfter: time.Nanosecond}, 1},
		{"denied, zero is still 1", ratelimit.Decision{}, 1},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			if got := tc.d.RetryAfterSeconds(); got != tc.want {
				t.Errorf("RetryAfterSeconds = %d, want %d", got, tc.want)
			}
		})
	}
}

func TestKeyFor(t *testing.T) {
	cases := []struct {
		name   string
		a, b   string
		bits   int
		bucket [2]uint8
		same   bool
	}{
		{"same /64 shares a key", "2001:db8::1", "2001:db8::ffff:1", 64, [2]uint8{}, true},
		{"different /64 does not", "2001:db8:0:1::1", "2001:db8:0:2::1", 64, [2]uint8{}, false},
		{"/48 groups wider", "2001:db8:0:1::1", "2001:db8:0:2::1", 48, [2]uint8{}, true},
		{"prefix 0 means whole address", "2001:db8::1", "2001:db8::2", 0, [2]uint8{}, false},
		{"prefix 200 means whole address", "2001:db8::1", "2001:db8::2", 200, [2]uint8{}, false},
		{"prefix 128 keeps the address", "2001:db8::1", "2001:db8::1", 128, [2]uint8{}, true},
		{"zone is ignored", "fe80::1%eth0", "fe80::1%eth1", 128, [2]uint8{}, true},
		{"IPv4-mapped equals IPv4", "::ffff:192.0.2.1", "192.0.2.1", 64, [2]uint8{}, true},
		{"IPv4 is not masked", "192.0.2.1", "192.0.2.2", 1, [2]uint8{}, false},
		{"IPv4 vs IPv4-compatible IPv6", "192.0.2.1", "::192.0.2.1", 128, [2]uint8{}, false},
		{"IPv4 vs ::/64", "0.0.0.0", "::", 64, [2]uint8{}, false},
		{"buckets differ", "192.0.2.1", "192.0.2.1", 64, [2]uint8{1, 2}, false},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			ka := ratelimit.KeyFor(netip.MustParseAddr(tc.a), tc.bits, tc.bucket[0])
			kb := ratelimit.KeyFor(netip.MustParseAddr(tc.b), tc.bits, tc.bucket[1])
			if (ka == kb) != tc.same {
				t.Errorf("KeyFor(%s) == KeyFor(%s) is %v, want %v", tc.a, tc.b, ka == kb, tc.same)
			}
		})
	}
}

// addrN returns a distinct IPv4 address for each i < 2^32.
func addrN(i int) netip.Addr {
	return netip.AddrFrom4([4]byte{byte(i >> 24), byte(i >> 16), byte(i >> 8), byte(i)})
}

func TestExpiredKeysAreSwept(t *testing.T) {
	clk := newClock(t0)
	l := ratelimit.New(limit, window, 100_000, clk.Now)
	const n = 10000
	for i := range n {
		l.Take(ratelimit.KeyFor(addrN(i), 64, 0))
	}
	if got := l.Len(); got != n {
		t.Fatalf("Len after %d clients = %d, want %d", n, got, n)
	}
	clk.Advance(window)
	// Keys are swept by traffic on their own shard, so spread a little
	// traffic over many keys rather than relying on any one shard.
	const fresh = 5000
	for i := range fresh {
		l.Take(ratelimit.KeyFor(addrN(n+i), 64, 0))
	}
	if got := l.Len(); got != fresh {
		t.Errorf("Len after the window passed and %d new clients came = %d, want %d", fresh, got, fresh)
	}
	if got := l.Evictions(); got != 0 {
		t.Errorf("Evictions = %d, want 0 (expiry is not eviction)", got)
	}
}

func TestCapEvictsOldestFirst(t *testing.T) {
	cases := []struct {
		name     string
		capacity int
		// newest is how many of the last-inserted keys must all survive;
		// oldest is how many of the first-inserted keys must all be gone.
		newest, oldest int
	}{
		// A small cap fits in one shard, so eviction order is exact.
		{"small cap keeps exactly the newest", 10, 10, 90},
		// A large cap is split over shards, each evicting its own oldest:
		// the newest keys survive and the old ones are gone, with some
		// slack at the boundary.
		{"sharded cap keeps the newest", 10000, 1000, 50000},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			clk := newClock(t0)
			l := ratelimit.New(limit, window, tc.capacity, clk.Now)
			n := 10 * tc.capacity
			for i := range n {
				clk.Advance(time.Microsecond) // distinct, ordered window starts
				l.Take(ratelimit.KeyFor(addrN(i), 64, 0))
			}
			if got := l.Len(); got > tc.capacity {
				t.Errorf("Len = %d, want <= %d", got, tc.capacity)
			}
			if got := l.Evictions(); got == 0 {
				t.Errorf("Evictions = 0, want > 0")
			}
			if got, want := l.Evictions(), uint64(n-l.Len()); got != want {
				t.Errorf("Evictions = %d, want inserted-tracked = %d", got, want)
			}
			tracked := func(i int) bool {
				// A tracked key has used one request; an evicted one
				// reports a full quota.
				return l.Peek(ratelimit.KeyFor(addrN(i), 64, 0)).Remaining == limit-1
			}
			for i := n - tc.newest; i < n; i++ {
				if !tracked(i) {
					t.Fatalf("key %d of the newest %d was evicted", i, tc.newest)
				}
			}
			for i := range tc.oldest {
				if tracked(i) {
					t.Fatalf("key %d of the oldest %d survived", i, tc.oldest)
				}
			}
		})
	}
}

func TestShardedCapIsExact(t *testing.T) {
	// The cap is on the whole Limiter, not split evenly over its shards:
	// no counter goes before the cap is reached (hashing fills shards
	// unevenly), and from then on every new key evicts exactly one, also
	// when keys arrive from many goroutines at once.
	const capacity = 100_000
	clk := newClock(t0)
	l := ratelimit.New(limit, window, capacity, clk.Now)
	for i := range capacity {
		l.Take(ratelimit.KeyFor(addrN(i), 64, 0))
	}
	if got := l.Evictions(); got != 0 {
		t.Fatalf("Evictions at exactly the cap = %d, want 0", got)
	}
	if got := l.Len(); got != capacity {
		t.Fatalf("Len at exactly the cap = %d, want %d", got, capacity)
	}
	const goroutines, each = 8, 5000
	var wg sync.WaitGroup
	for g := range goroutines {
		wg.Go(func() {
			for i := range each {
				l.Take(ratelimit.KeyFor(addrN(capacity+g*each+i), 64, 0))
			}
		})
	}
	wg.Wait()
	if got := l.Len(); got != capacity {
		t.Errorf("Len after %d more keys = %d, want %d", goroutines*each, got, capacity)
	}
	if got, want := l.Evictions(), uint64(goroutines*each); got != want {
		t.Errorf("Evictions = %d, want %d", got, want)
	}
	// Every key just counted is still tracked.
	for g := range goroutines {
		i := capacity + g*each + each - 1
		if got := l.Peek(ratelimit.KeyFor(addrN(i), 64, 0)).Remaining; got != limit-1 {
			t.Errorf("newest key of goroutine %d: Remaining %d, want %d", g, got, limit-1)
		}
	}
}

func TestConcurrentTakeCountsExactly(t *testing.T) {
	const goroutines, each = 8, 1000
	clk := newClock(t0)
	l := ratelimit.New(1_000_000, window, 1000, clk.Now)
	shared := key("192.0.2.1", 0)
	var wg sync.WaitGroup
	for g := range goroutines {
		wg.Go(func() {
			own := ratelimit.KeyFor(addrN(1000+g), 64, 0)
			for range each {
				l.Take(shared)
				l.Take(own)
				l.Peek(shared)
			}
		})
	}
	wg.Wait()
	if got, want := l.Peek(shared).Remaining, 1_000_000-goroutines*each; got != want {
		t.Errorf("shared key Remaining = %d, want %d", got, want)
	}
	for g := range goroutines {
		if got, want := l.Peek(ratelimit.KeyFor(addrN(1000+g), 64, 0)).Remaining, 1_000_000-each; got != want {
			t.Errorf("goroutine %d key Remaining = %d, want %d", g, got, want)
		}
	}
}

func TestConcurrentChurnStaysBounded(t *testing.T) {
	// Many goroutines, many keys, a moving clock and a small cap: the
	// race detector checks the locking, and the cap must hold throughout.
	const capacity = 500
	clk := newClock(t0)
	l := ratelimit.New(5, time.Second, capacity, clk.Now)
	var wg sync.WaitGroup
	for g := range 8 {
		wg.Go(func() {
			for i := range 5000 {
				if g == 0 && i%100 == 0 {
					clk.Advance(100 * time.Millisecond)
				}
				k := ratelimit.KeyFor(addrN(g*100000+i%2000), 64, uint8(i%3))
				d := l.Take(k)
				if d.Remaining < 0 || (!d.Allowed && d.RetryAfterSeconds() < 1) {
					t.Errorf("bad decision %+v", d)
					return
				}
			}
		})
	}
	wg.Wait()
	if got := l.Len(); got > capacity {
		t.Errorf("Len = %d, want <= %d", got, capacity)
	}
}

func TestNewPanicsOnBadConfig(t *testing.T) {
	cases := []struct {
		name       string
		limit      int
		window     time.Duration
		maxClients int
	}{
		{"negative limit", -1, time.Minute, 1000},
		{"zero window", 60, 0, 1000},
		{"negative window", 60, -time.Second, 1000},
		{"no cap", 60, time.Minute, 0},
		{"a negative cap", 60, time.Minute, -1},
		{"a cap above MaxClients", 60, time.Minute, ratelimit.MaxClients + 1},
		{"the largest int as a cap", 60, time.Minute, math.MaxInt},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			defer func() {
				if recover() == nil {
					t.Errorf("New(%d, %v, %d) did not panic", tc.limit, tc.window, tc.maxClients)
				}
			}()
			ratelimit.New(tc.limit, tc.window, tc.maxClients, nil)
		})
	}
}

func TestZeroLimitDeniesEverything(t *testing.T) {
	clk := newClock(t0)
	l := ratelimit.New(0, window, 1000, clk.Now)
	k := key("192.0.2.1", 0)
	for _, d := range []ratelimit.Decision{l.Peek(k), l.Take(k)} {
		if d.Allowed || d.Remaining != 0 || d.RetryAfterSeconds() != 60 {
			t.Errorf("decision %+v, want denied with Remaining 0 and Retry-After 60", d)
		}
	}
}

func BenchmarkTakeOneKey(b *testing.B) {
	l := ratelimit.New(limit, window, 100_000, nil)
	k := key("192.0.2.1", 0)
	b.ReportAllocs()
	for b.Loop() {
		l.Take(k)
	}
}

func BenchmarkTakeManyKeys(b *testing.B) {
	const n = 100_000
	keys := make([]ratelimit.Key, n)
	for i := range keys {
		keys[i] = ratelimit.KeyFor(addrN(i), 64, uint8(i%4))
	}
	l := ratelimit.New(limit, window, 2*n, nil)
	var mu sync.Mutex
	next := 0
	b.ReportAllocs()
	b.ResetTimer()
	b.RunParallel(func(pb *testing.PB) {
		// Each goroutine walks the keys from its own offset with a stride
		// coprime to n, so goroutines do not move in lockstep.
		mu.Lock()
		i := next * 7919
		next++
		mu.Unlock()
		for pb.Next() {
			l.Take(keys[i%n])
			i += 31
		}
	})
}

func BenchmarkTakeNewClients(b *testing.B) {
	// Every request is a new client at the cap, so each one evicts: the
	// worst case for memory churn.
	l := ratelimit.New(limit, window, 100_000, nil)
	b.ReportAllocs()
	i := 0
	for b.Loop() {
		l.Take(ratelimit.KeyFor(addrN(i), 64, 0))
		i++
	}
}

func BenchmarkPeek(b *testing.B) {
	l := ratelimit.New(limit, window, 100_000, nil)
	k := key("192.0.2.1", 0)
	l.Take(k)
	b.ReportAllocs()
	for b.Loop() {
		l.Peek(k)
	}
}

// BenchmarkMemoryPerClient reports the memory per tracked key with a cap
// equal to the number of clients: the Go heap the Limiter holds, as
// Reservation predicts, and the resident memory the process gained (Linux
// only), which is lower while some pages of the arrays are still untouched.
// These are the figures to size maxClients by.
func BenchmarkMemoryPerClient(b *testing.B) {
	for _, n := range []int{100_000, 1_000_000} {
		b.Run(fmt.Sprint(n), func(b *testing.B) {
			var heap, rss float64
			for b.Loop() {
				heap, rss = memoryPerClient(n)
			}
			b.ReportMetric(heap, "heap-B/client")
			b.ReportMetric(float64(ratelimit.Reservation(n))/float64(n), "reserved-B/client")
			if rss > 0 {
				b.ReportMetric(rss, "RSS-B/client")
			}
		})
	}
}

func memoryPerClient(n int) (heap, rss float64) {
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	rss0 := residentBytes()
	l := ratelimit.New(limit, window, n, time.Now)
	for i := range n {
		l.Take(ratelimit.KeyFor(addrN(i), 64, 0))
	}
	runtime.GC()
	runtime.ReadMemStats(&after)
	rss1 := residentBytes()
	if l.Len() != n || l.Evictions() != 0 {
		panic(fmt.Sprintf("Len = %d, evictions %d, want %d and 0", l.Len(), l.Evictions(), n))
	}
	runtime.KeepAlive(l)
	heap = float64(after.HeapAlloc-before.HeapAlloc) / float64(n)
	if rss0 >= 0 {
		rss = float64(rss1-rss0) / float64(n)
	}
	return heap, rss
}

// residentBytes reads the process's resident memory from /proc/self/statm,
// or returns -1 where there is none.
func residentBytes() int64 {
	b, err := os.ReadFile("/proc/self/statm")
	if err != nil {
		return -1
	}
	var size, resident int64
	if _, err := fmt.Sscan(string(b), &size, &resident); err != nil {
		return -1
	}
	return resident * int64(os.Getpagesize())
}

func TestReservation(t *testing.T) {
	// What the counters take on the heap: 48 bytes per ring item (the
	// item and two index slots), rings sized for each shard's share of
	// the cap with slack, rounded up to a power of two.
	cases := []struct {
		maxClients int
		want       int64
	}{
		{1, 48},                    // one shard of one item
		{64, 64 * 48},              // one shard of 64
		{100, 128 * 48},            // one shard, rounded up
		{1_000_000, 64 << 14 * 48}, // 64 shards of 16,384: 48 MiB
		{100_000, 64 << 11 * 48},   // 64 shards of 2,048: 6 MiB
	}
	for _, tc := range cases {
		if got := ratelimit.Reservation(tc.maxClients); got != tc.want {
			t.Errorf("Reservation(%d) = %d, want %d", tc.maxClients, got, tc.want)
		}
	}
}
