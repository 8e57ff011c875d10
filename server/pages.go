package server

import (
	"bytes"
	"compress/gzip"
	"crypto/sha256"
	"embed"
	"encoding/hex"
	"encoding/json"
	"errors"
	"html/template"
	"io/fs"
	"net/http"
	"net/url"
	"strconv"
	"strings"

	"ballot/dataset"
)

// The pages for people: HTML under / (never under BasePath, whose answers
// stay JSON), rendered on the server from the templates in pages/, with no
// script and nothing from another origin. Each page shows an answer of the
// API and links to it. The pages that take no parameters are rendered once
// per dataset and served like the documents; a filtered page is rendered per
// request, but its ETag is made of the dataset version and the canonical
// form of its query, so a 304 costs no rendering. They go through the same
// middleware as every path: one route, "page", in the metrics, and the rate
// limit of every other path.

//go:embed pages
var pageFiles embed.FS

// contentSecurityPolicy allows the pages nothing but their own stylesheet
// and icon, and forms that submit to this server: no script, no frame, no
// resource from another origin.
const contentSecurityPolicy = "default-src 'none'; style-src 'self'; img-src 'self'; form-action 'self'; base-uri 'none'; frame-ancestors 'none'"

var (
	htmlValue       = []string{"text/html; charset=utf-8"}
	cssValue        = []string{"text/css; charset=utf-8"}
	svgValue        = []string{"image/svg+xml"}
	cspValue        = []string{contentSecurityPolicy}
	varyAcceptValue = []string{"Accept-Encoding, Accept"}
)

// The stylesheet and the icon are the same for every dataset.
var (
	styleSheet = prepare(cssValue, mustReadPageFile("pages/style.css"))
	favicon    = prepare(svgValue, mustReadPageFile("pages/favicon.svg"))
)

// pagesFingerprint identifies this build's templates, stylesheet, icon and
// OpenAPI document (the reference's source), and is part of every page's
// ETag with the dataset version: a new release that renders a page
// differently must not have its old bytes confirmed with a 304.
var pagesFingerprint = func() string {
	h := sha256.New()
	_ = fs.WalkDir(pageFiles, ".", func(path string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			h.Write([]byte(path + "\x00"))
			h.Write(mustReadPageFile(path))
		}
		return nil
	})
	h.Write(openAPI)
	return hex.EncodeToString(h.Sum(nil)[:6])
}()

func mustReadPageFile(name string) []byte {
	b, err := pageFiles.ReadFile(name)
	if err != nil {
		panic("server: " + err.Error()) // embedded: only a build without the file gets here
	}
	return b
}

// pageTemplates holds each page's template, parsed with the layout they
// share.
var pageTemplates = func() map[string]*template.Template {
	layout := template.Must(template.New("layout").ParseFS(pageFiles, "pages/layout.html"))
	m := map[string]*template.Template{}
	for _, name := range []string{"home", "parties", "districts", "candidates", "party", "candidate", "reference", "error"} {
		m[name] = template.Must(template.Must(layout.Clone()).ParseFS(pageFiles, "pages/"+name+".html"))
	}
	return m
}()

// pagePaths are the pages' own paths; "/parties/SLUG" and
// "/candidates/SLUG" are pages too.
var pagePaths = map[string]bool{
	"/": true, "/parties": true, "/districts": true, "/candidates": true, "/reference": true,
	"/style.css": true, "/favicon.svg": true,
}

// isPagePath reports whether path is a page's: one of pagePaths, or one
// segment under /parties/ or /candidates/.
func isPagePath(path string) bool {
	if pagePaths[path] {
		return true
	}
	for _, prefix := range []string{"/parties/", "/candidates/"} {
		if rest, ok := strings.CutPrefix(path, prefix); ok && rest != "" && !strings.Contains(rest, "/") {
			return true
		}
	}
	return false
}

// pageSet is the pages of one dataset: those rendered at load, and what
// the others need to be rendered quickly.
type pageSet struct {
	ds     *dataset.Dataset
	site   string // the dataset's title
	credit string // the sentence saying how to credit the publisher
	tag    string // the dataset version's prefix, in ETags

	home, parties, districts, candidates, reference answer
	notFound                                        []byte

	districtByID    map[string]int // district number
	partyCandidates [][]int        // each party's candidates, by index
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

// buildPages renders the pages of ds that take no parameters and indexes
// what the others need.
func buildPages(ds *dataset.Dataset) *pageSet {
	idx := newIndex(ds)
	p := &pageSet{
		ds:              ds,
		site:            ds.Manifest.Title,
		credit:          idx.Attribution.HowToCredit,
		tag:             ds.Version[:16] + "-" + pagesFingerprint,
		districtByID:    map[string]int{},
		partyCandidates: make([][]int, len(ds.Parties())),
	}
	for _, d := range ds.Districts() {
		p.districtByID[d.ID] = d.Number
	}
	for i, c := range ds.Candidates() {
		if c.PartyID != nil {
			pi, _ := ds.Lookup(dataset.Parties, *c.PartyID)
			p.partyCandidates[pi] = append(p.partyCandidates[pi], i)
		}
	}

	p.home = prepare(htmlValue, p.render("home", "Home", "home", BasePath+"/", newHomeView(idx)))
	p.parties = prepare(htmlValue, p.render("parties", "Parties", "parties", BasePath+"/parties", p.partyRows()))
	p.districts = prepare(htmlValue, p.render("districts", "Districts", "districts", BasePath+"/districts",
		districtsView{Districts: p.districtViews(ds.Districts())}))
	all, _ := ds.Query(dataset.Candidates, nil) // no parameter is ever refused
	p.candidates = prepare(htmlValue, p.renderCandidates(all, candidateFilter{limit: dataset.DefaultLimit}, nil, ""))
	p.reference = prepare(htmlValue, p.render("reference", "API reference", "reference", BasePath+"/openapi.json", apiReference))
	p.notFound = p.render("error", "Not found", "", "", errorView{"Not found", "There is no page at this address."})
	return p
}

// render executes a page's template. The templates are parsed at start
// and the views are plain values, so only a mistake in a template, which
// the tests render, can fail.
func (p *pageSet) render(name, title, nav, jsonPath string, body any) []byte {
	full := title + " · " + p.site
	if nav == "" { // a record's page: its name is title enough
		full = title
	}
	var b bytes.Buffer
	err := pageTemplates[name].ExecuteTemplate(&b, "layout", page{
		Title: full, Site: p.site, Nav: nav, JSON: jsonPath, Credit: p.credit, Body: body,
	})
	if err != nil {
		panic("server: rendering the " + name + " page: " + err.Error())
	}
	return b.Bytes()
}

// servePage answers GET and HEAD for a page.
func (s *Server) servePage(w http.ResponseWriter, r *http.Request, q *request, p *pageSet) {
	path := r.URL.Path
	switch path {
	case "/style.css":
		s.writeAnswer(w, r, &styleSheet, q.now)
		return
	case "/favicon.svg":
		s.writeAnswer(w, r, &favicon, q.now)
		return
	}
	w.Header()["Content-Security-Policy"] = cspValue
	switch path {
	case "/":
		s.writeAnswer(w, r, &p.home, q.now)
	case "/parties":
		s.writeAnswer(w, r, &p.parties, q.now)
	case "/reference":
		s.writeAnswer(w, r, &p.reference, q.now)
	case "/districts":
		s.districtsPage(w, r, q, p)
	case "/candidates":
		s.candidatesPage(w, r, q, p)
	default:
		if slug, ok := strings.CutPrefix(path, "/parties/"); ok {
			s.partyPage(w, r, q, p, strings.ToLower(slug))
		} else {
			s.candidatePage(w, r, q, p, strings.ToLower(strings.TrimPrefix(path, "/candidates/")))
		}
	}
}

// notFound answers a path that is no endpoint's and no page's: the 404
// problem, or, with the pages on, the 404 page for a browser (a request
// whose Accept names text/html) outside the API.
func (s *Server) notFound(w http.ResponseWriter, r *http.Request) {
	p := s.pages.Load()
	if p == nil || r.URL.Path == BasePath || strings.HasPrefix(r.URL.Path, BasePath+"/") {
		handleNotFound(w)
		return
	}
	w.Header()["Vary"] = varyAcceptValue
	if !acceptsHTML(r.Header["Accept"]) {
		handleNotFound(w)
		return
	}
	w.Header()["Content-Security-Policy"] = cspValue
	writePageError(w, r, http.StatusNotFound, p.notFound)
}

// acceptsHTML reports whether an Accept header names text/html, as a
// browser's does when it follows a link.
func acceptsHTML(values []string) bool {
	for _, v := range values {
		if strings.Contains(strings.ToLower(v), "text/html") {
			return true
		}
	}
	return false
}

// writePageError writes an HTML page with an error status: never cached,
// as problems are not.
func writePageError(w http.ResponseWriter, r *http.Request, status int, body []byte) {
	delete(w.Header(), "Etag")
	writeHead(w, status, htmlValue, noStoreValue, []string{strconv.Itoa(len(body))})
	if r.Method != http.MethodHead {
		_, _ = w.Write(body)
	}
}

// writeRendered answers with a page rendered for this request. Its ETag is
// given, made of what decides the page's bytes, so that a client holding
// it gets 304 before anything is rendered.
func (s *Server) writeRendered(w http.ResponseWriter, r *http.Request, q *request, tag string, render func() []byte) {
	a := &answer{contentType: htmlValue, etag: `"` + tag + `"`, gzipETag: `"` + tag + `-gzip"`}
	gz := acceptsGzip(r.Header["Accept-Encoding"])
	etag := a.etag
	if gz {
		etag = a.gzipETag
	}
	if !noneMatch(r.Header["If-None-Match"], etag) {
		// writeAnswer answers 304 without reading the body; otherwise it
		// needs the body of the encoding it sends.
		a.body = render()
		if gz {
			var b bytes.Buffer
			zw := gzip.NewWriter(&b)
			_, _ = zw.Write(a.body) // a bytes.Buffer does not fail
			_ = zw.Close()
			a.gzipBody = b.Bytes()
		}
	}
	s.writeAnswer(w, r, a, q.now)
}

// partyPage answers /parties/SLUG. The 404 page does not repeat the slug:
// a page never echoes what a client wrote outside the form's values.
func (s *Server) partyPage(w http.ResponseWriter, r *http.Request, q *request, p *pageSet, slug string) {
	i, ok := p.ds.Lookup(dataset.Parties, slug)
	if ok {
		slug = p.ds.Parties()[i].Slug
	} else {
		writePageError(w, r, http.StatusNotFound, p.render("error", "No such party", "", "",
			errorView{"No such party", "No party has this slug: the parties page lists them all."}))
		return
	}
	s.writeRendered(w, r, q, "party-"+p.tag+"-"+slug, func() []byte {
		party := p.ds.Parties()[i]
		v := partyView{partyRow: p.partyRow(i)}
		v.ID, v.WikipediaURL = party.ID, deref(party.WikipediaURL)
		for _, ci := range p.partyCandidates[i] {
			v.Rows = append(v.Rows, p.candidateRow(ci))
		}
		return p.render("party", party.Name, "", BasePath+"/parties/"+slug, v)
	})
}

// candidatePage answers /candidates/SLUG.
func (s *Server) candidatePage(w http.ResponseWriter, r *http.Request, q *request, p *pageSet, slug string) {
	i, ok := p.ds.Lookup(dataset.Candidates, slug)
	if ok {
		slug = p.ds.Candidates()[i].Slug
	} else {
		writePageError(w, r, http.StatusNotFound, p.render("error", "No such candidate", "", "",
			errorView{"No such candidate", "No candidate has this slug: the candidates page lists them, 500 at a time."}))
		return
	}
	s.writeRendered(w, r, q, "candidate-"+p.tag+"-"+slug, func() []byte {
		c := p.ds.Candidates()[i]
		v := candidateView{candidateRow: p.candidateRow(i)}
		v.ID, v.GivenName, v.FamilyName = c.ID, c.GivenName, c.FamilyName
		v.Incumbent = yesNo(c.IsIncumbent)
		v.Website, v.PhotoURL = deref(c.Website), deref(c.PhotoURL)
		return p.render("candidate", c.Name, "", BasePath+"/candidates/"+slug, v)
	})
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

// candidatesPage answers /candidates with the API's filters: the query
// goes to the same dataset.Query as the API's, so a refused value gets the
// API's message, on the page, with status 400.
func (s *Server) candidatesPage(w http.ResponseWriter, r *http.Request, q *request, p *pageSet) {
	params := parseQuery(r.URL.RawQuery)
	res, err := p.ds.Query(dataset.Candidates, params)
	if err != nil {
		writeQueryError(w, r, err, func(perr *dataset.ParamError) []byte {
			return p.renderCandidates(dataset.Result{}, p.canonical(params), perr, r.URL.RawQuery)
		})
		return
	}
	f := p.canonical(params)
	if f == (candidateFilter{limit: dataset.DefaultLimit}) {
		s.writeAnswer(w, r, &p.candidates, q.now)
		return
	}
	s.writeRendered(w, r, q, "candidates-"+p.tag+"-d"+strconv.Itoa(f.district)+"-p"+f.party+"-l"+strconv.Itoa(f.limit)+"-o"+strconv.Itoa(f.offset), func() []byte {
		return p.renderCandidates(res, f, nil, "")
	})
}

// writeQueryError answers a query dataset.Query refused: the page render
// makes of the refusal, with status 400. Anything but a refused parameter
// is the server's fault, answered as the API answers it.
func writeQueryError(w http.ResponseWriter, r *http.Request, err error, render func(*dataset.ParamError) []byte) {
	var perr *dataset.ParamError
	if !errors.As(err, &perr) {
		writeError(w, err)
		return
	}
	writePageError(w, r, http.StatusBadRequest, render(perr))
}

// canonical is the filter a query dataset.Query accepted asks for.
func (p *pageSet) canonical(params dataset.Params) candidateFilter {
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
			f.district = p.districtByID[strings.ToLower(v)]
		}
	}
	if v := strings.ToLower(first("party")); v != "" {
		if i, ok := p.ds.Lookup(dataset.Parties, v); ok {
			f.party = p.ds.Parties()[i].Slug
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

// renderCandidates renders the candidates page: the form showing f, and
// the records of res, or the refusal perr of the query rawQuery.
func (p *pageSet) renderCandidates(res dataset.Result, f candidateFilter, perr *dataset.ParamError, rawQuery string) []byte {
	v := candidatesView{MaxLimit: dataset.MaxLimit, Limit: f.limit}
	for _, d := range p.ds.Districts() {
		v.Districts = append(v.Districts, option{strconv.Itoa(d.Number), d.Name, d.Number == f.district})
	}
	for _, party := range p.ds.Parties() {
		v.Parties = append(v.Parties, option{party.Slug, party.Name, party.Slug == f.party})
	}
	jsonPath := BasePath + "/candidates" + f.query()
	if perr != nil {
		// The page links to the API's answer to the same query: its 400.
		v.Problem = perr
		return p.render("candidates", "Candidates", "candidates", BasePath+"/candidates?"+rawQuery, v)
	}
	for i := range res.Count() {
		ci, _ := p.ds.Lookup(dataset.Candidates, recordID(res.Record(i)))
		v.Rows = append(v.Rows, p.candidateRow(ci))
	}
	var what []string
	if f.district != 0 {
		what = append(what, "district "+strconv.Itoa(f.district))
	}
	if f.party != "" {
		pi, _ := p.ds.Lookup(dataset.Parties, f.party)
		what = append(what, p.ds.Parties()[pi].Name)
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
		v.Next = "/candidates" + g.query()
	}
	if f.offset > 0 {
		g := f
		g.offset = max(0, f.offset-f.limit)
		v.Prev = "/candidates" + g.query()
	}
	return p.render("candidates", "Candidates", "candidates", jsonPath, v)
}

// districtsPage answers /districts. The query, read as the API reads it,
// goes to the same dataset.Query, so a locality gets the districts the API
// gives for it, and a refused one the API's message with status 400.
func (s *Server) districtsPage(w http.ResponseWriter, r *http.Request, q *request, p *pageSet) {
	params := parseQuery(r.URL.RawQuery)
	locality := ""
	if vs := params["locality"]; len(vs) > 0 {
		// As the API reads it; given twice, the query refuses it below.
		locality = strings.TrimSpace(vs[len(vs)-1])
	}
	res, err := p.ds.Query(dataset.Districts, params)
	if err != nil {
		writeQueryError(w, r, err, func(perr *dataset.ParamError) []byte {
			return p.render("districts", "Districts", "districts", BasePath+"/districts?"+r.URL.RawQuery, districtsView{Locality: locality, Problem: perr})
		})
		return
	}
	if locality == "" {
		s.writeAnswer(w, r, &p.districts, q.now)
		return
	}
	sum := sha256.Sum256([]byte(res.ETag() + "\x00" + locality))
	s.writeRendered(w, r, q, "districts-"+p.tag+"-"+hex.EncodeToString(sum[:12]), func() []byte {
		v := districtsView{Locality: locality, Lookup: true}
		var ds []dataset.District
		for i := range res.Count() {
			di, _ := p.ds.Lookup(dataset.Districts, recordID(res.Record(i)))
			ds = append(ds, p.ds.Districts()[di])
		}
		v.Districts = p.districtViews(ds)
		return p.render("districts", "Districts", "districts", BasePath+"/districts?"+url.Values{"locality": {locality}}.Encode(), v)
	})
}

// recordID reads the id of a record as dataset.Result.Record gives it.
func recordID(record []byte) string {
	var r struct {
		ID string `json:"id"`
	}
	_ = json.Unmarshal(record, &r) // the dataset encoded it
	return r.ID
}

// The views: what each template shows, as plain strings.

type homeView struct {
	Title, Description, Version, License, LicenseURL, PublishedAt, API string
	Coverage                                                           struct {
		Summary string
		Notes   []string
	}
	Attribution struct{ Name, URL, AboutURL, HowToCredit string }
	Counts      counts
}

func newHomeView(idx index) homeView {
	v := homeView{
		Title: idx.Title, Description: deref(idx.Description), Version: idx.Version,
		License: idx.License, LicenseURL: deref(idx.LicenseURL), PublishedAt: deref(idx.PublishedAt),
		API: BasePath, Counts: idx.Counts,
	}
	v.Coverage.Summary, v.Coverage.Notes = deref(idx.Coverage.Summary), idx.Coverage.Notes
	a := idx.Attribution
	v.Attribution.Name, v.Attribution.URL, v.Attribution.AboutURL, v.Attribution.HowToCredit = a.Name, a.URL, deref(a.AboutURL), a.HowToCredit
	return v
}

type partyRow struct {
	Slug, Name, ShortName, NameEN, LeaderName, Website string
	Candidates                                         int
}

func (p *pageSet) partyRows() []partyRow {
	rows := make([]partyRow, len(p.ds.Parties()))
	for i := range rows {
		rows[i] = p.partyRow(i)
	}
	return rows
}

func (p *pageSet) partyRow(i int) partyRow {
	party := p.ds.Parties()[i]
	return partyRow{
		Slug: party.Slug, Name: party.Name, ShortName: party.ShortName, NameEN: deref(party.NameEN),
		LeaderName: deref(party.LeaderName), Website: deref(party.Website), Candidates: len(p.partyCandidates[i]),
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

func (p *pageSet) districtViews(ds []dataset.District) []districtView {
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

func (p *pageSet) candidateRow(i int) candidateRow {
	c := p.ds.Candidates()[i]
	row := candidateRow{Slug: c.Slug, Name: c.Name, Party: "independent", District: p.districtByID[c.PrimaryDistrictID], Elected: yesNo(c.Elected)}
	if c.PartyID != nil {
		pi, _ := p.ds.Lookup(dataset.Parties, *c.PartyID)
		party := p.ds.Parties()[pi]
		row.Party, row.PartySlug = party.Name, party.Slug
	}
	var others []string
	for _, id := range c.DistrictIDs[1:] {
		others = append(others, strconv.Itoa(p.districtByID[id]))
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
