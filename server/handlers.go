package server

import (
	"net/http"
	"net/url"
	"strings"

	"ballot/dataset"
)

// collection answers GET and HEAD for one collection.
func collection(c dataset.Collection) func(*Server, http.ResponseWriter, *http.Request, *request) {
	return func(s *Server, w http.ResponseWriter, r *http.Request, q *request) {
		res, err := s.data.Load().Query(c, parseQuery(r.URL.RawQuery))
		if err != nil {
			writeError(w, err)
			return
		}
		etag := res.ETag() // prepared at load
		s.writeAnswer(w, r, &answer{contentType: jsonValue, etag: etag, gzipETag: etag, result: res}, q.now)
	}
}

// document answers GET and HEAD with one of the documents prepared when
// the dataset was loaded.
func document(pick func(*documents) *answer) func(*Server, http.ResponseWriter, *http.Request, *request) {
	return func(s *Server, w http.ResponseWriter, r *http.Request, q *request) {
		s.writeAnswer(w, r, pick(s.docs.Load()), q.now)
	}
}

func handleNotFound(w http.ResponseWriter) {
	writeProblem(w, http.StatusNotFound, "there is no endpoint at this path; the data is at "+
		BasePath+"/parties, "+BasePath+"/districts and "+BasePath+"/candidates, and "+BasePath+"/ lists every endpoint", nil)
}

func handleMethodNotAllowed(w http.ResponseWriter) {
	w.Header()["Allow"] = allowValue
	writeProblem(w, http.StatusMethodNotAllowed, "this endpoint answers only GET, HEAD and OPTIONS", nil)
}

const allowedMethods = "GET, HEAD, OPTIONS"

// parseQuery splits a raw query string into parameters. Unlike
// url.ParseQuery it never fails: a pair whose name cannot be decoded is an
// unknown parameter and is ignored, and a value that cannot be decoded is
// kept as it came, so the parameter's own check refuses it by name.
func parseQuery(raw string) dataset.Params {
	var p dataset.Params
	for raw != "" {
		var pair string
		pair, raw, _ = strings.Cut(raw, "&")
		k, v, _ := strings.Cut(pair, "=")
		name, err := queryUnescape(k)
		if err != nil || !dataset.IsParam(name) {
			continue
		}
		if value, err := queryUnescape(v); err == nil {
			v = value
		}
		if p == nil {
			p = make(dataset.Params, 3)
		}
		p[name] = append(p[name], v)
	}
	return p
}

func queryUnescape(s string) (string, error) {
	if !strings.ContainsAny(s, "%+") {
		return s, nil
	}
	return url.QueryUnescape(s)
}
