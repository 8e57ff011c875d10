package pages

import (
	"cmp"
	"slices"
	"strconv"

	"ballot/dataset"
)

// The results page: each party's first preferences and share, its seats
// at the count against its seats in parliament, and each district's count,
// from the dataset's count sheets.

// partyTotal is a party's national totals at the count: its first
// preferences over every district with a sheet, and the seats its
// candidates won there.
type partyTotal struct {
	party            int // the party's index; len(parties) for the independents
	firstPreferences int
	seats            int
}

// nationalTotals adds up the sheets: each party's first preferences and
// seats at the count, the most first preferences first, and the valid
// votes of every sheet.
func (s *Site) nationalTotals() (totals []partyTotal, valid int) {
	byParty := map[int]*partyTotal{}
	independents := len(s.ds.Parties())
	for _, sh := range s.ds.Sheets() {
		valid += sh.ValidVotes
		for _, c := range sh.Candidacies {
			pi := independents
			if c.PartyID != nil {
				pi, _ = s.ds.Lookup(dataset.Parties, *c.PartyID)
			}
			pt := byParty[pi]
			if pt == nil {
				pt = &partyTotal{party: pi}
				byParty[pi] = pt
			}
			pt.firstPreferences += c.FirstPreferences
			if c.ElectedAtCount != nil {
				pt.seats++
			}
		}
	}
	for _, pt := range byParty {
		totals = append(totals, *pt)
	}
	slices.SortFunc(totals, func(a, b partyTotal) int {
		return cmp.Or(cmp.Compare(b.firstPreferences, a.firstPreferences), cmp.Compare(a.party, b.party))
	})
	return totals, valid
}

// resultsView is the results page's.
type resultsView struct {
	None                  bool // no sheet: no result is published yet
	PartiesCaption        string
	Parties               []partyResult
	Valid                 string
	AtCount, InParliament int
	KnownParliament       bool // elected is known of every candidate
	DistrictsCaption      string
	Districts             []districtResult
	Partial               string // the sentence saying how many districts the totals cover, or ""
	ParliamentNote        string
}

type partyResult struct {
	Party                   partyRef
	FirstPreferences, Share string
	AtCount, InParliament   int
}

type districtResult struct {
	Number               int
	Label, Status        string
	Valid, Quota, Counts string
	Elected              []nameLink
	Sheet                bool
}

// resultsView makes the results page from the sheets.
func (s *Site) resultsView() resultsView {
	t, num := s.lang.T, s.lang.Num
	v := resultsView{None: len(s.ds.Sheets()) == 0, KnownParliament: s.seats != nil}
	totals, valid := s.nationalTotals()
	v.Valid = num(valid)
	// A party with seats in parliament and no candidacy on a sheet (its
	// districts not counted yet) has a row too, so that the rows add up.
	counted := map[int]bool{}
	for _, pt := range totals {
		counted[pt.party] = true
		v.AtCount += pt.seats
	}
	for i, n := range s.seats {
		v.InParliament += n
		if n > 0 && !counted[i] {
			totals = append(totals, partyTotal{party: i})
		}
	}
	// At most Listed parties, as the seats' table shows; the totals
	// count every one.
	for _, pt := range totals[:min(len(totals), Listed)] {
		r := partyResult{FirstPreferences: num(pt.firstPreferences), AtCount: pt.seats, Party: partyRef{Display: t("independent")}}
		if pt.party < len(s.ds.Parties()) {
			r.Party = s.partyRef(pt.party)
		}
		if valid > 0 {
			r.Share = s.lang.numbers.Sprintf("%.1f%%", 100*float64(pt.firstPreferences)/float64(valid))
		}
		if s.seats != nil {
			r.InParliament = s.seats[pt.party]
		}
		v.Parties = append(v.Parties, r)
	}
	v.PartiesCaption = t("results_parties_caption", len(s.ds.Sheets()))
	v.ParliamentNote = t("results_parliament_note")
	v.DistrictsCaption = t("results_districts_caption")
	for _, d := range s.ds.Districts() {
		r := districtResult{Number: d.Number, Label: t("district_n", d.Number), Status: t("status_none"), Valid: "—", Quota: "—", Counts: "—"}
		if sh, ok := s.ds.Sheet(d.Number); ok {
			r.Sheet, r.Status = true, t("status_"+sh.Status)
			r.Valid, r.Quota, r.Counts = num(sh.ValidVotes), num(sh.Quota), strconv.Itoa(len(sh.Counts))
			for _, id := range sh.Elected[:min(len(sh.Elected), Listed)] {
				if i, ok := s.ds.Lookup(dataset.Candidates, id); ok {
					c := s.ds.Candidates()[i]
					r.Elected = append(r.Elected, nameLink{clip(c.Name), c.Slug})
				}
			}
		}
		v.Districts = append(v.Districts, r)
	}
	if n := len(s.ds.Sheets()); n > 0 && n < len(s.ds.Districts()) {
		v.Partial = t("results_partial", n, len(s.ds.Districts()))
	}
	return v
}
