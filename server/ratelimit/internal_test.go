package ratelimit

import (
	"math"
	"math/rand/v2"
	"net/netip"
	"testing"
	"time"
)

// model is the contract written the obvious way: one list of windows in the
// order they started, scanned linearly. The Limiter must agree with it
// decision by decision whenever it has a single shard (small caps) or no cap.
type model struct {
	limit   int
	window  time.Duration
	cap     int
	windows []modelWindow
	evicted uint64
}

type modelWindow struct {
	key   Key
	start time.Time
	count int
}

func (m *model) find(k Key) int {
	for i, w := range m.windows {
		if w.key == k {
			return i
		}
	}
	return -1
}

func (m *model) expire(now time.Time) {
	kept := m.windows[:0]
	for _, w := range m.windows {
		if now.Sub(w.start) < m.window {
			kept = append(kept, w)
		}
	}
	m.windows = kept
}

func (m *model) take(k Key, now time.Time) Decision {
	m.expire(now)
	i := m.find(k)
	if i < 0 {
		if m.cap > 0 && len(m.windows) >= m.cap {
			m.windows = m.windows[1:]
			m.evicted++
		}
		m.windows = append(m.windows, modelWindow{key: k, start: now})
		i = len(m.windows) - 1
	}
	w := &m.windows[i]
	w.count++
	return m.decision(w.count <= m.limit, *w, now)
}

func (m *model) peek(k Key, now time.Time) Decision {
	w := modelWindow{start: now}
	if i := m.find(k); i >= 0 && now.Sub(m.windows[i].start) < m.window {
		w = m.windows[i]
	}
	return m.decision(w.count < m.limit, w, now)
}

func (m *model) decision(allowed bool, w modelWindow, now time.Time) Decision {
	d := Decision{Allowed: allowed, Limit: m.limit, Remaining: max(0, m.limit-w.count), Reset: w.start.Add(m.window)}
	if !allowed {
		d.RetryAfter = d.Reset.Sub(now)
	}
	return d
}

// checkInvariants verifies each shard's ring and index agree: every tracked
// item is indexed exactly once, reachable from its home slot, and nothing
// else is indexed.
func checkInvariants(t *testing.T, l *Limiter) {
	t.Helper()
	checkIndex(t, l, true)
}

// checkIndex is checkInvariants with the start-order check optional, since a
// clock that goes backwards may leave the ring out of order.
func checkIndex(t *testing.T, l *Limiter, ordered bool) {
	t.Helper()
	for si := range l.shards {
		s := &l.shards[si]
		used := 0
		for _, e := range s.index {
			if e != 0 {
				used++
			}
		}
		if used != s.n {
			t.Fatalf("shard %d: %d index slots used, %d items", si, used, s.n)
		}
		if 4*s.n > 3*len(s.index) {
			t.Fatalf("shard %d: index over 3/4 full: %d of %d", si, s.n, len(s.index))
		}
		rmask := uint32(len(s.ring) - 1)
		for i := range uint32(s.n) {
			it := &s.ring[(s.head+i)&rmask]
			if it.count == 0 {
				t.Fatalf("shard %d: item %d has count 0", si, i)
			}
			h := l.hash(it.key)
			if &l.shards[h&l.mask] != s {
				t.Fatalf("shard %d: item %d belongs to another shard", si, i)
			}
			if got := s.find(it.key, tagOf(h)); got != it {
				t.Fatalf("shard %d: item %d not found through the index", si, i)
			}
			if ordered && i > 0 && s.ring[(s.head+i-1)&rmask].start > it.start {
				t.Fatalf("shard %d: ring out of start order at %d", si, i)
			}
		}
	}
}

func TestAgainstModel(t *testing.T) {
	cases := []struct {
		name    string
		cap     int
		keys    int
		headSeq uint32
		maxStep time.Duration
		steps   int
	}{
		{"single shard with a cap", 100, 300, 0, 300 * time.Millisecond, 100_000},
		{"single shard, sequence numbers wrap", 100, 300, math.MaxUint32 - 500, 300 * time.Millisecond, 100_000},
		{"tiny cap", 1, 5, math.MaxUint32 - 3, 300 * time.Millisecond, 100_000},
		{"no cap, sharded, mostly live", 0, 3000, 0, 5 * time.Millisecond, 20_000},
		{"no cap, sharded, churning", 0, 3000, math.MaxUint32 - 100, 500 * time.Millisecond, 100_000},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			rng := rand.New(rand.NewPCG(1, uint64(tc.keys)))
			now := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
			const limit, window = 5, 10 * time.Second
			l := New(limit, window, tc.cap, func() time.Time { return now })
			if tc.cap > 0 && len(l.shards) != 1 {
				t.Fatalf("cap %d uses %d shards, want 1 for an exact model", tc.cap, len(l.shards))
			}
			for i := range l.shards {
				l.shards[i].head = tc.headSeq
			}
			m := &model{limit: limit, window: window, cap: tc.cap}
			for step := range tc.steps {
				now = now.Add(time.Duration(rng.Int64N(int64(tc.maxStep))))
				i := rng.IntN(tc.keys)
				k := KeyFor(netip.AddrFrom4([4]byte{10, 0, byte(i >> 8), byte(i)}), 64, uint8(i%3))
				var got, want Decision
				if rng.IntN(10) == 0 {
					got, want = l.Peek(k), m.peek(k, now)
				} else {
					got, want = l.Take(k), m.take(k, now)
				}
				if got != want {
					t.Fatalf("step %d key %d: got %+v, want %+v", step, i, got, want)
				}
				if step%997 == 0 {
					checkInvariants(t, l)
					if tc.cap > 0 && l.Len() != len(m.windows) {
						t.Fatalf("step %d: Len %d, model %d", step, l.Len(), len(m.windows))
					}
				}
			}
			checkInvariants(t, l)
			if l.Evictions() != m.evicted {
				t.Errorf("Evictions %d, model %d", l.Evictions(), m.evicted)
			}
		})
	}
}

func TestShrinksAfterBurst(t *testing.T) {
	now := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	l := New(60, time.Minute, 0, func() time.Time { return now })
	for i := range 100_000 {
		l.Take(KeyFor(netip.AddrFrom4([4]byte{10, byte(i >> 16), byte(i >> 8), byte(i)}), 64, 0))
	}
	size := func() (n int) {
		for i := range l.shards {
			n += len(l.shards[i].ring) + len(l.shards[i].index)
		}
		return n
	}
	peak := size()
	now = now.Add(time.Minute)
	for i := range 5000 {
		l.Take(KeyFor(netip.AddrFrom4([4]byte{11, 0, byte(i >> 8), byte(i)}), 64, 0))
	}
	checkInvariants(t, l)
	if after := size(); after*10 > peak {
		t.Errorf("ring+index slots %d after the burst expired, peak %d: want under a tenth", after, peak)
	}
}

func TestClockGoingBackwards(t *testing.T) {
	// time.Now's monotonic reading never goes back, but an injected clock
	// might: counting must go on, the cap must hold and the index must
	// stay consistent.
	rng := rand.New(rand.NewPCG(2, 3))
	now := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	const capacity = 100
	l := New(5, 10*time.Second, capacity, func() time.Time { return now })
	for step := range 50_000 {
		now = now.Add(time.Duration(rng.Int64N(int64(time.Second))) - 400*time.Millisecond)
		i := rng.IntN(300)
		d := l.Take(KeyFor(netip.AddrFrom4([4]byte{10, 0, byte(i >> 8), byte(i)}), 64, 0))
		if d.Remaining < 0 || d.Remaining > 4 || (!d.Allowed && d.RetryAfter <= 0) {
			t.Fatalf("step %d: bad decision %+v", step, d)
		}
		if l.Len() > capacity {
			t.Fatalf("step %d: Len %d over the cap", step, l.Len())
		}
		if step%997 == 0 {
			checkIndex(t, l, false)
		}
	}
	checkIndex(t, l, false)
}

func TestCapHoldsWhenTheNewKeysShardIsEmpty(t *testing.T) {
	// Two shards; the first holds the whole cap. A key landing in the
	// empty one has nothing of its own to evict: it evicts the oldest of
	// another shard, so the cap still holds.
	now := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	const capacity = 128
	l := New(5, time.Minute, capacity, func() time.Time { return now })
	if len(l.shards) != 2 {
		t.Fatalf("cap %d uses %d shards, want 2", capacity, len(l.shards))
	}
	var first, second []Key
	for i := 0; len(first) < capacity || len(second) < 1; i++ {
		k := KeyFor(netip.AddrFrom4([4]byte{10, 1, byte(i >> 8), byte(i)}), 64, 0)
		if l.hash(k)&l.mask == 0 {
			first = append(first, k)
		} else {
			second = append(second, k)
		}
	}
	for _, k := range first[:capacity] {
		now = now.Add(time.Millisecond)
		l.Take(k)
	}
	now = now.Add(time.Millisecond)
	l.Take(second[0])
	if got := l.Len(); got != capacity {
		t.Errorf("Len = %d, want the cap %d", got, capacity)
	}
	if got := l.Evictions(); got != 1 {
		t.Errorf("Evictions = %d, want 1", got)
	}
	if d := l.Peek(first[0]); d.Remaining != 5 {
		t.Errorf("the oldest key: Remaining %d, want 5 (evicted)", d.Remaining)
	}
	if d := l.Peek(second[0]); d.Remaining != 4 {
		t.Errorf("the new key: Remaining %d, want 4 (tracked)", d.Remaining)
	}
	checkInvariants(t, l)
}

func TestLargestCap(t *testing.T) {
	// The largest cap sizes its shards without overflow, and a shard's
	// arrays are allocated only when a key arrives in it.
	l := New(5, time.Minute, MaxClients, nil)
	for i := range l.shards {
		if s := &l.shards[i]; s.size < MaxClients/len(l.shards) || s.size > 1<<22 || s.ring != nil {
			t.Fatalf("shard %d: size %d, ring allocated %v", i, s.size, s.ring != nil)
		}
	}
	k := KeyFor(netip.MustParseAddr("192.0.2.1"), 64, 0)
	if d := l.Take(k); !d.Allowed || d.Remaining != 4 {
		t.Fatalf("first request: %+v", d)
	}
	allocated := 0
	for i := range l.shards {
		if l.shards[i].ring != nil {
			allocated++
		}
	}
	if allocated != 1 || l.Len() != 1 {
		t.Errorf("%d shards allocated and Len %d after one key, want 1 and 1", allocated, l.Len())
	}
}
