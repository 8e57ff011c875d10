package dataset

import (
	"context"
	"runtime/debug"
	"testing"
)

// gcPercent reads GOGC as the runtime applies it.
func gcPercent() int {
	p := debug.SetGCPercent(100)
	debug.SetGCPercent(p)
	return p
}

// TestLoadPacesGC: a load and a check run the collector at LoadGCPercent,
// the lower of it and GOGC as it was; the last to end restores GOGC.
func TestLoadPacesGC(t *testing.T) {
	defer debug.SetGCPercent(debug.SetGCPercent(100))
	tests := []struct{ before, during int }{
		{100, LoadGCPercent},
		{50, LoadGCPercent},
		{10, 10},
		{-1, -1}, // GOGC=off stays off
	}
	for _, tt := range tests {
		debug.SetGCPercent(tt.before)
		first := paceGC()
		if got := gcPercent(); got != tt.during {
			t.Errorf("GOGC %d: %d during a load, want %d", tt.before, got, tt.during)
		}
		second := paceGC()
		first()
		if got := gcPercent(); got != tt.during {
			t.Errorf("GOGC %d: %d while a second load runs, want %d", tt.before, got, tt.during)
		}
		second()
		if got := gcPercent(); got != tt.before {
			t.Errorf("GOGC %d: %d after the loads, want it restored", tt.before, got)
		}
	}
	debug.SetGCPercent(100)
	if _, err := LoadDirContext(context.Background(), "malta-2022", Options{}); err != nil {
		t.Fatal(err)
	}
	if _, err := CheckDirContext(context.Background(), "malta-2022", Options{}); err != nil {
		t.Fatal(err)
	}
	if got := gcPercent(); got != 100 {
		t.Errorf("GOGC %d after LoadDirContext and CheckDirContext, want 100 restored", got)
	}
}
