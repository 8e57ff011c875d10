package server

import (
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"strconv"
	"time"

	"ballot/archive"
	"ballot/dataset"
	"ballot/server/pages"
)

// errorKind is what went wrong with a request, as its client is told: it
// decides the status, in one table (statusOf).
type errorKind uint8

const (
	internalError    errorKind = iota // ours: its details go to the log, never to the client
	invalidParams                     // a parameter the dataset refused: *dataset.ParamError
	notFound                          // no record has the key (*dataset.NotFoundError), no election or person (*archive.NotFoundError), or no route the path
	methodNotAllowed                  // a method other than GET, HEAD and OPTIONS
	tooManyRequests                   // a client past its rate limit
)

// statusOf is the status of each kind of error.
var statusOf = [...]int{
	internalError:    http.StatusInternalServerError,
	invalidParams:    http.StatusBadRequest,
	notFound:         http.StatusNotFound,
	methodNotAllowed: http.StatusMethodNotAllowed,
	tooManyRequests:  http.StatusTooManyRequests,
}

// internalDetail is all a client is told of an internal error.
const internalDetail = "the server could not answer this request"

// requestError is a refusal of the server's own, not the dataset's: a path
// no route has, a method no route answers, a client past its rate limit.
type requestError struct {
	kind   errorKind
	detail string // what the problem document says
	// A client past its rate limit may try again in wait seconds, at at.
	wait int64
	at   time.Time
}

func (e *requestError) Error() string { return e.detail }

// panicError is a panic in a handler, recovered: its value and the stack
// where it happened go to the log.
type panicError struct {
	value any
	stack []byte
}

func (e *panicError) Error() string { return fmt.Sprint("panic: ", e.value) }

// classify gives the kind of err and what the problem document says of
// it: the sentence and, for refused parameters, each of them.
func classify(err error) (errorKind, string, []dataset.InvalidParam) {
	var re *requestError
	var perr *dataset.ParamError
	var nf *dataset.NotFoundError
	var anf *archive.NotFoundError
	switch {
	case errors.As(err, &re):
		return re.kind, re.detail, nil
	case errors.As(err, &perr):
		return invalidParams, perr.Error(), perr.Params
	case errors.As(err, &nf):
		return notFound, nf.Error(), nil
	case errors.As(err, &anf):
		return notFound, anf.Error(), nil
	}
	return internalError, internalDetail, nil
}

// problem is an RFC 9457 problem details body.
type problem struct {
	Type          string                 `json:"type"`
	Title         string                 `json:"title"`
	Status        int                    `json:"status"`
	Detail        string                 `json:"detail"`
	InvalidParams []dataset.InvalidParam `json:"invalid_params,omitempty"`
}

// writeError writes every error of the server, API, pages and admin
// listener alike. The kind of err decides the status (statusOf). A request
// the page middleware marked as a page's (markPage) is answered with the
// page that says so, when there is one (pages.Site.ErrorPage), and every
// other with the problem document. Neither is cached. An internal error is
// logged, and its client told only that there was one.
func (s *Server) writeError(w http.ResponseWriter, r *http.Request, err error) {
	kind, detail, params := classify(err)
	status := statusOf[kind]
	if kind == internalError {
		s.logInternal(r, err)
	} else if page := s.errorPage(w, r, status, err); page != nil {
		h := w.Header()
		delete(h, "Etag")
		// An error page answers whatever the request was for, a download
		// or a wrong method too: it carries the pages' policy itself.
		h["Content-Security-Policy"] = cspValue
		writeHead(w, status, htmlValue, noStoreValue, []string{strconv.Itoa(len(page))})
		if r.Method != http.MethodHead {
			_, _ = w.Write(page)
		}
		return
	}
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

// errorPage is the page that answers err, with status, for a request the
// page middleware marked; nil for any other request, and for an error no
// page says.
func (s *Server) errorPage(w http.ResponseWriter, r *http.Request, status int, err error) []byte {
	mark, snap := pageOf(w), s.snap.Load()
	if mark == nil || snap.pages == nil {
		return nil
	}
	var why pages.Refusal
	var perr *dataset.ParamError
	var re *requestError
	var anf *archive.NotFoundError
	switch {
	case errors.As(err, &perr):
		why.Params, why.RawQuery, why.Err = parseQuery(r.URL.RawQuery), r.URL.RawQuery, perr
	case errors.As(err, &re):
		why.Wait, why.At = re.wait, re.at
	case errors.As(err, &anf):
		why.NoElection = anf.What == "election"
	}
	// The page of the election the path names, in its language, or the
	// current one's where it names none the archive holds.
	p, _, _, nowhere := snap.pagesOf(r.URL.Path)
	if nowhere != nil {
		p = snap.pages.lang[langOf(r.URL.Path)]
	}
	return p.site.ErrorPage(status, mark.kind, why)
}

// logInternal logs an internal error: what the client is not told.
func (s *Server) logInternal(r *http.Request, err error) {
	var p *panicError
	if errors.As(err, &p) {
		s.opts.Logger.Error("panic serving a request", slog.String("method", r.Method), slog.String("path", r.URL.Path),
			slog.Any("panic", p.value), slog.String("stack", string(p.stack)))
		return
	}
	s.opts.Logger.Error("could not answer a request", slog.String("method", r.Method), slog.String("path", r.URL.Path),
		slog.String("error", err.Error()))
}
