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
	Defects                  []defectView
	RegisteredDefect         bool // the registered voters are a stated defect
	Corrections              []correctionView
}

// storyLine is one count's sentence: "Count 2:", and what happened;
// Defect marks a count the sheet states a defect of.
type storyLine struct{ Count, Text, Defect string }

// defectView is a defect the sheet states, as the notice above its count
// names it: what it is, in the page's language; the rule, and what the
// rule says of it (in English, as validate says it); the publisher's
// note; and who took the seats the sheet leaves unfilled, as published,
// when the defect states them.
type defectView struct{ Headline, Rule, Message, Note, Published string }

// correctionView is a correction of the sheet, as the list beside its
// table gives it: its mark (ID the anchor the table's mark links to),
// where it is, what the sheet holds and what the source gives (a party's
// as parties, a district's as where the source filed the row), and the
// evidence.
type correctionView struct {
	ID, Mark, Where         string
	Sheet, Source           string
	Party                   bool
	SheetParty, SourceParty partyRef
	Place                   string
	Evidence                string
}

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
	Defect       bool // the sheet states a defect of this count
}

type sheetRow struct {
	Slug, Name string
	Elected    bool
	Cells      []sheetCell
	Fix        fix // a correction of the row's party or district
}

// sheetCell is one total of the sheet and its change at that count.
type sheetCell struct {
	Total, Change string
	Quota         bool // at or above the quota
	Elected       bool // elected at this count
	Gone          bool // excluded at or before this count: no total
	Fix           fix  // a correction of this total
}

// fix marks a corrected figure: its mark ("*1") and the anchor of the
// correction's item beside the table; empty for none.
type fix struct{ Mark, ID string }

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
	byID := rowsByID(sh)
	published := publishedSeats(sh, byID)
	for j := range sh.Candidacies {
		c := &sh.Candidacies[j]
		cand, name, slug := s.candidacyRow(c)
		names[j], slugs[j] = name, slug
		row := outcomeRow{Slug: slug, Name: name, Party: s.partyOf(c.PartyID), FirstPreferences: num(c.FirstPreferences)}
		switch {
		case c.ElectedAtCount != nil:
			k := *c.ElectedAtCount
			row.Outcome = t("outcome_elected", k, s.votes(c.Totals[k-1]))
			if slices.Contains(published, j) { // not by a count: the sheet ends there
				row.Outcome = t("outcome_published", k)
			}
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
	v.Defects, v.RegisteredDefect = s.defectViews(sh, names, byID)
	v.Story = s.story(shown, names, byID)
	v.JSON = s.api + "/results/" + strconv.Itoa(sh.DistrictNumber)
	v.CSV = s.csvLink(strings.Replace(SheetCSV, "{number}", strconv.Itoa(sh.DistrictNumber), 1))
	v.Sheet = s.sheetTable(shown, names, slugs, byID)
	v.Corrections = s.corrections(sh, names, byID, &v.Sheet)
	v.Chart, v.ChartNarrow = s.drawChart(shown, names, wideChart), s.drawChart(shown, names, narrowChart)
	// The elected are the sheet's first rows, in the order they were
	// elected.
	for j := range min(len(sh.Elected), chartLines) {
		v.Legend = append(v.Legend, legendItem{chartColour(j), names[j]})
	}
	return v
}

// defectViews is the defects sh states, as the notice above its count
// names them, and whether its registered voters are one.
func (s *Site) defectViews(sh *dataset.CountSheet, names []string, byID map[string]int) ([]defectView, bool) {
	t := s.lang.T
	var out []defectView
	registered := false
	for _, d := range sh.Defects {
		head := t("defect_" + d.Rule + "_sheet")
		if d.Count != nil {
			head = t("defect_"+d.Rule, *d.Count)
		}
		registered = registered || d.Rule == "registered"
		v := defectView{Headline: head, Rule: d.Rule, Message: d.Message, Note: d.Note}
		if len(d.Elected) > 0 {
			v.Published = t("defect_published", s.listSome(namesOf(names, rowsOf(d.Elected, byID)), nil))
		}
		out = append(out, v)
	}
	return out, registered
}

// rowsOf is the rows of sh whose candidates ids names, by byID.
func rowsOf(ids []string, byID map[string]int) []int {
	out := make([]int, len(ids))
	for n, id := range ids {
		out[n] = byID[id]
	}
	return out
}

// publishedSeats is the rows of sh whose defects state they took the
// seats its counts leave unfilled, as published (dataset.Defect's
// Elected): elected at its last count, after those its counts elect.
func publishedSeats(sh *dataset.CountSheet, byID map[string]int) []int {
	var out []int
	for _, d := range sh.Defects {
		out = append(out, rowsOf(d.Elected, byID)...)
	}
	return out
}

// defectAt reports whether sh states a defect of count n.
func defectAt(sh *dataset.CountSheet, n int) bool {
	return slices.ContainsFunc(sh.Defects, func(d dataset.Defect) bool { return d.Count != nil && *d.Count == n })
}

// corrections is the corrections of sh as the list beside its table
// gives them, each marked where tab shows the figure it changes.
func (s *Site) corrections(sh *dataset.CountSheet, names []string, byID map[string]int, tab *sheetTable) []correctionView {
	t, num := s.lang.T, s.lang.Num
	out := make([]correctionView, 0, len(sh.Corrections))
	for n, c := range sh.Corrections {
		f := fix{Mark: "*" + strconv.Itoa(n+1), ID: "correction-" + strconv.Itoa(n+1)}
		v := correctionView{ID: f.ID, Mark: f.Mark, Evidence: c.Evidence}
		row := -1
		if c.CandidateID != nil {
			row = byID[*c.CandidateID]
		}
		cell := func(x dataset.Cell) string {
			if x.Number == nil {
				return t("correction_empty")
			}
			return num(*x.Number)
		}
		switch c.Field {
		case dataset.CorrectedTotal:
			k := *c.Count - 1
			v.Where, v.Sheet, v.Source = t("count_n", *c.Count)+", "+names[row], cell(c.To), cell(c.From)
			if row < len(tab.Rows) && k < len(tab.Rows[row].Cells) {
				tab.Rows[row].Cells[k].Fix = f
			}
		case dataset.CorrectedNonTransferable:
			k := *c.Count - 1
			v.Where, v.Sheet, v.Source = t("count_n", *c.Count)+", "+t("non_transferable"), cell(c.To), cell(c.From)
			if k < len(tab.NonTransferable.Cells) {
				tab.NonTransferable.Cells[k].Fix = f
			}
		case dataset.CorrectedParty:
			v.Where, v.Party, v.SheetParty, v.SourceParty = names[row], true, s.partyOf(c.To.Text), s.partyOf(c.From.Text)
		case dataset.CorrectedDistrict:
			v.Where, v.Place = names[row], dataset.Text(c.From.Text)
			if c.From.Number != nil {
				v.Place = t("district_n", *c.From.Number)
			}
		}
		if (c.Field == dataset.CorrectedParty || c.Field == dataset.CorrectedDistrict) && row < len(tab.Rows) {
			tab.Rows[row].Fix = f
		}
		out = append(out, v)
	}
	return out
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
		h := countHead{Label: t("count_n", c.Number), Defect: defectAt(sh, c.Number)}
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
		case dataset.EventIrregular:
			h.Event = t("event_irregular")
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
func (s *Site) votes(n int) string { return s.counted("votes", n) }

// counted is n and the noun of key, as the language counts: its key_one
// string for 1, its key_few for 0 and 2 to 10 (and 102 to 110…, which
// take the plural in Maltese), its key_many for the others.
func (s *Site) counted(key string, n int) string {
	switch {
	case n == 1:
		key += "_one"
	case n%100 >= 2 && n%100 <= 10 || n == 0:
		key += "_few"
	default:
		key += "_many"
	}
	return s.lang.T(key, s.lang.Num(n))
}

// joinNames is names as a sentence lists them: "A, B and C".
func (s *Site) joinNames(names []string) string {
	return suggest.List(names, s.lang.T("and"))
}

// storyNames is how many candidates a sentence names before it says how
// many others there are: a count that excludes thousands at once, or
// leaves them out of the last seats, stays a sentence.
const storyNames = 5

// listSome is items as a sentence lists them: every one when they are
// few, else the first storyNames and how many others, with "all with no
// vote" when noVote says so of each of those others (noVote may be nil).
func (s *Site) listSome(items []string, noVote func(i int) bool) string {
	if len(items) <= storyNames+1 {
		return s.joinNames(items)
	}
	others := s.counted("others", len(items)-storyNames)
	none := noVote != nil
	for i := storyNames; none && i < len(items); i++ {
		none = noVote(i)
	}
	if none {
		others += s.lang.T("story_all_none")
	}
	return s.joinNames(append(slices.Clone(items[:storyNames]), others))
}

// namesOf is the names of the rows js.
func namesOf(names []string, js []int) []string {
	out := make([]string, len(js))
	for n, j := range js {
		out[n] = names[j]
	}
	return out
}

// byTotal sorts the rows js of sh by their totals after count k, highest
// first, then by name.
func byTotal(sh *dataset.CountSheet, js []int, k int, names []string) {
	slices.SortFunc(js, func(a, b int) int {
		return cmp.Or(cmp.Compare(sh.Candidacies[b].Totals[k], sh.Candidacies[a].Totals[k]), strings.Compare(names[a], names[b]))
	})
}

// namesSentence is the sentence key says of the list of n names, and
// args: its key_one string for one name (or none), its key_many for more.
func (s *Site) namesSentence(key string, n int, list string, args ...any) string {
	if n > 1 {
		key += "_many"
	} else {
		key += "_one"
	}
	return s.lang.T(key, append([]any{list}, args...)...)
}

// storyGains is how many of the largest gains a count's sentence lists.
const storyGains = 3

// story is the count told in sentences, one per count: a tie for the
// lowest place, what moved, the largest gains, the votes that became
// non-transferable, and who was elected. Every figure and name in it
// comes from the sheet's totals and what the dataset worked out from
// them, never from the order of its rows.
func (s *Site) story(sh *dataset.CountSheet, names []string, byID map[string]int) []storyLine {
	t := s.lang.T
	out := make([]storyLine, len(sh.Counts))
	for k, c := range sh.Counts {
		var b strings.Builder
		who := make([]int, len(c.CandidateIDs))
		for n, id := range c.CandidateIDs {
			who[n] = byID[id]
		}
		switch c.Event {
		case dataset.EventFirstPreferences:
			b.WriteString(t("story_first", s.lang.Num(sh.ValidVotes), s.lang.Num(sh.Quota)))
		case dataset.EventSurplus:
			b.WriteString(t("story_surplus", s.joinNames(namesOf(names, who)), s.votes(c.Votes), s.gains(sh, k, names)))
		case dataset.EventIrregular:
			// Neither a surplus nor an exclusion: only what the totals
			// show, whose fell and by how much, and who gained.
			switch len(who) {
			case 0:
				b.WriteString(t("story_irregular_none"))
			case 1:
				b.WriteString(t("story_irregular_one", names[who[0]], s.votes(c.Votes), s.gains(sh, k, names)))
			default:
				b.WriteString(t("story_irregular_many", s.listSome(namesOf(names, who), nil), s.votes(c.Votes), s.gains(sh, k, names)))
			}
		default:
			if tie := tieAt(sh, c.Number, dataset.TieExclusion); tie != nil {
				b.WriteString(s.tieSentence(sh, tie, names, byID) + " ")
			}
			byTotal(sh, who, k-1, names)
			list := s.listSome(namesOf(names, who), func(i int) bool { return sh.Candidacies[who[i]].Totals[k-1] == 0 })
			b.WriteString(s.namesSentence("story_excluded", len(who), list, s.votes(c.Votes), s.gains(sh, k, names)))
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
		if e := s.electedAt(sh, k, names, byID); e != "" {
			b.WriteString(" " + e)
		}
		out[k] = storyLine{Count: t("story_count", c.Number), Text: b.String()}
		if defectAt(sh, c.Number) {
			out[k].Defect = t("defect_mark")
		}
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

// electedAt is the sentences saying who was elected at count k+1, in the
// order of election (the sheet's first rows): by reaching the quota; how
// a tie for the last seat went; as the last seats are filled without
// the quota, who took them and who was left out; and, where the sheet
// ends with seats unfilled, who took them as published; "" for none.
func (s *Site) electedAt(sh *dataset.CountSheet, k int, names []string, byID map[string]int) string {
	var quota, filled, published []int
	stated := publishedSeats(sh, byID)
	for j := range sh.Elected {
		c := sh.Candidacies[j]
		switch {
		case c.ElectedAtCount == nil || *c.ElectedAtCount != k+1:
			continue
		case slices.Contains(stated, j):
			published = append(published, j)
			continue
		}
		if c.Totals[k] >= sh.Quota {
			quota = append(quota, j)
		} else {
			filled = append(filled, j)
		}
	}
	var out []string
	if len(quota) > 0 {
		out = append(out, s.namesSentence("story_quota", len(quota), s.listSome(namesOf(names, quota), nil)))
	}
	if tie := tieAt(sh, k+1, dataset.TieSeat); tie != nil {
		out = append(out, s.tieSentence(sh, tie, names, byID))
	}
	if len(filled) > 0 {
		out = append(out, s.fillSentence(sh, k, filled, names))
	}
	if len(published) > 0 {
		out = append(out, s.publishedSentence(published, sh.Seats-len(sh.Elected)+len(stated), names))
	}
	return strings.Join(out, " ")
}

// publishedSentence says that the sheet ends at this count with unfilled
// seats left, and who, as published, took them (or some of them): no
// count of the sheet shows it.
func (s *Site) publishedSentence(published []int, unfilled int, names []string) string {
	t := s.lang.T
	list := s.listSome(namesOf(names, published), nil)
	switch {
	case unfilled == 1:
		return t("story_published_one", list)
	case len(published) == unfilled:
		return t("story_published_many", list, s.counted("seats", unfilled))
	case len(published) == 1:
		return t("story_published_part_one", list, s.counted("seats", unfilled))
	}
	return t("story_published_part_many", list, s.counted("seats", unfilled), len(published))
}

// fillSentence says that filled took the last seats at count k+1 without
// the quota: as many candidates being left as seats, or, with no surplus
// left, as the highest of those still in the count, naming those left
// out with their totals.
func (s *Site) fillSentence(sh *dataset.CountSheet, k int, filled []int, names []string) string {
	t, num := s.lang.T, s.lang.Num
	var out []int // still in the count, and not elected
	for j, c := range sh.Candidacies {
		if c.ElectedAtCount == nil && (c.ExcludedAtCount == nil || *c.ExcludedAtCount > k+1) {
			out = append(out, j)
		}
	}
	list := s.listSome(namesOf(names, filled), nil)
	if len(out) == 0 {
		return s.namesSentence("story_left", len(filled), list)
	}
	byTotal(sh, out, k, names)
	var left string
	if len(out) == 1 {
		left = t("story_out_one", names[out[0]], num(sh.Candidacies[out[0]].Totals[k]))
	} else {
		items := make([]string, len(out))
		for n, j := range out {
			items[n] = t("story_out_item", names[j], num(sh.Candidacies[j].Totals[k]))
		}
		left = t("story_out_many", s.listSome(items, func(i int) bool { return sh.Candidacies[out[i]].Totals[k] == 0 }))
	}
	still := s.counted("candidates", len(filled)+len(out))
	if len(filled) == 1 {
		return t("story_fill_one", list, still, left)
	}
	return t("story_fill_many", list, still, len(filled), left)
}

// tieAt is sh's tie of kind at count n, or nil.
func tieAt(sh *dataset.CountSheet, n int, kind string) *dataset.Tie {
	for i := range sh.Ties {
		if sh.Ties[i].Count == n && sh.Ties[i].Kind == kind {
			return &sh.Ties[i]
		}
	}
	return nil
}

// storyVersus is how many others a tie's sentence compares one candidate
// with, count by count, before it says only "by the earlier counts".
const storyVersus = 3

// tieSentence tells a tie: who are tied, at what total, for what, and how
// it was decided: by the earlier counts, with the figures of the first
// count at which the tied differed; by lot; or that the sheet does not
// say.
func (s *Site) tieSentence(sh *dataset.CountSheet, tie *dataset.Tie, names []string, byID map[string]int) string {
	t, num := s.lang.T, s.lang.Num
	rows := make([]int, len(tie.CandidateIDs))
	for n, id := range tie.CandidateIDs {
		rows[n] = byID[id]
	}
	at := tie.Count - 1 // the totals they are tied at: after the count before an exclusion, after the count of a seat
	if tie.Kind == dataset.TieExclusion {
		at--
	}
	if len(rows) == 0 || at < 0 {
		return ""
	}
	tied, total := s.listSome(namesOf(names, rows), nil), num(sh.Candidacies[rows[0]].Totals[at])
	decided := dataset.Text(tie.DecidedBy)
	if tie.Kind == dataset.TieExclusion {
		head := t("story_tie_low", tied, total)
		x := slices.IndexFunc(rows, func(j int) bool {
			c := sh.Candidacies[j]
			return c.ExcludedAtCount != nil && *c.ExcludedAtCount == tie.Count
		})
		if x < 0 {
			return head + t("story_tie_open")
		}
		others := slices.Delete(slices.Clone(rows), x, x+1)
		switch vs, ok := s.versus(sh, rows[x], others, at, names); {
		case decided == dataset.DecidedByLot:
			return head + t("story_tie_excluded_lot", names[rows[x]])
		case decided == dataset.DecidedByEarlierCounts && ok:
			return head + t("story_tie_excluded_fewer", names[rows[x]], vs)
		case decided == dataset.DecidedByEarlierCounts:
			return head + t("story_tie_excluded_earlier", names[rows[x]])
		}
		return head + t("story_tie_open")
	}
	var winners, losers []int
	for _, j := range rows {
		if c := sh.Candidacies[j]; c.ElectedAtCount != nil && *c.ElectedAtCount == tie.Count {
			winners = append(winners, j)
		} else {
			losers = append(losers, j)
		}
	}
	head := t("story_tie_seat_one", tied, total)
	if len(winners) > 1 {
		head = t("story_tie_seat_many", tied, total, s.counted("seats", len(winners)))
	}
	if len(winners) == 0 || len(losers) == 0 {
		return head + t("story_tie_open")
	}
	won := s.listSome(namesOf(names, winners), nil)
	switch decided {
	case dataset.DecidedByLot:
		return head + s.namesSentence("story_tie_seat_lot", len(winners), won)
	case dataset.DecidedByEarlierCounts:
		if vs, ok := s.versus(sh, winners[0], losers, at, names); len(winners) == 1 && ok {
			return head + t("story_tie_seat_more", names[winners[0]], vs)
		}
		if vs, ok := s.versus(sh, losers[0], winners, at, names); len(losers) == 1 && ok {
			return head + t("story_tie_seat_fewer", names[losers[0]], vs)
		}
		return head + s.namesSentence("story_tie_seat_earlier", len(winners), won)
	}
	return head + t("story_tie_open")
}

// versus compares a with each of others at the first count, up to count
// index at, at which their totals differed: "at count 1 (55 against 62)"
// for one, "than B at count 1 (55 against 60) and than C at count 2 (57
// against 58)" for a few. It reports false for more than a few, or when
// two never differed.
func (s *Site) versus(sh *dataset.CountSheet, a int, others []int, at int, names []string) (string, bool) {
	if len(others) > storyVersus {
		return "", false
	}
	ta := sh.Candidacies[a].Totals
	var parts []string
	for _, o := range others {
		to := sh.Candidacies[o].Totals
		m := -1
		for i := range at + 1 {
			if ta[i] != to[i] {
				m = i
				break
			}
		}
		if m < 0 {
			return "", false
		}
		if len(others) == 1 {
			return s.lang.T("story_cmp_one", m+1, s.lang.Num(ta[m]), s.lang.Num(to[m])), true
		}
		parts = append(parts, s.lang.T("story_cmp_than", names[o], m+1, s.lang.Num(ta[m]), s.lang.Num(to[m])))
	}
	return strings.Join(parts, " "+s.lang.T("and")+" "), true
}
