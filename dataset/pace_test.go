package dataset

import (
	"context"
	"runtime/debug"
	"slices"
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
		first := PaceGC()
		if got := gcPercent(); got != tt.during {
			t.Errorf("GOGC %d: %d during a load, want %d", tt.before, got, tt.during)
		}
		second := PaceGC()
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

// TestOptionsWarn: with Options.Warn, a check and a load give each warning
// to it, in the order a report lists them, and keep none.
func TestOptionsWarn(t *testing.T) {
	const dir = "../commands/testdata/datasets/warnings"
	want, err := CheckDirContext(context.Background(), dir, Options{})
	if err != nil || len(want) < 5 {
		t.Fatalf("CheckDirContext: %d warnings, %v; want 5 or more", len(want), err)
	}
	var got []Problem
	kept, err := CheckDirContext(context.Background(), dir, Options{Warn: func(p Problem) { got = append(got, p) }})
	if err != nil || kept != nil {
		t.Fatalf("CheckDirContext with Warn: %d kept, %v; want none", len(kept), err)
	}
	if !slices.Equal(got, want) {
		t.Errorf("warnings given to Warn:\n%v\nwant\n%v", got, want)
	}
	got = nil
	ds, err := LoadDirContext(context.Background(), dir, Options{Warn: func(p Problem) { got = append(got, p) }})
	if err != nil || ds.Warnings != nil {
		t.Fatalf("LoadDirContext with Warn: %v, %v; want no warnings kept", err, ds.Warnings)
	}
	if !slices.Equal(got, want) {
		t.Errorf("warnings of a load given to Warn:\n%v\nwant\n%v", got, want)
	}
}
