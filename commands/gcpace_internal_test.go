package commands

import (
	"bytes"
	"context"
	"log/slog"
	"runtime/debug"
	"strings"
	"testing"
	"time"

	"ballot/archive"
	"ballot/commands/gcpace"
	"ballot/dataset"
	"ballot/server"
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

// TestRepace: serve's release loop paces the collector again for the heap
// the last collection found live, and logs the pace when it changes only;
// GOGC set by the operator is left as set.
func TestRepace(t *testing.T) {
	defer debug.SetGCPercent(debug.SetGCPercent(100))
	t.Setenv("GOGC", "")
	var log bytes.Buffer
	logger := slog.New(slog.NewTextHandler(&log, nil))
	gcpace.SetBase(100)
	const heap = 4 << 20
	want := gcpace.ServePercent(heap)
	repace(logger, heap)
	repace(logger, heap)
	if got := gcpace.Base(); got != want || want == 100 {
		t.Errorf("GOGC %d after repace of a %d-byte heap, want ServePercent's %d", got, heap, want)
	}
	if n := strings.Count(log.String(), `msg="garbage collector pace"`); n != 1 {
		t.Errorf("%d pace lines for one change, want 1:\n%s", n, log.String())
	}
	t.Setenv("GOGC", "50")
	repace(logger, 1<<30)
	if got := gcpace.Base(); got != want {
		t.Errorf("GOGC %d after repace with GOGC set by the operator, want %d left", got, want)
	}
}

// TestRunRelease: serve's release loop lets go of the past elections no
// request used within its idle time, logs them, keeps the current one,
// and ends, closing its channel, when its context does.
func TestRunRelease(t *testing.T) {
	defer debug.SetGCPercent(debug.SetGCPercent(100)) // the loop paces the collector
	a, err := archive.Load(dataset.ArchiveFS())
	if err != nil {
		t.Fatal(err)
	}
	past := a.Elections()[1]
	past.Dataset()       // asked for: held
	var log bytes.Buffer // written by the loop alone, read once it has ended
	srv := server.New(a, server.DefaultOptions())
	ctx, cancel := context.WithCancel(context.Background())
	done := runRelease(ctx, srv, slog.New(slog.NewTextHandler(&log, nil)), time.Millisecond, 0)
	deadline := time.Now().Add(30 * time.Second)
	for past.IsHeld() && time.Now().Before(deadline) {
		time.Sleep(time.Millisecond)
	}
	cancel()
	select {
	case <-done:
	case <-time.After(30 * time.Second):
		t.Fatal("the release loop did not end with its context")
	}
	if past.IsHeld() || !a.Current().IsHeld() {
		t.Fatalf("after the loop: %s held %v, the current one %v; want false, true", past.Record.Slug, past.IsHeld(), a.Current().IsHeld())
	}
	if want := `msg="past elections let go, unused" elections="[`; !strings.Contains(log.String(), want) || !strings.Contains(log.String(), past.Record.Slug) {
		t.Errorf("the log does not say %s:\n%s", want, log.String())
	}
}
