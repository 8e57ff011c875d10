package pages

import (
	"html/template"
	"math"
	"net/url"
	"slices"
	"strconv"
	"strings"

	"ballot/archive"
	"ballot/dataset"
)

// A person's page: every election they stood in, newest first, with their
// districts, party, first preferences and how each count went for them,
// a chart of their first preferences by election, and what the data says
// of how their candidacies were linked; and the search of the people by
// name. A person is followed across elections by their candidates'
// person_id, as the archive does (archive.Person): the page says no more
// of who they are than the coverage notes of those elections do.

// personView is a person's page.
type personView struct {
	Name    string
	Summary string
	Caption string
	Rows    []personRow
	Chart   template.HTML // nil when no election of theirs has a count sheet
	Linked  []linkNote
}

// personRow is one district of one candidacy.
type personRow struct {
	Election, ElectionURL string
	Name, CandidateURL    string // the candidate as that election names them
	P                     string // the prefix of that election's pages
	Party                 partyRef
	District              int
	FirstPreferences      string
	Outcome               string
}

// linkNote is what the coverage notes of some of the person's elections
// say of how their candidates were linked, and which elections.
type linkNote struct {
	Elections string
	Note      string
}

// Person is the page of the i-th person of the archive.
func (s *Site) Person(i int) Rendered {
	p := &s.arch.People()[i]
	return Rendered{"person-" + s.tag + "-" + p.Slug, func() []byte {
		v := s.personPage(p)
		return s.render("person", clip(p.Name), "", s.api+PeoplePath+"/"+p.Slug, PeoplePath+"/"+p.Slug, v)
	}}
}

// personPage makes the page of p.
func (s *Site) personPage(p *archive.Person) personView {
	t, num := s.lang.T, s.lang.Num
	v := personView{Name: clip(p.Name), Caption: t("person_caption", clip(p.Name))}
	var bars []personBar
	electedIn := 0
	notes := map[string][]string{} // each note on person_id, by the elections that give it
	var order []string
	for _, cy := range p.Candidacies {
		j, ok := s.electionIndex(cy.ElectionSlug)
		if !ok {
			continue
		}
		e := s.arch.Elections()[j]
		o := s.in(j)
		ds := e.Dataset()
		ci, _ := ds.Lookup(dataset.Candidates, cy.CandidateID)
		c := &ds.Candidates()[ci]
		base := personRow{Election: cy.ElectionSlug, ElectionURL: o.home(), Name: clip(cy.Name), CandidateURL: o.prefix() + "/candidates/" + c.Slug,
			P: o.prefix(), Party: o.partyOf(cy.PartyID)}
		// A seat won after the count, which the district pages say
		// instead of "not elected" (seatHow), is said here too.
		later := ""
		if w := o.seatHowSheets(c); w != "" {
			later = w
		}
		results := map[int]archive.DistrictResult{}
		for _, r := range cy.Results {
			results[r.DistrictNumber] = r
		}
		total, counted, elected := 0, false, false
		var rows []personRow
		for _, id := range cy.DistrictIDs {
			n, _ := ds.DistrictByID(id)
			row := base
			row.District = n
			r, ok := results[n]
			switch {
			case !ok:
				row.FirstPreferences, row.Outcome = "—", t("status_none")
			default:
				counted = true
				total += r.FirstPreferences
				row.FirstPreferences = num(r.FirstPreferences)
				row.Outcome = o.countOutcome(n, r)
				elected = elected || r.ElectedAtCount != nil
				if r.ElectedAtCount == nil && later != "" {
					row.Outcome += "; " + later
				}
			}
			rows = append(rows, row)
		}
		if elected {
			electedIn++
		}
		v.Rows = append(v.Rows, rows...)
		if counted {
			bars = append(bars, personBar{cy.ElectionSlug, total, elected})
		}
		for _, note := range ds.Manifest.Coverage.Notes {
			if strings.Contains(note, "person_id") {
				if _, seen := notes[note]; !seen {
					order = append(order, note)
				}
				notes[note] = append(notes[note], cy.ElectionSlug)
			}
		}
	}
	n := len(p.Candidacies)
	first, last := p.Candidacies[n-1].ElectionSlug, p.Candidacies[0].ElectionSlug
	switch {
	case n == 1:
		v.Summary = t("person_once", first)
	default:
		v.Summary = t("person_stood", n, first, last)
	}
	switch {
	case len(bars) > 1 && len(bars) == n:
		v.Summary += " " + t("person_elected_all", electedIn)
	case len(bars) > 1:
		v.Summary += " " + t("person_elected", electedIn, len(bars))
	case electedIn == 1:
		v.Summary += " " + t("person_elected_once")
	}
	for _, note := range order {
		v.Linked = append(v.Linked, linkNote{s.joinNames(notes[note]), note})
	}
	if len(bars) > 0 {
		slices.Reverse(bars) // oldest first, left to right
		v.Chart = s.drawPerson(p, bars)
	}
	return v
}

// countOutcome is how the count of district n went for a candidate whose
// row of its sheet is r: elected or excluded at a count; still in the
// count while it goes on; not elected at the count's end; or, where the
// sheet ends before every seat is filled, still in the count there.
func (s *Site) countOutcome(n int, r archive.DistrictResult) string {
	t := s.lang.T
	switch {
	case r.ElectedAtCount != nil:
		return t("person_elected_at", *r.ElectedAtCount)
	case r.ExcludedAtCount != nil:
		return t("outcome_excluded", *r.ExcludedAtCount)
	}
	sh, ok := s.ds.Sheet(n)
	switch {
	case ok && sh.Status == dataset.StatusCounting:
		return t("outcome_continuing")
	case ok && len(sh.Elected) < sh.Seats:
		return t("person_sheet_ends")
	}
	return t("outcome_not_elected")
}

// seatHowSheets is seatHow where the election has count sheets: how c
// won a seat not at the count of one of their districts; "" otherwise.
func (s *Site) seatHowSheets(c *dataset.Candidate) string {
	if len(s.ds.Sheets()) == 0 {
		return ""
	}
	if s.won == nil {
		s.indexSeats()
	}
	if _, ok := s.won[c.ID]; ok {
		return "" // at the count: each row says where
	}
	return s.seatHow(c)
}

// personBar is one election of a person's chart: their first
// preferences in all its districts together, and whether a count
// elected them.
type personBar struct {
	election string
	votes    int
	elected  bool
}

// The person's chart: one drawing, small enough for a phone, which it
// fits at about the page's size.
const (
	personWidth  = 400
	personHeight = 220
	personFont   = 14
)

// drawPerson draws the chart of p's first preferences by election, bars
// oldest first: the elected dark, the others grey.
func (s *Site) drawPerson(p *archive.Person, bars []personBar) template.HTML {
	var b strings.Builder
	top := 1
	for _, bar := range bars {
		top = max(top, bar.votes)
	}
	step := tickStep(top)
	yMax := (top/step + 1) * step
	left := float64(chartLeft)
	for v := 0; v <= yMax; v += step {
		left = max(left, math.Ceil(textWidth(s.lang.Num(v), chartTick))+6)
	}
	const right = 8
	plotW, plotH := personWidth-left-right, float64(personHeight-chartTop-chartBottom)
	slot := plotW / float64(len(bars))
	y := func(v int) float64 { return chartTop + plotH*(1-float64(v)/float64(yMax)) }
	b.WriteString(`<svg class="chart person-chart" viewBox="0 0 ` + strconv.Itoa(personWidth) + " " + strconv.Itoa(personHeight) +
		`" width="100%" role="img" aria-label="` + template.HTMLEscapeString(s.lang.T("person_chart_label", clip(p.Name))) +
		`" font-size="` + strconv.Itoa(personFont) + `">`)
	tick := `" fill="#5b6570" font-size="` + strconv.Itoa(chartTick) + `">`
	for v := 0; v <= yMax; v += step {
		b.WriteString(`<line x1="` + f(left) + `" x2="` + f(left+plotW) + `" y1="` + f(y(v)) + `" y2="` + f(y(v)) + `" stroke="#e3e7eb"/>`)
		b.WriteString(`<text x="` + f(left-6) + `" y="` + f(y(v)+4) + `" text-anchor="end` + tick + s.lang.Num(v) + `</text>`)
	}
	room := 0.0
	for _, bar := range bars {
		room = max(room, textWidth(bar.election, chartTick))
	}
	every := 1
	for slot*float64(every) < room+6 {
		every++
	}
	for k, bar := range bars {
		x := left + slot*float64(k)
		w := min(slot*0.7, 48)
		fill := othersColour
		if bar.elected {
			fill = chartColour(0)
		}
		b.WriteString(`<rect x="` + f(x+(slot-w)/2) + `" y="` + f(y(bar.votes)) + `" width="` + f(w) + `" height="` + f(y(0)-y(bar.votes)) + `" fill="` + fill + `"/>`)
		if k == len(bars)-1 || k%every == 0 && len(bars)-1-k >= every {
			half := textWidth(bar.election, chartTick) / 2
			xc := min(max(x+slot/2, half+labelHalo), personWidth-half-labelHalo)
			b.WriteString(`<text x="` + f(xc) + `" y="` + f(chartTop+plotH+18) + `" text-anchor="middle` + tick + template.HTMLEscapeString(bar.election) + `</text>`)
		}
	}
	b.WriteString(`<text x="` + f(left+plotW/2) + `" y="` + f(float64(personHeight-6)) + `" text-anchor="middle` + tick +
		template.HTMLEscapeString(s.lang.T("history_chart_elections")) + `</text>`)
	b.WriteString(`</svg>`)
	return template.HTML(b.String()) // every word in it is escaped
}

// peopleView is the people's search page: the form, and the people
// whose names hold q.
type peopleView struct {
	Q, Error, Caption, None string
	People                  []personItem
}

// personItem is a person as a search lists them: their name, page and
// elections.
type personItem struct {
	Name, Slug, Elections string
	Parties               string // each party they stood for, newest first, so that two of one name are told apart
}

// People is the search of the people by name: the form, and, when q is
// not empty, the people found, whose positions in the archive's People
// found holds.
func (s *Site) People(found []int32, q string) Rendered {
	return Rendered{"people-" + s.tag + "-" + hashOf(q), func() []byte {
		v := peopleView{Q: q}
		here := PeoplePath
		if q != "" {
			here = PeoplePath + "?" + url.Values{"q": {q}}.Encode()
			for _, i := range found[:min(len(found), Listed)] {
				v.People = append(v.People, s.personItem(&s.arch.People()[i]))
			}
			switch {
			case len(found) == 0:
				v.None = s.lang.T("people_none", q)
			case len(found) > Listed:
				v.Caption = s.lang.T("people_more", Listed, s.counted("people", len(found)), q)
			default:
				v.Caption = s.lang.T("people_found", s.counted("people", len(found)), q)
			}
		}
		api := ""
		if q != "" {
			api = s.api + PeoplePath + "?" + url.Values{"q": {q}}.Encode()
		}
		return s.renderPage("people", s.lang.T("people_heading"), "", api, "", here, "", v)
	}}
}

// peopleRefused is the people's search of a q the archive refused.
func (s *Site) peopleRefused(q string, perr *dataset.ParamError) []byte {
	v := peopleView{Q: q}
	for _, p := range perr.Params {
		v.Error = s.refusal(p, q)
	}
	return s.renderPage("people", s.lang.T("people_heading"), "", "", "", PeoplePath+"?"+url.Values{"q": {q}}.Encode(), "", v)
}

// personItem is p as the search lists them.
func (s *Site) personItem(p *archive.Person) personItem {
	slugs := make([]string, len(p.Candidacies))
	var parties []string
	for k, cy := range p.Candidacies {
		slugs[k] = cy.ElectionSlug
		party := s.lang.T("independent")
		if j, ok := s.electionIndex(cy.ElectionSlug); ok && cy.PartyID != nil {
			if name, ok := s.arch.Elections()[j].PartyShortName(*cy.PartyID); ok {
				party = clip(name)
			}
		}
		if !slices.Contains(parties, party) {
			parties = append(parties, party)
		}
	}
	return personItem{clip(p.Name), p.Slug, strings.Join(slugs, ", "), strings.Join(parties, ", ")}
}
