package commands_test

import (
	"os"
	"path/filepath"
	"testing"

	"ballot/commands"
)

// TestConfigSourcesAgree: a bad setting is a usage error (exit 2) whether
// it comes from config.toml, an environment variable or a flag, with one
// line that names the setting and where it came from.
func TestConfigSourcesAgree(t *testing.T) {
	const refused = "max_header_bytes must be from 1024 to 1048576 (1 MiB)"
	tests := []struct {
		name string
		file string
		env  []string
		args []string
		want string
	}{
		{"file", "max_header_bytes = 10\n", nil, nil, "ballot: config config.toml: " + refused + "\n"},
		{"environment", "", []string{"BALLOT_MAX_HEADER_BYTES=10"}, nil, "ballot: environment variable BALLOT_MAX_HEADER_BYTES: " + refused + "\n"},
		{"flag", "", nil, []string{"--max-header-bytes", "10"}, "ballot: flag --max-header-bytes: " + refused + "\n"},
		{"flag over a good variable", "", []string{"BALLOT_MAX_HEADER_BYTES=2048"}, []string{"--max-header-bytes", "10"}, "ballot: flag --max-header-bytes: " + refused + "\n"},
		{"variable over a good file", "max_header_bytes = 2048\n", []string{"BALLOT_MAX_HEADER_BYTES=10"}, nil, "ballot: environment variable BALLOT_MAX_HEADER_BYTES: " + refused + "\n"},
		{"not a number, from a flag", "", nil, []string{"--max-header-bytes", "ten"}, "ballot: flag --max-header-bytes: max_header_bytes must be a whole number, not \"ten\"\n"},
		{"not a number, from a variable", "", []string{"BALLOT_MAX_HEADER_BYTES=ten"}, nil, "ballot: environment variable BALLOT_MAX_HEADER_BYTES: max_header_bytes must be a whole number, not \"ten\"\n"},
		{"a certificate without its key, from a flag", "", nil, []string{"--tls-cert-file", "cert.pem"}, "ballot: flag --tls-cert-file: tls_cert_file and tls_key_file go together: set both to serve HTTPS, or neither\n"},
		{"watch without data, from a variable", "", []string{"BALLOT_WATCH=1"}, nil, "ballot: environment variable BALLOT_WATCH: watch needs a dataset directory (--data or data): the embedded dataset never changes\n"},
		{"watch without data, from the file", "watch = true\n", nil, nil, "ballot: config config.toml: watch needs a dataset directory (--data or data): the embedded dataset never changes\n"},
		{"a key without its certificate, from the file", "tls_key_file = \"key.pem\"\n", nil, nil, "ballot: config config.toml: tls_cert_file and tls_key_file go together: set both to serve HTTPS, or neither\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			if tt.file != "" {
				if err := os.WriteFile(filepath.Join(dir, "config.toml"), []byte(tt.file), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			args := append([]string{"serve", "--listen", "127.0.0.1:0", "--admin-listen", ""}, tt.args...)
			code, _, stderr := runIn(t, dir, tt.env, args...)
			if code != commands.ExitUsage || stderr != tt.want {
				t.Errorf("exit %d, stderr %q; want %d and %q", code, stderr, commands.ExitUsage, tt.want)
			}
		})
	}
}
