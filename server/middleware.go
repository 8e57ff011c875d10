package server

import (
	"fmt"
	"log/slog"
	"net/http"
	"runtime/debug"
	"strconv"
	"strings"
	"sync"
	"time"

	"ballot/server/ratelimit"
)

// Headers are set by assigning to the header map with their canonical key,
// which costs no allocation, and a value that never changes is one shared
// slice (net/http only reads header values; an Add copies).
var (
	starValue       = []string{"*"}
	exposedValue    = []string{"ETag, Link, Retry-After, X-RateLimit-Limit, X-RateLimit-Remaining, X-RateLimit-Reset, RateLimit-Policy, RateLimit"}
	nosniffValue    = []string{"nosniff"}
	allowValue      = []string{allowedMethods}
	maxAgeDayValue  = []string{"86400"}
	varyReqHdrValue = []string{"Access-Control-Request-Headers"}
	varyEncValue    = []string{"Accept-Encoding"}
	jsonValue       = []string{"application/json; charset=utf-8"}
	jsonLDValue     = []string{"application/ld+json"}
	problemValue    = []string{"application/problem+json"}
	noStoreValue    = []string{"no-store"}
	gzipValue       = []string{"gzip"}
)

// stage is one step of the public API's chain, from the middleware to the
// endpoints: a handler that is also given what exchange worked out about
// the request, so that no stage has to look for it.
type stage func(w http.ResponseWriter, r *http.Request, q *request)

// allowCrossOrigin opens the API to every origin and sets the headers every
// response carries. gorilla/handlers' CORS sets them only when the request
// has an Origin header; the contract wants them on every response.
func allowCrossOrigin(next stage) stage {
	return func(w http.ResponseWriter, r *http.Request, q *request) {
		h := w.Header()
		h["Access-Control-Allow-Origin"] = starValue
		h["Access-Control-Expose-Headers"] = exposedValue
		h["X-Content-Type-Options"] = nosniffValue
		next(w, r, q)
	}
}

// answerPreflight answers OPTIONS on any path: a CORS preflight gets the
// methods and the headers it asked for, cached for a day.
func answerPreflight(next stage) stage {
	return func(w http.ResponseWriter, r *http.Request, q *request) {
		if r.Method != http.MethodOptions {
			next(w, r, q)
			return
		}
		h := w.Header()
		h["Allow"] = allowValue
		h["Access-Control-Allow-Methods"] = allowValue
		if req := r.Header.Get("Access-Control-Request-Headers"); req != "" && isTokenList(req) {
			h["Access-Control-Allow-Headers"] = []string{req}
		}
		h["Access-Control-Max-Age"] = maxAgeDayValue
		h["Vary"] = varyReqHdrValue
		w.WriteHeader(http.StatusNoContent)
	}
}

// isTokenList reports whether s is a comma-separated list of header names,
// so nothing else is echoed back.
func isTokenList(s string) bool {
	if len(s) > 1024 {
		return false
	}
	for _, name := range strings.Split(s, ",") {
		name = strings.TrimSpace(name)
		if name == "" {
			return false
		}
		for i := 0; i < len(name); i++ {
			c := name[i]
			if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || strings.IndexByte("!#$%&'*+-.^_`|~", c) >= 0) {
				return false
			}
		}
	}
	return true
}

// limitRate counts the request against its client's quota for the endpoint
// and sets the rate-limit headers; past the quota it answers 429. A CORS
// preflight is not counted but still carries the headers.
func (s *Server) limitRate(next stage) stage {
	return func(w http.ResponseWriter, r *http.Request, q *request) {
		key := q.client.key(s.opts.IPv6Prefix, counterOf(q.route))
		var d ratelimit.Decision
		if r.Method == http.MethodOptions {
			d = s.limiter.PeekAt(key, q.now)
		} else {
			d = s.limiter.TakeAt(key, q.now)
		}
		reset := d.ResetUnix()
		untilReset := max((d.Reset.Sub(q.now)+time.Second-1)/time.Second, 0) // rounded up
		// One allocation holds the values, and one the text of those that
		// change: Remaining and the IETF RateLimit field.
		var text [80]byte
		b := strconv.AppendInt(text[:0], int64(d.Remaining), 10)
		remaining := len(b)
		b = strconv.AppendInt(b, reset, 10)
		resetEnd := len(b)
		b = append(b, `"endpoint";r=`...)
		b = strconv.AppendInt(b, int64(d.Remaining), 10)
		b = append(b, ";t="...)
		b = strconv.AppendInt(b, int64(untilReset), 10)
		str := string(b)
		values := make([]string, 4)
		values[0], values[1], values[2] = str[:remaining], str[remaining:resetEnd], str[resetEnd:]
		h := w.Header()
		h["X-Ratelimit-Limit"] = s.limitValue
		h["X-Ratelimit-Remaining"] = values[0:1:1]
		h["X-Ratelimit-Reset"] = values[1:2:2]
		// The IETF fields (draft-ietf-httpapi-ratelimit-headers-10): the
		// policy, and what is left of it with the seconds until it resets.
		h["Ratelimit-Policy"] = s.policyValue
		h["Ratelimit"] = values[2:3:3]
		// A refused preflight would hide the 429 from the page's script:
		// the browser would never send the request that gets it.
		if !d.Allowed && r.Method != http.MethodOptions {
			s.metrics.limited[q.route].Inc()
			wait := d.RetryAfterSeconds()
			values[3] = strconv.FormatInt(wait, 10)
			h["Retry-After"] = values[3:4:4]
			writeProblem(w, http.StatusTooManyRequests, fmt.Sprintf(
				"rate limit of %d requests per %s for this endpoint exceeded; retry after %d s, at %s",
				d.Limit, windowText(s.opts.RateWindow), wait,
				time.Unix(reset, 0).UTC().Format(time.RFC3339)), nil)
			return
		}
		next(w, r, q)
	}
}

func windowText(d time.Duration) string {
	if d == time.Minute {
		return "minute"
	}
	return d.String()
}

// exchange is what the middleware share about one request: what they need
// to know of it, worked out once, and what the answer was, for the metrics,
// the access log and the recovery from a panic. Exchanges are pooled.
type exchange struct {
	http.ResponseWriter
	request
	status int
	size   int
}

// request is what the middleware and handlers need to know of a request.
type request struct {
	client Client // whom it is counted under
	// now is when it arrived, read once: the rate limit, the rate-limit
	// headers and meta.generatedAt all use it.
	now   time.Time
	route int // its endpoint's index in endpoints, or otherRoute
}

var exchanges = sync.Pool{New: func() any { return new(exchange) }}

func (e *exchange) WriteHeader(status int) {
	if e.status == 0 {
		e.status = status
	}
	e.ResponseWriter.WriteHeader(status)
}

func (e *exchange) Write(b []byte) (int, error) {
	if e.status == 0 {
		e.status = http.StatusOK
	}
	n, err := e.ResponseWriter.Write(b)
	e.size += n
	return n, err
}

// Unwrap gives http.ResponseController the writer underneath.
func (e *exchange) Unwrap() http.ResponseWriter { return e.ResponseWriter }

// exchange is the outermost middleware. It works out the request's client
// address, time and route once and hands them to the stages inside, turns
// a panic anywhere inside into a 500 problem (keeping the headers
// already set, such as CORS and the rate limit; the panic and its stack go
// to the log, never to the client; when the answer had already begun, the
// connection is dropped instead, as net/http does), and records the answer
// in the metrics and the access log.
func (s *Server) exchange(next stage) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		start := time.Now()
		now := start
		if s.injectedClock {
			now = s.opts.Now()
		}
		e := exchanges.Get().(*exchange)
		*e = exchange{ResponseWriter: w, request: request{client: s.opts.ClientIP.Resolve(r), now: now, route: routeOf(r)}}
		defer func() {
			if v := recover(); v != nil {
				if v == http.ErrAbortHandler {
					panic(v)
				}
				s.opts.Logger.Error("panic serving a request", slog.String("method", r.Method), slog.String("path", r.URL.Path),
					slog.Any("panic", v), slog.String("stack", string(debug.Stack())))
				if e.status != 0 {
					panic(http.ErrAbortHandler)
				}
				h := w.Header()
				delete(h, "Content-Encoding")
				delete(h, "Retry-After")
				writeProblem(e, http.StatusInternalServerError, "the server could not answer this request", nil)
			}
			s.observe(e, r, time.Since(start))
			*e = exchange{}
			exchanges.Put(e)
		}()
		next(e, r, &e.request)
	})
}

// observe records one answered request: its metrics, and its access-log
// line when the access log is on.
func (s *Server) observe(e *exchange, r *http.Request, elapsed time.Duration) {
	if e.status == 0 { // the handler wrote nothing: net/http sends 200
		e.status = http.StatusOK
	}
	rt := e.route
	s.metrics.observe(rt, e.status, elapsed)
	if !s.opts.AccessLog {
		return
	}
	s.opts.Logger.LogAttrs(r.Context(), slog.LevelInfo, "request",
		slog.String("client_ip", e.client.String()),
		slog.String("method", r.Method),
		slog.String("route", routeNames[rt]),
		slog.String("uri", r.URL.RequestURI()),
		slog.Int("status", e.status),
		slog.Int("bytes", e.size),
		slog.Duration("duration", elapsed),
	)
}
