package server

import (
	"net/http"
	"net/url"
	"strings"

	"github.com/gorilla/mux"

	"ballot/dataset"
	"ballot/server/pages"
)

// BasePath is where every endpoint of version 1 of the API lives.
const BasePath = "/api/public/v1"

// ElectionsPath is where the elections of the archive served are listed;
// under it, each election's own path (ElectionsPath/2017) is its record,
// and the paths of its collections follow it (ElectionsPath/2017/parties).
const ElectionsPath = BasePath + "/elections"

// electionVar is the path variable that names an election, by slug or id,
// in the paths under ElectionsPath.
const electionVar = "election"

// electionPrefix is what the path of an endpoint of one election has
// before the endpoint's path under BasePath.
const electionPrefix = "/elections/{" + electionVar + "}"

// endpoint is one path of the public API: everything the server knows of it
// but its OpenAPI entry, which TestEndpointsMatchOpenAPI holds to this table.
type endpoint struct {
	path    string       // under BasePath, as a gorilla/mux template
	name    string       // the route in metrics and logs
	counter int          // the rate-limit counter it spends
	handler http.Handler // answers GET and HEAD
	// For the index.
	mediaType, description string
	parameters             []parameter
	// perElection is set on the endpoints of an election's collections:
	// each is served at its path, for the current election, and at that
	// path under an election's (electionPrefix), for that election, by
	// the same handler, which reads the election from the path.
	perElection bool
}

// parameter is a query or path parameter, as the index lists it.
type parameter struct {
	Name        string `json:"name"`
	Description string `json:"description"`
	Default     *int   `json:"default"`
}

// A record's key is one segment of a path, not empty: gorilla/mux's
// default pattern for a variable, [^/]+, matched against the path as sent
// (UseEncodedPath). An encoded slash in it ("%2F") is a slash inside a
// segment, not a separator, so ".../parties/a%2Fb" is no record's path:
// noEncodedSlash refuses it.
func noEncodedSlash(r *http.Request, _ *mux.RouteMatch) bool {
	return r.URL.RawPath == "" || !hasEncodedSlash(r.URL.RawPath)
}

// exactPath matches a path without variables. It is what gorilla/mux's
// template of that path does, ^path$ on the path as sent (UseEncodedPath),
// without the regular expression: a route tried and passed over costs a
// comparison, and the route that matches has no variables to extract
// (the regular expression's match allocated its indexes on every request).
//
// A path sent without escapes, nearly every one, is compared as it is:
// when it needs none, it is its own escaped form, and when it does it
// cannot be path, which needs none either.
func exactPath(path string) mux.MatcherFunc {
	if (&url.URL{Path: path}).EscapedPath() != path || strings.Contains(path, "%") {
		panic("server: the route " + path + " is no path as sent")
	}
	return func(r *http.Request, _ *mux.RouteMatch) bool {
		if r.URL.RawPath == "" {
			return r.URL.Path == path
		}
		return r.URL.EscapedPath() == path
	}
}

// electionPath matches the path of an election (collection "") or of
// one of its collections or its national totals, whatever the election:
// ElectionsPath, a segment that is not empty, then collection
// ("/candidates"), as sent, with no encoded slash. It is what gorilla/mux's template of that path, with the
// election as a variable, matches, but it takes no variable: the handler
// reads the election from the path (snapshot.election), so that the
// request is not copied to carry its variables (five allocations on each
// request, which a list of today's paths does not make either).
func electionPath(collection string) mux.MatcherFunc {
	return func(r *http.Request, _ *mux.RouteMatch) bool {
		if r.URL.RawPath != "" { // canonicalPath left an encoded slash
			return false
		}
		key, ok := electionKey(r.URL.Path)
		return ok && key != "" && r.URL.Path[len(ElectionsPath)+1+len(key):] == collection
	}
}

// electionKey is the election a path under ElectionsPath names, by slug
// or id: its segment after ElectionsPath, as the path holds it
// (unescaped); false for a path outside ElectionsPath.
func electionKey(path string) (string, bool) {
	rest, ok := strings.CutPrefix(path, ElectionsPath+"/")
	if !ok {
		return "", false
	}
	key, _, _ := strings.Cut(rest, "/")
	return key, true
}

// The rate-limit counters: one for each collection, numbered as in
// dataset.Table, and one shared by every other path.
var sharedCounter = len(dataset.Table)

// endpoints lists every endpoint of the public API: the routing, the route
// names of metrics and logs, the rate-limit counters and the index's list
// of endpoints are all made from it. Each collection of dataset.Table gives
// two rows, its list and one record by its key, in the table's order, with
// the national totals of the results before the records (a route before a
// record's is tried first), each served for the current election and for
// each election by name (perElection); the elections and the people
// follow, then the documents. A new endpoint is a row here, its handler
// and its entry in openapi.json.
func (s *Server) endpoints() []endpoint {
	var list []endpoint
	for i, c := range dataset.Table {
		params := make([]parameter, len(c.Params))
		for j, p := range c.Params {
			params[j] = parameter{p.Name, p.Doc, p.Default}
		}
		list = append(list, endpoint{"/" + string(c.Name), string(c.Name), i, s.collection(c.Name),
			"application/json", c.Doc, params, true})
	}
	list = append(list, s.nationalEndpoint())
	for i, c := range dataset.Table {
		list = append(list, endpoint{"/" + string(c.Name) + "/{" + c.Key + "}", c.Record, i, s.record(c.Name, c.Key),
			"application/json", c.RecordDoc, []parameter{{c.Key, c.KeyDoc, nil}}, true})
	}
	list = append(list, s.archiveEndpoints()...)
	return append(list,
		endpoint{"/", "index", sharedCounter, s.document(func(d *documents) *answer { return &d.index }),
			"application/json", "This index: the current election's dataset, whom to credit, the elections and the endpoints.", nil, false},
		endpoint{"/openapi.json", "openapi", sharedCounter, s.document(func(d *documents) *answer { return &d.openAPI }),
			"application/json", "The OpenAPI 3.1 description of the whole API.", nil, false},
		endpoint{"/catalog.jsonld", "catalog", sharedCounter, s.document(func(d *documents) *answer { return &d.catalog }),
			"application/ld+json", "A DCAT-AP 3 catalogue of the collections, the current election's and each election's, for open-data portals.", nil, false},
	)
}

// pageRoute is the route name of every page for people in metrics and logs,
// and otherRoute that of every path that is no endpoint's and no page's:
// with the endpoints', a fixed set, so that no client can grow the
// metrics.
const (
	pageRoute  = "page"
	otherRoute = "other"
)

// routes builds the public listener's router, once, at start-up. Every path
// is a gorilla/mux route whose handler is the middleware chain of its route
// (chain, in middleware.go) around the handler that answers it. Paths
// are matched exactly, as sent: an unclean path ("/a/../b", "//x") or one
// with a trailing slash more or less is no route's, and gets a 404 rather
// than a redirect (SkipClean), and "%2F" is no separator (UseEncodedPath).
// Methods other than GET, HEAD and OPTIONS get 405 on every route.
func (s *Server) routes() *mux.Router {
	r := mux.NewRouter()
	r.SkipClean(true)
	r.UseEncodedPath()
	methods := []string{http.MethodGet, http.MethodHead, http.MethodOptions}
	// A wrong method on a route's path is answered by the router's
	// MethodNotAllowedHandler, counted and named as the route's requests.
	wrongMethod := map[*mux.Route]http.Handler{}
	handle := func(path, name string, counter int, page *pageMark, h http.Handler) *mux.Route {
		var route *mux.Route
		collection, ofElection := strings.CutPrefix(path, BasePath+electionPrefix)
		switch {
		case ofElection && !strings.Contains(collection, "{"):
			route = r.NewRoute().MatcherFunc(electionPath(collection)).Handler(s.chain(name, counter, page, h)).Methods(methods...)
		case strings.Contains(path, "{"):
			route = r.Handle(path, s.chain(name, counter, page, h)).Methods(methods...).MatcherFunc(noEncodedSlash)
		default:
			route = r.NewRoute().MatcherFunc(exactPath(path)).Handler(s.chain(name, counter, page, h)).Methods(methods...)
		}
		wrongMethod[route] = s.chain(name, counter, page, http.HandlerFunc(s.methodNotAllowed))
		if name != pageRoute {
			route.Name(name)
		}
		return route
	}
	// The collections first: mux tries the routes in order. An election's
	// collections are the same endpoints, under its path: the same name in
	// the metrics and the same rate-limit counter.
	for _, e := range s.endpointList {
		handle(BasePath+e.path, e.name, e.counter, nil, e.handler)
		if e.perElection {
			handle(BasePath+electionPrefix+e.path, e.name, e.counter, nil, e.handler)
		}
		if e.path == "/" {
			// The index answers at BasePath without its trailing slash
			// too, with the same body, rather than a redirect: one round
			// trip, and the path a person types most often just works.
			handle(BasePath, e.name, e.counter, nil, e.handler)
		}
	}
	if s.opts.Pages {
		s.pageRoutes(handle)
	}
	// Neither is met by a route's chain: the paths that are no route's have
	// their own, and a wrong method gets that of the route whose path it
	// names, found by matching the request as a GET (which every route
	// answers), on this rare path only.
	r.NotFoundHandler = s.chain(otherRoute, sharedCounter, nil, s.markBrowser(http.HandlerFunc(s.notFound)))
	r.MethodNotAllowedHandler = http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		get := *req
		get.Method = http.MethodGet
		var m mux.RouteMatch
		if r.Match(&get, &m) && wrongMethod[m.Route] != nil {
			wrongMethod[m.Route].ServeHTTP(w, req)
			return
		}
		r.NotFoundHandler.ServeHTTP(w, req) // not reached: every route answers GET
	})
	return r
}

// handleFunc registers a route on the router routes builds: its path,
// its name in metrics and logs, its rate-limit counter and, on a page's
// route, its page.
type handleFunc func(path, name string, counter int, page *pageMark, h http.Handler) *mux.Route

// pageRoutes registers the pages' routes with handle: each page in each
// language, the CSV downloads, the stylesheet and the icon.
func (s *Server) pageRoutes(handle handleFunc) {
	// Each page's route is marked with its page (markPage).
	page := func(path string, mark *pageMark, h http.Handler) *mux.Route {
		return handle(path, pageRoute, sharedCounter, mark, h)
	}
	// Each page in each language: English at its path, Maltese
	// under /mt; / chooses by Accept-Language (docs/PAGES.md, "Languages"),
	// redirecting a browser that ranks Maltese first.
	page(pages.HomePath, notADocument, http.HandlerFunc(s.languageRedirect)).MatcherFunc(prefersOtherLanguage)
	page(pages.HomePath, otherPageMark, http.HandlerFunc(s.englishHome))
	// An election's pages are today's, under its path (its home with a
	// trailing slash, as a language's is), by the same handlers, which
	// read the election from the path (snapshot.pagesOf); they come
	// after today's, which mux tries first.
	electionPages := func(prefix string) {
		page(prefix+pages.PartiesPath, otherPageMark, s.prepared(func(p *langPages) *answer { return &p.parties }))
		page(prefix+pages.PartyPath, partyMark, http.HandlerFunc(s.partyPage))
		page(prefix+pages.DistrictsPath, districtsMark, http.HandlerFunc(s.districtsPage))
		page(prefix+pages.DistrictPath, otherPageMark, http.HandlerFunc(s.districtPage))
		page(prefix+pages.CandidatesPath, candidatesMark, http.HandlerFunc(s.candidatesPage))
		page(prefix+pages.CandidatePath, candidateMark, http.HandlerFunc(s.candidatePage))
		page(prefix+pages.SearchPath, searchMark, http.HandlerFunc(s.searchPage))
		page(prefix+pages.ResultsPath, otherPageMark, s.prepared(func(p *langPages) *answer { return &p.results }))
	}
	// The CSV downloads, in one language: their columns are the
	// API's fields.
	downloads := func(prefix string) {
		page(prefix+PartiesCSVPath, notADocument, s.download(dataset.Parties))
		page(prefix+DistrictsCSVPath, notADocument, s.download(dataset.Districts))
		page(prefix+CandidatesCSVPath, notADocument, s.download(dataset.Candidates))
		page(prefix+SheetCSVPath, notADocument, http.HandlerFunc(s.sheetDownload))
	}
	for _, l := range pages.Langs {
		page(l.Home, otherPageMark, s.prepared(func(p *langPages) *answer { return &p.home }))
		page(strings.TrimSuffix(l.Home, "/"), notADocument, s.redirect(l.Home))
		electionPages(l.Prefix)
		page(l.Prefix+pages.ReferencePath, otherPageMark, s.prepared(func(p *langPages) *answer { return &p.reference }))
	}
	downloads("")
	// The stylesheet and the icon are counted by no rate limit: a
	// page view spends one request.
	asset := func(path string, a *answer) {
		handle(path, pageRoute, uncounted, nil, s.asset(a))
	}
	asset(pages.StylePath, &styleSheet)
	asset(pages.IconPath, &favicon)
	asset(pages.StyleURL, &styleSheetForever)
	asset(pages.IconURL, &faviconForever)
	// The archive's pages, and each election's.
	for li, l := range pages.Langs {
		page(l.Prefix+pages.ElectionsPath, otherPageMark, s.archivePage(li, func(p *archiveLang) *answer { return &p.elections }))
		page(l.Prefix+pages.HistoryPath, otherPageMark, s.archivePage(li, func(p *archiveLang) *answer { return &p.history }))
		page(l.Prefix+pages.PeoplePath, peopleMark, http.HandlerFunc(s.peoplePage))
		page(l.Prefix+pages.PersonPath, personMark, http.HandlerFunc(s.personPage))
		election := l.Prefix + pages.ElectionPrefix
		page(election+pages.HomePath, otherPageMark, s.prepared(func(p *langPages) *answer { return &p.home }))
		page(election, notADocument, http.HandlerFunc(s.electionRedirect))
		electionPages(election)
	}
	downloads(pages.ElectionPrefix)
}

// canonicalPath gives mux the path a request names: a path sent with
// escapes of characters that need none ("/api/public/v1/p%61rties") names
// the same resource as without them (RFC 3986, 6.2.2.2). An encoded slash
// is kept as sent: it is no separator. Requests without escapes, nearly
// all, are not touched.
func canonicalPath(r *http.Request) *http.Request {
	if r.URL.RawPath == "" || hasEncodedSlash(r.URL.RawPath) {
		return r
	}
	u := *r.URL
	u.RawPath = ""
	r2 := *r
	r2.URL = &u
	return &r2
}

// hasEncodedSlash reports whether an escaped path holds "%2F".
func hasEncodedSlash(path string) bool {
	return strings.Contains(path, "%2F") || strings.Contains(path, "%2f")
}

// pathKey returns the record's key a route's path holds, unescaped.
func pathKey(r *http.Request, name string) string {
	key := mux.Vars(r)[name]
	if strings.IndexByte(key, '%') >= 0 {
		if k, err := url.PathUnescape(key); err == nil {
			return k
		}
	}
	return key
}
