package commands

import (
	"fmt"
	"os"
	"strconv"
	"strings"

	"github.com/BurntSushi/toml"
	"github.com/urfave/cli/v2"
)

// setting is one configuration key with its flag and environment variable:
// key rate_limit is flag --rate-limit and variable BALLOT_RATE_LIMIT.
type setting struct {
	key   string
	flag  cli.Flag
	apply func(c *cli.Context, cfg *Config) error
}

// source names where s's value in c came from: "flag --key",
// "environment variable BALLOT_KEY", or "" when neither set it. The cli
// package tells a flag from a variable only by value: a variable whose
// value is the one in force is taken as the source, so a flag that repeats
// it is named as the variable (the same value, refused the same way).
func (s setting) source(c *cli.Context) string {
	name := flagName(s.key)
	if !c.IsSet(name) {
		return ""
	}
	v, ok := os.LookupEnv(envName(s.key))
	if _, isBool := s.flag.(*cli.BoolFlag); isBool && ok {
		b, err := strconv.ParseBool(strings.TrimSpace(v))
		ok = err == nil && b == c.Bool(name)
	} else if ok {
		ok = v == c.String(name)
	}
	if ok {
		return "environment variable " + envName(s.key)
	}
	return "flag --" + name
}

func flagName(key string) string { return strings.ReplaceAll(key, "_", "-") }
func envName(key string) string  { return "BALLOT_" + strings.ToUpper(key) }

// defaultText is the help's default of a setting, written as config.toml
// writes it ("5s", not 5000000000), so the help, the sample file and the
// README read alike.
func defaultText(v any) string {
	b, err := toml.Marshal(map[string]any{"v": v})
	if err != nil {
		// Only a type the encoder cannot write gets here: a mistake in
		// the settings table that the help test shows.
		return fmt.Sprint(v)
	}
	return strings.TrimSpace(strings.TrimPrefix(string(b), "v = "))
}

// valueSetting is a setting whose flag takes text, which read turns into
// the key's value, or refuses with an error that names the key.
func valueSetting[T any](key, usage string, field func(*Config) *T, read func(key, v string) (T, error)) setting {
	def := DefaultConfig()
	name := flagName(key)
	return setting{key,
		&cli.StringFlag{Name: name, Usage: usage, DefaultText: defaultText(*field(&def)), EnvVars: []string{envName(key)}},
		func(c *cli.Context, cfg *Config) error {
			if !c.IsSet(name) {
				return nil
			}
			v, err := read(key, c.String(name))
			if err != nil {
				return err
			}
			*field(cfg) = v
			return nil
		}}
}

func stringSetting(key, usage string, field func(*Config) *string) setting {
	return valueSetting(key, usage, field, func(_, v string) (string, error) { return v, nil })
}

func intSetting(key, usage string, field func(*Config) *int) setting {
	return valueSetting(key, usage, field, func(key, v string) (int, error) {
		n, err := strconv.Atoi(strings.TrimSpace(v))
		if err != nil {
			return 0, fmt.Errorf("%s must be a whole number, not %q", key, v)
		}
		return n, nil
	})
}

func durationSetting(key, usage string, field func(*Config) *Duration) setting {
	return valueSetting(key, usage, field, func(key, v string) (Duration, error) {
		var d Duration
		if err := d.UnmarshalText([]byte(v)); err != nil {
			return d, fmt.Errorf("%s: %w", key, err)
		}
		return d, nil
	})
}

// listSetting reads a comma-separated list from a flag or variable.
func listSetting(key, usage string, field func(*Config) *[]string) setting {
	return valueSetting(key, usage+" (comma-separated)", field, func(_, v string) ([]string, error) {
		var items []string
		for item := range strings.SplitSeq(v, ",") {
			if item = strings.TrimSpace(item); item != "" {
				items = append(items, item)
			}
		}
		return items, nil
	})
}

// boolSetting is a setting whose flag is a switch.
func boolSetting(key, usage string, field func(*Config) *bool) setting {
	def := DefaultConfig()
	name := flagName(key)
	return setting{key,
		&cli.BoolFlag{Name: name, Usage: usage, DefaultText: defaultText(*field(&def)), EnvVars: []string{envName(key)}},
		func(c *cli.Context, cfg *Config) error {
			if c.IsSet(name) {
				*field(cfg) = c.Bool(name)
			}
			return nil
		}}
}

// settings lists every configuration key, in the order config.toml and the
// README show them.
var settings = []setting{
	stringSetting("listen", "address of the public API", func(c *Config) *string { return &c.Listen }),
	stringSetting("public_url", "the API's public base `URL`, such as https://elections.example.org, for the catalogue's, OpenAPI's and Link headers' URLs; empty means relative URLs", func(c *Config) *string { return &c.PublicURL }),
	stringSetting("tls_cert_file", "PEM certificate `FILE` (with its chain) to serve HTTPS and HTTP/2; needs tls_key_file", func(c *Config) *string { return &c.TLSCertFile }),
	stringSetting("tls_key_file", "PEM private key `FILE` of tls_cert_file", func(c *Config) *string { return &c.TLSKeyFile }),
	stringSetting("admin_listen", "address of the admin listener (health, metrics, reload); empty turns it off", func(c *Config) *string { return &c.AdminListen }),
	stringSetting("data", "dataset `DIR`; empty means the embedded dataset", func(c *Config) *string { return &c.Data }),
	boolSetting("watch", "reload the dataset when its directory or symbolic link changes", func(c *Config) *bool { return &c.Watch }),
	intSetting("max_dataset_bytes", "largest dataset file, in bytes; a larger one is refused", func(c *Config) *int { return &c.MaxDatasetBytes }),
	intSetting("cache_max_age", "Cache-Control max-age of answers, in seconds", func(c *Config) *int { return &c.CacheMaxAge }),
	intSetting("cache_s_maxage", "Cache-Control s-maxage of answers for shared caches and CDNs, in seconds; 0 leaves it out", func(c *Config) *int { return &c.CacheSMaxAge }),
	intSetting("cache_stale_while_revalidate", "Cache-Control stale-while-revalidate of answers, in seconds; 0 leaves it out", func(c *Config) *int { return &c.CacheStaleWhileRevalidate }),
	intSetting("cache_stale_if_error", "Cache-Control stale-if-error of answers, in seconds; 0 leaves it out", func(c *Config) *int { return &c.CacheStaleIfError }),
	intSetting("rate_limit", "requests per minute per client and endpoint", func(c *Config) *int { return &c.RateLimit }),
	listSetting("trusted_proxies", "`CIDR` ranges of proxies whose forwarding header is believed", func(c *Config) *[]string { return &c.TrustedProxies }),
	stringSetting("forwarded_header", "the header those proxies write: X-Forwarded-For or Forwarded", func(c *Config) *string { return &c.ForwardedHeader }),
	intSetting("ipv6_prefix", "prefix length by which IPv6 clients are counted", func(c *Config) *int { return &c.IPv6Prefix }),
	intSetting("max_tracked_clients", "most rate-limit counters kept; the oldest windows are dropped first", func(c *Config) *int { return &c.MaxTrackedClients }),
	stringSetting("rate_limit_store", "where rate-limit counts live: memory (this process alone) or a redis:// or rediss:// `URL` whose counters every replica shares", func(c *Config) *string { return &c.RateLimitStore }),
	durationSetting("read_header_timeout", "time to read a request's headers", func(c *Config) *Duration { return &c.ReadHeaderTimeout }),
	durationSetting("read_timeout", "time to read a whole request", func(c *Config) *Duration { return &c.ReadTimeout }),
	durationSetting("write_timeout", "time to write an answer", func(c *Config) *Duration { return &c.WriteTimeout }),
	durationSetting("idle_timeout", "time an idle keep-alive connection is kept", func(c *Config) *Duration { return &c.IdleTimeout }),
	intSetting("max_header_bytes", "largest request header, in bytes", func(c *Config) *int { return &c.MaxHeaderBytes }),
	durationSetting("shutdown_timeout", "time requests in flight get to finish on SIGTERM or SIGINT", func(c *Config) *Duration { return &c.ShutdownTimeout }),
	boolSetting("access_log", "log one line per request", func(c *Config) *bool { return &c.AccessLog }),
	stringSetting("log_format", "log format: text or json", func(c *Config) *string { return &c.LogFormat }),
	boolSetting("pages", "serve the HTML pages for people under / (home, parties, districts, candidates, API reference)", func(c *Config) *bool { return &c.Pages }),
}

// settingFor is the setting of key, which must be one of settings.
func settingFor(key string) setting {
	for _, s := range settings {
		if s.key == key {
			return s
		}
	}
	panic("commands: no setting " + key)
}

// newFlag is a copy of s's flag, for one command of one run: urfave/cli
// writes what it reads from the environment into the flag itself, which
// would carry a variable's value over to the next run in the same process.
func (s setting) newFlag() cli.Flag {
	switch f := s.flag.(type) {
	case *cli.StringFlag:
		c := *f
		return &c
	case *cli.BoolFlag:
		c := *f
		return &c
	}
	panic(fmt.Sprintf("commands: setting %s has a flag of type %T", s.key, s.flag))
}
