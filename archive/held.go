package archive

import (
	"context"
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	"ballot/dataset"
)

// Held is an election's dataset while the archive holds it in memory, and
// what its users made of it for as long as it is held (Made): a server's
// answers and pages of the election. Once the election is released
// (Archive.Release), nothing of it stays reachable from the archive, and
// the next use loads it again.
type Held struct {
	Dataset *dataset.Dataset
	made    sync.Map // key -> *madeOnce
}

type madeOnce struct {
	once sync.Once
	v    any
}

// Made returns what make made of the held dataset under key, made once
// for as long as the dataset is held: a second caller with the same key
// waits for the first. make must not call Made with the same key.
func (h *Held) Made(key any, make func(*dataset.Dataset) any) any {
	m, ok := h.made.Load(key)
	if !ok { // made once: a request for an election held allocates nothing
		m, _ = h.made.LoadOrStore(key, &madeOnce{})
	}
	mo := m.(*madeOnce)
	mo.once.Do(func() { mo.v = make(h.Dataset) })
	return mo.v
}

// reloader loads a past election's dataset again, from the bytes it was
// checked in (or from an fs.FS that does not change, the embedded
// archive's), with the options of its first load, its warnings not given
// again.
type reloader func() (*dataset.Dataset, error)

// Dataset returns the election's dataset: the current election's is held
// as long as the archive is; a past election's is loaded again when it
// was released (see Held).
func (e *Election) Dataset() *dataset.Dataset { return e.Held().Dataset }

// Held returns the election's dataset held, loading it again first when
// it was released, and marks the election used now: Release keeps what
// was used lately. A past election's data was checked when the archive
// loaded, and is loaded again from the same bytes, so this cannot fail
// but for a fault of ballot's own, which panics.
func (e *Election) Held() *Held {
	if e.reload == nil {
		return e.held.Load()
	}
	e.used.Store(sinceEpoch(time.Now()))
	if h := e.held.Load(); h != nil {
		return h
	}
	e.loading.Lock()
	defer e.loading.Unlock()
	if h := e.held.Load(); h != nil {
		return h
	}
	ds, err := e.reload()
	if err != nil {
		panic(fmt.Sprintf("archive: election %q, checked at load, does not load again: %v", e.Record.Slug, err))
	}
	if ds.Version != e.Version {
		panic(fmt.Sprintf("archive: election %q loaded again with version %s, not %s", e.Record.Slug, ds.Version, e.Version))
	}
	h := &Held{Dataset: ds}
	e.held.Store(h)
	return h
}

// IsHeld reports whether the election's dataset is in memory now.
func (e *Election) IsHeld() bool { return e.held.Load() != nil }

// release lets go of a past election's dataset, and of what was made of
// it, when it was last used before cutoff; it reports whether it did.
func (e *Election) release(cutoff time.Time) bool {
	before := sinceEpoch(cutoff)
	if e.reload == nil || e.used.Load() >= before {
		return false
	}
	e.loading.Lock()
	defer e.loading.Unlock()
	if e.used.Load() >= before {
		return false
	}
	return e.held.Swap(nil) != nil
}

// epoch is when the process started counting uses: a use is stored as
// the time since it, on the monotonic clock, so that a step of the wall
// clock neither keeps an election held nor lets one go early.
var epoch = time.Now()

// sinceEpoch is t as a use is stored: nanoseconds since epoch, and 1 at
// least, 0 standing for never used.
func sinceEpoch(t time.Time) int64 { return max(int64(t.Sub(epoch)), 1) }

// Release lets go of the dataset of every past election of the archive
// not used since cutoff (or never used since the archive loaded), and of
// what was made of it (see Held); the current election's is always held.
// It returns the slugs of those let go. A request already answering from
// one finishes with it; the next loads it again. A load holds every
// election until a first Release (serve's, once it has measured the
// heap they take): the commands that read them all read each once.
func (a *Archive) Release(cutoff time.Time) []string {
	var released []string
	for _, e := range a.elections {
		if e.release(cutoff) {
			released = append(released, e.Record.Slug)
		}
	}
	return released
}

// releasable makes e, a past election of a loaded archive, releasable:
// reload loads its dataset again once Release has let it go.
func (e *Election) releasable(reload reloader) { e.reload = reload }

// reloadFiles is the reloader of an election from its files as they were
// kept when read (dataset.Options.Keep), with opts as the load gave them.
func reloadFiles(files dataset.Files, opts dataset.Options) reloader {
	opts.Warn, opts.Keep = nil, nil
	return func() (*dataset.Dataset, error) { return dataset.LoadContext(context.Background(), files, opts) }
}

// heldElection is what an Election keeps of its dataset.
type heldElection struct {
	held    atomic.Pointer[Held]
	reload  reloader     // nil for an election always held
	used    atomic.Int64 // when last used (sinceEpoch), 0 for never
	loading sync.Mutex
}
