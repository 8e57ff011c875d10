package commands

import (
	"errors"
	"fmt"
	"io"
	"log"
	"net"
	"time"

	"github.com/urfave/cli/v2"

	"ballot/dataset"
	"ballot/server"
)

func serveCommand() *cli.Command {
	return &cli.Command{
		Name:  "serve",
		Usage: "serve the public API",
		Description: "Serves the dataset in --data (default: the embedded Malta 2022 dataset) as a\n" +
			"read-only JSON API under /api/public/v1/. Stops on SIGINT or SIGTERM after\n" +
			"letting requests in flight finish.",
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "config", Usage: "configuration file (default: config.toml when present)"},
			&cli.StringFlag{Name: "listen", Usage: "address to listen on (default \":8080\")", EnvVars: []string{"BALLOT_LISTEN"}},
			&cli.StringFlag{Name: "data", Usage: "dataset directory (default: the embedded dataset)", EnvVars: []string{"BALLOT_DATA"}},
			&cli.IntFlag{Name: "rate-limit", Usage: "requests per minute per client and endpoint (default 60)", EnvVars: []string{"BALLOT_RATE_LIMIT"}},
			&cli.IntFlag{Name: "cache-max-age", Usage: "Cache-Control max-age in seconds (default 60)", EnvVars: []string{"BALLOT_CACHE_MAX_AGE"}},
			&cli.BoolFlag{Name: "access-log", Usage: "log one line per request to stderr (default true)", EnvVars: []string{"BALLOT_ACCESS_LOG"}},
		},
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
	cfg, err := LoadConfig(path, required)
	if err != nil {
		return cfg, err
	}
	if c.IsSet("listen") {
		cfg.Listen = c.String("listen")
	}
	if c.IsSet("data") {
		cfg.Data = c.String("data")
	}
	if c.IsSet("rate-limit") {
		cfg.RateLimit = c.Int("rate-limit")
	}
	if c.IsSet("cache-max-age") {
		cfg.CacheMaxAge = c.Int("cache-max-age")
	}
	if c.IsSet("access-log") {
		cfg.AccessLog = c.Bool("access-log")
	}
	if err := cfg.check(); err != nil {
		return cfg, usageError{err}
	}
	return cfg, nil
}

// loadDataset loads the dataset in dir, or the embedded one.
func loadDataset(dir string) (*dataset.Dataset, error) {
	if dir == "" {
		return dataset.Default()
	}
	return dataset.LoadDir(dir)
}

// openDataset loads the dataset for serve and query. An invalid dataset is
// reported on stderr exactly as validate reports it, and fails the command.
func openDataset(c *cli.Context, dir string) (*dataset.Dataset, error) {
	ds, err := loadDataset(dir)
	var report *dataset.Report
	if errors.As(err, &report) {
		if werr := writeReport(c.App.ErrWriter, c.App.ErrWriter, "text", report, false); werr != nil {
			return nil, werr
		}
		return nil, quietError{ExitFailure}
	}
	return ds, err
}

func serve(c *cli.Context) error {
	cfg, err := configFrom(c)
	if err != nil {
		return err
	}
	stderr := c.App.ErrWriter
	ds, err := openDataset(c, cfg.Data)
	if err != nil {
		return err
	}
	for _, w := range ds.Warnings {
		_, _ = fmt.Fprintf(stderr, "ballot: warning: %s\n", w)
	}
	var accessLog io.Writer
	if cfg.AccessLog {
		accessLog = stderr
	}
	maxAge := time.Duration(cfg.CacheMaxAge) * time.Second
	if maxAge == 0 {
		maxAge = -1 // server.Options: max-age=0, not the default
	}
	errorLog := log.New(stderr, "ballot: ", 0)
	srv := server.New(ds, server.Options{
		CacheMaxAge: maxAge,
		RateLimit:   cfg.RateLimit,
		AccessLog:   accessLog,
		ErrorLog:    errorLog,
	})
	ln, err := net.Listen("tcp", cfg.Listen)
	if err != nil {
		return fmt.Errorf("cannot listen on %s: %w", cfg.Listen, err)
	}
	_, _ = fmt.Fprintf(stderr, "ballot: serving %q (version %.12s) on http://%s%s/\n", ds.Manifest.Title, ds.Version, ln.Addr(), server.BasePath)
	err = server.Serve(c.Context, ln, srv, server.Timeouts{}, errorLog)
	_, _ = fmt.Fprintln(stderr, "ballot: stopped")
	return err
}
