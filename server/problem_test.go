package server

import (
	"errors"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"ballot/archive"
	"ballot/dataset"
	"ballot/server/pages"
)

// TestWriteError holds the one error writer to its table: the kind of an
// error decides its status; a request marked as a page's gets the page
// that says so, when one does, and every other the problem document; an
// internal error's text goes to the log, never to the client.
func TestWriteError(t *testing.T) {
	ds, err := dataset.Default()
	if err != nil {
		t.Fatal(err)
	}
	var logged strings.Builder
	opts := DefaultOptions()
	opts.Pages = true
	opts.Logger = slog.New(slog.NewTextHandler(&logged, nil))
	s := New(archive.Of(ds), opts)
	perr := &dataset.ParamError{Params: []dataset.InvalidParam{{Name: "limit", Reason: "must be a number from 1 to 500"}}}
	tests := []struct {
		name     string
		err      error
		mark     *pageMark
		status   int
		html     bool
		contains string
	}{
		{"refused parameter, API", perr, nil, 400, false, `"invalid_params":[{"name":"limit"`},
		{"refused parameter, a form's page", perr, candidatesMark, 400, true, `id="limit-error"`},
		{"refused parameter, a download", perr, notADocument, 400, false, `"status":400`},
		{"no record, API", &dataset.NotFoundError{Collection: dataset.Parties, Key: "x"}, nil, 404, false, `"status":404`},
		{"no party, its page", &dataset.NotFoundError{Collection: dataset.Parties, Key: "x"}, partyMark, 404, true, "No party has this address"},
		{"no route, a browser", errNoRoute, notADocument, 404, true, "There is no page at this address."},
		{"wrong method, a page", errWrongMethod, otherPageMark, 405, false, "answers only GET, HEAD and OPTIONS"},
		{"past the limit, a page", &requestError{kind: tooManyRequests, detail: "wait", wait: 7}, otherPageMark, 429, true, "Try again in 7 seconds"},
		{"past the limit, API", &requestError{kind: tooManyRequests, detail: "wait", wait: 7}, nil, 429, false, `"detail":"wait"`},
		{"internal, a page", errors.New("disk on fire"), otherPageMark, 500, false, `"detail":"the server could not answer this request"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			logged.Reset()
			var h http.Handler = http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { s.writeError(w, r, tt.err) })
			if tt.mark != nil {
				h = markPage(tt.mark)(h)
			}
			rec := httptest.NewRecorder()
			s.exchange(s.metrics.route(otherRoute))(h).ServeHTTP(rec, httptest.NewRequest(http.MethodPost, "/candidates?limit=0", nil))
			contentType, csp := "application/problem+json", ""
			if tt.html {
				contentType, csp = "text/html; charset=utf-8", pages.ContentSecurityPolicy
			}
			if rec.Code != tt.status || rec.Header().Get("Content-Type") != contentType || rec.Header().Get("Content-Security-Policy") != csp ||
				rec.Header().Get("Cache-Control") != "no-store" {
				t.Errorf("status %d, Content-Type %q, CSP %q, Cache-Control %q; want %d, %s, %q, no-store", rec.Code, rec.Header().Get("Content-Type"),
					rec.Header().Get("Content-Security-Policy"), rec.Header().Get("Cache-Control"), tt.status, contentType, csp)
			}
			if !strings.Contains(rec.Body.String(), tt.contains) {
				t.Errorf("body lacks %q: %.500s", tt.contains, rec.Body)
			}
			if internal := tt.status == 500; strings.Contains(rec.Body.String(), "fire") || internal != strings.Contains(logged.String(), "disk on fire") {
				t.Errorf("internal error shown or not logged: body %q, log %q", rec.Body, logged.String())
			}
		})
	}
}
