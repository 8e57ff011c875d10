package commands_test

import (
	"io"
	"net/http"
	"testing"
)

// TestE2EPagesSetting: serve answers the pages under / by default, and
// pages = false (here --pages=false) makes / the 404 problem of every path
// that is no endpoint's, for a browser too.
func TestE2EPagesSetting(t *testing.T) {
	t.Parallel()
	hc := &http.Client{Timeout: e2eTimeout}
	get := func(t *testing.T, u string) (*http.Response, []byte) {
		t.Helper()
		req, err := http.NewRequest(http.MethodGet, u, nil)
		if err != nil {
			t.Fatal(err)
		}
		req.Header.Set("Accept", "text/html")
		resp, err := hc.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		body, err := io.ReadAll(resp.Body)
		if err != nil {
			t.Fatal(err)
		}
		return resp, body
	}
	t.Run("on", func(t *testing.T) {
		t.Parallel()
		p := serveInProcess(t)
		resp, body := get(t, "http://"+p.addr+"/")
		if resp.StatusCode != http.StatusOK || resp.Header.Get("Content-Type") != "text/html; charset=utf-8" ||
			resp.Header.Get("Content-Security-Policy") == "" || resp.Header.Get("X-RateLimit-Limit") == "" || len(body) == 0 {
			t.Errorf("GET /: status %d, headers %q, %d bytes; want the home page", resp.StatusCode, resp.Header, len(body))
		}
	})
	t.Run("off", func(t *testing.T) {
		t.Parallel()
		p := serveInProcess(t, "--pages=false")
		c := p.client(t, "127.0.0.1")
		for _, path := range []string{"/", "/candidates", "/reference"} {
			checkProblem(t, c.do(t, http.MethodGet, path, map[string]string{"Accept": "text/html"}), http.StatusNotFound)
		}
	})
}
