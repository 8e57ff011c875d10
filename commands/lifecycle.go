package commands

import (
	"context"
	"fmt"
	"log/slog"
	"net"
	"os"
	"os/signal"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/urfave/cli/v2"

	"ballot/archive"
	"ballot/commands/gcpace"
	"ballot/commands/logbuffer"
	"ballot/dataset"
	"ballot/server"
	"ballot/server/ratelimit"
)

// service is serve's lifecycle, in three steps:
//
//  1. open catches SIGHUP, reads the configuration, loads the archive,
//     opens the rate-limit store, reads the TLS certificate and listens on
//     both addresses: whatever can stop serve from starting stops it here,
//     before the "serving" lines, and a busy port fails at once.
//  2. run serves until the context ends (SIGINT or SIGTERM) or a listener
//     fails, reloading on SIGHUP, on a change with --watch and on POST
//     /reload.
//  3. close lets what run started finish (a reload in flight, up to
//     shutdown_timeout; the rate-limit sync) and releases what open
//     opened, the last first.
//
// open records each resource as it opens it, so close, which is safe to
// call after an open that failed part way, releases exactly those.
type service struct {
	cfg Config
	// hup receives SIGHUP from the start of open; until run serves,
	// starting takes the signals up (nil once run has taken over).
	hup      chan os.Signal
	starting *startupHangups
	// Every log line, access log or not, goes out through stderr, in
	// order: within 100 ms, when 64 KiB have gathered, once serve is
	// listening, and when it stops.
	stderr  *logbuffer.Writer
	logger  *slog.Logger
	arch    *archive.Archive      // the archive served first
	store   *ratelimit.RedisStore // nil: counts in this process alone
	srv     *server.Server
	cert    *certificate    // nil: plain HTTP
	ln      net.Listener    // the public listener, TLS when cert is set
	adminLn net.Listener    // nil: no admin listener
	watcher *datasetWatcher // nil without --watch

	// serving is set once run has set the memory limit and the
	// collector's pace: from then on, each dataset the server prepares
	// (a reload's) sets the pace again (paceLoad).
	serving atomic.Bool

	// What run started, for close to wait for; nil if run never ran.
	limitSync <-chan struct{}
	releasing <-chan struct{}
	reloading <-chan struct{}
}

// paceLoad paces the collector while the server prepares a dataset, which
// allocates as a load does (gcpace.Load). Once serve is serving, its end
// sets the serving pace again, for the dataset now served: a reload may
// bring one much larger or smaller than the first.
func (s *service) paceLoad() (restore func()) {
	end := gcpace.Load()
	return func() {
		end()
		if _, set := operatorGOGC(); s.serving.Load() && !set {
			paceServing(s.logger, liveHeap())
		}
	}
}

// open prepares everything serve needs before it serves; see service.
func (s *service) open(c *cli.Context) error {
	// SIGHUP is caught before anything else: a publisher may send it while
	// a large dataset loads, and by default it would end the process.
	s.hup = make(chan os.Signal, 1)
	signal.Notify(s.hup, syscall.SIGHUP)
	var err error
	if s.cfg, err = configFrom(c); err != nil {
		return err
	}
	s.stderr = logbuffer.New(c.App.ErrWriter, 64<<10, 100*time.Millisecond)
	s.logger = newLogger(s.stderr, s.cfg.LogFormat)
	s.starting = takeStartupHangups(s.hup, s.logger)

	arch, err := openArchive(c, s.cfg.Data, s.cfg.MaxDatasetBytes)
	if err != nil {
		return err
	}
	// The server serves every election; the archive's warnings are
	// logged once here: the current election's, and how many the others
	// have.
	s.arch = arch
	server.LogArchiveWarnings(s.logger, arch)
	opts := s.cfg.serverOptions(s.logger)
	opts.PaceGC = s.paceLoad
	if s.cfg.LogFormat == "text" {
		opts.AccessLogText = s.stderr // the lines of the text logger, written by hand
	}
	if s.store, err = openRateLimitStore(s.cfg.RateLimitStore); err != nil {
		return err
	}
	if s.store != nil {
		opts.RateLimitStore = s.store
	}
	s.srv = server.New(s.arch, opts)
	if s.cfg.TLSCertFile != "" {
		if s.cert, err = loadCertificate(s.cfg.TLSCertFile, s.cfg.TLSKeyFile); err != nil {
			return err
		}
		s.logger.Info("TLS certificate loaded", certAttrs(s.cert.current.Load())...)
	}
	if err := s.listen(c.IsSet("admin-listen")); err != nil {
		return err
	}
	if s.cfg.Watch {
		if s.watcher, err = watchDataset(s.cfg.Data, s.logger); err != nil {
			return fmt.Errorf("cannot watch %s (watch): %w", s.cfg.Data, err)
		}
	}
	return nil
}

// listen listens on both addresses. The admin listener's default address
// being taken is not fatal unless adminSet: the flag asked for it.
func (s *service) listen(adminSet bool) error {
	ln, err := net.Listen("tcp", s.cfg.Listen)
	if err != nil {
		return fmt.Errorf("cannot listen on %s: %w", s.cfg.Listen, err)
	}
	s.ln = ln
	if s.cert != nil {
		s.ln = s.cert.listener(ln) // closing it closes ln
	}
	if s.cfg.AdminListen == "" {
		return nil
	}
	adminLn, err := net.Listen("tcp", s.cfg.AdminListen)
	switch {
	case err != nil && s.cfg.AdminListen == DefaultConfig().AdminListen && !adminSet:
		// The default address is taken, most likely by another
		// instance: serve the public API all the same.
		s.logger.Warn("admin listener not started: its default address is in use; set admin_listen", slog.String("address", s.cfg.AdminListen), slog.String("error", err.Error()))
	case err != nil:
		return fmt.Errorf("cannot listen on %s (admin_listen): %w", s.cfg.AdminListen, err)
	default:
		s.adminLn = adminLn
	}
	return nil
}

// run serves until ctx ends or a listener fails, and returns the first
// failure; see service.
func (s *service) run(ctx context.Context) error {
	// A reload reads only regular files of bounded size, so it ends by
	// itself: one under way when SIGTERM comes is finished, not cancelled.
	// Every reload (SIGHUP, POST /reload, --watch) reads the certificate
	// again too, so a renewed one is served without a restart; a bad one
	// is logged and the old one kept.
	loadCtx := context.WithoutCancel(ctx)
	load := func() (*archive.Archive, error) {
		if s.cert != nil {
			s.cert.reload(s.logger)
		}
		limit, source := processMemoryLimit()
		if err := reloadFits(s.cfg.Data, limit, source); err != nil {
			return nil, err
		}
		// Every election loads and passes, or the reload is refused
		// whole, naming the election.
		return loadArchive(loadCtx, s.cfg.Data, dataset.Options{MaxFileBytes: int64(s.cfg.MaxDatasetBytes)})
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	s.limitSync = runLimitSync(ctx, s.srv)
	s.releasing = runRelease(ctx, s.srv, s.logger, releaseEvery, server.IdleElection)
	// --watch: a change on disk asks the same goroutine as SIGHUP for a
	// reload, so there is one reload at a time and the end waits for it.
	var changed chan struct{}
	if s.watcher != nil {
		changed = make(chan struct{}, 1)
		go s.watcher.run(ctx, func() {
			select {
			case changed <- struct{}{}:
			default: // a reload is already asked for; it reads the newest files
			}
		})
	}
	// From here on SIGHUP reloads. One that came while starting is put
	// back: the load under way then may have read the files from before
	// the change the signal announced.
	if s.starting.end() {
		select {
		case s.hup <- syscall.SIGHUP:
		default: // another came since, and stands for both
		}
	}
	s.starting = nil

	s.announce()
	// After the serving lines, which people and scripts look for first,
	// and before any reload, so the limit is computed on one dataset.
	limitMemory(s.logger, s.srv.CounterBytes(), s.srv.PageBytes())
	// The limit is measured with every election held, as the server may
	// come to hold them all; then the past ones are let go until asked
	// for, and the collector paced for the heap left.
	if released := s.srv.ReleaseIdle(time.Now()); len(released) > 0 {
		repace(s.logger, liveHeap())
		s.logger.Info("past elections let go until asked for", slog.Int("elections", len(released)))
	}
	s.serving.Store(true)
	reloading := make(chan struct{})
	s.reloading = reloading
	go func() {
		defer close(reloading)
		reloadOnHangup(ctx, s.hup, changed, s.srv, load, s.logger)
	}()

	t := s.cfg.timeouts()
	errorLog := slog.NewLogLogger(s.logger.Handler(), slog.LevelWarn)
	errs := make(chan error, 2)
	running := 1
	go func() { errs <- server.Serve(ctx, s.ln, s.srv, t, errorLog) }()
	if s.adminLn != nil {
		running++
		go func() {
			errs <- server.Serve(ctx, s.adminLn, s.srv.AdminHandler(load), server.AdminTimeouts(t.Shutdown), errorLog)
		}()
	}
	// Both stop when either fails or the context ends (SIGINT, SIGTERM).
	var first error
	for range running {
		if err := <-errs; err != nil && first == nil {
			first = err
			cancel()
		}
	}
	return first
}

// title is the title the "serving" lines give: the current election's.
func (s *service) title() string { return s.arch.Current().Dataset().Manifest.Title }

// announce writes the "serving" lines and flushes them out.
func (s *service) announce() {
	scheme := "http"
	if s.cert != nil {
		scheme = "https"
	}
	if s.cfg.LogFormat == "text" {
		// A line for the person who started it (and for tests that start
		// it on port 0 to learn the address).
		_, _ = fmt.Fprintf(s.stderr, "ballot: serving %q (version %.12s) on %s%s/\n", s.title(), s.arch.Version, openableURL(scheme, s.ln.Addr()), server.BasePath)
	}
	attrs := []any{slog.String("title", s.title()), slog.String("version", s.arch.Version), slog.String("api", openableURL(scheme, s.ln.Addr())+server.BasePath+"/")}
	if s.adminLn != nil {
		attrs = append(attrs, slog.String("admin", openableURL("http", s.adminLn.Addr())+"/"))
	}
	if !s.arch.Single() {
		attrs = append(attrs, slog.Int("elections", len(s.arch.Elections())))
	}
	s.logger.Info("serving", attrs...)
	_ = s.stderr.Flush()
}

// close ends serve; see service. Errors closing are not reported: serve's
// outcome is decided by then.
func (s *service) close() {
	if s.reloading != nil {
		s.drain()
	}
	if s.starting != nil { // open failed
		s.starting.end()
	}
	if s.watcher != nil {
		s.watcher.close()
	}
	if s.adminLn != nil {
		_ = s.adminLn.Close()
	}
	if s.ln != nil {
		_ = s.ln.Close()
	}
	if s.store != nil {
		_ = s.store.Close()
	}
	if s.stderr != nil {
		_ = s.stderr.Close()
	}
	if s.hup != nil {
		signal.Stop(s.hup)
	}
}

// drain waits for what run started, and says serve has stopped. The
// rate-limit sync stops before the store closes. A reload still running
// is waited for (up to shutdown_timeout), so its outcome is logged rather
// than lost.
func (s *service) drain() {
	<-s.limitSync // run's end has cancelled it, and the release loop
	<-s.releasing
	shutdown := s.cfg.timeouts().Shutdown
	select {
	case <-s.reloading:
	case <-time.After(shutdown):
		s.logger.Warn("stopping with a reload still running after shutdown_timeout: it is abandoned", slog.Duration("shutdown_timeout", shutdown))
	}
	s.logger.Info("stopped")
	if s.cfg.LogFormat == "text" {
		_, _ = fmt.Fprintln(s.stderr, "ballot: stopped")
	}
}

// startupHangups takes up SIGHUP while serve starts, before there is a
// dataset to reload, and logs each as it comes.
type startupHangups struct {
	stop chan struct{}
	came chan bool
}

func takeStartupHangups(hup <-chan os.Signal, logger *slog.Logger) *startupHangups {
	h := &startupHangups{stop: make(chan struct{}), came: make(chan bool, 1)}
	go func() {
		came := false
		for {
			select {
			case <-hup:
				came = true
				logger.Info("SIGHUP while starting: the dataset will be reloaded once it is served")
			case <-h.stop:
				h.came <- came
				return
			}
		}
	}()
	return h
}

// end stops taking SIGHUP up and reports whether one came. It is called
// once.
func (h *startupHangups) end() bool {
	close(h.stop)
	return <-h.came
}

// reloadOnHangup reloads the dataset on every SIGHUP, and on every change
// the watcher reports (changed is nil without --watch), until ctx ends. It
// logs each signal as it takes it up, before the reload; the outcome is
// logged and counted by the server.
func reloadOnHangup(ctx context.Context, hup <-chan os.Signal, changed <-chan struct{}, srv *server.Server, load func() (*archive.Archive, error), logger *slog.Logger) {
	reload := func() {
		logger.Info("SIGHUP: reloading the dataset")
		_, _ = srv.Reload(load)
	}
	for {
		select {
		case <-hup:
			reload()
		case <-changed: // the watcher has logged the change
			_, _ = srv.Reload(load)
		case <-ctx.Done():
			// A SIGHUP received before the end is honoured: when both
			// are ready, select picks one at random.
			select {
			case <-hup:
				reload()
			default:
			}
			return
		}
	}
}
