package server

import (
	"net/http"
	"strings"

	"ballot/dataset"
)

// BasePath is where every endpoint of version 1 of the API lives.
const BasePath = "/api/public/v1"

// endpoint is one path of the public API: everything the server knows of it
// but its OpenAPI entry, which TestEndpointsMatchOpenAPI holds to this table.
type endpoint struct {
	path    string // under BasePath
	name    string // the route in metrics and logs
	counter uint8  // the rate-limit counter it spends
	// handler answers GET and HEAD; q is what exchange worked out about
	// the request.
	handler     func(s *Server, w http.ResponseWriter, r *http.Request, q *request)
	mediaType   string      // of its successful answers, for the index
	description string      // for the index
	parameters  []parameter // for the index
}

// The rate-limit counters: one for each collection, and one shared by every
// other path.
const (
	partiesCounter uint8 = iota
	districtsCounter
	candidatesCounter
	sharedCounter
)

// endpoints is every endpoint of the public API. The routing, the route
// names of metrics and logs, the rate-limit counters and the index's list
// of endpoints are all made from it: a new endpoint is a row here, its
// handler and its entry in openapi.json.
var endpoints = [...]endpoint{
	{"/parties", "parties", partiesCounter, collection(dataset.Parties), "application/json",
		"Every party, ordered by name, then id.", nil},
	{"/districts", "districts", districtsCounter, collection(dataset.Districts), "application/json",
		"The 13 electoral districts with their localities, ordered by number; with locality, only the districts holding it.", []parameter{
			{"locality", "A locality's name, English name or slug, compared with letter case, accents, spaces and punctuation ignored: keeps the districts holding it (two for a council split between districts).", nil},
		}},
	{"/candidates", "candidates", candidatesCounter, collection(dataset.Candidates), "application/json",
		"Candidates, ordered by their primary district's number, family name, given name, then id; the filters combine with AND.", []parameter{
			{"district", "A district number from 1 to 13, or a district UUID: keeps the candidates whose primary_district_id is that district.", nil},
			{"party", "A party slug or a party UUID, in any letter case: keeps the candidates of that party.", nil},
			{"limit", "An integer from 1 to 500: returns at most that many candidates, the first of the order from offset on.", &defaultLimit},
			{"offset", "An integer from 0 to meta.total: skips that many of the matching candidates; the Link header names the next page.", &defaultOffset},
		}},
	{"/parties/{slug_or_id}", "party", partiesCounter, record(dataset.Parties), "application/json",
		"One party by its slug or id, in any letter case; 404 when none has it.", []parameter{
			{"slug_or_id", "A party slug or a party UUID, in any letter case.", nil},
		}},
	{"/districts/{number_or_id}", "district", districtsCounter, record(dataset.Districts), "application/json",
		"One district by its number or id; 404 when none has it.", []parameter{
			{"number_or_id", "A district number from 1 to 13 in decimal digits (05 is 5), or a district UUID in any letter case.", nil},
		}},
	{"/candidates/{slug_or_id}", "candidate", candidatesCounter, record(dataset.Candidates), "application/json",
		"One candidate by slug or id, in any letter case; 404 when none has it.", []parameter{
			{"slug_or_id", "A candidate slug or a candidate UUID, in any letter case.", nil},
		}},
	{"/", "index", sharedCounter, document(func(d *documents) *answer { return &d.index }), "application/json",
		"This index: the dataset, whom to credit, and the endpoints.", nil},
	{"/openapi.json", "openapi", sharedCounter, document(func(d *documents) *answer { return &d.openAPI }), "application/json",
		"The OpenAPI 3.1 description of the whole API.", nil},
	{"/catalog.jsonld", "catalog", sharedCounter, document(func(d *documents) *answer { return &d.catalog }), "application/ld+json",
		"A DCAT-AP 3 catalogue of the three collections, for open-data portals.", nil},
}

var defaultLimit = dataset.DefaultLimit

var defaultOffset = 0

// otherRoute is the route of every path that is no endpoint's, and
// pageRoute that of the pages for people (pages.go).
const (
	otherRoute = len(endpoints)
	pageRoute  = len(endpoints) + 1
)

// The routes named in metrics and logs: the endpoints', "other" and
// "page", a fixed set, so that no client can grow the metrics.
var routeNames = func() (names [len(endpoints) + 2]string) {
	for i, e := range endpoints {
		names[i] = e.name
	}
	names[otherRoute] = "other"
	names[pageRoute] = "page"
	return names
}()

// routeByPath numbers the endpoints by their full path.
var routeByPath = func() map[string]int {
	m := make(map[string]int, len(endpoints))
	for i, e := range endpoints {
		m[BasePath+e.path] = i
	}
	return m
}()

// routeByPrefix numbers the endpoints whose path ends in a parameter
// segment ("/parties/{slug_or_id}") by their full path up to that segment
// ("/api/public/v1/parties/"): the segment is the record's key.
var routeByPrefix = func() map[string]int {
	m := map[string]int{}
	for i, e := range endpoints {
		if prefix, ok := keyPrefix(e.path); ok {
			m[BasePath+prefix] = i
		}
	}
	return m
}()

// keyPrefix returns path up to its last segment when that segment is a
// parameter, "{name}".
func keyPrefix(path string) (string, bool) {
	i := strings.LastIndexByte(path, '/')
	last := path[i+1:]
	if len(last) < 3 || last[0] != '{' || last[len(last)-1] != '}' {
		return "", false
	}
	return path[:i+1], true
}

// routes builds the whole handler: the endpoints, then the middleware.
func (s *Server) routes() http.Handler {
	// The middleware, from the innermost, nearest the endpoints, outwards:
	// a request meets them from the bottom of this list up.
	h := s.route
	h = answerPreflight(h)  // OPTIONS: 204, after the rate-limit headers are set
	h = s.limitRate(h)      // per client and endpoint; headers on every response
	h = allowCrossOrigin(h) // CORS and fixed headers on every response
	return s.exchange(h)    // the client's address, its time and route, panic recovery, metrics, access log
}

// route sends a request to its endpoint's handler. Paths are matched
// exactly, as sent, but for a record's key (see routeOf): an unclean path ("/a/../b", "//x") or one with a
// trailing slash more or less is no endpoint, and gets a 404 problem rather
// than a redirect.
func (s *Server) route(w http.ResponseWriter, r *http.Request, q *request) {
	switch {
	case r.Method == http.MethodConnect:
		// CONNECT names a host, not a path: no endpoint could answer it.
		handleMethodNotAllowed(w)
		return
	case hasEncodedSlash(r):
		handleNotFound(w)
		return
	}
	// Caches key every answer from here on by Accept-Encoding, errors
	// included, so one rule covers whatever a path answers.
	w.Header()["Vary"] = varyEncValue
	pages := s.pages.Load()
	if q.route == pageRoute && pages == nil { // the pages are off
		q.route = otherRoute
	}
	switch {
	case q.route == otherRoute:
		s.notFound(w, r)
	case r.Method != http.MethodGet && r.Method != http.MethodHead:
		handleMethodNotAllowed(w)
	case q.route == pageRoute:
		s.servePage(w, r, q, pages)
	default:
		endpoints[q.route].handler(s, w, r, q)
	}
}

// routeOf numbers the endpoint a request is for, as an index in endpoints,
// or pageRoute, or otherRoute. A path with an encoded slash is no
// endpoint's and no page's.
func routeOf(r *http.Request) int {
	if hasEncodedSlash(r) {
		return otherRoute
	}
	if i, ok := routeByPath[r.URL.Path]; ok {
		return i
	}
	// A record's path: its key is the last segment, which is not empty
	// (".../parties/" is no record), and the rest names the collection
	// exactly (".../parties/a/b" is nothing).
	if i := strings.LastIndexByte(r.URL.Path, '/'); i >= 0 && i < len(r.URL.Path)-1 {
		if route, ok := routeByPrefix[r.URL.Path[:i+1]]; ok {
			return route
		}
	}
	if isPagePath(r.URL.Path) {
		return pageRoute
	}
	return otherRoute
}

// hasEncodedSlash reports whether the request's path holds "%2F": a slash
// inside a segment, not a separator (RFC 3986), so "/api/public/v1%2Fparties"
// is not the parties. net/http keeps the path as sent in RawPath whenever it
// holds one.
func hasEncodedSlash(r *http.Request) bool {
	return r.URL.RawPath != "" && strings.Contains(strings.ToLower(r.URL.RawPath), "%2f")
}

// counterOf is the rate-limit counter a route spends.
func counterOf(route int) uint8 {
	if route >= len(endpoints) { // other paths and the pages
		return sharedCounter
	}
	return endpoints[route].counter
}
