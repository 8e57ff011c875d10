package pages

import (
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"ballot/archive"
	"ballot/dataset"
)

// The archive's pages held to the data: each sentence of the history read
// back and checked against every election's national totals, worked out
// here apart from the page's code; each row of every person's page
// against their candidacies; and the sentence of a district's page on the
// district of its number in the election before.

// archiveSite is the Site of the embedded archive's current election at
// today's paths, in lang.
func archiveSite(t *testing.T, lang *Lang) *Site {
	t.Helper()
	a, err := archive.Default()
	if err != nil {
		t.Fatal(err)
	}
	cur := slices.Index(a.Elections(), a.Current())
	s, err := New(Election{Archive: a, Index: cur}, About{Title: "t"}, "/api/public/v1", []byte(`{"paths":{}}`), lang)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// partyFacts is one party's national figures, by its short name.
type partyFacts struct {
	short    string
	fp, seat int
}

// nationalFacts is each election's parties with count sheets, by slug:
// its parties (not the independents) in the national totals.
func nationalFacts(t *testing.T, a *archive.Archive) (slugs []string, facts map[string][]partyFacts) {
	t.Helper()
	facts = map[string][]partyFacts{}
	for _, e := range a.Elections() {
		ds := e.Dataset()
		if len(ds.Sheets()) == 0 {
			continue
		}
		slugs = append(slugs, e.Record.Slug)
		for _, pt := range ds.NationalTotals().Parties {
			if pt.PartyID == nil {
				continue
			}
			pi, _ := ds.Lookup(dataset.Parties, *pt.PartyID)
			facts[e.Record.Slug] = append(facts[e.Record.Slug], partyFacts{ds.Parties()[pi].ShortName, pt.FirstPreferences, pt.SeatsAtCount})
		}
	}
	return slugs, facts
}

// TestHistorySentences reads each sentence of the history back, in both
// languages, and holds it to the data: an election is listed exactly when
// the party with the most first preferences won fewer seats at the count
// than another, with its figures and those of the parties that won the
// most; an election where it only tied with another for the most is told
// apart; the count of elections is theirs.
func TestHistorySentences(t *testing.T) {
	grammars := map[*Lang]struct {
		lead, upset, tie, figures *regexp.Regexp
	}{
		English: {
			regexp.MustCompile(`^The party with the most first preferences did not win the most seats at the count in (\d+) of the (\d+) elections:$`),
			regexp.MustCompile(`^(\d+): (.+?); (.+)\.$`),
			regexp.MustCompile(`^In (\d+) the party with the most first preferences tied for the most seats at the count: (.+?); (.+)\.$`),
			regexp.MustCompile(`^(\S+), ([\d,]+) first preferences and (\d+) seats?$`),
		},
		Maltese: {
			regexp.MustCompile(`^Il-partit bl-aktar ewwel preferenzi ma rebaħx l-aktar siġġijiet fl-għadd f'(\d+) mill-(\d+) elezzjoni:$`),
			regexp.MustCompile(`^(\d+): (.+?); (.+)\.$`),
			regexp.MustCompile(`^Fl-(\d+) il-partit bl-aktar ewwel preferenzi rebaħ daqs partit ieħor l-aktar siġġijiet fl-għadd: (.+?); (.+)\.$`),
			regexp.MustCompile(`^(\S+), ([\d,]+) ewwel preferenzi u (\d+) siġġ(?:u|ijiet)$`),
		},
	}
	for lang, g := range grammars {
		t.Run(lang.Code, func(t *testing.T) {
			s := archiveSite(t, lang)
			slugs, facts := nationalFacts(t, s.arch)
			// The facts: each election's leader in first preferences, and
			// whether another party won more seats, or as many.
			wantUpset, wantTie := map[string]bool{}, map[string]bool{}
			for slug, ps := range facts {
				lead := slices.MaxFunc(ps, func(a, b partyFacts) int { return a.fp - b.fp })
				most := slices.MaxFunc(ps, func(a, b partyFacts) int { return a.seat - b.seat }).seat
				ties := 0
				for _, p := range ps {
					if p.seat == most {
						ties++
					}
				}
				switch {
				case lead.seat < most:
					wantUpset[slug] = true
				case ties > 1:
					wantTie[slug] = true
				}
			}
			v := s.historyPage()
			m := g.lead.FindStringSubmatch(v.UpsetsLead)
			if m == nil {
				t.Fatalf("the lead sentence %q is not the grammar's", v.UpsetsLead)
			}
			if m[1] != strconv.Itoa(len(wantUpset)) || m[2] != strconv.Itoa(len(slugs)) {
				t.Errorf("%q: want %d of the %d elections", v.UpsetsLead, len(wantUpset), len(slugs))
			}
			// check holds the figures of one sentence to the election's:
			// the first party named is the leader in first preferences,
			// the others the parties with the most seats.
			check := func(sentence, slug, lead, others string, tie bool) {
				t.Helper()
				ps := facts[slug]
				leader := slices.MaxFunc(ps, func(a, b partyFacts) int { return a.fp - b.fp })
				most := slices.MaxFunc(ps, func(a, b partyFacts) int { return a.seat - b.seat }).seat
				named := append([]string{lead}, strings.Split(others, "; ")...)
				for k, item := range named {
					f := g.figures.FindStringSubmatch(item)
					if f == nil {
						t.Errorf("%q: %q is not the grammar's figures", sentence, item)
						continue
					}
					i := slices.IndexFunc(ps, func(p partyFacts) bool { return p.short == f[1] })
					if i < 0 {
						t.Errorf("%q: %s stood in no district of %s", sentence, f[1], slug)
						continue
					}
					if f[2] != lang.Num(ps[i].fp) || f[3] != strconv.Itoa(ps[i].seat) {
						t.Errorf("%q: %s had %s first preferences and %d seats at the count", sentence, f[1], lang.Num(ps[i].fp), ps[i].seat)
					}
					switch {
					case k == 0 && ps[i].short != leader.short:
						t.Errorf("%q: the leader in first preferences was %s, not %s", sentence, leader.short, f[1])
					case k > 0 && ps[i].seat != most:
						t.Errorf("%q: %s did not win the most seats (%d)", sentence, f[1], most)
					case k == 0 && tie && ps[i].seat != most, k == 0 && !tie && ps[i].seat >= most:
						t.Errorf("%q: the leader's %d seats against the most, %d", sentence, ps[i].seat, most)
					}
				}
			}
			got := map[string]bool{}
			for _, u := range v.Upsets {
				m := g.upset.FindStringSubmatch(u)
				if m == nil {
					t.Errorf("%q is not the grammar's", u)
					continue
				}
				got[m[1]] = true
				check(u, m[1], m[2], m[3], false)
			}
			if !mapsEqual(got, wantUpset) {
				t.Errorf("the elections listed: %v, want %v", got, wantUpset)
			}
			got = map[string]bool{}
			for _, u := range v.Ties {
				m := g.tie.FindStringSubmatch(u)
				if m == nil {
					t.Errorf("%q is not the grammar's", u)
					continue
				}
				got[m[1]] = true
				check(u, m[1], m[2], m[3], true)
			}
			if !mapsEqual(got, wantTie) {
				t.Errorf("the elections of a tie: %v, want %v", got, wantTie)
			}
		})
	}
	// 1981, as published: Labour won the majority of seats at the count
	// with fewer first preferences.
	v := archiveSite(t, English).historyPage()
	if want := "1981: PN, 114,132 first preferences and 31 seats; PL, 109,990 first preferences and 34 seats."; !slices.Contains(v.Upsets, want) {
		t.Errorf("the history lacks %q: %q", want, v.Upsets)
	}
}

func mapsEqual(a, b map[string]bool) bool {
	if len(a) != len(b) {
		return false
	}
	for k := range a {
		if !b[k] {
			return false
		}
	}
	return true
}

// TestHistoryTable: each row of the history's table is its election's
// national totals, the parties followed by slug in their columns and
// every other party in the last.
func TestHistoryTable(t *testing.T) {
	s := archiveSite(t, English)
	v := s.historyPage()
	if len(v.Series) != 3 || v.Series[0].Name != "PL" || v.Series[1].Name != "PN" || v.Series[2].Name != "Others" {
		t.Fatalf("the series: %+v, want PL, PN and the others", v.Series)
	}
	for _, r := range v.Rows {
		e, err := s.arch.Election(r.Slug)
		if err != nil {
			t.Fatal(err)
		}
		ds := e.Dataset()
		nt := ds.NationalTotals()
		if r.Valid != English.Num(nt.ValidVotes) || r.Seats != nt.Seats {
			t.Errorf("%s: valid %s, seats %d; want %d and %d", r.Slug, r.Valid, r.Seats, nt.ValidVotes, nt.Seats)
		}
		others, listed := 0, 0
		for _, pt := range nt.Parties {
			slug := ""
			if pt.PartyID != nil {
				pi, _ := ds.Lookup(dataset.Parties, *pt.PartyID)
				slug = ds.Parties()[pi].Slug
			}
			want := English.Num(pt.FirstPreferences)
			switch slug {
			case "pl", "pn":
				c := r.Main[map[string]int{"pl": 0, "pn": 1}[slug]]
				if !c.Stood || c.FirstPreferences != want || c.Seats != s.counted("seats", pt.SeatsAtCount) {
					t.Errorf("%s, %s: %+v; want %s and %d seats", r.Slug, slug, c, want, pt.SeatsAtCount)
				}
			default:
				others += pt.FirstPreferences
				listed++
			}
		}
		if len(r.OtherParties) != listed || (listed > 0) != r.Others.Stood || listed > 0 && r.Others.FirstPreferences != English.Num(others) {
			t.Errorf("%s: the others %+v, %d listed; want %d parties with %d", r.Slug, r.Others, len(r.OtherParties), listed, others)
		}
	}
}

// TestPersonPages renders the view of every person of the archive, in
// both languages, and holds each row to their candidacies: one row per
// district of each, newest first, with the district's first preferences
// and the count that elected or excluded them.
func TestPersonPages(t *testing.T) {
	for _, lang := range Langs {
		s := archiveSite(t, lang)
		for i := range s.arch.People() {
			p := &s.arch.People()[i]
			v := s.personPage(p)
			var want []personRow
			for _, cy := range p.Candidacies {
				results := map[int]archive.DistrictResult{}
				for _, r := range cy.Results {
					results[r.DistrictNumber] = r
				}
				e, _ := s.arch.Election(cy.ElectionSlug)
				for _, id := range cy.DistrictIDs {
					n, _ := e.Dataset().DistrictByID(id)
					row := personRow{Election: cy.ElectionSlug, District: n, FirstPreferences: "—", Outcome: lang.T("status_none")}
					if r, ok := results[n]; ok {
						row.FirstPreferences = lang.Num(r.FirstPreferences)
						switch {
						case r.ElectedAtCount != nil:
							row.Outcome = lang.T("person_elected_at", *r.ElectedAtCount)
						case r.ExcludedAtCount != nil:
							row.Outcome = lang.T("outcome_excluded", *r.ExcludedAtCount)
						default:
							row.Outcome = ""
						}
					}
					want = append(want, row)
				}
			}
			if len(v.Rows) != len(want) {
				t.Fatalf("%s: %d rows, want %d", p.Slug, len(v.Rows), len(want))
			}
			for k, w := range want {
				r := v.Rows[k]
				if r.Election != w.Election || r.District != w.District || r.FirstPreferences != w.FirstPreferences ||
					w.Outcome != "" && !strings.HasPrefix(r.Outcome, w.Outcome) {
					t.Errorf("%s, row %d: %s, district %d, %s, %q; want %s, %d, %s, %q", p.Slug, k+1, r.Election, r.District, r.FirstPreferences, r.Outcome,
						w.Election, w.District, w.FirstPreferences, w.Outcome)
				}
			}
			if len(p.Candidacies) > 1 && !strings.Contains(v.Summary, p.Candidacies[len(p.Candidacies)-1].ElectionSlug) {
				t.Errorf("%s: %q does not name their first election", p.Slug, v.Summary)
			}
		}
	}
}

// TestPreviousDistrict: a district's page says how it compares with the
// district of its number in the election before, from the data.
func TestPreviousDistrict(t *testing.T) {
	s := archiveSite(t, English)
	for _, tt := range []struct {
		election string
		district int
		url      string
		caution  string
	}{
		{"2022", 10, "/elections/2017/districts/10", "Boundaries move from one election to the next; district 10 lists the same localities in 2022 and in 2017, Naxxar in part in both, the part as each election's notes say."},
		{"2022", 6, "/elections/2017/districts/6", "Boundaries move from one election to the next: district 6 lists Żebbuġ (part) in 2022 and not in 2017; Luqa in part in both, the part as each election's notes say."},
		{"2022", 7, "/elections/2017/districts/7", "Boundaries move from one election to the next: district 7 lists Żebbuġ whole in 2017 and in part in 2022."},
		{"2022", 13, "/elections/2017/districts/13", "Boundaries move from one election to the next; district 13 lists the same localities in 2022 and in 2017."},
		{"2017", 5, "/elections/2013/districts/5", "Boundaries move from one election to the next, and the data lists no locality of district 5 in 2013: whether the two covered the same area is not known."},
		{"1976", 5, "/elections/1971/districts/5", "District numbers are each election's own: 1971 had 10 districts and 1976 13, so district 5 of 1971 is not district 5 of 1976."},
		{"1976", 12, "/elections/1971/districts", "1971 had 10 districts, and none numbered 12."},
		{"1945", 1, "/elections/1939/districts/1", "Boundaries move from one election to the next, and the data lists no locality of district 1 in 1945 and 1939: whether the two covered the same area is not known."},
		{"1921", 1, "", ""},
	} {
		j, err := s.arch.ElectionIndex(tt.election)
		if err != nil {
			t.Fatal(err)
		}
		o := s.in(j)
		v := o.previousDistrict(o.ds.Districts()[tt.district-1])
		switch {
		case tt.url == "" && v != nil:
			t.Errorf("%s, district %d: %+v, want none before the oldest", tt.election, tt.district, v)
		case tt.url != "" && (v == nil || v.URL != tt.url || v.Caution != tt.caution):
			t.Errorf("%s, district %d: %+v\nwant %s: %s", tt.election, tt.district, v, tt.url, tt.caution)
		}
	}
}
