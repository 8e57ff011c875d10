package commands

import (
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"testing"

	"ballot/dataset"
)

// The cgroup's memory limit, as cgroup v2 and v1 write it; "max" and v1's
// near-largest number mean none.
func TestCgroupMemoryMax(t *testing.T) {
	cases := []struct {
		name, file, content string
		want                int64
		ok                  bool
	}{
		{"v2, a limit", "memory.max", "4294967296\n", 4 << 30, true},
		{"v2, none", "memory.max", "max\n", 0, false},
		{"v1, a limit", "memory/memory.limit_in_bytes", "536870912\n", 512 << 20, true},
		{"v1, none", "memory/memory.limit_in_bytes", "9223372036854771712\n", 0, false},
		{"no cgroup file", "", "", 0, false},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			root := t.TempDir()
			if tc.file != "" {
				path := filepath.Join(root, tc.file)
				if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(path, []byte(tc.content), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			old := cgroupRoot
			cgroupRoot = root
			t.Cleanup(func() { cgroupRoot = old })
			if got, ok := cgroupMemoryMax(); got != tc.want || ok != tc.ok {
				t.Errorf("cgroupMemoryMax() = %d, %v; want %d, %v", got, ok, tc.want, tc.ok)
			}
		})
	}
}

// A reload is refused, with its reason, when the files times the load's
// peak figure, beside what is in use, pass the limit; the embedded
// dataset and a process without a limit are never refused.
func TestReloadFits(t *testing.T) {
	dir := t.TempDir()
	for name, size := range map[string]int{"dataset.toml": 100, "parties.json": 1 << 20, "districts.json": 1000, "candidates.json": 2 << 20} {
		if err := os.WriteFile(filepath.Join(dir, name), make([]byte, size), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	const size = 100 + 1<<20 + 1000 + 2<<20
	const source = "the cgroup's memory.max"
	cases := []struct {
		name, dir, source string
		limit             int64
		refused           bool
	}{
		// The files alone at their peak fill the limit: with what the
		// process holds, they would pass it.
		{"past the limit", dir, source, dataset.PeakMemoryPerByte * size, true},
		{"within it", dir, source, 1 << 40, false},
		{"no limit", dir, "", 1, false},
		{"the embedded dataset", "", source, 1, false},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			err := reloadFits(tc.dir, tc.limit, tc.source)
			if !tc.refused {
				if err != nil {
					t.Errorf("reloadFits: %v, want nil", err)
				}
				return
			}
			want := regexp.MustCompile(`^the dataset files are ` + strconv.Itoa(size) + ` bytes, and loading them takes up to ` + strconv.Itoa(dataset.PeakMemoryPerByte) + ` times that beside the \d+ bytes in use: \d+ bytes, past the memory limit of ` + strconv.Itoa(dataset.PeakMemoryPerByte*size) + ` bytes \(the cgroup's memory\.max\); raise the limit or make the files smaller$`)
			if err == nil || !want.MatchString(err.Error()) {
				t.Errorf("reloadFits: %v\nwant it to match %s", err, want)
			}
		})
	}
}
