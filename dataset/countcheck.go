package dataset

import (
	"context"
	"fmt"
	"slices"
	"strconv"
	"strings"
)

// The rules of counts.json. Each problem names the sheet's district, and
// the count where there is one, beside its pointer:
//
//	counts.json: /4/counts/5: district 5, count 6: the totals add up to 22,788, and the valid votes are 22,789
//
// The rules of one field run on every sheet that is an object; the rules
// between records, and the count itself (tally.go), on every sheet that
// decoded whole, once districts.json and candidates.json decoded whole.

// candidateAt is a candidate of candidates.json and its index there.
type candidateAt struct {
	c *Candidate
	i int
}

// checkCounts applies the rules of counts.json, when the dataset has one,
// and keeps the sheets that pass them, in the form the API serves, in
// d.sheets.
func (d *records) checkCounts(c *checker) {
	if !d.hasCounts {
		return
	}
	f := &d.counts
	sound := make([]bool, len(f.valid))
	for i, s := range f.objects {
		sound[i] = d.checkSheetFields(c.r, i, &s) && f.valid[i]
	}
	if !d.districts.complete || !d.candidates.complete || !f.complete {
		return
	}
	numbers := make(map[string]int, len(d.districts.recs))
	seats := make(map[string]int, len(d.districts.recs)) // of the districts that give them, in range
	for i, dist := range d.districts.recs {
		numbers[dist.ID] = dist.Number
		if dist.Seats != nil && *dist.Seats >= 1 && *dist.Seats <= MaxVotes {
			seats[dist.ID] = i
		}
	}
	candidates := make(map[string]candidateAt, len(d.candidates.recs))
	for i := range d.candidates.recs {
		candidates[d.candidates.recs[i].ID] = candidateAt{&d.candidates.recs[i], i}
	}
	bySheet := map[int]int{} // district number -> sheet
	errors := c.r.found
	for i := range f.recs {
		s := &f.recs[i]
		number, ok := numbers[s.DistrictID]
		if !ok {
			c.r.errorf(CountsFile, pointer(i, "district_id"), "reference", "no district has id %s", s.DistrictID)
			continue
		}
		if first, dup := bySheet[number]; dup {
			c.r.errorf(CountsFile, pointer(i, "district_id"), "duplicate-key", "district %d has a sheet already, at /%d", number, first)
			continue
		}
		bySheet[number] = i
		if j, ok := seats[s.DistrictID]; ok && s.Seats != *d.districts.recs[j].Seats {
			c.r.errorf(CountsFile, pointer(i, "seats"), "district-seats", "district %d: the sheet fills %s seats, and the district elects %s (%s): the two must agree",
				number, Thousands(s.Seats), Thousands(*d.districts.recs[j].Seats), DistrictsFile+"#"+pointer(j, "seats"))
		}
		rowsOK := d.checkRows(c.r, i, s, number, candidates)
		if !sound[i] || !rowsOK {
			continue
		}
		d.checkCorrections(c.r, i, s, number, candidates)
		before := c.r.found
		t := newTally(c.r, s, i, number)
		t.run()
		if c.r.found > before {
			continue
		}
		t.checkGiven()
		d.sheets = append(d.sheets, s.served(number, candidates, t))
		d.checkElectedFlags(c.r, i, s, t, candidates)
	}
	d.checkEveryCandidacy(c.r, bySheet, numbers)
	if c.r.found > errors {
		d.sheets = nil
	}
}

// checkSheetFields applies the rules of one field to sheet i, and reports
// whether the count can be walked: it has a count, each candidacy has a
// total for each, and no figure is out of range.
func (d *records) checkSheetFields(r *Report, i int, s *sheetFile) bool {
	f := &d.counts
	has := func(field string) bool { return f.has(i, field) }
	ok := true
	if has("status") && s.Status != StatusCounting && s.Status != StatusFinal {
		r.errorf(CountsFile, pointer(i, "status"), "status", "is %q; must be %q or %q", s.Status, StatusCounting, StatusFinal)
		ok = false
	}
	// figures: the seats, valid votes and quota are there and in range,
	// so the quota's rule can read them.
	figures := has("seats") && has("valid_votes") && has("quota")
	for _, n := range []struct {
		field string
		value int
		least int
	}{{"seats", s.Seats, 1}, {"valid_votes", s.ValidVotes, 0}, {"quota", s.Quota, 1}} {
		if has(n.field) && n.value < n.least {
			r.errorf(CountsFile, pointer(i, n.field), "range", "is %d; must be %d or more", n.value, n.least)
			ok, figures = false, false
		}
	}
	if has("valid_votes") && s.ValidVotes > MaxVotes {
		r.errorf(CountsFile, pointer(i, "valid_votes"), "range", "is %s; must be at most %s, the largest integer every JSON reader keeps exact", Thousands(s.ValidVotes), Thousands(MaxVotes))
		ok, figures = false, false
	}
	if has("candidacies") && len(s.Candidacies) == 0 {
		r.errorf(CountsFile, pointer(i, "candidacies"), "required", "is empty; a sheet holds a row for each candidacy of its district")
		ok, figures = false, false
	}
	if has("seats") && has("candidacies") && len(s.Candidacies) > 0 && s.Seats > len(s.Candidacies) {
		r.errorf(CountsFile, pointer(i, "seats"), "range", "is %s, more than the sheet's %d candidacies", Thousands(s.Seats), len(s.Candidacies))
		ok, figures = false, false
	}
	if figures {
		// Every rule of the count reads the quota: a sheet with another
		// is not counted, or each surplus would be reported again.
		if droop := s.ValidVotes/(s.Seats+1) + 1; s.Quota != droop {
			r.errorf(CountsFile, pointer(i, "quota"), "quota", "district %s: the quota is %s, and floor(%s / (%d + 1)) + 1 is %s", d.districtOf(s), Thousands(s.Quota), Thousands(s.ValidVotes), s.Seats, Thousands(droop))
			ok = false
		}
	}
	if !has("counts") || !has("candidacies") {
		return false
	}
	if len(s.Counts) == 0 {
		r.errorf(CountsFile, pointer(i, "counts"), "count-length", "is empty; a sheet holds count 1 at least")
		ok = false
	}
	for k, n := range s.Counts {
		if n.NonTransferable < 0 {
			r.errorf(CountsFile, pointer(i, "counts", k, "non_transferable"), "range", "district %s, count %d: is %d; must be 0 or more", d.districtOf(s), k+1, n.NonTransferable)
			ok = false
		}
	}
	for j, row := range s.Candidacies {
		if f.hasIn(i, "candidacies", j, "name") && strings.TrimSpace(row.Name) == "" {
			r.errorf(CountsFile, pointer(i, "candidacies", j, "name"), "required", "must not be empty")
		}
		if len(row.Totals) != len(s.Counts) {
			r.errorf(CountsFile, pointer(i, "candidacies", j, "totals"), "count-length", "has %d totals, and the sheet %d counts", len(row.Totals), len(s.Counts))
			ok = false
			continue
		}
		for k, v := range row.Totals {
			if v < 0 {
				r.errorf(CountsFile, pointer(i, "candidacies", j, "totals", k), "range", "district %s, count %d: is %d; must be 0 or more", d.districtOf(s), k+1, v)
				ok = false
			}
		}
	}
	d.checkCorrectionFields(r, i, s)
	return d.checkTieFields(r, i, s) && d.checkDefectFields(r, i, s) && ok
}

// checkTieFields applies the rules of one field to the ties sheet i
// states: a count of the sheet, a kind and a decision of those there are.
func (d *records) checkTieFields(r *Report, i int, s *sheetFile) bool {
	f := &d.counts
	ok := true
	for n, tie := range s.Ties {
		if f.hasIn(i, "ties", n, "count") && len(s.Counts) > 0 && (tie.Count < 1 || tie.Count > len(s.Counts)) {
			r.errorf(CountsFile, pointer(i, "ties", n, "count"), "range", "is %d; must be a count of the sheet, 1 to %d", tie.Count, len(s.Counts))
			ok = false
		}
		if f.hasIn(i, "ties", n, "kind") && tie.Kind != nil && *tie.Kind != TieExclusion && *tie.Kind != TieSeat {
			r.errorf(CountsFile, pointer(i, "ties", n, "kind"), "tie", "is %q; must be %q (for the lowest place) or %q (for the last seat)", *tie.Kind, TieExclusion, TieSeat)
			ok = false
		}
		if f.hasIn(i, "ties", n, "decided_by") && tie.DecidedBy != nil && *tie.DecidedBy != DecidedByEarlierCounts && *tie.DecidedBy != DecidedByLot {
			r.errorf(CountsFile, pointer(i, "ties", n, "decided_by"), "tie", "is %q; must be %q, %q, or null for no decision stated", *tie.DecidedBy, DecidedByEarlierCounts, DecidedByLot)
			ok = false
		}
	}
	return ok
}

// MaxVotes is the most valid votes a sheet may count: 2^53 - 1, the
// largest integer a JSON reader that holds numbers as doubles keeps exact.
const MaxVotes = 1<<53 - 1

// CheckCountSheets applies to a counts.json on its own the rules that read
// one sheet alone: its fields, and the count itself (each count's balance
// and event, who is elected), not the rules that need the other files
// (the candidates, the districts). It lets the importer report a count
// that does not add up in the same run as a problem of another sheet,
// which stops it building the files every rule reads, and know who the
// count elects before it writes the candidates' elected. A sheet's
// district is named by its district_number, which the file must give for
// that.
//
// It returns every problem found, and who each sheet that passes the
// rules elects, sheet by sheet, in the order elected.
func CheckCountSheets(b []byte) ([]Problem, []SeatWon) {
	r := &Report{}
	if !scanJSON(context.Background(), CountsFile, b, r) {
		r.finish()
		return r.Errors, nil
	}
	d := &records{hasCounts: true}
	d.counts = decodeArray[sheetFile](CountsFile, b, r)
	var seats []SeatWon
	for i, s := range d.counts.objects {
		if !d.checkSheetFields(r, i, &s) || !d.counts.valid[i] || s.DistrictNumber == nil {
			continue
		}
		before := r.found
		// s is sheet i itself: recs holds only the sheets that decoded
		// whole, so its index is not i after one that did not.
		t := newTally(r, &s, i, *s.DistrictNumber)
		t.run()
		if r.found > before {
			continue
		}
		for _, j := range t.elected {
			seats = append(seats, SeatWon{Sheet: i, Row: j, Count: t.electedAt[j]})
		}
	}
	r.finish()
	return r.Errors, seats
}

// SeatWon is a candidacy a count sheet elects, as CheckCountSheets finds
// it: the sheet's index in counts.json, the row's in the sheet, and the
// count at which it is elected.
type SeatWon struct{ Sheet, Row, Count int }

// districtOf names sheet s's district for a message: its number where
// districts.json gives it, else its id.
func (d *records) districtOf(s *sheetFile) string {
	if s.DistrictNumber != nil && len(d.districts.valid) == 0 {
		return strconv.Itoa(*s.DistrictNumber) // CheckCountSheets
	}
	for _, dist := range d.districts.each {
		if dist.ID == s.DistrictID {
			return strconv.Itoa(dist.Number)
		}
	}
	return s.DistrictID
}

// checkRows checks that each row of sheet i, of district number, is a
// candidacy of a candidate of the dataset, standing in that district, of
// the party the row gives, and that no candidate has two rows.
func (d *records) checkRows(r *Report, i int, s *sheetFile, number int, candidates map[string]candidateAt) bool {
	ok := true
	seen := make(map[string]int, len(s.Candidacies))
	for j, row := range s.Candidacies {
		at := pointer(i, "candidacies", j, "candidate_id")
		cand, found := candidates[row.CandidateID]
		switch {
		case !found:
			r.errorf(CountsFile, at, "reference", "district %d: no candidate has id %s", number, row.CandidateID)
			ok = false
			continue
		case !slices.Contains(cand.c.DistrictIDs, s.DistrictID):
			r.errorf(CountsFile, at, "candidacy-district", "district %d: %s (candidates.json /%d) does not stand in district %d; every row of a sheet is a candidacy in its district", number, cand.c.Name, cand.i, number)
			ok = false
		}
		if first, dup := seen[row.CandidateID]; dup {
			r.errorf(CountsFile, at, "duplicate-key", "district %d: %s has a row already, at /%d/candidacies/%d", number, cand.c.Name, i, first)
			ok = false
		}
		seen[row.CandidateID] = j
		if row.PartyID != nil && (cand.c.PartyID == nil || *cand.c.PartyID != *row.PartyID) {
			r.errorf(CountsFile, pointer(i, "candidacies", j, "party_id"), "candidacy-party", "district %d: is %s, and %s's party_id is %s", number, *row.PartyID, cand.c.Name, orNull(cand.c.PartyID))
		}
	}
	return ok
}

func orNull(p *string) string {
	if p == nil {
		return "null"
	}
	return *p
}

// checkEveryCandidacy checks that each candidate has a row in the sheet of
// each district they stand in that has one.
func (d *records) checkEveryCandidacy(r *Report, bySheet map[int]int, numbers map[string]int) {
	if len(bySheet) == 0 {
		return
	}
	rows := map[[2]string]bool{} // district id, candidate id
	for i := range d.counts.recs {
		for _, row := range d.counts.recs[i].Candidacies {
			rows[[2]string{d.counts.recs[i].DistrictID, row.CandidateID}] = true
		}
	}
	for ci, cand := range d.candidates.recs {
		for _, id := range cand.DistrictIDs {
			i, hasSheet := bySheet[numbers[id]]
			// A sheet without rows is reported once, as empty.
			if hasSheet && len(d.counts.recs[i].Candidacies) > 0 && !rows[[2]string{id, cand.ID}] {
				r.errorf(CountsFile, pointer(i, "candidacies"), "candidacy-missing", "district %d: %s (candidates.json /%d) stands in district %d and has no row; a sheet holds every candidacy of its district", numbers[id], cand.Name, ci, numbers[id])
			}
		}
	}
}

// checkElectedFlags checks that every candidate elected at a count is
// elected: the converse need not hold, as a seat also comes by a casual
// election or the gender mechanism.
func (d *records) checkElectedFlags(r *Report, i int, s *sheetFile, t *tally, candidates map[string]candidateAt) {
	for _, j := range t.elected {
		cand := candidates[s.Candidacies[j].CandidateID]
		if cand.c.Elected == nil || !*cand.c.Elected {
			r.add(Problem{File: CandidatesFile, Pointer: pointer(cand.i, "elected"), Rule: "elected-flag",
				Message: fmt.Sprintf("is %s, and %s is elected at count %d of district %d (counts.json /%d/candidacies/%d); a candidate elected at a count is elected", boolText(cand.c.Elected), cand.c.Name, t.electedAt[j], t.number, i, j)})
		}
	}
}

func boolText(b *bool) string {
	if b == nil {
		return "null"
	}
	return strconv.FormatBool(*b)
}

// checkGiven checks what the file gives of what follows from the totals
// against what the tally found: district_number, each count's number,
// event, candidate_ids and votes, each candidacy's first_preferences,
// elected_at_count and excluded_at_count, and elected.
func (t *tally) checkGiven() {
	s := t.sheet
	// differs reports a derived field the totals contradict; its message
	// goes on from "district N", with ", count K: " or ": ".
	differs := func(ptr, format string, args ...any) {
		t.r.errorf(CountsFile, ptr, "derived-field", "district %d%s", t.number, fmt.Sprintf(format, args...))
	}
	if s.DistrictNumber != nil && *s.DistrictNumber != t.number {
		differs(pointer(t.i, "district_number"), ": is %d, and district_id is district %d's", *s.DistrictNumber, t.number)
	}
	for k, n := range s.Counts {
		got := t.counts[k]
		switch {
		case n.Number != nil && *n.Number != got.Number:
			differs(pointer(t.i, "counts", k, "number"), ", count %d: is %d", got.Number, *n.Number)
		case n.Event != nil && *n.Event != got.Event:
			differs(pointer(t.i, "counts", k, "event"), ", count %d: is %q, and the totals show %q", got.Number, *n.Event, got.Event)
		case n.CandidateIDs != nil && !slices.Equal(sortedIDs(n.CandidateIDs), sortedIDs(got.CandidateIDs)):
			differs(pointer(t.i, "counts", k, "candidate_ids"), ", count %d: is %s, and the totals show %s", got.Number, t.names(n.CandidateIDs), t.names(got.CandidateIDs))
		case n.Votes != nil && *n.Votes != got.Votes:
			differs(pointer(t.i, "counts", k, "votes"), ", count %d: is %s, and the totals show %s", got.Number, Thousands(*n.Votes), Thousands(got.Votes))
		}
	}
	for j, row := range s.Candidacies {
		for _, f := range []struct {
			field       string
			given       *int
			want        int
			none, which string
		}{
			{"first_preferences", row.FirstPreferences, row.Totals[0], "", "the first count's total"},
			{"elected_at_count", row.ElectedAtCount, t.electedAt[j], "is not elected", "elect them at count"},
			{"excluded_at_count", row.ExcludedAtCount, t.excludedAt[j], "is not excluded", "exclude them at count"},
		} {
			if f.given == nil || *f.given == f.want {
				continue
			}
			switch {
			case f.field == "first_preferences":
				differs(pointer(t.i, "candidacies", j, f.field), ": %s: is %s, and %s is %s", row.Name, Thousands(*f.given), f.which, Thousands(f.want))
			case f.want == 0:
				differs(pointer(t.i, "candidacies", j, f.field), ": %s: is %d, and by the totals %s %s", row.Name, *f.given, row.Name, f.none)
			default:
				differs(pointer(t.i, "candidacies", j, f.field), ": %s: is %d, and the totals %s %d", row.Name, *f.given, f.which, f.want)
			}
		}
	}
	for n, def := range s.Defects {
		if said := strings.Join(t.breaks[n], "; "); def.Message != "" && def.Message != said {
			differs(pointer(t.i, "defects", n, "message"), ": is %q, and the rule says %q", def.Message, said)
		}
	}
	if s.Elected != nil {
		want := make([]string, len(t.elected))
		for n, j := range t.elected {
			want[n] = s.Candidacies[j].CandidateID
		}
		if !slices.Equal(s.Elected, want) {
			differs(pointer(t.i, "elected"), ": is %s, and the counts elect %s, in that order", t.names(s.Elected), t.names(want))
		}
	}
}

// names writes a list of candidate ids for a message, in brackets, each
// by the name its row of the sheet prints, with the id after it where two
// rows print that name; an id of no row as it is.
func (t *tally) names(ids []string) string {
	rows := make(map[string]int, len(t.sheet.Candidacies)) // id -> row
	shared := map[string]int{}                             // folded name -> rows
	for j, row := range t.sheet.Candidacies {
		rows[row.CandidateID] = j
		shared[Fold(row.Name)]++
	}
	out := make([]string, len(ids))
	for n, id := range ids {
		j, ok := rows[id]
		switch {
		case !ok:
			out[n] = id
		case shared[Fold(t.name(j))] > 1:
			out[n] = t.name(j) + " (" + id + ")"
		default:
			out[n] = t.name(j)
		}
	}
	return "[" + strings.Join(out, ", ") + "]"
}

func sortedIDs(ids []string) []string { return slices.Sorted(slices.Values(ids)) }
