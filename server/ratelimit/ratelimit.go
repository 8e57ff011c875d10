// Package ratelimit counts requests per client and per endpoint in fixed
// windows, for the public API's "N requests per minute" rule.
//
// A client's window starts at its first counted request on a key and lasts a
// fixed duration; a denied request does not move it. Counters live in process
// memory; several processes may share them through a Store (a Sync keeps
// each process's counts in step with it, off the request path). Memory is bounded without a background goroutine: each request
// sweeps the counters whose window has ended (amortized O(1)), and past the
// configured cap on tracked keys, each new key evicts the counter whose window
// started first in its shard (a random sample of all keys), so the oldest
// windows go first.
//
// Each shard's arrays are allocated on the Go heap once, at their full size,
// the first time the shard is used, and never grow, shrink or move, so
// counting makes no garbage. A shard holds its share of the cap rounded up to
// a power of two, so the arrays take 48 bytes per key of the cap at one
// million (48 MiB), and up to about twice that for caps whose shares round up
// far (Reservation gives the figure). They hold no pointers, so the collector
// never scans them; but they count as live heap, so with the default GOGC the
// collector would let garbage grow as large as they are: the program that
// owns the Limiter should set a soft memory limit from Reservation (see
// debug.SetMemoryLimit).
//
// It imports nothing of the project: it counts clients, and knows nothing
// of datasets, routes or pages.
package ratelimit

import (
	"encoding/binary"
	"math"
	"math/bits"
	"math/rand/v2"
	"net/netip"
	"sync"
	"sync/atomic"
	"time"
)

// Key identifies one counter: a client address and an endpoint bucket.
// Build it with KeyFor so that IPv4 and IPv6 clients are masked and never
// collide.
type Key struct {
	// Addr is the 16-byte form of the masked client address; IPv4 clients
	// are stored in their IPv4-mapped IPv6 form (::ffff:a.b.c.d).
	Addr [16]byte
	// Bucket is the endpoint group, chosen by the caller, so that one busy
	// endpoint does not use up a client's quota on the others.
	Bucket uint8
}

// KeyFor returns the counter key of addr for the given bucket.
//
// An IPv4-mapped IPv6 address is first unmapped, so a dual-stack listener
// counts an IPv4 client the same whichever socket family it arrived on. IPv4
// addresses are used whole. IPv6 addresses are masked to their first
// ipv6PrefixBits bits, because a single subscriber usually gets a whole /64
// and could otherwise rotate addresses to dodge the limit; a value outside
// 1..128 means 128 (no masking). The zone is ignored. An invalid (zero) Addr
// maps to the key of the IPv6 unspecified address "::", so callers that cannot
// tell the client apart still share one counter rather than none.
func KeyFor(addr netip.Addr, ipv6PrefixBits int, bucket uint8) Key {
	k := Key{Bucket: bucket}
	if !addr.IsValid() {
		return k
	}
	addr = addr.Unmap().WithZone("")
	if addr.Is4() {
		// As16 of an IPv4 address is its ::ffff:0:0/96 form, which no
		// masked IPv6 key can equal: any IPv6 address that masks into
		// that range was itself IPv4-mapped and was unmapped above.
		k.Addr = addr.As16()
		return k
	}
	if ipv6PrefixBits < 1 || ipv6PrefixBits > 128 {
		ipv6PrefixBits = 128
	}
	p, err := addr.Prefix(ipv6PrefixBits)
	if err != nil {
		// Unreachable: addr is a valid zone-less IPv6 address and the
		// prefix length is in range. Falling back to the whole address is
		// the conservative choice (a finer counter, never a shared one).
		k.Addr = addr.As16()
		return k
	}
	k.Addr = p.Addr().As16()
	return k
}

// Decision is the outcome of Take or Peek, with what the X-RateLimit-* and
// Retry-After headers need.
type Decision struct {
	// Allowed reports whether the request may be served (Take), or
	// whether the next one would be (Peek).
	Allowed bool
	// Limit is the number of requests allowed per window.
	Limit int
	// Remaining is the number of requests left in the current window,
	// never negative.
	Remaining int
	// Reset is when the current window ends.
	Reset time.Time
	// ResetIn is the time from the request to Reset, never more than one
	// window: a request whose clock was read just before another request
	// of its client opened the window is counted in that window as if it
	// came at its start.
	ResetIn time.Duration
	// RetryAfter is ResetIn when the request is denied, and 0 when it is
	// allowed.
	RetryAfter time.Duration
}

// ResetUnix returns Reset in whole Unix seconds, rounded up, so that a client
// waiting until that second never arrives before the window has ended.
func (d Decision) ResetUnix() int64 {
	s := d.Reset.Unix()
	if d.Reset.Nanosecond() > 0 {
		s++
	}
	return s
}

// RetryAfterSeconds returns RetryAfter in whole seconds, rounded up, for the
// Retry-After header. It is at least 1 when the request is denied: "0" would
// invite an immediate retry that is still inside the window.
func (d Decision) RetryAfterSeconds() int64 {
	s := int64(d.RetryAfter / time.Second)
	if d.RetryAfter%time.Second > 0 {
		s++
	}
	if !d.Allowed && s < 1 {
		s = 1
	}
	return s
}

const (
	// maxShards bounds lock contention: requests for different clients
	// usually take different mutexes.
	maxShards = 64
	// minPerShard keeps small caps from being split so finely that "evict
	// the oldest" becomes "evict an arbitrary one": below it, fewer shards
	// are used.
	minPerShard = 64
	// slackSDs is how far above its fair share of the cap a shard's ring
	// reaches, in standard deviations of a shard's share of random keys:
	// with 64 shards, one fills up before the whole Limiter reaches its
	// cap about twice in 100,000 times (it then evicts its own oldest
	// early, counted as an eviction).
	slackSDs = 5
	// MaxClients is the largest cap New accepts: 100 million keys reserve
	// 6 GiB (a shard's sequence numbers and sizes must also stay far
	// inside 32 bits).
	MaxClients = 100_000_000
)

// item is one tracked key. Items live in a per-shard ring buffer in the order
// their windows started, so the oldest window is always at the head: expiry
// and eviction both pop the head. Its 32 bytes are most of the memory per
// client, which is why the map-like index is a separate array of small slots
// rather than a Go map holding the keys a second time.
type item struct {
	start int64  // window start, nanoseconds since Limiter.base
	count uint32 // requests counted in this window, saturating
	key   Key
	// adopted and pending fill what would otherwise be padding, so sharing
	// costs no memory per item. adopted tells, for a shared Limiter, that
	// the window's end came from the store (see fold), so it need not be
	// asked for again; pending counts the requests taken here that the
	// store has not been told of yet, saturating.
	adopted bool
	pending uint16
}

// shard is an independent part of the Limiter with its own lock. It holds the
// ring of items and an open-addressing index (linear probing) over it.
//
// An index slot is 0 when empty, otherwise tag<<32 | seq: tag is the top 32
// bits of the key's hash with the lowest bit set (so a slot is never 0), and
// seq is the item's sequence number, whose low bits are its ring position.
// Storing the tag lets an entry be moved during deletion without rehashing
// its key, and skips most ring reads when probing.
type shard struct {
	mu    sync.Mutex
	ring  []item   // size items, or nil until the shard's first key
	head  uint32   // sequence number of the oldest item; wraps
	n     int      // items in the ring, i.e. tracked keys
	index []uint64 // 2*size slots, so it is at most half full
	bits  uint     // log2(len(index))
	// dirty holds, for a shared Limiter, the sequence numbers of the
	// items whose pending went from 0 since the last collect, so a sync
	// visits those and not the whole ring. It never grows past the ring's
	// length (see markDirty).
	dirty []uint32
	_     [64]byte // keep neighbouring shards' locks off one cache line
}

// Limiter is a set of fixed-window counters. It is safe for concurrent use.
type Limiter struct {
	limit     int
	window    int64 // nanoseconds
	now       func() time.Time
	base      time.Time // origin of the int64 times; has a monotonic reading in production
	seed      [3]uint64
	mask      uint64
	shards    []shard
	size      int          // ring length of every shard: a power of two
	cap       int64        // max tracked keys
	tracked   atomic.Int64 // keys in all rings
	evictions atomic.Uint64
	// shared is set by NewSync before the first request: Take then
	// records what the store must be told.
	shared bool
}

// itemBytes and slotBytes are the sizes of a ring item and an index slot;
// a shard has twice as many slots as items.
const itemBytes, slotBytes = 32, 8

// layout returns how many shards a Limiter with a cap of maxClients uses and
// the ring length of each.
func layout(maxClients int) (shards, size int) {
	shards = maxShards
	for shards > 1 && maxClients/shards < minPerShard {
		shards /= 2
	}
	// The cap holds for the whole Limiter; a shard's ring is sized for its
	// share of the keys, with room for the luck of hashing.
	share := (maxClients + shards - 1) / shards
	size = share
	if shards > 1 {
		size += slackSDs*int(math.Sqrt(float64(share))) + 8
	}
	return shards, 1 << bits.Len(uint(size-1))
}

// Reservation returns the bytes of Go heap the counters of a Limiter with a
// cap of maxClients (1 to MaxClients) take once every shard has been used:
// 48 bytes per key of the cap at one million, up to about twice that for
// caps that round up far. A program sizes its memory limit by it.
func Reservation(maxClients int) int64 {
	shards, size := layout(maxClients)
	return int64(shards) * int64(size) * (itemBytes + 2*slotBytes)
}

// New returns a Limiter that allows limit requests per window for each key,
// and tracks at most maxClients keys, the oldest windows dropped first. The
// counters take Reservation(maxClients) bytes of heap, a shard's share
// allocated when its first key arrives.
//
// now is the clock, injectable for tests; nil means time.Now. Times are
// measured as offsets from the first reading, so with time.Now the monotonic
// clock is used and a wall-clock step does not stretch or cut windows.
//
// New panics if limit is negative, window is not positive or maxClients is
// not from 1 to MaxClients, as those are configuration errors the caller must
// catch first. A limit of 0 denies every request.
func New(limit int, window time.Duration, maxClients int, now func() time.Time) *Limiter {
	if limit < 0 {
		panic("ratelimit: negative limit")
	}
	if window <= 0 {
		panic("ratelimit: non-positive window")
	}
	if maxClients < 1 || maxClients > MaxClients {
		panic("ratelimit: cap not from 1 to MaxClients")
	}
	if now == nil {
		now = time.Now
	}
	n, size := layout(maxClients)
	return &Limiter{
		limit:  limit,
		window: int64(window),
		now:    now,
		base:   now(),
		seed:   [3]uint64{rand.Uint64() | 1, rand.Uint64() | 1, rand.Uint64() | 1},
		mask:   uint64(n - 1),
		shards: make([]shard, n),
		size:   size,
		cap:    int64(maxClients),
	}
}

// mix is the wyhash mixing step: a 128-bit multiply folded to 64 bits.
func mix(a, b uint64) uint64 {
	hi, lo := bits.Mul64(a, b)
	return hi ^ lo
}

// hash uses a per-Limiter random seed, so a client cannot choose addresses
// that all land in one shard or one probe sequence. Its low bits pick the
// shard and its top bits the index slot, so the two are independent.
func (l *Limiter) hash(k Key) uint64 {
	a := binary.LittleEndian.Uint64(k.Addr[:8]) ^ l.seed[0]
	b := binary.LittleEndian.Uint64(k.Addr[8:]) ^ l.seed[1] ^ uint64(k.Bucket)*0x9e3779b97f4a7c15
	return mix(mix(a, b)^l.seed[2], 0xa0761d6478bd642f)
}

func tagOf(h uint64) uint32 { return uint32(h>>32) | 1 }

// Take counts one request on k and reports whether it is allowed.
func (l *Limiter) Take(k Key) Decision { return l.TakeAt(k, l.now()) }

// TakeAt is Take for a request that arrived at nowT, a reading of the
// Limiter's clock the caller already has.
func (l *Limiter) TakeAt(k Key, nowT time.Time) Decision {
	t := int64(nowT.Sub(l.base))
	h := l.hash(k)
	s := &l.shards[h&l.mask]
	tag := tagOf(h)
	s.mu.Lock()
	defer s.mu.Unlock()
	l.sweep(s, t)
	var e item
	if seq, ok := s.findSeq(k, tag); ok {
		it := &s.ring[seq&uint32(len(s.ring)-1)]
		if t-it.start < l.window {
			if it.count < math.MaxUint32 {
				it.count++
			}
		} else {
			// Unreachable with a monotonic clock and no store: the
			// sweep has removed every ended window. If the clock went
			// back, or a store moved the window's start (see fold),
			// restarting in place leaves the ring slightly out of
			// order, which only delays expiry and eviction a little.
			it.start, it.count, it.pending, it.adopted = t, 1, 0, false
		}
		if l.shared {
			s.addPending(it, seq)
		}
		e = *it
	} else {
		if s.ring == nil {
			// Allocated here rather than in New, so that a shard no
			// key reaches (a small server, a test) costs nothing.
			s.ring = make([]item, l.size)
			s.index = make([]uint64, 2*l.size)
			s.bits = uint(bits.TrailingZeros(uint(len(s.index))))
		}
		// Counted first, so concurrent inserts in other shards cannot
		// both take the last place under the cap.
		total := l.tracked.Add(1)
		if total > l.cap || s.n == len(s.ring) {
			// Over the cap: this shard's oldest window goes. Whichever
			// shard the new key lands in, the evicted window is among
			// the oldest (every shard holds a random sample of the
			// keys). A full ring under the cap is the rare shard that
			// hashing filled past its slack.
			if s.n > 0 {
				l.popHead(s)
				l.evictions.Add(1)
			} else {
				l.evictElsewhere(s)
			}
		}
		e = item{start: t, count: 1, key: k}
		if l.shared {
			e.pending = 1
			s.markDirty(s.head + uint32(s.n))
		}
		s.insert(e, tag)
	}
	return l.decide(int64(e.count) <= int64(l.limit), e, t, nowT)
}

// Peek reports the state of k without counting a request, for responses such
// as CORS preflights that must carry the headers but not use up the quota.
// Allowed then tells whether the next request would be allowed.
func (l *Limiter) Peek(k Key) Decision { return l.PeekAt(k, l.now()) }

// PeekAt is Peek at nowT, a reading of the Limiter's clock.
func (l *Limiter) PeekAt(k Key, nowT time.Time) Decision {
	t := int64(nowT.Sub(l.base))
	h := l.hash(k)
	s := &l.shards[h&l.mask]
	var e item
	s.mu.Lock()
	if it := s.find(k, tagOf(h)); it != nil {
		e = *it
	}
	s.mu.Unlock()
	if e.count == 0 || t-e.start >= l.window {
		e = item{start: t}
	}
	return l.decide(int64(e.count) < int64(l.limit), e, t, nowT)
}

func (l *Limiter) decide(allowed bool, e item, t int64, nowT time.Time) Decision {
	left := time.Duration(e.start + l.window - t)
	d := Decision{
		Allowed:   allowed,
		Limit:     l.limit,
		Remaining: max(0, l.limit-int(min(int64(e.count), math.MaxInt32))),
		Reset:     nowT.Add(left),
		ResetIn:   min(left, time.Duration(l.window)),
	}
	if !allowed {
		d.RetryAfter = d.ResetIn
	}
	return d
}

// evictElsewhere evicts the oldest window of another shard, for a key that
// puts the Limiter over its cap in a shard with nothing to evict (the other
// shards hold the whole cap). It only tries locks, since the caller holds
// its own shard's: if every other shard is busy, the cap is exceeded by this
// key until the next insert that finds something to evict.
func (l *Limiter) evictElsewhere(own *shard) {
	for i := range l.shards {
		o := &l.shards[i]
		if o == own || !o.mu.TryLock() {
			continue
		}
		evicted := o.n > 0
		if evicted {
			l.popHead(o)
			l.evictions.Add(1)
		}
		o.mu.Unlock()
		if evicted {
			return
		}
	}
}

// Len returns the number of keys currently tracked, expired ones not yet
// swept included. While keys are being added past the cap it may read one
// more per insert in flight, for the moment between counting the new key
// and evicting an old one.
func (l *Limiter) Len() int {
	return int(l.tracked.Load())
}

// Evictions returns how many live counters were dropped because the cap on
// tracked clients was reached (not because their window ended). A growing
// value means the cap is too small for the traffic, and evicted clients got a
// fresh quota early.
func (l *Limiter) Evictions() uint64 {
	return l.evictions.Load()
}

// sweep drops the counters whose window has ended. Each key is pushed once per
// window and popped once, so the cost is amortized O(1) per request.
func (l *Limiter) sweep(s *shard, t int64) {
	for s.n > 0 && t-s.ring[s.head&uint32(len(s.ring)-1)].start >= l.window {
		l.popHead(s)
	}
}

// popHead forgets the oldest window of s.
func (l *Limiter) popHead(s *shard) {
	rmask := uint32(len(s.ring) - 1)
	it := &s.ring[s.head&rmask]
	s.unindex(tagOf(l.hash(it.key)), s.head)
	*it = item{}
	s.head++
	s.n--
	l.tracked.Add(-1)
}

// home is the first index slot probed for tag.
func (s *shard) home(tag uint32) uint32 { return tag >> (32 - s.bits) }

// find returns the item of k, or nil.
func (s *shard) find(k Key, tag uint32) *item {
	seq, ok := s.findSeq(k, tag)
	if !ok {
		return nil
	}
	return &s.ring[seq&uint32(len(s.ring)-1)]
}

// findSeq returns the sequence number of k's item, if k is tracked.
func (s *shard) findSeq(k Key, tag uint32) (uint32, bool) {
	if s.n == 0 { // also a shard whose arrays are not allocated yet
		return 0, false
	}
	mask := uint32(len(s.index) - 1)
	rmask := uint32(len(s.ring) - 1)
	for i := s.home(tag); ; i = (i + 1) & mask {
		e := s.index[i]
		if e == 0 {
			return 0, false
		}
		if uint32(e>>32) == tag {
			if s.ring[uint32(e)&rmask].key == k {
				return uint32(e), true
			}
		}
	}
}

// insert appends it, a key not yet tracked, as the newest window. The ring
// must have room; the index, twice its length, then has more than half its
// slots free, so probe sequences stay short.
func (s *shard) insert(it item, tag uint32) {
	seq := s.head + uint32(s.n)
	s.ring[seq&uint32(len(s.ring)-1)] = it
	s.n++
	s.place(uint64(tag)<<32 | uint64(seq))
}

// place puts slot value e in the first free slot of its probe sequence.
func (s *shard) place(e uint64) {
	mask := uint32(len(s.index) - 1)
	i := s.home(uint32(e >> 32))
	for s.index[i] != 0 {
		i = (i + 1) & mask
	}
	s.index[i] = e
}

// unindex removes the slot pointing at seq, shifting later entries of the
// probe run back so that no tombstones are needed.
func (s *shard) unindex(tag uint32, seq uint32) {
	mask := uint32(len(s.index) - 1)
	i := s.home(tag)
	for {
		e := s.index[i]
		if e == 0 {
			panic("ratelimit: tracked key missing from index")
		}
		if uint32(e) == seq {
			break
		}
		i = (i + 1) & mask
	}
	for j := i; ; {
		j = (j + 1) & mask
		e := s.index[j]
		if e == 0 {
			break
		}
		// The entry at j may fill the hole at i only if its home is
		// not in the cyclic range (i, j].
		if (j-s.home(uint32(e>>32)))&mask >= (j-i)&mask {
			s.index[i] = e
			i = j
		}
	}
	s.index[i] = 0
}
