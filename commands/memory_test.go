package commands_test

import (
	"regexp"
	"strconv"
	"testing"
)

// memoryLimitLine is serve's start-up line about the limit it set.
var memoryLimitLine = regexp.MustCompile(`msg="memory limit" bytes=(\d+) counters=(\d+) heap=(\d+)`)

func TestServeSetsAMemoryLimit(t *testing.T) {
	const slack = 16 << 20
	cases := []struct {
		name     string
		args     []string
		counters int64 // the rate limiter's arrays for the cap
	}{
		{"the default cap of a million", nil, 64 << 14 * 48},
		{"a cap of 100,000", []string{"--max-tracked-clients", "100000"}, 64 << 11 * 48},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			p := prodStart(t, t.TempDir(), []string{"GOMEMLIMIT="}, append([]string{"--admin-listen", "127.0.0.1:0"}, tc.args...)...)
			admin := prodAdmin(t, p)
			m := memoryLimitLine.FindStringSubmatch(prodWaitLog(t, p, memoryLimitLine, "the memory limit line"))
			limit, _ := strconv.ParseInt(m[1], 10, 64)
			counters, _ := strconv.ParseInt(m[2], 10, 64)
			heap, _ := strconv.ParseInt(m[3], 10, 64)
			if counters != tc.counters {
				t.Errorf("counters = %d, want %d", counters, tc.counters)
			}
			// The small test dataset and the server take a few MiB.
			if heap <= 0 || heap > 64<<20 {
				t.Errorf("heap = %d, want a few MiB", heap)
			}
			if limit != counters+2*heap+slack {
				t.Errorf("limit %d, want counters %d + 2 x heap %d + 16 MiB = %d", limit, counters, heap, counters+2*heap+slack)
			}
			got, ok := prodSeries(prodMetrics(t, prodHTTP(t), admin), "go_gc_gomemlimit_bytes")
			if !ok || int64(got) != limit {
				t.Errorf("go_gc_gomemlimit_bytes = %v (%v), want %d", got, ok, limit)
			}
		})
	}
	t.Run("GOMEMLIMIT set: left as the operator set it", func(t *testing.T) {
		p := prodStart(t, t.TempDir(), []string{"GOMEMLIMIT=200MiB"}, "--admin-listen", "127.0.0.1:0")
		admin := prodAdmin(t, p)
		prodWaitLog(t, p, regexp.MustCompile(`msg="memory limit from GOMEMLIMIT" GOMEMLIMIT=200MiB`), "the GOMEMLIMIT line")
		got, ok := prodSeries(prodMetrics(t, prodHTTP(t), admin), "go_gc_gomemlimit_bytes")
		if !ok || got != 200<<20 {
			t.Errorf("go_gc_gomemlimit_bytes = %v (%v), want %d", got, ok, 200<<20)
		}
		if memoryLimitLine.MatchString(p.stderr.String()) {
			t.Errorf("serve set a limit of its own despite GOMEMLIMIT:\n%s", p.stderr.shortened())
		}
	})
}
