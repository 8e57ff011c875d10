package commands

import (
	"context"
	"runtime/debug"
	"testing"

	"ballot/commands/gcpace"
	"ballot/dataset"
)

// TestLoadPacesGC: validate's check of a dataset directory runs the
// collector at gcpace.LoadPercent, and it and serve's load restore GOGC
// when they end.
func TestLoadPacesGC(t *testing.T) {
	defer debug.SetGCPercent(debug.SetGCPercent(100))
	const dir = "testdata/datasets/warnings"
	var during []int
	if _, _, err := checkDataset(context.Background(), dir, 0, func(dataset.Problem) { during = append(during, gcpace.Percent()) }); err != nil {
		t.Fatal(err)
	}
	if len(during) == 0 {
		t.Fatalf("%s gave no warning to read GOGC in", dir)
	}
	for _, p := range during {
		if p != gcpace.LoadPercent {
			t.Fatalf("GOGC %d during validate's check, want %d", p, gcpace.LoadPercent)
		}
	}
	if _, err := loadArchive(context.Background(), dir, dataset.Options{}); err != nil {
		t.Fatal(err)
	}
	if got := gcpace.Percent(); got != 100 {
		t.Errorf("GOGC %d after a check and a load, want 100 restored", got)
	}
}
