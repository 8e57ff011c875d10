package ratelimit

import (
	"math"
	"math/rand/v2"
	"net/netip"
	"testing"
	"time"
	"unsafe"
)

// model is the contract written the obvious way: one list of windows in the
// order they started, scanned linearly. The Limiter must agree with it
// decision by decision whenever it has a single shard (small caps) or its
// cap is never reached.
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
		if len(m.windows) >= m.cap {
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
	d.ResetIn = min(d.Reset.Sub(now), m.window)
	if !allowed {
		d.RetryAfter = d.ResetIn
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
		if s.ring == nil && s.n == 0 {
			continue // not used yet
		}
		if len(s.ring) != l.size || len(s.index) != 2*l.size {
			t.Fatalf("shard %d: ring %d and index %d, want %d and %d", si, len(s.ring), len(s.index), l.size, 2*l.size)
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
		// 3000 addresses in 3 buckets never reach these caps, so the
		// shards' own order does not matter.
		{"sharded, cap not reached, mostly live", 100_000, 3000, 0, 5 * time.Millisecond, 20_000},
		{"sharded, cap not reached, churning", 100_000, 3000, math.MaxUint32 - 100, 500 * time.Millisecond, 100_000},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			rng := rand.New(rand.NewPCG(1, uint64(tc.keys)))
			now := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
			const limit, window = 5, 10 * time.Second
			l := New(limit, window, tc.cap, func() time.Time { return now })
			if len(l.shards) != 1 && tc.cap < 3*tc.keys {
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
					// Expired windows of other shards wait for their
					// own shard's next request to be swept.
					if len(l.shards) == 1 && l.Len() != len(m.windows) {
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

func TestItemSize(t *testing.T) {
	// Reservation counts on these sizes.
	if got := unsafe.Sizeof(item{}); got != itemBytes {
		t.Errorf("an item takes %d bytes, want %d", got, itemBytes)
	}
	if got := unsafe.Sizeof(uint64(0)); got != slotBytes {
		t.Errorf("an index slot takes %d bytes, want %d", got, slotBytes)
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
	if l.size < MaxClients/len(l.shards) || l.size > 1<<22 {
		t.Fatalf("shard size %d for %d shards", l.size, len(l.shards))
	}
	for i := range l.shards {
		if l.shards[i].ring != nil {
			t.Fatalf("shard %d allocated before any key", i)
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
