package pages

import (
	"strconv"

	"ballot/dataset"
)

// The results page: each party's first preferences and share, its seats
// at the count against its seats in parliament (dataset.NationalTotals),
// and each district's count, from the dataset's count sheets.

// resultsView is the results page's.
type resultsView struct {
	None                  bool // no sheet: no result is published yet
	PartiesCaption        string
	Parties               []partyResult
	Valid                 string
	AtCount, InParliament int
	KnownParliament       bool // elected is known of every candidate
	Districts             []districtResult
	Partial               string // the sentence saying how many districts the totals cover, or ""
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
	nt := s.ds.NationalTotals()
	v.Valid, v.AtCount = num(nt.ValidVotes), nt.Seats
	// Each party that stood in a district counted, by its index (the
	// independents after the parties), then any party with seats in
	// parliament and no district counted yet, so that the rows add up.
	independents := len(s.ds.Parties())
	var rows []int
	stood := map[int]dataset.PartyTotal{}
	for _, pt := range nt.Parties {
		pi := independents
		if pt.PartyID != nil {
			pi, _ = s.ds.Lookup(dataset.Parties, *pt.PartyID)
		}
		rows = append(rows, pi)
		stood[pi] = pt
	}
	for pi, n := range s.seats {
		v.InParliament += n
		if _, ok := stood[pi]; n > 0 && !ok {
			rows = append(rows, pi)
		}
	}
	// At most Listed parties, as the seats' table shows; the totals
	// count every one.
	for _, pi := range rows[:min(len(rows), Listed)] {
		pt := stood[pi]
		r := partyResult{Party: s.partyRef(pi), FirstPreferences: num(pt.FirstPreferences), AtCount: pt.SeatsAtCount}
		if nt.ValidVotes > 0 {
			r.Share = strconv.FormatFloat(100*pt.Share, 'f', 1, 64) + "%"
		}
		if s.seats != nil {
			r.InParliament = s.seats[pi]
		}
		v.Parties = append(v.Parties, r)
	}
	// The caption names the seats in parliament only where the table
	// has their column.
	v.PartiesCaption = t("results_parties_caption_count", len(s.ds.Sheets()))
	if v.KnownParliament {
		v.PartiesCaption = t("results_parties_caption", len(s.ds.Sheets()))
	}
	for _, d := range s.ds.Districts() {
		r := districtResult{Number: d.Number, Label: t("district_n", d.Number), Status: t("status_none"), Valid: "—", Quota: "—", Counts: "—"}
		if sh, ok := s.ds.Sheet(d.Number); ok {
			r.Sheet, r.Status = true, t("status_"+sh.Status)
			if len(sh.Defects) > 0 {
				r.Status = t("status_defects", r.Status)
			}
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
