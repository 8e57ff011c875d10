package server

import (
	"net/http"
	"strconv"
	"strings"
	"sync"

	"github.com/gorilla/mux"

	"ballot/dataset"
	"ballot/server/pages"
)

// The server's side of the pages for people (package pages renders them):
// their answers, prepared when a dataset loads as the documents are, and
// the handlers of their routes. The pages go through the same middleware
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

// sitePages are the pages of one dataset, in each language of
// pages.Langs, by index.
type sitePages struct {
	lang []*langPages
	// records are the record pages of this dataset rendered so far.
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

// buildPages renders the pages of ds that depend on it alone, the home
// page showing idx, its index, and prepares their answers.
func buildPages(ds *dataset.Dataset, idx index) *sitePages {
	a := idx.Attribution
	about := pages.About{
		Title: idx.Title, Description: dataset.Text(idx.Description), Version: idx.Version,
		License: idx.License, LicenseURL: dataset.Text(idx.LicenseURL), PublishedAt: dataset.Text(idx.PublishedAt),
		CoverageSummary: dataset.Text(idx.Coverage.Summary), CoverageNotes: idx.Coverage.Notes,
		Publisher: a.Name, PublisherURL: a.URL, AboutURL: dataset.Text(a.AboutURL), HowToCredit: a.HowToCredit,
		CSV: true, // served beside the pages (download.go)
	}
	sp := &sitePages{records: newRenderedPages()}
	for _, lang := range pages.Langs {
		site, err := pages.New(ds, about, BasePath, openAPI, lang)
		if err != nil {
			panic("server: openapi.json: " + err.Error()) // embedded, and tested
		}
		p := &langPages{
			site:       site,
			home:       prepare(htmlValue, site.Home),
			parties:    prepare(htmlValue, site.Parties),
			districts:  prepare(htmlValue, site.Districts),
			candidates: prepare(htmlValue, site.Candidates),
			reference:  prepare(htmlValue, site.Reference),
			results:    prepare(htmlValue, site.Results),
		}
		sp.lang = append(sp.lang, p)
	}
	return sp
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

// prepared answers GET and HEAD for a page rendered at load, in the
// language of index li.
func (s *Server) prepared(li int, pick func(*langPages) *answer) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		s.writeAnswer(w, r, pick(s.snap.Load().pages.lang[li]))
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
	sp := s.snap.Load().pages
	p := sp.lang[langOf(r.URL.Path)]
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
	snap := s.snap.Load()
	p := snap.pages.lang[langOf(r.URL.Path)]
	params := parseQuery(r.URL.RawQuery)
	res, err := snap.ds.Query(dataset.Candidates, params)
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
	snap := s.snap.Load()
	p := snap.pages.lang[langOf(r.URL.Path)]
	params := parseQuery(r.URL.RawQuery)
	res, err := snap.ds.Query(dataset.Districts, params)
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	if page := p.site.DistrictsFor(snap.answers.Of(res), params); page != nil {
		s.writeRendered(w, r, *page, nil)
		return
	}
	s.writeAnswer(w, r, &p.districts)
}

// searchPage answers /search: the form, and with q the candidates whose
// names hold it, from the same dataset.Query as the API's q filter; a
// refused q gets its sentence beside the field, with status 400.
func (s *Server) searchPage(w http.ResponseWriter, r *http.Request) {
	snap := s.snap.Load()
	p := snap.pages.lang[langOf(r.URL.Path)]
	params := parseQuery(r.URL.RawQuery)
	q := pages.SearchText(params)
	var res dataset.Result
	if q != "" || len(params["q"]) > 1 {
		var err error
		res, err = snap.ds.Query(dataset.Candidates, dataset.Params{"q": params["q"], "limit": {strconv.Itoa(dataset.MaxLimit)}})
		if err != nil {
			s.writeError(w, r, err)
			return
		}
	}
	s.writeRendered(w, r, p.site.Search(res, q), nil)
}
