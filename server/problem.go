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

// writeError answers a request the dataset refused. Every error a client
// can cause is a *dataset.ParamError (400) or a *dataset.NotFoundError
// (404); anything else is ours, and its text is not shown.
func writeError(w http.ResponseWriter, err error) {
	var perr *dataset.ParamError
	if errors.As(err, &perr) {
		writeProblem(w, http.StatusBadRequest, perr.Error(), perr.Params)
		return
	}
	var nf *dataset.NotFoundError
	if errors.As(err, &nf) {
		writeProblem(w, http.StatusNotFound, nf.Error(), nil)
		return
	}
	writeProblem(w, http.StatusInternalServerError, "the server could not answer this request", nil)
}

// writeProblem writes every error response: problem+json, never cached,
// never carrying internals.
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
