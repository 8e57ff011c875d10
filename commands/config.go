package commands

import (
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"net/netip"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/BurntSushi/toml"

	"ballot/dataset"
	"ballot/server"
	"ballot/suggest"
)

// Config is the configuration of serve: defaults in code, then the config
// file, then environment variables, then flags.
type Config struct {
	// Listen is the address of the public API.
	Listen string `toml:"listen"`
	// PublicURL is the API's public base URL, such as
	// "https://elections.example.org", from which the catalogue and the
	// OpenAPI description make their URLs; empty, they are relative.
	PublicURL string `toml:"public_url"`
	// TLSCertFile and TLSKeyFile, both or neither, are the PEM certificate
	// (with its chain) and private key the public listener serves HTTPS
	// and HTTP/2 with; empty, it serves plain HTTP.
	TLSCertFile string `toml:"tls_cert_file"`
	TLSKeyFile  string `toml:"tls_key_file"`
	// AdminListen is the address of the admin listener (health, metrics,
	// reload); empty turns it off.
	AdminListen string `toml:"admin_listen"`
	// Data is a dataset directory; empty means the embedded dataset.
	Data string `toml:"data"`
	// Watch reloads the dataset when its directory, or the symbolic link
	// naming it, changes.
	Watch bool `toml:"watch"`
	// MaxDatasetBytes is the largest a dataset file may be, in bytes.
	MaxDatasetBytes int `toml:"max_dataset_bytes"`
	// CacheMaxAge is the max-age, in seconds, of Cache-Control on answers.
	CacheMaxAge int `toml:"cache_max_age"`
	// CacheSMaxAge, CacheStaleWhileRevalidate and CacheStaleIfError, in
	// seconds, add s-maxage, stale-while-revalidate and stale-if-error to
	// that Cache-Control for shared caches and CDNs; 0, their default as
	// the server's, leaves each out.
	CacheSMaxAge              int `toml:"cache_s_maxage"`
	CacheStaleWhileRevalidate int `toml:"cache_stale_while_revalidate"`
	CacheStaleIfError         int `toml:"cache_stale_if_error"`
	// RateLimit is the number of requests per minute a client may make to
	// each endpoint.
	RateLimit int `toml:"rate_limit"`
	// TrustedProxies are the networks whose forwarding header is read.
	TrustedProxies []string `toml:"trusted_proxies"`
	// ForwardedHeader is the header those proxies write.
	ForwardedHeader string `toml:"forwarded_header"`
	// IPv6Prefix is the prefix length by which IPv6 clients are counted.
	IPv6Prefix int `toml:"ipv6_prefix"`
	// MaxTrackedClients bounds the rate-limit counters kept in memory.
	MaxTrackedClients int `toml:"max_tracked_clients"`
	// RateLimitStore is "memory" (each process counts alone) or the
	// redis:// or rediss:// URL of the Redis whose counters replicas share.
	RateLimitStore string `toml:"rate_limit_store"`
	// The HTTP server's limits.
	ReadHeaderTimeout Duration `toml:"read_header_timeout"`
	ReadTimeout       Duration `toml:"read_timeout"`
	WriteTimeout      Duration `toml:"write_timeout"`
	IdleTimeout       Duration `toml:"idle_timeout"`
	MaxHeaderBytes    int      `toml:"max_header_bytes"`
	// ShutdownTimeout is how long requests in flight may take to finish
	// once SIGTERM or SIGINT arrives.
	ShutdownTimeout Duration `toml:"shutdown_timeout"`
	// AccessLog logs one line per request.
	AccessLog bool `toml:"access_log"`
	// LogFormat is text or json.
	LogFormat string `toml:"log_format"`
	// Pages serves the HTML pages for people under /.
	Pages bool `toml:"pages"`
}

// Duration is a time.Duration written as a string such as "5s" or "1m30s".
type Duration time.Duration

// UnmarshalText reads a duration such as "5s".
func (d *Duration) UnmarshalText(b []byte) error {
	v, err := time.ParseDuration(string(b))
	if err != nil {
		return fmt.Errorf("%q is not a duration such as \"5s\" or \"2m\"", b)
	}
	*d = Duration(v)
	return nil
}

// MarshalText writes the duration as "5s".
func (d Duration) MarshalText() ([]byte, error) { return []byte(time.Duration(d).String()), nil }

// DefaultConfig is the configuration with no file, variable or flag. What
// the server uses is read from the server's own defaults, so each default is
// written in one place; the rest is decided here.
func DefaultConfig() Config {
	o, t := server.DefaultOptions(), server.DefaultTimeouts()
	return Config{
		Listen:            ":8080",
		AdminListen:       "127.0.0.1:9090",
		MaxDatasetBytes:   dataset.DefaultMaxFileBytes,
		CacheMaxAge:       int(o.CacheMaxAge / time.Second),
		RateLimit:         o.RateLimit,
		TrustedProxies:    []string{},
		ForwardedHeader:   "X-Forwarded-For",
		IPv6Prefix:        o.IPv6Prefix,
		MaxTrackedClients: o.MaxClients,
		RateLimitStore:    memoryStore,
		ReadHeaderTimeout: Duration(t.ReadHeader),
		ReadTimeout:       Duration(t.Read),
		WriteTimeout:      Duration(t.Write),
		IdleTimeout:       Duration(t.Idle),
		MaxHeaderBytes:    t.MaxHeaderBytes,
		ShutdownTimeout:   Duration(t.Shutdown),
		AccessLog:         true,
		LogFormat:         "text",
		Pages:             o.Pages,
	}
}

// serverOptions is the server's part of a checked configuration.
func (c Config) serverOptions(logger *slog.Logger) server.Options {
	o := server.DefaultOptions()
	o.CacheMaxAge = time.Duration(c.CacheMaxAge) * time.Second
	o.CacheSMaxAge = time.Duration(c.CacheSMaxAge) * time.Second
	o.CacheStaleWhileRevalidate = time.Duration(c.CacheStaleWhileRevalidate) * time.Second
	o.CacheStaleIfError = time.Duration(c.CacheStaleIfError) * time.Second
	o.RateLimit = c.RateLimit
	o.MaxClients = c.MaxTrackedClients
	o.IPv6Prefix = c.IPv6Prefix
	trusted, _ := c.trustedPrefixes() // checked by check
	o.ClientIP = server.ClientIP{Trusted: trusted, Header: c.ForwardedHeader}
	o.Logger = logger
	o.AccessLog = c.AccessLog
	o.PublicURL = c.PublicURL
	o.Pages = c.Pages
	o.DataDir = c.Data
	b := readBuildVersion()
	o.Build = server.Build{Version: b.Version, Commit: b.Commit}
	return o
}

// timeouts is the HTTP servers' part of a checked configuration.
func (c Config) timeouts() server.Timeouts {
	return server.Timeouts{
		ReadHeader:     time.Duration(c.ReadHeaderTimeout),
		Read:           time.Duration(c.ReadTimeout),
		Write:          time.Duration(c.WriteTimeout),
		Idle:           time.Duration(c.IdleTimeout),
		Shutdown:       time.Duration(c.ShutdownTimeout),
		MaxHeaderBytes: c.MaxHeaderBytes,
	}
}

// maxDatasetBytes bounds max_dataset_bytes: loading a 1 GiB file already
// takes many gigabytes of memory.
const maxDatasetBytes = 1 << 30

// maxCacheMaxAge is a year, the longest max-age that makes sense, and the
// longest s-maxage, stale-while-revalidate or stale-if-error.
const maxCacheMaxAge = 365 * 24 * 60 * 60

// maxRateLimit is far above any real quota and below where a client's
// counter (32 bits) stops counting, and X-RateLimit-Limit stays a number
// every client reads exactly.
const maxRateLimit = 1_000_000_000

// maxHeaderBytes is Go's own default limit, 1 MiB: far more than any real
// request needs, and far from where net/http's own 4 KiB of slack added to
// it would overflow and refuse every request.
const maxHeaderBytes = 1 << 20

// DefaultConfigFile is read when present and no --config is given.
const DefaultConfigFile = "config.toml"

// LoadConfig decodes the file at path over the defaults. A missing file is
// an error only when required. Unknown keys and invalid values are errors
// naming the key. Relative paths (data, tls_cert_file, tls_key_file) are taken
// relative to the file.
func LoadConfig(path string, required bool) (Config, error) {
	cfg, _, err := decodeConfig(path, required)
	if err != nil {
		return cfg, err
	}
	if err := cfg.check(); err != nil {
		return cfg, fmt.Errorf("config %s: %w", path, err)
	}
	return cfg, nil
}

// decodeConfig is LoadConfig without the check of the values, for serve,
// which checks them once the environment and flags are applied: a flag
// may correct a value of the file, or complete it (tls_key_file beside the
// file's tls_cert_file). inFile reports whether the file set a key, so that
// a refused value can be traced to it.
func decodeConfig(path string, required bool) (cfg Config, inFile func(key string) bool, err error) {
	cfg = DefaultConfig()
	inFile = func(string) bool { return false }
	b, err := readConfigFile(path)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) && !required {
			return cfg, inFile, nil
		}
		return cfg, inFile, fmt.Errorf("config %s: %w", path, errors.Unwrap(err))
	}
	md, err := toml.Decode(string(b), &cfg)
	if err != nil {
		var perr toml.ParseError
		if errors.As(err, &perr) {
			return cfg, inFile, fmt.Errorf("config %s:%d:%d: %s", path, perr.Position.Line, perr.Position.Col, perr.Message)
		}
		return cfg, inFile, fmt.Errorf("config %s: %v", path, err)
	}
	inFile = func(key string) bool { return md.IsDefined(key) }
	if keys := md.Undecoded(); len(keys) > 0 {
		var names []string
		for i, k := range keys {
			// A table is named by its keys ("server.port"), not on its own.
			if i+1 < len(keys) && strings.HasPrefix(keys[i+1].String(), k.String()+".") {
				continue
			}
			name := k.String()
			names = append(names, name+suggest.Offer(suggest.Quoted(suggest.Best(name, slices.Values(configKeys()), 1))...))
		}
		return cfg, inFile, fmt.Errorf("config %s: unknown key %s (known keys: %s)", path, strings.Join(names, ", "), strings.Join(configKeys(), ", "))
	}
	for _, p := range []*string{&cfg.Data, &cfg.TLSCertFile, &cfg.TLSKeyFile} {
		if *p != "" && !filepath.IsAbs(*p) {
			*p = filepath.Join(filepath.Dir(path), *p)
		}
	}
	return cfg, inFile, nil
}

// check refuses values no server could run with, naming the key and what it
// accepts.
func (c Config) check() error {
	switch {
	case strings.TrimSpace(c.Listen) == "":
		return badSetting(errors.New(`listen must be an address such as ":8080" or "127.0.0.1:8080"`), "listen")
	case c.PublicURL != "" && baseURLProblem(c.PublicURL) != "":
		return badSetting(fmt.Errorf(`public_url must be an absolute http or https URL with no query or fragment, written in the characters a URL allows (percent-encode others), such as "https://elections.example.org", not %q: %s`, c.PublicURL, baseURLProblem(c.PublicURL)), "public_url")
	case c.checkMaxDatasetBytes() != nil:
		return c.checkMaxDatasetBytes()
	case (c.TLSCertFile == "") != (c.TLSKeyFile == ""):
		return badSetting(errors.New("tls_cert_file and tls_key_file go together: set both to serve HTTPS, or neither"), "tls_cert_file", "tls_key_file")
	case c.CacheMaxAge < 0 || c.CacheMaxAge > maxCacheMaxAge:
		return badSetting(fmt.Errorf("cache_max_age must be a number of seconds from 0 to %d (a year)", maxCacheMaxAge), "cache_max_age")
	case c.CacheSMaxAge < 0 || c.CacheSMaxAge > maxCacheMaxAge:
		return badSetting(fmt.Errorf("cache_s_maxage must be a number of seconds from 0 (off) to %d (a year)", maxCacheMaxAge), "cache_s_maxage")
	case c.CacheStaleWhileRevalidate < 0 || c.CacheStaleWhileRevalidate > maxCacheMaxAge:
		return badSetting(fmt.Errorf("cache_stale_while_revalidate must be a number of seconds from 0 (off) to %d (a year)", maxCacheMaxAge), "cache_stale_while_revalidate")
	case c.CacheStaleIfError < 0 || c.CacheStaleIfError > maxCacheMaxAge:
		return badSetting(fmt.Errorf("cache_stale_if_error must be a number of seconds from 0 (off) to %d (a year)", maxCacheMaxAge), "cache_stale_if_error")
	case c.RateLimit < 1 || c.RateLimit > maxRateLimit:
		return badSetting(fmt.Errorf("rate_limit must be a number of requests per minute from 1 to %d", maxRateLimit), "rate_limit")
	case c.IPv6Prefix < 1 || c.IPv6Prefix > 128:
		return badSetting(errors.New("ipv6_prefix must be a prefix length from 1 to 128 (64 counts each /64 as one client)"), "ipv6_prefix")
	case c.MaxTrackedClients < 1 || c.MaxTrackedClients > server.MaxClients:
		return badSetting(fmt.Errorf("max_tracked_clients must be from 1 to %d (each reserves about 50 bytes)", server.MaxClients), "max_tracked_clients")
	case c.RateLimitStore != memoryStore && checkRateLimitStore(c.RateLimitStore) != nil:
		return badSetting(fmt.Errorf(`rate_limit_store must be "memory" or a redis:// or rediss:// URL such as "redis://127.0.0.1:6379/0": %v`, checkRateLimitStore(c.RateLimitStore)), "rate_limit_store")
	case c.ShutdownTimeout <= 0:
		return badSetting(errors.New(`shutdown_timeout must be a duration above zero, such as "10s"`), "shutdown_timeout")
	case c.MaxHeaderBytes < 1024 || c.MaxHeaderBytes > maxHeaderBytes:
		return badSetting(fmt.Errorf("max_header_bytes must be from 1024 to %d (1 MiB)", maxHeaderBytes), "max_header_bytes")
	case !strings.EqualFold(c.ForwardedHeader, "X-Forwarded-For") && !strings.EqualFold(c.ForwardedHeader, "Forwarded"):
		return badSetting(fmt.Errorf("forwarded_header must be X-Forwarded-For or Forwarded, not %q", c.ForwardedHeader), "forwarded_header")
	case c.LogFormat != "text" && c.LogFormat != "json":
		return badSetting(fmt.Errorf("log_format must be text or json, not %q", c.LogFormat), "log_format")
	}
	for _, d := range []struct {
		key   string
		value Duration
	}{
		{"read_header_timeout", c.ReadHeaderTimeout},
		{"read_timeout", c.ReadTimeout},
		{"write_timeout", c.WriteTimeout},
		{"idle_timeout", c.IdleTimeout},
	} {
		if d.value <= 0 {
			return badSetting(fmt.Errorf(`%s must be a duration above zero, such as "5s"`, d.key), d.key)
		}
	}
	if _, err := c.trustedPrefixes(); err != nil {
		return badSetting(err, "trusted_proxies")
	}
	return nil
}

// checkMaxDatasetBytes refuses a max_dataset_bytes no load could use; serve
// and validate both apply it.
func (c Config) checkMaxDatasetBytes() error {
	if c.MaxDatasetBytes < 1024 || c.MaxDatasetBytes > maxDatasetBytes {
		return badSetting(fmt.Errorf("max_dataset_bytes must be a number of bytes from 1024 to %d (1 GiB)", maxDatasetBytes), "max_dataset_bytes")
	}
	return nil
}

// settingError is a value check refused: the error, and the keys whose
// values it is about, so that serve can name where the value came from.
type settingError struct {
	err  error
	keys []string
}

func (e settingError) Error() string { return e.err.Error() }
func (e settingError) Unwrap() error { return e.err }

func badSetting(err error, keys ...string) error { return settingError{err, keys} }

// baseURLProblem says why s is not a base the API's paths can be appended
// to, or returns "" when it is one: a URL a dataset may hold
// (dataset.URLProblem: absolute http or https, RFC 3986's characters only,
// as it goes as is into Link headers, where a space or ">" would end the
// target, no user, a valid host and port), with no query or fragment.
func baseURLProblem(s string) string {
	if why := dataset.URLProblem(s); why != "" {
		return why
	}
	if strings.ContainsAny(s, "?#") {
		return "it has a query or a fragment"
	}
	return ""
}

// trustedPrefixes parses trusted_proxies: CIDR ranges, or single addresses.
// An IPv4-mapped IPv6 range (::ffff:127.0.0.2/128) is the IPv4 range it
// maps (127.0.0.2/32): clients are seen by their IPv4 address.
func (c Config) trustedPrefixes() ([]netip.Prefix, error) {
	var out []netip.Prefix
	for _, s := range c.TrustedProxies {
		s = strings.TrimSpace(s)
		if p, err := netip.ParsePrefix(s); err == nil {
			if p.Addr().Is4In6() && p.Bits() >= 96 {
				p = netip.PrefixFrom(p.Addr().Unmap(), p.Bits()-96)
			}
			out = append(out, p.Masked())
			continue
		}
		if a, err := netip.ParseAddr(s); err == nil {
			out = append(out, netip.PrefixFrom(a.Unmap(), a.Unmap().BitLen()))
			continue
		}
		return nil, fmt.Errorf("trusted_proxies: %q is not a CIDR range such as \"10.0.0.0/8\" or an IP address", s)
	}
	return out, nil
}

// configKeys lists the keys of config.toml, in order.
func configKeys() []string {
	var keys []string
	for _, s := range settings {
		keys = append(keys, s.key)
	}
	return keys
}
