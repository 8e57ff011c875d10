package commands_test

import (
	"bytes"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"ballot/dataset"
)

// TestEmbeddedIsImported holds each election of the embedded archive to
// what `ballot import` makes of its committed sheets, file for file and
// byte for byte, as `go generate ./dataset/...` writes it
// (dataset/embed.go). 2022's sheets import without a warning; 2017's
// leave elected empty for import to fill from the count sheets, with a
// warning for each of the 53 candidates they elect (its SOURCES.md), and
// no other.
func TestEmbeddedIsImported(t *testing.T) {
	for _, tt := range []struct {
		election string
		filled   int // the warnings of an elected cell filled from counts.csv
	}{{"malta-2022", 0}, {"malta-2017", 53}} {
		election := tt.election
		t.Run(election, func(t *testing.T) {
			sheets := filepath.Join("..", "dataset", election, "sheets")
			out := filepath.Join(t.TempDir(), election)
			code, stdout, stderr := run(t, "import", sheets, out)
			filled := 0
			for line := range strings.Lines(stdout) {
				if !strings.Contains(line, ": elected: warning: left empty; filled with yes, as counts.csv elects ") {
					t.Errorf("import of %s warns: %q", sheets, line)
				}
				filled++
			}
			if code != 0 || filled != tt.filled {
				t.Fatalf("import of %s: exit %d, %d elected filled, want %d; stderr %q", sheets, code, filled, tt.filled, stderr)
			}

			embedded, err := fs.Sub(dataset.ArchiveFS(), election)
			if err != nil {
				t.Fatal(err)
			}
			names := func(fsys fs.FS) []string {
				t.Helper()
				entries, err := fs.ReadDir(fsys, ".")
				if err != nil {
					t.Fatal(err)
				}
				var names []string
				for _, e := range entries {
					names = append(names, e.Name())
				}
				return names
			}
			want, got := names(embedded), names(os.DirFS(out))
			if !slices.Equal(got, want) {
				t.Fatalf("import wrote %q, the embedded election holds %q", got, want)
			}
			for _, name := range want {
				w, err := fs.ReadFile(embedded, name)
				if err != nil {
					t.Fatal(err)
				}
				g, err := os.ReadFile(filepath.Join(out, name))
				if err != nil {
					t.Fatal(err)
				}
				if !bytes.Equal(g, w) {
					t.Errorf("dataset/%s/%s is not what import makes of dataset/%s/sheets; run `go generate ./dataset/...`", election, name, election)
				}
			}
		})
	}
}
