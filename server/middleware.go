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
	"unsafe"

	"github.com/gorilla/mux"

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

// The middleware of the public listener are standard gorilla/mux
// middleware, func(http.Handler) http.Handler, composed once per route at
// start-up (chain), so that any other, such as one of gorilla/handlers',
// slots in among them.
//
// What they need to know of a request, its client, its time and its route,
// is worked out once, by exchange, the outermost, and kept in one place: the
// *exchange that exchange hands down as the ResponseWriter, which the others
// read with stateOf; markPage adds there that a request is a page's (the
// page mark the error writer asks). A value in the request's context would do the same at
// the cost of a copy of the request and two allocations on every request.

// chain wraps h, the handler of one route, in the middleware of the public
// listener. A request meets them in the order of this list, from the
// bottom up:
func (s *Server) chain(route string, counter int, page *pageMark, h http.Handler) http.Handler {
	if route != otherRoute { // a path that is no route's has nothing to preflight: 404
		h = answerPreflight(h) // OPTIONS: 204, after the rate-limit headers are set
	}
	if counter != uncounted {
		h = s.limitRate(counter)(h) // per client and counter; the headers on every response
	}
	if page != nil {
		h = markPage(page)(h) // a page's route: its errors are pages, its pages carry the CSP
	}
	h = setCommonHeaders(h)                      // CORS and the fixed headers on every response
	return s.exchange(s.metrics.route(route))(h) // the client's address, the time; panic recovery, metrics, access log
}

// setCommonHeaders opens the API to every origin and sets the headers
// every response carries. gorilla/handlers' CORS sets them only when the
// request has an Origin header; the contract wants them on every response.
func setCommonHeaders(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		h := w.Header()
		h["Access-Control-Allow-Origin"] = starValue
		h["Access-Control-Expose-Headers"] = exposedValue
		h["X-Content-Type-Options"] = nosniffValue
		// Caches key every answer by Accept-Encoding, errors included,
		// so one rule covers whatever a path answers.
		h["Vary"] = varyEncValue
		next.ServeHTTP(w, r)
	})
}

// answerPreflight answers OPTIONS: a CORS preflight gets the methods and
// the headers it asked for, cached for a day. It is in the chain of every
// route; a path that is no route's gets 404, whatever its method.
// gorilla/handlers' CORS answers a preflight only when it has an Origin
// and an allowed method, and without the rate-limit headers.
func answerPreflight(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodOptions {
			next.ServeHTTP(w, r)
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
	})
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

// uncounted is the counter of the paths no rate limit counts: the pages'
// stylesheet and icon, so that a page view spends one request.
const uncounted = -1

// limitRate counts the request against its client's quota on counter
// and sets the rate-limit headers; past the quota it answers 429, which
// says when to try again (writeError: a page for a page's request). A CORS
// preflight is not counted but still carries the headers. Home-made:
// gorilla/handlers has no rate limiter.
func (s *Server) limitRate(counter int) mux.MiddlewareFunc {
	return func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			q := stateOf(w)
			key := q.client.key(s.opts.IPv6Prefix, uint8(counter))
			var d ratelimit.Decision
			if r.Method == http.MethodOptions {
				d = s.limiter.PeekAt(key, q.now)
			} else {
				d = s.limiter.TakeAt(key, q.now)
			}
			reset := d.ResetUnix()
			untilReset := max((d.ResetIn+time.Second-1)/time.Second, 0) // rounded up
			f := q.fieldValues()
			h := w.Header()
			h["X-Ratelimit-Limit"] = s.limitValue
			remaining := f.text(strconv.AppendInt(f.buffer(), int64(d.Remaining), 10))
			h["X-Ratelimit-Remaining"] = remaining
			h["X-Ratelimit-Reset"] = f.text(strconv.AppendInt(f.buffer(), reset, 10))
			// The IETF fields (draft-ietf-httpapi-ratelimit-headers-10):
			// the policy, and what is left of it with the seconds until it
			// resets.
			h["Ratelimit-Policy"] = s.policyValue
			b := append(f.buffer(), `"endpoint";r=`...)
			b = append(b, remaining[0]...)
			b = append(b, ";t="...)
			h["Ratelimit"] = f.text(strconv.AppendInt(b, int64(untilReset), 10))
			// A refused preflight would hide the 429 from the page's
			// script: the browser would never send the request that gets
			// it.
			if !d.Allowed && r.Method != http.MethodOptions {
				q.route.limited.Inc()
				wait := d.RetryAfterSeconds()
				h["Retry-After"] = f.text(strconv.AppendInt(f.buffer(), wait, 10))
				at := time.Unix(reset, 0)
				s.writeError(w, r, &requestError{kind: tooManyRequests, detail: fmt.Sprintf(
					"rate limit of %d requests per %s for this endpoint exceeded; retry after %d s, at %s",
					d.Limit, windowText(s.opts.RateWindow), wait, at.UTC().Format(time.RFC3339)), wait: wait, at: at})
				return
			}
			next.ServeHTTP(w, r)
		})
	}
}

func windowText(d time.Duration) string {
	if d == time.Minute {
		return "minute"
	}
	return d.String()
}

// exchange is the one home of what the middleware and handlers know of a
// request, worked out once, and of what its answer was, for the metrics,
// the access log and the recovery from a panic. It is the ResponseWriter
// that the outermost middleware hands down; stateOf finds it. Exchanges are
// pooled.
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
	route *routeMetrics // its route's name and series
	page  *pageMark     // set by markPage on a page's request; nil on the API's
	// conn is the connection it came on, nil when not through Serve;
	// http1 tells whether its requests are answered one at a time.
	conn  *connection
	http1 bool
	// values holds the header values made for its response; nil until
	// one is (fieldValues).
	values *fieldValues
}

// fieldValues returns the header values of q's response, made on first
// use: on an HTTP/1 connection, its connection's, emptied.
func (q *request) fieldValues() *fieldValues {
	if q.values == nil {
		if q.conn != nil && q.http1 {
			q.conn.values.reset()
			q.values = &q.conn.values
		} else {
			q.values = new(fieldValues)
		}
	}
	return q.values
}

// fieldValues holds the header values made for one response: the rate
// limit's, the ETag and the length. Each is a slice of one array, and the
// text of each is appended into one array, so that they cost a response
// at most one allocation, where each value's own string and slice cost
// four.
//
// They outlive the exchange: net/http reads the header map, and so these
// values, when it writes the header block, which may be after the handler
// has returned and the exchange gone back to its pool. So they are an
// HTTP/1 connection's, reused by its next request only, after that block
// is written (connection), or else made for the response and never
// reused.
type fieldValues struct {
	bytes     [64]byte // the values' text, each after the one before
	used      int      // how much of bytes the values hold
	values    [6]string
	valuesSet int
}

// reset empties f for the next response of its connection.
func (f *fieldValues) reset() {
	f.used, f.valuesSet = 0, 0
}

// value returns a header value holding s.
func (f *fieldValues) value(s string) []string {
	if f.valuesSet == len(f.values) {
		return []string{s}
	}
	v := f.values[f.valuesSet : f.valuesSet+1 : f.valuesSet+1]
	v[0] = s
	f.valuesSet++
	return v
}

// buffer returns the unused part of f's bytes, empty, to append one
// value's text to, which text then makes the value.
func (f *fieldValues) buffer() []byte {
	return f.bytes[f.used:f.used:len(f.bytes)]
}

// text returns a header value holding b's text, where b is what buffer
// returned, appended to. Within f's bytes, past every value made before,
// the value is made of them without a copy: they are never written again.
// Text that outgrew them had to be moved by append, and is copied.
func (f *fieldValues) text(b []byte) []string {
	if len(b) == 0 || len(b) > len(f.bytes)-f.used {
		return f.value(string(b))
	}
	s := unsafe.String(&f.bytes[f.used], len(b))
	f.used += len(b)
	return f.value(s)
}

var exchanges = sync.Pool{New: func() any { return new(exchange) }}

// stateOf returns what exchange worked out about the request whose
// ResponseWriter is w, looking through writers that wrap it (those with an
// Unwrap method, as http.ResponseController asks of them).
func stateOf(w http.ResponseWriter) *request {
	q := findState(w)
	if q == nil {
		panic("server: a handler of the public listener runs outside exchange")
	}
	return q
}

// pageOf returns the mark of a page's request (markPage), nil for any
// other: the API's, and the admin listener's, which has no exchange.
func pageOf(w http.ResponseWriter) *pageMark {
	if q := findState(w); q != nil {
		return q.page
	}
	return nil
}

func findState(w http.ResponseWriter) *request {
	for {
		switch x := w.(type) {
		case *exchange:
			return &x.request
		case interface{ Unwrap() http.ResponseWriter }:
			w = x.Unwrap()
		default:
			return nil
		}
	}
}

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

// exchange is the outermost middleware of a route. It works out the
// request's client address and time once and hands them, with the route, to
// the middleware inside; turns a panic anywhere inside into a 500 problem
// (keeping the headers already set, such as CORS and the rate limit; the
// panic and its stack go to the log, never to the client; when the answer
// had already begun, the connection is dropped instead, as net/http does);
// and records the answer in the metrics and the access log. Home-made:
// gorilla/handlers' RecoveryHandler answers a bare 500 with no problem
// document, and its LoggingHandler writes Apache's format to a writer, not
// slog, with the TCP peer rather than the client behind trusted proxies.
func (s *Server) exchange(route *routeMetrics) mux.MiddlewareFunc {
	return func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			start := time.Now()
			now := start
			if s.injectedClock {
				now = s.opts.Now()
			}
			conn := connectionOf(r)
			e := exchanges.Get().(*exchange)
			*e = exchange{ResponseWriter: w, request: request{client: s.opts.ClientIP.resolve(r, conn), now: now, route: route,
				conn: conn, http1: r.ProtoMajor == 1}}
			defer func() {
				if v := recover(); v != nil {
					if v == http.ErrAbortHandler {
						panic(v)
					}
					err := &panicError{value: v, stack: debug.Stack()}
					if e.status != 0 {
						s.logInternal(r, err)
						panic(http.ErrAbortHandler)
					}
					h := w.Header()
					delete(h, "Content-Encoding")
					delete(h, "Retry-After")
					s.writeError(e, r, err) // logs it
				}
				// One reading, of the monotonic clock alone, for the
				// duration and the access log's time.
				elapsed := time.Since(start)
				s.observe(e, r, start.Add(elapsed), elapsed)
				*e = exchange{}
				exchanges.Put(e)
			}()
			next.ServeHTTP(e, r)
		})
	}
}

// clientText returns the client as the access log writes it, when it is
// its connection's peer, written once for the connection; else the
// client, to be written.
func (q *request) clientText() clientText {
	if q.conn != nil && q.client == (Client{Addr: q.conn.peer}) {
		return clientText{text: q.conn.peerText}
	}
	return clientText{client: q.client}
}

// observe records one answered request: its metrics, and its access-log
// line when the access log is on.
func (s *Server) observe(e *exchange, r *http.Request, end time.Time, elapsed time.Duration) {
	if e.status == 0 { // the handler wrote nothing: net/http sends 200
		e.status = http.StatusOK
	}
	rt := e.route
	rt.observe(e.status, elapsed)
	if !s.opts.AccessLog {
		return
	}
	if s.opts.AccessLogText != nil {
		writeAccessLine(s.opts.AccessLogText, end, e.clientText(), r.Method, rt.name, r.URL, e.status, e.size, elapsed)
		return
	}
	s.opts.Logger.LogAttrs(r.Context(), slog.LevelInfo, "request",
		slog.String("client_ip", e.client.String()),
		slog.String("method", r.Method),
		slog.String("route", rt.name),
		slog.String("uri", r.URL.RequestURI()),
		slog.Int("status", e.status),
		slog.Int("bytes", e.size),
		slog.Duration("duration", elapsed),
	)
}
