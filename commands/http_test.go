package commands_test

import (
	"bytes"
	"compress/gzip"
	"io"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// TestE2EHTTP checks the HTTP behaviour around the data on a fresh process:
// 404, 405, HEAD, ETag and If-None-Match, gzip and the CORS preflight.
func TestE2EHTTP(t *testing.T) {
	t.Parallel()
	p := serveInProcess(t)
	c := p.client(t, "127.0.0.1")

	t.Run("404", func(t *testing.T) {
		for _, path := range []string{
			"/index.html",
			"/parties/pn/more",
			"/favicon.ico",
			"/api/public/v1/nothing",
			"/api/public/v2/parties",
			"/api/public/v1/parties/extra",
			"/api/public/v1/candidates/1",
			"/api/public/v1/PARTIES",
		} {
			t.Run(path, func(t *testing.T) {
				checkProblem(t, c.get(t, path), http.StatusNotFound)
			})
		}
	})
	t.Run("405", func(t *testing.T) {
		for _, name := range []string{"parties", "districts", "candidates"} {
			for _, method := range []string{http.MethodPost, http.MethodPut, http.MethodDelete, http.MethodPatch} {
				t.Run(method+" "+name, func(t *testing.T) {
					r := c.do(t, method, e2eBase+"/"+name, nil)
					checkProblem(t, r, http.StatusMethodNotAllowed)
					if got := r.header.Get("Allow"); got != "GET, HEAD, OPTIONS" {
						t.Errorf("Allow = %q, want GET, HEAD, OPTIONS", got)
					}
				})
			}
		}
	})
	t.Run("HEAD, ETag and gzip", func(t *testing.T) {
		for _, path := range []string{e2eBase + "/parties", e2eBase + "/districts", e2eBase + "/candidates?limit=3"} {
			t.Run(path, func(t *testing.T) { checkConditionalAndGzip(t, c, path) })
		}
		t.Run("HEAD of errors", func(t *testing.T) { checkHeadOfErrors(t, c) })
		t.Run("ETag depends on the answer", func(t *testing.T) {
			one := c.get(t, e2eBase+"/candidates?limit=1")
			two := c.get(t, e2eBase+"/candidates?limit=2")
			if one.header.Get("ETag") == two.header.Get("ETag") {
				t.Fatalf("limit=1 and limit=2 have the same ETag %q", one.header.Get("ETag"))
			}
			r := c.do(t, http.MethodGet, e2eBase+"/candidates?limit=2", map[string]string{"If-None-Match": one.header.Get("ETag")})
			checkOK(t, r)
		})
	})
	t.Run("preflight", func(t *testing.T) {
		for _, name := range []string{"parties", "districts", "candidates", "candidates/robert-abela", ""} {
			t.Run(name, func(t *testing.T) { checkPreflight(t, c, e2eBase+"/"+name) })
		}
		// A path that is no endpoint's has nothing to preflight: OPTIONS
		// gets its 404, counted no more than a preflight.
		t.Run("nothing", func(t *testing.T) {
			r := c.do(t, http.MethodOptions, e2eBase+"/nothing", map[string]string{"Origin": "https://example.org", "Access-Control-Request-Method": "GET"})
			checkProblem(t, r, http.StatusNotFound)
			if got := r.header.Get("Access-Control-Allow-Methods"); got != "" {
				t.Errorf("Access-Control-Allow-Methods = %q on a 404, want none", got)
			}
		})
	})
}

// varyingHeaders differ from one response to the next by design.
var varyingHeaders = map[string]bool{"Date": true, "X-Ratelimit-Remaining": true, "Ratelimit": true}

// sameHeaders checks that a GET and a HEAD of the same thing have the same
// headers, but for those that vary by design and those in ignore.
func sameHeaders(t *testing.T, get, head reply, ignore ...string) {
	t.Helper()
	varying := varyingHeaders
	for k := range get.header {
		if varying[k] || slices.Contains(ignore, k) {
			continue
		}
		if !slices.Equal(get.header[k], head.header[k]) {
			t.Errorf("%s: GET has %q, HEAD has %q", k, get.header[k], head.header[k])
		}
	}
	for k := range head.header {
		if _, ok := get.header[k]; !ok && !varying[k] && !slices.Contains(ignore, k) {
			t.Errorf("HEAD has %s: %q, GET has none", k, head.header[k])
		}
	}
}

// checkConditionalAndGzip checks a success's HEAD, its ETag and 304s, and
// its gzip answer, against its plain GET.
func checkConditionalAndGzip(t *testing.T, c *e2eClient, path string) {
	get := c.get(t, path)
	checkOK(t, get)
	etag := get.header.Get("ETag")
	if etag == "" {
		t.Fatal("no ETag on a success")
	}
	if get.header.Get("Content-Length") != strconv.Itoa(len(get.body)) {
		t.Errorf("Content-Length = %q, body has %d bytes", get.header.Get("Content-Length"), len(get.body))
	}

	head := c.do(t, http.MethodHead, path, nil)
	if head.status != http.StatusOK || len(head.body) != 0 {
		t.Errorf("HEAD: status %d with %d body bytes, want 200 and none", head.status, len(head.body))
	}
	sameHeaders(t, get, head)

	for _, method := range []string{http.MethodGet, http.MethodHead} {
		for _, inm := range []string{etag, strings.TrimPrefix(etag, "W/"), `"nope", ` + etag} {
			r := c.do(t, method, path, map[string]string{"If-None-Match": inm})
			if r.status != http.StatusNotModified || len(r.body) != 0 {
				t.Errorf("%s with If-None-Match %s: status %d with %d body bytes, want 304 and none", method, inm, r.status, len(r.body))
			}
			if r.header.Get("ETag") != etag {
				t.Errorf("304: ETag = %q, want %q", r.header.Get("ETag"), etag)
			}
		}
	}
	r := c.do(t, http.MethodGet, path, map[string]string{"If-None-Match": `W/"not-this-one"`})
	checkOK(t, r)

	gz := c.do(t, http.MethodGet, path, map[string]string{"Accept-Encoding": "gzip"})
	if gz.status != http.StatusOK || gz.header.Get("Content-Encoding") != "gzip" {
		t.Fatalf("GET with Accept-Encoding gzip: status %d, Content-Encoding %q, want 200 gzip", gz.status, gz.header.Get("Content-Encoding"))
	}
	if !slices.ContainsFunc(gz.header.Values("Vary"), func(v string) bool { return strings.Contains(strings.ToLower(v), "accept-encoding") }) {
		t.Errorf("gzip answer has Vary %q, want Accept-Encoding", gz.header.Values("Vary"))
	}
	zr, err := gzip.NewReader(bytes.NewReader(gz.body))
	if err != nil {
		t.Fatalf("body is not gzip: %v", err)
	}
	plain, err := io.ReadAll(zr)
	if err != nil {
		t.Fatalf("body is not valid gzip: %v", err)
	}
	gz.body = plain
	checkOK(t, gz)
	strip := func(b []byte) []byte { return e2eGenerated.ReplaceAll(b, []byte(`"generatedAt":""`)) }
	if !bytes.Equal(strip(plain), strip(get.body)) {
		t.Errorf("gunzipped body differs from the plain body:\n%.300s\n%.300s", plain, get.body)
	}

	gzHead := c.do(t, http.MethodHead, path, map[string]string{"Accept-Encoding": "gzip"})
	if gzHead.status != http.StatusOK || len(gzHead.body) != 0 {
		t.Errorf("HEAD with gzip: status %d with %d body bytes, want 200 and none", gzHead.status, len(gzHead.body))
	}
	sameHeaders(t, gz, gzHead, "Content-Length") // RFC 9110 lets HEAD omit it

	gz304 := c.do(t, http.MethodGet, path, map[string]string{"Accept-Encoding": "gzip", "If-None-Match": etag})
	if gz304.status != http.StatusNotModified || len(gz304.body) != 0 {
		t.Errorf("GET with gzip and If-None-Match: status %d with %d body bytes, want 304 and none", gz304.status, len(gz304.body))
	}
}

// checkHeadOfErrors checks that a HEAD of a refused request has the GET's
// status and headers, and no body.
func checkHeadOfErrors(t *testing.T, c *e2eClient) {
	for _, tt := range []struct {
		path   string
		status int
	}{
		{e2eBase + "/candidates?limit=0", http.StatusBadRequest},
		{e2eBase + "/candidates?party=no-such-party", http.StatusBadRequest},
		{e2eBase + "/nothing", http.StatusNotFound},
	} {
		get := c.get(t, tt.path)
		checkProblem(t, get, tt.status)
		head := c.do(t, http.MethodHead, tt.path, nil)
		if head.status != tt.status || len(head.body) != 0 {
			t.Errorf("HEAD %s: status %d with %d body bytes, want %d and none", tt.path, head.status, len(head.body), tt.status)
		}
		sameHeaders(t, get, head)
	}
}

// checkPreflight sends three CORS preflights for path: 204 with the
// methods, the headers asked for and a max-age, and not counted by the
// rate limit.
func checkPreflight(t *testing.T, c *e2eClient, path string) {
	hdr := map[string]string{
		"Origin":                         "https://example.org",
		"Access-Control-Request-Method":  "GET",
		"Access-Control-Request-Headers": "If-None-Match, X-Requested-With",
	}
	before := c.counts[e2eBucket(path)]
	for range 3 {
		r := c.do(t, http.MethodOptions, path, hdr) // checks Remaining is unchanged
		if r.status != http.StatusNoContent || len(r.body) != 0 {
			t.Errorf("OPTIONS: status %d with %d body bytes, want 204 and none", r.status, len(r.body))
		}
		if got := r.header.Get("Access-Control-Allow-Methods"); got != "GET, HEAD, OPTIONS" {
			t.Errorf("Access-Control-Allow-Methods = %q, want GET, HEAD, OPTIONS", got)
		}
		allowed := map[string]bool{}
		for _, v := range r.header.Values("Access-Control-Allow-Headers") {
			for _, h := range strings.Split(v, ",") {
				allowed[strings.ToLower(strings.TrimSpace(h))] = true
			}
		}
		if !(allowed["*"] || allowed["if-none-match"] && allowed["x-requested-with"]) {
			t.Errorf("Access-Control-Allow-Headers = %q, want the requested If-None-Match, X-Requested-With", r.header.Values("Access-Control-Allow-Headers"))
		}
		if age, err := strconv.Atoi(r.header.Get("Access-Control-Max-Age")); err != nil || age <= 0 {
			t.Errorf("Access-Control-Max-Age = %q, want a positive number of seconds", r.header.Get("Access-Control-Max-Age"))
		}
	}
	if c.counts[e2eBucket(path)] != before {
		t.Fatal("the helper counted a preflight")
	}
	// The next GET is counted as the very next request.
	c.get(t, path)
}
