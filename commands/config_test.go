package commands_test

import (
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/BurntSushi/toml"

	"ballot/commands"
	"ballot/internal/testprograms"
)

// TestRepositoryConfig decodes the config.toml shipped at the repository's
// root: it must stay valid and equal to the defaults it documents.
func TestRepositoryConfig(t *testing.T) {
	cfg, err := commands.LoadConfig(filepath.Join("..", "config.toml"), true)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(cfg, commands.DefaultConfig()) {
		t.Errorf("config.toml = %+v, want the defaults %+v", cfg, commands.DefaultConfig())
	}
	// Every key is written out in the file, so a newcomer sees them all.
	var keys map[string]any
	if _, err := toml.DecodeFile(filepath.Join("..", "config.toml"), &keys); err != nil {
		t.Fatal(err)
	}
	typ := reflect.TypeFor[commands.Config]()
	for i := range typ.NumField() {
		key := typ.Field(i).Tag.Get("toml")
		if _, ok := keys[key]; !ok {
			t.Errorf("config.toml does not show the key %q", key)
		}
	}
	manual, err := os.ReadFile(filepath.Join("..", "docs", "OPERATING.md"))
	if err != nil {
		t.Fatal(err)
	}
	for key := range keys {
		if !strings.Contains(string(manual), "| `"+key+"` |") {
			t.Errorf("docs/OPERATING.md's configuration table does not list %q", key)
		}
	}
}

func TestConfigErrors(t *testing.T) {
	tests := []struct{ name, file, want string }{
		{"unknown key", "listen = \":1\"\nrate_limt = 5\n", "unknown key rate_limt"},
		{"unknown key suggests the nearest", "rate_limt = 5\n", `unknown key rate_limt (did you mean "rate_limit"?) (known keys: `},
		{"wrong type", "rate_limit = \"sixty\"\n", "rate_limit"},
		{"invalid value", "rate_limit = 0\n", "rate_limit must be a number of requests per minute from 1 to 1000000000"},
		{"negative max-age", "cache_max_age = -1\n", "cache_max_age must be a number of seconds"},
		{"syntax", "listen = \n", "config.toml:1"},
		{"unknown key lists the known ones", "[server]\nport = 1\n", "unknown key server.port (known keys: listen, public_url, tls_cert_file, tls_key_file, admin_listen, data, watch, max_dataset_bytes, cache_max_age, cache_s_maxage, cache_stale_while_revalidate, cache_stale_if_error, rate_limit, trusted_proxies, forwarded_header, ipv6_prefix, max_tracked_clients, rate_limit_store, read_header_timeout, read_timeout, write_timeout, idle_timeout, max_header_bytes, shutdown_timeout, access_log, log_format, pages)"},
		{"a proxy that is not a network", "trusted_proxies = [\"10.0.0.0/8\", \"proxy.local\"]\n", `trusted_proxies: "proxy.local" is not a CIDR range such as "10.0.0.0/8" or an IP address`},
		{"a certificate without its key", "tls_cert_file = \"cert.pem\"\n", "tls_cert_file and tls_key_file go together: set both to serve HTTPS, or neither"},
		{"a key without its certificate", "tls_key_file = \"key.pem\"\n", "tls_cert_file and tls_key_file go together"},
		{"IPv6 prefix out of range", "ipv6_prefix = 0\n", "ipv6_prefix must be a prefix length from 1 to 128"},
		{"no tracked clients", "max_tracked_clients = 0\n", "max_tracked_clients must be from 1 to 100000000"},
		{"too many tracked clients", "max_tracked_clients = 100000001\n", "max_tracked_clients must be from 1 to 100000000"},
		{"a rate-limit store of another scheme", "rate_limit_store = \"http://127.0.0.1:6379\"\n", `rate_limit_store must be "memory" or a redis:// or rediss:// URL such as "redis://127.0.0.1:6379/0": redis: invalid URL scheme: http`},
		{"a rate-limit store with a bad database", "rate_limit_store = \"redis://127.0.0.1:6379/first\"\n", `rate_limit_store must be "memory" or a redis:// or rediss:// URL such as "redis://127.0.0.1:6379/0": redis: invalid database number: "first"`},
		{"a rate-limit store that is not a URL", "rate_limit_store = \"redis://:pw@[::1\"\n", `rate_limit_store must be "memory" or a redis:// or rediss:// URL such as "redis://127.0.0.1:6379/0": missing ']' in host`},
		{"a rate-limit store named otherwise", "rate_limit_store = \"Memory\"\n", `rate_limit_store must be "memory" or a redis:// or rediss:// URL`},
		{"a duration without a unit", "read_header_timeout = \"5\"\n", `"5" is not a duration such as "5s" or "2m"`},
		{"a zero timeout", "write_timeout = \"0s\"\n", `write_timeout must be a duration above zero, such as "5s"`},
		{"tiny header limit", "max_header_bytes = 10\n", "max_header_bytes must be from 1024 to 1048576 (1 MiB)"},
		{"unknown log format", "log_format = \"xml\"\n", `log_format must be text or json, not "xml"`},
		{"unknown forwarding header", "forwarded_header = \"X-Real-IP\"\n", `forwarded_header must be X-Forwarded-For or Forwarded, not "X-Real-IP"`},
		{"a public URL that is relative", "public_url = \"/api\"\n", `public_url must be an absolute http or https URL with no query or fragment, written in the characters a URL allows (percent-encode others), such as "https://elections.example.org", not "/api": it is relative (write the whole URL, beginning https://)`},
		{"a public URL of another scheme", "public_url = \"ftp://elections.example.org\"\n", `public_url must be an absolute http or https URL`},
		{"a public URL with no host", "public_url = \"https://\"\n", `public_url must be an absolute http or https URL`},
		{"a public URL with a query", "public_url = \"https://elections.example.org/?lang=mt\"\n", `public_url must be an absolute http or https URL with no query or fragment`},
		{"a public URL with a fragment", "public_url = \"https://elections.example.org/#top\"\n", `public_url must be an absolute http or https URL with no query or fragment`},
		{"a public URL with a user", "public_url = \"https://admin@elections.example.org\"\n", `public_url must be an absolute http or https URL`},
		{"a public URL with a space", "public_url = \"https://x.org/ele ctions\"\n", `public_url must be an absolute http or https URL with no query or fragment, written in the characters a URL allows`},
		{"a public URL with a >", "public_url = \"https://x.org/elections>\"\n", `public_url must be an absolute http or https URL`},
		{"a public URL with a user hiding its host", "public_url = \"https://pn.org.mt@evil.example/\"\n", `not "https://pn.org.mt@evil.example/": it has user information before its host (user@host), which hides the host it leads to`},
		{"a public URL with port 99999", "public_url = \"https://elections.example.org:99999\"\n", `not "https://elections.example.org:99999": port 99999 is not from 1 to 65535`},
		{"a public URL with a bad host", "public_url = \"https://elections_.example.org\"\n", `not "https://elections_.example.org": host "elections_.example.org" is not a valid host name`},
		{"a public URL with markup", "public_url = \"https://x.org/\\\"><script>\"\n", `: the character "\"" is not allowed in a URL (percent-encode it)`},
		{"a public URL not in ASCII", "public_url = \"https://x.org/elezzjonijiet-ħ\"\n", `public_url must be an absolute http or https URL`},
		{"a max-age past a year", "cache_max_age = 9300000000000\n", "cache_max_age must be a number of seconds from 0 to 31536000 (a year)"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "config.toml")
			if err := os.WriteFile(path, []byte(tt.file), 0o644); err != nil {
				t.Fatal(err)
			}
			_, err := commands.LoadConfig(path, true)
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("error = %v, want it to contain %q", err, tt.want)
			}
			code, stdout, stderr := run(t, "serve", "--config", path)
			if code != commands.ExitUsage || stdout != "" || !strings.Contains(stderr, tt.want) || strings.Count(stderr, "\n") != 1 {
				t.Errorf("serve: exit %d, stdout %q, stderr %q; want exit 2 and one line naming the problem", code, stdout, stderr)
			}
		})
	}
	t.Run("a relative data directory is relative to the file", func(t *testing.T) {
		dir := t.TempDir()
		path := filepath.Join(dir, "config.toml")
		if err := os.WriteFile(path, []byte("data = \"elections/2022\"\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		cfg, err := commands.LoadConfig(path, true)
		if err != nil || cfg.Data != filepath.Join(dir, "elections", "2022") {
			t.Errorf("data = %q, %v", cfg.Data, err)
		}
	})
	t.Run("relative certificate and key files are relative to the file", func(t *testing.T) {
		dir := t.TempDir()
		path := filepath.Join(dir, "config.toml")
		if err := os.WriteFile(path, []byte("tls_cert_file = \"tls/cert.pem\"\ntls_key_file = \"/etc/ballot/key.pem\"\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		cfg, err := commands.LoadConfig(path, true)
		if err != nil || cfg.TLSCertFile != filepath.Join(dir, "tls", "cert.pem") || cfg.TLSKeyFile != "/etc/ballot/key.pem" {
			t.Errorf("tls_cert_file = %q, tls_key_file = %q, %v; want %q and /etc/ballot/key.pem", cfg.TLSCertFile, cfg.TLSKeyFile, err, filepath.Join(dir, "tls", "cert.pem"))
		}
	})
	t.Run("a public URL is accepted as written", func(t *testing.T) {
		path := filepath.Join(t.TempDir(), "config.toml")
		for _, u := range []string{"https://elections.example.org", "http://192.0.2.1:8080/", "https://example.org/ballot"} {
			if err := os.WriteFile(path, []byte("public_url = \""+u+"\"\n"), 0o644); err != nil {
				t.Fatal(err)
			}
			if cfg, err := commands.LoadConfig(path, true); err != nil || cfg.PublicURL != u {
				t.Errorf("public_url %q: got %q, %v", u, cfg.PublicURL, err)
			}
		}
	})
	t.Run("a missing default file is fine, a missing named one is not", func(t *testing.T) {
		if _, err := commands.LoadConfig(filepath.Join(t.TempDir(), "config.toml"), false); err != nil {
			t.Error(err)
		}
		if _, err := commands.LoadConfig(filepath.Join(t.TempDir(), "config.toml"), true); err == nil {
			t.Error("no error for a missing --config file")
		}
	})
}

// TestProdConfiguration runs serve with a config.toml in its working
// directory, environment variables and flags.
func TestProdConfiguration(t *testing.T) {
	t.Run("unknown key in ./config.toml", checkConfigUnknownKey)
	t.Run("invalid value in the environment", checkConfigInvalidEnv)
	// The file says 2, the environment 3, the flag 4: later wins.
	t.Run("file, then environment, then flag", checkConfigPrecedence)
	t.Run("JSON log", checkJSONLog)
	t.Run("busy admin_listen set explicitly", checkBusyAdminListen)
}

func checkConfigUnknownKey(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "config.toml"), []byte("listen = \"127.0.0.1:0\"\nadmin_listen = \"\"\nrate_limitt = 5\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	// runIn bounds the run: a serve that went on instead of refusing the
	// file fails the test.
	code, _, stderr := runIn(t, dir, nil, "serve")
	if code != 2 || strings.Count(stderr, "\n") != 1 || !strings.Contains(stderr, "rate_limitt") || !strings.Contains(stderr, "config.toml") {
		t.Errorf("exit %d, stderr %q; want exit 2 and one line naming config.toml and rate_limitt", code, stderr)
	}
}

func checkConfigInvalidEnv(t *testing.T) {
	code, _, stderr := runIn(t, t.TempDir(), []string{"BALLOT_LOG_FORMAT=xml"}, "serve", "--listen", "127.0.0.1:0", "--admin-listen", "")
	if code != 2 || strings.Count(stderr, "\n") != 1 || !strings.Contains(stderr, "log_format") || !strings.Contains(stderr, "json") {
		t.Errorf("BALLOT_LOG_FORMAT=xml: exit %d, stderr %q; want exit 2 and one line naming log_format and what it accepts", code, stderr)
	}
}

func checkConfigPrecedence(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "config.toml"), []byte("rate_limit = 2\nadmin_listen = \"\"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	checkRateLimited(t, serveIn(t, dir, nil), 2)
	checkRateLimited(t, serveIn(t, dir, []string{"BALLOT_RATE_LIMIT=3"}), 3)
	checkRateLimited(t, serveIn(t, dir, []string{"BALLOT_RATE_LIMIT=3"}, "--rate-limit", "4"), 4)

	// A value the file gets wrong is corrected by the environment or a
	// flag; left alone, it is the file's mistake, named as such (exit 2,
	// as from any source).
	bad := t.TempDir()
	if err := os.WriteFile(filepath.Join(bad, "config.toml"), []byte("rate_limit = 0\nadmin_listen = \"\"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	checkRateLimited(t, serveIn(t, bad, []string{"BALLOT_RATE_LIMIT=3"}), 3)
	checkRateLimited(t, serveIn(t, bad, nil, "--rate-limit", "4"), 4)
	code, _, stderr := runIn(t, bad, nil, "serve", "--listen", "127.0.0.1:0")
	if want := "ballot: config config.toml: rate_limit must be a number of requests per minute from 1 to 1000000000\n"; code != 2 || stderr != want {
		t.Errorf("rate_limit = 0 in the file alone: exit %d, stderr %q; want 2 and %q", code, stderr, want)
	}
}

// checkRateLimited sends limit+1 requests to p from one address: limit
// answers, then a 429, each with X-RateLimit-Limit limit.
func checkRateLimited(t *testing.T, p *e2eProc, limit int) {
	t.Helper()
	c := p.client(t, "127.0.0.1")
	for i := range limit + 1 {
		r := c.send(t, http.MethodGet, e2eBase+"/districts", nil)
		want := http.StatusOK
		if i == limit {
			want = http.StatusTooManyRequests
		}
		if r.status != want || r.header.Get("X-RateLimit-Limit") != strconv.Itoa(limit) {
			t.Errorf("request %d: status %d, X-RateLimit-Limit %q; want %d, %d", i+1, r.status, r.header.Get("X-RateLimit-Limit"), want, limit)
		}
	}
}

// checkJSONLog checks that --log-format json writes only JSON lines, with an
// access-log line per request.
func checkJSONLog(t *testing.T) {
	p := serveInProcess(t, "--log-format", "json", "--admin-listen", "")
	c := p.client(t, "127.0.0.3")
	ok := c.send(t, http.MethodGet, e2eBase+"/candidates?limit=2", nil)
	checkOK(t, ok)
	missing := c.send(t, http.MethodGet, e2eBase+"/nope", nil)
	type line struct {
		Msg      string   `json:"msg"`
		Level    string   `json:"level"`
		ClientIP string   `json:"client_ip"`
		Method   string   `json:"method"`
		Route    string   `json:"route"`
		URI      string   `json:"uri"`
		Status   *int     `json:"status"`
		Bytes    *int     `json:"bytes"`
		Duration *float64 `json:"duration"`
	}
	var requests []line
	prodEventually(t, 5*time.Second, "two access-log lines", func() (bool, string) {
		requests = requests[:0]
		for _, s := range strings.Split(strings.TrimSpace(p.stderr.String()), "\n") {
			var l line
			if err := json.Unmarshal([]byte(s), &l); err != nil {
				t.Fatalf("a stderr line that is not JSON with --log-format json: %q", s)
			}
			if l.Msg == "request" {
				requests = append(requests, l)
			}
		}
		return len(requests) == 2, fmt.Sprintf("%d lines", len(requests))
	})
	for i, want := range []struct {
		route, uri string
		r          reply
	}{
		{"candidates", e2eBase + "/candidates?limit=2", ok},
		{"other", e2eBase + "/nope", missing},
	} {
		l := requests[i]
		if l.Level != "INFO" || l.ClientIP != "127.0.0.3" || l.Method != "GET" || l.Route != want.route || l.URI != want.uri ||
			l.Status == nil || *l.Status != want.r.status || l.Bytes == nil || *l.Bytes != len(want.r.body) || l.Duration == nil || *l.Duration <= 0 {
			t.Errorf("access-log line %d: %+v; want client_ip 127.0.0.3, route %s, uri %s, status %d, bytes %d and a duration", i+1, l, want.route, want.uri, want.r.status, len(want.r.body))
		}
	}
	if strings.Contains(p.stderr.String(), "ballot: serving") {
		t.Errorf("a text line in the JSON log")
	}
}

// checkBusyAdminListen checks that an admin_listen set explicitly, by flag
// or environment, fails at once when its port is taken.
func checkBusyAdminListen(t *testing.T) {
	busy, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer busy.Close()
	// "At once" is before serving: no serving line, and runWithin's bound
	// fails a serve that would go on.
	code, _, stderr := runWithin(t, 30*time.Second, "serve", "--listen", "127.0.0.1:0", "--admin-listen", busy.Addr().String())
	if code != 1 || !strings.Contains(stderr, "admin_listen") || !strings.Contains(stderr, busy.Addr().String()) || strings.Contains(stderr, "serving") {
		t.Errorf("exit %d, stderr %q; want exit 1 with a message naming admin_listen and %s, before serving", code, stderr, busy.Addr())
	}
	// The same through the environment.
	code, _, stderr = runIn(t, t.TempDir(), []string{"BALLOT_ADMIN_LISTEN=" + busy.Addr().String()}, "serve", "--listen", "127.0.0.1:0")
	if code != 1 || !strings.Contains(stderr, "admin_listen") {
		t.Errorf("BALLOT_ADMIN_LISTEN busy: exit %d, stderr %q; want exit 1 naming admin_listen", code, stderr)
	}
}

// TestBinaryExitStatus runs the built binary, in a working directory and
// an environment of its own, for what commands.Run does not show: that
// main makes Run's code the process's exit status. A config.toml with an
// unknown key is a usage error (exit 2); a busy admin_listen from the
// environment, a failure (exit 1); each with one line.
func TestBinaryExitStatus(t *testing.T) {
	testprograms.EndToEnd(t, "runs the built binary for its exit status")
	t.Parallel()
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "config.toml"), []byte("listen = \"127.0.0.1:0\"\nadmin_listen = \"\"\nrate_limitt = 5\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	code, stderr, _ := prodRun(t, dir, nil, "serve")
	if code != 2 || strings.Count(stderr, "\n") != 1 || !strings.Contains(stderr, "rate_limitt") || !strings.Contains(stderr, "config.toml") {
		t.Errorf("exit %d, stderr %q; want exit 2 and one line naming config.toml and rate_limitt", code, stderr)
	}
	busy, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer busy.Close()
	// A dataset without warnings: the embedded archive's one would be
	// logged first.
	valid, err := filepath.Abs(prodValidDataset)
	if err != nil {
		t.Fatal(err)
	}
	code, stderr, _ = prodRun(t, t.TempDir(), []string{"BALLOT_ADMIN_LISTEN=" + busy.Addr().String()}, "serve", "--listen", "127.0.0.1:0", "--data", valid)
	if code != 1 || strings.Count(stderr, "\n") != 1 || !strings.Contains(stderr, "admin_listen") {
		t.Errorf("BALLOT_ADMIN_LISTEN busy: exit %d, stderr %q; want exit 1 and one line naming admin_listen", code, stderr)
	}
}

// TestServeHelpDefaults runs serve --help and checks, for every key of the
// repository's config.toml, that the help shows the default the file holds,
// written as docs/OPERATING.md's configuration table writes it ("5s", not
// 5000000000), and only once.
func TestServeHelpDefaults(t *testing.T) {
	code, help, stderr := run(t, "serve", "--help")
	if code != 0 || stderr != "" {
		t.Fatalf("serve --help: exit %d, stderr %q", code, stderr)
	}
	var file map[string]any
	if _, err := toml.DecodeFile(filepath.Join("..", "config.toml"), &file); err != nil {
		t.Fatal(err)
	}
	manual, err := os.ReadFile(filepath.Join("..", "docs", "OPERATING.md"))
	if err != nil {
		t.Fatal(err)
	}
	if len(file) == 0 {
		t.Fatal("config.toml holds no key")
	}
	for key, want := range file {
		t.Run(key, func(t *testing.T) {
			flag := "--" + strings.ReplaceAll(key, "_", "-")
			line := regexp.MustCompile(`(?m)^\s*` + regexp.QuoteMeta(flag) + `\s.*$`).FindString(help)
			if line == "" {
				t.Fatalf("the help has no line for %s:\n%s", flag, help)
			}
			if n := strings.Count(line, "(default"); n != 1 {
				t.Fatalf("%s shows %d defaults, want 1: %s", flag, n, line)
			}
			m := regexp.MustCompile(`\(default: (.*)\) \[\$`).FindStringSubmatch(line)
			if m == nil {
				t.Fatalf("%s shows no default before its variable: %s", flag, line)
			}
			var got map[string]any
			if _, err := toml.Decode("v = "+m[1], &got); err != nil {
				t.Fatalf("%s: default %s is not written as in config.toml: %v", flag, m[1], err)
			}
			if !reflect.DeepEqual(got["v"], want) {
				t.Errorf("%s: help's default %s = %#v, config.toml has %#v", flag, m[1], got["v"], want)
			}
			if row := "| `" + key + "` | `" + m[1] + "` |"; !strings.Contains(string(manual), row) {
				t.Errorf("docs/OPERATING.md has no row %q: its default is not written as the help writes it", row)
			}
		})
	}
}
