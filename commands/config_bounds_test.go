package commands_test

import (
	"bytes"
	"context"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"ballot/commands"
)

// TestConfigBounds walks every numeric and duration setting to each end of
// its range: the last value accepted, and the first refused with a message
// that names the key and the range. Values near the top of an int are
// refused, not carried into net/http or the limiter, where they overflow.
func TestConfigBounds(t *testing.T) {
	const maxDuration = "2562047h47m16.854775807s" // the longest Go parses
	tests := []struct {
		key, value string
		refused    string // the message, or "" when the value is accepted
	}{
		{"max_header_bytes", "1024", ""},
		{"max_header_bytes", "1048576", ""},
		{"max_header_bytes", "1023", "max_header_bytes must be from 1024 to 1048576 (1 MiB)"},
		{"max_header_bytes", "1048577", "max_header_bytes must be from 1024 to 1048576 (1 MiB)"},
		{"max_header_bytes", fmt.Sprint(math.MaxInt64), "max_header_bytes must be from 1024 to 1048576 (1 MiB)"},
		{"rate_limit", "1", ""},
		{"rate_limit", "1000000000", ""},
		{"rate_limit", "0", "rate_limit must be a number of requests per minute from 1 to 1000000000"},
		{"rate_limit", "1000000001", "rate_limit must be a number of requests per minute from 1 to 1000000000"},
		{"rate_limit", fmt.Sprint(math.MaxInt64), "rate_limit must be a number of requests per minute from 1 to 1000000000"},
		{"max_tracked_clients", "1", ""},
		{"max_tracked_clients", "100000000", ""},
		{"max_tracked_clients", "0", "max_tracked_clients must be from 1 to 100000000"},
		{"max_tracked_clients", fmt.Sprint(math.MaxInt64), "max_tracked_clients must be from 1 to 100000000"},
		{"ipv6_prefix", "1", ""},
		{"ipv6_prefix", "128", ""},
		{"ipv6_prefix", "0", "ipv6_prefix must be a prefix length from 1 to 128"},
		{"ipv6_prefix", "129", "ipv6_prefix must be a prefix length from 1 to 128"},
		{"ipv6_prefix", fmt.Sprint(math.MinInt64), "ipv6_prefix must be a prefix length from 1 to 128"},
		{"cache_max_age", "0", ""},
		{"cache_max_age", "31536000", ""},
		{"cache_max_age", "-1", "cache_max_age must be a number of seconds from 0 to 31536000 (a year)"},
		{"cache_max_age", "31536001", "cache_max_age must be a number of seconds from 0 to 31536000 (a year)"},
		{"cache_max_age", fmt.Sprint(math.MaxInt64), "cache_max_age must be a number of seconds from 0 to 31536000 (a year)"},
	}
	for _, key := range []string{"cache_s_maxage", "cache_stale_while_revalidate", "cache_stale_if_error"} {
		refused := key + " must be a number of seconds from 0 (off) to 31536000 (a year)"
		tests = append(tests,
			struct{ key, value, refused string }{key, "0", ""},
			struct{ key, value, refused string }{key, "31536000", ""},
			struct{ key, value, refused string }{key, "-1", refused},
			struct{ key, value, refused string }{key, "31536001", refused},
			struct{ key, value, refused string }{key, fmt.Sprint(math.MaxInt64), refused},
		)
	}
	// A timeout has no upper bound: the longest duration Go parses is
	// used as a deadline from now, which the time package saturates.
	for _, key := range []string{"read_header_timeout", "read_timeout", "write_timeout", "idle_timeout", "shutdown_timeout"} {
		tests = append(tests,
			struct{ key, value, refused string }{key, `"1ns"`, ""},
			struct{ key, value, refused string }{key, `"` + maxDuration + `"`, ""},
			struct{ key, value, refused string }{key, `"0s"`, key + ` must be a duration above zero, such as "`},
			struct{ key, value, refused string }{key, `"-1ns"`, key + ` must be a duration above zero, such as "`},
			struct{ key, value, refused string }{key, `"2562048h"`, `"2562048h" is not a duration such as "5s" or "2m"`},
		)
	}
	for _, tt := range tests {
		t.Run(tt.key+"="+tt.value, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "config.toml")
			if err := os.WriteFile(path, []byte(tt.key+" = "+tt.value+"\n"), 0o644); err != nil {
				t.Fatal(err)
			}
			_, err := commands.LoadConfig(path, true)
			switch {
			case tt.refused == "" && err != nil:
				t.Errorf("config file: %v, want the value accepted", err)
			case tt.refused != "" && (err == nil || !strings.Contains(err.Error(), tt.refused)):
				t.Errorf("config file: error %v, want %q", err, tt.refused)
			}
			if tt.refused == "" {
				return
			}
			// The flag is checked as the file is, with a usage error.
			t.Chdir(t.TempDir())
			flag := "--" + strings.ReplaceAll(tt.key, "_", "-")
			code, stdout, stderr := boundsRun(t, "serve", flag, strings.Trim(tt.value, `"`), "--listen", "127.0.0.1:0", "--admin-listen", "")
			if code != commands.ExitUsage || stdout != "" || !strings.Contains(stderr, tt.refused) || strings.Count(stderr, "\n") != 1 {
				t.Errorf("serve %s %s: exit %d, stdout %q, stderr %q; want exit %d and one line with %q", flag, tt.value, code, stdout, stderr, commands.ExitUsage, tt.refused)
			}
		})
	}
}

// boundsRun runs the command line in-process like run, but stops it after
// 10 s: a value wrongly accepted would otherwise leave serve running.
func boundsRun(t *testing.T, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	var out, errOut bytes.Buffer
	code = commands.Run(ctx, append([]string{"ballot"}, args...), &out, &errOut)
	return code, out.String(), errOut.String()
}
