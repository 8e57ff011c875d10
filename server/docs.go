package server

import "net/http"

// handleIndex answers GET /api/public/v1/: the endpoints, the dataset's
// title, version and licence, and whom to credit.
func (s *Server) handleIndex(w http.ResponseWriter, r *http.Request) {
	handleNotFound(w, r)
}

// handleOpenAPI answers GET /api/public/v1/openapi.json.
func (s *Server) handleOpenAPI(w http.ResponseWriter, r *http.Request) {
	handleNotFound(w, r)
}

// handleCatalog answers GET /api/public/v1/catalog.jsonld.
func (s *Server) handleCatalog(w http.ResponseWriter, r *http.Request) {
	handleNotFound(w, r)
}
