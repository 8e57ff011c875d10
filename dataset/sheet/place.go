package sheet

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"

	"ballot/dataset"
)

// places puts a problem the dataset's rules find in the JSON import writes
// (an error, or a warning validate would give) at the line and column of
// the sheet it comes from, and names each record its message points to by
// its sheet and line: the publisher wrote the sheets, not the JSON.
type places struct {
	parties    []int           // the line of each party
	districts  []districtLines // of each district, in the order of districts.json
	candidates candidateRows
	counts     *countSheets // nil without count sheets
}

func newPlaces(ps parties, ds *districts, rows candidateRows, counts *countSheets) *places {
	pl := &places{parties: ps.lines, candidates: rows, counts: counts}
	for n, d := range ds.byNumber {
		if d != nil { // as records writes them
			pl.districts = append(pl.districts, ds.lines[n])
		}
	}
	return pl
}

// The columns of the fields of a record whose names differ: of a
// district, of a locality, of a candidate.
var (
	districtColumn  = map[string]string{"name": "district_name", "localities": "locality"}
	localityColumn  = map[string]string{"name": "locality", "slug": "locality_slug", "name_en": "locality_name_en"}
	candidateColumn = map[string]string{"party_id": "party", "district_ids": "districts", "primary_district_id": "districts"}
)

// jsonRef is a record, or a part of one, that a message points to: a
// JSON file and a pointer, as FILE#POINTER or FILE POINTER.
var jsonRef = regexp.MustCompile(`\b(parties|districts|candidates|counts)\.json[# ](/[\w/~]*)`)

// place returns p at the line and column of its sheet, with each record
// its message points to named by its sheet and line. A candidate's name
// made of the given and family names has no cell: a problem of it is at
// its row, and keep is false for the warning of a formula, which theirs
// say.
func (pl *places) place(p dataset.Problem) (placed dataset.Problem, keep bool) {
	p.Message = jsonRef.ReplaceAllStringFunc(p.Message, func(ref string) string {
		m := jsonRef.FindStringSubmatch(ref)
		if file, line, _ := pl.cell(m[1]+".json", m[2]); line > 0 {
			return fmt.Sprintf("%s line %d", file, line)
		}
		return ref
	})
	if p.File == dataset.CountsFile {
		if pl.counts != nil {
			p = pl.counts.place(p)
		}
		return p, true
	}
	file, line, col := pl.cell(p.File, p.Pointer)
	if line == 0 {
		return p, true // the manifest's, or of a place no sheet gives
	}
	if p.File == dataset.CandidatesFile && col == "name" && !pl.candidates.named[recordIndex(p.Pointer)] {
		if p.Rule == "formula-prefix" {
			return p, false
		}
		col = ""
	}
	p.File, p.Pointer, p.Line, p.Column = file, "", line, col
	return p, true
}

// recordIndex is the index of the record a pointer is in, or -1.
func recordIndex(ptr string) int {
	first, _, _ := strings.Cut(strings.TrimPrefix(ptr, "/"), "/")
	i, err := strconv.Atoi(first)
	if err != nil {
		return -1
	}
	return i
}

// cell returns the sheet, line and column of what a pointer of a JSON
// file names: the record's row (a district's first, or the one that gives
// the field), and the field's column, "" for a whole record; line is 0
// when no sheet gives it.
func (pl *places) cell(file, ptr string) (sheet string, line int, col string) {
	if file == dataset.CountsFile {
		if pl.counts == nil {
			return "", 0, ""
		}
		sheet, line = pl.counts.line(ptr)
		return sheet, line, ""
	}
	i := recordIndex(ptr)
	tokens := strings.Split(strings.TrimPrefix(ptr, "/"), "/")
	field := ""
	if len(tokens) > 1 {
		field = tokens[1]
	}
	switch {
	case i < 0:
	case file == dataset.PartiesFile && i < len(pl.parties):
		return PartiesFile, pl.parties[i], field
	case file == dataset.CandidatesFile && i < len(pl.candidates.lines):
		if c, ok := candidateColumn[field]; ok {
			field = c
		}
		return CandidatesFile, pl.candidates.lines[i], field
	case file == dataset.DistrictsFile && i < len(pl.districts):
		d := pl.districts[i]
		if field == "localities" && len(tokens) > 2 {
			j, err := strconv.Atoi(tokens[2])
			if err != nil || j < 0 || j >= len(d.localities) {
				return DistrictsFile, d.first, field
			}
			col = ""
			if len(tokens) > 3 {
				col = tokens[3]
				if c, ok := localityColumn[col]; ok {
					col = c
				}
			}
			return DistrictsFile, d.localities[j], col
		}
		if c, ok := districtColumn[field]; ok {
			field = c
		}
		if own, ok := d.own[field]; ok {
			return DistrictsFile, own, field
		}
		return DistrictsFile, d.first, field
	}
	return "", 0, ""
}

// placed adds problems the dataset's rules found in the JSON written, at
// their sheets' lines and columns, as warnings when warning is set.
// A note counting the problems of a kind past the bound is put where the
// last of its kind kept was, and goes with it when that is not kept.
func (im *importer) placed(problems []dataset.Problem, warning bool, pl *places) {
	var last dataset.Problem // the last problem placed
	kept := false            // and whether it was kept
	for _, p := range problems {
		p.Warning = warning
		if p.More > 0 {
			if kept {
				p.File, p.Pointer, p.Line, p.Column = last.File, "", last.Line, last.Column
				im.problems = append(im.problems, p)
			}
			continue
		}
		if last, kept = pl.place(p); kept {
			im.problems = append(im.problems, last)
		}
	}
}
