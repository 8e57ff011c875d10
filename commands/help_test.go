package commands_test

import (
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"strings"
	"testing"

	"github.com/BurntSushi/toml"
)

// TestServeHelpDefaults runs serve --help and checks, for every key of the
// repository's config.toml, that the help shows the default the file holds,
// written as the README's configuration table writes it ("5s", not
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
	readme, err := os.ReadFile(filepath.Join("..", "README.md"))
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
			if row := "| `" + key + "` | `" + m[1] + "` |"; !strings.Contains(string(readme), row) {
				t.Errorf("README.md has no row %q: its default is not written as the help writes it", row)
			}
		})
	}
}
