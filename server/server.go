// Package server is ballot's HTTP layer: the public, read-only JSON API over
// a loaded dataset, with CORS, per-client rate limits, conditional requests
// and compression, and the admin listener with health, metrics and reload.
// It knows nothing of flags or configuration files.
package server

import (
	"context"
	"io"
	"log/slog"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"net/http"

	"ballot/dataset"
	"ballot/server/ratelimit"
)

// MaxClients is the largest number of rate-limit counters a server can be
// asked to keep (Options.MaxClients).
const MaxClients = ratelimit.MaxClients

// Options tune the server. New takes them as given, so a caller starts from
// DefaultOptions and changes what it means to; the one exception is that a
// nil Logger discards and a nil Now is time.Now.
type Options struct {
	// CacheMaxAge is the max-age of Cache-Control on successful answers;
	// zero makes caches revalidate every time.
	CacheMaxAge time.Duration
	// CacheSMaxAge, CacheStaleWhileRevalidate and CacheStaleIfError, when
	// above zero, add s-maxage (RFC 9111) and stale-while-revalidate and
	// stale-if-error (RFC 5861) to that Cache-Control, for shared caches
	// and CDNs; zero leaves each out.
	CacheSMaxAge              time.Duration
	CacheStaleWhileRevalidate time.Duration
	CacheStaleIfError         time.Duration
	// RateLimit is the number of requests a client may make to one
	// endpoint in one window.
	RateLimit int
	// RateWindow is the length of a client's window.
	RateWindow time.Duration
	// MaxClients bounds the number of rate-limit counters kept in memory,
	// from 1 to MaxClients; the oldest windows are dropped first.
	MaxClients int
	// IPv6Prefix is the prefix length by which IPv6 clients are counted
	// (64: one counter per /64).
	IPv6Prefix int
	// ClientIP decides which address a request is counted under; its zero
	// value trusts no proxy and counts the TCP peer.
	ClientIP ClientIP
	// Logger receives the access log and what clients are not shown, such
	// as a panic in a handler.
	Logger *slog.Logger
	// AccessLog logs one line per request to Logger.
	AccessLog bool
	// Now is the clock; tests fix it.
	Now func() time.Time
	// RateLimitStore, when set, holds the rate-limit counts every replica
	// shares; nil counts in this process alone. Run RunLimitSync to keep
	// the counts in step with it.
	RateLimitStore ratelimit.Store
	// PublicURL is the API's public base URL, such as
	// "https://elections.example.org", from which the catalogue, the
	// OpenAPI description and the candidates' Link headers make their
	// URLs; a trailing slash is ignored. Empty, their URLs are relative.
	PublicURL string
	// Pages serves the HTML pages for people under / (pages.go); without
	// them, / is a 404 like every path that is no endpoint's.
	Pages bool
}

// DefaultOptions are the options ballot serves with when its operator sets
// none. The configuration's defaults are read from here, so each is written
// once. They log nothing: whether to keep an access log is the
// configuration's choice.
func DefaultOptions() Options {
	return Options{
		CacheMaxAge: 60 * time.Second,
		RateLimit:   60,
		RateWindow:  time.Minute,
		MaxClients:  1_000_000,
		IPv6Prefix:  64,
		Pages:       true,
	}
}

// Server answers the public API for the dataset it currently holds.
type Server struct {
	// data is read once per request, so a reload can swap it while
	// requests already running finish on the dataset they started with.
	data     atomic.Pointer[dataset.Dataset]
	docs     atomic.Pointer[documents] // the index, OpenAPI description and catalogue of data
	pages    atomic.Pointer[pageSet]   // the pages of data; nil when Options.Pages is off
	loadedAt atomic.Int64              // Unix nanoseconds
	reloadMu sync.Mutex                // one reload at a time

	opts              Options
	injectedClock     bool // opts.Now is not time.Now
	limiter           *ratelimit.Limiter
	limitSync         *ratelimit.Sync // nil without a RateLimitStore
	metrics           *metrics
	publicURL         string // with no trailing slash
	cacheControlValue []string
	limitValue        []string // X-RateLimit-Limit
	policyValue       []string // RateLimit-Policy
	handler           http.Handler
}

// New returns a server answering for ds with opts as given (see Options).
func New(ds *dataset.Dataset, opts Options) *Server {
	injected := opts.Now != nil
	if opts.Logger == nil {
		opts.Logger = slog.New(slog.NewTextHandler(io.Discard, nil))
	}
	if opts.Now == nil {
		opts.Now = time.Now
	}
	s := &Server{
		opts:          opts,
		injectedClock: injected,
		limiter:       ratelimit.New(opts.RateLimit, opts.RateWindow, opts.MaxClients, opts.Now),
		publicURL:     strings.TrimRight(opts.PublicURL, "/"),
		limitValue:    []string{strconv.Itoa(opts.RateLimit)},
		policyValue:   []string{`"endpoint";q=` + strconv.Itoa(opts.RateLimit) + ";w=" + strconv.Itoa(int(opts.RateWindow/time.Second))},
	}
	s.cacheControlValue = []string{cacheControl(opts)}
	if opts.RateLimitStore != nil {
		s.limitSync = ratelimit.NewSync(s.limiter, opts.RateLimitStore, ratelimit.SyncOptions{
			Logger: opts.Logger,
			Cycle:  func(d time.Duration) { s.metrics.syncCycle.Observe(d.Seconds()) },
		})
	}
	s.metrics = newMetrics(s)
	s.setDataset(ds)
	s.handler = s.routes()
	return s
}

// cacheControl is the Cache-Control of successful answers, made once: the
// max-age every cache follows, then the directives for shared caches that
// are set.
func cacheControl(opts Options) string {
	v := "public, max-age=" + strconv.Itoa(int(opts.CacheMaxAge/time.Second))
	for _, d := range []struct {
		name  string
		value time.Duration
	}{
		{"s-maxage", opts.CacheSMaxAge},
		{"stale-while-revalidate", opts.CacheStaleWhileRevalidate},
		{"stale-if-error", opts.CacheStaleIfError},
	} {
		if secs := int(d.value / time.Second); secs > 0 {
			v += ", " + d.name + "=" + strconv.Itoa(secs)
		}
	}
	return v
}

// RunLimitSync keeps the rate-limit counts in step with the RateLimitStore
// until ctx ends: it checks the store once (a store that does not answer is
// logged, and requests are counted here alone until it does), then syncs
// every 100 ms, off the request path. Without a store it returns at once.
func (s *Server) RunLimitSync(ctx context.Context) {
	if s.limitSync == nil {
		return
	}
	_ = s.limitSync.Start(ctx)
	s.limitSync.Run(ctx)
}

// ServeHTTP answers one request of the public API.
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	s.handler.ServeHTTP(w, r)
}

func (s *Server) setDataset(ds *dataset.Dataset) {
	// The documents first: a request reads each pointer once, and a
	// moment with new documents and old records is harmless.
	s.docs.Store(buildDocuments(ds, s.publicURL))
	if s.opts.Pages {
		s.pages.Store(buildPages(ds))
	}
	s.data.Store(ds)
	s.loadedAt.Store(s.opts.Now().UnixNano())
	s.metrics.datasetChanged(ds, s.opts.Now())
}

// Reload loads a dataset with load and serves it from the next request on.
// When load fails, the dataset being served stays, the failure is logged
// and counted, and the error is returned.
func (s *Server) Reload(load func() (*dataset.Dataset, error)) (*dataset.Dataset, error) {
	s.reloadMu.Lock()
	defer s.reloadMu.Unlock()
	ds, err := load()
	if err != nil {
		s.metrics.reloads.WithLabelValues("failure").Inc()
		s.opts.Logger.Error("reload refused: still serving the previous dataset",
			slog.String("version", s.data.Load().Version), slog.String("error", err.Error()))
		return nil, err
	}
	s.setDataset(ds)
	s.metrics.reloads.WithLabelValues("success").Inc()
	s.opts.Logger.Info("dataset reloaded", slog.String("title", ds.Manifest.Title), slog.String("version", ds.Version))
	for _, w := range ds.Warnings {
		s.opts.Logger.Warn("dataset warning", slog.String("problem", w.String()))
	}
	return ds, nil
}
