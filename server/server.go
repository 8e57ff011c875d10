// Package server is ballot's HTTP layer: the public, read-only JSON API over
// a loaded archive of elections (package archive; a dataset served alone is
// an archive of one) and the pages for people, with CORS, per-client rate
// limits, conditional requests and compression, and the admin listener with
// health, metrics and reload. It knows nothing of flags or configuration
// files.
//
// A map for newcomers:
//
//   - Where a route is declared: routes.go. Server.routes registers every
//     path on one gorilla/mux router, made once at start-up: the API's
//     endpoints from the endpoint table (Server.endpoints, itself made from
//     dataset.Table), each endpoint of a collection twice, at its path for
//     the current election and under an election's path
//     (/elections/{election}/…) for that one, by the same handler; then
//     the pages' paths (package pages names them), and the router's
//     NotFoundHandler and MethodNotAllowedHandler.
//   - Where headers are set: middleware.go. Server.chain composes each
//     route's middleware, in the order a request meets them: exchange (the
//     client's address, the time, recovery, metrics, the access log),
//     setCommonHeaders (CORS and the fixed headers), markPage (on a page's
//     route: the request marked as a page's, the Content-Security-Policy),
//     limitRate (the rate-limit headers and 429) and answerPreflight
//     (OPTIONS). What they know of a request lives in one place, the
//     exchange (stateOf).
//   - Where an answer is written: answer.go (writeAnswer: the ETag, 304,
//     gzip, the length and the body of every success, a body of 4 KiB or
//     more corked on plain TCP by cork.go) and problem.go
//     (writeError, every error: its kind decides the status, in one table;
//     a request marked as a page's gets the HTML page, any other
//     problem+json).
//   - Where a page is rendered: package pages renders the HTML; site.go
//     prepares the pages rendered at load and answers the pages' routes.
//   - What is served: server.go. A snapshot holds the archive and all
//     that was prepared from it: each election's dataset, answers and the
//     results of its common queries, the elections' and people's answers
//     (archive.go), the documents, and the current election's pages
//     (each other election's, and the current one's under its own path,
//     built at the first request for one of them); a reload builds a new
//     one, every election at once, and swaps one pointer.
//   - The documents of the API (index, OpenAPI, catalogue): docs.go. The
//     admin listener: admin.go. Listening and shutting down: listen.go;
//     what is known of a connection once it is accepted (its peer, and on
//     HTTP/1 the store of its responses' header values): connection.go.
//
// It imports pages, answers, ratelimit, archive and dataset, never commands:
// flags, configuration files and the process are the command line's, and
// come in as Options.
package server

import (
	"context"
	"errors"
	"io"
	"log/slog"
	"maps"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"net/http"

	"github.com/gorilla/mux"

	"ballot/answers"
	"ballot/archive"
	"ballot/dataset"
	"ballot/server/pages"
	"ballot/server/ratelimit"
)

// MaxClients is the largest number of rate-limit counters a server can be
// asked to keep (Options.MaxClients).
const MaxClients = ratelimit.MaxClients

// Options tune the server. New takes them as given, so a caller starts from
// DefaultOptions and changes what it means to; the exceptions are that a
// nil Logger discards, a nil Now is time.Now and a nil PaceGC paces nothing.
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
	// AccessLogText, when set, takes the access log's lines instead of
	// Logger, each written whole in one Write, in the format of
	// slog.TextHandler: the same line Logger would write when it is a
	// text handler on this writer, at a fraction of the cost.
	AccessLogText io.Writer
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
	// Pages serves the HTML pages for people under / (package pages); without
	// them, / is a 404 like every path that is no endpoint's.
	Pages bool
	// DataDir is the dataset directory reloads read, named with a refused
	// reload in the admin status; empty for the embedded dataset.
	DataDir string
	// Build is the build served, for the ballot_build_info metric.
	Build Build
	// PaceGC, when set, is called as a dataset's documents and pages are
	// prepared, which allocates as a load does, and the function it
	// returns once they are: the process's owner paces its garbage
	// collector there as it does for a load (ballot's commands lower
	// GOGC).
	PaceGC func() (restore func())
}

// Build names the build of ballot that serves: its module version and VCS
// commit ("devel" and "unknown" when the build did not record them).
type Build struct {
	Version, Commit string
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

// Server answers the public API for the archive of elections it
// currently holds.
type Server struct {
	// snap is what is served. A handler reads it once per request, so a
	// reload swaps it while requests already running finish on the one
	// they started with.
	snap     atomic.Pointer[snapshot]
	reloadMu sync.Mutex // one reload at a time
	// refused is the last reload refused, nil until one is.
	refused atomic.Pointer[refusal]

	opts              Options
	injectedClock     bool // opts.Now is not time.Now
	limiter           *ratelimit.Limiter
	limitSync         *ratelimit.Sync // nil without a RateLimitStore
	metrics           *metrics
	publicURL         string // with no trailing slash
	cacheControlValue []string
	limitValue        []string // X-RateLimit-Limit
	policyValue       []string // RateLimit-Policy
	endpointList      []endpoint
	router            *mux.Router
}

// snapshot is one archive of elections and everything prepared from it
// when it loaded: each election's snapshot, the answers of the elections
// and the people, the documents, and the current election's pages (the
// others', and the archive's own pages, when first asked for). It is
// immutable once a request has built what it asks for; a reload builds a
// new one, every election at once, and swaps the pointer.
type snapshot struct {
	// The current election's: the paths without an election answer
	// from it.
	*electionSnapshot
	arch *archive.Archive
	// newElection makes the snapshot of the i-th election of arch, of
	// its dataset ds (see electionAt).
	newElection func(i int, ds *dataset.Dataset) *electionSnapshot
	archive     *answers.ArchiveAnswers // the elections' and the people's answers
	docs        *documents              // the index, the OpenAPI description and the catalogue
	pages       *sitePages              // the current election's at today's paths; nil when Options.Pages is off
	// archivePages are the pages of the archive's elections and their
	// history, rendered when first asked for.
	archivePages *archivePages
	loadedAt     time.Time
}

// electionSnapshot is one election of the archive served and what was
// prepared from its dataset: the API's answers and the results of its
// common queries, and its pages under its own path. The current
// election's answers are prepared with the snapshot; another's when a
// request first asks for that election (ready), once, and each election's
// pages when a request first asks for one of them (sitePages): an archive
// of a century of elections, each checked and indexed at load, would
// otherwise take as long again to start, and hold the answers and pages of
// elections no one has asked for. A past election's snapshot is held with
// its dataset (archive.Held), and let go with it when the election goes
// unused (Server.ReleaseIdle).
type electionSnapshot struct {
	election *archive.Election
	ds       *dataset.Dataset
	answers  *answers.Answers // the API's answers of ds, once ready
	queries  preparedQueries  // the results of the common queries of ds, once ready
	once     sync.Once
	prepare  func()
	// pages are its pages under its own path (pages.ElectionPrefix),
	// once built.
	pages      *sitePages
	pagesOnce  sync.Once
	buildPages func() *sitePages
}

// ready prepares the election's answers and common queries, the first
// time it is called, and returns es.
func (es *electionSnapshot) ready() *electionSnapshot {
	es.once.Do(es.prepare)
	return es
}

// sitePages returns the election's pages under its own path, built the
// first time they are asked for, its answers with them (a districts page
// of a locality shows the API's answer).
func (es *electionSnapshot) sitePages() *sitePages {
	es.pagesOnce.Do(func() {
		es.ready()
		es.pages = es.buildPages()
	})
	return es.pages
}

// New returns a server answering for the archive a with opts as given
// (see Options).
func New(a *archive.Archive, opts Options) *Server {
	injected := opts.Now != nil
	if opts.Logger == nil {
		opts.Logger = slog.New(slog.NewTextHandler(io.Discard, nil))
	}
	if opts.Now == nil {
		opts.Now = time.Now
	}
	if opts.PaceGC == nil {
		opts.PaceGC = func() func() { return func() {} }
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
	s.endpointList = s.endpoints()
	routeNames := []string{pageRoute, otherRoute}
	for _, e := range s.endpointList {
		routeNames = append(routeNames, e.name)
	}
	s.metrics = newMetrics(s, routeNames)
	s.setArchive(a, false)
	s.router = s.routes()
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

// IdleElection is how long a past election of the archive goes without a
// request before its dataset, and the answers and pages made of it, are
// let go (ReleaseIdle): the collector marks every byte held at each
// collection, so data no one reads slows every request. The next request
// for it loads it again, from the bytes checked at load, in tens of
// milliseconds.
const IdleElection = 10 * time.Minute

// ReleaseIdle lets go of the past elections of the archive served that no
// request has used since cutoff (archive.Archive.Release), and returns
// their slugs.
func (s *Server) ReleaseIdle(cutoff time.Time) []string {
	return s.snap.Load().arch.Release(cutoff)
}

// ServeHTTP answers one request of the public listener: the router (see
// routes) matches its route, whose middleware chain and handler answer it.
//
// It serves the router's match as mux.Router.ServeHTTP does, but for one
// cost: that puts the route and its variables in the request's context
// whether a handler reads them or not, two copies of the request, three
// quarters of the bytes a request allocated. Here a route's variables (a
// record's key) are put where mux.Vars reads them only when it has some,
// with mux.SetURLVars, and the route is not put in the context:
// handlers do not call mux.CurrentRoute. The match, Router.Match, is the
// router's own, with any middleware registered with Router.Use.
//
// A request that frames a body with Transfer-Encoding is answered and its
// connection closed after the answer (RFC 9112 §6.1): with Content-Length
// beside it, it is the shape request smuggling takes, and net/http drops
// Content-Length before a handler sees the request, so any
// Transfer-Encoding counts. No request to this read-only API has a body.
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if len(r.TransferEncoding) > 0 {
		w.Header().Set("Connection", "close")
	}
	r = canonicalPath(r)
	m := routeMatches.Get().(*mux.RouteMatch)
	s.router.Match(r, m) // the NotFoundHandler matches what no route does
	h := m.Handler
	if len(m.Vars) > 0 {
		r = mux.SetURLVars(r, maps.Clone(m.Vars)) // the handler's own: m goes back to the pool
	}
	clear(m.Vars)
	*m = mux.RouteMatch{Vars: m.Vars}
	routeMatches.Put(m)
	h.ServeHTTP(w, r)
}

// routeMatches recycles the RouteMatch that Router.Match fills, with the
// map it puts a route's variables in (it makes one for every match when
// given none): the match escapes through the routes' matchers, so a
// RouteMatch of each request's own cost two allocations.
var routeMatches = sync.Pool{New: func() any { return &mux.RouteMatch{Vars: map[string]string{}} }}

// setArchive prepares the snapshot of the archive a, each election's and
// the archive's own answers, and serves it from the next request on. The
// metrics say so first, a reload counted (reloaded), so that whoever sees
// the new archive served also sees it in the metrics.
func (s *Server) setArchive(a *archive.Archive, reloaded bool) {
	defer s.opts.PaceGC()() // the answers, documents and pages allocate as a load does
	snap := &snapshot{arch: a, archive: answers.PrepareArchive(a, ElectionsPath), archivePages: &archivePages{}, loadedAt: s.opts.Now()}
	records := newRenderedPages() // one budget for every election's record pages
	snap.newElection = func(i int, ds *dataset.Dataset) *electionSnapshot {
		e := a.Elections()[i]
		current := e == a.Current()
		es := &electionSnapshot{election: e, ds: ds}
		es.prepare = func() {
			es.answers = answers.Prepare(ds)
			es.queries = s.prepareQueries(es, current)
		}
		es.buildPages = func() *sitePages { return buildPages(a, i, pages.ElectionBase(e.Record.Slug), records) }
		return es
	}
	for i, e := range a.Elections() {
		if e == a.Current() {
			snap.electionSnapshot = snap.newElection(i, e.Dataset()).ready()
			if s.opts.Pages {
				snap.pages = buildPages(a, i, "", records)
			}
		}
	}
	snap.docs = buildDocuments(a, newIndex(a, s.endpointList), s.publicURL)
	s.metrics.archiveChanged(a, snap.loadedAt)
	if reloaded {
		s.metrics.reloads.WithLabelValues("success").Inc()
	}
	s.snap.Store(snap)
}

// election returns the snapshot of the election whose collections a
// request asks for: the one its path names by slug or id, after
// ElectionsPath (the routes' election), or the current one for a path
// without an election. An election the archive does not hold is an
// *archive.NotFoundError, which names every election's slug.
func (snap *snapshot) election(r *http.Request) (*electionSnapshot, error) {
	key, named := electionKey(r.URL.Path)
	if !named {
		return snap.electionSnapshot, nil
	}
	i, err := snap.arch.ElectionIndex(key)
	if err != nil {
		return nil, err
	}
	return snap.electionAt(i).ready(), nil
}

// electionAt returns the snapshot of the i-th election of the archive, not
// yet ready: the current election's, made with the snapshot, or a past
// one's, made the first time it is asked for after its dataset was loaded,
// and let go with it (archive.Held).
func (snap *snapshot) electionAt(i int) *electionSnapshot {
	e := snap.arch.Elections()[i]
	if e == snap.arch.Current() {
		return snap.electionSnapshot
	}
	return e.Held().Made(snap, func(ds *dataset.Dataset) any { return snap.newElection(i, ds) }).(*electionSnapshot)
}

// refusal is a reload that was refused: when, the directory it read, and
// its first problems (every error of an invalid dataset is in the log).
type refusal struct {
	at       time.Time
	path     string
	problems []string
	count    int
}

// maxRefusalProblems is how many of a refused dataset's problems the admin
// status shows: enough to start fixing it, in a body meant for a glance.
const maxRefusalProblems = 5

func newRefusal(err error, at time.Time, path string) *refusal {
	r := &refusal{at: at, path: path}
	var report *dataset.Report
	if errors.As(err, &report) {
		r.count, _ = dataset.CountProblems(report.Errors)
		for _, p := range report.Errors[:min(len(report.Errors), maxRefusalProblems)] {
			r.problems = append(r.problems, p.String())
		}
		return r
	}
	r.count, r.problems = 1, []string{err.Error()}
	return r
}

// Reload loads an archive with load and serves it from the next request
// on, every election at once. When load fails (any election broken), the
// archive being served stays, every election of it, the failure is logged
// and counted, and the error is returned.
func (s *Server) Reload(load func() (*archive.Archive, error)) (*archive.Archive, error) {
	s.reloadMu.Lock()
	defer s.reloadMu.Unlock()
	a, err := load()
	if err != nil {
		r := newRefusal(err, s.opts.Now(), s.opts.DataDir)
		s.refused.Store(r)
		s.metrics.reloadFailed(r.at)
		s.opts.Logger.Error("reload refused: still serving the previous dataset",
			slog.String("version", s.snap.Load().arch.Version), slog.String("error", briefError(err)))
		return nil, err
	}
	s.setArchive(a, true)
	s.opts.Logger.Info("dataset reloaded", slog.String("title", a.Current().Dataset().Manifest.Title), slog.String("version", a.Version))
	LogArchiveWarnings(s.opts.Logger, a)
	return a, nil
}

// LoggedProblems is the most problems of a dataset one load logs: a
// dataset of a million unused parties would otherwise log a million lines
// on every reload. ballot validate lists more.
const LoggedProblems = 20

// LogArchiveWarnings logs a loaded archive's warnings: those of its
// current election (its files', and those the archive's rules find there),
// as LogWarnings does, then, of the other elections, how many there are in
// one line. An archive of a century of elections has its past ones' known
// defects and missing localities to warn of, which its publisher stated
// and validate lists; the current election is what an operator watches.
func LogArchiveWarnings(l *slog.Logger, a *archive.Archive) {
	if a.Single() {
		LogWarnings(l, a.Warnings)
		return
	}
	prefix := a.Current().Dir + "/"
	var current, past []dataset.Problem
	for _, w := range a.Warnings {
		if strings.HasPrefix(w.File, prefix) {
			current = append(current, w)
		} else {
			past = append(past, w)
		}
	}
	LogWarnings(l, current)
	if n, _ := dataset.CountProblems(past); n > 0 {
		l.Warn("warnings of the past elections, not logged one by one: ballot validate lists them", slog.Int("count", n), slog.Int("elections", len(a.Elections())-1))
	}
}

// LogWarnings logs a loaded dataset's warnings, one line each, up to
// LoggedProblems, then one line with how many more there are.
func LogWarnings(l *slog.Logger, ws []dataset.Problem) {
	logged := ws[:min(LoggedProblems, len(ws))]
	for _, w := range logged {
		l.Warn("dataset warning", slog.String("problem", w.String()))
	}
	// A Report's warnings are unmarked: counted as errors.
	all, _ := dataset.CountProblems(ws)
	shown, _ := dataset.CountProblems(logged)
	if more := all - shown; more > 0 {
		l.Warn("more dataset warnings, not logged: ballot validate lists up to "+dataset.Thousands(dataset.KeptOfAKind)+" of each kind", slog.Int("count", more))
	}
}

// briefError is a refused load's error for the log: a report with its
// first LoggedProblems problems.
func briefError(err error) string {
	var r *dataset.Report
	if errors.As(err, &r) {
		return r.Brief(LoggedProblems)
	}
	return err.Error()
}
