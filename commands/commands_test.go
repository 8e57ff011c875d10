package commands_test

import (
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"ballot/commands"
)

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
		{"invalid flag value", []string{"serve", "--rate-limit", "0"}, commands.ExitUsage, "ballot: flag --rate-limit: rate_limit must be a number of requests per minute from 1 to 1000000000\n"},
		{"a flag that is not a number", []string{"serve", "--rate-limit", "abc"}, commands.ExitUsage, "ballot: flag --rate-limit: rate_limit must be a whole number, not \"abc\"\n"},
		{"invalid duration flag", []string{"serve", "--shutdown-timeout", "soon"}, commands.ExitUsage, "ballot: flag --shutdown-timeout: shutdown_timeout: \"soon\" is not a duration such as \"5s\" or \"2m\"\n"},
		{"invalid proxy flag", []string{"serve", "--trusted-proxies", "10.0.0.0/8,nope"}, commands.ExitUsage, "ballot: flag --trusted-proxies: trusted_proxies: \"nope\" is not a CIDR range"},
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
