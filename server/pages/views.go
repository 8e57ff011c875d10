package pages

import (
	"strconv"
	"strings"

	"ballot/dataset"
)

// The views: what each template shows, as plain strings.

type homeView struct {
	Title, Description, Version, License, LicenseURL, PublishedAt, API string
	Coverage                                                           struct {
		Summary string
		Notes   []string
	}
	Attribution struct{ Name, URL, AboutURL, HowToCredit string }
	Counts      struct{ Parties, Districts, Candidates int }
}

func newHomeView(ds *dataset.Dataset, a About, api string) homeView {
	v := homeView{
		Title: a.Title, Description: a.Description, Version: a.Version,
		License: a.License, LicenseURL: a.LicenseURL, PublishedAt: a.PublishedAt, API: api,
	}
	v.Coverage.Summary, v.Coverage.Notes = a.CoverageSummary, a.CoverageNotes
	v.Attribution.Name, v.Attribution.URL, v.Attribution.AboutURL, v.Attribution.HowToCredit = a.Publisher, a.PublisherURL, a.AboutURL, a.HowToCredit
	v.Counts.Parties, v.Counts.Districts, v.Counts.Candidates = len(ds.Parties()), len(ds.Districts()), len(ds.Candidates())
	return v
}

type partyRow struct {
	Slug, Name, ShortName, NameEN, LeaderName, Website string
	Candidates                                         int
}

func (s *Site) partyRows() []partyRow {
	rows := make([]partyRow, len(s.ds.Parties()))
	for i := range rows {
		rows[i] = s.partyRow(i)
	}
	return rows
}

func (s *Site) partyRow(i int) partyRow {
	party := s.ds.Parties()[i]
	return partyRow{
		Slug: party.Slug, Name: party.Name, ShortName: party.ShortName, NameEN: deref(party.NameEN),
		LeaderName: deref(party.LeaderName), Website: deref(party.Website), Candidates: len(s.partyCandidates[i]),
	}
}

type partyView struct {
	partyRow
	ID, WikipediaURL string
	Rows             []candidateRow
}

type districtsView struct {
	Locality  string
	Lookup    bool // the query looked the locality up
	Districts []districtView
	Problem   *dataset.ParamError
}

type districtView struct {
	Number     int
	Name       string
	SourceURL  string
	Localities []localityView
}

type localityView struct {
	Name, NameEN, Note string
	Split              bool
}

func (s *Site) districtViews(ds []dataset.District) []districtView {
	views := make([]districtView, len(ds))
	for i, d := range ds {
		v := districtView{Number: d.Number, Name: d.Name, SourceURL: deref(d.SourceURL)}
		for _, l := range d.Localities {
			v.Localities = append(v.Localities, localityView{l.Name, deref(l.NameEN), deref(l.Note), l.Split})
		}
		views[i] = v
	}
	return views
}

type option struct {
	Value, Label string
	Selected     bool
}

type candidatesView struct {
	Districts, Parties []option
	Limit, MaxLimit    int
	Caption            string
	Next, Prev         string // the pages after and before this one, if any
	Rows               []candidateRow
	Problem            *dataset.ParamError
}

// candidateRow is a candidate as the tables show them: party names and
// district numbers instead of ids.
type candidateRow struct {
	Slug, Name       string
	Party, PartySlug string // "independent" and "" for an independent
	District         int    // the primary district's number
	Others           string // the other districts' numbers
	Elected          string
}

func (s *Site) candidateRow(i int) candidateRow {
	c := s.ds.Candidates()[i]
	row := candidateRow{Slug: c.Slug, Name: c.Name, Party: "independent", District: s.districtNumber[c.PrimaryDistrictID], Elected: yesNo(c.Elected)}
	if c.PartyID != nil {
		pi, _ := s.ds.Lookup(dataset.Parties, *c.PartyID)
		party := s.ds.Parties()[pi]
		row.Party, row.PartySlug = party.Name, party.Slug
	}
	var others []string
	for _, id := range c.DistrictIDs[1:] {
		others = append(others, strconv.Itoa(s.districtNumber[id]))
	}
	row.Others = strings.Join(others, ", ")
	return row
}

type candidateView struct {
	candidateRow
	ID, GivenName, FamilyName, Incumbent, Website, PhotoURL string
}

type errorView struct{ Heading, Detail string }

func deref(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}

func yesNo(b *bool) string {
	switch {
	case b == nil:
		return "not known"
	case *b:
		return "yes"
	}
	return "no"
}
