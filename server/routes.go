package server

import (
	"io"
	"net/http"

	"github.com/gorilla/handlers"
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
	for _, c := range dataset.Collections {
		r.Handle(BasePath+"/"+string(c), s.handleCollection(c)).Methods(http.MethodGet, http.MethodHead)
	}
	r.HandleFunc(BasePath+"/", s.handleIndex).Methods(http.MethodGet, http.MethodHead)
	r.HandleFunc(BasePath+"/openapi.json", s.handleOpenAPI).Methods(http.MethodGet, http.MethodHead)
	r.HandleFunc(BasePath+"/catalog.jsonld", s.handleCatalog).Methods(http.MethodGet, http.MethodHead)
	r.NotFoundHandler = http.HandlerFunc(handleNotFound)
	r.MethodNotAllowedHandler = http.HandlerFunc(handleMethodNotAllowed)

	// The middleware, from the innermost, nearest the routes, outwards: a
	// request meets them from the bottom of this list up.
	var h http.Handler = r
	h = compressGzip(h)     // gzip when the client accepts it
	h = answerPreflight(h)  // OPTIONS: 204, after the rate-limit headers are set
	h = s.limitRate(h)      // per client and endpoint; headers on every response
	h = allowCrossOrigin(h) // CORS and fixed headers on every response
	h = s.recoverPanics(h)  // a panic anywhere inside becomes a 500 problem
	// gorilla/handlers' logging handler captures the status and size of
	// every answer; s.observe turns them into metrics and the access log.
	h = handlers.CustomLoggingHandler(io.Discard, h, s.observe)
	h = s.resolveClient(h) // the client's address, for all of the above
	return h
}

// routeName names a path for metrics and logs, from a fixed set.
func routeName(path string) string {
	switch path {
	case BasePath + "/parties":
		return "parties"
	case BasePath + "/districts":
		return "districts"
	case BasePath + "/candidates":
		return "candidates"
	case BasePath + "/":
		return "index"
	case BasePath + "/openapi.json":
		return "openapi"
	case BasePath + "/catalog.jsonld":
		return "catalog"
	}
	return "other"
}

// bucket numbers the rate-limit counters: one per collection, and one for
// every other path.
func bucket(path string) uint8 {
	for i, c := range dataset.Collections {
		if path == BasePath+"/"+string(c) {
			return uint8(i)
		}
	}
	return uint8(len(dataset.Collections))
}
