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

// TestSuggestions: a command or flag one letter away from a real one is a
// usage error, on one line like the others, that names the real one.
func TestSuggestions(t *testing.T) {
	tests := []struct {
		name   string
		args   []string
		stderr string
	}{
		{"command", []string{"serv"}, "ballot: unknown command \"serv\" (did you mean \"serve\"?); run 'ballot help'\n"},
		{"command with arguments", []string{"qeury", "candidates", "--limit", "5"}, "ballot: unknown command \"qeury\" (did you mean \"query\"?); run 'ballot help'\n"},
		{"command far from any", []string{"publish"}, "ballot: unknown command \"publish\"; run 'ballot help'\n"},
		{"flag", []string{"query", "candidates", "--limt", "5"}, "ballot: flag provided but not defined: -limt (did you mean \"--limit\"?)\n"},
		{"flag before the command's argument", []string{"validate", "--stict", "."}, "ballot: flag provided but not defined: -stict (did you mean \"--strict\"?)\n"},
		{"flag far from any", []string{"serve", "--port", "80"}, "ballot: flag provided but not defined: -port\n"},
		{"flag of the app", []string{"--verison"}, "ballot: flag provided but not defined: -verison (did you mean \"--version\"?)\n"},
		{"help of a mistyped command", []string{"help", "serv"}, "ballot: no help for \"serv\", which is no command (did you mean \"serve\"?); run 'ballot help'\n"},
		{"help of no command", []string{"help", "publish"}, "ballot: no help for \"publish\", which is no command; run 'ballot help'\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Chdir(t.TempDir()) // no config.toml
			code, stdout, stderr := run(t, tt.args...)
			if code != commands.ExitUsage || stdout != "" || stderr != tt.stderr {
				t.Errorf("exit %d, stdout %q, stderr %q; want %d and %q", code, stdout, stderr, commands.ExitUsage, tt.stderr)
			}
		})
	}
}

// TestVersionFlag: "ballot --version" prints what "ballot version" prints.
func TestVersionFlag(t *testing.T) {
	code, want, stderr := run(t, "version")
	if code != commands.ExitOK || stderr != "" || !strings.HasPrefix(want, "ballot devel\ncommit:") {
		t.Fatalf("version: exit %d, stdout %q, stderr %q", code, want, stderr)
	}
	code, stdout, stderr := run(t, "--version")
	if code != commands.ExitOK || stderr != "" || stdout != want {
		t.Errorf("--version: exit %d, stderr %q, stdout\n%s\nwant\n%s", code, stderr, stdout, want)
	}
}
