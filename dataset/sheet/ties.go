package sheet

import (
	"io/fs"
	"strconv"
	"strings"

	"ballot/dataset"
	"ballot/suggest"
)

// TiesFile is the sheet of how the count sheets' ties were decided:
// optional, beside counts.csv and district_totals.csv. A line states the
// decision of one tie (see dataset.Tie): its district and count, how it
// was decided, and, for a seat drawn by lot, who took it.
const TiesFile = "ties.csv"

var tiesColumns = columns{required: []string{"district", "count", "decided_by"}, optional: []string{"elected"}}

// tieLine is a line of ties.csv.
type tieLine struct {
	line      int
	count     int
	decidedBy string
	elected   []int // the rows of the district's counts.csv who took a seat by it
}

// ties reads ties.csv into cs, each name of its elected column matched to
// a row of its district in counts.csv. A line with a problem is left out
// of the sheets.
func (im *importer) ties(src fs.FS, cs *countSheets, cands []dataset.Candidate) {
	t, _ := im.readCSV(src, TiesFile, tiesColumns, nil)
	if t == nil {
		return
	}
	for _, r := range t.rows {
		problems := len(im.problems)
		n, ok := im.districtNumber(t, r, "district", t.get(r, "district"))
		if !ok {
			continue
		}
		d := cs.rows[n]
		if d == nil {
			im.add(t.file, r.line, "district", "district %d has no rows in %s: a tie is stated of a district's count sheet", n, CountsFile)
			continue
		}
		tl := tieLine{line: r.line}
		if s := im.required(t, r, "count"); s != "" {
			k, err := strconv.Atoi(s)
			if err != nil || k < 1 || strings.ContainsAny(s, "+-") {
				im.add(t.file, r.line, "count", "%q is not a count: write its number, such as 7", s)
			}
			tl.count = k
		}
		switch s := strings.ToLower(im.required(t, r, "decided_by")); s {
		case "":
		case dataset.DecidedByEarlierCounts, dataset.DecidedByLot:
			tl.decidedBy = s
		default:
			im.add(t.file, r.line, "decided_by", "%q is not how a tie is decided: write %s, when the earlier counts decided it, or %s", t.get(r, "decided_by"), dataset.DecidedByEarlierCounts, dataset.DecidedByLot)
		}
		for name := range strings.SplitSeq(t.get(r, "elected"), ";") {
			if name = strings.TrimSpace(name); name != "" {
				if j, ok := im.rowNamed(t, r, n, d, "elected", name, cands); ok {
					tl.elected = append(tl.elected, j)
				}
			}
		}
		if len(im.problems) == problems {
			cs.ties[n] = append(cs.ties[n], tl)
		}
	}
}

// rowNamed returns the row of district n, d, that a name in column col of
// a line names (ties.csv's elected, corrections.csv's name): the name the
// row prints, or its candidate's name or slug, compared as names are
// everywhere in import.
func (im *importer) rowNamed(t *table, r row, n int, d *districtRows, col, name string, cands []dataset.Candidate) (int, bool) {
	k := key(name)
	var found, lines []int
	var keys []nameKey
	for j, row := range d.candidacies {
		keys = append(keys, nameKey{key(row.name), j})
		if key(row.name) == k || row.candidate >= 0 && (key(cands[row.candidate].Name) == k || cands[row.candidate].Slug == k) {
			found, lines = append(found, j), append(lines, row.line)
		}
	}
	switch len(found) {
	case 1:
		return found[0], true
	case 0:
		var near []string
		for _, j := range nearest(k, keys) {
			near = append(near, strconv.Quote(d.candidacies[j].name))
		}
		im.add(t.file, r.line, col, "no row of district %d in %s is %q%s", n, CountsFile, name, suggest.Offer(near...))
	default:
		var at []string
		for _, l := range lines {
			at = append(at, strconv.Itoa(l))
		}
		im.add(t.file, r.line, col, "%q fits %d rows of district %d in %s, lines %s: write the candidate's slug", name, len(found), n, CountsFile, suggest.List(at, "and"))
	}
	return -1, false
}

// tieRecord is a decision of ties.csv as import first writes it in its
// sheet of counts.json.
type tieRecord struct {
	Count     int     `json:"count"`
	Kind      *string `json:"kind,omitempty"`
	DecidedBy string  `json:"decided_by"`
}

// tieRecords are the decisions of district n's ties.csv lines, and who
// took a seat by each: by row of counts.csv, the count.
func (cs *countSheets) tieRecords(n int) ([]tieRecord, map[int]int) {
	var out []tieRecord
	seats := map[int]int{}
	for _, tl := range cs.ties[n] {
		rec := tieRecord{Count: tl.count, DecidedBy: tl.decidedBy}
		if len(tl.elected) > 0 {
			rec.Kind = dataset.Optional(dataset.TieSeat)
		}
		for _, j := range tl.elected {
			seats[j] = tl.count
		}
		out = append(out, rec)
	}
	return out, seats
}
