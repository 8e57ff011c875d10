package gcpace_test

import (
	"runtime/debug"
	"testing"

	"ballot/commands/gcpace"
)

// TestLoadPacesGC: a load and a check run the collector at LoadPercent,
// the lower of it and GOGC as it was; the last to end restores GOGC.
func TestLoadPacesGC(t *testing.T) {
	defer debug.SetGCPercent(debug.SetGCPercent(100))
	tests := []struct{ before, during int }{
		{100, gcpace.LoadPercent},
		{50, gcpace.LoadPercent},
		{10, 10},
		{-1, -1}, // GOGC=off stays off
	}
	for _, tt := range tests {
		debug.SetGCPercent(tt.before)
		first := gcpace.Load()
		if got := gcpace.Percent(); got != tt.during {
			t.Errorf("GOGC %d: %d during a load, want %d", tt.before, got, tt.during)
		}
		second := gcpace.Load()
		first()
		if got := gcpace.Percent(); got != tt.during {
			t.Errorf("GOGC %d: %d while a second load runs, want %d", tt.before, got, tt.during)
		}
		second()
		if got := gcpace.Percent(); got != tt.before {
			t.Errorf("GOGC %d: %d after the loads, want it restored", tt.before, got)
		}
	}
}

// TestLowerNests: a load inside an import runs at the lower of the two
// paces, and the import's pace returns when the load ends; restoring twice
// restores once.
func TestLowerNests(t *testing.T) {
	defer debug.SetGCPercent(debug.SetGCPercent(100))
	endImport := gcpace.Lower(50)
	if got := gcpace.Percent(); got != 50 {
		t.Errorf("GOGC %d during an import, want 50", got)
	}
	endLoad := gcpace.Load()
	if got := gcpace.Percent(); got != gcpace.LoadPercent {
		t.Errorf("GOGC %d during a load inside an import, want %d", got, gcpace.LoadPercent)
	}
	endLoad()
	endLoad()
	if got := gcpace.Percent(); got != 50 {
		t.Errorf("GOGC %d once the load ended, want the import's 50", got)
	}
	endImport()
	if got := gcpace.Percent(); got != 100 {
		t.Errorf("GOGC %d once the import ended, want 100 restored", got)
	}
}

// TestBase: Base is GOGC outside every pacing, as SetBase set it, while
// a load lowers GOGC and once it ends.
func TestBase(t *testing.T) {
	defer debug.SetGCPercent(debug.SetGCPercent(100))
	gcpace.SetBase(180)
	if got := gcpace.Base(); got != 180 {
		t.Errorf("Base %d after SetBase(180)", got)
	}
	end := gcpace.Load()
	if got, now := gcpace.Base(), gcpace.Percent(); got != 180 || now != gcpace.LoadPercent {
		t.Errorf("during a load: Base %d, GOGC %d; want 180, %d", got, now, gcpace.LoadPercent)
	}
	gcpace.SetBase(240)
	end()
	if got, now := gcpace.Base(), gcpace.Percent(); got != 240 || now != 240 {
		t.Errorf("SetBase(240) during a load, once it ended: Base %d, GOGC %d; want 240, 240", got, now)
	}
}

// TestServePercent: a server's heap may grow by the larger of its live
// heap and ServeGarbage before the next collection.
func TestServePercent(t *testing.T) {
	tests := []struct {
		live int64
		want int
	}{
		{0, 1600},             // taken as 1 MiB
		{1 << 20, 1600},       // 16 MiB of garbage on 1 MiB
		{6 << 20, 267},        // the embedded dataset's order: 16/6, rounded up
		{16 << 20, 100},       // the live heap itself
		{1 << 30, 100},        // never below GOGC's default
		{(16 << 20) - 1, 101}, // just under: rounded up
		{8 << 20, 200},        // twice the live heap
	}
	for _, tt := range tests {
		got := gcpace.ServePercent(tt.live)
		if got != tt.want {
			t.Errorf("ServePercent(%d) = %d, want %d", tt.live, got, tt.want)
		}
		if live := max(tt.live, 1<<20); int64(got)*live < 100*gcpace.ServeGarbage {
			t.Errorf("ServePercent(%d) = %d lets less than ServeGarbage grow", tt.live, got)
		}
	}
}

// TestSetBase: the base pace applies at once when no load runs, and when
// the last load running ends, not before.
func TestSetBase(t *testing.T) {
	defer debug.SetGCPercent(debug.SetGCPercent(100))
	gcpace.SetBase(300)
	if got := gcpace.Percent(); got != 300 {
		t.Errorf("GOGC %d after SetBase(300), want 300", got)
	}
	end := gcpace.Load()
	gcpace.SetBase(400)
	if got := gcpace.Percent(); got != gcpace.LoadPercent {
		t.Errorf("GOGC %d after SetBase(400) during a load, want the load's %d", got, gcpace.LoadPercent)
	}
	end()
	if got := gcpace.Percent(); got != 400 {
		t.Errorf("GOGC %d once the load ended, want the base 400", got)
	}
	end = gcpace.Load()
	end()
	if got := gcpace.Percent(); got != 400 {
		t.Errorf("GOGC %d after a later load, want the base 400 restored", got)
	}
}
