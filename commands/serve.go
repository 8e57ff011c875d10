package commands

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/urfave/cli/v2"

	"ballot/commands/logbuffer"
	"ballot/dataset"
	"ballot/server"
)

func serveCommand() *cli.Command {
	flags := []cli.Flag{
		&cli.StringFlag{Name: "config", Usage: "configuration `FILE` (default: config.toml when present)"},
	}
	for _, s := range settings {
		flags = append(flags, s.flag)
	}
	return &cli.Command{
		Name:  "serve",
		Usage: "serve the public API",
		Description: "Serves the dataset in --data (default: the embedded Malta 2022 dataset) as a\n" +
			"read-only JSON API under /api/public/v1/, as pages for people under / (unless\n" +
			"--pages=false), and health, metrics and reload on the admin listener. SIGHUP\n" +
			"(or POST /reload on the admin listener, or a change on disk with --watch) loads\n" +
			"the dataset, and the TLS certificate, again and serves it if it is valid.\n" +
			"SIGINT or SIGTERM stop it after letting requests in flight finish.",
		Flags:        flags,
		OnUsageError: onUsageError,
		Action:       serve,
	}
}

// configFrom resolves serve's configuration: defaults, the file, then
// environment variables and flags.
func configFrom(c *cli.Context) (Config, error) {
	if c.NArg() > 0 {
		return Config{}, usagef("serve takes no arguments, got %q", c.Args().First())
	}
	path, required := DefaultConfigFile, false
	if c.IsSet("config") {
		path, required = c.String("config"), true
	}
	file, err := decodeConfig(path, required)
	if err != nil {
		return file, err
	}
	cfg := file
	for _, s := range settings {
		if err := s.apply(c, &cfg); err != nil {
			return cfg, usageError{err}
		}
	}
	// The values are checked once, with every source applied; a value the
	// file alone gets wrong, and nothing overrides, is the file's mistake.
	if err := cfg.check(); err != nil {
		if ferr := file.check(); ferr != nil && ferr.Error() == err.Error() {
			return cfg, fmt.Errorf("config %s: %w", path, err)
		}
		return cfg, usageError{err}
	}
	// Checked here, not with the file: the file may set watch and a flag
	// or variable the data directory.
	if cfg.Watch && cfg.Data == "" {
		return cfg, usagef("watch needs a dataset directory (--data or data): the embedded dataset never changes")
	}
	return cfg, nil
}

// loadDataset loads the dataset in dir, or the embedded one, with files of
// at most maxBytes (0: the default). It returns ctx's error as soon as ctx
// ends: a SIGTERM during a long load stops serve at once, and the load left
// behind stops at its next check.
func loadDataset(ctx context.Context, dir string, maxBytes int) (*dataset.Dataset, error) {
	if dir == "" {
		return dataset.Default()
	}
	type result struct {
		ds  *dataset.Dataset
		err error
	}
	done := make(chan result, 1)
	go func() {
		ds, err := dataset.LoadDirContext(ctx, dir, dataset.Options{MaxFileBytes: int64(maxBytes)})
		done <- result{ds, err}
	}()
	select {
	case r := <-done:
		if ctx.Err() == nil {
			return r.ds, r.err
		}
	case <-ctx.Done():
	}
	return nil, fmt.Errorf("stopped while loading the dataset: %w", context.Cause(ctx))
}

// openDataset loads the dataset for serve and query. An invalid dataset is
// reported on stderr exactly as validate reports it, and fails the command.
func openDataset(c *cli.Context, dir string) (*dataset.Dataset, error) {
	return openDatasetWithin(c, dir, 0)
}

// openDatasetWithin is openDataset with files of at most maxBytes.
func openDatasetWithin(c *cli.Context, dir string, maxBytes int) (*dataset.Dataset, error) {
	ds, err := loadDataset(c.Context, dir, maxBytes)
	var report *dataset.Report
	if errors.As(err, &report) {
		if werr := writeReport(c.App.ErrWriter, c.App.ErrWriter, "text", report, false); werr != nil {
			return nil, werr
		}
		return nil, quietError{ExitFailure}
	}
	return ds, err
}

func newLogger(w io.Writer, format string) *slog.Logger {
	if format == "json" {
		return slog.New(slog.NewJSONHandler(w, nil))
	}
	return slog.New(slog.NewTextHandler(w, nil))
}

func serve(c *cli.Context) error {
	cfg, err := configFrom(c)
	if err != nil {
		return err
	}
	// Every log line, access log or not, goes out through one buffer, in
	// order: within 100 ms, when 64 KiB have gathered, once serve is
	// listening, and when it returns.
	stderr := logbuffer.New(c.App.ErrWriter, 64<<10, 100*time.Millisecond)
	defer stderr.Close()
	logger := newLogger(stderr, cfg.LogFormat)
	ds, err := openDatasetWithin(c, cfg.Data, cfg.MaxDatasetBytes)
	if err != nil {
		return err
	}
	for _, w := range ds.Warnings {
		logger.Warn("dataset warning", slog.String("problem", w.String()))
	}
	opts := cfg.serverOptions(logger)
	store, err := openRateLimitStore(cfg.RateLimitStore)
	if err != nil {
		return err
	}
	if store != nil {
		defer store.Close()
		opts.RateLimitStore = store
	}
	srv := server.New(ds, opts)
	scheme, cert := "http", (*certificate)(nil)
	if cfg.TLSCertFile != "" {
		if cert, err = loadCertificate(cfg.TLSCertFile, cfg.TLSKeyFile); err != nil {
			return err
		}
		scheme = "https"
		logger.Info("TLS certificate loaded", certAttrs(cert.current.Load())...)
	}

	// Listen on both addresses before serving, so a busy port fails at once.
	ln, err := net.Listen("tcp", cfg.Listen)
	if err != nil {
		return fmt.Errorf("cannot listen on %s: %w", cfg.Listen, err)
	}
	defer ln.Close()
	if cert != nil {
		ln = cert.listener(ln)
	}
	var adminLn net.Listener
	if cfg.AdminListen != "" {
		adminLn, err = net.Listen("tcp", cfg.AdminListen)
		switch {
		case err != nil && cfg.AdminListen == DefaultConfig().AdminListen && !c.IsSet("admin-listen"):
			// The default address is taken, most likely by another
			// instance: serve the public API all the same.
			logger.Warn("admin listener not started: its default address is in use; set admin_listen", slog.String("address", cfg.AdminListen), slog.String("error", err.Error()))
			adminLn = nil
		case err != nil:
			return fmt.Errorf("cannot listen on %s (admin_listen): %w", cfg.AdminListen, err)
		default:
			defer adminLn.Close()
		}
	}

	// A reload reads only regular files of bounded size, so it ends by
	// itself: one under way when SIGTERM comes is finished, not cancelled.
	// Every reload (SIGHUP, POST /reload, --watch) reads the certificate
	// again too, so a renewed one is served without a restart; a bad one
	// is logged and the old one kept.
	load := func() (*dataset.Dataset, error) {
		if cert != nil {
			cert.reload(logger)
		}
		return loadDataset(context.WithoutCancel(c.Context), cfg.Data, cfg.MaxDatasetBytes)
	}
	ctx, cancel := context.WithCancel(c.Context)
	defer cancel()
	limitSync := runLimitSync(ctx, srv)
	// SIGHUP is caught from here on: a publisher may send it as soon as the
	// "serving" line appears, and by default it would end the process.
	hup := make(chan os.Signal, 1)
	signal.Notify(hup, syscall.SIGHUP)
	defer signal.Stop(hup)
	// --watch: a change on disk asks the same goroutine as SIGHUP for a
	// reload, so there is one reload at a time and the end waits for it.
	var changed chan struct{}
	if cfg.Watch {
		w, err := watchDataset(cfg.Data, logger)
		if err != nil {
			return fmt.Errorf("cannot watch %s (watch): %w", cfg.Data, err)
		}
		defer w.close()
		changed = make(chan struct{}, 1)
		go w.run(ctx, func() {
			select {
			case changed <- struct{}{}:
			default: // a reload is already asked for; it reads the newest files
			}
		})
	}
	// A reload still running when the end comes is waited for (up to
	// shutdown_timeout), so its outcome is logged rather than lost.
	reloading := make(chan struct{})
	go func() {
		defer close(reloading)
		reloadOnHangup(ctx, hup, changed, srv, load, logger)
	}()

	if cfg.LogFormat == "text" {
		// A line for the person who started it (and for tests that start
		// it on port 0 to learn the address).
		_, _ = fmt.Fprintf(stderr, "ballot: serving %q (version %.12s) on %s%s/\n", ds.Manifest.Title, ds.Version, openableURL(scheme, ln.Addr()), server.BasePath)
	}
	attrs := []any{slog.String("title", ds.Manifest.Title), slog.String("version", ds.Version), slog.String("api", openableURL(scheme, ln.Addr())+server.BasePath+"/")}
	if adminLn != nil {
		attrs = append(attrs, slog.String("admin", openableURL("http", adminLn.Addr())+"/"))
	}
	logger.Info("serving", attrs...)
	_ = stderr.Flush()
	// After the serving lines, which people and scripts look for first.
	limitMemory(logger, srv.CounterBytes())

	t := cfg.timeouts()
	errorLog := slog.NewLogLogger(logger.Handler(), slog.LevelWarn)
	errs := make(chan error, 2)
	running := 1
	go func() { errs <- server.Serve(ctx, ln, srv, t, errorLog) }()
	if adminLn != nil {
		running++
		go func() {
			errs <- server.Serve(ctx, adminLn, srv.AdminHandler(load), server.AdminTimeouts(t.Shutdown), errorLog)
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
	cancel()
	<-limitSync // before the store closes
	select {
	case <-reloading:
	case <-time.After(t.Shutdown):
		logger.Warn("stopping with a reload still running after shutdown_timeout: it is abandoned", slog.Duration("shutdown_timeout", t.Shutdown))
	}
	logger.Info("stopped")
	if cfg.LogFormat == "text" {
		_, _ = fmt.Fprintln(stderr, "ballot: stopped")
	}
	return first
}

// reloadOnHangup reloads the dataset on every SIGHUP, and on every change
// the watcher reports (changed is nil without --watch), until ctx ends. It
// logs each signal as it takes it up, before the reload; the outcome is
// logged and counted by the server.
func reloadOnHangup(ctx context.Context, hup <-chan os.Signal, changed <-chan struct{}, srv *server.Server, load func() (*dataset.Dataset, error), logger *slog.Logger) {
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
