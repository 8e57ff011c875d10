package apitest

import (
	"bytes"
	"compress/gzip"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

func TestDocumentIsValid(t *testing.T) {
	for _, err := range DocumentErrors() {
		t.Error(err)
	}
}

// every are the headers every answer carries.
func every() http.Header {
	return http.Header{
		"Access-Control-Allow-Origin":   {"*"},
		"Access-Control-Expose-Headers": {"ETag, Link, Retry-After, X-RateLimit-Limit, X-RateLimit-Remaining, X-RateLimit-Reset, RateLimit-Policy, RateLimit"},
		"X-Content-Type-Options":        {"nosniff"},
		"X-Ratelimit-Limit":             {"60"},
		"X-Ratelimit-Remaining":         {"59"},
		"X-Ratelimit-Reset":             {"1795234561"},
		"Ratelimit-Policy":              {`"endpoint";q=60;w=60`},
		"Ratelimit":                     {`"endpoint";r=59;t=60`},
	}
}

func with(h http.Header, kv ...string) http.Header {
	h = h.Clone()
	for i := 0; i < len(kv); i += 2 {
		if kv[i+1] == "" {
			h.Del(kv[i])
		} else {
			h.Set(kv[i], kv[i+1])
		}
	}
	return h
}

const (
	party   = `{"id":"2acf0508-f838-57a5-918a-affa0a1b1d89","slug":"pn","name":"Partit Nazzjonalista","short_name":"PN","name_en":"Nationalist Party","color":null,"website":"https://pn.org.mt","leader_name":null,"logo_url":null,"wikipedia_url":null}`
	parties = `{"data":[` + party + `],"meta":{"count":1,"total":1,"generatedAt":"2026-11-21T04:15:00.123Z"}}` + "\n"
	// A page of no candidates: district 13 has no Volt candidate.
	candidates = `{"data":[],"meta":{"count":0,"total":0,"limit":100,"offset":0,"filters":{"district":null,"party":{"slug":"volt","id":"e9e73bd0-08df-5d37-92c6-82bde490c1d5"},"stood_in":null,"elected":null,"q":null},"generatedAt":"2026-11-21T04:15:00.123Z"}}` + "\n"
	next       = `</api/public/v1/candidates?party=pn&limit=1&offset=1>; rel="next"`
	p500       = `{"type":"about:blank","title":"Internal Server Error","status":500,"detail":"the server could not answer this request"}` + "\n"
	p404       = `{"type":"about:blank","title":"Not Found","status":404,"detail":"there is no endpoint at this path"}` + "\n"
)

func gz(s string) []byte {
	var b bytes.Buffer
	w := gzip.NewWriter(&b)
	w.Write([]byte(s))
	w.Close()
	return b.Bytes()
}

// TestCheckFindsLies feeds the checker answers right and wrong: it must
// accept the first and name the fault of each of the others.
func TestCheckFindsLies(t *testing.T) {
	ok := with(every(), "Content-Type", "application/json; charset=utf-8", "ETag", `W/"fe550e5ab3ffd965-p-6"`, "Cache-Control", "public, max-age=60", "Vary", "Accept-Encoding")
	problem := with(every(), "Content-Type", "application/problem+json", "Cache-Control", "no-store")
	tests := []struct {
		name   string
		method string
		target string
		status int
		header http.Header
		body   string
		fault  string // "" when the answer is right
	}{
		{"a right answer", "GET", "/api/public/v1/parties", 200, ok, parties, ""},
		{"a page with a link to the next", "GET", "/api/public/v1/candidates?party=pn&limit=1", 200, with(ok, "Link", next), candidates, ""},
		{"HEAD of a page with a link", "HEAD", "/api/public/v1/candidates?party=pn&limit=1", 200, with(ok, "Link", next), "", ""},
		{"a link on parties", "GET", "/api/public/v1/parties", 200, with(ok, "Link", next), parties, "header Link"},
		{"a link of another relation", "GET", "/api/public/v1/candidates", 200, with(ok, "Link", strings.Replace(next, "next", "last", 1)), candidates, "header Link"},
		{"a page without its filters", "GET", "/api/public/v1/candidates", 200, ok, strings.Replace(candidates, `"filters"`, `"filter"`, 1), "filters"},
		{"a page without total", "GET", "/api/public/v1/candidates", 200, ok, strings.Replace(candidates, `"total":0,`, "", 1), "total"},
		{"a filter not in canonical form", "GET", "/api/public/v1/candidates", 200, ok, strings.Replace(candidates, `"volt"`, `"Volt"`, 1), "slug"},
		{"gzipped", "GET", "/api/public/v1/parties", 200, with(ok, "Content-Encoding", "gzip"), string(gz(parties)), ""},
		{"a 500 problem", "GET", "/api/public/v1/parties", 500, problem, p500, ""},
		{"HEAD: the body is not read", "HEAD", "/api/public/v1/parties", 200, ok, "junk", ""},
		{"unknown path", "GET", "/nowhere", 404, with(problem, "Vary", "Accept-Encoding"), p404, ""},
		{"a status not documented", "GET", "/api/public/v1/parties", 400, problem, p500, "status 400 is not documented"},
		{"a missing required header", "GET", "/api/public/v1/parties", 200, with(ok, "X-RateLimit-Reset", ""), parties, "X-Ratelimit-Reset is required"},
		{"a header of the wrong type", "GET", "/api/public/v1/parties", 200, with(ok, "X-RateLimit-Reset", "soon"), parties, "not an integer"},
		{"a header out of its pattern", "GET", "/api/public/v1/parties", 200, with(ok, "RateLimit", "59"), parties, "header Ratelimit"},
		{"a strong ETag where a weak one is documented", "GET", "/api/public/v1/parties", 200, with(ok, "ETag", `"abc"`), parties, "header Etag"},
		{"an undeclared header", "GET", "/api/public/v1/parties", 200, with(ok, "X-Powered-By", "Go"), parties, "X-Powered-By"},
		{"a record with an extra field", "GET", "/api/public/v1/parties", 200, ok, strings.Replace(parties, `"slug"`, `"extra":1,"slug"`, 1), "extra"},
		{"a record missing a field", "GET", "/api/public/v1/parties", 200, ok, strings.Replace(parties, `"color":null,`, "", 1), "color"},
		{"a UUID in upper case", "GET", "/api/public/v1/parties", 200, ok, strings.Replace(parties, "2acf0508", "2ACF0508", 1), "id"},
		{"generatedAt without milliseconds", "GET", "/api/public/v1/parties", 200, ok, strings.Replace(parties, ".123Z", "Z", 1), "generatedAt"},
		{"another media type", "GET", "/api/public/v1/parties", 200, with(ok, "Content-Type", "text/html"), parties, "text/html"},
		{"a body on a 304", "GET", "/api/public/v1/parties", 304, with(every(), "ETag", `W/"x"`, "Cache-Control", "public, max-age=60"), parties, "no body"},
		{"a problem without detail", "GET", "/api/public/v1/parties", 500, problem, `{"type":"about:blank","title":"x","status":500}`, "detail"},
		{"an unknown path answered 200", "GET", "/nowhere", 200, ok, parties, "NotFound"},
		{"POST answered 200", "POST", "/api/public/v1/parties", 200, ok, parties, "MethodNotAllowed"},
		{"a 405 without Allow", "DELETE", "/api/public/v1/parties", 405, problem, strings.Replace(p404, "404", "405", 1), "Allow is required"},
		{"a preflight answered 200", "OPTIONS", "/api/public/v1/parties", 200, ok, "", "status 200 is not documented"},
	}
	c := load()
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			req := httptest.NewRequest(tt.method, tt.target, nil)
			got := strings.Join(c.check(req, tt.status, tt.header, []byte(tt.body)), "\n")
			switch {
			case tt.fault == "" && got != "":
				t.Errorf("a right answer was refused:\n%s", got)
			case tt.fault != "" && !strings.Contains(got, tt.fault):
				t.Errorf("want a fault mentioning %q, got:\n%s", tt.fault, got)
			}
		})
	}
}
