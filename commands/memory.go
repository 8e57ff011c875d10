package commands

import (
	"log/slog"
	"os"
	"runtime"
	"runtime/debug"
	"runtime/metrics"
)

// memoryLimitSlack is what the soft memory limit allows beyond the heap it
// is computed from: goroutine stacks, the runtime's own structures, and the
// collector's smallest heap goal.
const memoryLimitSlack = 16 << 20

// limitMemory sets a soft memory limit for serve, unless the operator set
// one with GOMEMLIMIT, and returns it (0 when left to GOMEMLIMIT).
//
// The rate limiter's counters (counterBytes: server.CounterBytes, 48 MiB for
// a million clients) are live heap once clients arrive, and with GOGC's default the
// collector would let garbage grow as large as all the live heap, counters
// included, before collecting: a million clients would take the process
// past 100 MB. The limit lets garbage grow as large as the rest of the heap
// and no more, as if the counters were not on the heap:
//
//	limit = counters for max_tracked_clients + 2 x heap in use after loading + 16 MiB
//
// It is computed once, at start-up, with the dataset loaded and prepared; a
// reload to a much larger dataset makes the collector run more often (set
// GOMEMLIMIT for such a deployment).
func limitMemory(logger *slog.Logger, counterBytes int64) int64 {
	if v, ok := os.LookupEnv("GOMEMLIMIT"); ok && v != "" {
		logger.Info("memory limit from GOMEMLIMIT", slog.String("GOMEMLIMIT", v))
		return 0
	}
	// A collection first, so that what the last one found live is the
	// dataset and the server, not the garbage of loading them.
	runtime.GC()
	live := []metrics.Sample{{Name: "/gc/heap/live:bytes"}}
	metrics.Read(live)
	var heap int64
	if live[0].Value.Kind() == metrics.KindUint64 {
		heap = int64(live[0].Value.Uint64())
	}
	limit := counterBytes + 2*heap + memoryLimitSlack
	debug.SetMemoryLimit(limit)
	logger.Info("memory limit", slog.Int64("bytes", limit), slog.Int64("counters", counterBytes), slog.Int64("heap", heap))
	return limit
}
