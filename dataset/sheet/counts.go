package sheet

import (
	"errors"
	"fmt"
	"io/fs"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"ballot/dataset"
	"ballot/suggest"
)

// The count sheets, optional but only together: one row per candidacy
// with its running total at each count, and each district's figures.
const (
	CountsFile         = "counts.csv"
	DistrictTotalsFile = "district_totals.csv"
)

// columns of the count sheets. Two columns have two names, the
// Commission's transcription's and a plainer one: party_abbreviation or
// party, and audited_name or candidate.
var (
	countsColumns = columns{required: []string{"district", "name"}, optional: []string{"party", "party_abbreviation", "candidate", "audited_name"}, numbered: "count_"}
	totalsColumns = columns{required: []string{"district", "valid_votes", "quota", "seats"}, optional: []string{"registered", "counts", "status"}}
)

// nonTransferable is the key of the name of a district's non-transferable
// row.
var nonTransferable = key(dataset.NonTransferableRow)

// countSheets is what the count sheets give: each district's figures and
// rows, by number from 1 to the election's number of districts, and where
// each came from, to place a problem the dataset's rules find at its line
// and column.
type countSheets struct {
	totals      []*districtTotals
	rows        []*districtRows
	read        [2]bool  // counts.csv, district_totals.csv could be used
	partyCol    string   // the header name of the party column
	countCols   int      // count_1 to count_countCols
	countNames  []string // "count_1" to "count_<countCols>"
	order       []int    // the districts of counts.json, in its order
	ties        [][]tieLine
	corrections [][]correctionLine
	defects     [][]defectLine
}

// newCountSheets makes the count sheets of an election of n districts.
func newCountSheets(n int) *countSheets {
	return &countSheets{totals: make([]*districtTotals, n+1), rows: make([]*districtRows, n+1), ties: make([][]tieLine, n+1),
		corrections: make([][]correctionLine, n+1), defects: make([][]defectLine, n+1)}
}

// districtTotals is a line of district_totals.csv.
type districtTotals struct {
	line                int
	registered          *int
	valid, quota, seats int
	counts              int // 0 when not given
	status              string
}

// districtRows are the rows of counts.csv of one district.
type districtRows struct {
	first       int // the line of its first row
	candidacies []countRow
	nt          *countRow // the Non-transferable row
	byCandidate map[int]int
}

// countRow is a row of counts.csv.
type countRow struct {
	line      int
	name      string // as the sheet prints it
	candidate int    // its candidate, by the order of candidates.csv; -1 for none
	totals    []int  // to the last count filled
}

// counts reads the count sheets, when src has either, and matches each
// row to its candidate. It returns nil when src has neither.
func (im *importer) counts(src fs.FS, ps parties, ds *districts, cands []dataset.Candidate) *countSheets {
	hasCounts, hasTotals, hasTies := exists(src, CountsFile), exists(src, DistrictTotalsFile), exists(src, TiesFile)
	hasCorrections, hasDefects := exists(src, CorrectionsFile), exists(src, DefectsFile)
	switch {
	case !hasCounts && !hasTotals && (hasTies || hasCorrections || hasDefects):
		for _, s := range []struct {
			file, what string
			has        bool
		}{{TiesFile, "whose ties it states", hasTies}, {CorrectionsFile, "whose figures it corrects", hasCorrections}, {DefectsFile, "whose defects it states", hasDefects}} {
			if s.has {
				im.add(CountsFile, 0, "", "file is missing: %s needs it and %s beside it, for the count sheets %s", s.file, DistrictTotalsFile, s.what)
			}
		}
		return nil
	case !hasCounts && !hasTotals:
		return nil
	case !hasTotals:
		im.add(DistrictTotalsFile, 0, "", "file is missing: %s needs it beside it, for each district's valid votes, quota and seats", CountsFile)
	case !hasCounts:
		im.add(CountsFile, 0, "", "file is missing: %s needs it beside it, for each district's running totals count by count", DistrictTotalsFile)
	}
	// Rows are matched to candidates only when the sheets of the
	// candidates hold no errors: otherwise a row would be refused for a
	// candidate those errors left out.
	var match *candidateIndex
	if im.errorsIn(PartiesFile, DistrictsFile, CandidatesFile) == 0 && ps.read && ds.read {
		match = newCandidateIndex(ps, ds, cands)
	}
	cs := newCountSheets(im.districtCount)
	if hasCounts {
		im.countRows(src, cs, ps, match)
	}
	if hasTotals {
		im.districtTotals(src, cs)
	}
	// Each file is checked against the other only when both could be
	// used: otherwise every district would be said to be missing.
	if cs.read[0] && cs.read[1] {
		im.checkCountSheets(cs)
	}
	// Its names are matched to the rows of counts.csv, once they are.
	if hasTies && cs.read[0] && match != nil {
		im.ties(src, cs, cands)
	}
	if hasCorrections && cs.read[0] && match != nil {
		im.corrections(src, cs, ps, cands)
	}
	if hasDefects && cs.read[0] {
		im.defects(src, cs, cands, match != nil)
	}
	return cs
}

// exists reports whether src has a file name: one that cannot be opened
// for another reason is read, and reported, as the others are.
func exists(src fs.FS, name string) bool {
	f, err := src.Open(name)
	if err == nil {
		f.Close()
	}
	return !errors.Is(err, fs.ErrNotExist)
}

// errorsIn counts the errors reported of files.
func (im *importer) errorsIn(files ...string) int {
	n := 0
	for _, p := range im.problems {
		if !p.Warning && slices.Contains(files, p.File) {
			n += max(p.More, 1)
		}
	}
	return n
}

// countRows reads counts.csv into cs as a stream, each row's totals
// held as numbers.
func (im *importer) countRows(src fs.FS, cs *countSheets, ps parties, match *candidateIndex) {
	headerOK, checked := false, false
	t, problems := im.readCSV(src, CountsFile, countsColumns, func(t *table, r row) {
		if !checked {
			headerOK, checked = im.countsHeader(t, cs, false), true
		}
		if headerOK {
			im.countRow(t, r, cs, ps, match)
		}
	})
	if t == nil {
		return
	}
	// The header's problems are reported once, whether the file has rows
	// or not; the rows are dropped when it has any.
	if !im.countsHeader(t, cs, true) {
		clear(cs.rows)
		return
	}
	cs.read[0] = true
	im.problems = append(im.problems, problems...)
}

// countsHeader checks the columns of counts.csv that findColumns cannot:
// one party column, at most one candidate column, and count_1 to count_N
// with none missing between, reporting what is wrong when report is set.
// It notes the party column and N in cs.
func (im *importer) countsHeader(t *table, cs *countSheets, report bool) bool {
	add := func(col, format string, args ...any) {
		if report {
			im.add(t.file, 1, col, format, args...)
		}
	}
	ok := true
	for _, pair := range [][2]string{{"party", "party_abbreviation"}, {"candidate", "audited_name"}} {
		if t.has(pair[0]) && t.has(pair[1]) {
			add(pair[1], "says what %s says: keep one of the two columns", pair[0])
			ok = false
		}
	}
	cs.partyCol = "party"
	if t.has("party_abbreviation") {
		cs.partyCol = "party_abbreviation"
	} else if !t.has("party") {
		add("party", "required column is missing (or party_abbreviation): the party's slug, short name or name, empty for an independent")
		ok = false
	}
	cs.countCols = 0
	for h := range t.cols {
		cs.countCols = max(cs.countCols, countsColumns.number(h))
	}
	if cs.countCols == 0 {
		add("count_1", "required column is missing: count_1, count_2, … hold each row's running total at each count")
		return false
	}
	// The first missing is reported alone: count_999999 alone would
	// otherwise miss 999,998.
	cs.countNames = cs.countNames[:0]
	for k := 1; k <= cs.countCols; k++ {
		if !t.has(countColumn(k)) {
			add(countColumn(k), "column is missing: the columns count_1 to count_%d are each needed, one after another", cs.countCols)
			return false
		}
		cs.countNames = append(cs.countNames, countColumn(k))
	}
	return ok
}

func countColumn(k int) string { return "count_" + strconv.Itoa(k) }

// countRow reads a row of counts.csv into its district.
func (im *importer) countRow(t *table, r row, cs *countSheets, ps parties, match *candidateIndex) {
	n, ok := im.districtNumber(t, r, "district", t.get(r, "district"))
	if !ok {
		return
	}
	d := cs.rows[n]
	if d == nil {
		d = &districtRows{first: r.line, byCandidate: map[int]int{}}
		cs.rows[n] = d
	}
	row := countRow{line: r.line, name: strings.Clone(im.required(t, r, "name")), candidate: -1, totals: im.countCells(t, r, n, cs.countNames)}
	if key(row.name) == nonTransferable && t.get(r, "candidate")+t.get(r, "audited_name") == "" {
		if d.nt != nil {
			im.add(t.file, r.line, "name", "district %d has a Non-transferable row already, on line %d", n, d.nt.line)
			return
		}
		d.nt = &row
		return
	}
	if match != nil && row.name != "" {
		var nameCol string
		row.candidate, nameCol = im.matchRow(t, r, n, cs.partyCol, ps, match)
		if first, dup := d.byCandidate[row.candidate]; dup && row.candidate >= 0 {
			im.add(t.file, r.line, nameCol, "is %s again, whose row in district %d is line %d: a candidate has one row in each district they stand in", bare(match.cands[row.candidate].Name), n, first)
		} else if row.candidate >= 0 {
			d.byCandidate[row.candidate] = r.line
		}
	}
	d.candidacies = append(d.candidacies, row)
}

// countCells reads the running totals of a row of district n, in the
// columns names (count_1 to count_n), up to its last cell filled; an empty
// cell before it is a problem, and so is a cell that is not a whole number
// of votes. Each problem names the district and the count, as the rules
// of the count do.
func (im *importer) countCells(t *table, r row, n int, names []string) []int {
	last := 0
	for k := len(names); k >= 1; k-- {
		if t.get(r, names[k-1]) != "" {
			last = k
			break
		}
	}
	totals := make([]int, last)
	for k := 1; k <= last; k++ {
		col := names[k-1]
		if t.get(r, col) == "" {
			im.add(t.file, r.line, col, "%sis empty, but count_%d is not: a row has a total at every count up to its district's last", atCount(n, k), last)
			continue
		}
		totals[k-1], _ = im.votes(t, r, col, atCount(n, k))
	}
	return totals
}

// atCount begins a message of count k of district n, as the rules of the
// count begin theirs: "district 4, count 3: ".
func atCount(n, k int) string { return fmt.Sprintf("district %d, count %d: ", n, k) }

// votes reads a cell that must be a whole number of votes (or of seats,
// or of counts), 0 or more, and at most dataset.MaxVotes: no count of a
// sheet that balances is more than its valid votes, which are at most
// that. A problem's message begins with at.
func (im *importer) votes(t *table, r row, col, at string) (int, bool) {
	s := t.get(r, col)
	n, err := strconv.Atoi(s)
	switch {
	case digits(s) && (err != nil || n > dataset.MaxVotes):
		what := "votes"
		if col == "seats" || col == "counts" {
			what = col
		}
		im.add(t.file, r.line, col, "%s%s is more %s than a count can hold: at most %s", at, echo(s), what, dataset.Thousands(dataset.MaxVotes))
		return 0, false
	case err != nil || n < 0 || strings.ContainsAny(s, "+-"):
		im.add(t.file, r.line, col, "%s%s is not a whole number of votes: write digits only, such as 1234", at, echo(s))
		return 0, false
	}
	return n, true
}

// digits reports whether s is digits only, at least one.
func digits(s string) bool {
	return s != "" && strings.Trim(s, "0123456789") == ""
}

// districtTotals reads district_totals.csv into cs.
func (im *importer) districtTotals(src fs.FS, cs *countSheets) {
	t, _ := im.readCSV(src, DistrictTotalsFile, totalsColumns, nil)
	if t == nil {
		return
	}
	cs.read[1] = true
	for _, r := range t.rows {
		n, ok := im.districtNumber(t, r, "district", t.get(r, "district"))
		if !ok {
			continue
		}
		if first := cs.totals[n]; first != nil {
			im.add(t.file, r.line, "district", "district %d is already on line %d", n, first.line)
			continue
		}
		dt := &districtTotals{line: r.line, status: dataset.StatusFinal}
		dt.valid = im.requiredVotes(t, r, "valid_votes")
		dt.quota = im.requiredVotes(t, r, "quota")
		dt.seats = im.requiredVotes(t, r, "seats")
		if t.get(r, "registered") != "" {
			if v, ok := im.votes(t, r, "registered", ""); ok {
				dt.registered = &v
			}
		}
		if t.get(r, "counts") != "" {
			dt.counts, _ = im.votes(t, r, "counts", "")
			if dt.counts == 0 && t.get(r, "counts") == "0" {
				im.add(t.file, r.line, "counts", "is 0: a sheet holds count 1 at least")
			}
		}
		switch s := strings.ToLower(t.get(r, "status")); s {
		case "", dataset.StatusFinal:
		case dataset.StatusCounting:
			dt.status = s
		default:
			im.add(t.file, r.line, "status", "%s is not a status: write counting while counts are still coming in, or final (or leave it empty) once the count is over", echo(t.get(r, "status")))
		}
		cs.totals[n] = dt
	}
}

// requiredVotes reads a cell that must be a whole number, not empty.
func (im *importer) requiredVotes(t *table, r row, col string) int {
	if im.required(t, r, col) == "" {
		return 0
	}
	v, _ := im.votes(t, r, col, "")
	return v
}

// checkCountSheets checks the two sheets against each other: each
// district in both, with a Non-transferable row, and every row with a
// total at each of its district's counts. It notes in cs.order the
// districts that make a sheet of counts.json.
func (im *importer) checkCountSheets(cs *countSheets) {
	for n := 1; n < len(cs.totals); n++ {
		dt, d := cs.totals[n], cs.rows[n]
		switch {
		case dt == nil && d == nil:
			continue
		case dt == nil:
			im.add(CountsFile, d.first, "district", "district %d has no line in %s: give its valid votes, quota and seats there", n, DistrictTotalsFile)
			continue
		case d == nil:
			im.add(DistrictTotalsFile, dt.line, "district", "district %d has no rows in %s", n, CountsFile)
			continue
		case d.nt == nil:
			im.add(CountsFile, d.first, "name", "district %d has no Non-transferable row: add one, named Non-transferable, with the running total of the votes that could go to no continuing candidate", n)
			continue
		}
		if im.checkCountsOf(n, cs) {
			cs.order = append(cs.order, n)
		}
	}
}

// checkCountsOf checks that every row of district n has a total at each of
// its counts: as many as district_totals.csv's counts, when it gives
// them, else as the row with the most.
func (im *importer) checkCountsOf(n int, cs *countSheets) bool {
	dt, d := cs.totals[n], cs.rows[n]
	rows := append([]*countRow{d.nt}, pointers(d.candidacies)...)
	last, longest := dt.counts, d.nt
	if dt.counts > cs.countCols {
		im.add(DistrictTotalsFile, dt.line, "counts", "is %d, and %s has columns up to count_%d", dt.counts, CountsFile, cs.countCols)
		return false
	}
	if last == 0 {
		for _, r := range rows {
			if len(r.totals) > len(longest.totals) {
				longest = r
			}
		}
		last = len(longest.totals)
	}
	ok := true
	for _, r := range rows {
		switch {
		case len(r.totals) == last:
			continue
		case dt.counts > 0 && len(r.totals) > last:
			im.add(CountsFile, r.line, countColumn(last+1), "%sis filled, past the district's last count: %s line %d gives it %d counts", atCount(n, last+1), DistrictTotalsFile, dt.line, last)
		case dt.counts > 0:
			im.add(CountsFile, r.line, countColumn(len(r.totals)+1), "%sis empty, and the district has %d counts (%s line %d): a row has a total at each count", atCount(n, len(r.totals)+1), last, DistrictTotalsFile, dt.line)
		default:
			im.add(CountsFile, r.line, countColumn(len(r.totals)+1), "%sis empty, and line %d has a total at count %d: every row of the district has a total at each of its counts", atCount(n, len(r.totals)+1), longest.line, last)
		}
		ok = false
	}
	return ok
}

func pointers[T any](s []T) []*T {
	out := make([]*T, len(s))
	for i := range s {
		out[i] = &s[i]
	}
	return out
}

// candidateIndex finds a row's candidate by name, party and district.
type candidateIndex struct {
	cands     []dataset.Candidate
	byKey     map[string][]int // key of a name, or a slug -> records
	keys      []nameKey
	districts map[string]int // district id -> number
	ids       []string       // number -> district id
	parties   map[string]string
}

func newCandidateIndex(ps parties, ds *districts, cands []dataset.Candidate) *candidateIndex {
	ci := &candidateIndex{cands: cands, byKey: map[string][]int{}, districts: map[string]int{}, ids: make([]string, len(ds.byNumber)), parties: map[string]string{}}
	for i, c := range cands {
		ci.byKey[key(c.Name)] = append(ci.byKey[key(c.Name)], i)
		if c.Slug != key(c.Name) {
			ci.byKey[c.Slug] = append(ci.byKey[c.Slug], i)
		}
		ci.keys = append(ci.keys, nameKey{key(c.Name), i})
	}
	for n, d := range ds.byNumber {
		if d != nil {
			ci.districts[d.ID] = n
			ci.ids[n] = d.ID
		}
	}
	for _, p := range ps.records {
		ci.parties[p.ID] = p.ShortName
	}
	return ci
}

// independent is what a party cell of counts.csv may say of an
// independent, beside an empty cell, when no party goes by it.
var independent = []string{"ind", "independent", "indipendenti", "indipendent"}

// matchRow returns the candidate of a row of district n: the one of that
// name (its candidate cell, else its name cell), party and district. It
// reports a row that fits no one, or two, and returns -1. It returns the
// column the name was read from too.
func (im *importer) matchRow(t *table, r row, n int, partyCol string, ps parties, ci *candidateIndex) (int, string) {
	nameCol := "name"
	if t.get(r, "candidate") != "" {
		nameCol = "candidate"
	} else if t.get(r, "audited_name") != "" {
		nameCol = "audited_name"
	}
	name := t.get(r, nameCol)
	var party *string
	if cell := t.get(r, partyCol); cell != "" {
		i, msg := ps.find(cell)
		switch {
		case i >= 0:
			party = &ps.records[i].ID
		case !slices.Contains(independent, key(cell)):
			im.add(t.file, r.line, partyCol, "%s", msg)
			return -1, nameCol
		}
	}
	var found []int
	for _, i := range ci.byKey[key(name)] {
		c := ci.cands[i]
		if equalParty(c.PartyID, party) && slices.Contains(c.DistrictIDs, ci.ids[n]) && !slices.Contains(found, i) {
			found = append(found, i)
		}
	}
	if len(found) > 1 {
		// A candidate's slug that is also the key of the name they share
		// with another names them alone, as the message below asks.
		bySlug := slices.DeleteFunc(slices.Clone(found), func(i int) bool { return ci.cands[i].Slug != name })
		if len(bySlug) == 1 {
			found = bySlug
		}
	}
	var forms []int
	if len(found) == 0 {
		forms = ci.formsOf(name, n, party)
	}
	if len(found) == 0 && nameCol == "name" {
		if len(forms) == 1 {
			c := ci.cands[forms[0]]
			col := "candidate"
			if t.has("audited_name") {
				col = "audited_name"
			}
			im.warn(t.file, r.line, nameCol, "%s is taken as %s, %s, standing in district %d, whose name in %s is a form of it (the name without a part, or a nickname in brackets); write %s in %s to say so", echo(name), bare(c.Name), ci.partyText(party), n, CandidatesFile, echo(c.Name), col)
			return forms[0], nameCol
		}
	}
	switch len(found) {
	case 1:
		return found[0], nameCol
	case 0:
		im.add(t.file, r.line, nameCol, "no candidate in %s is %s, %s, standing in district %d%s", CandidatesFile, echo(name), ci.partyText(party), n, ci.nearest(name, forms))
	default:
		var slugs []string
		for _, i := range found {
			slugs = append(slugs, echo(ci.cands[i].Slug))
		}
		im.add(t.file, r.line, nameCol, "%s, %s, standing in district %d, fits %d candidates in %s, %s: write the slug of the one meant in a candidate column", echo(name), ci.partyText(party), n, len(found), CandidatesFile, suggest.List(slugs, "and"))
	}
	return -1, nameCol
}

// formsOf returns the candidates of party standing in district n whose
// name is a form of name, as a sheet and a list of candidates may each
// print a name: one holds the other whole but for given or middle names
// (Maria Deguara, Maria Fatima Deguara; Rebekah Cilia, Rebekah-Ann Cilia),
// or a nickname in brackets, left out or in place of the name before it
// (Carmelo [Charlie] Abela: Carmelo Abela, Charlie Abela).
func (ci *candidateIndex) formsOf(name string, n int, party *string) []int {
	var forms [][]string
	for _, f := range nameForms(name) {
		forms = append(forms, strings.Split(key(f), "-"))
	}
	var found []int
	for i, c := range ci.cands {
		if !equalParty(c.PartyID, party) || !slices.Contains(c.DistrictIDs, ci.ids[n]) {
			continue
		}
		words := strings.Split(key(c.Name), "-")
		if slices.ContainsFunc(forms, func(f []string) bool { return holdsName(f, words) || holdsName(words, f) }) {
			found = append(found, i)
		}
	}
	return found
}

func equalParty(a, b *string) bool { return a == nil && b == nil || a != nil && b != nil && *a == *b }

// partyText names a party for a message: "of PN", or "an independent".
func (ci *candidateIndex) partyText(id *string) string {
	if id == nil {
		return "an independent"
	}
	return "of " + bare(ci.parties[*id])
}

// nearest names the candidates nearest name, with their party and
// districts, as " (did you mean …?)", or "": those whose names are forms
// of it first, then those the suggester finds, three at most.
func (ci *candidateIndex) nearest(name string, forms []int) string {
	var near []string
	seen := map[int]bool{}
	for _, i := range append(forms, nearest(key(name), ci.keys)...) {
		if len(near) == 3 || seen[i] {
			continue
		}
		seen[i] = true
		c := ci.cands[i]
		var numbers []string
		for _, id := range c.DistrictIDs {
			numbers = append(numbers, strconv.Itoa(ci.districts[id]))
		}
		in := "district "
		if len(numbers) > 1 {
			in = "districts "
		}
		near = append(near, fmt.Sprintf("%s, %s, in %s%s", echo(c.Name), ci.partyText(c.PartyID), in, suggest.List(numbers, "and")))
	}
	return suggest.Offer(near...)
}

// sheetRecord is a count sheet as import first writes it: only what the
// sheets give, which the dataset's rules check and complete. Who took a
// seat by a lot that ties.csv states is its candidacy's elected_at_count.
type sheetRecord struct {
	DistrictID     string               `json:"district_id"`
	DistrictNumber int                  `json:"district_number"`
	Status         string               `json:"status"`
	Seats          int                  `json:"seats"`
	Registered     *int                 `json:"registered"`
	ValidVotes     int                  `json:"valid_votes"`
	Quota          int                  `json:"quota"`
	Counts         []countRecord        `json:"counts"`
	Candidacies    []candidacyRecord    `json:"candidacies"`
	Ties           []tieRecord          `json:"ties,omitempty"`
	Corrections    []dataset.Correction `json:"corrections,omitempty"`
	Defects        []dataset.Defect     `json:"defects,omitempty"`
}

type countRecord struct {
	NonTransferable int `json:"non_transferable"`
}

type candidacyRecord struct {
	CandidateID    string `json:"candidate_id"`
	Name           string `json:"name"`
	Totals         []int  `json:"totals"`
	ElectedAtCount *int   `json:"elected_at_count,omitempty"`
}

// records returns the sheets of counts.json, in the order of cs.order,
// each candidacy in the order of its rows.
func (cs *countSheets) records(ds *districts, cands []dataset.Candidate) []sheetRecord {
	out := make([]sheetRecord, 0, len(cs.order))
	for _, n := range cs.order {
		dt, d := cs.totals[n], cs.rows[n]
		s := sheetRecord{
			DistrictID: ds.byNumber[n].ID, DistrictNumber: n, Status: dt.status, Seats: dt.seats, Registered: dt.registered,
			ValidVotes: dt.valid, Quota: dt.quota,
			Counts: make([]countRecord, len(d.nt.totals)), Candidacies: make([]candidacyRecord, len(d.candidacies)),
		}
		for k, v := range d.nt.totals {
			s.Counts[k].NonTransferable = v
		}
		ties, seats := cs.tieRecords(n)
		s.Ties = ties
		for _, cl := range cs.corrections[n] {
			s.Corrections = append(s.Corrections, cl.c)
		}
		for _, dl := range cs.defects[n] {
			def := dl.d
			def.Elected = make([]string, 0, len(dl.elected))
			for _, j := range dl.elected {
				if c := d.candidacies[j].candidate; c >= 0 { // else reported: no records are written
					def.Elected = append(def.Elected, cands[c].ID)
				}
			}
			s.Defects = append(s.Defects, def)
		}
		for j, r := range d.candidacies {
			s.Candidacies[j] = candidacyRecord{Name: r.name, Totals: r.totals}
			if r.candidate >= 0 { // else reported: no records are written
				s.Candidacies[j].CandidateID = cands[r.candidate].ID
			}
			if k, ok := seats[j]; ok {
				s.Candidacies[j].ElectedAtCount = &k
			}
		}
		out = append(out, s)
	}
	return out
}

// complete reports whether every district of the sheets has its line of
// district_totals.csv, its rows and its Non-transferable row, and is a
// district of districts.csv: what records needs.
func (cs *countSheets) complete(ds *districts) bool {
	for _, n := range cs.order {
		if cs.totals[n] == nil || cs.rows[n] == nil || cs.rows[n].nt == nil || ds.byNumber[n] == nil {
			return false
		}
	}
	return len(cs.order) > 0
}

// unread returns the districts some of whose figures could not be read,
// by the problems of the two sheets: a count cell, a line of
// district_totals.csv. A row whose candidate is not found still has its
// totals, so its district's count can be checked. at is lineDistricts'.
func (cs *countSheets) unread(problems Problems, at map[sheetLine]int) map[int]bool {
	bad := map[int]bool{}
	for _, p := range problems {
		if p.Warning || p.File != CountsFile && p.File != DistrictTotalsFile {
			continue
		}
		if p.More > 0 { // of rows not kept, of any district: none is checked
			for _, n := range cs.order {
				bad[n] = true
			}
			break
		}
		switch p.Column {
		case "name", "candidate", "audited_name", cs.partyCol:
			continue
		}
		n, ok := at[sheetLine{p.File, p.Line}]
		if !ok { // of no one district: none is checked
			for _, n := range cs.order {
				bad[n] = true
			}
			break
		}
		bad[n] = true
	}
	return bad
}

// sheetLine is a line of one of the two sheets.
type sheetLine struct {
	file string
	line int
}

// lineDistricts maps each line of the two sheets to its district.
func (cs *countSheets) lineDistricts() map[sheetLine]int {
	at := map[sheetLine]int{}
	for _, n := range cs.order {
		if dt := cs.totals[n]; dt != nil {
			at[sheetLine{DistrictTotalsFile, dt.line}] = n
		}
		d := cs.rows[n]
		if d == nil {
			continue
		}
		if d.nt != nil {
			at[sheetLine{CountsFile, d.nt.line}] = n
		}
		for _, r := range d.candidacies {
			at[sheetLine{CountsFile, r.line}] = n
		}
	}
	return at
}

// dropTotals lets the rows' totals go, keeping where each row is.
func (cs *countSheets) dropTotals() {
	for _, d := range cs.rows {
		if d == nil {
			continue
		}
		for j := range d.candidacies {
			d.candidacies[j].totals = nil
		}
		if d.nt != nil {
			d.nt.totals = nil
		}
	}
}

// totalsColumn is the column of district_totals.csv of each field of a
// sheet that it gives.
var totalsColumn = map[string]string{
	"district_id": "district", "status": "status", "seats": "seats", "registered": "registered",
	"valid_votes": "valid_votes", "quota": "quota",
}

// line returns the sheet and line of what a pointer of counts.json names,
// as a message points to it: a candidacy's row, a count's
// Non-transferable row, or else the district's line of
// district_totals.csv; 0 for none.
func (cs *countSheets) line(ptr string) (file string, line int) {
	parts := strings.Split(strings.TrimPrefix(ptr, "/"), "/")
	i, err := strconv.Atoi(parts[0])
	if err != nil || i < 0 || i >= len(cs.order) {
		return "", 0
	}
	dt, d := cs.totals[cs.order[i]], cs.rows[cs.order[i]]
	if len(parts) >= 3 {
		j, err := strconv.Atoi(parts[2])
		switch {
		case err != nil:
		case parts[1] == "candidacies" && j >= 0 && j < len(d.candidacies):
			return CountsFile, d.candidacies[j].line
		case parts[1] == "counts":
			return CountsFile, d.nt.line
		case parts[1] == "ties" && j >= 0 && j < len(cs.ties[cs.order[i]]):
			return TiesFile, cs.ties[cs.order[i]][j].line
		case parts[1] == "corrections" || parts[1] == "defects":
			if file, line := cs.statement(cs.order[i], parts[1], j); line > 0 {
				return file, line
			}
		}
	}
	return DistrictTotalsFile, dt.line
}

// statedPointer is the pointer of a tie, a correction or a defect a sheet
// states, in a message.
var statedPointer = regexp.MustCompile(`at /(\d+)/(ties|corrections|defects)/(\d+)`)

// statement returns the sheet and line of item m of district n's ties,
// corrections or defects (list); 0 for none.
func (cs *countSheets) statement(n int, list string, m int) (string, int) {
	if m < 0 {
		return "", 0
	}
	switch {
	case list == "ties" && m < len(cs.ties[n]):
		return TiesFile, cs.ties[n][m].line
	case list == "corrections" && m < len(cs.corrections[n]):
		return CorrectionsFile, cs.corrections[n][m].line
	case list == "defects" && m < len(cs.defects[n]):
		return DefectsFile, cs.defects[n][m].line
	}
	return "", 0
}

// statedColumn is the column of corrections.csv and defects.csv of each
// field of a correction or a defect.
var statedColumn = map[string]string{"candidate_id": "name", "count": "count", "field": "field", "from": "from", "to": "to", "evidence": "evidence", "rule": "rule", "note": "note", "message": "rule", "elected": "elected"}

// placeStated names each statement a placed problem's message points to
// by its line: "on line 4" in the sheet the problem is placed in, "on
// defects.csv line 4" in another.
func (cs *countSheets) placeStated(p dataset.Problem) dataset.Problem {
	p.Message = statedPointer.ReplaceAllStringFunc(p.Message, func(ptr string) string {
		m := statedPointer.FindStringSubmatch(ptr)
		i, _ := strconv.Atoi(m[1])
		k, _ := strconv.Atoi(m[3])
		if i >= len(cs.order) {
			return ptr
		}
		file, line := cs.statement(cs.order[i], m[2], k)
		switch {
		case line == 0:
			return ptr
		case file == p.File:
			return fmt.Sprintf("on line %d", line)
		}
		return fmt.Sprintf("on %s line %d", file, line)
	})
	return p
}

// place puts a problem the dataset's rules found in counts.json at the
// line and column of the sheet it came from: a candidacy's total at its
// row's count column, a count (its balance, its event) at the
// Non-transferable row's, a district's figure at its line of
// district_totals.csv. A problem of another file, or of a place no sheet
// gives, is returned as it is.
func (cs *countSheets) place(p dataset.Problem) dataset.Problem {
	if p.File != dataset.CountsFile {
		return p
	}
	return cs.placeStated(cs.placeAt(p))
}

// placeAt is place, but for the statements a message points to.
func (cs *countSheets) placeAt(p dataset.Problem) dataset.Problem {
	parts := strings.Split(strings.TrimPrefix(p.Pointer, "/"), "/")
	i, err := strconv.Atoi(parts[0])
	if err != nil || i < 0 || i >= len(cs.order) || len(parts) < 2 {
		return p
	}
	n := cs.order[i]
	dt, d := cs.totals[n], cs.rows[n]
	index := func(at int) int { // the index at parts[at], or -1
		if at >= len(parts) {
			return -1
		}
		v, err := strconv.Atoi(parts[at])
		if err != nil {
			return -1
		}
		return v
	}
	at := func(file string, line int, col string) dataset.Problem {
		p.File, p.Pointer, p.Line, p.Column = file, "", line, col
		return p
	}
	switch field := parts[1]; field {
	case "corrections", "defects":
		file, line := cs.statement(n, field, index(2))
		if line == 0 {
			return p
		}
		col := "district"
		if len(parts) > 3 {
			col = statedColumn[parts[3]]
		}
		return at(file, line, col)
	case "ties":
		m := index(2)
		if m < 0 || m >= len(cs.ties[n]) {
			return p
		}
		col := "district"
		if len(parts) > 3 {
			col = map[string]string{"count": "count", "decided_by": "decided_by"}[parts[3]]
			if col == "" {
				col = "elected" // kind, candidate_ids: what elected implies
			}
		}
		p.Message = strings.Replace(p.Message, "name them in elected, or give the elected_at_count of each who took one", "name them in its elected column", 1)
		return at(TiesFile, cs.ties[n][m].line, col)
	case "candidacies":
		j := index(2)
		if j < 0 || j >= len(d.candidacies) {
			return at(CountsFile, d.first, "district")
		}
		// Who took a seat by lot is the elected of a line of ties.csv.
		if len(parts) == 4 && parts[3] == "elected_at_count" {
			for _, tl := range cs.ties[n] {
				if slices.Contains(tl.elected, j) {
					return at(TiesFile, tl.line, "elected")
				}
			}
		}
		if k := index(4); len(parts) > 3 && parts[3] == "totals" && k >= 0 {
			return at(CountsFile, d.candidacies[j].line, countColumn(k+1))
		}
		return at(CountsFile, d.candidacies[j].line, "name")
	case "counts":
		if p.Rule == "tie" { // a tie nothing settles: state it in ties.csv
			p.Message = strings.Replace(p.Message, "state it in ties", "state it in "+TiesFile, 1)
		}
		if k := index(2); k >= 0 {
			return at(CountsFile, d.nt.line, countColumn(k+1))
		}
		return at(CountsFile, d.nt.line, "")
	case "status":
		if p.Rule == "elected-seats" && !p.Warning {
			p.Message += "; while the count goes on, write counting in its status column"
		}
		return at(DistrictTotalsFile, dt.line, "status")
	default:
		if col, ok := totalsColumn[field]; ok {
			return at(DistrictTotalsFile, dt.line, col)
		}
	}
	return p
}
