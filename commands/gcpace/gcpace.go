// Package gcpace holds the pace of the garbage collector: GOGC lowered while
// a command loads or checks a dataset, for the time a load, a check or an
// import runs, and restored once the last of them ends; and the pace a
// server keeps between them (ServePercent, SetBase). The pace is the
// process's, so it belongs to the process owner, the command line; a
// server is handed it as a function (server.Options.PaceGC), and the data
// knows nothing of it. It imports nothing of ballot.
package gcpace

import (
	"runtime/debug"
	"slices"
	"sync"
)

// LoadPercent is the garbage collector's GOGC while a dataset is read
// and checked (and, for a load, prepared): the heap may grow a quarter
// past what the last collection found live before the next collection,
// rather than double. A load allocates many times the files' size in
// short-lived values (records split, fields checked, pointers of the
// problems); at GOGC's default of 100 the peak resident memory was about
// twice the live heap, and the live heap is what dataset.PeakMemoryPerByte
// is measured against. docs/PERFORMANCE.md has what it costs in time.
const LoadPercent = 25

// ServeGarbage is the least garbage a server's heap may gather between two
// collections. A server's live heap is its dataset and what it made of it,
// and each request leaves a few kilobytes of garbage, most of it net/http's:
// at GOGC's default the collector marks the whole dataset each time the
// garbage reaches its size, which for the embedded dataset (about 6 MB
// live) was 20 collections a second under load and 2 µs of CPU a request,
// a tenth of all the server spent on it. 16 MiB is also the slack of the
// soft memory limit serve sets (commands/memory.go), so the heap's goal
// stays within that limit.
const ServeGarbage = 16 << 20

// ServePercent is the GOGC at which a heap of live bytes may grow by the
// larger of the live heap itself (GOGC's default, 100) and ServeGarbage
// before the next collection.
func ServePercent(live int64) int {
	live = max(live, 1<<20) // a heap is never smaller, and never zero
	return int(max(100, (100*ServeGarbage+live-1)/live))
}

// SetBase sets GOGC as it is outside every pacing: at once when none
// runs, else once the last of those running ends.
func SetBase(percent int) {
	pace.Lock()
	defer pace.Unlock()
	if len(pace.running) == 0 {
		debug.SetGCPercent(percent)
		return
	}
	pace.previous = percent
	apply()
}

// Base returns GOGC as it is outside every pacing (SetBase).
func Base() int {
	pace.Lock()
	defer pace.Unlock()
	if len(pace.running) == 0 {
		return Percent()
	}
	return pace.previous
}

// pace holds the GOGC of each pacing running, so that GOGC is the lowest
// of them and the last to end restores it.
var pace struct {
	sync.Mutex
	running  []int
	previous int // GOGC before the first of those running
}

// Lower lowers GOGC to percent, unless it is lower already or off
// (GOGC=off), and returns the function that ends the pacing. Pacings may
// overlap (a load inside an import, loads of two reloads): GOGC is then
// the lowest asked, and the last to end restores GOGC as it was.
func Lower(percent int) (restore func()) {
	pace.Lock()
	defer pace.Unlock()
	if len(pace.running) == 0 {
		pace.previous = debug.SetGCPercent(percent)
	}
	pace.running = append(pace.running, percent)
	apply()
	return sync.OnceFunc(func() {
		pace.Lock()
		defer pace.Unlock()
		pace.running = slices.Delete(pace.running, slices.Index(pace.running, percent), slices.Index(pace.running, percent)+1)
		if len(pace.running) == 0 {
			debug.SetGCPercent(pace.previous)
			return
		}
		apply()
	})
}

// Load lowers GOGC to LoadPercent for a load or a check (see Lower).
func Load() (restore func()) { return Lower(LoadPercent) }

// apply sets GOGC to the lowest of the pacings running and GOGC as it was
// before them (-1, off, the lowest of all).
func apply() {
	debug.SetGCPercent(min(slices.Min(pace.running), pace.previous))
}

// Percent is GOGC as the runtime applies it now (-1 when off).
func Percent() int {
	p := debug.SetGCPercent(100)
	debug.SetGCPercent(p)
	return p
}
