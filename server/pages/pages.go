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
//     reference.go), each party's page and the 404 page. Site holds them
//     as bytes, which the server prepares (ETag, gzip) like the API's
//     documents.
//   - A page that depends on the request, a filtered candidates list, the
//     districts holding a locality, is rendered per request from the
//     dataset's records (Site.CandidatesFor, Site.DistrictsFor), and so is
//     a candidate's page (Site.Candidate): a dataset may hold tens of
//     thousands of candidates, whose pages rendered at load would take
//     several times the dataset's memory. Each comes as a Rendered, with a
//     tag made of what decides its bytes, so that a client holding it gets
//     304 before anything renders.
//   - Nothing here speaks HTTP: the server routes the paths (HomePath and
//     the other constants name them), sets the headers and writes every
//     answer.
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

	"ballot/dataset"
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

// Paths are the pages' own paths, as gorilla/mux templates; the server
// registers each with its handler.
const (
	HomePath       = "/"
	PartiesPath    = "/parties"
	PartyPath      = "/parties/{slug_or_id}"
	DistrictsPath  = "/districts"
	CandidatesPath = "/candidates"
	CandidatePath  = "/candidates/{slug_or_id}"
	ReferencePath  = "/reference"
	StylePath      = "/style.css"
	IconPath       = "/favicon.svg"
)

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
	layout := template.Must(template.New("layout").ParseFS(files, "templates/layout.html"))
	m := map[string]*template.Template{}
	for _, name := range []string{"home", "parties", "districts", "candidates", "party", "candidate", "reference", "error"} {
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
}

// Site is the pages of one dataset: those rendered when it loaded, and what
// the others need to be rendered quickly. It is immutable.
type Site struct {
	ds     *dataset.Dataset
	api    string // the API's base path, such as /api/public/v1
	site   string // the dataset's title
	credit string // the sentence saying how to credit the publisher
	tag    string // the dataset version and this build's pages, in tags

	// Home, Parties, Districts, Candidates (the first page, unfiltered),
	// Reference and NotFound are rendered; PartyPages[i] is the page of
	// the i-th party of ds.Parties().
	Home, Parties, Districts, Candidates, Reference, NotFound []byte
	PartyPages                                                [][]byte

	partyCandidates [][]int // each party's candidates, by index
	districtNumber  map[string]int
}

// New renders the pages of ds that depend on it alone. api is the API's
// base path, for links; openAPI is the OpenAPI document the reference page
// shows. It fails only when openAPI cannot be read.
func New(ds *dataset.Dataset, about About, api string, openAPI []byte) (*Site, error) {
	ref, err := newReference(openAPI, api)
	if err != nil {
		return nil, err
	}
	// A new release that renders a page differently must not have its old
	// bytes confirmed with a 304: the tag names this build's templates and
	// the document the reference is read from, beside the dataset.
	h := sha256.New()
	h.Write(templatesFingerprint)
	h.Write(openAPI)
	s := &Site{
		ds:              ds,
		api:             api,
		site:            ds.Manifest.Title,
		credit:          about.HowToCredit,
		tag:             ds.Version[:16] + "-" + hex.EncodeToString(h.Sum(nil)[:6]),
		partyCandidates: make([][]int, len(ds.Parties())),
		districtNumber:  make(map[string]int, len(ds.Districts())),
	}
	for _, d := range ds.Districts() {
		s.districtNumber[d.ID] = d.Number
	}
	for i, c := range ds.Candidates() {
		if c.PartyID != nil {
			pi, _ := ds.Lookup(dataset.Parties, *c.PartyID)
			s.partyCandidates[pi] = append(s.partyCandidates[pi], i)
		}
	}
	s.Home = s.render("home", "Home", "home", api+"/", newHomeView(ds, about, api))
	s.Parties = s.render("parties", "Parties", "parties", api+"/parties", s.partyRows())
	s.Districts = s.render("districts", "Districts", "districts", api+"/districts",
		districtsView{Districts: s.districtViews(ds.Districts())})
	all, _ := ds.Query(dataset.Candidates, nil) // no parameter is ever refused
	s.Candidates = s.renderCandidates(all, candidateFilter{limit: dataset.DefaultLimit})
	s.Reference = s.render("reference", "API reference", "reference", api+"/openapi.json", ref)
	s.NotFound = s.Error("Not found", "There is no page at this address.")
	for i, party := range ds.Parties() {
		v := partyView{partyRow: s.partyRow(i)}
		v.ID, v.WikipediaURL = party.ID, deref(party.WikipediaURL)
		for _, ci := range s.partyCandidates[i] {
			v.Rows = append(v.Rows, s.candidateRow(ci))
		}
		s.PartyPages = append(s.PartyPages, s.render("party", party.Name, "", api+"/parties/"+party.Slug, v))
	}
	return s, nil
}

// page is what the layout shows around a page's own content.
type page struct {
	Title  string
	Site   string
	Nav    string // the navigation's current entry
	JSON   string // the API answer the page shows
	Credit string
	Body   any
}

// render executes a page's template. The templates are parsed at start
// and the views are plain values, so only a mistake in a template, which
// the tests render, can fail.
func (s *Site) render(name, title, nav, jsonPath string, body any) []byte {
	full := title + " · " + s.site
	if nav == "" { // a record's or an error's page: its name is title enough
		full = title
	}
	var b bytes.Buffer
	err := templates[name].ExecuteTemplate(&b, "layout", page{
		Title: full, Site: s.site, Nav: nav, JSON: jsonPath, Credit: s.credit, Body: body,
	})
	if err != nil {
		panic("pages: rendering the " + name + " page: " + err.Error())
	}
	return b.Bytes()
}

// Error renders an error page: its heading and one sentence. A page never
// echoes what a client wrote outside a form's values.
func (s *Site) Error(heading, detail string) []byte {
	return s.render("error", heading, "", "", errorView{heading, detail})
}

// PartyNotFound is the 404 page of a party's path whose key names no
// party.
func (s *Site) PartyNotFound() []byte {
	return s.Error("No such party", "No party has this slug: the parties page lists them all.")
}

// CandidateNotFound is the 404 page of a candidate's path whose key names
// no candidate.
func (s *Site) CandidateNotFound() []byte {
	return s.Error("No such candidate", "No candidate has this slug: the candidates page lists them, 500 at a time.")
}

// Rendered is a page rendered for one request: Tag names its bytes (the
// dataset, this build's pages and what the request asked, in canonical
// form), so that a client holding it is answered 304 and Render never
// runs.
type Rendered struct {
	Tag    string
	Render func() []byte
}

// Candidate is the page of the i-th candidate of the dataset.
func (s *Site) Candidate(i int) Rendered {
	c := s.ds.Candidates()[i]
	return Rendered{"candidate-" + s.tag + "-" + c.Slug, func() []byte {
		v := candidateView{candidateRow: s.candidateRow(i)}
		v.ID, v.GivenName, v.FamilyName = c.ID, c.GivenName, c.FamilyName
		v.Incumbent = yesNo(c.IsIncumbent)
		v.Website, v.PhotoURL = deref(c.Website), deref(c.PhotoURL)
		return s.render("candidate", c.Name, "", s.api+"/candidates/"+c.Slug, v)
	}}
}

// candidateFilter is the canonical form of a valid candidates query: the
// district's number, the party's slug and the limit, however the request
// wrote them.
type candidateFilter struct {
	district int    // 0: any
	party    string // "": any
	limit    int
	offset   int // candidates of the order skipped before the first shown
}

// query is the filter as the API's query string.
func (f candidateFilter) query() string {
	v := url.Values{}
	if f.district != 0 {
		v.Set("district", strconv.Itoa(f.district))
	}
	if f.party != "" {
		v.Set("party", f.party)
	}
	if f.limit != dataset.DefaultLimit {
		v.Set("limit", strconv.Itoa(f.limit))
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
func (s *Site) CandidatesFor(res dataset.Result, params dataset.Params) *Rendered {
	f := s.canonical(params)
	// Every filter in canonical form, the readers' filters (stood_in,
	// elected, q) included: two pages of other rows never share a tag.
	filters := string(res.AppendFilterQuery(nil))
	if f == (candidateFilter{limit: dataset.DefaultLimit}) && filters == "" {
		return nil
	}
	return &Rendered{"candidates-" + s.tag + "-d" + strconv.Itoa(f.district) + "-p" + f.party + "-l" + strconv.Itoa(f.limit) + "-o" + strconv.Itoa(f.offset) + "-f" + filters, func() []byte {
		return s.renderCandidates(res, f)
	}}
}

// CandidatesRefused is the candidates page of a query dataset.Query
// refused with perr: the form with what was asked, and the API's message.
// rawQuery is the query as sent: the page links to the API's answer to it.
func (s *Site) CandidatesRefused(params dataset.Params, perr *dataset.ParamError, rawQuery string) []byte {
	v := s.candidatesForm(s.canonical(params))
	v.Problem = perr
	return s.render("candidates", "Candidates", "candidates", s.api+"/candidates?"+rawQuery, v)
}

// canonical is the filter a query asks for, as far as it can be read.
func (s *Site) canonical(params dataset.Params) candidateFilter {
	f := candidateFilter{limit: dataset.DefaultLimit}
	first := func(name string) string {
		if vs := params[name]; len(vs) > 0 {
			return vs[0]
		}
		return ""
	}
	if v := first("district"); v != "" {
		if n, err := strconv.Atoi(v); err == nil {
			f.district = n
		} else {
			f.district = s.districtNumber[strings.ToLower(v)]
		}
	}
	if v := strings.ToLower(first("party")); v != "" {
		if i, ok := s.ds.Lookup(dataset.Parties, v); ok {
			f.party = s.ds.Parties()[i].Slug
		} else {
			f.party = v
		}
	}
	if n, err := strconv.Atoi(first("limit")); err == nil {
		f.limit = n
	}
	if n, err := strconv.Atoi(first("offset")); err == nil {
		f.offset = n
	}
	return f
}

// candidatesForm is the candidates page's form, showing f.
func (s *Site) candidatesForm(f candidateFilter) candidatesView {
	v := candidatesView{MaxLimit: dataset.MaxLimit, Limit: f.limit}
	for _, d := range s.ds.Districts() {
		v.Districts = append(v.Districts, option{strconv.Itoa(d.Number), d.Name, d.Number == f.district})
	}
	for _, party := range s.ds.Parties() {
		v.Parties = append(v.Parties, option{party.Slug, party.Name, party.Slug == f.party})
	}
	return v
}

// renderCandidates renders the candidates page: the form showing f, and
// the records of res.
func (s *Site) renderCandidates(res dataset.Result, f candidateFilter) []byte {
	v := s.candidatesForm(f)
	for i := range res.Count() {
		v.Rows = append(v.Rows, s.candidateRow(res.Index(i)))
	}
	var what []string
	if f.district != 0 {
		what = append(what, "district "+strconv.Itoa(f.district))
	}
	if f.party != "" {
		pi, _ := s.ds.Lookup(dataset.Parties, f.party)
		what = append(what, s.ds.Parties()[pi].Name)
	}
	// The caption says what the page leaves out, as meta.total does in
	// the API's answer; the pager links the pages before and after.
	total := res.Total()
	if res.Count() == 0 && f.offset > 0 {
		v.Caption = "No candidates after the first " + strconv.Itoa(f.offset) + " of " + strconv.Itoa(total)
	} else if res.Count() < total {
		v.Caption = "Candidates " + strconv.Itoa(f.offset+min(1, res.Count())) + " to " + strconv.Itoa(f.offset+res.Count()) + " of " + strconv.Itoa(total)
	} else {
		v.Caption = strconv.Itoa(res.Count()) + " candidates"
	}
	if len(what) > 0 {
		v.Caption += " of " + strings.Join(what, ", ")
	}
	v.Caption += ", by district, family name and given name"
	if next := f.offset + res.Count(); next < total {
		g := f
		g.offset = next
		v.Next = CandidatesPath + g.query()
	}
	if f.offset > 0 {
		g := f
		g.offset = max(0, f.offset-f.limit)
		v.Prev = CandidatesPath + g.query()
	}
	return s.render("candidates", "Candidates", "candidates", s.api+"/candidates"+f.query(), v)
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
// accepted, res its answer; nil without a locality, which is
// Site.Districts.
func (s *Site) DistrictsFor(res dataset.Result, params dataset.Params) *Rendered {
	locality := Locality(params)
	if locality == "" {
		return nil
	}
	sum := sha256.Sum256([]byte(res.ETag() + "\x00" + locality))
	return &Rendered{"districts-" + s.tag + "-" + hex.EncodeToString(sum[:12]), func() []byte {
		v := districtsView{Locality: locality, Lookup: true}
		ds := make([]dataset.District, res.Count())
		for i := range ds {
			ds[i] = s.ds.Districts()[res.Index(i)]
		}
		v.Districts = s.districtViews(ds)
		return s.render("districts", "Districts", "districts", s.api+"/districts?"+url.Values{"locality": {locality}}.Encode(), v)
	}}
}

// DistrictsRefused is the districts page of a lookup dataset.Query refused
// with perr.
func (s *Site) DistrictsRefused(params dataset.Params, perr *dataset.ParamError, rawQuery string) []byte {
	return s.render("districts", "Districts", "districts", s.api+"/districts?"+rawQuery,
		districtsView{Locality: Locality(params), Problem: perr})
}

// Lookup finds a record of the site's dataset by the key of its page's
// path, as the API's record paths read it.
func (s *Site) Lookup(c dataset.Collection, key string) (int, bool) {
	return s.ds.Lookup(c, key)
}
