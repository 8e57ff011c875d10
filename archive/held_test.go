package archive_test

import (
	"os"
	"path/filepath"
	"reflect"
	"runtime"
	"slices"
	"sync"
	"testing"
	"testing/fstest"
	"time"
	"weak"

	"ballot/archive"
	"ballot/dataset"
)

// writeArchive writes the files of m under dir.
func writeArchive(t *testing.T, dir string, m map[string][]byte) {
	t.Helper()
	for name, b := range m {
		p := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// TestPastElectionsLetGo: a loaded archive holds the current election's
// dataset and no past one's; a past election's is loaded again when asked
// for, equal to a load of its directory on its own, from the bytes checked
// at load even when its files changed on disk since; Release lets go of
// those unused since the cutoff, and never of the current one's; what was
// made of a dataset (Made) goes with it.
func TestPastElectionsLetGo(t *testing.T) {
	dir := t.TempDir()
	files := map[string][]byte{}
	for name, f := range twoElections(t, twoTOML, nil, nil) {
		files[name] = f.Data
	}
	writeArchive(t, dir, files)
	a, err := archive.LoadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	current, past := a.Elections()[0], a.Elections()[1]
	if current != a.Current() || past.Record.Slug != "2017" {
		t.Fatalf("elections %q, %q; current %q", current.Record.Slug, past.Record.Slug, a.Current().Record.Slug)
	}
	// A load holds every election until a first Release, which lets go
	// of those never used, and only of the past ones'.
	if !current.IsHeld() || !past.IsHeld() {
		t.Fatalf("after load: current held %v, 2017 held %v; want both", current.IsHeld(), past.IsHeld())
	}
	first := weak.Make(past.Dataset())
	firstCandidates := weak.Make(&past.Dataset().Candidates()[0])
	if got := a.Release(time.Now().Add(time.Millisecond)); !slices.Equal(got, []string{"2017"}) || past.IsHeld() || !current.IsHeld() {
		t.Fatalf("first Release: let go of %q (2017 held %v, current held %v); want 2017 alone", got, past.IsHeld(), current.IsHeld())
	}
	// Nothing of the archive's (its people among it) keeps the dataset
	// let go, nor its records.
	runtime.GC()
	if first.Value() != nil || firstCandidates.Value() != nil {
		t.Errorf("2017's dataset (%v) or its candidates (%v) still reachable once let go", first.Value() != nil, firstCandidates.Value() != nil)
	}
	alone, err := dataset.LoadDirContext(t.Context(), filepath.Join(dir, "2017"), dataset.Options{Current: func(dataset.Election) bool { return false }})
	if err != nil {
		t.Fatal(err)
	}
	// The files change on disk: the archive serves what it checked until
	// a reload.
	if err := os.WriteFile(filepath.Join(dir, "2017", dataset.PartiesFile), []byte("[]"), 0o644); err != nil {
		t.Fatal(err)
	}
	ds := past.Dataset()
	if !past.IsHeld() || ds.Version != past.Version || ds.Version != alone.Version {
		t.Fatalf("2017 asked for: held %v, version %.12s; the load's %.12s, its directory's %.12s", past.IsHeld(), ds.Version, past.Version, alone.Version)
	}
	for _, c := range []dataset.Collection{dataset.Parties, dataset.Districts, dataset.Candidates} {
		want, _ := alone.Query(c, dataset.Params{"limit": {"500"}})
		got, _ := ds.Query(c, dataset.Params{"limit": {"500"}})
		if !reflect.DeepEqual(got, want) {
			t.Errorf("2017's %s loaded again differ from a load of its directory", c)
		}
	}
	if !reflect.DeepEqual(ds.Sheets(), alone.Sheets()) || !reflect.DeepEqual(ds.Warnings, alone.Warnings) {
		t.Error("2017's count sheets or warnings loaded again differ from a load of its directory")
	}
	if again := past.Dataset(); again != ds {
		t.Error("2017 asked for twice: loaded twice")
	}
	made := past.Held().Made("key", func(d *dataset.Dataset) any { return &struct{ ds *dataset.Dataset }{d} })
	if past.Held().Made("key", func(*dataset.Dataset) any { return nil }) != made {
		t.Error("Made with the same key made twice while held")
	}

	if got := a.Release(time.Now().Add(-time.Hour)); len(got) != 0 || !past.IsHeld() {
		t.Errorf("Release of those unused for an hour, 2017 used now: let go of %q", got)
	}
	if got := a.Release(time.Now().Add(time.Hour)); !slices.Equal(got, []string{"2017"}) || past.IsHeld() || !current.IsHeld() {
		t.Errorf("Release of everything unused: let go of %q (2017 held %v, current held %v); want 2017 alone", got, past.IsHeld(), current.IsHeld())
	}
	if got := a.Release(time.Now().Add(time.Hour)); len(got) != 0 {
		t.Errorf("Release again: let go of %q, want none", got)
	}
	gone := weak.Make(ds)
	ds = nil
	runtime.GC()
	if gone.Value() != nil {
		t.Error("2017's dataset still reachable once let go, with what was made of it")
	}
	again := past.Dataset()
	if again == gone.Value() || again.Version != past.Version {
		t.Errorf("2017 after Release: version %.12s", again.Version)
	}
	if past.Held().Made("key", func(*dataset.Dataset) any { return "new" }) != "new" {
		t.Error("what was made of 2017's dataset outlived its Release")
	}
}

// TestPastElectionsRace: requests using a past election while it is let
// go and loaded again each get a whole dataset (go test -race).
func TestPastElectionsRace(t *testing.T) {
	a, err := archive.Load(twoElections(t, twoTOML, nil, nil))
	if err != nil {
		t.Fatal(err)
	}
	past := a.Elections()[1]
	var wg sync.WaitGroup
	for range 4 {
		wg.Go(func() {
			for range 20 {
				h := past.Held()
				if h.Dataset.Version != past.Version || len(h.Dataset.Candidates()) == 0 {
					t.Errorf("a held 2017 of version %.12s and %d candidates", h.Dataset.Version, len(h.Dataset.Candidates()))
					return
				}
				_ = h.Made("n", func(d *dataset.Dataset) any { return len(d.Candidates()) })
			}
		})
	}
	wg.Go(func() {
		for range 20 {
			a.Release(time.Now().Add(time.Hour))
		}
	})
	wg.Wait()
}

// TestRecordsOnlyHoldsAll: an archive loaded with its records only (diff,
// validate) is read whole once: it lets go of nothing.
func TestRecordsOnlyHoldsAll(t *testing.T) {
	a, err := archive.LoadContext(t.Context(), twoElections(t, twoTOML, nil, nil), dataset.Options{RecordsOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range a.Elections() {
		if !e.IsHeld() {
			t.Errorf("%s not held after a load of the records only", e.Record.Slug)
		}
	}
	if got := a.Release(time.Now().Add(time.Hour)); len(got) != 0 {
		t.Errorf("Release let go of %q", got)
	}
}

// TestDatasetDirHeld: a dataset directory, an archive of one, holds its
// election whatever Release is asked.
func TestDatasetDirHeld(t *testing.T) {
	a, err := archive.Load(election(t))
	if err != nil {
		t.Fatal(err)
	}
	if got := a.Release(time.Now().Add(time.Hour)); len(got) != 0 || !a.Current().IsHeld() {
		t.Errorf("Release let go of %q (held %v)", got, a.Current().IsHeld())
	}
}

// TestTitle: an archive's title is archive.toml's, or the current
// election's dataset title without one, and a dataset directory's own.
func TestTitle(t *testing.T) {
	tests := []struct {
		name string
		fsys fstest.MapFS
		want string
	}{
		{"archive.toml's", twoElections(t, twoTOML+"title = \"General elections, 2017–2022\"\n", nil, nil), "General elections, 2017–2022"},
		{"none: the current election's", twoElections(t, twoTOML, nil, nil), ""},
		{"a dataset directory", election(t), ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			a, err := archive.Load(tt.fsys)
			if err != nil {
				t.Fatal(err)
			}
			want := tt.want
			if want == "" {
				want = a.Current().Manifest.Title
			}
			if got := a.Title(); got != want || got == "" {
				t.Errorf("Title() = %q, want %q", got, want)
			}
		})
	}
}
