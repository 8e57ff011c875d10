package commands

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"

	"github.com/urfave/cli/v2"

	"ballot/archive"
	"ballot/commands/gcpace"
	"ballot/dataset"
)

func serveCommand() *cli.Command {
	flags := []cli.Flag{
		&cli.StringFlag{Name: "config", Usage: "configuration `FILE` (default: config.toml when present)"},
	}
	for _, s := range settings {
		flags = append(flags, s.newFlag())
	}
	return &cli.Command{
		Name:  "serve",
		Usage: "serve the public API",
		Description: "Serves the dataset, or the archive of elections, in --data (default: the\n" +
			"embedded Malta 2022 dataset) as a read-only JSON API under /api/public/v1/, as\n" +
			"pages for people under / (unless --pages=false), and health, metrics and reload\n" +
			"on the admin listener; of an archive, its current election. SIGHUP (or POST\n" +
			"/reload on the admin listener, or a change on disk with --watch) loads the data,\n" +
			"every election of it, and the TLS certificate, again and serves it if it is\n" +
			"valid, the whole of it.\n" +
			"SIGINT or SIGTERM stop it after letting requests in flight finish.",
		Flags:        flags,
		OnUsageError: onUsageError,
		Action:       serve,
	}
}

// configFrom resolves serve's configuration: defaults, the file, then
// environment variables and flags. A bad setting is a usage error (exit 2)
// whichever source it comes from, named with that source: "config FILE",
// "environment variable BALLOT_KEY" or "flag --key".
func configFrom(c *cli.Context) (Config, error) {
	if c.NArg() > 0 {
		return Config{}, usagef("serve takes no arguments, got %q", c.Args().First())
	}
	path, required := configPath(c)
	cfg, inFile, err := decodeConfig(path, required)
	if err != nil {
		return cfg, usageError{err}
	}
	for _, s := range settings {
		if err := s.apply(c, &cfg); err != nil {
			return cfg, usagef("%s: %w", s.source(c), err)
		}
	}
	// The values are checked once, with every source applied: a flag may
	// correct a value of the file, or complete it.
	if err := cfg.check(); err != nil {
		return cfg, usageError{fromSource(c, path, inFile, err)}
	}
	// Checked here, not with the file: the file may set watch and a flag
	// or variable the data directory.
	if cfg.Watch && cfg.Data == "" {
		err := badSetting(errors.New("watch needs a dataset directory (--data or data): the embedded dataset never changes"), "watch")
		return cfg, usageError{fromSource(c, path, inFile, err)}
	}
	return cfg, nil
}

// configPath is the configuration file serve and validate read: --config,
// which must exist, or config.toml in the working directory when present.
func configPath(c *cli.Context) (path string, required bool) {
	if c.IsSet("config") {
		return c.String("config"), true
	}
	return DefaultConfigFile, false
}

// fromSource prefixes a refused setting with where its value came from:
// of the keys the error is about, the first that a flag, a variable or the
// file set.
func fromSource(c *cli.Context, path string, inFile func(string) bool, err error) error {
	var bad settingError
	if !errors.As(err, &bad) {
		return err
	}
	for _, key := range bad.keys {
		for _, s := range settings {
			if s.key != key {
				continue
			}
			if src := s.source(c); src != "" {
				return fmt.Errorf("%s: %w", src, err)
			}
		}
		if inFile(key) {
			return fmt.Errorf("config %s: %w", path, err)
		}
	}
	return err
}

// loadArchive loads the archive (or the dataset) in dir, or the embedded
// one, with files of at most maxBytes (0: the default). It returns ctx's
// error as soon as ctx ends: a SIGTERM during a long load stops serve at
// once, and the load left behind stops at its next check. The garbage
// collector runs at gcpace.LoadPercent meanwhile.
func loadArchive(ctx context.Context, dir string, opts dataset.Options) (*archive.Archive, error) {
	if dir == "" {
		return archive.Default()
	}
	return untilDone(ctx, func() (*archive.Archive, error) {
		defer gcpace.Load()()
		return archive.LoadDirContext(ctx, dir, opts)
	}, func() error {
		return fmt.Errorf("stopped while loading the dataset: %w", context.Cause(ctx))
	})
}

// untilDone runs f in a goroutine of its own and returns what it returns,
// or stopped's error as soon as ctx ends: a signal stops the command at
// once, and the work left behind stops at its next check of ctx.
func untilDone[T any](ctx context.Context, f func() (T, error), stopped func() error) (T, error) {
	type result struct {
		v   T
		err error
	}
	done := make(chan result, 1)
	go func() {
		v, err := f()
		done <- result{v, err}
	}()
	select {
	case r := <-done:
		if ctx.Err() == nil {
			return r.v, r.err
		}
	case <-ctx.Done():
	}
	var zero T
	return zero, stopped()
}

// openArchive loads the archive for serve and query, with files of at
// most maxBytes. An invalid one is reported on stderr exactly as validate
// reports it, and fails the command.
func openArchive(c *cli.Context, dir string, maxBytes int) (*archive.Archive, error) {
	arch, err := loadArchive(c.Context, dir, dataset.Options{MaxFileBytes: int64(maxBytes)})
	var report *dataset.Report
	if errors.As(err, &report) {
		if werr := writeReport(c.App.ErrWriter, c.App.ErrWriter, "text", checkedSubject{what: subjectOf(dir)}, report, false); werr != nil {
			return nil, werr
		}
		return nil, quietError{ExitFailure}
	}
	return arch, err
}

func newLogger(w io.Writer, format string) *slog.Logger {
	if format == "json" {
		return slog.New(slog.NewJSONHandler(w, nil))
	}
	return slog.New(slog.NewTextHandler(w, nil))
}

// serve opens the service, runs it until a signal or a failure, and closes
// it: see service.
func serve(c *cli.Context) error {
	var s service
	defer s.close()
	if err := s.open(c); err != nil {
		return err
	}
	return s.run(c.Context)
}
