package server

import (
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"sync"

	"ballot/answers"
	"ballot/dataset"
)

// The handlers of the API's endpoints. Each reads the snapshot being served
// once, asks it for a prepared answer, and writes it with writeAnswer, or
// the refusal with writeError.

// collection answers GET and HEAD for one collection of the election the
// path names, or of the current one.
func (s *Server) collection(c dataset.Collection) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		es, err := s.snap.Load().election(r)
		if err != nil {
			s.writeError(w, r, err)
			return
		}
		if p, ok := es.queries[preparedQuery{c, r.URL.RawQuery}]; ok {
			s.writeResult(w, r, p.res, p.linkFor(r))
			return
		}
		q := queries.Get().(*query)
		defer q.release()
		res, err := es.ds.Query(c, q.parse(r.URL.RawQuery))
		if err != nil {
			s.writeError(w, r, err)
			return
		}
		s.writeResult(w, r, es.answers.Of(res), nil)
	})
}

// preparedQueries are the results of a dataset's most common queries, by
// collection and query string exactly as sent: each collection with no
// query, and the candidates and results of one district, and the
// candidates of one party, as the pages and the documentation link to
// them. Each is what the query's own path (parseQuery, dataset.Query)
// gives, worked out once at load rather than on every request; any other
// query string, however close ("district=05", "party=PL", a second
// parameter), takes that path. On 2022's /candidates?district=5 that path
// was a quarter of ballot's own work per request (docs/PERFORMANCE.md).
type preparedQueries map[preparedQuery]preparedResult

// preparedResult is a prepared query's result, and the value of its Link
// header (nextLink), nil on the last page: at the path without an
// election (the current election's alone), and at the election's path
// by its slug, electionPath.
type preparedResult struct {
	res                answers.Result
	link, electionLink []string
	path, electionPath string
}

// linkFor is the Link value prepared for the path r asks at: the one
// without an election, or the election's by its slug; nil, for nextLink
// to work out from the path, for an election named otherwise (by its id,
// or in capitals), whose next page is at the path it was asked at.
func (p *preparedResult) linkFor(r *http.Request) []string {
	switch r.URL.Path {
	case p.electionPath:
		return p.electionLink
	case p.path:
		return p.link
	}
	return nil
}

// preparedQuery names a prepared query: its collection and its query
// string, as sent.
type preparedQuery struct {
	c   dataset.Collection
	raw string
}

// maxPreparedValues bounds the values of one parameter prepared, so that
// a dataset of many thousand parties prepares no more than a few hundred.
const maxPreparedValues = 256

// prepareQueries runs the common queries of the election es through the
// query's own path, keeping each result that path answers, with its Link
// at the election's path and, for the current election, at the path
// without one.
func (s *Server) prepareQueries(es *electionSnapshot, current bool) preparedQueries {
	ds, ans := es.ds, es.answers
	var districts, parties []string
	for _, d := range ds.Districts()[:min(len(ds.Districts()), maxPreparedValues)] {
		districts = append(districts, "district="+strconv.Itoa(d.Number))
	}
	for _, p := range ds.Parties()[:min(len(ds.Parties()), maxPreparedValues)] {
		parties = append(parties, "party="+url.QueryEscape(p.Slug))
	}
	m := preparedQueries{}
	prepare := func(c dataset.Collection, raws ...string) {
		path, electionPath := BasePath+"/"+string(c), ElectionsPath+"/"+es.election.Record.Slug+"/"+string(c)
		for _, raw := range raws {
			if res, err := ds.Query(c, parseQuery(raw)); err == nil {
				p := preparedResult{res: ans.Of(res).Prepared(), path: path, electionPath: electionPath}
				if link := s.nextLink(electionPath, p.res); link != "" {
					p.electionLink = []string{link}
				}
				if link := s.nextLink(path, p.res); link != "" && current {
					p.link = []string{link}
				}
				m[preparedQuery{c, raw}] = p
			}
		}
	}
	for _, c := range dataset.Table {
		prepare(c.Name, "")
	}
	prepare(dataset.Candidates, districts...)
	prepare(dataset.Candidates, parties...)
	prepare(dataset.Results, districts...)
	return m
}

// record answers GET and HEAD for one record of a collection of the
// election the path names, or of the current one, named by the route's
// key. Its answer was prepared when the dataset loaded, as a collection's
// is; query parameters are ignored.
func (s *Server) record(c dataset.Collection, key string) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		es, err := s.snap.Load().election(r)
		if err != nil {
			s.writeError(w, r, err)
			return
		}
		res, err := es.ds.Record(c, pathKey(r, key))
		if err != nil {
			s.writeError(w, r, err)
			return
		}
		s.writeResult(w, r, es.answers.Of(res), nil)
	})
}

// writeResult writes a collection's or a record's answer, with its Link
// value when it was prepared with it (nil: worked out on the way).
func (s *Server) writeResult(w http.ResponseWriter, r *http.Request, res answers.Result, link []string) {
	etag := res.ETag() // prepared at load
	s.writeAnswer(w, r, &answer{contentType: jsonValue, etag: etag, gzipETag: etag, result: res, link: link})
}

// document answers GET and HEAD with one of the documents prepared when
// the dataset was loaded.
func (s *Server) document(pick func(*documents) *answer) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		s.writeAnswer(w, r, pick(s.snap.Load().docs))
	})
}

// errNoRoute and errWrongMethod are the public listener's refusals of a
// path no route has and of a method no route answers.
var (
	errNoRoute = &requestError{kind: notFound, detail: "there is no endpoint at this path; the data is at " +
		BasePath + "/parties, " + BasePath + "/districts, " + BasePath + "/candidates and " + BasePath + "/results, and " + BasePath + "/ lists every endpoint"}
	errWrongMethod = &requestError{kind: methodNotAllowed, detail: "this endpoint answers only GET, HEAD and OPTIONS"}
)

// notFound answers a path that is no route's: the 404 problem, or the 404
// page for a request markBrowser marked. CONNECT names a host, not a path:
// no route could answer it, whatever it names.
func (s *Server) notFound(w http.ResponseWriter, r *http.Request) {
	if r.Method == http.MethodConnect {
		s.methodNotAllowed(w, r)
		return
	}
	s.writeError(w, r, errNoRoute)
}

// methodNotAllowed is the router's MethodNotAllowedHandler: a path of a
// route asked with a method other than GET, HEAD and OPTIONS.
func (s *Server) methodNotAllowed(w http.ResponseWriter, r *http.Request) {
	w.Header()["Allow"] = allowValue
	s.writeError(w, r, errWrongMethod)
}

const allowedMethods = "GET, HEAD, OPTIONS"

// parseQuery splits a raw query string into parameters. Unlike
// url.ParseQuery it never fails: a pair whose name cannot be decoded is an
// unknown parameter and is ignored, and a value that cannot be decoded is
// kept as it came, so the parameter's own check refuses it by name.
func parseQuery(raw string) dataset.Params {
	return (&query{}).parse(raw)
}

// query holds the parameters of one request, parsed by parseQuery's rules
// into a map and values that the collections' handler reuses from request
// to request: a filtered answer would otherwise allocate the map and each
// value's slice. dataset.Query keeps nothing of them.
type query struct {
	params dataset.Params
	values [7]string // the first value of each parameter, in order
}

var queries = sync.Pool{New: func() any { return new(query) }}

// parse parses raw into q, and returns its parameters, nil for none.
func (q *query) parse(raw string) dataset.Params {
	n := 0
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
		if q.params == nil {
			q.params = make(dataset.Params, len(q.values))
		}
		if vs := q.params[name]; len(vs) == 0 && n < len(q.values) {
			q.values[n] = v
			q.params[name] = q.values[n : n+1 : n+1]
			n++
		} else {
			q.params[name] = append(vs, v) // given again: its own slice
		}
	}
	if len(q.params) == 0 {
		return nil
	}
	return q.params
}

// release empties q and returns it to the pool.
func (q *query) release() {
	clear(q.params)
	q.values = [len(q.values)]string{}
	queries.Put(q)
}

func queryUnescape(s string) (string, error) {
	if !strings.ContainsAny(s, "%+") {
		return s, nil
	}
	return url.QueryUnescape(s)
}
