package sheet

import (
	"io/fs"
	"slices"
	"strconv"
	"strings"

	"ballot/dataset"
)

// The errors of the record, optional sheets beside counts.csv and
// district_totals.csv: corrections.csv, each change the publisher made to
// a figure of the source the count sheets were made from, with its
// evidence; and defects.csv, each break of a rule of the count a sheet is
// known to have (see dataset.Correction and dataset.Defect).
const (
	CorrectionsFile = "corrections.csv"
	DefectsFile     = "defects.csv"
)

var (
	correctionsColumns = columns{required: []string{"district", "field", "from", "to", "evidence"}, optional: []string{"count", "name"}}
	defectsColumns     = columns{required: []string{"district", "rule", "note"}, optional: []string{"count", "elected"}}
)

// The fields a line of corrections.csv may change, and whether each names
// a row and a count.
var correctionFields = map[string]struct{ row, count bool }{
	dataset.CorrectedTotal: {true, true}, dataset.CorrectedNonTransferable: {false, true},
	dataset.CorrectedParty: {true, false}, dataset.CorrectedDistrict: {true, false},
}

// corrections reads corrections.csv into cs, each name matched to a row of
// its district in counts.csv and each party to a party of parties.csv. A
// line with a problem is left out of the sheets.
func (im *importer) corrections(src fs.FS, cs *countSheets, ps parties, cands []dataset.Candidate) {
	t, _ := im.readCSV(src, CorrectionsFile, correctionsColumns, nil)
	if t == nil {
		return
	}
	for _, r := range t.rows {
		problems := len(im.problems)
		n, d := im.sheetOf(t, r, cs, "a correction is of a district's count sheet")
		if d == nil {
			continue
		}
		c := dataset.Correction{Field: strings.ToLower(im.required(t, r, "field")), Evidence: strings.Clone(im.required(t, r, "evidence"))}
		kind, ok := correctionFields[c.Field]
		if !ok {
			if c.Field != "" {
				im.add(t.file, r.line, "field", "%s is not a field a correction changes: write total, non_transferable, party or district", echo(t.get(r, "field")))
			}
			continue
		}
		name := t.get(r, "name")
		switch {
		case kind.row && name == "":
			im.add(t.file, r.line, "name", "is empty: a correction of %s names its row, as %s prints it", c.Field, CountsFile)
		case kind.row:
			if j, ok := im.rowNamed(t, r, n, d, "name", name, cands); ok && d.candidacies[j].candidate >= 0 {
				c.CandidateID = &cands[d.candidacies[j].candidate].ID
			}
		case name != "" && key(name) != nonTransferable:
			im.add(t.file, r.line, "name", "is %s: a correction of %s names no row; leave it empty", echo(name), c.Field)
		}
		switch count := t.get(r, "count"); {
		case kind.count && count == "":
			im.add(t.file, r.line, "count", "is empty: a correction of %s names its count", c.Field)
		case kind.count:
			if k, ok := im.countCell(t, r, "count"); ok {
				c.Count = &k
			}
		case count != "":
			im.add(t.file, r.line, "count", "is %s: a correction of %s names no count; leave it empty", echo(count), c.Field)
		}
		c.From = im.correctedCell(t, r, "from", c.Field, ps)
		c.To = im.correctedCell(t, r, "to", c.Field, ps)
		if len(im.problems) == problems {
			cs.corrections[n] = append(cs.corrections[n], correctionLine{line: r.line, c: c})
		}
	}
}

// correctionLine is a line of corrections.csv.
type correctionLine struct {
	line int
	c    dataset.Correction
}

// sheetOf returns the district, and its rows in counts.csv, of a line of
// a sheet of the count sheets' statements; nil rows when it has none,
// which is reported, saying why the line needs them.
func (im *importer) sheetOf(t *table, r row, cs *countSheets, why string) (int, *districtRows) {
	n, ok := im.districtNumber(t, r, "district", t.get(r, "district"))
	if !ok {
		return 0, nil
	}
	d := cs.rows[n]
	if d == nil {
		im.add(t.file, r.line, "district", "district %d has no rows in %s: %s", n, CountsFile, why)
	}
	return n, d
}

// countCell reads a cell that names a count: a whole number, 1 or more.
func (im *importer) countCell(t *table, r row, col string) (int, bool) {
	s := t.get(r, col)
	k, err := strconv.Atoi(s)
	if err != nil || k < 1 || strings.ContainsAny(s, "+-") {
		im.add(t.file, r.line, col, "%s is not a count: write its number, such as 7", echo(s))
		return 0, false
	}
	return k, true
}

// correctedCell reads the from or to cell of a correction of field: votes
// (empty for an empty cell of the source) for a total or
// non_transferable; a party of parties.csv (empty for an independent) for
// a party; a district's number, or for from where the source filed the
// row, in words, for a district.
func (im *importer) correctedCell(t *table, r row, col, field string, ps parties) dataset.Cell {
	s := t.get(r, col)
	switch {
	case field == dataset.CorrectedParty:
		if s == "" || slices.Contains(independent, key(s)) {
			return dataset.Cell{}
		}
		i, msg := ps.find(s)
		if i < 0 {
			im.add(t.file, r.line, col, "%s", msg)
			return dataset.Cell{}
		}
		return dataset.TextCell(ps.records[i].ID)
	case field == dataset.CorrectedDistrict && col == "from" && !digits(s):
		if s == "" {
			im.add(t.file, r.line, col, "is empty: write the district the source gives the row, or where it files it, in words")
		}
		return dataset.TextCell(strings.Clone(s))
	case s == "" && col == "from":
		return dataset.Cell{} // the source's cell is empty
	case s == "":
		im.add(t.file, r.line, col, "is empty: write what the sheet holds")
		return dataset.Cell{}
	}
	n, _ := im.votes(t, r, col, "")
	return dataset.Number(n)
}

// defects reads defects.csv into cs, each name of its elected column
// matched to a row of its district in counts.csv, as ties.csv's are, when
// the rows could be matched to their candidates (match). A line with a
// problem is left out of the sheets; the rule, the count and the elected
// are checked by the dataset's rules, and their problems put at the line.
func (im *importer) defects(src fs.FS, cs *countSheets, cands []dataset.Candidate, match bool) {
	t, _ := im.readCSV(src, DefectsFile, defectsColumns, nil)
	if t == nil {
		return
	}
	for _, r := range t.rows {
		problems := len(im.problems)
		n, d := im.sheetOf(t, r, cs, "a defect is of a district's count sheet")
		if d == nil {
			continue
		}
		dl := defectLine{line: r.line, d: dataset.Defect{Rule: strings.ToLower(im.required(t, r, "rule")), Note: strings.Clone(im.required(t, r, "note"))}}
		if t.get(r, "count") != "" {
			if k, ok := im.countCell(t, r, "count"); ok {
				dl.d.Count = &k
			}
		}
		for name := range strings.SplitSeq(t.get(r, "elected"), ";") {
			if name = strings.TrimSpace(name); name != "" && match {
				if j, ok := im.rowNamed(t, r, n, d, "elected", name, cands); ok {
					dl.elected = append(dl.elected, j)
				}
			}
		}
		if len(im.problems) == problems {
			cs.defects[n] = append(cs.defects[n], dl)
		}
	}
}

// defectLine is a line of defects.csv.
type defectLine struct {
	line    int
	d       dataset.Defect
	elected []int // the rows of the district's counts.csv who took the seats the sheet leaves unfilled
}
