package commands_test

import (
	"bytes"
	"context"
	"net"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/BurntSushi/toml"

	"ballot/commands"
)

// run runs the command line in-process and returns its exit code and
// output.
func run(t *testing.T, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	var out, errOut bytes.Buffer
	code = commands.Run(context.Background(), append([]string{"ballot"}, args...), &out, &errOut)
	return code, out.String(), errOut.String()
}

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
	readme, err := os.ReadFile(filepath.Join("..", "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	for key := range keys {
		if !strings.Contains(string(readme), "| `"+key+"` |") {
			t.Errorf("README.md's configuration table does not list %q", key)
		}
	}
}

func TestConfigErrors(t *testing.T) {
	tests := []struct{ name, file, want string }{
		{"unknown key", "listen = \":1\"\nrate_limt = 5\n", "unknown key rate_limt"},
		{"wrong type", "rate_limit = \"sixty\"\n", "rate_limit"},
		{"invalid value", "rate_limit = 0\n", "rate_limit must be a number of requests per minute from 1 to 1000000000"},
		{"negative max-age", "cache_max_age = -1\n", "cache_max_age must be a number of seconds"},
		{"syntax", "listen = \n", "config.toml:1"},
		{"unknown key lists the known ones", "[server]\nport = 1\n", "unknown key server.port (known keys: listen, admin_listen, data, cache_max_age, rate_limit, trusted_proxies, forwarded_header, ipv6_prefix, max_tracked_clients, read_header_timeout, read_timeout, write_timeout, idle_timeout, max_header_bytes, shutdown_timeout, access_log, log_format)"},
		{"a proxy that is not a network", "trusted_proxies = [\"10.0.0.0/8\", \"proxy.local\"]\n", `trusted_proxies: "proxy.local" is not a CIDR range such as "10.0.0.0/8" or an IP address`},
		{"IPv6 prefix out of range", "ipv6_prefix = 0\n", "ipv6_prefix must be a prefix length from 1 to 128"},
		{"no tracked clients", "max_tracked_clients = 0\n", "max_tracked_clients must be from 1 to 100000000"},
		{"too many tracked clients", "max_tracked_clients = 100000001\n", "max_tracked_clients must be from 1 to 100000000"},
		{"a duration without a unit", "read_header_timeout = \"5\"\n", `"5" is not a duration such as "5s" or "2m"`},
		{"a zero timeout", "write_timeout = \"0s\"\n", `write_timeout must be a duration above zero, such as "5s"`},
		{"tiny header limit", "max_header_bytes = 10\n", "max_header_bytes must be from 1024 to 1048576 (1 MiB)"},
		{"unknown log format", "log_format = \"xml\"\n", `log_format must be text or json, not "xml"`},
		{"unknown forwarding header", "forwarded_header = \"X-Real-IP\"\n", `forwarded_header must be X-Forwarded-For or Forwarded, not "X-Real-IP"`},
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
			if code != commands.ExitFailure || stdout != "" || !strings.Contains(stderr, tt.want) || strings.Count(stderr, "\n") != 1 {
				t.Errorf("serve: exit %d, stdout %q, stderr %q; want exit 1 and one line naming the problem", code, stdout, stderr)
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
	t.Run("a missing default file is fine, a missing named one is not", func(t *testing.T) {
		if _, err := commands.LoadConfig(filepath.Join(t.TempDir(), "config.toml"), false); err != nil {
			t.Error(err)
		}
		if _, err := commands.LoadConfig(filepath.Join(t.TempDir(), "config.toml"), true); err == nil {
			t.Error("no error for a missing --config file")
		}
	})
}

func TestExitCodes(t *testing.T) {
	broken := t.TempDir()
	if err := os.WriteFile(filepath.Join(broken, "parties.json"), []byte("[]"), 0o644); err != nil {
		t.Fatal(err)
	}
	busy, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer busy.Close()
	tests := []struct {
		name   string
		args   []string
		code   int
		stderr string
	}{
		{"unknown command", []string{"publish"}, commands.ExitUsage, "ballot: unknown command \"publish\"; run 'ballot help'\n"},
		{"unknown flag", []string{"serve", "--port", "80"}, commands.ExitUsage, "ballot: flag provided but not defined: -port\n"},
		{"stray argument", []string{"serve", "now"}, commands.ExitUsage, "ballot: serve takes no arguments, got \"now\"\n"},
		{"invalid flag value", []string{"serve", "--rate-limit", "0"}, commands.ExitUsage, "ballot: rate_limit must be a number of requests per minute from 1 to 1000000000\n"},
		{"a flag that is not a number", []string{"serve", "--rate-limit", "abc"}, commands.ExitUsage, "ballot: rate_limit must be a whole number, not \"abc\"\n"},
		{"invalid duration flag", []string{"serve", "--shutdown-timeout", "soon"}, commands.ExitUsage, "ballot: shutdown_timeout: \"soon\" is not a duration such as \"5s\" or \"2m\"\n"},
		{"invalid proxy flag", []string{"serve", "--trusted-proxies", "10.0.0.0/8,nope"}, commands.ExitUsage, "ballot: trusted_proxies: \"nope\" is not a CIDR range"},
		{"missing dataset directory", []string{"serve", "--data", filepath.Join(broken, "nope")}, commands.ExitFailure, "is not a dataset directory"},
		{"invalid dataset", []string{"serve", "--data", broken, "--listen", "127.0.0.1:0"}, commands.ExitFailure, "dataset.toml: file is missing\n"},
		{"busy port", []string{"serve", "--listen", busy.Addr().String()}, commands.ExitFailure, "cannot listen on " + busy.Addr().String()},
		{"busy admin port", []string{"serve", "--listen", "127.0.0.1:0", "--admin-listen", busy.Addr().String()}, commands.ExitFailure, "cannot listen on " + busy.Addr().String() + " (admin_listen)"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Chdir(t.TempDir()) // no config.toml
			code, stdout, stderr := run(t, tt.args...)
			if code != tt.code {
				t.Errorf("exit %d, want %d", code, tt.code)
			}
			if stdout != "" {
				t.Errorf("stdout %q, want nothing", stdout)
			}
			if !strings.Contains(stderr, tt.stderr) {
				t.Errorf("stderr %q, want it to contain %q", stderr, tt.stderr)
			}
		})
	}
}
