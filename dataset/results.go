package dataset

import (
	"cmp"
	"math"
	"slices"
	"strconv"
)

// The results collection publishes the count sheets (counts.go): the
// whole list, one list per sheet (the answer of /results/5 and of
// /results?district=5, the same body) and the national totals, each a List
// prepared at load like the other collections', so that package answers
// encodes, compresses and tags them once.

// resultAnswers are the lists of the results collection.
type resultAnswers struct {
	all      *List   // every sheet, by district number
	byNumber []*List // byNumber[n]: the sheet of district n alone; nil for none
	none     *List   // no sheet: a district filter naming a district without one
	national *List   // the national totals, one record
	totals   NationalTotals
	// seats: each party's candidates elected, in the parties' order, the
	// independents' last (seatsWon); seatsKnown: every candidate says
	// whether they were elected.
	seats      []int
	seatsKnown bool
}

// NationalTotals is the national answer of the count sheets
// (/results/national): the districts' figures summed, and each party's
// first preferences, share and seats.
type NationalTotals struct {
	ValidVotes int `json:"valid_votes"`
	// Registered is the sum of the sheets' registered voters, or nil
	// when a sheet does not give them, or when there is no sheet.
	Registered *int `json:"registered"`
	// Districts is the number of sheets, and Final how many of them are
	// final.
	Districts int `json:"districts"`
	Final     int `json:"final"`
	// Seats is the seats filled at the count, in every sheet.
	Seats   int          `json:"seats"`
	Parties []PartyTotal `json:"parties"`
}

// PartyTotal is one party's national figures, or the independents' (a nil
// PartyID). A candidate standing in two districts counts their first
// preferences in each, as the Commission's national totals do.
type PartyTotal struct {
	PartyID          *string `json:"party_id"`
	FirstPreferences int     `json:"first_preferences"`
	// Share is FirstPreferences over the valid votes, rounded to 4
	// decimal places.
	Share float64 `json:"share"`
	// SeatsAtCount is the party's candidacies elected at a count.
	SeatsAtCount int `json:"seats_at_count"`
	// SeatsElected is the party's candidates whose elected is true: the
	// seats in parliament, by the count, a casual election or the gender
	// mechanism.
	SeatsElected int `json:"seats_elected"`
}

// indexResults makes the results' lists and the national totals, after
// indexLists.
func (d *Dataset) indexResults() {
	r := &d.results
	r.all = d.newList(Results, "r", identity(len(d.sheets)))
	r.none = d.newList(Results, "r-", nil)
	r.byNumber = make([]*List, len(d.districts)+1)
	for i, s := range d.sheets {
		if s.DistrictNumber >= 1 && s.DistrictNumber <= len(d.districts) { // as the load checks
			r.byNumber[s.DistrictNumber] = d.newList(Results, "r"+strconv.Itoa(s.DistrictNumber), []int32{int32(i)})
		}
	}
	r.seats, r.seatsKnown = d.seatsWon()
	r.totals = d.nationalTotals(r.seats)
	r.national = d.newList(Results, "n", []int32{0})
}

// nationalTotals sums the sheets, party by party, beside each party's
// seats (seatsWon's).
func (d *Dataset) nationalTotals(seats []int) NationalTotals {
	t := NationalTotals{Districts: len(d.sheets), Parties: []PartyTotal{}}
	registered, known := 0, len(d.sheets) > 0
	// Row 0 is the independents'; party i is row i+1.
	rows := make([]PartyTotal, len(d.parties)+1)
	stood := make([]bool, len(rows))
	row := func(partyID *string) int {
		if partyID == nil {
			return 0
		}
		i, _ := d.partyByID.find(*partyID, d.partyID) // every party_id names a party, as the load checks
		return i + 1
	}
	for _, s := range d.sheets {
		t.ValidVotes += s.ValidVotes
		if s.Registered == nil {
			known = false
		} else {
			registered += *s.Registered
		}
		if s.Status == StatusFinal {
			t.Final++
		}
		t.Seats += len(s.Elected)
		for _, c := range s.Candidacies {
			j := row(c.PartyID)
			stood[j] = true
			rows[j].FirstPreferences += c.FirstPreferences
			if c.ElectedAtCount != nil {
				rows[j].SeatsAtCount++
			}
		}
	}
	if known {
		t.Registered = &registered
	}
	rows[0].SeatsElected = seats[len(d.parties)]
	for i, n := range seats[:len(d.parties)] {
		rows[i+1].SeatsElected = n
	}
	// Parties in published order, the independents after them, so that
	// equal first preferences keep that order.
	order := make([]int, 0, len(rows))
	for j := 1; j < len(rows); j++ {
		order = append(order, j)
	}
	order = append(order, 0)
	for _, j := range order {
		if !stood[j] {
			continue
		}
		p := rows[j]
		if j > 0 {
			p.PartyID = &d.parties[j-1].ID
		}
		if t.ValidVotes > 0 {
			p.Share = math.Round(float64(p.FirstPreferences)/float64(t.ValidVotes)*1e4) / 1e4
		}
		t.Parties = append(t.Parties, p)
	}
	slices.SortStableFunc(t.Parties, func(a, b PartyTotal) int { return cmp.Compare(b.FirstPreferences, a.FirstPreferences) })
	return t
}

// seatsWon counts each party's candidates whose elected is true, in the
// parties' order, the independents' last, and tells whether every
// candidate says whether they were elected.
func (d *Dataset) seatsWon() (seats []int, known bool) {
	seats, known = make([]int, len(d.parties)+1), true
	for _, c := range d.candidates {
		switch {
		case c.Elected == nil:
			known = false
		case !*c.Elected:
		case c.PartyID == nil:
			seats[len(d.parties)]++
		default:
			i, _ := d.partyByID.find(*c.PartyID, d.partyID) // every party_id names a party, as the load checks
			seats[i]++
		}
	}
	return seats, known
}

// SeatsWon returns each party's seats in parliament, its candidates whose
// elected is true, in the parties' order, the independents' last; nil when
// a candidate does not say whether they were elected.
func (d *Dataset) SeatsWon() []int {
	if !d.results.seatsKnown {
		return nil
	}
	return slices.Clone(d.results.seats)
}

// NationalTotals returns the national totals of the count sheets.
func (d *Dataset) NationalTotals() NationalTotals { return d.results.totals }

// National answers /results/national: the national totals, one record of
// their own list (NationalTotals).
func (d *Dataset) National() Result { return Result{list: d.results.national, n: 1} }

// NationalKey is the last segment of the national totals' path,
// /results/national: neither a number nor a UUID, so no sheet's key.
const NationalKey = "national"

// queryResults answers the results collection: every sheet, or, with the
// district filter, the sheet of that district (none when it has none).
func (d *Dataset) queryResults(p Params) (Result, error) {
	var bad []InvalidParam
	refuse := func(name, reason string) { bad = append(bad, InvalidParam{Name: name, Reason: reason}) }
	n := d.districtParam(p, "district", refuse)
	switch {
	case len(bad) > 0:
		return Result{}, &ParamError{Params: bad}
	case n == 0:
		return Result{list: d.results.all, n: len(d.sheets)}, nil
	}
	if l := d.results.byNumber[n]; l != nil {
		return Result{list: l, n: 1}, nil
	}
	return Result{list: d.results.none}, nil
}

// lookupSheet finds a sheet by its district's number (decimal digits) or
// id, as Lookup reads a district's key, and returns its index in Sheets.
func (d *Dataset) lookupSheet(key string) (int, bool) {
	n, ok := d.Lookup(Districts, key)
	if !ok {
		return 0, false
	}
	return d.sheetIndex(d.districts[n].Number)
}
