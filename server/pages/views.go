package pages

import (
	"slices"
	"strconv"

	"ballot/dataset"
)

// The views: what each template shows, as plain strings, in the site's
// language.

type homeView struct {
	Title, Description, Version, License, LicenseURL, PublishedAt, API string
	Collections                                                        string // the API's paths of the election's collections
	NoLocalities                                                       bool   // no district lists a locality: there is none to look up
	Coverage                                                           struct {
		Summary string
		Notes   []string
	}
	Attribution struct{ Name, URL, AboutURL, HowToCredit string }
	Counts      struct{ Parties, Districts, Candidates, Results int }
	Seats       *seatsView
}

func (s *Site) newHomeView(a About, api string) homeView {
	ds := s.ds
	v := homeView{
		Title: a.Title, Description: a.Description, Version: a.Version,
		License: a.License, LicenseURL: a.LicenseURL, PublishedAt: a.PublishedAt, API: api, Collections: s.api,
	}
	v.Coverage.Summary, v.Coverage.Notes = a.CoverageSummary, a.CoverageNotes
	v.Attribution.Name, v.Attribution.URL, v.Attribution.AboutURL, v.Attribution.HowToCredit = a.Publisher, a.PublisherURL, a.AboutURL, a.HowToCredit
	v.Counts.Parties, v.Counts.Districts, v.Counts.Candidates = len(ds.Parties()), len(ds.Districts()), len(ds.Candidates())
	v.Counts.Results = len(ds.Sheets())
	v.Seats = s.seatsView()
	v.NoLocalities = s.noLocalities
	return v
}

// partyRef is a party as a row or a page names it: its name in the page's
// language (name_en on English pages where the dataset gives one, name
// otherwise, in Maltese), its colour when the dataset gives one, and its
// slug for the link; an independent has no slug.
type partyRef struct {
	Display, DisplayLang, Slug, Color string
}

type partyRow struct {
	partyRef
	Name, ShortName, NameEN, LeaderName, Website string
	Candidates                                   int
}

// partyRef is the i-th party as a row names it, or, for the index past
// the last party (where the seats' and results' tables count the
// independents), the word for independent.
func (s *Site) partyRef(i int) partyRef {
	if i == len(s.ds.Parties()) {
		return partyRef{Display: s.lang.T("independent")}
	}
	party := s.ds.Parties()[i]
	r := partyRef{Display: clip(party.Name), DisplayLang: "mt", Slug: party.Slug}
	if s.lang == English && party.NameEN != nil && *party.NameEN != "" {
		r.Display, r.DisplayLang = clip(*party.NameEN), "en"
	}
	// The dataset's checks hold color to IsColor; anything else shows no
	// swatch.
	if c := dataset.Text(party.Color); dataset.IsColor(c) {
		r.Color = c
	}
	return r
}

// partyOf is the party of id as a row names it: the word for
// independent when id is nil.
func (s *Site) partyOf(id *string) partyRef {
	if id == nil {
		return s.partyRef(len(s.ds.Parties()))
	}
	pi, _ := s.ds.Lookup(dataset.Parties, *id)
	return s.partyRef(pi)
}

// Clipped is the most characters of a dataset's text (a name, a note) a
// page shows: more than any real name or note, and few enough that a
// dataset holding a name of megabytes, which the rules accept, does not
// make every page that names it, in each language, as large. The API and
// the downloads give the whole text.
const Clipped = 300

// clip is text as a page shows it: its first Clipped characters, and "…"
// when there were more.
func clip(text string) string {
	if len(text) <= Clipped { // fewer bytes than characters allowed
		return text
	}
	n := 0
	for i := range text {
		if n == Clipped {
			return text[:i] + "…"
		}
		n++
	}
	return text
}

// Listed is the most rows a listing made at load shows of one list (the
// parties, the seats, the party choice of the candidates form, a
// district's localities): every row of a real election's data, and a
// page of bounded size for a dataset of very many records, whose every
// record is still in the CSV downloads and the API.
const Listed = 500

func (s *Site) partyRows() []partyRow {
	rows := make([]partyRow, min(len(s.ds.Parties()), Listed))
	for i := range rows {
		rows[i] = s.partyRow(i)
	}
	return rows
}

func (s *Site) partyRow(i int) partyRow {
	party := s.ds.Parties()[i]
	return partyRow{
		partyRef: s.partyRef(i),
		Name:     clip(party.Name), ShortName: clip(party.ShortName), NameEN: clip(dataset.Text(party.NameEN)),
		LeaderName: clip(dataset.Text(party.LeaderName)), Website: dataset.Text(party.Website), Candidates: len(s.partyCandidates[i]),
	}
}

type partiesView struct {
	Rows  []partyRow
	Total int    // every party, Rows the first Listed of them
	More  string // the sentence saying where the rest are, or ""
	Seats *seatsView
}

// seatsView is the seats won per party, counted from the candidates'
// elected; nil when elected is not known of every candidate.
type seatsView struct {
	Rows  []seatsRow
	Total int
}

type seatsRow struct {
	Party partyRef
	Seats int
}

func (s *Site) seatsView() *seatsView {
	if s.seats == nil {
		return nil
	}
	// The most seats first, the parties' order among equals (the
	// independents after the parties), then the parties of no seat in
	// their order, up to Listed rows: the rows with seats are made and
	// sorted first, so that a dataset of many parties makes no row for
	// each.
	v := &seatsView{}
	for i, n := range s.seats {
		v.Total += n
		if n > 0 {
			v.Rows = append(v.Rows, seatsRow{s.partyRef(i), n})
		}
	}
	slices.SortStableFunc(v.Rows, func(a, b seatsRow) int { return b.Seats - a.Seats })
	for i, n := range s.seats[:len(s.ds.Parties())] {
		if len(v.Rows) >= Listed {
			break
		}
		if n == 0 {
			v.Rows = append(v.Rows, seatsRow{s.partyRef(i), 0})
		}
	}
	v.Rows = v.Rows[:min(len(v.Rows), Listed)]
	return v
}

type partyView struct {
	partyRow
	WikipediaURL string
	Rows         []candidateRow
}

type districtsView struct {
	Locality     string
	Lookup       bool   // the query looked the locality up
	Holding      string // the sentence saying how many hold it
	Error        string // the locality refused, in one sentence
	NoLocalities bool   // no district lists a locality: there is none to look up
	Districts    []districtView
}

type districtView struct {
	Number     int
	Name       string
	SourceURL  string
	Localities []localityView // the first Listed
	Total      int            // every locality of the district
	More       string         // the sentence saying where the rest are, or ""
	Note       string         // the district's note, or ""
}

type localityView struct {
	Name, NameEN, Note string
	Split              bool
}

func (s *Site) districtViews(ds []dataset.District) []districtView {
	views := make([]districtView, len(ds))
	for i, d := range ds {
		v := districtView{Number: d.Number, Name: s.lang.T("district_n", d.Number), SourceURL: dataset.Text(d.SourceURL), Total: len(d.Localities), Note: clip(dataset.Text(d.Note))}
		for _, l := range d.Localities[:min(len(d.Localities), Listed)] {
			v.Localities = append(v.Localities, localityView{clip(l.Name), clip(dataset.Text(l.NameEN)), clip(dataset.Text(l.Note)), l.Split})
		}
		if v.Total > Listed {
			v.More = s.lang.T("localities_more", Listed, v.Total)
		}
		views[i] = v
	}
	return views
}

// districtPageView is a district's page: everyone who stood there, the
// elected first, and how many list it as their primary district.
type districtPageView struct {
	District              districtView
	Previous              *previousView // the district of its number in the election before
	Caption, PrimaryCount string
	Rows                  []candidateRow
	Count                 *countView // the district's count, when the dataset holds its sheet
}

// renderDistrict renders the page of the i-th district.
func (s *Site) renderDistrict(i int) []byte {
	d := s.ds.Districts()[i]
	v := districtPageView{District: s.districtViews([]dataset.District{d})[0], Previous: s.previousDistrict(d)}
	sh, counted := s.ds.Sheet(d.Number)
	if counted {
		v.Count = s.newCountView(sh)
	}
	// The candidates' table is shown only when there is no count: with
	// one, the page lists the sheet's candidacies instead.
	var elected, others []candidateRow
	primary := 0
	for ci, c := range s.ds.Candidates() {
		if !slices.Contains(c.DistrictIDs, d.ID) {
			continue
		}
		if c.PrimaryDistrictID == d.ID {
			primary++
		}
		if counted {
			continue
		}
		row := s.candidateRow(ci)
		row.Elected = s.electedHow(&s.ds.Candidates()[ci])
		if row.IsElected {
			elected = append(elected, row)
		} else {
			others = append(others, row)
		}
	}
	if !counted {
		v.Rows = append(elected, others...)
		v.Caption = s.lang.T("district_caption", len(v.Rows), d.Number)
	}
	v.PrimaryCount = s.lang.T("district_primary_count", primary, d.Number)
	n := strconv.Itoa(d.Number)
	return s.renderPage("district", v.District.Name, "", s.api+"/candidates?stood_in="+n, s.csvLink(CandidatesCSV+"?stood_in="+n), "/districts/"+n, "", v)
}

type option struct {
	Value, Label, Lang string
	Selected           bool
}

type candidatesView struct {
	StoodIn, Districts, Parties []option
	Elected                     []option // elected, not elected
	Q                           string
	Limit                       string
	MaxLimit                    int
	Caption                     string
	Next, Prev                  string // the pages after and before this one, if any
	Rows                        []candidateRow
	Refused                     bool
	Errors                      map[string]string // by field: the sentence saying why it was refused
}

// Error is the sentence of a refused field, "" when it was not.
func (v candidatesView) Error(field string) string { return v.Errors[field] }

// districtRef is a district as a row names it, with its page.
type districtRef struct {
	Number int
	Label  string
}

// candidateRow is a candidate as the tables show them: party names and
// district numbers instead of ids.
type candidateRow struct {
	Slug, Name string
	Party      partyRef // the word for independent as Display, and no Slug, for an independent
	District   districtRef
	Others     []districtRef // the other districts
	Elected    string
	IsElected  bool
}

func (s *Site) candidateRow(i int) candidateRow {
	c := s.ds.Candidates()[i]
	n := s.districtNumber(c.PrimaryDistrictID)
	row := candidateRow{Slug: c.Slug, Name: clip(c.Name), Party: s.partyOf(c.PartyID),
		District: districtRef{n, s.lang.T("district_n", n)}, Elected: s.yesNo(c.Elected), IsElected: c.Elected != nil && *c.Elected}
	for _, id := range c.DistrictIDs[1:] {
		n := s.districtNumber(id)
		row.Others = append(row.Others, districtRef{n, s.lang.T("district_n", n)})
	}
	return row
}

type candidateView struct {
	candidateRow
	GivenName, FamilyName, Incumbent, Website, PhotoURL string
	OtherElections                                      []electionLink // the person's other candidacies
	Person                                              string         // the person's page, when the archive holds several elections
}

type errorView struct {
	Heading, Detail string
	Elections       []electionLink // the elections a path under an election's may name
}

func (s *Site) yesNo(b *bool) string {
	switch {
	case b == nil:
		return s.lang.T("unknown")
	case *b:
		return s.lang.T("yes")
	}
	return s.lang.T("no")
}

// searchView is the search page: the name asked for, and its results.
type searchView struct {
	Q, Error, Caption, None, More string
	Rows                          []candidateRow
	Nearest                       []nameLink
}

type nameLink struct{ Name, Slug string }
