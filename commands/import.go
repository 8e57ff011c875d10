package commands

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/urfave/cli/v2"

	"ballot/commands/gcpace"
	"ballot/dataset"
	"ballot/dataset/sheet"
)

func importCommand() *cli.Command {
	return &cli.Command{
		Name:      "import",
		Usage:     "build a dataset directory from CSV files exported from a spreadsheet",
		ArgsUsage: "SRC OUT",
		Description: "Reads dataset.toml, parties.csv, districts.csv and candidates.csv from SRC,\n" +
			"with the count sheets counts.csv and district_totals.csv when it has them\n" +
			"(and ties.csv, how their ties were decided; corrections.csv, the changes made\n" +
			"to the source's figures; defects.csv, the breaks of the rules they are known to have),\n" +
			"and writes the dataset they describe to OUT, which must not exist or be\n" +
			"empty unless --force is given; --force replaces only a dataset directory\n" +
			"(one holding dataset.toml). Every problem is reported at once, one per\n" +
			"line on stdout, as FILE:LINE: column: message; then nothing is written.\n" +
			"Warnings are reported the same way, and do not stop the import.\n" +
			"The cells of each CSV file are separated by ',', ';' or tabs, guessed\n" +
			"from its header row unless --delimiter is given; stderr says which.\n" +
			"The output always passes 'ballot validate'.\n" +
			"Exit status: 0 written, 1 problems in SRC (nothing written), 2 usage error.",
		Flags: []cli.Flag{
			&cli.BoolFlag{Name: "force", Usage: "replace OUT, and everything in it, when it is a dataset directory (holds dataset.toml)"},
			&cli.StringFlag{Name: "delimiter", Usage: "the character between cells in every CSV file: " + sheet.DelimiterValues + " (default: guessed from each file's header row)"},
			maxDatasetBytesFlag(),
		},
		OnUsageError: onUsageError,
		Action:       importSheets,
	}
}

// importSheets is import's action: it checks SRC and OUT, reads the
// sheets, reports every problem, and writes the dataset only when there is
// none.
func importSheets(c *cli.Context) error {
	src, out, opts, err := importArgs(c)
	if err != nil {
		return err
	}
	// The garbage collector runs at half the usual growth of the heap:
	// import is one batch of garbage (rows, records, the check of what is
	// written), and this lowers its peak by about a quarter at little
	// cost in time (docs/PERFORMANCE.md).
	defer gcpace.Lower(50)()
	res, err := readSheets(c.Context, src, c.Int(flagName("max_dataset_bytes")), opts)
	warnings := reportImport(c, res)
	var refused sheet.Problems
	if errors.As(err, &refused) {
		_, _ = fmt.Fprintf(c.App.ErrWriter, "ballot: import failed: %s%s, nothing written\n", dataset.Quantity(refused.Errors(), "problem"), warnings)
		return quietError{ExitFailure}
	}
	if err != nil {
		return err
	}
	if err := writeDataset(c.Context, out, res.Files); err != nil {
		if c.Context.Err() != nil {
			return stopped(c.Context)
		}
		return fmt.Errorf("import: %w", err)
	}
	if warnings != "" {
		warnings = " with" + strings.TrimPrefix(warnings, " and")
	}
	_, _ = fmt.Fprintf(c.App.ErrWriter, "ballot: imported %s into %s%s\n", src, out, warnings)
	return nil
}

// importArgs checks import's command line: SRC a directory, OUT a new
// directory, an empty one, or (with --force) a dataset directory apart
// from SRC, and the delimiter when one is given.
func importArgs(c *cli.Context) (src, out string, opts sheet.Options, err error) {
	if c.NArg() != 2 {
		return "", "", opts, usagef("import takes SRC and OUT, got %s", dataset.Quantity(c.NArg(), "argument"))
	}
	src, out = c.Args().Get(0), c.Args().Get(1)
	if c.IsSet("delimiter") {
		d, ok := sheet.ParseDelimiter(c.String("delimiter"))
		if !ok {
			return "", "", opts, usagef("--delimiter must be %s, got %q", sheet.DelimiterValues, c.String("delimiter"))
		}
		opts.Delimiter = d
	}
	if fi, err := os.Stat(src); err != nil || !fi.IsDir() {
		return "", "", opts, usagef("%s is not a directory", src)
	}
	if fi, err := os.Lstat(out); err == nil && fi.Mode()&fs.ModeSymlink != 0 {
		// The link a server reads is swapped to a validated directory,
		// never written through (see "Publishing a new version").
		return "", "", opts, usagef("%s is a symbolic link: import into a new directory, then swap the link to it", out)
	}
	if overlaps(src, out) {
		return "", "", opts, usagef("%s and %s overlap: OUT must be a directory apart from SRC, or --force would remove the sheets", src, out)
	}
	if err := checkParent(out); err != nil {
		return "", "", opts, err
	}
	entries, err := os.ReadDir(out)
	switch {
	case errors.Is(err, os.ErrNotExist):
	case err != nil:
		return "", "", opts, usagef("%s is not a directory", out)
	case len(entries) == 0:
	case !isDatasetDir(out):
		// --force removes OUT whole, so it must be something import
		// wrote before, never a directory of someone's other files.
		return "", "", opts, usagef("%s holds files and no %s: not a dataset directory; --force replaces only a dataset directory or an empty one", out, dataset.ManifestFile)
	case !c.Bool("force"):
		return "", "", opts, usagef("%s is not empty: give --force to replace it whole", out)
	}
	return src, out, opts, nil
}

// reportImport writes every problem on stdout and each sheet's delimiter
// on stderr, and returns the note of the warnings for import's last line
// (" and 2 warnings"), or "".
func reportImport(c *cli.Context, res sheet.Result) string {
	problems := newTextReport(c.App.Writer)
	for _, p := range res.Problems {
		problems.problem(p)
	}
	_ = problems.flush()
	for _, r := range res.Read {
		how := ""
		if !r.Guessed {
			how = " (--delimiter)"
		}
		_, _ = fmt.Fprintf(c.App.ErrWriter, "ballot: read %s: separated by %s%s\n", r.File, sheet.DelimiterName(r.Delimiter), how)
	}
	if _, n := dataset.CountProblems(res.Problems); n > 0 {
		return " and " + dataset.Quantity(n, "warning")
	}
	return ""
}

// checkParent returns a usage error when the directory out would be made
// in does not exist or is not a directory: import makes OUT, not the
// directories above it, so a mistyped path is not quietly created.
func checkParent(out string) error {
	parent := filepath.Dir(filepath.Clean(out))
	fi, err := os.Stat(parent)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return usagef("import: cannot write %s: its parent directory %s does not exist; create it first (mkdir -p %s)", out, parent, parent)
	case err != nil:
		return usagef("import: cannot write %s: %v", out, err)
	case !fi.IsDir():
		return usagef("import: cannot write %s: %s is not a directory", out, parent)
	}
	return nil
}

// isDatasetDir reports whether dir holds a dataset's manifest as a regular
// file: the mark of a directory that --force may replace.
func isDatasetDir(dir string) bool {
	fi, err := os.Lstat(filepath.Join(dir, dataset.ManifestFile))
	return err == nil && fi.Mode().IsRegular()
}

// overlaps reports whether one of the directories a and b holds the other,
// or they are the same, once both are made absolute and their symbolic
// links followed as far as they exist.
func overlaps(a, b string) bool {
	a, b = resolvedPath(a), resolvedPath(b)
	return within(a, b) || within(b, a)
}

// within reports whether path is dir or inside it.
func within(path, dir string) bool {
	rel, err := filepath.Rel(dir, path)
	return err == nil && filepath.IsLocal(rel) || rel == "."
}

// resolvedPath is path made absolute with the symbolic links of its longest
// existing prefix followed, so a path that does not exist yet still
// compares with the directories above it.
func resolvedPath(path string) string {
	abs, err := filepath.Abs(path)
	if err != nil {
		return filepath.Clean(path)
	}
	rest := ""
	for dir := abs; ; dir = filepath.Dir(dir) {
		if r, err := filepath.EvalSymlinks(dir); err == nil {
			return filepath.Join(r, rest)
		}
		if dir == filepath.Dir(dir) {
			return abs
		}
		rest = filepath.Join(filepath.Base(dir), rest)
	}
}

// writeDataset writes files into a new directory beside dir and then
// renames it to dir, so a reader (or a failure half-way) never sees some
// files of the new dataset beside some of the old. An existing dir (empty,
// or replaced with --force) is renamed aside first and removed last.
func writeDataset(ctx context.Context, dir string, files map[string][]byte) error {
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
	if ctx.Err() != nil { // the last moment a signal leaves OUT as it was
		return stopped(ctx)
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
