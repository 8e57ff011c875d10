package server

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/netip"
	"runtime/debug"
	"strconv"
	"strings"
	"time"

	"github.com/gorilla/handlers"

	"ballot/server/ratelimit"
)

// exposedHeaders are the response headers a web page's script may read
// across origins.
const exposedHeaders = "ETag, Retry-After, X-RateLimit-Limit, X-RateLimit-Remaining, X-RateLimit-Reset, RateLimit-Policy, RateLimit"

// allowCrossOrigin opens the API to every origin and sets the headers every
// response carries. gorilla/handlers' CORS sets them only when the request
// has an Origin header; the contract wants them on every response.
func allowCrossOrigin(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		h := w.Header()
		h.Set("Access-Control-Allow-Origin", "*")
		h.Set("Access-Control-Expose-Headers", exposedHeaders)
		h.Set("X-Content-Type-Options", "nosniff")
		next.ServeHTTP(w, r)
	})
}

// answerPreflight answers OPTIONS on any path: a CORS preflight gets the
// methods and the headers it asked for, cached for a day.
func answerPreflight(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodOptions {
			next.ServeHTTP(w, r)
			return
		}
		h := w.Header()
		h.Set("Allow", allowedMethods)
		h.Set("Access-Control-Allow-Methods", allowedMethods)
		if req := r.Header.Get("Access-Control-Request-Headers"); req != "" && isTokenList(req) {
			h.Set("Access-Control-Allow-Headers", req)
		}
		h.Set("Access-Control-Max-Age", "86400")
		h.Set("Vary", "Access-Control-Request-Headers")
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

// limitRate counts the request against its client's quota for the endpoint
// and sets the rate-limit headers; past the quota it answers 429. A CORS
// preflight is not counted but still carries the headers.
func (s *Server) limitRate(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		key := ratelimit.KeyFor(clientFrom(r), s.opts.IPv6Prefix, bucket(r.URL.Path))
		var d ratelimit.Decision
		if r.Method == http.MethodOptions {
			d = s.limiter.Peek(key)
		} else {
			d = s.limiter.Take(key)
		}
		reset := d.ResetUnix()
		h := w.Header()
		h.Set("X-RateLimit-Limit", strconv.Itoa(d.Limit))
		h.Set("X-RateLimit-Remaining", strconv.Itoa(d.Remaining))
		h.Set("X-RateLimit-Reset", strconv.FormatInt(reset, 10))
		// The IETF fields (draft-ietf-httpapi-ratelimit-headers-10): the
		// policy, and what is left of it with the seconds until it resets.
		h.Set("RateLimit-Policy", s.policy)
		untilReset := (d.Reset.Sub(s.opts.Now()) + time.Second - 1) / time.Second // rounded up
		h.Set("RateLimit", `"endpoint";r=`+strconv.Itoa(d.Remaining)+";t="+strconv.FormatInt(int64(max(untilReset, 0)), 10))
		// A refused preflight would hide the 429 from the page's script:
		// the browser would never send the request that gets it.
		if !d.Allowed && r.Method != http.MethodOptions {
			s.metrics.limited.WithLabelValues(routeName(r.URL.Path)).Inc()
			wait := d.RetryAfterSeconds()
			h.Set("Retry-After", strconv.FormatInt(wait, 10))
			writeProblem(w, http.StatusTooManyRequests, fmt.Sprintf(
				"rate limit of %d requests per %s for this endpoint exceeded; retry after %d s, at %s",
				d.Limit, windowText(s.opts.RateWindow), wait,
				time.Unix(reset, 0).UTC().Format(time.RFC3339)), nil)
			return
		}
		next.ServeHTTP(w, r)
	})
}

func windowText(d time.Duration) string {
	if d == time.Minute {
		return "minute"
	}
	return d.String()
}

type clientKey struct{}

// resolveClient finds the client's address once, for the rate limit, the
// metrics and the access log.
func (s *Server) resolveClient(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		addr := s.opts.ClientIP.Resolve(r)
		next.ServeHTTP(w, r.WithContext(context.WithValue(r.Context(), clientKey{}, addr)))
	})
}

// clientFrom returns the address resolveClient found, or the TCP peer's
// when the request did not pass through it.
func clientFrom(r *http.Request) netip.Addr {
	if a, ok := r.Context().Value(clientKey{}).(netip.Addr); ok {
		return a
	}
	return peerAddr(r.RemoteAddr)
}

// observe records one answered request: its metrics, and its access-log
// line when the access log is on.
func (s *Server) observe(_ io.Writer, p handlers.LogFormatterParams) {
	route := routeName(p.URL.Path)
	elapsed := time.Since(p.TimeStamp) // the handler stamps real time
	s.metrics.requests.WithLabelValues(route, strconv.Itoa(p.StatusCode)).Inc()
	s.metrics.duration.WithLabelValues(route).Observe(elapsed.Seconds())
	if !s.opts.AccessLog {
		return
	}
	s.opts.Logger.LogAttrs(p.Request.Context(), slog.LevelInfo, "request",
		slog.String("client_ip", clientFrom(p.Request).String()),
		slog.String("method", p.Request.Method),
		slog.String("route", route),
		slog.String("uri", p.URL.RequestURI()),
		slog.Int("status", p.StatusCode),
		slog.Int("bytes", p.Size),
		slog.Duration("duration", elapsed),
	)
}

// recoverPanics turns a panic anywhere inside it into a 500 problem, with
// the headers already set (CORS, rate limit) kept. The panic goes to the
// error log, never to the client. When the answer had already begun, the
// connection is dropped instead, as net/http does.
func (s *Server) recoverPanics(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		tw := &trackingWriter{ResponseWriter: w}
		defer func() {
			v := recover()
			if v == nil {
				return
			}
			if v == http.ErrAbortHandler {
				panic(v)
			}
			s.opts.Logger.Error("panic serving a request", slog.String("method", r.Method), slog.String("path", r.URL.Path),
				slog.Any("panic", v), slog.String("stack", string(debug.Stack())))
			if tw.wroteHeader {
				panic(http.ErrAbortHandler)
			}
			h := w.Header()
			h.Del("Content-Encoding")
			h.Del("Retry-After")
			writeProblem(w, http.StatusInternalServerError, "the server could not answer this request", nil)
		}()
		next.ServeHTTP(tw, r)
	})
}

// trackingWriter records whether the answer has begun.
type trackingWriter struct {
	http.ResponseWriter
	wroteHeader bool
}

func (t *trackingWriter) WriteHeader(status int) {
	t.wroteHeader = true
	t.ResponseWriter.WriteHeader(status)
}

func (t *trackingWriter) Write(b []byte) (int, error) {
	t.wroteHeader = true
	return t.ResponseWriter.Write(b)
}
