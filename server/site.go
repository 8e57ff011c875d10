package server

import (
	"net/http"

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

// sitePages are the pages of one dataset: the site, and the answers of the
// pages rendered at load, prepared (ETag and gzip) like the documents.
type sitePages struct {
	site                                            *pages.Site
	home, parties, districts, candidates, reference answer
	party                                           []answer // by index in Parties
}

// buildPages renders the pages of ds that depend on it alone, the home
// page showing idx, its index, and prepares their answers.
func buildPages(ds *dataset.Dataset, idx index) *sitePages {
	a := idx.Attribution
	site, err := pages.New(ds, pages.About{
		Title: idx.Title, Description: deref(idx.Description), Version: idx.Version,
		License: idx.License, LicenseURL: deref(idx.LicenseURL), PublishedAt: deref(idx.PublishedAt),
		CoverageSummary: deref(idx.Coverage.Summary), CoverageNotes: idx.Coverage.Notes,
		Publisher: a.Name, PublisherURL: a.URL, AboutURL: deref(a.AboutURL), HowToCredit: a.HowToCredit,
	}, BasePath, openAPI)
	if err != nil {
		panic("server: openapi.json: " + err.Error()) // embedded, and tested
	}
	p := &sitePages{
		site:       site,
		home:       prepare(htmlValue, site.Home),
		parties:    prepare(htmlValue, site.Parties),
		districts:  prepare(htmlValue, site.Districts),
		candidates: prepare(htmlValue, site.Candidates),
		reference:  prepare(htmlValue, site.Reference),
	}
	for _, b := range site.PartyPages {
		p.party = append(p.party, prepare(htmlValue, b))
	}
	return p
}

func deref(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}

// prepared answers GET and HEAD for a page rendered at load.
func (s *Server) prepared(pick func(*sitePages) *answer) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header()["Content-Security-Policy"] = cspValue
		s.writeAnswer(w, r, pick(s.snap.Load().pages))
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

// partyPage answers /parties/{slug_or_id}, prepared at load.
func (s *Server) partyPage(w http.ResponseWriter, r *http.Request) {
	w.Header()["Content-Security-Policy"] = cspValue
	p := s.snap.Load().pages
	i, ok := p.site.Lookup(dataset.Parties, pathKey(r, "slug_or_id"))
	if !ok {
		writePageError(w, r, http.StatusNotFound, p.site.PartyNotFound())
		return
	}
	s.writeAnswer(w, r, &p.party[i])
}

// candidatePage answers /candidates/{slug_or_id}, rendered from the record.
func (s *Server) candidatePage(w http.ResponseWriter, r *http.Request) {
	w.Header()["Content-Security-Policy"] = cspValue
	p := s.snap.Load().pages
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
	params := parseQuery(r.URL.RawQuery)
	res, err := snap.ds.Query(dataset.Candidates, params)
	if err != nil {
		writeError(w, r, err, func(perr *dataset.ParamError) []byte {
			return snap.pages.site.CandidatesRefused(params, perr, r.URL.RawQuery)
		})
		return
	}
	if page := snap.pages.site.CandidatesFor(res, params); page != nil {
		s.writeRendered(w, r, *page)
		return
	}
	s.writeAnswer(w, r, &snap.pages.candidates)
}

// districtsPage answers /districts. The query, read as the API reads it,
// goes to the same dataset.Query, so a locality gets the districts the API
// gives for it, and a refused one the API's message with status 400.
func (s *Server) districtsPage(w http.ResponseWriter, r *http.Request) {
	w.Header()["Content-Security-Policy"] = cspValue
	snap := s.snap.Load()
	params := parseQuery(r.URL.RawQuery)
	res, err := snap.ds.Query(dataset.Districts, params)
	if err != nil {
		writeError(w, r, err, func(perr *dataset.ParamError) []byte {
			return snap.pages.site.DistrictsRefused(params, perr, r.URL.RawQuery)
		})
		return
	}
	if page := snap.pages.site.DistrictsFor(res, params); page != nil {
		s.writeRendered(w, r, *page)
		return
	}
	s.writeAnswer(w, r, &snap.pages.districts)
}
