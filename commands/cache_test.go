package commands_test

import (
	"net/http"
	"os"
	"path/filepath"
	"testing"
)

// TestProdCacheControl runs serve with the shared-cache settings from each
// place a setting comes from (the file, a variable, a flag) and checks the
// exact Cache-Control of a 200 and a 304; with none, only max-age is sent.
func TestProdCacheControl(t *testing.T) {
	tests := []struct {
		name   string
		config string
		env    []string
		args   []string
		want   string
	}{
		{"defaults", "", nil, nil, "public, max-age=60"},
		{"file, variable and flag",
			"cache_s_maxage = 600\ncache_stale_while_revalidate = 30\n",
			[]string{"BALLOT_CACHE_STALE_IF_ERROR=86400"},
			[]string{"--cache-max-age", "0"},
			"public, max-age=0, s-maxage=600, stale-while-revalidate=30, stale-if-error=86400"},
		{"a flag turns one off", "cache_s_maxage = 600\ncache_stale_if_error = 3600\n", nil,
			[]string{"--cache-s-maxage", "0"}, "public, max-age=60, stale-if-error=3600"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			if tt.config != "" {
				if err := os.WriteFile(filepath.Join(dir, "config.toml"), []byte(tt.config), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			p := serveIn(t, dir, tt.env, append([]string{"--admin-listen", ""}, tt.args...)...)
			hc := prodHTTP(t)
			ok := prodDo(t, hc, http.MethodGet, p.url(e2eBase+"/parties"), nil)
			checkOK(t, ok)
			if got := ok.header.Get("Cache-Control"); got != tt.want {
				t.Errorf("200: Cache-Control %q, want %q", got, tt.want)
			}
			nm := prodDo(t, hc, http.MethodGet, p.url(e2eBase+"/parties"), map[string]string{"If-None-Match": ok.header.Get("ETag")})
			if nm.status != http.StatusNotModified || nm.header.Get("Cache-Control") != tt.want {
				t.Errorf("304: status %d, Cache-Control %q, want 304 and %q", nm.status, nm.header.Get("Cache-Control"), tt.want)
			}
			bad := prodDo(t, hc, http.MethodGet, p.url(e2eBase+"/candidates?limit=0"), nil)
			if bad.status != http.StatusBadRequest || bad.header.Get("Cache-Control") != "no-store" {
				t.Errorf("400: status %d, Cache-Control %q, want 400 and no-store", bad.status, bad.header.Get("Cache-Control"))
			}
		})
	}
}
