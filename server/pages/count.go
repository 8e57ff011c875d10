package pages

import (
	"cmp"
	"html/template"
	"slices"
	"strconv"
	"strings"

	"ballot/dataset"
	"ballot/suggest"
)

// The count of a district, as its page shows it when the dataset holds
// the district's count sheet (dataset.CountSheet): the figures, who was
// elected at which count, the story of the count in sentences, a chart of
// the totals and the sheet itself as a table, which is the chart's text
// alternative.

// seatWon is a seat a candidate won at a count: the district's number
// and the count's.
type seatWon struct{ district, count int }

// indexSeats finds, from every sheet, where each candidate won a seat at
// the count: the first in district order.
func (s *Site) indexSeats() {
	s.won = map[string]seatWon{}
	for _, sh := range s.ds.Sheets() {
		for _, c := range sh.Candidacies {
			if _, ok := s.won[c.CandidateID]; !ok && c.ElectedAtCount != nil {
				s.won[c.CandidateID] = seatWon{sh.DistrictNumber, *c.ElectedAtCount}
			}
		}
	}
}

// electedHow says, on the page of a district without a count sheet,
// whether and how c was elected: seatHow, or, where the sheets do not
// tell, the plain yes, no or not known.
func (s *Site) electedHow(c *dataset.Candidate) string {
	return cmp.Or(s.seatHow(c), s.yesNo(c.Elected))
}

// seatHow says how c won a seat, on the page of a district where c did
// not win one at its count: at a count of another district, or, when
// every district c stood in has a final sheet and none elected them, not
// at the count; "" when c won none or the sheets do not tell.
func (s *Site) seatHow(c *dataset.Candidate) string {
	t := s.lang.T
	if w, ok := s.won[c.ID]; ok {
		return t("elected_in", w.district, w.count)
	}
	if c.Elected == nil || !*c.Elected || len(s.ds.Sheets()) == 0 {
		return ""
	}
	for _, id := range c.DistrictIDs {
		sh, ok := s.ds.Sheet(s.districtNumber(id))
		if !ok || sh.Status != dataset.StatusFinal {
			return ""
		}
	}
	return t("elected_later")
}

// A sheet's page shows every count and every candidacy of a real
// election's sheet (up to 30 of each). A dataset may hold a sheet of
// thousands of candidacies over hundreds of counts, which the rules
// accept; its page shows the first shownCounts counts, at most
// sheetCells cells of the table and Listed rows of a list, and says so,
// so that its size stays bounded. The API gives the whole sheet.
const (
	shownCounts = 500
	sheetCells  = 10_000
)

// countView is a district's count on its page.
type countView struct {
	Status                   string
	Seats                    int
	Registered, Valid, Quota string
	Elected, Others          []outcomeRow
	OthersCaption            string
	More                     []string // the sentences saying what the page leaves out
	Story                    []storyLine
	Chart, ChartNarrow       template.HTML
	Legend                   []legendItem // the narrow chart's: its numbers' names
	Sheet                    sheetTable
	JSON                     string // the count as the API serves it
	CSV                      string // the sheet as CSV, when the server serves the downloads
}

// storyLine is one count's sentence: "Count 2:", and what happened.
type storyLine struct{ Count, Text string }

// legendItem is an elected candidate as the narrow chart numbers them.
type legendItem struct{ Colour, Name string }

// outcomeRow is a candidacy of the sheet, with how it ended.
type outcomeRow struct {
	Slug, Name       string
	Party            partyRef
	FirstPreferences string
	Outcome          string
}

// sheetTable is the count sheet as a table: a row per candidacy, a
// column per count.
type sheetTable struct {
	Caption, Note   string
	More            string // the sentence saying how many rows are left out, or ""
	Counts          []countHead
	Rows            []sheetRow
	NonTransferable sheetRow
}

type countHead struct {
	Label, Event string
}

type sheetRow struct {
	Slug, Name string
	Elected    bool
	Cells      []sheetCell
}

// sheetCell is one total of the sheet and its change at that count.
type sheetCell struct {
	Total, Change string
	Quota         bool // at or above the quota
	Elected       bool // elected at this count
	Gone          bool // excluded at or before this count: no total
}

// candidacyRow is the dataset's candidate of a sheet's row, or nil when
// the dataset has none, and the row's name and slug: the candidate's,
// whose name carries the Maltese letters, or the sheet's spelling and no
// slug.
func (s *Site) candidacyRow(c *dataset.Candidacy) (cand *dataset.Candidate, name, slug string) {
	if i, ok := s.ds.Lookup(dataset.Candidates, c.CandidateID); ok {
		cand = &s.ds.Candidates()[i]
		return cand, clip(cand.Name), cand.Slug
	}
	return nil, clip(c.Name), ""
}

// newCountView makes the count of a district's sheet, as its page shows it.
func (s *Site) newCountView(sh *dataset.CountSheet) *countView {
	t, num := s.lang.T, s.lang.Num
	v := &countView{
		Status: t("status_" + sh.Status), Seats: sh.Seats,
		Valid: num(sh.ValidVotes), Quota: num(sh.Quota),
	}
	if sh.Registered != nil {
		v.Registered = num(*sh.Registered)
	}
	names, slugs := make([]string, len(sh.Candidacies)), make([]string, len(sh.Candidacies))
	for j := range sh.Candidacies {
		c := &sh.Candidacies[j]
		cand, name, slug := s.candidacyRow(c)
		names[j], slugs[j] = name, slug
		row := outcomeRow{Slug: slug, Name: name, Party: s.partyOf(c.PartyID), FirstPreferences: num(c.FirstPreferences)}
		switch {
		case c.ElectedAtCount != nil:
			k := *c.ElectedAtCount
			row.Outcome = t("outcome_elected", k, s.votes(c.Totals[k-1]))
			if len(v.Elected) < Listed {
				v.Elected = append(v.Elected, row)
			}
			continue
		case len(v.Others) == Listed:
			continue
		case c.ExcludedAtCount != nil:
			row.Outcome = t("outcome_excluded", *c.ExcludedAtCount)
		case sh.Status == dataset.StatusCounting:
			row.Outcome = t("outcome_continuing")
		default:
			row.Outcome = t("outcome_not_elected")
		}
		// A seat won elsewhere, or after the count: said instead of "not
		// elected", after an exclusion.
		if cand != nil {
			switch how := s.seatHow(cand); {
			case how == "":
			case c.ExcludedAtCount != nil:
				row.Outcome += "; " + how
			default:
				row.Outcome = how
			}
		}
		v.Others = append(v.Others, row)
	}
	others := len(sh.Candidacies) - len(sh.Elected)
	v.OthersCaption = t("others_caption", others, sh.DistrictNumber)
	if len(v.Others) < others || len(v.Elected) < len(sh.Elected) {
		v.More = append(v.More, t("count_more_rows", len(v.Elected)+len(v.Others), len(sh.Candidacies)))
	}
	shown := firstCounts(sh)
	if len(shown.Counts) < len(sh.Counts) {
		v.More = append(v.More, t("count_more_counts", len(shown.Counts), len(sh.Counts)))
	}
	byID := rowsByID(sh)
	v.Story = s.story(shown, names, byID)
	v.JSON = s.api + "/results/" + strconv.Itoa(sh.DistrictNumber)
	v.CSV = s.csvLink(strings.Replace(SheetCSV, "{number}", strconv.Itoa(sh.DistrictNumber), 1))
	v.Sheet = s.sheetTable(shown, names, slugs, byID)
	v.Chart, v.ChartNarrow = s.drawChart(shown, names, wideChart), s.drawChart(shown, names, narrowChart)
	// The elected are the sheet's first rows, in the order they were
	// elected.
	for j := range min(len(sh.Elected), chartLines) {
		v.Legend = append(v.Legend, legendItem{chartColour(j), names[j]})
	}
	return v
}

// firstCounts is sh up to its shownCounts-th count: sh itself when it
// has no more.
func firstCounts(sh *dataset.CountSheet) *dataset.CountSheet {
	if len(sh.Counts) <= shownCounts {
		return sh
	}
	shown := *sh
	shown.Counts = sh.Counts[:shownCounts]
	shown.Candidacies = slices.Clone(sh.Candidacies)
	for j := range shown.Candidacies {
		shown.Candidacies[j].Totals = shown.Candidacies[j].Totals[:shownCounts]
	}
	return &shown
}

// sheetTable makes the sheet's table: each total, its change at that
// count, the quota and the elected marked.
func (s *Site) sheetTable(sh *dataset.CountSheet, names, slugs []string, byID map[string]int) sheetTable {
	t, num := s.lang.T, s.lang.Num
	tab := sheetTable{Caption: t("sheet_caption", sh.DistrictNumber, num(sh.Quota)), Note: t("sheet_note", num(sh.Quota))}
	for _, c := range sh.Counts {
		h := countHead{Label: t("count_n", c.Number)}
		switch c.Event {
		case dataset.EventFirstPreferences:
			h.Event = t("event_first")
		case dataset.EventSurplus:
			h.Event = t("event_surplus", names[byID[c.CandidateIDs[0]]])
		case dataset.EventExclusion:
			if len(c.CandidateIDs) == 1 {
				h.Event = t("event_excluded", names[byID[c.CandidateIDs[0]]])
			} else {
				h.Event = t("event_excluded_n", len(c.CandidateIDs))
			}
		}
		tab.Counts = append(tab.Counts, h)
	}
	rows := min(len(sh.Candidacies), Listed, max(1, sheetCells/len(sh.Counts)))
	if rows < len(sh.Candidacies) {
		tab.More = t("sheet_more", rows, len(sh.Candidacies))
	}
	for j := range sh.Candidacies[:rows] {
		c := &sh.Candidacies[j]
		row := sheetRow{Slug: slugs[j], Name: names[j], Elected: c.ElectedAtCount != nil}
		for k, total := range c.Totals {
			cell := sheetCell{Total: num(total), Quota: total >= sh.Quota}
			if k > 0 {
				cell.Change = change(num, total-c.Totals[k-1])
			}
			cell.Elected = c.ElectedAtCount != nil && *c.ElectedAtCount == k+1
			if c.ExcludedAtCount != nil && k+1 >= *c.ExcludedAtCount {
				cell.Gone, cell.Total = true, "—"
				if k+1 > *c.ExcludedAtCount {
					cell.Change = ""
				}
			}
			row.Cells = append(row.Cells, cell)
		}
		tab.Rows = append(tab.Rows, row)
	}
	nt := sheetRow{Name: t("non_transferable")}
	for k, c := range sh.Counts {
		cell := sheetCell{Total: num(c.NonTransferable)}
		if k > 0 {
			cell.Change = change(num, c.NonTransferable-sh.Counts[k-1].NonTransferable)
		}
		nt.Cells = append(nt.Cells, cell)
	}
	tab.NonTransferable = nt
	return tab
}

// change is a transfer as the sheet prints it: +2,378 or −933 (a minus
// sign, not a hyphen), and nothing for none.
func change(num func(int) string, d int) string {
	switch {
	case d > 0:
		return "+" + num(d)
	case d < 0:
		return "−" + num(-d)
	}
	return ""
}

// rowsByID is each candidate's row of sh, by candidate id: the rows the
// counts' events name.
func rowsByID(sh *dataset.CountSheet) map[string]int {
	m := make(map[string]int, len(sh.Candidacies))
	for j, c := range sh.Candidacies {
		m[c.CandidateID] = j
	}
	return m
}

// votes is n votes in words: "7,891 votes", "7,891 vot".
func (s *Site) votes(n int) string {
	key := "votes_many"
	switch {
	case n == 1:
		key = "votes_one"
	case n%100 >= 2 && n%100 <= 10 || n == 0:
		key = "votes_few" // Maltese: 2 to 10 (and 102 to 110…) take the plural
	}
	return s.lang.T(key, s.lang.Num(n))
}

// joinNames is names as a sentence lists them: "A, B and C".
func (s *Site) joinNames(names []string) string {
	return suggest.List(names, s.lang.T("and"))
}

// namesSentence is the sentence key says of names, listed, and args:
// its key_one string for one name (or none), its key_many for more.
func (s *Site) namesSentence(key string, names []string, args ...any) string {
	if len(names) > 1 {
		key += "_many"
	} else {
		key += "_one"
	}
	return s.lang.T(key, append([]any{s.joinNames(names)}, args...)...)
}

// storyGains is how many of the largest gains a count's sentence lists.
const storyGains = 3

// story is the count told in sentences, one per count: what moved, the
// largest gains, the votes that became non-transferable, and who was
// elected.
func (s *Site) story(sh *dataset.CountSheet, names []string, byID map[string]int) []storyLine {
	t := s.lang.T
	out := make([]storyLine, len(sh.Counts))
	for k, c := range sh.Counts {
		var b strings.Builder
		who := make([]string, len(c.CandidateIDs))
		for n, id := range c.CandidateIDs {
			who[n] = names[byID[id]]
		}
		switch c.Event {
		case dataset.EventFirstPreferences:
			b.WriteString(t("story_first", s.lang.Num(sh.ValidVotes), s.lang.Num(sh.Quota)))
		case dataset.EventSurplus:
			b.WriteString(t("story_surplus", s.joinNames(who), s.votes(c.Votes), s.gains(sh, k, names)))
		default:
			b.WriteString(s.namesSentence("story_excluded", who, s.votes(c.Votes), s.gains(sh, k, names)))
		}
		if k > 0 {
			if nt := c.NonTransferable - sh.Counts[k-1].NonTransferable; nt > 0 {
				b.WriteString(t("story_nt", s.votes(nt)))
			} else {
				b.WriteString(t("story_nt_none"))
			}
		} else {
			b.WriteString(".")
		}
		if e := s.electedAt(sh, k, names); e != "" {
			b.WriteString(" " + e)
		}
		out[k] = storyLine{t("story_count", c.Number), b.String()}
	}
	return out
}

// gains lists the largest gains at count k+1, with "…" when there were
// more.
func (s *Site) gains(sh *dataset.CountSheet, k int, names []string) string {
	type gain struct{ j, d int }
	var gs []gain
	for j, c := range sh.Candidacies {
		if d := c.Totals[k] - c.Totals[k-1]; d > 0 {
			gs = append(gs, gain{j, d})
		}
	}
	if len(gs) == 0 {
		return s.lang.T("story_no_gain")
	}
	slices.SortFunc(gs, func(a, b gain) int { return cmp.Or(b.d-a.d, strings.Compare(names[a.j], names[b.j])) })
	parts := make([]string, 0, storyGains+1)
	for _, g := range gs[:min(len(gs), storyGains)] {
		parts = append(parts, names[g.j]+" +"+s.lang.Num(g.d))
	}
	if len(gs) > storyGains {
		parts = append(parts, "…")
	}
	return strings.Join(parts, ", ")
}

// electedAt is the sentence saying who was elected at count k+1, in the
// order of election (the sheet's first rows): by reaching the quota, or,
// as the last seats are filled, as the candidates left; "" for none.
func (s *Site) electedAt(sh *dataset.CountSheet, k int, names []string) string {
	var quota, left []string
	for j := range sh.Elected {
		c := sh.Candidacies[j]
		if c.ElectedAtCount == nil || *c.ElectedAtCount != k+1 {
			continue
		}
		if c.Totals[k] >= sh.Quota {
			quota = append(quota, names[j])
		} else {
			left = append(left, names[j])
		}
	}
	var out []string
	for _, g := range []struct {
		names []string
		key   string
	}{{quota, "story_quota"}, {left, "story_left"}} {
		if len(g.names) > 0 {
			out = append(out, s.namesSentence(g.key, g.names))
		}
	}
	return strings.Join(out, " ")
}
