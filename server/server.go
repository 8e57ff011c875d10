// Package server is ballot's HTTP layer: the public, read-only JSON API over
// a loaded dataset, with CORS, per-client rate limits, conditional requests
// and compression. It knows nothing of flags or configuration files.
package server

import (
	"io"
	"log"
	"net/http"
	"strconv"
	"sync/atomic"
	"time"

	"ballot/dataset"
	"ballot/server/ratelimit"
)

// Options tune the server. The zero value of a field means its default.
type Options struct {
	// CacheMaxAge is the max-age of Cache-Control on successful answers.
	// Zero means the default, 60 s; a negative value means max-age=0, so
	// caches revalidate every time.
	CacheMaxAge time.Duration
	// RateLimit is the number of requests a client may make to one
	// endpoint in one window (default 60).
	RateLimit int
	// RateWindow is the length of a client's window (default one minute).
	RateWindow time.Duration
	// MaxClients bounds the number of rate-limit counters kept in memory
	// (default 1,000,000); the oldest windows are dropped first.
	MaxClients int
	// IPv6Prefix is the prefix length by which IPv6 clients are counted
	// (default 64: one counter per /64).
	IPv6Prefix int
	// AccessLog receives one line per request in Apache's combined log
	// format; nil means no access log.
	AccessLog io.Writer
	// ErrorLog receives what clients are not shown, such as a panic in a
	// handler (default: the standard logger).
	ErrorLog *log.Logger
	// Now is the clock (default time.Now); tests fix it.
	Now func() time.Time
}

func (o Options) withDefaults() Options {
	switch {
	case o.CacheMaxAge == 0:
		o.CacheMaxAge = 60 * time.Second
	case o.CacheMaxAge < 0:
		o.CacheMaxAge = 0
	}
	if o.RateLimit <= 0 {
		o.RateLimit = 60
	}
	if o.RateWindow <= 0 {
		o.RateWindow = time.Minute
	}
	if o.MaxClients <= 0 {
		o.MaxClients = 1_000_000
	}
	if o.IPv6Prefix <= 0 || o.IPv6Prefix > 128 {
		o.IPv6Prefix = 64
	}
	if o.ErrorLog == nil {
		o.ErrorLog = log.Default()
	}
	if o.Now == nil {
		o.Now = time.Now
	}
	return o
}

// Server answers the public API for the dataset it currently holds.
type Server struct {
	// data is read once per request, so a reload can swap it while
	// requests already running finish on the dataset they started with.
	data         atomic.Pointer[dataset.Dataset]
	opts         Options
	limiter      *ratelimit.Limiter
	cacheControl string
	handler      http.Handler
}

// New returns a server answering for ds.
func New(ds *dataset.Dataset, opts Options) *Server {
	opts = opts.withDefaults()
	s := &Server{
		opts:         opts,
		limiter:      ratelimit.New(opts.RateLimit, opts.RateWindow, opts.MaxClients, opts.Now),
		cacheControl: "public, max-age=" + strconv.Itoa(int(opts.CacheMaxAge/time.Second)),
	}
	s.data.Store(ds)
	s.handler = s.routes()
	return s
}

// ServeHTTP answers one request.
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	s.handler.ServeHTTP(w, r)
}
