// Package pages renders ballot's pages for people: HTML under / (never under
// the API's path, whose answers stay JSON), from the templates embedded from
// templates/, with no script and nothing from another origin. Each page
// shows an answer of the API and links to it.
//
// A map for newcomers:
//
//   - New renders, when a dataset loads, every page that depends on the
//     dataset alone: home, the parties, the districts, the first page of
//     candidates, the API reference (read from the OpenAPI document, see
//     reference.go), the results and the 404 page. Site holds them
//     as bytes, which the server prepares (ETag, gzip) like the API's
//     documents.
//
//   - A page that depends on the request, a filtered candidates list, the
//     districts holding a locality, is rendered per request from the
//     dataset's records (Site.CandidatesFor, Site.DistrictsFor, and the
//     search, Site.Search), and so are a party's, a district's and a
//     candidate's page (Site.Party, Site.District, Site.Candidate), which
//     the server keeps once rendered: a dataset may hold tens of thousands
//     of candidates, whose pages rendered at load would take several times
//     the dataset's memory. Each comes as a Rendered, with a
//     tag made of what decides its bytes, so that a client holding it gets
//     304 before anything renders.
//
//   - The count sheets (dataset.CountSheet), when the dataset holds them,
//     make the results page (results.go, rendered at load) and the count
//     on each district's page (count.go): its figures, the elected, the
//     story of the count in sentences, the sheet as a table, and a chart
//     of the totals drawn as inline SVG (chart.go).
//
//   - Every error page comes from one renderer, Site.ErrorPage (errors.go),
//     by the status and the kind of page asked for: a refused query in the
//     form of the page that asked it, a 404, a 429.
//
//   - Every page is rendered in each language of Langs (lang.go): a Site
//     is one dataset in one language, and every word of the interface
//     comes from the language's string table (strings_en.go,
//     strings_mt.go), by key.
//
//   - Nothing here speaks HTTP: the server routes the paths (HomePath and
//     the other constants name them), sets the headers and writes every
//     answer.
//
//   - An archive of several elections (package archive) has a Site for
//     each election, at its own path (ElectionBase), and the current
//     election's at today's paths too (Election). Every page of an election
//     says which election it is and links to the same page of the
//     elections before and after it (elections.go); the archive's own
//     pages, the elections, their history and the people who stood in
//     them, are rendered by the current election's Site (elections.go,
//     history.go, person.go).
//
// It imports archive, dataset, answers (a page's ETag is its API answer's)
// and suggest; it must not import server or commands.
package pages

import (
	"bytes"
	"crypto/sha256"
	"embed"
	"encoding/hex"
	"html/template"
	"io/fs"
	"net/url"
	"strconv"
	"strings"

	"ballot/answers"
	"ballot/archive"
	"ballot/dataset"
	"ballot/suggest"
)

//go:embed templates
var files embed.FS

// ContentSecurityPolicy allows the pages nothing but their own stylesheet
// and icon, and forms that submit to this server: no script, no frame, no
// resource from another origin.
const ContentSecurityPolicy = "default-src 'none'; style-src 'self'; img-src 'self'; form-action 'self'; base-uri 'none'; frame-ancestors 'none'"

// Stylesheet and Icon are the pages' stylesheet (/style.css) and icon
// (/favicon.svg), the same for every dataset.
var (
	Stylesheet = mustRead("templates/style.css")
	Icon       = mustRead("templates/favicon.svg")
)

// StyleURL and IconURL are the stylesheet's and the icon's fingerprinted
// paths, which the pages link to: named by their bytes, they never change,
// and are cached for a year. StylePath and IconPath serve the same bytes
// under a name that does not change.
var (
	StyleURL = fingerprinted("/style.", Stylesheet, ".css")
	IconURL  = fingerprinted("/favicon.", Icon, ".svg")
)

func fingerprinted(prefix string, b []byte, ext string) string {
	sum := sha256.Sum256(b)
	return prefix + hex.EncodeToString(sum[:6]) + ext
}

// Paths are the pages' own paths, as gorilla/mux templates; the server
// registers each with its handler.
const (
	HomePath     = "/"
	DistrictPath = "/districts/{number}"
	SearchPath   = "/search"
	// ResultsPath is the results of the count: the parties' first
	// preferences and seats, and each district's count.
	ResultsPath = "/results"

	// The CSV downloads of the API, which the listing pages link to.
	PartiesCSV     = "/parties.csv"
	DistrictsCSV   = "/districts.csv"
	CandidatesCSV  = "/candidates.csv"
	SheetCSV       = "/districts/{number}/count.csv" // a district's count sheet
	PartiesPath    = "/parties"
	PartyPath      = "/parties/{slug_or_id}"
	DistrictsPath  = "/districts"
	CandidatesPath = "/candidates"
	CandidatePath  = "/candidates/{slug_or_id}"
	ReferencePath  = "/reference"
	StylePath      = "/style.css"
	IconPath       = "/favicon.svg"

	// The archive's own pages: its elections, their history, and the
	// people who stood in them.
	ElectionsPath = "/elections"
	HistoryPath   = "/history"
	PeoplePath    = "/people"
	PersonPath    = "/people/{slug_or_id}"
	// ElectionPrefix is the path every page of one election is under, in
	// each language, before the page's own path: /elections/1962/districts/5.
	ElectionPrefix = ElectionsPath + "/{election}"
)

// ElectionBase is the path the pages of the election of slug are under,
// after a language's prefix: ElectionPrefix with the election named.
func ElectionBase(slug string) string { return ElectionsPath + "/" + slug }

// templatesFingerprint identifies this build's templates, stylesheet and
// icon.
var templatesFingerprint = func() []byte {
	h := sha256.New()
	_ = fs.WalkDir(files, ".", func(path string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			h.Write([]byte(path + "\x00"))
			h.Write(mustRead(path))
		}
		return nil
	})
	return h.Sum(nil)
}()

func mustRead(name string) []byte {
	b, err := files.ReadFile(name)
	if err != nil {
		panic("pages: " + err.Error()) // embedded: only a build without the file gets here
	}
	return b
}

// templates holds each page's template, parsed with the layout they share.
var templates = func() map[string]*template.Template {
	funcs := template.FuncMap{
		"lang": langAttr,
		"party": func(p page, r partyRef) partyLink {
			return partyLink{r, p.P, p.Lang}
		},
		// partyIn names a party of another election, whose pages are
		// under prefix.
		"partyIn": func(p page, prefix string, r partyRef) partyLink {
			return partyLink{r, prefix, p.Lang}
		},
		"table": func(p page, id, caption string, rows []candidateRow) tableView {
			return tableView{p, id, caption, rows}
		},
		"seats": func(p page, v *seatsView) struct {
			Page  page
			Seats *seatsView
		} {
			return struct {
				Page  page
				Seats *seatsView
			}{p, v}
		},
		"cell": func(p page, c historyCell) struct {
			Page page
			Cell historyCell
		} {
			return struct {
				Page page
				Cell historyCell
			}{p, c}
		},
		"localities": func(p page, d districtView) struct {
			Page     page
			District districtView
		} {
			return struct {
				Page     page
				District districtView
			}{p, d}
		},
	}
	layout := template.Must(template.New("layout").Funcs(funcs).Option("missingkey=error").ParseFS(files, "templates/layout.html"))
	m := map[string]*template.Template{}
	for _, name := range []string{"home", "parties", "districts", "district", "candidates", "party", "candidate", "search", "reference", "error", "results",
		"elections", "history", "person", "people"} {
		m[name] = template.Must(template.Must(layout.Clone()).ParseFS(files, "templates/"+name+".html"))
	}
	return m
}()

// About is what the home page says of the dataset and whom to credit: the
// API's index, as the server makes it.
type About struct {
	Title, Description, Version, License, LicenseURL, PublishedAt string
	CoverageSummary                                               string
	CoverageNotes                                                 []string
	Publisher, PublisherURL, AboutURL, HowToCredit                string
	// CSV is set when the server serves the CSV downloads (PartiesCSV,
	// DistrictsCSV, CandidatesCSV): the listing pages link to them.
	CSV bool
}

// Site is the pages of one dataset in one language: those rendered when
// it loaded, and what the others need to be rendered quickly. It is
// immutable.
type Site struct {
	ds     *dataset.Dataset
	lang   *Lang
	arch   *archive.Archive // the archive the election is one of
	ei     int              // the election's place in arch.Elections()
	base   string           // the path its pages are under, after the language's prefix: "" for today's paths
	api    string           // the API's base path, such as /api/public/v1
	site   string           // the dataset's title
	credit string           // the sentence saying how to credit the publisher
	csv    bool             // the listing pages link to the CSV downloads
	tag    string           // the archive's version, this build's pages, the language and the base, in tags

	// Home, Parties, Districts, Candidates (the first page, unfiltered),
	// Reference and Results are rendered; a party's page and a district's
	// are rendered on request (Party, District).
	Home, Parties, Districts, Candidates, Reference, Results []byte
	notFound                                                 []byte // the 404 page (ErrorPage)

	noLocalities    bool               // no district lists a locality
	partyCandidates map[int][]int      // each party's candidates, by index; none for a party of none
	seats           []int              // each party's elected candidates, the independents last; nil when elected is not known of every one
	won             map[string]seatWon // each candidate's first seat won at the count, by candidate id
}

// Election is the election a Site shows: its place in its archive, whose
// other elections its pages link to, and the path its pages are under.
type Election struct {
	Archive *archive.Archive
	// Index is the election's place in Archive.Elections().
	Index int
	// Base is the path its pages are under, after a language's prefix:
	// "" for today's paths, which are the current election's, or
	// ElectionBase of its slug. Only the Site of today's paths renders the
	// API reference, which is no election's.
	Base string
}

// New renders the pages of the election e that depend on it alone, in
// lang. api is the API's base path, for links; openAPI is the OpenAPI
// document the reference page shows. It fails only when openAPI cannot
// be read.
func New(e Election, about About, api string, openAPI []byte, lang *Lang) (*Site, error) {
	var ref referenceView
	if e.Base == "" {
		var err error
		if ref, err = newReference(openAPI, api); err != nil {
			return nil, err
		}
	}
	ds := e.Archive.Elections()[e.Index].Dataset()
	// A new release that renders a page differently must not have its old
	// bytes confirmed with a 304: the tag names this build's templates and
	// the document the reference is read from, beside the archive (whose
	// other elections every page links to) and where the pages are.
	h := sha256.New()
	h.Write(templatesFingerprint)
	h.Write(openAPI)
	h.Write([]byte(e.Archive.Version + "\x00" + e.Base))
	s := &Site{
		ds:              ds,
		lang:            lang,
		arch:            e.Archive,
		ei:              e.Index,
		base:            e.Base,
		api:             api + e.Base, // an election's collections are under its path in the API too
		site:            ds.Manifest.Title,
		credit:          about.HowToCredit,
		csv:             about.CSV,
		tag:             lang.Code + "-" + ds.Version[:16] + "-" + hex.EncodeToString(h.Sum(nil)[:6]),
		partyCandidates: map[int][]int{},
	}
	for i, c := range ds.Candidates() {
		if c.PartyID != nil {
			pi, _ := ds.Lookup(dataset.Parties, *c.PartyID)
			s.partyCandidates[pi] = append(s.partyCandidates[pi], i)
		}
	}
	s.noLocalities = true
	for _, d := range ds.Districts() {
		if len(d.Localities) > 0 {
			s.noLocalities = false
		}
	}
	s.seats = s.ds.SeatsWon()
	s.indexSeats()
	t := lang.T
	home := api + "/"
	if e.Base != "" {
		home = api + e.Base // the election's record
	}
	s.Home = s.render("home", t("nav_home"), "home", home, HomePath, s.newHomeView(about, api))
	s.Parties = s.renderPage("parties", t("nav_parties"), "parties", s.api+"/parties", s.csvLink(PartiesCSV), PartiesPath, "",
		s.partiesView())
	s.Districts = s.renderPage("districts", t("nav_districts"), "districts", s.api+"/districts", s.csvLink(DistrictsCSV), DistrictsPath, "",
		districtsView{Districts: s.districtViews(ds.Districts()), NoLocalities: s.noLocalities})
	all, _ := ds.Query(dataset.Candidates, nil) // no parameter is ever refused
	s.Candidates = s.renderCandidates(all, candidateFilter{limit: strconv.Itoa(dataset.DefaultLimit)}, nil)
	if e.Base == "" {
		s.Reference = s.render("reference", t("nav_reference"), "reference", api+"/openapi.json", ReferencePath, ref)
	}
	s.Results = s.render("results", t("results_heading"), "results", s.api+"/results", ResultsPath, s.resultsView())
	s.notFound = s.errorPage(t("not_found"), t("not_found_detail"))
	return s, nil
}

// partyLink is a party named on a page: the "party" template.
type partyLink struct {
	partyRef
	P, PageLang string
}

// tableView is a table of candidates on a page: the "candidates-table"
// template.
type tableView struct {
	Page        page
	ID, Caption string
	Rows        []candidateRow
}

// page is what the layout shows around a page's own content.
type page struct {
	Style, Icon string // the assets' fingerprinted paths
	Title       string
	Site        string
	Nav         string // the navigation's current entry
	JSON        string // the API answer the page shows
	CSV         string // the same rows as CSV, on a listing page
	Credit      string
	Lang        string            // the page's language code
	DataLang    string            // the language of the dataset's own words: en
	T           map[string]string // the interface's strings
	P           string            // the prefix of the election's pages: the language's, and the election's base
	L           string            // the prefix of the language's paths, for the pages of no election
	Home        string            // the election's home page, in the language
	Many        bool              // the archive holds several elections: the header links to them
	Elections   *electionsBar     // which election the page is of, and the same page of the others; nil for none
	Switch      string            // this page in the other language
	SwitchLang  string            // the other language's code
	SwitchName  string            // and its name, in itself
	Query       string            // the search box's value
	NoSearch    bool              // the page is the search page, whose own form is the search box
	Body        any
}

// render executes a page's template. here is the page's own path and
// query, without the language's prefix, for the language switch. The
// templates are parsed at start and the views are plain values, so only a
// mistake in a template, which the tests render, can fail.
// archivePage are the pages of every election, which the archive's title
// names (archive.Archive.Title) rather than one election's dataset.
var archivePage = map[string]bool{"history": true, "elections": true, "people": true, "person": true}

func (s *Site) render(name, title, nav, jsonPath, here string, body any) []byte {
	return s.renderPage(name, title, nav, jsonPath, "", here, "", body)
}

func (s *Site) renderPage(name, title, nav, jsonPath, csvPath, here, query string, body any) []byte {
	site := s.site
	if archivePage[name] {
		site = s.arch.Title()
	}
	full := title + " · " + site
	if nav == "" { // a record's or an error's page: its name is title enough
		full = title
	}
	other := s.lang.other()
	sw := ""
	if here != "" {
		sw = other.Prefix + s.base + here
		if here == HomePath && s.base == "" {
			sw = other.Home
		}
	}
	var b bytes.Buffer
	err := templates[name].ExecuteTemplate(&b, "layout", page{
		Style: StyleURL, Icon: IconURL, Title: full, Site: site, Nav: nav, JSON: jsonPath, CSV: csvPath, Credit: s.credit,
		Lang: s.lang.Code, DataLang: "en", T: s.lang.t, P: s.prefix(), L: s.lang.Prefix, Home: s.home(),
		Many: len(s.arch.Elections()) > 1, Elections: s.electionsBar(name, here),
		Switch: sw, SwitchLang: other.Code, SwitchName: other.T("lang_name"), Query: query, NoSearch: name == "search", Body: body,
	})
	if err != nil {
		panic("pages: rendering the " + name + " page: " + err.Error())
	}
	return b.Bytes()
}

// Rendered is a page rendered for one request: Tag names its bytes (the
// dataset, this build's pages and what the request asked, in canonical
// form), so that a client holding it is answered 304 and Render never
// runs.
type Rendered struct {
	Tag    string
	Render func() []byte
}

// partiesView is the parties page's: the first Listed parties, and where
// the others are when there are more.
func (s *Site) partiesView() partiesView {
	v := partiesView{Rows: s.partyRows(), Total: len(s.ds.Parties()), Seats: s.seatsView()}
	if v.Total > Listed {
		v.More = s.lang.T("parties_more", Listed, v.Total)
	}
	return v
}

// Party is the page of the i-th party of the dataset, rendered on
// request as a candidate's is: a dataset may hold many parties, and a page
// for each, in each language, made at load would weigh many times the
// dataset.
func (s *Site) Party(i int) Rendered {
	party := s.ds.Parties()[i]
	return Rendered{"party-" + s.tag + "-" + party.Slug, func() []byte {
		v := partyView{partyRow: s.partyRow(i)}
		v.WikipediaURL = dataset.Text(party.WikipediaURL)
		for _, ci := range s.partyCandidates[i] {
			v.Rows = append(v.Rows, s.candidateRow(ci))
		}
		return s.render("party", v.Display, "", s.api+"/parties/"+party.Slug, "/parties/"+party.Slug, v)
	}}
}

// District is the page of the i-th district, rendered on request: it
// lists every candidate who stood in the district, and a dataset whose
// candidates stand in many districts would make the 13 pages, in each
// language, many times the dataset at load.
func (s *Site) District(i int) Rendered {
	return Rendered{"district-" + s.tag + "-" + strconv.Itoa(s.ds.Districts()[i].Number), func() []byte {
		return s.renderDistrict(i)
	}}
}

// Candidate is the page of the i-th candidate of the dataset.
func (s *Site) Candidate(i int) Rendered {
	c := s.ds.Candidates()[i]
	return Rendered{"candidate-" + s.tag + "-" + c.Slug, func() []byte {
		v := candidateView{candidateRow: s.candidateRow(i)}
		v.GivenName, v.FamilyName = clip(c.GivenName), clip(c.FamilyName)
		v.Incumbent = s.yesNo(c.IsIncumbent)
		v.Website, v.PhotoURL = dataset.Text(c.Website), dataset.Text(c.PhotoURL)
		v.OtherElections = s.otherCandidacies(&c)
		if p := s.personOf(&c); p != nil && len(s.arch.Elections()) > 1 {
			v.Person = s.lang.Prefix + PeoplePath + "/" + p.Slug
		}
		return s.render("candidate", clip(c.Name), "", s.api+"/candidates/"+c.Slug, "/candidates/"+c.Slug, v)
	}}
}

// candidateFilter is the canonical form of a candidates query: the
// district's number, the party's slug and the limit, however the request
// wrote them; what a value could not be read as stays as it was written,
// for the form to show.
type candidateFilter struct {
	stoodIn  string // a number; "": any
	district string // a number; "": any
	party    string // a slug; "": any
	elected  string // "true", "false"; "": any
	q        string // a name to search; "": any
	limit    string
	offset   int // candidates of the order skipped before the first shown
}

// query is the filter as the API's query string.
func (f candidateFilter) query() string {
	v := url.Values{}
	if f.stoodIn != "" {
		v.Set("stood_in", f.stoodIn)
	}
	if f.district != "" {
		v.Set("district", f.district)
	}
	if f.elected != "" {
		v.Set("elected", f.elected)
	}
	if f.q != "" {
		v.Set("q", f.q)
	}
	if f.party != "" {
		v.Set("party", f.party)
	}
	if f.limit != strconv.Itoa(dataset.DefaultLimit) {
		v.Set("limit", f.limit)
	}
	if f.offset != 0 {
		v.Set("offset", strconv.Itoa(f.offset))
	}
	if len(v) == 0 {
		return ""
	}
	return "?" + v.Encode()
}

// CandidatesFor is the candidates page of a query dataset.Query accepted,
// res its answer; nil when it is the first, unfiltered page, which is
// Site.Candidates.
func (s *Site) CandidatesFor(res dataset.Result) *Rendered {
	f := s.filterOf(res)
	if f == (candidateFilter{limit: strconv.Itoa(dataset.DefaultLimit)}) {
		return nil
	}
	return &Rendered{"candidates-" + s.tag + "-" + hashOf(f.query()), func() []byte {
		return s.renderCandidates(res, f, nil)
	}}
}

func hashOf(s string) string {
	sum := sha256.Sum256([]byte(s))
	return hex.EncodeToString(sum[:12])
}

// candidatesRefused is the candidates page of a query dataset.Query
// refused with perr: the form with what was asked, and beside each refused
// field one sentence saying what it takes.
func (s *Site) candidatesRefused(params dataset.Params, perr *dataset.ParamError, rawQuery string) []byte {
	f := s.canonical(params)
	v := s.candidatesForm(f)
	v.Refused = true
	v.Errors = map[string]string{}
	for _, p := range perr.Params {
		v.Errors[p.Name] = s.refusal(p, first(params, p.Name))
	}
	return s.renderPage("candidates", s.lang.T("nav_candidates"), "candidates", s.api+"/candidates?"+rawQuery, "", CandidatesPath+f.query(), "", v)
}

// refusal is the sentence a person reads beside a refused field.
func (s *Site) refusal(p dataset.InvalidParam, value string) string {
	t := s.lang.T
	switch {
	case p.Reason == "must be given at most once":
		return t("bad_once")
	case p.Name == "district", p.Name == "stood_in":
		return t("bad_district", value)
	case p.Name == "q":
		return t("bad_q", value)
	case p.Name == "elected":
		return t("bad_elected")
	case p.Name == "party":
		return t("bad_party", value)
	case p.Name == "limit":
		return t("bad_limit", value, dataset.MaxLimit)
	case p.Name == "offset":
		return t("bad_offset")
	case p.Name == "locality":
		if len(p.Near) > 0 {
			return t("bad_locality_near", value, suggest.List(p.Near, strings.TrimSpace(t("or"))))
		}
		return t("bad_locality", value)
	}
	return t("bad_value", value)
}

func first(params dataset.Params, name string) string {
	if vs := params[name]; len(vs) > 0 {
		return vs[0]
	}
	return ""
}

// filterOf is the filter of a query dataset.Query accepted, as it
// understood it (res.Filters).
func (s *Site) filterOf(res dataset.Result) candidateFilter {
	df := res.Filters()
	f := candidateFilter{limit: strconv.Itoa(res.Limit()), offset: res.Offset(), q: df.Q}
	if df.District > 0 {
		f.district = strconv.Itoa(df.District)
	}
	if df.StoodIn > 0 {
		f.stoodIn = strconv.Itoa(df.StoodIn)
	}
	if df.Party > 0 {
		f.party = s.ds.Parties()[df.Party-1].Slug
	}
	switch df.Elected {
	case dataset.ElectedTrue:
		f.elected = "true"
	case dataset.ElectedFalse:
		f.elected = "false"
	}
	return f
}

// canonical is the filter a refused query asked for, as far as it can be
// read, for the form to show it again.
func (s *Site) canonical(params dataset.Params) candidateFilter {
	f := candidateFilter{limit: strconv.Itoa(dataset.DefaultLimit)}
	district := func(v string) string {
		if n, err := strconv.Atoi(v); err == nil {
			return strconv.Itoa(n)
		} else if n, ok := s.ds.DistrictByID(strings.ToLower(v)); ok {
			return strconv.Itoa(n)
		}
		return v
	}
	if v := first(params, "district"); v != "" {
		f.district = district(v)
	}
	if v := first(params, "stood_in"); v != "" {
		f.stoodIn = district(v)
	}
	f.elected = first(params, "elected")
	f.q = strings.TrimSpace(first(params, "q"))
	if v := first(params, "party"); v != "" {
		if i, ok := s.ds.Lookup(dataset.Parties, strings.ToLower(v)); ok {
			f.party = s.ds.Parties()[i].Slug
		} else {
			f.party = v
		}
	}
	if v := first(params, "limit"); v != "" {
		if n, err := strconv.Atoi(v); err == nil {
			f.limit = strconv.Itoa(n)
		} else {
			f.limit = v
		}
	}
	if n, err := strconv.Atoi(first(params, "offset")); err == nil {
		f.offset = n
	}
	return f
}

// candidatesForm is the candidates page's form, showing f: a value the
// form has no option for is added as one, so that what the reader chose
// stays in the form.
func (s *Site) candidatesForm(f candidateFilter) candidatesView {
	v := candidatesView{MaxLimit: dataset.MaxLimit, Limit: f.limit, Q: f.q, Elected: []option{
		{"true", s.lang.T("filter_elected_yes"), "", f.elected == "true"},
		{"false", s.lang.T("filter_elected_no"), "", f.elected == "false"},
	}}
	if f.elected != "" && f.elected != "true" && f.elected != "false" {
		v.Elected = append(v.Elected, option{f.elected, f.elected, "", true})
	}
	v.StoodIn, v.Districts = s.districtOptions(f.stoodIn), s.districtOptions(f.district)
	// The first Listed parties; the one chosen is added when it is not
	// among them, by its name when the dataset has it.
	found := false
	for i, party := range s.ds.Parties()[:min(len(s.ds.Parties()), Listed)] {
		r := s.partyRow(i)
		v.Parties = append(v.Parties, option{party.Slug, r.Display, r.DisplayLang, party.Slug == f.party})
		found = found || party.Slug == f.party
	}
	if !found && f.party != "" {
		chosen := option{f.party, f.party, "", true}
		if i, ok := s.ds.Lookup(dataset.Parties, f.party); ok {
			r := s.partyRow(i)
			chosen.Label, chosen.Lang = r.Display, r.DisplayLang
		}
		v.Parties = append(v.Parties, chosen)
	}
	return v
}

// districtOptions are the district select's options, value selected.
func (s *Site) districtOptions(value string) []option {
	var opts []option
	found := false
	for _, d := range s.ds.Districts() {
		n := strconv.Itoa(d.Number)
		opts = append(opts, option{n, s.lang.T("district_n", d.Number), "", n == value})
		found = found || n == value
	}
	if !found && value != "" {
		opts = append(opts, option{value, value, "", true})
	}
	return opts
}

// renderCandidates renders the candidates page: the form showing f, and
// the records of res.
func (s *Site) renderCandidates(res dataset.Result, f candidateFilter, _ []string) []byte {
	t := s.lang.T
	v := s.candidatesForm(f)
	for i := range res.Count() {
		v.Rows = append(v.Rows, s.candidateRow(res.Index(i)))
	}
	var what []string
	if f.stoodIn != "" {
		n, _ := strconv.Atoi(f.stoodIn)
		what = append(what, t("what_stood_in", n))
	}
	if f.district != "" {
		n, _ := strconv.Atoi(f.district)
		what = append(what, t("what_primary", n))
	}
	if f.elected == "true" {
		what = append(what, t("what_elected"))
	} else if f.elected == "false" {
		what = append(what, t("what_not_elected"))
	}
	if f.q != "" {
		what = append(what, t("what_q", f.q))
	}
	if f.party != "" {
		pi, _ := s.ds.Lookup(dataset.Parties, f.party)
		what = append(what, s.partyRow(pi).Display)
	}
	// The caption says what the page leaves out, as meta.total does in
	// the API's answer; the pager links the pages before and after.
	total := res.Total()
	if res.Count() == 0 && f.offset > 0 {
		v.Caption = t("cand_none_after", f.offset, total)
	} else if res.Count() < total {
		v.Caption = t("cand_range", f.offset+min(1, res.Count()), f.offset+res.Count(), total)
	} else {
		v.Caption = t("cand_count", res.Count())
	}
	if len(what) > 0 {
		v.Caption += ": " + strings.Join(what, ", ")
	}
	v.Caption += "; " + t("cand_order")
	if next := f.offset + res.Count(); next < total {
		g := f
		g.offset = next
		v.Next = s.prefix() + CandidatesPath + g.query()
	}
	if f.offset > 0 {
		g := f
		limit, _ := strconv.Atoi(f.limit)
		g.offset = max(0, f.offset-limit)
		v.Prev = s.prefix() + CandidatesPath + g.query()
	}
	g := f
	g.offset, g.limit = 0, strconv.Itoa(dataset.DefaultLimit)
	return s.renderPage("candidates", t("nav_candidates"), "candidates", s.api+"/candidates"+f.query(), s.csvPath(g), CandidatesPath+f.query(), "", v)
}

// csvPath is the CSV download of the candidates f's filters keep.
func (s *Site) csvPath(f candidateFilter) string {
	return s.csvLink(CandidatesCSV + f.query())
}

// csvLink is path, under the election's base, when the server serves the
// CSV downloads, "" otherwise.
func (s *Site) csvLink(path string) string {
	if !s.csv {
		return ""
	}
	return s.base + path
}

// Search is the search page: the form, and, when q is not empty, res, the
// candidates whose names hold it; when none does, the names nearest to it,
// folded as the search folds them.
func (s *Site) Search(res dataset.Result, q string) Rendered {
	return Rendered{"search-" + s.tag + "-" + hashOf(q), func() []byte {
		t := s.lang.T
		v := searchView{Q: q}
		f := candidateFilter{q: q, limit: strconv.Itoa(dataset.DefaultLimit)}
		here, csv := SearchPath, ""
		if q != "" {
			here = SearchPath + "?" + url.Values{"q": {q}}.Encode()
			for i := range res.Count() {
				v.Rows = append(v.Rows, s.candidateRow(res.Index(i)))
			}
			switch {
			case res.Count() == 0:
				v.None = t("search_none", q)
				v.Nearest = s.nearestNames(q, 5)
			case res.Count() < res.Total():
				v.Caption = t("cand_range", 1, res.Count(), res.Total()) + ": " + t("what_q", q)
				v.More = s.prefix() + CandidatesPath + f.query()
			default:
				v.Caption = t("search_results", res.Count(), q)
			}
			if res.Count() > 0 {
				csv = s.csvPath(f)
			}
		}
		return s.renderPage("search", t("search_heading"), "", s.api+"/candidates"+f.query(), csv, here, q, v)
	}}
}

// searchRefused is the search page of a q the query refused.
func (s *Site) searchRefused(q string, perr *dataset.ParamError) []byte {
	v := searchView{Q: q}
	for _, p := range perr.Params {
		v.Error = s.refusal(p, q)
	}
	return s.renderPage("search", s.lang.T("search_heading"), "", "", "", SearchPath+"?"+url.Values{"q": {q}}.Encode(), q, v)
}

// nearestNames are the candidates whose name, given name or family name,
// folded, is nearest to q, folded, at most n of them and none too far.
func (s *Site) nearestNames(q string, n int) []nameLink {
	r := suggest.Near(dataset.Fold(q))
	for i, c := range s.ds.Candidates() {
		r.Add(i, dataset.Fold(c.Name))
		r.AddPart(i, dataset.Fold(c.GivenName))
		r.AddPart(i, dataset.Fold(c.FamilyName))
	}
	var out []nameLink
	for _, i := range r.Nearest(n) {
		c := s.ds.Candidates()[i]
		out = append(out, nameLink{c.Name, c.Slug})
	}
	return out
}

// Locality reads the locality a districts query asks for, as the API reads
// it: "" for every district.
func Locality(params dataset.Params) string {
	if vs := params["locality"]; len(vs) > 0 {
		// Given twice, the query refuses it.
		return strings.TrimSpace(vs[len(vs)-1])
	}
	return ""
}

// DistrictsFor is the districts page of a locality lookup dataset.Query
// accepted, ans its answer as the API gives it (whose ETag names its
// records); nil without a locality, which is Site.Districts.
func (s *Site) DistrictsFor(ans answers.Result, params dataset.Params) *Rendered {
	locality := Locality(params)
	if locality == "" {
		return nil
	}
	res := ans.Query()
	return &Rendered{"districts-" + s.tag + "-" + hashOf(ans.ETag()+"\x00"+locality), func() []byte {
		v := districtsView{Locality: locality, Lookup: true}
		ds := make([]dataset.District, res.Count())
		for i := range ds {
			ds[i] = s.ds.Districts()[res.Index(i)]
		}
		v.Districts = s.districtViews(ds)
		v.Holding = s.lang.T("holding", locality, len(ds))
		q := "?" + url.Values{"locality": {locality}}.Encode()
		return s.renderPage("districts", s.lang.T("nav_districts"), "districts", s.api+"/districts"+q, s.csvLink(DistrictsCSV+q), DistrictsPath+q, "", v)
	}}
}

// districtsRefused is the districts page of a lookup dataset.Query refused
// with perr.
func (s *Site) districtsRefused(params dataset.Params, perr *dataset.ParamError, rawQuery string) []byte {
	v := districtsView{Locality: Locality(params), NoLocalities: s.noLocalities}
	for _, p := range perr.Params {
		v.Error = s.refusal(p, v.Locality)
	}
	return s.render("districts", s.lang.T("nav_districts"), "districts", s.api+"/districts?"+rawQuery,
		DistrictsPath+"?"+url.Values{"locality": {v.Locality}}.Encode(), v)
}

// Lookup finds a record of the site's dataset by the key of its page's
// path, as the API's record paths read it.
func (s *Site) Lookup(c dataset.Collection, key string) (int, bool) {
	return s.ds.Lookup(c, key)
}

// districtNumber is the number of the district of id, 0 for none.
func (s *Site) districtNumber(id string) int {
	n, _ := s.ds.DistrictByID(id)
	return n
}
