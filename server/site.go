package server

import (
	"net/http"
	"strconv"
	"strings"

	"ballot/dataset"
	"ballot/server/pages"
)

// The server's side of the pages for people (package pages renders them):
// their answers, prepared when a dataset loads as the documents are, and
// the handlers of their routes. The pages go through the same middleware
// as every path, one route, "page", in the metrics, and the rate limit of
// every other path, and through the same answer and error writers as the
// API.

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
}

// langPages are the pages of one dataset in one language: the site, and
// the answers of the pages rendered at load, prepared (ETag and gzip) like
// the documents.
type langPages struct {
	site                                            *pages.Site
	home, parties, districts, candidates, reference answer
}

// buildPages renders the pages of ds that depend on it alone, the home
// page showing idx, its index, and prepares their answers.
func buildPages(ds *dataset.Dataset, idx index) *sitePages {
	a := idx.Attribution
	about := pages.About{
		Title: idx.Title, Description: deref(idx.Description), Version: idx.Version,
		License: idx.License, LicenseURL: deref(idx.LicenseURL), PublishedAt: deref(idx.PublishedAt),
		CoverageSummary: deref(idx.Coverage.Summary), CoverageNotes: idx.Coverage.Notes,
		Publisher: a.Name, PublisherURL: a.URL, AboutURL: deref(a.AboutURL), HowToCredit: a.HowToCredit,
		CSV: true, // served beside the pages (download.go)
	}
	sp := &sitePages{}
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

func deref(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}

// prepared answers GET and HEAD for a page rendered at load, in the
// language of index li.
func (s *Server) prepared(li int, pick func(*langPages) *answer) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header()["Content-Security-Policy"] = cspValue
		s.writeAnswer(w, r, pick(s.snap.Load().pages.lang[li]))
	})
}

var varyLanguageValue = []string{"Accept-Encoding, Accept-Language"}

// negotiatedHome answers /: the English home page, or a redirect to the
// Maltese one for a browser that ranks Maltese above English.
func (s *Server) negotiatedHome(w http.ResponseWriter, r *http.Request) {
	h := w.Header()
	h["Vary"] = varyLanguageValue
	if lang := pages.Negotiate(r.Header["Accept-Language"]); lang != pages.English {
		h["Location"] = []string{lang.Home}
		writeHead(w, http.StatusFound, nil, s.cacheControlValue, nil)
		return
	}
	h["Content-Security-Policy"] = cspValue
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

// writeRendered answers with a page rendered for this request, in one
// encoding, without gzip: its tag is made of what decides its bytes, so
// that a client holding it gets 304 before anything is rendered.
func (s *Server) writeRendered(w http.ResponseWriter, r *http.Request, p pages.Rendered) {
	a := &answer{contentType: htmlValue, etag: `"` + p.Tag + `"`}
	if !noneMatch(r.Header["If-None-Match"], a.etag) {
		a.body = p.Render() // writeAnswer answers 304 without reading it
	}
	s.writeAnswer(w, r, a)
}

// partyPage answers /parties/{slug_or_id}, rendered from the record.
func (s *Server) partyPage(w http.ResponseWriter, r *http.Request) {
	w.Header()["Content-Security-Policy"] = cspValue
	p := s.snap.Load().pages.lang[langOf(r.URL.Path)]
	i, ok := p.site.Lookup(dataset.Parties, pathKey(r, "slug_or_id"))
	if !ok {
		writePageError(w, r, http.StatusNotFound, p.site.PartyNotFound())
		return
	}
	s.writeRendered(w, r, p.site.Party(i))
}

// districtPage answers /districts/{number}, rendered from the records.
func (s *Server) districtPage(w http.ResponseWriter, r *http.Request) {
	w.Header()["Content-Security-Policy"] = cspValue
	p := s.snap.Load().pages.lang[langOf(r.URL.Path)]
	i, ok := p.site.Lookup(dataset.Districts, pathKey(r, "number"))
	if !ok {
		writePageError(w, r, http.StatusNotFound, p.site.NotFound)
		return
	}
	s.writeRendered(w, r, p.site.District(i))
}

// candidatePage answers /candidates/{slug_or_id}, rendered from the record.
func (s *Server) candidatePage(w http.ResponseWriter, r *http.Request) {
	w.Header()["Content-Security-Policy"] = cspValue
	p := s.snap.Load().pages.lang[langOf(r.URL.Path)]
	i, ok := p.site.Lookup(dataset.Candidates, pathKey(r, "slug_or_id"))
	if !ok {
		writePageError(w, r, http.StatusNotFound, p.site.CandidateNotFound())
		return
	}
	s.writeRendered(w, r, p.site.Candidate(i))
}

// candidatesPage answers /candidates with the API's filters: the query goes
// to the same dataset.Query as the API's, so a refused value gets the API's
// message, on the page, with status 400.
func (s *Server) candidatesPage(w http.ResponseWriter, r *http.Request) {
	w.Header()["Content-Security-Policy"] = cspValue
	snap := s.snap.Load()
	p := snap.pages.lang[langOf(r.URL.Path)]
	params := parseQuery(r.URL.RawQuery)
	res, err := snap.ds.Query(dataset.Candidates, params)
	if err != nil {
		writeError(w, r, err, func(perr *dataset.ParamError) []byte {
			return p.site.CandidatesRefused(params, perr, r.URL.RawQuery)
		})
		return
	}
	if page := p.site.CandidatesFor(res, params); page != nil {
		s.writeRendered(w, r, *page)
		return
	}
	s.writeAnswer(w, r, &p.candidates)
}

// districtsPage answers /districts. The query, read as the API reads it,
// goes to the same dataset.Query, so a locality gets the districts the API
// gives for it, and a refused one the API's message with status 400.
func (s *Server) districtsPage(w http.ResponseWriter, r *http.Request) {
	w.Header()["Content-Security-Policy"] = cspValue
	snap := s.snap.Load()
	p := snap.pages.lang[langOf(r.URL.Path)]
	params := parseQuery(r.URL.RawQuery)
	res, err := snap.ds.Query(dataset.Districts, params)
	if err != nil {
		writeError(w, r, err, func(perr *dataset.ParamError) []byte {
			return p.site.DistrictsRefused(params, perr, r.URL.RawQuery)
		})
		return
	}
	if page := p.site.DistrictsFor(snap.answers.Of(res), params); page != nil {
		s.writeRendered(w, r, *page)
		return
	}
	s.writeAnswer(w, r, &p.districts)
}

// searchPage answers /search: the form, and with q the candidates whose
// names hold it, from the same dataset.Query as the API's q filter; a
// refused q gets its sentence beside the field, with status 400.
func (s *Server) searchPage(w http.ResponseWriter, r *http.Request) {
	w.Header()["Content-Security-Policy"] = cspValue
	snap := s.snap.Load()
	p := snap.pages.lang[langOf(r.URL.Path)]
	params := parseQuery(r.URL.RawQuery)
	q := ""
	if vs := params["q"]; len(vs) > 0 {
		q = strings.TrimSpace(vs[0])
	}
	var res dataset.Result
	if q != "" || len(params["q"]) > 1 {
		var err error
		res, err = snap.ds.Query(dataset.Candidates, dataset.Params{"q": params["q"], "limit": {strconv.Itoa(dataset.MaxLimit)}})
		if err != nil {
			writeError(w, r, err, func(perr *dataset.ParamError) []byte {
				return p.site.SearchRefused(q, perr)
			})
			return
		}
	}
	s.writeRendered(w, r, p.site.Search(res, q))
}
