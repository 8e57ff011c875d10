package commands_test

import (
	"bytes"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"ballot/dataset"
)

// TestEmbeddedIsImported holds the embedded dataset to what `ballot import`
// makes of the committed sheets, file for file and byte for byte, as
// `go generate ./dataset/...` writes it (dataset/embed.go).
func TestEmbeddedIsImported(t *testing.T) {
	sheets := filepath.Join("..", "dataset", "malta-2022", "sheets")
	out := filepath.Join(t.TempDir(), "malta-2022")
	code, stdout, stderr := run(t, "import", sheets, out)
	if code != 0 || stdout != "" {
		t.Fatalf("import of %s: exit %d, stdout %q, stderr %q", sheets, code, stdout, stderr)
	}

	embedded := dataset.DefaultFS()
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
		t.Fatalf("import wrote %q, the embedded dataset holds %q", got, want)
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
			t.Errorf("dataset/malta-2022/%s is not what import makes of dataset/malta-2022/sheets; run `go generate ./dataset/...`", name)
		}
	}
}
