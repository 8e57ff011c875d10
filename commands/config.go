package commands

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/BurntSushi/toml"
)

// Config is the configuration of serve: defaults in code, then the config
// file, then environment variables and flags.
type Config struct {
	// Listen is the address the public API listens on.
	Listen string `toml:"listen"`
	// Data is a dataset directory; empty means the embedded dataset.
	Data string `toml:"data"`
	// CacheMaxAge is the max-age, in seconds, of Cache-Control on answers.
	CacheMaxAge int `toml:"cache_max_age"`
	// RateLimit is the number of requests per minute a client may make to
	// each endpoint.
	RateLimit int `toml:"rate_limit"`
	// AccessLog writes one line per request to stderr.
	AccessLog bool `toml:"access_log"`
}

// DefaultConfig is the configuration with no file, variable or flag.
func DefaultConfig() Config {
	return Config{
		Listen:      ":8080",
		CacheMaxAge: 60,
		RateLimit:   60,
		AccessLog:   true,
	}
}

// DefaultConfigFile is read when present and no --config is given.
const DefaultConfigFile = "config.toml"

// LoadConfig decodes the file at path over the defaults. A missing file is
// an error only when required. Unknown keys and invalid values are errors
// naming the key. A relative data directory is taken relative to the file.
func LoadConfig(path string, required bool) (Config, error) {
	cfg := DefaultConfig()
	b, err := os.ReadFile(path)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) && !required {
			return cfg, nil
		}
		return cfg, fmt.Errorf("config %s: %w", path, errors.Unwrap(err))
	}
	md, err := toml.Decode(string(b), &cfg)
	if err != nil {
		var perr toml.ParseError
		if errors.As(err, &perr) {
			return cfg, fmt.Errorf("config %s:%d:%d: %s", path, perr.Position.Line, perr.Position.Col, perr.Message)
		}
		return cfg, fmt.Errorf("config %s: %v", path, err)
	}
	if keys := md.Undecoded(); len(keys) > 0 {
		names := make([]string, len(keys))
		for i, k := range keys {
			names[i] = k.String()
		}
		return cfg, fmt.Errorf("config %s: unknown key %s (known keys: listen, data, cache_max_age, rate_limit, access_log)", path, strings.Join(names, ", "))
	}
	if cfg.Data != "" && !filepath.IsAbs(cfg.Data) {
		cfg.Data = filepath.Join(filepath.Dir(path), cfg.Data)
	}
	if err := cfg.check(); err != nil {
		return cfg, fmt.Errorf("config %s: %w", path, err)
	}
	return cfg, nil
}

// check refuses values no server could run with, naming the key and what it
// accepts.
func (c Config) check() error {
	switch {
	case strings.TrimSpace(c.Listen) == "":
		return errors.New("listen must be an address such as \":8080\" or \"127.0.0.1:8080\"")
	case c.CacheMaxAge < 0:
		return errors.New("cache_max_age must be a number of seconds, 0 or more")
	case c.RateLimit < 1:
		return errors.New("rate_limit must be a number of requests per minute, 1 or more")
	}
	return nil
}
