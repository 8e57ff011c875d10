// Package sheet turns a folder of CSV files, as a spreadsheet exports them,
// into the files of a dataset directory: what `ballot import` does. The
// format is described in docs/PUBLISHING.md ("Import from a spreadsheet").
//
// Import reports every problem it finds in one run, each as
// FILE:LINE: column: message, and returns files only when the dataset they
// make passes every rule `ballot validate` applies.
//
// Its files go by job: sheet.go runs an import, reader.go and read.go read
// a sheet (one pass for its delimiter, line ends, quotes, UTF-8 and lost
// letters), cells.go reads a cell, parties.go, districts.go and
// candidates.go build the records, counts.go reads the count sheets and
// matches their rows to candidates, ties.go reads how their ties were
// decided, names.go matches and suggests names,
// manifest.go reads the id namespace, encode.go writes the JSON,
// problems.go reports and place.go puts what the dataset's rules find in
// the JSON written at the sheets' lines and columns.
//
// It builds on dataset, whose rules it applies; it must not import server
// or commands.
package sheet

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"slices"
	"strconv"
	"strings"

	"github.com/google/uuid"

	"ballot/dataset"
	"ballot/suggest"
)

// The CSV files Import reads, beside dataset.ManifestFile and the count
// sheets (counts.go).
const (
	PartiesFile    = "parties.csv"
	DistrictsFile  = "districts.csv"
	CandidatesFile = "candidates.csv"
)

// Options change how Import reads the CSV files.
type Options struct {
	// Delimiter is the character between the cells of every CSV file:
	// ',', ';' or '\t'. Zero guesses it for each file from its header
	// row.
	Delimiter rune
}

// Read says how one CSV file was read.
type Read struct {
	File      string
	Delimiter rune
	Guessed   bool // from the header row, rather than given in Options
}

// Result is what ImportWith gives: the dataset's files (nil when there
// are errors), how each CSV file was read, and every problem, warnings
// among them.
type Result struct {
	Files    map[string][]byte
	Read     []Read
	Problems Problems
}

// columns of each file: the required ones, then the optional ones.
var (
	partyColumns     = columns{required: []string{"slug", "name", "short_name"}, optional: []string{"id", "name_en", "color", "website", "leader_name", "logo_url", "wikipedia_url"}}
	districtColumns  = columns{required: []string{"number", "locality"}, optional: []string{"id", "district_name", "locality_slug", "locality_name_en", "split", "note", "source_url", "seats"}}
	candidateColumns = columns{required: []string{"given_name", "family_name", "party", "districts"}, optional: []string{"id", "name", "slug", "elected", "is_incumbent", "website", "photo_url", "person", "person_id"}}
)

// columns of a file: the required ones, the optional ones, and, when
// numbered is not empty, the columns numbered from 1 after it (count_1,
// count_2, …).
type columns struct {
	required, optional []string
	numbered           string
}

func (c columns) all() []string { return append(slices.Clone(c.required), c.optional...) }

// knows reports whether h, a header name lower-cased, is one of c.
func (c columns) knows(h string) bool {
	return slices.Contains(c.required, h) || slices.Contains(c.optional, h) || c.number(h) > 0
}

// number returns the number of a numbered column h, or 0 when h is not
// one: its prefix, then a number from 1 written without leading zeros.
func (c columns) number(h string) int {
	digits, ok := strings.CutPrefix(h, c.numbered)
	if c.numbered == "" || !ok || digits == "" || digits[0] == '0' || len(digits) > 6 {
		return 0
	}
	n, err := strconv.Atoi(digits)
	if err != nil || n < 1 {
		return 0
	}
	return n
}

// Import reads dataset.toml, parties.csv, districts.csv and candidates.csv
// from src, and counts.csv and district_totals.csv (and ties.csv) when src
// has them, and returns the files of the dataset they describe, keyed by name: the
// manifest as it is, and the JSON files, indented, records in the order of
// the sheets (districts by number; counts.json as the API serves it). The same input always
// gives the same bytes. When anything is wrong, the error is Problems.
// Warnings are part of that error when there are errors too, and
// otherwise not returned: ImportWith gives them.
func Import(src fs.FS) (map[string][]byte, error) {
	res, err := ImportWith(src, Options{})
	return res.Files, err
}

// ImportWith is Import with options, and tells how each CSV file was read
// and what warnings it gave. The error, when there is one, is the Result's
// Problems.
func ImportWith(src fs.FS, opts Options) (Result, error) {
	im := importer{opts: opts, districtCount: dataset.DefaultDistricts}
	files, err := im.run(src)
	im.problems.sort()
	im.problems = dataset.Settle(im.problems)
	res := Result{Read: im.reads, Problems: im.problems}
	if err != nil {
		return res, err
	}
	if im.problems.Errors() > 0 {
		return res, im.problems
	}
	res.Files = files
	return res, nil
}

func (im *importer) run(src fs.FS) (map[string][]byte, error) {
	manifest := im.manifest(src)
	parties := im.parties(src)
	districts := im.districts(src)
	candidates, rows := im.candidates(src, parties, districts)
	counts := im.counts(src, parties, districts, candidates)
	pl := newPlaces(parties, districts, rows, counts)
	var countsJSON []byte
	if counts != nil && counts.complete(districts) {
		// The count is tallied on its own first: who it elects fills an
		// elected cell left empty, and refuses one that says no, before
		// candidates.json is written; and when the sheets have errors,
		// which stop the files every rule reads being made, a count that
		// does not add up is reported in this run all the same. Then a
		// district some of whose figures could not be read is not
		// counted: a cell read as 0 would be reported again as a count
		// that does not add up, and counted among the problems of its
		// kind.
		check, checkPlaces := counts, pl
		if im.problems.Errors() > 0 {
			bad := counts.unread(im.problems, counts.lineDistricts())
			read := *counts
			read.order = slices.DeleteFunc(slices.Clone(counts.order), func(n int) bool { return bad[n] })
			check, checkPlaces = &read, newPlaces(parties, districts, rows, &read)
		}
		if len(check.order) > 0 {
			countsJSON = dataset.EncodeJSON(check.records(districts, candidates))
			counts.dropTotals() // held no more: counts.json holds them
			problems, seats := dataset.CheckCountSheets(countsJSON)
			im.electedByCount(candidates, rows, check, seats)
			if im.problems.Errors() > 0 {
				im.countProblems(problems, checkPlaces)
			}
		}
	}
	if im.problems.Errors() > 0 {
		return nil, nil
	}
	out := map[string][]byte{dataset.ManifestFile: manifest}
	out[dataset.PartiesFile] = encode(parties.records)
	out[dataset.DistrictsFile] = encodeDistricts(districts.records())
	out[dataset.CandidatesFile] = encodeCandidates(candidates)
	if counts != nil {
		if countsJSON == nil {
			countsJSON = dataset.EncodeJSON(counts.records(districts, candidates))
			counts.dropTotals()
		}
		out[dataset.CountsFile] = countsJSON
		return im.checkWithCounts(out, counts, pl)
	}
	candidates = nil // held no more while the output is checked
	// What is written must be what serve accepts: check it with the very
	// rules it applies (as validate does, without the answers a server
	// prepares). What fails here is the manifest's (a missing title, a URL
	// that is not http) or an id given in an id column that another record
	// uses too; those problems, and the warnings validate would give, are
	// put at the lines and columns of the sheets.
	warnings, err := dataset.CheckFiles(out)
	if err != nil {
		var report *dataset.Report
		if !errors.As(err, &report) {
			return nil, err
		}
		im.placed(report.Errors, false, pl)
		return nil, nil
	}
	im.placed(warnings, true, pl)
	return out, nil
}

// countProblems adds the problems CheckCountSheets found in the count
// sheets while the other sheets have errors, at the sheets' lines and
// columns (pl's, of the districts counted), but those of a character a
// cell may not hold, which the cell's check has reported already.
func (im *importer) countProblems(problems []dataset.Problem, pl *places) {
	problems = slices.DeleteFunc(slices.Clone(problems), func(p dataset.Problem) bool {
		return p.Rule == "control-character" || p.Rule == "bidi-control"
	})
	im.placed(problems, false, pl)
}

// electedByCount fills the elected of each candidate a count sheet elects
// (seats, as CheckCountSheets gives them) whose cell is empty, with a
// warning that says so, and refuses one whose cell says no: a candidate
// elected at a count is elected.
func (im *importer) electedByCount(cands []dataset.Candidate, rows candidateRows, cs *countSheets, seats []dataset.SeatWon) {
	at := map[int][]string{} // candidate -> where a count elects them
	var order []int
	for _, e := range seats {
		n := cs.order[e.Sheet]
		r := cs.rows[n].candidacies[e.Row]
		if r.candidate < 0 {
			continue
		}
		if _, seen := at[r.candidate]; !seen {
			order = append(order, r.candidate)
		}
		at[r.candidate] = append(at[r.candidate], fmt.Sprintf("at count %d of district %d (line %d)", e.Count, n, r.line))
	}
	for _, i := range order {
		c := &cands[i]
		elects := fmt.Sprintf("%s elects %s %s", CountsFile, bare(c.Name), suggest.List(at[i], "and"))
		switch {
		case c.Elected == nil && rows.elected:
			im.warn(CandidatesFile, rows.lines[i], "elected", "left empty; filled with yes, as %s", elects)
		case c.Elected == nil:
			im.warn(CandidatesFile, rows.lines[i], "elected", "not given, as %s has no elected column; filled with yes, as %s", CandidatesFile, elects)
		case !*c.Elected:
			im.add(CandidatesFile, rows.lines[i], "elected", "says no, but %s; a candidate elected at a count is elected: write yes, or leave the cell empty to have it filled", elects)
			continue
		default:
			continue
		}
		yes := true
		c.Elected = &yes
	}
}

// checkWithCounts checks the files as run does, and loads them to write
// counts.json in the shape the API serves it, with what follows from the
// totals: each count's event, each candidacy's first preferences and the
// counts at which it was elected or excluded, and who was elected. A
// problem the rules find, and a warning, is reported at the line and
// column of the sheet it comes from.
func (im *importer) checkWithCounts(out map[string][]byte, counts *countSheets, pl *places) (map[string][]byte, error) {
	var largest int64
	for _, b := range out {
		largest = max(largest, int64(len(b)))
	}
	ds, err := dataset.LoadContext(context.Background(), dataset.Files(out), dataset.Options{RecordsOnly: true, MaxFileBytes: largest + 1})
	if err != nil {
		var report *dataset.Report
		if !errors.As(err, &report) {
			return nil, err
		}
		im.placed(report.Errors, false, pl)
		return nil, nil
	}
	im.placed(ds.Warnings, true, pl)
	out[dataset.CountsFile] = encodeSheets(ds.Sheets())
	return out, nil
}

// importer gathers the problems of one import.
type importer struct {
	opts      Options
	reads     []Read
	problems  Problems
	bound     dataset.Bound // of problems, whichever list they go to
	namespace uuid.UUID
	keyPrefix string
	hasNS     bool
	// districtCount is how many districts the election has, as
	// dataset.toml's [election] districts says (manifest); when it says
	// a number refused, districtsRefused is set, and the sheets' numbers
	// are read up to the most there may be, none said to be missing.
	districtCount    int
	districtsRefused bool
}
