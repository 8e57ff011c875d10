package server

import (
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"strconv"
	"time"

	"github.com/gorilla/handlers"
	"github.com/gorilla/mux"
	"github.com/prometheus/client_golang/prometheus/promhttp"

	"ballot/answers"
	"ballot/archive"
	"ballot/dataset"
)

// AdminHandler answers the admin listener: /livez and /healthz, /readyz, /metrics and
// POST /reload, which loads the archive again with load. It is meant for
// operators on a private address: it is neither rate limited nor open to
// other origins.
func (s *Server) AdminHandler(load func() (*archive.Archive, error)) http.Handler {
	r := mux.NewRouter()
	r.SkipClean(true)
	get := []string{http.MethodGet, http.MethodHead}
	alive := func(w http.ResponseWriter, _ *http.Request) {
		writeAdminJSON(w, http.StatusOK, map[string]string{"status": "alive"})
	}
	// /livez is Kubernetes' name for the liveness probe; /healthz stays
	// for probes already written against it.
	r.HandleFunc("/livez", alive).Methods(get...)
	r.HandleFunc("/healthz", alive).Methods(get...)
	r.HandleFunc("/readyz", s.handleReady).Methods(get...)
	r.Handle("/metrics", promhttp.HandlerFor(s.metrics.registry, promhttp.HandlerOpts{})).Methods(get...)
	r.HandleFunc("/reload", func(w http.ResponseWriter, _ *http.Request) {
		a, err := s.Reload(load)
		// The write deadline was set when the request arrived; a reload
		// may take longer than that, and its answer must not be lost.
		_ = http.NewResponseController(w).SetWriteDeadline(time.Now().Add(adminWrite))
		// Every failure is the dataset's or its place's (invalid files,
		// a directory that cannot be read, files too large for the
		// memory limit), which the publisher or the operator fixes: 422,
		// never a 5xx, and the previous dataset stays.
		var report *dataset.Report
		switch {
		case err != nil:
			detail, lines := "the dataset could not be loaded; the previous one is still served", []string{err.Error()}
			if errors.As(err, &report) {
				detail, lines = "the dataset is invalid; the previous one is still served", make([]string, len(report.Errors))
				for i, p := range report.Errors {
					lines[i] = p.String()
				}
			}
			snap := s.snap.Load()
			writeAdminJSON(w, http.StatusUnprocessableEntity, map[string]any{
				"status": "refused", "detail": detail,
				"errors": lines, "version": snap.arch.Version, "dataset": servedStatus(snap),
			})
		default:
			writeAdminJSON(w, http.StatusOK, map[string]string{"status": "reloaded", "version": a.Version})
		}
	}).Methods(http.MethodPost)
	r.NotFoundHandler = http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		s.writeError(w, r, &requestError{kind: notFound, detail: "the admin endpoints are /livez, /healthz, /readyz, /metrics and POST /reload"})
	})
	r.MethodNotAllowedHandler = http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		allow := "GET, HEAD"
		if r.URL.Path == "/reload" {
			allow = "POST"
		}
		w.Header()["Allow"] = []string{allow}
		s.writeError(w, r, &requestError{kind: methodNotAllowed, detail: "this endpoint answers only " + allow})
	})
	// The admin listener is for operators: gorilla/handlers' recovery, a
	// bare 500 with the panic in the log, is all it needs.
	return handlers.RecoveryHandler(handlers.RecoveryLogger(panicLogger{s.opts.Logger}))(r)
}

// panicLogger gives gorilla/handlers' recovery the server's logger.
type panicLogger struct{ log *slog.Logger }

func (l panicLogger) Println(v ...any) {
	l.log.Error("panic in the admin listener", slog.String("panic", fmt.Sprint(v...)))
}

// handleReady reports the dataset being served (title, version, the
// manifest's published_at, when it was loaded) and the last reload that
// was refused, if any: when, the directory it read, and its first
// problems. A refused reload leaves the server ready, as the dataset
// before it is still served; the detail says so.
func (s *Server) handleReady(w http.ResponseWriter, _ *http.Request) {
	snap := s.snap.Load() // New always holds one: ready from the start
	body := map[string]any{"status": "ready", "dataset": servedStatus(snap), "last_refusal": nil}
	if r := s.refused.Load(); r != nil {
		var path *string
		if r.path != "" {
			path = &r.path
		}
		body["last_refusal"] = map[string]any{
			"at":          r.at.UTC().Format(answers.TimeFormat),
			"path":        path,
			"error_count": r.count,
			"errors":      r.problems,
		}
		if r.at.After(snap.loadedAt) {
			body["detail"] = fmt.Sprintf("the last reload, at %s, was refused (%s): still serving the dataset loaded at %s",
				r.at.UTC().Format(answers.TimeFormat), dataset.Quantity(r.count, "error"), snap.loadedAt.UTC().Format(answers.TimeFormat))
		}
	}
	writeAdminJSON(w, http.StatusOK, body)
}

// servedStatus describes the dataset of snap, for the admin answers: of
// an archive, the current election's title and date of publication, and
// the archive's version, which changes with any byte of any election.
func servedStatus(snap *snapshot) map[string]any {
	return map[string]any{
		"title":        snap.ds.Manifest.Title,
		"version":      snap.arch.Version,
		"published_at": publishedAt(snap.ds.Manifest),
		"loaded_at":    snap.loadedAt.UTC().Format(answers.TimeFormat),
	}
}

// writeAdminJSON writes an admin answer: JSON about the process, which
// changes with it and is never cached.
func writeAdminJSON(w http.ResponseWriter, status int, v any) {
	body := dataset.EncodeJSON(v)
	writeHead(w, status, jsonValue, noStoreValue, []string{strconv.Itoa(len(body))})
	_, _ = w.Write(body)
}
