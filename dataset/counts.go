package dataset

import (
	"cmp"
	"slices"
	"strconv"
	"strings"
)

// CountsFile is the dataset's file of count sheets. It is optional: a
// dataset without it has no results, and is served as before.
const CountsFile = "counts.json"

// NonTransferableRow is the name a count sheet prints on the row of the
// votes that could go to no continuing candidate: import reads it, the
// sheet's download writes it.
const NonTransferableRow = "Non-transferable"

// The statuses of a count sheet.
const (
	// StatusCounting is a sheet whose counts are still coming in.
	StatusCounting = "counting"
	// StatusFinal is a sheet whose count is over: it elects every seat.
	StatusFinal = "final"
)

// The events of a count.
const (
	// EventFirstPreferences is count 1: each candidate's first preferences.
	EventFirstPreferences = "first_preferences"
	// EventSurplus is one elected candidate's surplus transferred.
	EventSurplus = "surplus"
	// EventExclusion is the lowest continuing candidate, or several whose
	// votes together are below the next, excluded and their votes
	// transferred.
	EventExclusion = "exclusion"
	// EventIrregular is a count that is neither one surplus nor an
	// exclusion (several surpluses, a surplus and an exclusion, or
	// nothing moving): only a sheet that states it as a known defect
	// (rule count-event) is served with one.
	EventIrregular = "irregular"
)

// The kinds of a tie, and how one was decided.
const (
	// TieExclusion is a tie for the lowest place: the candidate excluded
	// had the same total as a continuing candidate who stays.
	TieExclusion = "exclusion"
	// TieSeat is a tie for the last seat (or seats): the lowest candidate
	// who takes a seat had the same total as the highest who does not.
	TieSeat = "seat"
	// DecidedByEarlierCounts is the law's rule: of the tied, the one with
	// fewer votes at the first count at which they had unequal totals
	// loses (is excluded, or does not take the seat).
	DecidedByEarlierCounts = "earlier_counts"
	// DecidedByLot is a tie the returning officer drew by lot: the totals
	// show who was excluded, and the sheet's elected who took a seat.
	DecidedByLot = "lot"
)

// CountSheet is one district's count sheet by the single transferable
// vote, as the API serves it (a record of /results): the district's
// figures, each count's event, each candidacy's running totals, and who
// was elected, in order.
//
// A dataset's counts.json holds an array of these. Only the figures a
// Commission's sheet prints are required in the file: the district, the
// status, the seats, the valid votes, the quota, each count's
// non-transferable total and each candidacy's candidate, name and totals.
// The rest (district_number, each count's number, event, candidate_ids
// and votes, each candidacy's party_id, first_preferences,
// elected_at_count and excluded_at_count, and elected) follows from those;
// the file may give them, as the API serves them, and then they must
// agree with what the totals show.
type CountSheet struct {
	DistrictID     string      `json:"district_id"`
	DistrictNumber int         `json:"district_number"`
	Status         string      `json:"status"`
	Seats          int         `json:"seats"`
	Registered     *int        `json:"registered"`
	ValidVotes     int         `json:"valid_votes"`
	Quota          int         `json:"quota"`
	Counts         []Count     `json:"counts"`
	Candidacies    []Candidacy `json:"candidacies"`
	Elected        []string    `json:"elected"`
	// Ties is every tie of the count, in count order: those the sheet
	// states and those the totals show; empty when none.
	Ties []Tie `json:"ties"`
	// Corrections are the changes the publisher made to the figures of
	// the source the sheet was made from, each with its evidence; empty
	// when none.
	Corrections []Correction `json:"corrections"`
	// Defects are the breaks of the rules of the count the publisher
	// states of the sheet: a sheet with any is served with them, never
	// as sound; empty when none.
	Defects []Defect `json:"defects"`
}

// Tie is a tie the count met: for the lowest place, when one candidate
// must be excluded, or for the last seat.
type Tie struct {
	Count int    `json:"count"`
	Kind  string `json:"kind"`
	// CandidateIDs are the tied candidates, in the sheet's published
	// order.
	CandidateIDs []string `json:"candidate_ids"`
	// DecidedBy is how the tie was decided: by the earlier counts, as the
	// sheet states or as the totals show; by lot, as the sheet states; or
	// nil when nothing settles it (validate warns of it).
	DecidedBy *string `json:"decided_by"`
	// Stated is whether counts.json states the decision: the API serves
	// every tie, and import writes only the stated ones.
	Stated bool `json:"-"`
}

// Count is one count of a sheet: what happened at it, and the
// non-transferable running total after it.
type Count struct {
	Number int    `json:"number"`
	Event  string `json:"event"`
	// CandidateIDs is whose surplus moved, or who was excluded (of an
	// irregular count, those whose totals fell); empty for count 1.
	CandidateIDs []string `json:"candidate_ids"`
	// Votes is how many votes moved: the surplus, or the excluded
	// candidates' totals (of an irregular count, what those whose
	// totals fell lost); 0 for count 1.
	Votes           int `json:"votes"`
	NonTransferable int `json:"non_transferable"`
}

// Candidacy is one row of a count sheet: a candidate standing in the
// sheet's district, with the running total after every count.
type Candidacy struct {
	CandidateID      string  `json:"candidate_id"`
	Name             string  `json:"name"`
	PartyID          *string `json:"party_id"`
	Totals           []int   `json:"totals"`
	FirstPreferences int     `json:"first_preferences"`
	ElectedAtCount   *int    `json:"elected_at_count"`
	ExcludedAtCount  *int    `json:"excluded_at_count"`
}

// Sheets returns the count sheets by district number; none when the
// dataset has no counts.json. The slice is shared: callers must not
// modify it.
func (d *Dataset) Sheets() []CountSheet { return d.sheets }

// Sheet returns the count sheet of the district numbered n.
func (d *Dataset) Sheet(n int) (*CountSheet, bool) {
	i, ok := d.sheetIndex(n)
	if !ok {
		return nil, false
	}
	return &d.sheets[i], true
}

// sheetIndex is the index in Sheets of the sheet of the district numbered
// n.
func (d *Dataset) sheetIndex(n int) (int, bool) {
	return slices.BinarySearchFunc(d.sheets, n, func(s CountSheet, n int) int { return cmp.Compare(s.DistrictNumber, n) })
}

// sheetFile is a count sheet as counts.json holds it: the served shape,
// with what follows from the totals optional (nil when absent or null).
type sheetFile struct {
	DistrictID     string          `json:"district_id"`
	DistrictNumber *int            `json:"district_number" dataset:"optional"`
	Status         string          `json:"status"`
	Seats          int             `json:"seats"`
	Registered     *int            `json:"registered" dataset:"optional"`
	ValidVotes     int             `json:"valid_votes"`
	Quota          int             `json:"quota"`
	Counts         []countFile     `json:"counts"`
	Candidacies    []candidacyFile `json:"candidacies"`
	Elected        []string        `json:"elected" dataset:"optional"`
	Ties           []tieFile       `json:"ties" dataset:"optional"`
	Corrections    []Correction    `json:"corrections" dataset:"optional"`
	Defects        []Defect        `json:"defects" dataset:"optional"`
}

// tieFile is how a sheet of counts.json states that a tie was decided:
// at which count, and how (null states none); the kind and the tied
// follow from the totals, and are checked when given.
type tieFile struct {
	Count        int      `json:"count"`
	Kind         *string  `json:"kind" dataset:"optional"`
	CandidateIDs []string `json:"candidate_ids" dataset:"optional"`
	DecidedBy    *string  `json:"decided_by" null:"when no decision is stated"`
}

type countFile struct {
	Number          *int     `json:"number" dataset:"optional"`
	Event           *string  `json:"event" dataset:"optional"`
	CandidateIDs    []string `json:"candidate_ids" dataset:"optional"`
	Votes           *int     `json:"votes" dataset:"optional"`
	NonTransferable int      `json:"non_transferable"`
}

type candidacyFile struct {
	CandidateID      string     `json:"candidate_id"`
	Name             string     `json:"name"`
	PartyID          *string    `json:"party_id" dataset:"optional"`
	Totals           voteTotals `json:"totals"`
	FirstPreferences *int       `json:"first_preferences" dataset:"optional"`
	ElectedAtCount   *int       `json:"elected_at_count" dataset:"optional"`
	ExcludedAtCount  *int       `json:"excluded_at_count" dataset:"optional"`
}

// presize makes a sheet's candidacies at their number before the sheet
// is decoded, and each candidacy's totals at the number of counts, so a
// sheet of many candidacies over many counts is held once.
func (s *sheetFile) presize(raw []byte) {
	if raw[0] != '{' {
		return
	}
	var buf [16]member
	members := objectMembers(raw, buf[:0])
	counts := 0
	for j := len(members) - 1; j >= 0; j-- {
		if m := members[j]; m.key == "counts" && m.value[0] == '[' {
			counts = countItems(m.value)
			break
		}
	}
	for j := len(members) - 1; j >= 0; j-- {
		m := members[j]
		if m.key != "candidacies" || m.value[0] != '[' {
			continue
		}
		s.Candidacies = make([]candidacyFile, countItems(m.value))
		for i := range s.Candidacies {
			s.Candidacies[i].Totals = make(voteTotals, 0, counts)
		}
		return
	}
}

// voteTotals is a candidacy's running totals as counts.json holds them. A
// sheet of many candidacies over many counts is mostly these numbers, so
// they are decoded here rather than by reflection, into the list presize
// made.
type voteTotals []int

// UnmarshalJSON decodes an array of integers. decodeArray has checked
// the value's syntax; an item that is not an integer decodes as 0, for
// fieldCheck has reported it, with its pointer, and the record is
// defective: an error here would stop the rest of the record decoding.
func (v *voteTotals) UnmarshalJSON(b []byte) error {
	if b[0] != '[' {
		*v = nil
		return nil // null; any other kind fieldCheck reports
	}
	out := (*v)[:0]
	for i := skipSpace(b, 1); b[i] != ']'; {
		end := valueEnd(b, i)
		n, _ := wholeNumber(b[i:end])
		out = append(out, n)
		if i = skipSpace(b, end); b[i] == ',' {
			i = skipSpace(b, i+1)
		}
	}
	*v = out
	return nil
}

// wholeNumber parses an integer of up to 18 digits, which cannot overflow,
// by hand, and a longer one with strconv.
func wholeNumber(b []byte) (int, bool) {
	digits := b
	if len(digits) > 0 && digits[0] == '-' {
		digits = digits[1:]
	}
	if len(digits) == 0 || len(digits) > 18 {
		n, err := strconv.ParseInt(string(b), 10, 64)
		return int(n), err == nil
	}
	n := 0
	for _, c := range digits {
		if c < '0' || c > '9' {
			return 0, false
		}
		n = n*10 + int(c-'0')
	}
	if len(digits) < len(b) {
		n = -n
	}
	return n, true
}

// standing is where a candidacy stands at a point of the count.
type standing uint8

const (
	continuing standing = iota
	elected
	excluded
)

// served makes the record the API serves from a sheet of the file that
// passed every rule, with what the tally found.
func (s *sheetFile) served(number int, candidates map[string]candidateAt, t *tally) CountSheet {
	out := CountSheet{
		DistrictID: s.DistrictID, DistrictNumber: number, Status: s.Status, Seats: s.Seats,
		Registered: s.Registered, ValidVotes: s.ValidVotes, Quota: s.Quota,
		Counts: t.counts, Candidacies: make([]Candidacy, len(s.Candidacies)), Elected: make([]string, len(t.elected)),
		Ties: make([]Tie, len(t.ties)), Corrections: s.Corrections, Defects: t.defects(),
	}
	if out.Corrections == nil {
		out.Corrections = []Correction{}
	}
	order := t.order()
	for n, j := range order {
		c := &s.Candidacies[j]
		party := c.PartyID
		if cand, ok := candidates[c.CandidateID]; ok {
			party = cand.c.PartyID
		}
		out.Candidacies[n] = Candidacy{
			CandidateID: c.CandidateID, Name: c.Name, PartyID: party, Totals: c.Totals,
			FirstPreferences: c.Totals[0],
			ElectedAtCount:   atCount(t.electedAt[j]), ExcludedAtCount: atCount(t.excludedAt[j]),
		}
	}
	for n, j := range t.elected {
		out.Elected[n] = s.Candidacies[j].CandidateID
	}
	published := make([]int, len(order)) // each row's place in order
	for n, j := range order {
		published[j] = n
	}
	for n, tie := range t.ties {
		rows := slices.SortedFunc(slices.Values(tie.rows), func(a, b int) int { return cmp.Compare(published[a], published[b]) })
		ids := make([]string, len(rows))
		for m, j := range rows {
			ids[m] = s.Candidacies[j].CandidateID
		}
		out.Ties[n] = Tie{Count: tie.count, Kind: tie.kind, CandidateIDs: ids, DecidedBy: tie.decidedBy, Stated: tie.stated}
	}
	return out
}

// atCount is a count's number, or nil for none (0).
func atCount(n int) *int {
	if n == 0 {
		return nil
	}
	return &n
}

// order is the candidacies' published order: the elected in the order
// they were elected, then the others by their last total, highest first,
// then by name, then by candidate id.
func (t *tally) order() []int {
	rows := t.sheet.Candidacies
	last := len(t.counts) - 1
	rest := make([]int, 0, len(rows)-len(t.elected))
	for j := range rows {
		if t.electedAt[j] == 0 {
			rest = append(rest, j)
		}
	}
	slices.SortFunc(rest, func(a, b int) int {
		return cmp.Or(
			cmp.Compare(rows[b].Totals[last], rows[a].Totals[last]),
			strings.Compare(Fold(rows[a].Name), Fold(rows[b].Name)),
			strings.Compare(rows[a].CandidateID, rows[b].CandidateID),
		)
	})
	return append(slices.Clone(t.elected), rest...)
}
