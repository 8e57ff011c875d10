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
