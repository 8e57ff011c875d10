package commands

import (
	"errors"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"

	"github.com/urfave/cli/v2"

	"ballot/dataset/sheet"
)

func importCommand() *cli.Command {
	return &cli.Command{
		Name:      "import",
		Usage:     "build a dataset directory from CSV files exported from a spreadsheet",
		ArgsUsage: "SRC OUT",
		Description: "Reads dataset.toml, parties.csv, districts.csv and candidates.csv from SRC\n" +
			"and writes the dataset they describe to OUT, which must not exist or be\n" +
			"empty unless --force is given. Every problem is reported at once, one per\n" +
			"line on stdout, as FILE:LINE: column: message; then nothing is written.\n" +
			"The output always passes 'ballot validate'.\n" +
			"Exit status: 0 written, 1 problems in SRC (nothing written), 2 usage error.",
		Flags: []cli.Flag{
			&cli.BoolFlag{Name: "force", Usage: "replace OUT, and everything in it, when it is not empty"},
		},
		OnUsageError: onUsageError,
		Action:       importSheets,
	}
}

func importSheets(c *cli.Context) error {
	if c.NArg() != 2 {
		return usagef("import takes SRC and OUT, got %d arguments", c.NArg())
	}
	src, out := c.Args().Get(0), c.Args().Get(1)
	if fi, err := os.Stat(src); err != nil || !fi.IsDir() {
		return usagef("%s is not a directory", src)
	}
	entries, err := os.ReadDir(out)
	switch {
	case errors.Is(err, os.ErrNotExist):
	case err != nil:
		return usagef("%s is not a directory", out)
	case len(entries) > 0 && !c.Bool("force"):
		return usagef("%s is not empty: give --force to replace it whole", out)
	}

	files, err := sheet.Import(os.DirFS(src))
	var problems sheet.Problems
	if errors.As(err, &problems) {
		for _, p := range problems {
			_, _ = fmt.Fprintln(c.App.Writer, p)
		}
		_, _ = fmt.Fprintf(c.App.ErrWriter, "ballot: import failed: %d %s, nothing written\n", len(problems), plural(len(problems), "problem", "problems"))
		return quietError{ExitFailure}
	}
	if err != nil {
		return err
	}
	if err := writeDataset(out, files); err != nil {
		return fmt.Errorf("import: %w", err)
	}
	_, _ = fmt.Fprintf(c.App.ErrWriter, "ballot: imported %s into %s\n", src, out)
	return nil
}

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}

// writeDataset writes files into a new directory beside dir and then
// renames it to dir, so a reader (or a failure half-way) never sees some
// files of the new dataset beside some of the old. An existing dir (empty,
// or replaced with --force) is renamed aside first and removed last.
func writeDataset(dir string, files map[string][]byte) error {
	parent := filepath.Dir(filepath.Clean(dir))
	tmp, err := os.MkdirTemp(parent, ".ballot-import-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(tmp) // a no-op once renamed
	for _, name := range slices.Sorted(maps.Keys(files)) {
		if err := os.WriteFile(filepath.Join(tmp, name), files[name], 0o644); err != nil {
			return err
		}
	}
	if err := os.Chmod(tmp, 0o755); err != nil {
		return err
	}
	old := ""
	if _, err := os.Stat(dir); err == nil {
		old = tmp + ".old"
		if err := os.Rename(dir, old); err != nil {
			return err
		}
	}
	if err := os.Rename(tmp, dir); err != nil {
		if old != "" {
			_ = os.Rename(old, dir)
		}
		return err
	}
	if old != "" {
		return os.RemoveAll(old)
	}
	return nil
}
