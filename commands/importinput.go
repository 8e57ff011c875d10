package commands

import (
	"context"
	"fmt"
	"io/fs"
	"maps"
	"slices"

	"github.com/urfave/cli/v2"

	"ballot/dataset"
	"ballot/dataset/sheet"
)

// maxDatasetBytesFlag is import's limit on each input file: serve's
// max_dataset_bytes, from the same flag name and environment variable.
func maxDatasetBytesFlag() cli.Flag {
	return &cli.IntFlag{
		Name:    flagName("max_dataset_bytes"),
		EnvVars: []string{envName("max_dataset_bytes")},
		Value:   dataset.DefaultMaxFileBytes,
		Usage:   "largest input file, in bytes, as serve's max_dataset_bytes; a larger one is refused",
	}
}

// readSheets imports the sheets of directory src, each file opened as
// serve opens a dataset's (dataset.InputDir: regular files only, no link
// out of src, none over maxBytes, nothing of a refused file read). It
// returns as soon as ctx ends, SIGINT or SIGTERM, whatever the import is
// doing.
func readSheets(ctx context.Context, src string, maxBytes int, opts sheet.Options) (sheet.Result, error) {
	if err := (Config{MaxDatasetBytes: maxBytes}).checkMaxDatasetBytes(); err != nil {
		return sheet.Result{}, usageError{err}
	}
	dir, err := dataset.OpenInputDir(ctx, src, dataset.Options{MaxFileBytes: int64(maxBytes)})
	if err != nil {
		return sheet.Result{}, usagef("%s is not a directory", src)
	}
	return untilDone(ctx, func() (sheet.Result, error) {
		defer dir.Close()
		if problems := outputBound(dir, int64(maxBytes), opts); len(problems) > 0 {
			return sheet.Result{Problems: problems}, problems
		}
		res, err := sheet.ImportWith(dir, opts)
		if err == nil {
			if err = outputLimit(res.Files, int64(maxBytes)); err != nil {
				res.Problems = append(res.Problems, err.(sheet.Problems)...)
				res.Files = nil
			}
		}
		return res, err
	}, func() error { return stopped(ctx) })
}

// stopped is import's error once ctx has ended.
func stopped(ctx context.Context) error {
	return fmt.Errorf("import stopped: %v; nothing written", context.Cause(ctx))
}

// sheetRows gives, for each sheet, the JSON file import writes from it and
// the fewest bytes one of its rows adds there: its record (a district
// sheet's row is a locality, a line of district_totals.csv a count sheet,
// a line of ties.csv a tie of two, of corrections.csv a correction, of
// defects.csv a defect) with every value empty, written
// compactly. A row of counts.csv is a
// candidacy with a total at one count at least (a Non-transferable row
// adds its counts and its district's figures, more still), and each
// further count adds one more, of 2 bytes at least: it has, beside its
// counts, 4 cells at most.
var sheetRows = []sheetRow{
	{sheet.PartiesFile, dataset.PartiesFile, leastBytes(dataset.Party{ID: uuidShape}), 0},
	{sheet.DistrictsFile, dataset.DistrictsFile, leastBytes(dataset.Locality{}), 0},
	{sheet.CandidatesFile, dataset.CandidatesFile, leastBytes(sheet.FileCandidate{Candidate: dataset.Candidate{ID: uuidShape, PrimaryDistrictID: uuidShape, DistrictIDs: []string{uuidShape}}}), 0},
	{sheet.CountsFile, dataset.CountsFile, leastBytes(dataset.Candidacy{CandidateID: uuidShape, Totals: []int{0}}), int64(len(",0"))},
	{sheet.DistrictTotalsFile, dataset.CountsFile, leastBytes(dataset.CountSheet{DistrictID: uuidShape}), 0},
	{sheet.TiesFile, dataset.CountsFile, leastBytes(dataset.Tie{CandidateIDs: []string{uuidShape, uuidShape}}), 0},
	{sheet.CorrectionsFile, dataset.CountsFile, leastBytes(dataset.Correction{}), 0},
	{sheet.DefectsFile, dataset.CountsFile, leastBytes(dataset.Defect{}), 0},
}

type sheetRow struct {
	sheet, file string
	least       int64
	perCount    int64 // bytes of each count past the first, where a row has counts
}

// countsCells is how many cells of a row of counts.csv may be other than
// its counts: district, name, party and candidate.
const countsCells = 4

const uuidShape = "00000000-0000-0000-0000-000000000000"

func leastBytes(v any) int64 { return int64(len(dataset.EncodeJSON(v))) }

// outputBound counts the rows of each sheet as a stream, before import
// holds any of it, and refuses a sheet whose rows alone would make a JSON
// file larger than limit, which serve would refuse: import's memory is a
// multiple of what it writes, so it stays bounded by the limit. The rows
// are read as import reads them (sheet.CountCells: the same delimiter,
// blank rows left out); a sheet that cannot be read is left to the
// import, which reports it, and one that stops being readable is counted
// up to there.
func outputBound(fsys fs.FS, limit int64, opts sheet.Options) sheet.Problems {
	var problems sheet.Problems
	for _, s := range sheetRows {
		f, err := fsys.Open(s.sheet)
		if err != nil {
			continue
		}
		rows, cells, _ := sheet.CountCells(f, opts) // an error is the import's to report
		f.Close()
		least := rows * s.least
		if counts := cells - rows*countsCells; s.perCount > 0 && counts > rows {
			least += (counts - rows) * s.perCount
		}
		if least <= limit {
			continue
		}
		what := fmt.Sprintf("has %d rows", rows)
		if s.perCount > 0 {
			what += fmt.Sprintf(" of %d cells", cells)
		}
		problems = append(problems, dataset.Problem{File: s.sheet, Message: fmt.Sprintf(
			"%s, which make a %s of at least %d bytes, more than the limit of %d bytes a file (max_dataset_bytes)", what, s.file, least, limit)})
	}
	return problems
}

// outputLimit refuses a written file larger than limit, as serve would,
// at the sheet it is written from: the publisher wrote the sheets.
func outputLimit(files map[string][]byte, limit int64) error {
	var problems sheet.Problems
	for _, name := range slices.Sorted(maps.Keys(files)) {
		n := int64(len(files[name]))
		if n <= limit {
			continue
		}
		p := dataset.Problem{File: name, Message: fmt.Sprintf("would be %d bytes, more than the limit of %d bytes a file (max_dataset_bytes)", n, limit)}
		if i := slices.IndexFunc(sheetRows, func(s sheetRow) bool { return s.file == name }); i >= 0 {
			p = dataset.Problem{File: sheetRows[i].sheet, Message: fmt.Sprintf("makes a %s of %d bytes, more than the limit of %d bytes a file (max_dataset_bytes)", name, n, limit)}
		}
		problems = append(problems, p)
	}
	if len(problems) > 0 {
		return problems
	}
	return nil
}
