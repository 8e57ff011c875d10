package server

import (
	"net/http"
	"strconv"
	"strings"
	"sync"

	"github.com/gorilla/mux"

	"ballot/archive"
	"ballot/dataset"
	"ballot/server/pages"
)

// The server's side of the pages for people (package pages renders them):
// their answers, prepared when a dataset loads as the documents are (an
// election's other than the current one, and the archive's own pages,
// when first asked for), and the handlers of their routes, which read the
// election from the path (snapshot.pagesOf). The pages go through the same middleware
// as every path, one route, "page", in the metrics, and the rate limit of
// every other path, and through the same answer and error writers as the
// API; the page middleware (markPage) marks their requests, so that an
// error is answered with a page.

var (
	htmlValue       = []string{"text/html; charset=utf-8"}
	cssValue        = []string{"text/css; charset=utf-8"}
	svgValue        = []string{"image/svg+xml"}
	cspValue        = []string{pages.ContentSecurityPolicy}
	varyAcceptValue = []string{"Accept-Encoding, Accept"}
)

// The stylesheet and the icon are the same for every dataset. Under their
// fingerprinted paths, which the pages link to, they are cached for a year
// and never revalidated: a change of their bytes is a change of path.
var (
	styleSheet        = prepare(cssValue, pages.Stylesheet)
	favicon           = prepare(svgValue, pages.Icon)
	styleSheetForever = forever(styleSheet)
	faviconForever    = forever(favicon)
	immutableValue    = []string{"public, max-age=31536000, immutable"}
)

func forever(a answer) answer {
	a.cacheControl = immutableValue
	return a
}

// sitePages are the pages of one election at one place (today's paths,
// or the election's own), in each language of pages.Langs, by index.
type sitePages struct {
	lang []*langPages
	// records are the record pages rendered so far, of every election of
	// the snapshot: one budget for them all.
	records *renderedPages
}

// RenderedPageBytes bounds the record pages a snapshot keeps once rendered
// (renderedPages), all languages together: the 392 of the embedded 2022
// dataset, in both languages, take 2.6 MB.
const RenderedPageBytes = 16 << 20

// renderedPages keeps the record pages (a party's, a district's, a
// candidate's) of one dataset once rendered on request, by tag, up to
// RenderedPageBytes in all: on an election night the district pages are
// read most, and rendering one costs a thousand times what sending it
// does. A page past the budget is rendered for each request. The other
// pages rendered on request (a search, a filtered list) are not kept:
// readers can ask for any number of them.
type renderedPages struct {
	mu   sync.RWMutex
	body map[string][]byte // by pages.Rendered.Tag
	left int               // bytes the budget has left
}

func newRenderedPages() *renderedPages {
	return &renderedPages{body: map[string][]byte{}, left: RenderedPageBytes}
}

// get returns the bytes of p, rendered now unless kept.
func (c *renderedPages) get(p pages.Rendered) []byte {
	c.mu.RLock()
	b, ok := c.body[p.Tag]
	c.mu.RUnlock()
	if ok {
		return b
	}
	b = p.Render()
	c.mu.Lock()
	if _, ok := c.body[p.Tag]; !ok && len(b) <= c.left {
		c.body[p.Tag] = b
		c.left -= len(b)
	}
	c.mu.Unlock()
	return b
}

// langPages are the pages of one dataset in one language: the site, and
// the answers of the pages rendered at load, prepared (ETag and gzip) like
// the documents.
type langPages struct {
	site                                                     *pages.Site
	home, parties, districts, candidates, reference, results answer
}

// buildPages renders the pages of the i-th election of the archive a that
// depend on it alone, at base (pages.Election), and prepares their
// answers; records keeps their record pages once rendered.
func buildPages(a *archive.Archive, i int, base string, records *renderedPages) *sitePages {
	about := aboutOf(a.Elections()[i].Dataset())
	sp := &sitePages{records: records}
	for _, lang := range pages.Langs {
		site, err := pages.New(pages.Election{Archive: a, Index: i, Base: base}, about, BasePath, openAPI, lang)
		if err != nil {
			panic("server: openapi.json: " + err.Error()) // embedded, and tested
		}
		p := &langPages{
			site:       site,
			home:       prepare(htmlValue, site.Home),
			parties:    prepare(htmlValue, site.Parties),
			districts:  prepare(htmlValue, site.Districts),
			candidates: prepare(htmlValue, site.Candidates),
			results:    prepare(htmlValue, site.Results),
		}
		if base == "" {
			p.reference = prepare(htmlValue, site.Reference)
		}
		sp.lang = append(sp.lang, p)
	}
	return sp
}

// aboutOf is what an election's home page says of its dataset and whom to
// credit, from its manifest, as the API's index says it of the current
// one (newIndex).
func aboutOf(ds *dataset.Dataset) pages.About {
	m := ds.Manifest
	return pages.About{
		Title: m.Title, Description: dataset.Text(nonEmpty(m.Description)), Version: ds.Version,
		License: m.License, LicenseURL: dataset.Text(nonEmpty(m.LicenseURL)), PublishedAt: dataset.Text(publishedAt(m)),
		CoverageSummary: dataset.Text(nonEmpty(m.Coverage.Summary)), CoverageNotes: m.Coverage.Notes,
		Publisher: m.Publisher.Name, PublisherURL: m.Publisher.URL, AboutURL: dataset.Text(nonEmpty(m.Publisher.AboutURL)), HowToCredit: howToCredit(m),
		CSV: true, // served beside the pages (download.go)
	}
}

// archivePages are the archive's own pages that depend on it alone, the
// elections and their history, in each language, rendered when first
// asked for: they read every election's results, which a start-up need
// not wait for.
type archivePages struct {
	once sync.Once
	lang []archiveLang
}

type archiveLang struct{ elections, history answer }

// get renders the archive's pages the first time, with the sites of
// today's paths, and returns them in the language of index li.
func (ap *archivePages) get(sp *sitePages, li int) *archiveLang {
	ap.once.Do(func() {
		for _, p := range sp.lang {
			ap.lang = append(ap.lang, archiveLang{prepare(htmlValue, p.site.Elections()), prepare(htmlValue, p.site.History())})
		}
	})
	return &ap.lang[li]
}

// langOf is the index in pages.Langs of the language of a page's path:
// its prefix.
func langOf(path string) int {
	for i, l := range pages.Langs {
		if l.Prefix != "" && (path == l.Prefix || strings.HasPrefix(path, l.Prefix+"/")) {
			return i
		}
	}
	return 0
}

// pageMark is what the page middleware marks a page's request with.
type pageMark struct {
	kind pages.Kind // which page, as its error page needs to know
	// document is set on the routes that answer with the page itself,
	// not a download or a redirect: their answers carry the pages'
	// Content-Security-Policy.
	document bool
}

// The marks of the pages' routes: a page, as its error pages tell one
// from another, and a download's or a redirect's.
var (
	otherPageMark  = &pageMark{pages.OtherPage, true}
	partyMark      = &pageMark{pages.PartyPage, true}
	candidateMark  = &pageMark{pages.CandidatePage, true}
	candidatesMark = &pageMark{pages.CandidatesPage, true}
	districtsMark  = &pageMark{pages.DistrictsPage, true}
	searchMark     = &pageMark{pages.SearchPage, true}
	peopleMark     = &pageMark{pages.PeoplePage, true}
	personMark     = &pageMark{pages.PersonPage, true}
	notADocument   = &pageMark{pages.OtherPage, false}
)

// markPage is the page middleware: it marks a request of a page's route
// as a page's, so that an error is answered with the page that says so
// (writeError), and sets the pages' Content-Security-Policy, once, on the
// answers of a page (mark.document) to GET and HEAD. A preflight and a
// wrong method are answered without the page, and an error page sets the
// policy itself.
func markPage(mark *pageMark) mux.MiddlewareFunc {
	return func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			stateOf(w).page = mark
			if mark.document && (r.Method == http.MethodGet || r.Method == http.MethodHead) {
				w.Header()["Content-Security-Policy"] = cspValue
			}
			next.ServeHTTP(w, r)
		})
	}
}

// markBrowser is the page middleware of the paths no route has: with the
// pages on, a browser's request (one whose Accept names text/html) for a
// path outside the API is marked as a page's, so that its 404 is the 404
// page, and every other client gets the 404 problem; the answer there
// varies by Accept. CONNECT names a host, not a path: it is left to
// notFound.
func (s *Server) markBrowser(next http.Handler) http.Handler {
	page := markPage(notADocument)(next)
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodConnect || s.snap.Load().pages == nil || r.URL.Path == BasePath || strings.HasPrefix(r.URL.Path, BasePath+"/") {
			next.ServeHTTP(w, r)
			return
		}
		w.Header()["Vary"] = varyAcceptValue
		if acceptsHTML(r.Header["Accept"]) {
			page.ServeHTTP(w, r)
			return
		}
		next.ServeHTTP(w, r)
	})
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

// prepared answers GET and HEAD for a page rendered with its election's
// pages, in the language of its path, of the election its path names.
func (s *Server) prepared(pick func(*langPages) *answer) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		p, _, _, err := s.snap.Load().pagesOf(r.URL.Path)
		if err != nil {
			s.writeError(w, r, err)
			return
		}
		s.writeAnswer(w, r, pick(p))
	})
}

// pagesOf returns the pages a page's path asks for, in its language: the
// current election's at today's paths, or, under an election's path
// (ElectionPrefix, behind the language's prefix), that election's, built
// the first time one is asked for; with the sites' pages and the
// election. An election the archive does not hold is an
// *archive.NotFoundError.
func (snap *snapshot) pagesOf(path string) (*langPages, *sitePages, *electionSnapshot, error) {
	es, named, err := snap.pageElection(path)
	if err != nil {
		return nil, nil, nil, err
	}
	sp := snap.pages
	if named {
		sp = es.sitePages()
	}
	return sp.lang[langOf(path)], sp, es, nil
}

// pageElection returns the election a page's or a download's path names
// (after the language's prefix, pages.ElectionPrefix), not yet ready, or
// the current one for today's paths; named says the path names one. An
// election the archive does not hold is an *archive.NotFoundError.
func (snap *snapshot) pageElection(path string) (es *electionSnapshot, named bool, err error) {
	rest := strings.TrimPrefix(path, pages.Langs[langOf(path)].Prefix)
	key, ok := strings.CutPrefix(rest, pages.ElectionsPath+"/")
	if !ok {
		return snap.electionSnapshot, false, nil
	}
	key, _, _ = strings.Cut(key, "/")
	i, err := snap.arch.ElectionIndex(key)
	if err != nil {
		return nil, true, err
	}
	return snap.electionAt(i), true, nil
}

// archivePage answers GET and HEAD for one of the archive's pages that
// depend on it alone, in the language of index li.
func (s *Server) archivePage(li int, pick func(*archiveLang) *answer) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		snap := s.snap.Load()
		s.writeAnswer(w, r, pick(snap.archivePages.get(snap.pages, li)))
	})
}

var varyLanguageValue = []string{"Accept-Encoding, Accept-Language"}

// prefersOtherLanguage matches a request for / from a browser that ranks
// another language, Maltese, above English: languageRedirect answers it,
// and the English home page every other.
func prefersOtherLanguage(r *http.Request, _ *mux.RouteMatch) bool {
	return pages.Negotiate(r.Header["Accept-Language"]) != pages.English
}

// languageRedirect answers / with a redirect to the home page in the
// language the browser ranks first.
func (s *Server) languageRedirect(w http.ResponseWriter, r *http.Request) {
	h := w.Header()
	h["Vary"] = varyLanguageValue
	h["Location"] = []string{pages.Negotiate(r.Header["Accept-Language"]).Home}
	writeHead(w, http.StatusFound, nil, s.cacheControlValue, nil)
}

// englishHome answers / with the English home page: the browser ranks no
// other language above English.
func (s *Server) englishHome(w http.ResponseWriter, r *http.Request) {
	w.Header()["Vary"] = varyLanguageValue
	s.writeAnswer(w, r, &s.snap.Load().pages.lang[0].home)
}

// electionRedirect answers an election's path without its trailing slash
// (/elections/1962) with a permanent redirect to its home page
// (/elections/1962/), as a language's home typed without its slash is.
func (s *Server) electionRedirect(w http.ResponseWriter, r *http.Request) {
	if _, _, _, err := s.snap.Load().pagesOf(r.URL.Path + "/"); err != nil {
		s.writeError(w, r, err)
		return
	}
	w.Header()["Location"] = []string{r.URL.EscapedPath() + "/"}
	writeHead(w, http.StatusPermanentRedirect, nil, s.cacheControlValue, nil)
}

// personPage answers /people/{slug_or_id}, rendered from the archive's
// record of the person, and kept as a record's page is.
func (s *Server) personPage(w http.ResponseWriter, r *http.Request) {
	snap := s.snap.Load()
	i, err := snap.arch.PersonIndex(pathKey(r, "slug_or_id"))
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	s.writeRendered(w, r, snap.pages.lang[langOf(r.URL.Path)].site.Person(i), snap.pages.records)
}

// peoplePage answers /people: the form, and with q the people whose names
// hold it, from the same search as the API's /people; a refused q gets
// its sentence beside the field, with status 400.
func (s *Server) peoplePage(w http.ResponseWriter, r *http.Request) {
	snap := s.snap.Load()
	p := snap.pages.lang[langOf(r.URL.Path)]
	params := parseQuery(r.URL.RawQuery)
	q := pages.SearchText(params)
	var found []int32
	if q != "" || len(params["q"]) > 1 {
		var err error
		if found, err = snap.arch.QueryPeople(params); err != nil {
			s.writeError(w, r, err)
			return
		}
	}
	s.writeRendered(w, r, p.site.People(found, q), nil)
}

// redirect answers with a permanent redirect to path: a language's home
// typed without its trailing slash (/mt) leads to it (/mt/).
func (s *Server) redirect(path string) http.Handler {
	location := []string{path}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header()["Location"] = location
		writeHead(w, http.StatusPermanentRedirect, nil, s.cacheControlValue, nil)
	})
}

// asset answers GET and HEAD for the stylesheet or the icon.
func (s *Server) asset(a *answer) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		s.writeAnswer(w, r, a)
	})
}

// writeRendered answers with a page rendered on request, in one encoding,
// without gzip: its tag is made of what decides its bytes, so that a
// client holding it gets 304 before anything is rendered. With kept, the
// page is taken from there, or rendered and kept there.
func (s *Server) writeRendered(w http.ResponseWriter, r *http.Request, p pages.Rendered, kept *renderedPages) {
	a := &answer{contentType: htmlValue, etag: `"` + p.Tag + `"`}
	switch {
	case noneMatch(r.Header["If-None-Match"], a.etag):
		// writeAnswer answers 304 without reading the body
	case kept != nil:
		a.body = kept.get(p)
	default:
		a.body = p.Render()
	}
	s.writeAnswer(w, r, a)
}

// partyPage answers /parties/{slug_or_id}, rendered from the record.
func (s *Server) partyPage(w http.ResponseWriter, r *http.Request) {
	s.recordPage(w, r, dataset.Parties, "slug_or_id", (*pages.Site).Party)
}

// districtPage answers /districts/{number}, rendered from the records.
func (s *Server) districtPage(w http.ResponseWriter, r *http.Request) {
	s.recordPage(w, r, dataset.Districts, "number", (*pages.Site).District)
}

// candidatePage answers /candidates/{slug_or_id}, rendered from the record.
func (s *Server) candidatePage(w http.ResponseWriter, r *http.Request) {
	s.recordPage(w, r, dataset.Candidates, "slug_or_id", (*pages.Site).Candidate)
}

// recordPage answers a record's page, found by the path's key in the
// collection c and rendered by render in the path's language, or the 404
// page.
func (s *Server) recordPage(w http.ResponseWriter, r *http.Request, c dataset.Collection, param string, render func(*pages.Site, int) pages.Rendered) {
	p, sp, _, err := s.snap.Load().pagesOf(r.URL.Path)
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	key := pathKey(r, param)
	i, ok := p.site.Lookup(c, key)
	if !ok {
		s.writeError(w, r, &dataset.NotFoundError{Collection: c, Key: key})
		return
	}
	s.writeRendered(w, r, render(p.site, i), sp.records)
}

// candidatesPage answers /candidates with the API's filters: the query goes
// to the same dataset.Query as the API's, so a refused value gets the API's
// message, on the page, with status 400.
func (s *Server) candidatesPage(w http.ResponseWriter, r *http.Request) {
	p, _, es, err := s.snap.Load().pagesOf(r.URL.Path)
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	params := parseQuery(r.URL.RawQuery)
	res, err := es.ds.Query(dataset.Candidates, params)
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	if page := p.site.CandidatesFor(res); page != nil {
		s.writeRendered(w, r, *page, nil)
		return
	}
	s.writeAnswer(w, r, &p.candidates)
}

// districtsPage answers /districts. The query, read as the API reads it,
// goes to the same dataset.Query, so a locality gets the districts the API
// gives for it, and a refused one the API's message with status 400.
func (s *Server) districtsPage(w http.ResponseWriter, r *http.Request) {
	p, _, es, err := s.snap.Load().pagesOf(r.URL.Path)
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	params := parseQuery(r.URL.RawQuery)
	res, err := es.ds.Query(dataset.Districts, params)
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	if page := p.site.DistrictsFor(es.answers.Of(res), params); page != nil {
		s.writeRendered(w, r, *page, nil)
		return
	}
	s.writeAnswer(w, r, &p.districts)
}

// searchPage answers /search: the form, and with q the candidates whose
// names hold it, from the same dataset.Query as the API's q filter; a
// refused q gets its sentence beside the field, with status 400.
func (s *Server) searchPage(w http.ResponseWriter, r *http.Request) {
	p, _, es, err := s.snap.Load().pagesOf(r.URL.Path)
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	params := parseQuery(r.URL.RawQuery)
	q := pages.SearchText(params)
	var res dataset.Result
	if q != "" || len(params["q"]) > 1 {
		res, err = es.ds.Query(dataset.Candidates, dataset.Params{"q": params["q"], "limit": {strconv.Itoa(dataset.MaxLimit)}})
		if err != nil {
			s.writeError(w, r, err)
			return
		}
	}
	s.writeRendered(w, r, p.site.Search(res, q), nil)
}
