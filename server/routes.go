package server

import (
	"net/http"
	"strings"

	"github.com/gorilla/mux"

	"ballot/dataset"
)

// BasePath is where every endpoint of version 1 of the API lives.
const BasePath = "/api/public/v1"

// routes builds the whole handler: every route, then the middleware.
func (s *Server) routes() http.Handler {
	r := mux.NewRouter()
	// An unclean path ("/a/../b", "//x") is not a route: it gets a 404
	// problem rather than a bare redirect.
	r.SkipClean(true)
	collections := map[string]http.Handler{}
	for _, c := range dataset.Collections {
		path := BasePath + "/" + string(c)
		collections[path] = s.handleCollection(c)
		r.Handle(path, collections[path]).Methods(http.MethodGet, http.MethodHead)
	}
	r.HandleFunc(BasePath+"/", s.handleIndex).Methods(http.MethodGet, http.MethodHead)
	r.HandleFunc(BasePath+"/openapi.json", s.handleOpenAPI).Methods(http.MethodGet, http.MethodHead)
	r.HandleFunc(BasePath+"/catalog.jsonld", s.handleCatalog).Methods(http.MethodGet, http.MethodHead)
	r.NotFoundHandler = http.HandlerFunc(handleNotFound)
	r.MethodNotAllowedHandler = http.HandlerFunc(handleMethodNotAllowed)
	others := compressGzip(r) // gzip when the client accepts it

	// The middleware, from the innermost, nearest the routes, outwards: a
	// request meets them from the bottom of this list up.
	var h http.Handler = http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch {
		case r.Method == http.MethodConnect:
			// CONNECT names a host, not a path: no route could answer it.
			handleMethodNotAllowed(w, r)
			return
		case hasEncodedSlash(r):
			handleNotFound(w, r)
			return
		}
		// The collections carry nearly all the traffic and encode their
		// own answers, gzip included: a GET or HEAD of one goes straight
		// to its handler, past the router and the compressor.
		if c, ok := collections[r.URL.Path]; ok && (r.Method == http.MethodGet || r.Method == http.MethodHead) {
			c.ServeHTTP(w, r)
			return
		}
		others.ServeHTTP(w, r)
	})
	h = answerPreflight(h)  // OPTIONS: 204, after the rate-limit headers are set
	h = s.limitRate(h)      // per client and endpoint; headers on every response
	h = allowCrossOrigin(h) // CORS and fixed headers on every response
	h = s.exchange(h)       // the client's address, panic recovery, metrics, access log
	return h
}

// The routes named in metrics and logs: a fixed set, so that no client can
// grow the metrics.
var routeNames = [...]string{"parties", "districts", "candidates", "index", "openapi", "catalog", "other"}

// route numbers a path for metrics and logs, as an index in routeNames.
func route(path string) int {
	switch path {
	case BasePath + "/parties":
		return 0
	case BasePath + "/districts":
		return 1
	case BasePath + "/candidates":
		return 2
	case BasePath + "/":
		return 3
	case BasePath + "/openapi.json":
		return 4
	case BasePath + "/catalog.jsonld":
		return 5
	}
	return len(routeNames) - 1
}

// routeOf numbers the route of a request, as route does for its path, but
// a path with an encoded slash is no route's.
func routeOf(r *http.Request) int {
	if hasEncodedSlash(r) {
		return len(routeNames) - 1
	}
	return route(r.URL.Path)
}

// hasEncodedSlash reports whether the request's path holds "%2F": a slash
// inside a segment, not a separator (RFC 3986), so "/api/public/v1%2Fparties"
// is not the parties. net/http keeps the path as sent in RawPath whenever it
// holds one.
func hasEncodedSlash(r *http.Request) bool {
	return r.URL.RawPath != "" && strings.Contains(strings.ToLower(r.URL.RawPath), "%2f")
}

// bucket numbers the rate-limit counter of a route: one per collection, and
// one for every other path.
func bucket(route int) uint8 {
	return uint8(min(route, len(dataset.Collections)))
}
