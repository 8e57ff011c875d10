package dataset_test

import (
	"os"
	"path/filepath"
	"testing"

	"ballot/dataset"
)

// copyDataset copies the test dataset at src into a new directory dst.
func copyDataset(t *testing.T, src, dst string) {
	t.Helper()
	if err := os.Mkdir(dst, 0o755); err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{dataset.ManifestFile, dataset.PartiesFile, dataset.DistrictsFile, dataset.CandidatesFile} {
		b, err := os.ReadFile(filepath.Join(src, name))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dst, name), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// TestResolveDir: a load reads every file from the one directory the data
// path resolves to: through a symbolic link (swapped by a publisher), and
// through the "..data" link of a Kubernetes ConfigMap volume, whose files
// are links through it.
func TestResolveDir(t *testing.T) {
	const valid = "../commands/testdata/datasets/valid"
	root := t.TempDir()
	real := filepath.Join(root, "v1")
	copyDataset(t, valid, real)
	link := filepath.Join(root, "current")
	if err := os.Symlink("v1", link); err != nil {
		t.Fatal(err)
	}

	cm := filepath.Join(root, "configmap")
	if err := os.Mkdir(cm, 0o755); err != nil {
		t.Fatal(err)
	}
	copyDataset(t, valid, filepath.Join(cm, "..2026_11_22_10_00_00.1"))
	if err := os.Symlink("..2026_11_22_10_00_00.1", filepath.Join(cm, dataset.ConfigMapLink)); err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{dataset.ManifestFile, dataset.PartiesFile, dataset.DistrictsFile, dataset.CandidatesFile} {
		if err := os.Symlink(filepath.Join(dataset.ConfigMapLink, name), filepath.Join(cm, name)); err != nil {
			t.Fatal(err)
		}
	}
	realResolved, err := filepath.EvalSymlinks(real) // the temporary directory may sit behind a link
	if err != nil {
		t.Fatal(err)
	}
	cmResolved, err := filepath.EvalSymlinks(filepath.Join(cm, "..2026_11_22_10_00_00.1"))
	if err != nil {
		t.Fatal(err)
	}

	tests := []struct{ name, dir, want string }{
		{"a directory", real, realResolved},
		{"a symbolic link", link, realResolved},
		{"a ConfigMap volume", cm, cmResolved},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := dataset.ResolveDir(tt.dir)
			if err != nil || got != tt.want {
				t.Errorf("ResolveDir(%s) = %q, %v; want %q", tt.dir, got, err, tt.want)
			}
			ds, err := dataset.LoadDir(tt.dir)
			if err != nil {
				t.Fatalf("LoadDir(%s): %v", tt.dir, err)
			}
			if ds.Manifest.Title != "Small test election" {
				t.Errorf("LoadDir(%s) loaded %q", tt.dir, ds.Manifest.Title)
			}
		})
	}

	for _, bad := range []string{filepath.Join(root, "missing"), filepath.Join(real, dataset.PartiesFile)} {
		if got, err := dataset.ResolveDir(bad); err == nil {
			t.Errorf("ResolveDir(%s) = %q, want an error", bad, got)
		}
		if _, err := dataset.LoadDir(bad); err == nil || err.Error() != "dataset is invalid: 1 error\n"+bad+": is not a dataset directory" {
			t.Errorf("LoadDir(%s): %v; want one problem, not a dataset directory", bad, err)
		}
	}
}
