package server

import (
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"sync"

	"ballot/dataset"
)

// bodies recycles response buffers: a request appends into one and writes
// it in a single call.
var bodies = sync.Pool{New: func() any { b := make([]byte, 0, 32<<10); return &b }}

// handleCollection answers GET and HEAD for one collection.
func (s *Server) handleCollection(c dataset.Collection) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		h := w.Header()
		h["Vary"] = varyEncValue
		res, err := s.data.Load().Query(c, parseQuery(r.URL.RawQuery))
		if err != nil {
			writeError(w, err)
			return
		}
		etag := res.ETag() // prepared at load
		values := make([]string, 2)
		values[0] = etag
		h["Etag"] = values[0:1:1]
		h["Cache-Control"] = s.cacheControlValue
		if noneMatch(r.Header["If-None-Match"], etag) {
			w.WriteHeader(http.StatusNotModified)
			return
		}
		now := s.requestOf(w, r).now
		bp := bodies.Get().(*[]byte)
		var body []byte
		if acceptsGzip(r.Header["Accept-Encoding"]) {
			// Prepared at load: only the tail is compressed here.
			body = res.AppendGzip((*bp)[:0], now)
			h["Content-Encoding"] = gzipValue
		} else {
			body = res.AppendJSON((*bp)[:0], now)
		}
		values[1] = strconv.Itoa(len(body))
		h["Content-Type"] = jsonValue
		h["Content-Length"] = values[1:2:2]
		w.WriteHeader(http.StatusOK)
		if r.Method != http.MethodHead {
			_, _ = w.Write(body)
		}
		*bp = body
		bodies.Put(bp)
	}
}

func handleNotFound(w http.ResponseWriter, _ *http.Request) {
	writeProblem(w, http.StatusNotFound, "there is no endpoint at this path; the data is at "+
		BasePath+"/parties, "+BasePath+"/districts and "+BasePath+"/candidates, and "+BasePath+"/ lists every endpoint", nil)
}

func handleMethodNotAllowed(w http.ResponseWriter, _ *http.Request) {
	w.Header().Set("Allow", allowedMethods)
	writeProblem(w, http.StatusMethodNotAllowed, "this endpoint answers only GET, HEAD and OPTIONS", nil)
}

const allowedMethods = "GET, HEAD, OPTIONS"

// noneMatch reports whether an If-None-Match header matches etag, using the
// weak comparison RFC 9110 prescribes for it.
func noneMatch(headers []string, etag string) bool {
	want := strings.TrimPrefix(etag, "W/")
	for _, h := range headers {
		for _, tag := range strings.Split(h, ",") {
			tag = strings.TrimSpace(tag)
			if tag == "*" || strings.TrimPrefix(tag, "W/") == want {
				return true
			}
		}
	}
	return false
}

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
