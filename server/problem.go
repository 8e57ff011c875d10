package server

import (
	"errors"
	"net/http"
	"strconv"

	"ballot/dataset"
)

// problem is an RFC 9457 problem details body.
type problem struct {
	Type          string                 `json:"type"`
	Title         string                 `json:"title"`
	Status        int                    `json:"status"`
	Detail        string                 `json:"detail"`
	InvalidParams []dataset.InvalidParam `json:"invalid_params,omitempty"`
}

// writeError answers a request the dataset refused, API and pages alike:
// the kind of the error decides the status, and page, when the path is a
// page's, renders the HTML that says so; otherwise the answer is the
// problem document. Every error a client can cause is a *dataset.ParamError
// (400) or a *dataset.NotFoundError (404); anything else is ours, and its
// text is not shown.
func writeError(w http.ResponseWriter, r *http.Request, err error, page func(*dataset.ParamError) []byte) {
	status := http.StatusInternalServerError
	var perr *dataset.ParamError
	var nf *dataset.NotFoundError
	switch {
	case errors.As(err, &perr):
		status = http.StatusBadRequest
	case errors.As(err, &nf):
		status = http.StatusNotFound
	}
	switch {
	case page != nil && status != http.StatusInternalServerError:
		writePageError(w, r, status, page(perr))
	case perr != nil:
		writeProblem(w, status, perr.Error(), perr.Params)
	case nf != nil:
		writeProblem(w, status, nf.Error(), nil)
	default:
		writeProblem(w, status, "the server could not answer this request", nil)
	}
}

// writeProblem writes every error response of the API: problem+json,
// never cached, never carrying internals.
func writeProblem(w http.ResponseWriter, status int, detail string, params []dataset.InvalidParam) {
	body := dataset.EncodeJSON(problem{
		Type:          "about:blank",
		Title:         http.StatusText(status),
		Status:        status,
		Detail:        detail,
		InvalidParams: params,
	})
	delete(w.Header(), "Etag")
	writeHead(w, status, problemValue, noStoreValue, []string{strconv.Itoa(len(body))})
	_, _ = w.Write(body)
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
