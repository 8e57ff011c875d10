package commands

import (
	"bufio"
	"context"
	"fmt"
	"log/slog"
	"math"
	"os"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"runtime/metrics"
	"strconv"
	"strings"
	"time"

	"ballot/archive"
	"ballot/commands/gcpace"
	"ballot/dataset"
	"ballot/server"
)

// memoryLimitSlack is what the soft memory limit allows beyond the heap it
// is computed from: goroutine stacks, the runtime's own structures, and the
// collector's smallest heap goal.
const memoryLimitSlack = 16 << 20

// limitMemory sets a soft memory limit for serve, unless the operator set
// one with GOMEMLIMIT, and the collector's pace for serving (paceServing);
// it returns the limit (0 when left to GOMEMLIMIT).
//
// The rate limiter's counters (counterBytes: server.CounterBytes, 48 MiB for
// a million clients) are live heap once clients arrive, and with GOGC's default the
// collector would let garbage grow as large as all the live heap, counters
// included, before collecting: a million clients would take the process
// past 100 MB. So are the record pages kept once rendered (pageBytes:
// server.PageBytes, 16 MiB with the pages on) once readers have asked for
// them. The limit lets garbage grow as large as the rest of the heap and no
// more, as if the counters and the pages were not on the heap:
//
//	limit = counters for max_tracked_clients + pages kept + 2 x heap in use after loading + 16 MiB
//
// It is computed once, at start-up, with the dataset loaded and prepared; a
// reload to a much larger dataset makes the collector run more often (set
// GOMEMLIMIT for such a deployment).
func limitMemory(logger *slog.Logger, counterBytes, pageBytes int64) int64 {
	heap := liveHeap()
	paceServing(logger, heap)
	if v, ok := os.LookupEnv("GOMEMLIMIT"); ok && v != "" {
		logger.Info("memory limit from GOMEMLIMIT", slog.String("GOMEMLIMIT", v))
		return 0
	}
	limit := counterBytes + pageBytes + 2*heap + memoryLimitSlack
	debug.SetMemoryLimit(limit)
	logger.Info("memory limit", slog.Int64("bytes", limit), slog.Int64("counters", counterBytes), slog.Int64("pages", pageBytes), slog.Int64("heap", heap))
	return limit
}

// operatorGOGC returns GOGC as the operator set it, if set.
func operatorGOGC() (string, bool) {
	v, ok := os.LookupEnv("GOGC")
	return v, ok && v != ""
}

// liveHeap collects, so that what the collector finds live is the dataset
// and the server, not the garbage of loading them, and returns that heap.
func liveHeap() int64 {
	runtime.GC()
	return lastLiveHeap()
}

// paceServing sets GOGC for serving the dataset loaded, unless the
// operator set GOGC: the heap may grow by the larger of the live heap
// (GOGC's default) and 16 MiB before the next collection
// (gcpace.ServePercent), a goal within the soft memory limit above. serve
// sets it once ready, and again after each reload, for the dataset then
// served. A load or a reload runs at its own, lower pace meanwhile.
func paceServing(logger *slog.Logger, heap int64) {
	if v, ok := operatorGOGC(); ok {
		logger.Info("garbage collector pace from GOGC", slog.String("GOGC", v))
		return
	}
	percent := gcpace.ServePercent(heap)
	gcpace.SetBase(percent)
	logger.Info("garbage collector pace", slog.Int("gogc", percent), slog.Int64("heap", heap))
}

// releaseEvery is how often serve lets go of the past elections no
// request has used in server.IdleElection, and paces the collector again
// for the heap then live (repace).
const releaseEvery = time.Minute

// runRelease, every period until ctx ends, lets go of srv's past
// elections no request has used in idle and paces the collector again; it
// closes the channel it returns when it ends. serve runs it every
// releaseEvery for server.IdleElection.
func runRelease(ctx context.Context, srv *server.Server, logger *slog.Logger, every, idle time.Duration) <-chan struct{} {
	done := make(chan struct{})
	go func() {
		defer close(done)
		t := time.NewTicker(every)
		defer t.Stop()
		for {
			select {
			case <-ctx.Done():
				return
			case now := <-t.C:
				if released := srv.ReleaseIdle(now.Add(-idle)); len(released) > 0 {
					logger.Info("past elections let go, unused", slog.Any("elections", released), slog.Duration("idle", idle))
				}
				repace(logger, lastLiveHeap())
			}
		}
	}()
	return done
}

// repace sets the serving pace (gcpace.ServePercent) again for the live
// heap as the last collection found it, unless the operator set GOGC, and
// logs the pace when it changes: past elections loaded on request, or let
// go, change the heap the pace set at start was made for.
func repace(logger *slog.Logger, heap int64) {
	if _, set := operatorGOGC(); set || heap == 0 {
		return
	}
	if percent := gcpace.ServePercent(heap); percent != gcpace.Base() {
		gcpace.SetBase(percent)
		logger.Info("garbage collector pace", slog.Int("gogc", percent), slog.Int64("heap", heap))
	}
}

// lastLiveHeap is the live heap as the last collection found it, without
// a collection of its own (0 before the first).
func lastLiveHeap() int64 {
	live := []metrics.Sample{{Name: "/gc/heap/live:bytes"}}
	metrics.Read(live)
	if live[0].Value.Kind() == metrics.KindUint64 {
		return int64(live[0].Value.Uint64())
	}
	return 0
}

// processMemoryLimit returns the memory the process may not go past, and
// what sets it: GOMEMLIMIT when the operator set it, or the memory.max of
// the process's cgroup, the lower of the two; math.MaxInt64 and "" when
// neither is set. The soft limit serve sets itself (limitMemory) is no
// such bound: past it the collector runs more often, and that is all.
func processMemoryLimit() (int64, string) {
	limit, source := int64(math.MaxInt64), ""
	if v := os.Getenv("GOMEMLIMIT"); v != "" {
		// The runtime has parsed it at start; read it back as applied.
		if n := debug.SetMemoryLimit(-1); n < limit {
			limit, source = n, "GOMEMLIMIT="+v
		}
	}
	if n, ok := cgroupMemoryMax(); ok && n < limit {
		limit, source = n, "the cgroup's memory.max"
	}
	return limit, source
}

// cgroupRoot is where the cgroup file system is mounted.
var cgroupRoot = "/sys/fs/cgroup"

// cgroupMemoryMax reads the memory limit of the process's cgroup (v2:
// memory.max of the group /proc/self/cgroup names; v1: the memory
// controller's limit_in_bytes), false when there is none.
func cgroupMemoryMax() (int64, bool) {
	var paths []string
	if f, err := os.Open("/proc/self/cgroup"); err == nil {
		sc := bufio.NewScanner(f)
		for sc.Scan() {
			if rest, ok := strings.CutPrefix(sc.Text(), "0::"); ok {
				paths = append(paths, filepath.Join(cgroupRoot, rest, "memory.max"))
			}
		}
		_ = f.Close()
	}
	paths = append(paths, filepath.Join(cgroupRoot, "memory.max"), filepath.Join(cgroupRoot, "memory", "memory.limit_in_bytes"))
	for _, p := range paths {
		b, err := os.ReadFile(p)
		if err != nil {
			continue
		}
		v := strings.TrimSpace(string(b))
		if v == "max" {
			return 0, false
		}
		n, err := strconv.ParseInt(v, 10, 64)
		// cgroup v1 says "no limit" with a number near the largest.
		if err != nil || n <= 0 || n >= math.MaxInt64/2 {
			return 0, false
		}
		return n, true
	}
	return 0, false
}

// memoryInUse is what the Go runtime holds from the system now, less the
// heap it has given back.
func memoryInUse() int64 {
	s := []metrics.Sample{{Name: "/memory/classes/total:bytes"}, {Name: "/memory/classes/heap/released:bytes"}}
	metrics.Read(s)
	var total, released uint64
	if s[0].Value.Kind() == metrics.KindUint64 {
		total = s[0].Value.Uint64()
	}
	if s[1].Value.Kind() == metrics.KindUint64 {
		released = s[1].Value.Uint64()
	}
	return int64(total - min(released, total))
}

// reloadFits refuses a reload of the dataset or archive in dir that would
// take the process past its memory limit: a load's peak, the pages it
// makes included, is at most dataset.PeakMemoryPerByte times the files'
// size (an archive's, every election's, each loaded after the other),
// on top of what the process holds now, the dataset served included,
// which stays until the new one replaces it. Refused, the reload reads
// nothing, and the process is not killed half way through it.
func reloadFits(dir string, limit int64, source string) error {
	if dir == "" || source == "" { // the embedded dataset, or no limit
		return nil
	}
	size, err := archive.FilesSize(dir)
	if err != nil {
		return nil // the load reports the directory itself
	}
	inUse := memoryInUse()
	need := inUse + dataset.PeakMemoryPerByte*size
	if need <= limit {
		return nil
	}
	return fmt.Errorf("the dataset files are %d bytes, and loading them takes up to %d times that beside the %d bytes in use: %d bytes, past the memory limit of %d bytes (%s); raise the limit or make the files smaller",
		size, dataset.PeakMemoryPerByte, inUse, need, limit, source)
}
