package dataset_test

import (
	"os"
	"path/filepath"
	"testing"
	"testing/fstest"
)

// countSheets is a dataset with the 2022 count sheets, to break.
func countSheets(t testing.TB) fstest.MapFS {
	t.Helper()
	m := fstest.MapFS{}
	names, _ := filepath.Glob("testdata/counts-2022/*")
	for _, name := range names {
		b, err := os.ReadFile(name)
		if err != nil {
			t.Fatal(err)
		}
		m[filepath.Base(name)] = &fstest.MapFile{Data: b}
	}
	return m
}
