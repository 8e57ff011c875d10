package commands

import (
	"context"
	"runtime/debug"
	"testing"

	"ballot/commands/gcpace"
	"ballot/dataset"
)

// TestLoadPacesGC: validate's check of a dataset directory runs the
// collector at the pace gcpace.LoadPercentFor gives for its files' size
// (Go's default for this small one, below the GOGC of 200 set here), and
// it and serve's load restore GOGC when they end.
func TestLoadPacesGC(t *testing.T) {
	defer debug.SetGCPercent(debug.SetGCPercent(200))
	const dir = "testdata/datasets/warnings"
	size, err := dataset.FilesSize(dir)
	if err != nil {
		t.Fatal(err)
	}
	want := gcpace.LoadPercentFor(size)
	if want != 100 {
		t.Fatalf("LoadPercentFor(%d) = %d, want 100 for a small dataset", size, want)
	}
	var during []int
	if _, err := checkDataset(context.Background(), dir, 0, func(dataset.Problem) { during = append(during, gcpace.Percent()) }); err != nil {
		t.Fatal(err)
	}
	if len(during) == 0 {
		t.Fatalf("%s gave no warning to read GOGC in", dir)
	}
	for _, p := range during {
		if p != want {
			t.Fatalf("GOGC %d during validate's check, want %d", p, want)
		}
	}
	if _, err := loadDataset(context.Background(), dir, 0); err != nil {
		t.Fatal(err)
	}
	if got := gcpace.Percent(); got != 200 {
		t.Errorf("GOGC %d after a check and a load, want 200 restored", got)
	}
}
