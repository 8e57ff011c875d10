package ratelimit

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"math"
	"sync/atomic"
	"time"
)

// Sharing counters between replicas.
//
// Every replica keeps counting in its own Limiter, so a request never waits
// for the store. Each request also adds one to its item's pending count.
// A Sync, in one goroutine off the request path, collects the pending
// counts every Interval, adds them to the store's counters in batches, and
// folds each key's total (every replica's requests in the window) and the
// store's window end back into the local item. A replica therefore refuses
// a client once its own requests plus the others', as of its last sync,
// reach the limit: it may admit what the other replicas admitted since, at
// most two sync cycles' worth (see SyncOptions).
//
// When the store fails, the collected counts go back into their items
// (pending, which lives in the item's padding, so nothing grows), the
// replica goes on counting alone, and a sync only pings the store until it
// answers; then the counts kept are pushed and sharing resumes.

// Delta is what one replica counted on a key since its last sync.
type Delta struct {
	Key Key
	// N is the number of requests counted.
	N int64
	// Left is what remains of the window the requests were counted in, as
	// this replica sees it: the lifetime a store gives a counter it
	// creates, so the first replica to create it fixes the window.
	Left time.Duration
	// Known tells that this replica already has the counter's lifetime:
	// the store need not look it up, unless it creates the counter.
	Known bool
}

// Total is a key's shared counter after a sync.
type Total struct {
	// N is the requests every replica counted in the key's window.
	N int64
	// Left is the time until the shared window ends; 0 when the delta's
	// Known was set and the store did not look it up.
	Left time.Duration
}

// Store holds the counters replicas share. It is used by one goroutine at a
// time (the Sync's).
type Store interface {
	// Add adds each delta's N to its key's counter, creating the counter
	// for Left when there is none, and returns every counter's total and
	// remaining lifetime (which it may leave 0 for a delta marked Known),
	// in the order of deltas.
	Add(ctx context.Context, deltas []Delta) ([]Total, error)
	// Ping reports whether the store answers.
	Ping(ctx context.Context) error
}

// Defaults of SyncOptions.
const (
	// DefaultSyncInterval is short enough that a replica learns the
	// others' counts within a fifth of a second, and long enough that a
	// sync carries many requests per key.
	DefaultSyncInterval = 100 * time.Millisecond
	// DefaultSyncTimeout bounds one sync, store calls included; it is
	// generous, since requests never wait for it.
	DefaultSyncTimeout = time.Second
	// idlePing is how often an idle replica checks that the store is up,
	// so the up gauge stays true without traffic.
	idlePing = time.Second
	// batch is the most keys sent in one store call.
	batch = 512
)

// SyncOptions tune a Sync.
type SyncOptions struct {
	// Interval is the time between two syncs (DefaultSyncInterval when
	// zero). A sync that takes longer delays the next one: they never
	// overlap.
	Interval time.Duration
	// Timeout bounds one sync, store calls included (DefaultSyncTimeout
	// when zero).
	Timeout time.Duration
	// Logger gets one line when the store stops answering and one when it
	// answers again; nil discards.
	Logger *slog.Logger
	// Cycle, when set, is given the time from the start of one sync to
	// the end of the next one that succeeded: other replicas' counts are
	// at most two such cycles old in this replica's view.
	Cycle func(time.Duration)
}

// Sync keeps a Limiter's counts in step with a Store's.
type Sync struct {
	l      *Limiter
	store  Store
	opts   SyncOptions
	state  atomic.Int32 // storeUnknown, storeUp or storeDown
	errs   atomic.Uint64
	syncs  atomic.Uint64
	keys   atomic.Uint64
	last   time.Time // start of the previous sync
	sent   time.Time // when the store last answered
	buf    []collected
	deltas []Delta
}

const (
	storeUnknown int32 = iota
	storeUp
	storeDown
)

// collected is one item's pending count, taken by collect.
type collected struct {
	key     Key
	n       uint16
	adopted bool
	start   int64 // the item's window start, to tell its window from a later one
}

// NewSync makes l a shared Limiter whose counts store holds. It must be
// called before l counts its first request, and l then records what the
// store must be told (4 more bytes per key of the cap: SharingReservation).
// Run, or Sync for a test, does the work.
func NewSync(l *Limiter, store Store, opts SyncOptions) *Sync {
	if opts.Interval <= 0 {
		opts.Interval = DefaultSyncInterval
	}
	if opts.Timeout <= 0 {
		opts.Timeout = DefaultSyncTimeout
	}
	if opts.Logger == nil {
		opts.Logger = slog.New(slog.NewTextHandler(io.Discard, nil))
	}
	l.shared = true
	return &Sync{l: l, store: store, opts: opts}
}

// SharingReservation is what sharing adds to Reservation(maxClients): the
// list of keys with pending counts, 4 bytes per item.
func SharingReservation(maxClients int) int64 {
	shards, size := layout(maxClients)
	return int64(shards) * int64(size) * 4
}

// Start checks once, within the timeout, that the store answers, and logs
// the outcome: a store down at start-up is no reason not to serve, as
// requests are then counted in this process alone until it answers.
func (s *Sync) Start(ctx context.Context) error {
	ctx, cancel := context.WithTimeout(ctx, s.opts.Timeout)
	defer cancel()
	if err := s.store.Ping(ctx); err != nil {
		s.errs.Add(1)
		s.state.Store(storeDown)
		s.opts.Logger.Warn("rate-limit store unreachable at start-up: counting in this process alone until it answers", slog.String("error", err.Error()))
		return err
	}
	s.sent = s.l.now()
	s.state.Store(storeUp)
	s.opts.Logger.Info("rate-limit store connected: counts are shared")
	return nil
}

// Run syncs every Interval until ctx ends. Syncs never overlap: a slow one
// delays the next, so nothing piles up.
func (s *Sync) Run(ctx context.Context) {
	tick := time.NewTicker(s.opts.Interval)
	defer tick.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-tick.C:
			_ = s.Sync(ctx)
		}
	}
}

// Up reports whether the store answered the last sync.
func (s *Sync) Up() bool { return s.state.Load() == storeUp }

// Errors returns how many syncs (and start-up checks) failed.
func (s *Sync) Errors() uint64 { return s.errs.Load() }

// Syncs returns how many syncs succeeded.
func (s *Sync) Syncs() uint64 { return s.syncs.Load() }

// Keys returns how many keys' counts were sent to the store.
func (s *Sync) Keys() uint64 { return s.keys.Load() }

// Sync sends the pending counts to the store and folds the totals back, in
// at most Timeout. While the store is down it only pings it. It returns
// the store's error, after counting and logging it.
func (s *Sync) Sync(ctx context.Context) error {
	start := s.l.now()
	prev := s.last
	s.last = start
	parent := ctx
	ctx, cancel := context.WithTimeout(ctx, s.opts.Timeout)
	defer cancel()
	failed := func(err error) error {
		if parent.Err() != nil {
			// Stopping, not an outage: nothing to log or count.
			return err
		}
		return s.failed(err)
	}
	up := s.state.Load() == storeUp
	if !up {
		// Nothing is collected until the store answers: the counts
		// wait in their items.
		if err := s.store.Ping(ctx); err != nil {
			return failed(err)
		}
	}
	s.buf = s.l.collect(s.buf[:0], int64(start.Sub(s.l.base)))
	if len(s.buf) == 0 && up {
		if start.Sub(s.sent) < idlePing {
			return nil
		}
		if err := s.store.Ping(ctx); err != nil {
			return failed(err)
		}
	}
	for i := 0; i < len(s.buf); i += batch {
		part := s.buf[i:min(i+batch, len(s.buf))]
		s.deltas = s.deltas[:0]
		t := int64(s.l.now().Sub(s.l.base))
		for _, c := range part {
			s.deltas = append(s.deltas, Delta{Key: c.key, N: int64(c.n), Left: time.Duration(max(c.start+s.l.window-t, int64(time.Millisecond))), Known: c.adopted})
		}
		totals, err := s.store.Add(ctx, s.deltas)
		if err == nil && len(totals) != len(part) {
			err = fmt.Errorf("the store answered %d totals for %d keys", len(totals), len(part))
		}
		if err != nil {
			// Kept for the next sync that reaches the store. A batch
			// the store did apply but whose answer was lost is counted
			// twice: an error on the strict side.
			for _, c := range s.buf[i:] {
				s.l.restore(c)
			}
			return failed(err)
		}
		at := int64(s.l.now().Sub(s.l.base))
		for j, c := range part {
			s.l.fold(c, totals[j], at)
		}
		s.keys.Add(uint64(len(part)))
	}
	end := s.l.now()
	s.sent = end
	s.syncs.Add(1)
	if s.state.Swap(storeUp) == storeDown {
		s.opts.Logger.Info("rate-limit store reachable again: counts are shared")
	}
	if s.opts.Cycle != nil && !prev.IsZero() {
		s.opts.Cycle(end.Sub(prev))
	}
	return nil
}

// failed counts a failed sync, and logs it when the store was up: one line
// per outage.
func (s *Sync) failed(err error) error {
	s.errs.Add(1)
	if errors.Is(err, context.DeadlineExceeded) {
		err = fmt.Errorf("no answer within %v: %w", s.opts.Timeout, err)
	}
	if s.state.Swap(storeDown) != storeDown {
		s.opts.Logger.Warn("rate-limit store unreachable: counting in this process alone until it answers", slog.String("error", err.Error()))
	}
	return err
}

// addPending records one more request of it, the item of sequence seq, for
// the next sync.
func (s *shard) addPending(it *item, seq uint32) {
	if it.pending == 0 {
		s.markDirty(seq)
	}
	if it.pending < math.MaxUint16 {
		it.pending++
	}
}

// markDirty lists the item of sequence seq, whose pending count is about to
// leave 0, for the next collect. When the list is full, the entries of items
// gone since are dropped first: the live items listed have a pending count
// and seq's has none, so there is then room, and the list never outgrows
// the ring.
func (s *shard) markDirty(seq uint32) {
	if s.dirty == nil {
		s.dirty = make([]uint32, 0, len(s.ring))
	}
	if len(s.dirty) == cap(s.dirty) {
		rmask := uint32(len(s.ring) - 1)
		live := s.dirty[:0]
		for _, q := range s.dirty {
			if q-s.head < uint32(s.n) && s.ring[q&rmask].pending > 0 {
				live = append(live, q)
			}
		}
		s.dirty = live
	}
	s.dirty = append(s.dirty, seq)
}

// collect appends every pending count of a window not yet ended at t to out,
// and clears them.
func (l *Limiter) collect(out []collected, t int64) []collected {
	for i := range l.shards {
		s := &l.shards[i]
		s.mu.Lock()
		rmask := uint32(len(s.ring) - 1)
		for _, seq := range s.dirty {
			if seq-s.head >= uint32(s.n) {
				continue // gone since: expired or evicted
			}
			it := &s.ring[seq&rmask]
			if it.pending > 0 && t-it.start < l.window {
				out = append(out, collected{key: it.key, n: it.pending, adopted: it.adopted, start: it.start})
			}
			it.pending = 0
		}
		s.dirty = s.dirty[:0]
		s.mu.Unlock()
	}
	return out
}

// restore gives a count the store did not take back to its item, if the
// item is still in the same window.
func (l *Limiter) restore(c collected) {
	h := l.hash(c.key)
	s := &l.shards[h&l.mask]
	s.mu.Lock()
	defer s.mu.Unlock()
	seq, ok := s.findSeq(c.key, tagOf(h))
	if !ok {
		return
	}
	it := &s.ring[seq&uint32(len(s.ring)-1)]
	if it.start != c.start {
		return
	}
	if it.pending == 0 {
		s.markDirty(seq)
	}
	it.pending = uint16(min(uint32(it.pending)+uint32(c.n), math.MaxUint16))
}

// fold takes a key's shared total into its item, if the item is still in
// the window the count was collected from: the count becomes the total
// plus what arrived here since (never less than the local count), and the
// window ends when the store's does, so that the first replica to create
// the shared counter fixes the window for all. at is when the store
// answered.
func (l *Limiter) fold(c collected, total Total, at int64) {
	h := l.hash(c.key)
	s := &l.shards[h&l.mask]
	s.mu.Lock()
	defer s.mu.Unlock()
	it := s.find(c.key, tagOf(h))
	if it == nil || it.start != c.start {
		return
	}
	n := min(max(total.N, 0)+int64(it.pending), math.MaxUint32)
	it.count = max(it.count, uint32(n))
	if total.Left > 0 && int64(total.Left) <= l.window {
		it.start = at + int64(total.Left) - l.window
		it.adopted = true
	}
}
