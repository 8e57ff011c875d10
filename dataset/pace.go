package dataset

import (
	"runtime/debug"
	"sync"
)

// LoadGCPercent is the garbage collector's GOGC while a dataset is read
// and checked (and, for a load, prepared): the heap may grow a quarter
// past what the last collection found live before the next collection,
// rather than double. A load allocates many times the files' size in
// short-lived values (records split, fields checked, pointers of the
// problems); at GOGC's default of 100 the peak resident memory was about
// twice the live heap, and the live heap is what PeakMemoryPerByte is
// measured against. docs/PERFORMANCE.md has what it costs in time.
const LoadGCPercent = 25

// gcPace counts the loads and checks running, so that the first to start
// lowers GOGC and the last to end restores it.
var gcPace struct {
	sync.Mutex
	running  int
	previous int
}

// PaceGC lowers GOGC to LoadGCPercent for a load or a check, unless it is
// lower already or off (GOGC=off), and returns the function that restores
// it once every load and check running has ended. A server calls it too
// while it prepares what it serves of a dataset just loaded (its pages),
// which allocates as a load does.
func PaceGC() (restore func()) {
	gcPace.Lock()
	defer gcPace.Unlock()
	if gcPace.running == 0 {
		gcPace.previous = debug.SetGCPercent(LoadGCPercent)
		if gcPace.previous < LoadGCPercent {
			debug.SetGCPercent(gcPace.previous)
		}
	}
	gcPace.running++
	return func() {
		gcPace.Lock()
		defer gcPace.Unlock()
		gcPace.running--
		if gcPace.running == 0 {
			debug.SetGCPercent(gcPace.previous)
		}
	}
}
