package pages

import (
	"cmp"
	"html/template"
	"math"
	"slices"
	"strconv"
	"strings"

	"ballot/dataset"
)

// The history page: each election's first preferences and seats at the
// count by party, as a table and as a chart across the archive (each
// party's share of the first preferences and of the seats at the count,
// by election), and, in sentences, the elections in which the party with
// the most first preferences did not win the most seats at the count.
//
// A party is followed across elections by its slug. The parties that
// stood in more than half of the elections counted each have a line of
// their own on the chart and columns of their own in the table; the
// others are one line and one column, "others", with the independents,
// and the table lists each of them beside.

// historyView is the history page's.
type historyView struct {
	Counted      int      // the elections with count sheets
	Upsets, Ties []string // the sentences of each election where the leader in first preferences did not win the most seats, or only tied
	UpsetsLead   string
	Series       []historySeries
	Charts       []historyChart
	Caption      string
	Rows         []historyRow
	OthersName   string
}

// historySeries is a line of the chart: a party followed by its slug, or
// the others together.
type historySeries struct {
	Name, Colour string
	Dashed       bool
	slug         string // "" for the others
}

// historyChart is one panel of the chart, drawn for a desk and a phone.
type historyChart struct {
	Heading      string
	Wide, Narrow template.HTML
}

// historyRow is one election in the table.
type historyRow struct {
	Slug, URL, Name, NameLang string
	Valid                     string
	Seats                     int
	Main                      []historyCell // the series' parties', in the series' order
	Others                    historyCell
	OtherParties              []string // each other party, with its figures
}

// historyCell is a party's (or the others') figures in an election.
type historyCell struct {
	Stood            bool
	FirstPreferences string
	Share            string
	Seats            string // "31 seats"
}

// electionTotals is what the history reads of one election: each party's
// first preferences and seats at the count, by slug (the independents
// under ""), and the election's totals.
type electionTotals struct {
	j            int // the election's place in the archive
	slug         string
	valid, seats int
	parties      []partyFigures // in the national totals' order: the most first preferences first
}

type partyFigures struct {
	slug             string // "" for the independents
	ref              partyRef
	short            string
	firstPreferences int
	seats            int
}

// historyTotals reads every election of the archive with count sheets,
// oldest first.
func (s *Site) historyTotals() []electionTotals {
	var out []electionTotals
	es := s.arch.Elections()
	for j := len(es) - 1; j >= 0; j-- {
		ds := es[j].Dataset()
		if len(ds.Sheets()) == 0 {
			continue
		}
		o := s.in(j)
		nt := ds.NationalTotals()
		et := electionTotals{j: j, slug: es[j].Record.Slug, valid: nt.ValidVotes, seats: nt.Seats}
		for _, pt := range nt.Parties {
			pf := partyFigures{firstPreferences: pt.FirstPreferences, seats: pt.SeatsAtCount, ref: o.partyOf(pt.PartyID), short: s.lang.T("independent")}
			if pt.PartyID != nil {
				pi, _ := ds.Lookup(dataset.Parties, *pt.PartyID)
				pf.slug, pf.short = ds.Parties()[pi].Slug, clip(ds.Parties()[pi].ShortName)
			}
			et.parties = append(et.parties, pf)
		}
		out = append(out, et)
	}
	return out
}

// historySlugs are the parties that stood in more than half of the
// elections of totals, by slug, the most first preferences over them all
// first: those the chart draws a line for.
func historySlugs(totals []electionTotals) []string {
	stood, votes := map[string]int{}, map[string]int{}
	for _, et := range totals {
		for _, pf := range et.parties {
			if pf.slug != "" {
				stood[pf.slug]++
				votes[pf.slug] += pf.firstPreferences
			}
		}
	}
	var slugs []string
	for slug, n := range stood {
		if 2*n > len(totals) {
			slugs = append(slugs, slug)
		}
	}
	slices.SortFunc(slugs, func(a, b string) int { return cmp.Or(cmp.Compare(votes[b], votes[a]), strings.Compare(a, b)) })
	return slugs
}

// historyColours are the lines' colours, the others' last: none of a
// party, as the data gives the parties none.
var historyColours = []string{"#b85c00", "#0f7285", "#7b3fa0", "#1e7b3a", "#a0306f"}

const othersColour = "#5b6570"

// upset is an election in which the party with the most first
// preferences did not win the most seats at the count: the leader in
// first preferences, and the parties with more seats than it (tie: as
// many).
type upset struct {
	et      electionTotals
	leader  partyFigures
	winners []partyFigures
	tie     bool
}

// upsets finds, in each election of totals, whether the party with the
// most first preferences (of the parties; the independents are none)
// won the most seats at the count: those where another party won more
// (the leader's seats fewer than theirs), and those where it only tied
// with another for the most, newest first.
func upsets(totals []electionTotals) []upset {
	var out []upset
	for i := len(totals) - 1; i >= 0; i-- {
		et := totals[i]
		var leader *partyFigures
		most := 0
		for k := range et.parties {
			pf := &et.parties[k]
			if pf.slug == "" {
				continue
			}
			if leader == nil || pf.firstPreferences > leader.firstPreferences {
				leader = pf
			}
			most = max(most, pf.seats)
		}
		if leader == nil {
			continue
		}
		u := upset{et: et, leader: *leader}
		for _, pf := range et.parties {
			if pf.slug != "" && pf.slug != leader.slug && pf.seats == most {
				u.winners = append(u.winners, pf)
			}
		}
		switch {
		case leader.seats < most:
		case len(u.winners) > 0:
			u.tie = true
		default:
			continue
		}
		out = append(out, u)
	}
	return out
}

// historyPage makes the history page.
func (s *Site) historyPage() historyView {
	t, num := s.lang.T, s.lang.Num
	totals := s.historyTotals()
	v := historyView{Counted: len(totals), OthersName: t("history_others")}
	slugs := historySlugs(totals)
	for i, slug := range slugs {
		name, colour := slug, historyColours[i%len(historyColours)]
		// Named by its short name, and drawn in its colour, in the latest
		// election it stood in that gives them.
		for k := len(totals) - 1; k >= 0; k-- {
			for _, pf := range totals[k].parties {
				if pf.slug == slug && name == slug {
					name = pf.short
				}
				if pf.slug == slug && colour == historyColours[i%len(historyColours)] && pf.ref.Color != "" {
					colour = pf.ref.Color
				}
			}
		}
		v.Series = append(v.Series, historySeries{Name: name, Colour: colour, slug: slug})
	}
	v.Series = append(v.Series, historySeries{Name: v.OthersName, Colour: othersColour, Dashed: true})

	for _, u := range upsets(totals) {
		others := make([]string, len(u.winners))
		for k, w := range u.winners {
			others[k] = t("history_party_figures", w.short, num(w.firstPreferences), s.counted("seats", w.seats))
		}
		lead := t("history_party_figures", u.leader.short, num(u.leader.firstPreferences), s.counted("seats", u.leader.seats))
		// Each party's figures hold commas: they are listed apart with
		// semicolons.
		if u.tie {
			v.Ties = append(v.Ties, t("history_tie", u.et.slug, lead, strings.Join(others, "; ")))
		} else {
			v.Upsets = append(v.Upsets, t("history_upset", u.et.slug, lead, strings.Join(others, "; ")))
		}
	}
	v.UpsetsLead = t("history_upsets_none", len(totals))
	if n := len(v.Upsets); n > 0 {
		v.UpsetsLead = t("history_upsets", n, len(totals))
	}

	// The table, newest first, as the archive lists its elections.
	for k := len(totals) - 1; k >= 0; k-- {
		et := totals[k]
		e := s.arch.Elections()[et.j]
		r := historyRow{Slug: et.slug, URL: s.lang.Prefix + s.baseOf(et.j) + ResultsPath, Valid: num(et.valid), Seats: et.seats}
		r.Name, r.NameLang = s.electionName(e)
		cell := func(fp, seats int) historyCell {
			c := historyCell{Stood: true, FirstPreferences: num(fp), Seats: s.counted("seats", seats)}
			if et.valid > 0 {
				c.Share = percent(fp, et.valid)
			}
			return c
		}
		r.Main = make([]historyCell, len(slugs))
		others, otherSeats, stood := 0, 0, false
		for _, pf := range et.parties {
			if i := slices.Index(slugs, pf.slug); i >= 0 && pf.slug != "" {
				r.Main[i] = cell(pf.firstPreferences, pf.seats)
				continue
			}
			stood = true
			others += pf.firstPreferences
			otherSeats += pf.seats
			r.OtherParties = append(r.OtherParties, t("history_party_figures", pf.short, num(pf.firstPreferences), s.counted("seats", pf.seats)))
		}
		if stood {
			r.Others = cell(others, otherSeats)
		}
		v.Rows = append(v.Rows, r)
	}
	v.Caption = t("history_caption", len(totals))

	// The chart: two panels, each party's share of the first preferences
	// and of the seats at the count, by election, oldest first.
	labels := make([]string, len(totals))
	fp := make([][]float64, len(v.Series))
	seats := make([][]float64, len(v.Series))
	for i := range v.Series {
		fp[i], seats[i] = make([]float64, len(totals)), make([]float64, len(totals))
	}
	for k, et := range totals {
		labels[k] = et.slug
		for i := range v.Series {
			fp[i][k], seats[i][k] = math.NaN(), math.NaN() // did not stand
		}
		last := len(v.Series) - 1
		for _, pf := range et.parties {
			i := slices.Index(slugs, pf.slug)
			if i < 0 || pf.slug == "" {
				i = last
				if math.IsNaN(fp[i][k]) {
					fp[i][k], seats[i][k] = 0, 0
				}
				fp[i][k] += share(pf.firstPreferences, et.valid)
				seats[i][k] += share(pf.seats, et.seats)
				continue
			}
			fp[i][k], seats[i][k] = share(pf.firstPreferences, et.valid), share(pf.seats, et.seats)
		}
	}
	for _, p := range []struct {
		heading, label string
		values         [][]float64
	}{
		{t("history_chart_fp"), t("history_chart_fp_label"), fp},
		{t("history_chart_seats"), t("history_chart_seats_label"), seats},
	} {
		c := historyChart{Heading: p.heading}
		c.Wide = s.drawHistory(p.label, labels, v.Series, p.values, wideHistory)
		c.Narrow = s.drawHistory(p.label, labels, v.Series, p.values, narrowHistory)
		v.Charts = append(v.Charts, c)
	}
	return v
}

// share is n over of, from 0 to 1; 0 of none.
func share(n, of int) float64 {
	if of == 0 {
		return 0
	}
	return float64(n) / float64(of)
}

// History is the history page: each election's first preferences and
// seats at the count by party, as a table and a chart, and the elections
// in which the party with the most first preferences did not win the
// most seats. It depends on the archive alone.
func (s *Site) History() []byte {
	return s.render("history", s.lang.T("history_heading"), "history", s.api+ElectionsPath, HistoryPath, s.historyPage())
}

// historyLayout is one drawing of a panel of the history's chart.
type historyLayout struct {
	class         string // chart-wide or chart-narrow
	width, height int
	font          int
}

var (
	wideHistory   = historyLayout{"chart-wide", 640, 260, 13}
	narrowHistory = historyLayout{"chart-narrow", 340, 240, 13}
)

// drawHistory draws one panel of the history's chart: the share each
// series had in each election (NaN where it did not stand), from 0 to
// 100%, the elections evenly spaced, oldest first, the series named at
// their lines' ends.
func (s *Site) drawHistory(label string, elections []string, series []historySeries, values [][]float64, l historyLayout) template.HTML {
	var b strings.Builder
	font := float64(l.font)
	left := math.Ceil(textWidth("100%", chartTick)) + 6
	widest := 0.0
	for _, sr := range series {
		widest = max(widest, textWidth(sr.Name, font))
	}
	right := math.Ceil(labelX + widest + labelHalo)
	plotW, plotH := float64(l.width)-left-right, float64(l.height-chartTop-chartBottom)
	n := len(elections)
	x := func(k int) float64 {
		if n > 1 {
			return left + plotW*float64(k)/float64(n-1)
		}
		return left + plotW/2
	}
	y := func(v float64) float64 { return chartTop + plotH*(1-v) }
	b.WriteString(`<svg class="chart ` + l.class + `" viewBox="0 0 ` + strconv.Itoa(l.width) + " " + strconv.Itoa(l.height) +
		`" width="100%" role="img" aria-label="` + template.HTMLEscapeString(label) + `" font-size="` + strconv.Itoa(l.font) + `">`)
	tick := `" fill="#5b6570" font-size="` + strconv.Itoa(chartTick) + `">`
	for v := 0; v <= 100; v += 25 {
		yv := y(float64(v) / 100)
		b.WriteString(`<line x1="` + f(left) + `" x2="` + f(left+plotW) + `" y1="` + f(yv) + `" y2="` + f(yv) + `" stroke="#e3e7eb"/>`)
		b.WriteString(`<text x="` + f(left-6) + `" y="` + f(yv+4) + `" text-anchor="end` + tick + strconv.Itoa(v) + `%</text>`)
	}
	// Every every-th election is named under the axis, and the last, as
	// the counts of a count's chart are, far enough apart not to meet;
	// a name that would reach past the chart's edge is moved in.
	room := 0.0
	for _, e := range elections {
		room = max(room, textWidth(e, chartTick))
	}
	every := 1
	for n > 1 && plotW/float64(n-1)*float64(every) < room+6 {
		every++
	}
	for k := range n {
		if k == n-1 || k%every == 0 && n-1-k >= every {
			w := textWidth(elections[k], chartTick) / 2
			xk := min(max(x(k), w+labelHalo), float64(l.width)-w-labelHalo)
			b.WriteString(`<text x="` + f(xk) + `" y="` + f(chartTop+plotH+18) + `" text-anchor="middle` + tick + template.HTMLEscapeString(elections[k]) + `</text>`)
		}
	}
	b.WriteString(`<text x="` + f(left+plotW/2) + `" y="` + f(float64(l.height-6)) + `" text-anchor="middle` + tick +
		template.HTMLEscapeString(s.lang.T("history_chart_elections")) + `</text>`)
	// The lines, the others first, under the parties'; each broken where
	// its party did not stand, a lone election a dot.
	type end struct {
		y, at  float64
		name   string
		colour string
	}
	var ends []end
	for i := len(series) - 1; i >= 0; i-- {
		sr := series[i]
		attrs := `stroke="` + sr.Colour + `" stroke-width="2.5"`
		if sr.Dashed {
			attrs = `stroke="` + sr.Colour + `" stroke-width="2" stroke-dasharray="6 3"`
		}
		var run []string
		flush := func() {
			if len(run) == 1 {
				run = append(run, run[0])
			}
			if len(run) > 0 {
				b.WriteString(`<polyline points="` + strings.Join(run, " ") + `" fill="none" stroke-linejoin="round" stroke-linecap="round" ` + attrs + `/>`)
			}
			run = run[:0]
		}
		last := -1
		for k, v := range values[i] {
			if math.IsNaN(v) {
				flush()
				continue
			}
			run = append(run, f(x(k))+","+f(y(v)))
			last = k
		}
		flush()
		if last >= 0 {
			ends = append(ends, end{y(values[i][last]), y(values[i][last]), sr.Name, sr.Colour})
		}
	}
	// The names at the lines' ends, moved apart, each with a leader from
	// its line's last point.
	slices.SortStableFunc(ends, func(a, b end) int { return cmp.Compare(a.y, b.y) })
	ys := make([]float64, len(ends))
	for i := range ends {
		ys[i] = ends[i].y + font/3
	}
	spreadLabels(ys, font+3, labelAscent*font+labelHalo+0.05, float64(l.height)-labelDescent*font-labelHalo-0.05)
	lx := left + plotW
	for i, e := range ends {
		b.WriteString(`<polyline points="` + f(lx+4) + "," + f(e.at) + " " + f(lx+10) + "," + f(ys[i]-4) + " " + f(lx+14) + "," + f(ys[i]-4) +
			`" fill="none" stroke="` + e.colour + `" stroke-width="1.25"/>`)
		b.WriteString(`<text x="` + f(lx+labelX) + `" y="` + f(ys[i]) + `"` + halo + `>` + template.HTMLEscapeString(e.name) + `</text>`)
	}
	b.WriteString(`</svg>`)
	return template.HTML(b.String()) // every name and word in it is escaped
}
