package server_test

import (
	"ballot/internal/datasettest"
	"bytes"
	"compress/gzip"
	"crypto/tls"
	"encoding/json"
	"io"
	"maps"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"net/url"
	"os"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"ballot/archive"
	"ballot/dataset"
	"ballot/internal/apitest"
	"ballot/server"
)

// hostRequest is a request with a Host of its own, and TLS if asked for;
// do() sends every request to example.com over plain HTTP.
type hostRequest struct {
	method string
	target string
	host   string
	tls    bool
	remote string
	header map[string]string
}

func doHost(t testing.TB, h http.Handler, q hostRequest) *httptest.ResponseRecorder {
	t.Helper()
	req := httptest.NewRequest(cmpOr(q.method, http.MethodGet), q.target, nil)
	req.Host = q.host
	req.RemoteAddr = cmpOr(q.remote, "203.0.113.7:52100")
	if q.tls {
		req.TLS = &tls.ConnectionState{}
	}
	for k, v := range q.header {
		req.Header.Set(k, v)
	}
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, req)
	apitest.Check(t, req, rec.Code, rec.Header(), rec.Body.Bytes())
	return rec
}

func cmpOr(a, b string) string {
	if a != "" {
		return a
	}
	return b
}

func decode(t *testing.T, body []byte) map[string]any {
	t.Helper()
	var v map[string]any
	if err := json.Unmarshal(body, &v); err != nil {
		t.Fatalf("body is not a JSON object: %v: %.200s", err, body)
	}
	return v
}

// TestDocuments checks status, headers and the exact body of the three
// documents, and that HEAD and If-None-Match work on them as on the
// collections.
func TestDocuments(t *testing.T) {
	document := merge(success, map[string]string{"Content-Encoding": ""})
	tests := []struct {
		name        string
		target      string
		contentType string
		golden      string // "" for the OpenAPI document, compared with the file
		publicURL   string
	}{
		{"index", "/api/public/v1/", "application/json; charset=utf-8", "index.json", ""},
		{"index without the trailing slash: the same answer", "/api/public/v1", "application/json; charset=utf-8", "index.json", ""},
		{"OpenAPI", "/api/public/v1/openapi.json", "application/json; charset=utf-8", "", ""},
		{"catalogue", "/api/public/v1/catalog.jsonld", "application/ld+json", "catalog.jsonld", "http://example.com"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s, _ := newServer(t, server.Options{PublicURL: tt.publicURL})
			rec := do(t, s, request{target: tt.target})
			if rec.Code != http.StatusOK {
				t.Fatalf("status %d, want 200: %s", rec.Code, rec.Body)
			}
			wantHeaders(t, rec.Header(), merge(everyResponse, document, map[string]string{"Content-Type": tt.contentType}))
			if got, want := rec.Header().Get("Content-Length"), itoa(rec.Body.Len()); got != want {
				t.Errorf("Content-Length = %q, want %q", got, want)
			}
			etag := rec.Header().Get("ETag")
			if !strings.HasPrefix(etag, `"`) || !strings.HasSuffix(etag, `"`) || len(etag) < 10 {
				t.Errorf("ETag = %q, want a strong tag: the bytes are the same for every request", etag)
			}
			body := rec.Body.Bytes()
			if !bytes.HasSuffix(body, []byte("\n")) {
				t.Error("the body does not end with a newline")
			}
			if tt.golden != "" {
				golden(t, tt.golden, body)
			} else {
				file, err := os.ReadFile("openapi.json")
				if err != nil {
					t.Fatal(err)
				}
				if !bytes.Equal(body, file) || !bytes.Equal(body, server.OpenAPIDocument()) {
					t.Error("the body is not server/openapi.json")
				}
			}

			again := do(t, s, request{target: tt.target})
			if again.Header().Get("ETag") != etag || !bytes.Equal(again.Body.Bytes(), body) {
				t.Error("a second request got other bytes or another ETag")
			}
			head := do(t, s, request{method: http.MethodHead, target: tt.target})
			if head.Code != 200 || head.Body.Len() != 0 {
				t.Errorf("HEAD: status %d, %d body bytes", head.Code, head.Body.Len())
			}
			for _, k := range []string{"Content-Type", "Content-Length", "ETag", "Cache-Control"} {
				if head.Header().Get(k) != rec.Header().Get(k) {
					t.Errorf("HEAD %s = %q, GET %q", k, head.Header().Get(k), rec.Header().Get(k))
				}
			}
			for _, inm := range []string{etag, "W/" + etag, `"other", ` + etag, "*"} {
				nm := do(t, s, request{target: tt.target, header: map[string]string{"If-None-Match": inm}})
				if nm.Code != http.StatusNotModified || nm.Body.Len() != 0 {
					t.Errorf("If-None-Match %s: status %d, %d body bytes; want 304 and none", inm, nm.Code, nm.Body.Len())
				}
				wantHeaders(t, nm.Header(), map[string]string{"ETag": etag, "Cache-Control": "public, max-age=60", "Content-Type": ""})
			}
			if nm := do(t, s, request{target: tt.target, header: map[string]string{"If-None-Match": `"stale"`}}); nm.Code != 200 {
				t.Errorf("a stale tag: status %d, want 200", nm.Code)
			}
			gz := do(t, s, request{target: tt.target, header: map[string]string{"Accept-Encoding": "gzip"}})
			if gz.Header().Get("Content-Encoding") != "gzip" {
				t.Fatal("not gzipped for a client that accepts gzip")
			}
			zr, err := gzip.NewReader(bytes.NewReader(gz.Body.Bytes()))
			if err != nil {
				t.Fatal(err)
			}
			if plain, err := io.ReadAll(zr); err != nil || !bytes.Equal(plain, body) {
				t.Errorf("the gzipped body is not the plain one (%v)", err)
			}
			if cl := gz.Header().Get("Content-Length"); cl != "" && cl != itoa(gz.Body.Len()) {
				t.Errorf("gzipped: Content-Length %s, want %d", cl, gz.Body.Len())
			}
		})
	}
	t.Run("Cache-Control follows the configuration", func(t *testing.T) {
		s, _ := newServer(t, server.Options{CacheMaxAge: 300 * time.Second})
		for _, target := range []string{"/api/public/v1/", "/api/public/v1/openapi.json", "/api/public/v1/catalog.jsonld"} {
			if got := do(t, s, request{target: target}).Header().Get("Cache-Control"); got != "public, max-age=300" {
				t.Errorf("%s: Cache-Control %q", target, got)
			}
		}
	})
	t.Run("the documents share the rate limit of every other path", func(t *testing.T) {
		s, _ := newServer(t, server.Options{RateLimit: 2})
		do(t, s, request{target: "/api/public/v1/"})
		do(t, s, request{target: "/nowhere"})
		rec := do(t, s, request{target: "/api/public/v1/openapi.json"})
		if rec.Code != http.StatusTooManyRequests || rec.Header().Get("Retry-After") == "" {
			t.Errorf("third request to the shared counter: status %d, Retry-After %q; want 429", rec.Code, rec.Header().Get("Retry-After"))
		}
		if rec := do(t, s, request{target: "/api/public/v1/parties"}); rec.Code != 200 {
			t.Errorf("parties has its own counter: status %d", rec.Code)
		}
	})
}

// TestIndex checks that the index names the dataset served: its title,
// version, licence and publisher, and the sentence saying how to credit it.
func TestIndex(t *testing.T) {
	ds := malta(t)
	s, _ := newServer(t, server.Options{})
	var index struct {
		Title       string
		Version     string
		License     string
		LicenseURL  *string `json:"license_url"`
		PublishedAt *string `json:"published_at"`
		Coverage    struct {
			Summary *string
			Notes   []string
		}
		Attribution struct {
			Name        string
			URL         string
			AboutURL    *string `json:"about_url"`
			HowToCredit string  `json:"how_to_credit"`
		}
		Counts    map[string]int
		Endpoints []struct {
			Path       string
			Parameters []struct{ Name string }
		}
		Links map[string]string
	}
	if err := json.Unmarshal(do(t, s, request{target: "/api/public/v1/"}).Body.Bytes(), &index); err != nil {
		t.Fatal(err)
	}
	m := ds.Manifest
	for _, c := range []struct {
		what      string
		got, want any
	}{
		{"title", index.Title, m.Title},
		{"version", index.Version, ds.Version},
		{"license", index.License, "CC-BY-4.0"},
		{"license_url", *index.LicenseURL, "https://creativecommons.org/licenses/by/4.0/"},
		{"published_at", *index.PublishedAt, m.PublishedAt.Format("2006-01-02")},
		{"coverage summary", *index.Coverage.Summary, m.Coverage.Summary},
		{"coverage notes", index.Coverage.Notes, m.Coverage.Notes},
		{"publisher", index.Attribution.Name, m.Publisher.Name},
		{"publisher's site", index.Attribution.URL, m.Publisher.URL},
		{"publisher's About page", *index.Attribution.AboutURL, m.Publisher.AboutURL},
		{"counts", index.Counts, map[string]int{"parties": 6, "districts": 13, "candidates": 177, "results": len(ds.Sheets())}},
		{"links", index.Links, map[string]string{"self": "/api/public/v1/", "openapi": "/api/public/v1/openapi.json", "catalog": "/api/public/v1/catalog.jsonld", "elections": "/api/public/v1/elections"}},
	} {
		if !reflect.DeepEqual(c.got, c.want) {
			t.Errorf("%s = %v, want %v", c.what, c.got, c.want)
		}
	}
	for _, part := range []string{m.Publisher.Name, m.Publisher.URL, m.Publisher.AboutURL, m.License} {
		if !strings.Contains(index.Attribution.HowToCredit, part) {
			t.Errorf("how_to_credit %q does not mention %q", index.Attribution.HowToCredit, part)
		}
	}
	var paths []string
	for _, e := range index.Endpoints {
		paths = append(paths, e.Path)
		want := 200
		if e.Path == server.BasePath+"/results/{number_or_id}" && len(ds.Sheets()) == 0 {
			want = 404 // a dataset without count sheets
		}
		target := withKey(e.Path)
		if e.Path == server.BasePath+"/people" {
			target += "?q=abela" // q is required
		}
		if rec := do(t, s, request{target: target}); rec.Code != want {
			t.Errorf("the index lists %s, which answers %d", e.Path, rec.Code)
		}
	}
	for _, c := range dataset.Collections {
		if !slices.Contains(paths, server.BasePath+"/"+string(c)) {
			t.Errorf("the index does not list the %s collection", c)
		}
	}

	t.Run("a reload changes it", func(t *testing.T) {
		next := edition(t, "Second edition")
		if _, err := s.Reload(func() (*archive.Archive, error) { return archive.Of(next), nil }); err != nil {
			t.Fatal(err)
		}
		v := decode(t, do(t, s, request{target: "/api/public/v1/"}).Body.Bytes())
		if v["title"] != "Second edition" || v["version"] != next.Version {
			t.Errorf("after a reload: title %v, version %v", v["title"], v["version"])
		}
		catalog := decode(t, do(t, s, request{target: "/api/public/v1/catalog.jsonld"}).Body.Bytes())
		if catalog["dct:title"] != "Second edition" {
			t.Errorf("after a reload the catalogue's title is %v", catalog["dct:title"])
		}
	})
}

// TestCatalog checks the catalogue's JSON-LD shape and that every
// distribution leads to the real endpoint: on the public URL when one is
// set, relative to the catalogue when none is, and never on the Host or the
// scheme a request was sent with.
func TestCatalog(t *testing.T) {
	ds := malta(t)
	tests := []struct {
		name      string
		publicURL string
		origin    string // what the catalogue's URLs start with
	}{
		{"no public URL: relative URLs", "", ""},
		{"a public URL", "https://elections.example.org", "https://elections.example.org"},
		{"a trailing slash is trimmed", "http://192.0.2.1:9000/", "http://192.0.2.1:9000"},
		{"an IPv6 host", "http://[2001:db8::1]:8443", "http://[2001:db8::1]:8443"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s, _ := newServer(t, server.Options{
				RateLimit: 1000,
				PublicURL: tt.publicURL,
				ClientIP:  server.ClientIP{Trusted: []netip.Prefix{netip.MustParsePrefix("10.0.0.0/8")}},
			})
			// A request on another host and scheme, which a trusted proxy
			// says was https: none of it changes the URLs.
			rec := doHost(t, s, hostRequest{target: "/api/public/v1/catalog.jsonld", host: "other.example:8080", tls: true,
				remote: "10.0.0.5:4000", header: map[string]string{"X-Forwarded-Proto": "https"}})
			if rec.Code != 200 || rec.Header().Get("Content-Type") != "application/ld+json" {
				t.Fatalf("status %d, Content-Type %q", rec.Code, rec.Header().Get("Content-Type"))
			}
			if strings.Contains(rec.Body.String(), "other.example") {
				t.Error("the catalogue carries the request's Host")
			}
			var c struct {
				Context   map[string]string `json:"@context"`
				ID        string            `json:"@id"`
				Type      string            `json:"@type"`
				Title     string            `json:"dct:title"`
				Publisher struct {
					Type string `json:"@type"`
					Name string `json:"foaf:name"`
				} `json:"dct:publisher"`
				License struct {
					ID string `json:"@id"`
				} `json:"dct:license"`
				Modified ldDate `json:"dct:modified"`
				Datasets []struct {
					ID           string `json:"@id"`
					Type         string `json:"@type"`
					Distribution []struct {
						Type      string `json:"@type"`
						AccessURL struct {
							ID string `json:"@id"`
						} `json:"dcat:accessURL"`
						DownloadURL struct {
							ID string `json:"@id"`
						} `json:"dcat:downloadURL"`
						MediaType struct {
							ID string `json:"@id"`
						} `json:"dcat:mediaType"`
					} `json:"dcat:distribution"`
				} `json:"dcat:dataset"`
				Services []struct {
					Type        string `json:"@type"`
					EndpointURL struct {
						ID string `json:"@id"`
					} `json:"dcat:endpointURL"`
				} `json:"dcat:service"`
			}
			if err := json.Unmarshal(rec.Body.Bytes(), &c); err != nil {
				t.Fatal(err)
			}
			for prefix, iri := range map[string]string{
				"dcat": "http://www.w3.org/ns/dcat#", "dct": "http://purl.org/dc/terms/", "foaf": "http://xmlns.com/foaf/0.1/",
				"vcard": "http://www.w3.org/2006/vcard/ns#", "xsd": "http://www.w3.org/2001/XMLSchema#",
			} {
				if c.Context[prefix] != iri {
					t.Errorf("@context %s = %q, want %q", prefix, c.Context[prefix], iri)
				}
			}
			m := ds.Manifest
			if c.Type != "dcat:Catalog" || c.ID != tt.origin+"/api/public/v1/catalog.jsonld" || c.Title != m.Title ||
				c.Publisher.Type != "foaf:Agent" || c.Publisher.Name != m.Publisher.Name || c.License.ID != m.LicenseURL ||
				c.Modified != (ldDate{m.PublishedAt.Format("2006-01-02"), "xsd:date"}) {
				t.Errorf("catalogue = %+v", c)
			}
			// The current election's collections, then each election.
			elections := embedded(t).Elections()
			if len(c.Datasets) != len(dataset.Table)+len(elections) {
				t.Fatalf("%d datasets, want %d and one for each of the %d elections", len(c.Datasets), len(dataset.Table), len(elections))
			}
			for i, e := range elections {
				d := c.Datasets[len(dataset.Table)+i]
				if d.ID != tt.origin+"/api/public/v1/catalog.jsonld#election-"+e.Record.Slug || len(d.Distribution) != len(dataset.Table) {
					t.Fatalf("election %s: dataset %s with %d distributions, want one for each collection", e.Record.Slug, d.ID, len(d.Distribution))
				}
				for j, dist := range d.Distribution {
					path := server.ElectionsPath + "/" + e.Record.Slug + "/" + string(dataset.Collections[j])
					if dist.AccessURL.ID != tt.origin+path {
						t.Errorf("election %s, distribution %d: access URL %s, want %s", e.Record.Slug, j, dist.AccessURL.ID, tt.origin+path)
					}
					rest, _ := strings.CutPrefix(dist.DownloadURL.ID, tt.origin)
					var env struct{ Meta struct{ Count int } }
					got := do(t, s, request{target: rest})
					counts := e.Record.Counts
					if err := json.Unmarshal(got.Body.Bytes(), &env); got.Code != 200 || err != nil || env.Meta.Count != []int{counts.Parties, counts.Districts, counts.Candidates, counts.Results}[j] {
						t.Errorf("%s: status %d, %d records; want the election's whole collection", dist.DownloadURL.ID, got.Code, env.Meta.Count)
					}
				}
			}
			for i, d := range c.Datasets[:len(dataset.Table)] {
				path := server.BasePath + "/" + string(dataset.Collections[i])
				if d.Type != "dcat:Dataset" || len(d.Distribution) != 1 {
					t.Fatalf("dataset %d = %+v", i, d)
				}
				dist := d.Distribution[0]
				if dist.Type != "dcat:Distribution" || dist.AccessURL.ID != tt.origin+path || dist.MediaType.ID != "https://www.iana.org/assignments/media-types/application/json" {
					t.Errorf("distribution %d = %+v, want an access URL %s", i, dist, tt.origin+path)
				}
				// Both URLs lead to the whole collection on this server.
				for _, link := range []string{dist.AccessURL.ID, dist.DownloadURL.ID} {
					rest, ok := strings.CutPrefix(link, tt.origin)
					u, err := url.Parse(rest)
					if !ok || err != nil || u.IsAbs() || !strings.HasPrefix(rest, "/") {
						t.Fatalf("%q is not a path on %q", link, tt.origin)
					}
					got := do(t, s, request{target: u.RequestURI()})
					var env struct{ Meta struct{ Count int } }
					if err := json.Unmarshal(got.Body.Bytes(), &env); got.Code != 200 || err != nil {
						t.Errorf("%s: status %d", link, got.Code)
					}
					if link == dist.DownloadURL.ID && env.Meta.Count != []int{6, 13, 177, len(ds.Sheets())}[i] {
						t.Errorf("%s has %d records, not the whole collection", link, env.Meta.Count)
					}
				}
			}
			if len(c.Services) != 1 || c.Services[0].Type != "dcat:DataService" || c.Services[0].EndpointURL.ID != tt.origin+"/api/public/v1/" {
				t.Errorf("services = %+v", c.Services)
			}

			// Every request gets the same bytes and the same tag,
			// whatever its Host and scheme.
			plain := doHost(t, s, hostRequest{target: "/api/public/v1/catalog.jsonld", host: "example.com"})
			if !bytes.Equal(plain.Body.Bytes(), rec.Body.Bytes()) || plain.Header().Get("ETag") != rec.Header().Get("ETag") {
				t.Errorf("another Host got other bytes or the ETag %s, not %s", plain.Header().Get("ETag"), rec.Header().Get("ETag"))
			}
			if nm := doHost(t, s, hostRequest{target: "/api/public/v1/catalog.jsonld", host: "a.example",
				header: map[string]string{"If-None-Match": rec.Header().Get("ETag")}}); nm.Code != 304 {
				t.Errorf("the tag on another Host: status %d, want 304", nm.Code)
			}
		})
	}
}

// TestOpenAPIServers: the OpenAPI document's servers entry is the public
// URL when one is set, and the document is otherwise server/openapi.json.
func TestOpenAPIServers(t *testing.T) {
	file := decode(t, server.OpenAPIDocument())
	tests := []struct {
		publicURL string
		want      string
	}{
		{"", "/"},
		{"https://elections.example.org", "https://elections.example.org"},
		{"https://elections.example.org/", "https://elections.example.org"},
		{"http://[2001:db8::1]:8443/ballot", "http://[2001:db8::1]:8443/ballot"},
	}
	for _, tt := range tests {
		t.Run(tt.publicURL, func(t *testing.T) {
			s, _ := newServer(t, server.Options{PublicURL: tt.publicURL})
			doc := decode(t, doHost(t, s, hostRequest{target: "/api/public/v1/openapi.json", host: "other.example"}).Body.Bytes())
			servers, _ := doc["servers"].([]any)
			if len(servers) != 1 {
				t.Fatalf("servers = %v, want one", doc["servers"])
			}
			if got := servers[0].(map[string]any)["url"]; got != tt.want {
				t.Errorf("servers[0].url = %v, want %q", got, tt.want)
			}
			delete(doc, "servers")
			rest := maps.Clone(file)
			delete(rest, "servers")
			if !reflect.DeepEqual(doc, rest) {
				t.Error("the document differs from server/openapi.json beyond its servers")
			}
		})
	}
}

type ldDate struct {
	Value string `json:"@value"`
	Type  string `json:"@type"`
}

// TestCatalogHostileHost: whatever Host a request sends, nothing of it is
// written into the catalogue, whose URLs are relative when no public URL is
// set.
func TestCatalogHostileHost(t *testing.T) {
	s, _ := newServer(t, server.Options{RateLimit: 1000})
	for _, host := range []string{
		`evil.example"><script>alert(1)</script>`,
		"",
		"evil example",
		" evil.example",
		strings.Repeat("a", 300),
		strings.Repeat("a", 64) + ".example",
		"evil.example:99999",
		"evil.example:0",
		"evil.example:80:80",
		"evil.example:",
		"evil.example:+80",
		"[::1",
		"[fe80::1%25eth0]",
		"[192.0.2.1]",
		"a..example",
		"-evil.example",
		"evil_.example",
		"évil.example",
		"evil.example/path",
		"evil.example\r\nX-Injected: 1",
		"evil.example\u0000",
		"user@evil.example",
	} {
		t.Run(host, func(t *testing.T) {
			rec := doHost(t, s, hostRequest{target: "/api/public/v1/catalog.jsonld", host: host})
			if rec.Code != 200 {
				t.Fatalf("status %d", rec.Code)
			}
			body := rec.Body.String()
			for _, bad := range []string{host, "evil", "<script", `\u003c`, "aaaaaaaaaa"} {
				if bad != "" && strings.Contains(body, bad) {
					t.Errorf("the body contains %q", bad)
				}
			}
			c := decode(t, rec.Body.Bytes())
			if c["@id"] != "/api/public/v1/catalog.jsonld" {
				t.Errorf("@id = %v, want the relative path", c["@id"])
			}
			for _, h := range rec.Header() {
				for _, v := range h {
					if strings.Contains(v, "evil") {
						t.Errorf("a header carries the host: %q", v)
					}
				}
			}
		})
	}
}

// TestOpenAPIDocument: the document parses as OpenAPI 3.1 with
// libopenapi, with no error at all.
func TestOpenAPIDocument(t *testing.T) {
	for _, err := range apitest.DocumentErrors() {
		t.Error(err)
	}
	var doc struct{ OpenAPI string }
	if err := json.Unmarshal(server.OpenAPIDocument(), &doc); err != nil || doc.OpenAPI != "3.1.0" {
		t.Errorf("openapi = %q, %v; want 3.1.0", doc.OpenAPI, err)
	}
}

// openAPI is the part of the document TestOpenAPIMatchesServer walks.
type openAPI struct {
	Paths map[string]map[string]struct {
		Parameters []struct {
			Ref string `json:"$ref"`
		}
		Responses map[string]any
	}
	Components struct {
		Parameters map[string]struct {
			Name     string
			In       string
			Required bool
			Example  any
			Examples map[string]struct{ Value any }
		}
	}
}

func readOpenAPI(t *testing.T) openAPI {
	t.Helper()
	var doc openAPI
	if err := json.Unmarshal(server.OpenAPIDocument(), &doc); err != nil {
		t.Fatal(err)
	}
	return doc
}

// TestOpenAPIMatchesServer walks the document: every path and method in
// it answers on the server (each response checked against the document by
// do), every parameter in it is one the server reads; and every endpoint
// the server announces, with its parameters, is in the document.
func TestOpenAPIMatchesServer(t *testing.T) {
	doc := readOpenAPI(t)
	embedded, _ := newServer(t, server.Options{RateLimit: 100000})
	// The results' paths are walked on a dataset with count sheets, whose
	// examples name records.
	counts, _ := countsServer(t, true, server.Options{RateLimit: 100000})
	params := map[string][]string{} // path -> parameter names
	for path, item := range doc.Paths {
		s := embedded
		if strings.HasPrefix(path, server.BasePath+"/results") {
			s = counts
		}
		methods := slices.Sorted(func(yield func(string) bool) {
			for m := range item {
				if !yield(m) {
					return
				}
			}
		})
		if !slices.Equal(methods, []string{"get", "head", "options"}) {
			t.Errorf("%s documents %v, want get, head and options", path, methods)
		}
		for method, op := range item {
			// A path parameter takes its first example (the others are
			// tried below), so that the path names a record, and so does
			// a required query parameter (the people's q).
			fill := func(except string) string {
				filled, query := path, url.Values{}
				for _, p := range op.Parameters {
					param := doc.Components.Parameters[strings.TrimPrefix(p.Ref, "#/components/parameters/")]
					names := slices.Sorted(maps.Keys(param.Examples))
					switch {
					case param.Name == except || len(names) == 0:
					case param.In == "path":
						filled = strings.Replace(filled, "{"+param.Name+"}", jsonText(param.Examples[names[0]].Value), 1)
					case param.Required:
						query.Set(param.Name, jsonText(param.Examples[names[0]].Value))
					}
				}
				if len(query) > 0 {
					return filled + "?" + query.Encode()
				}
				return filled
			}
			filled := fill("")
			rec := do(t, s, request{method: strings.ToUpper(method), target: filled})
			if want := map[string]int{"get": 200, "head": 200, "options": 204}[method]; rec.Code != want {
				t.Errorf("%s %s: status %d, want %d", method, filled, rec.Code, want)
			}
			for code := range op.Responses {
				if !slices.Contains([]string{"200", "204", "304", "400", "404", "429", "500"}, code) {
					t.Errorf("%s %s documents status %s, which the server never gives there", method, path, code)
				}
			}
			var names []string
			for _, p := range op.Parameters {
				name := strings.TrimPrefix(p.Ref, "#/components/parameters/")
				param, ok := doc.Components.Parameters[name]
				if !ok || (param.In != "query" && param.In != "path") {
					t.Fatalf("%s %s: parameter %s is not a query or path parameter of components", method, path, p.Ref)
				}
				names = append(names, param.Name)
				if param.In == "path" && method == "options" {
					continue // a preflight is answered 204 whatever the key
				}
				if param.In == "path" {
					// Every example names a record; a key naming none
					// is refused with 404.
					if !strings.Contains(path, "{"+param.Name+"}") {
						t.Errorf("%s %s documents the path parameter %s, which its path lacks", method, path, param.Name)
					}
					others := fill(param.Name) // the other path parameters filled
					for _, ex := range param.Examples {
						target := strings.Replace(others, "{"+param.Name+"}", url.PathEscape(jsonText(ex.Value)), 1)
						if rec := do(t, s, request{method: strings.ToUpper(method), target: target}); rec.Code != 200 {
							t.Errorf("%s %s: the example answers %d", method, target, rec.Code)
						}
					}
					if rec := do(t, s, request{method: strings.ToUpper(method), target: strings.Replace(others, "{"+param.Name+"}", "99999", 1)}); rec.Code != 404 {
						t.Errorf("%s %s with the key 99999: status %d, want 404", method, path, rec.Code)
					}
					continue
				}
				if !dataset.IsParam(param.Name) {
					t.Errorf("%s %s documents the parameter %s, which the server does not read", method, path, param.Name)
				}
				// Every example is accepted; a value out of range is
				// refused by name, so the server reads the parameter.
				values := []any{param.Example}
				for _, ex := range param.Examples {
					values = append(values, ex.Value)
				}
				base := fill(param.Name) // the path parameters filled
				for _, v := range values {
					if v == nil {
						continue
					}
					target := base + "?" + url.Values{param.Name: {jsonText(v)}}.Encode()
					if rec := do(t, s, request{method: strings.ToUpper(method), target: target}); rec.Code != 200 {
						t.Errorf("%s %s: the example answers %d", method, target, rec.Code)
					}
				}
				if method == "get" {
					bad := "99999"
					if param.Name == "q" {
						bad = "x" // any text of 2 characters or more is a search
					}
					rec := do(t, s, request{target: base + "?" + param.Name + "=" + bad})
					if rec.Code != 400 || !strings.Contains(rec.Body.String(), `"name":"`+param.Name+`"`) {
						t.Errorf("%s?%s=%s: status %d, %s; want 400 naming it", path, param.Name, bad, rec.Code, rec.Body)
					}
				}
			}
			slices.Sort(names)
			if method == "get" {
				params[path] = names
			} else if method == "head" && !slices.Equal(names, params[path]) && params[path] != nil {
				t.Errorf("HEAD %s documents the parameters %v, GET %v", path, names, params[path])
			}
		}
	}

	// The other way: the endpoints the server lists in its index.
	var index struct {
		Endpoints []struct {
			Path       string
			Parameters []struct{ Name string }
		}
	}
	if err := json.Unmarshal(do(t, embedded, request{target: "/api/public/v1/"}).Body.Bytes(), &index); err != nil {
		t.Fatal(err)
	}
	var listed []string
	for _, e := range index.Endpoints {
		listed = append(listed, e.Path)
		var names []string
		for _, p := range e.Parameters {
			names = append(names, p.Name)
		}
		slices.Sort(names)
		got, ok := params[e.Path]
		if !ok {
			t.Errorf("the server answers %s, which the document lacks", e.Path)
		} else if !slices.Equal(got, names) && (len(got) > 0 || len(names) > 0) {
			t.Errorf("%s: the document has the parameters %v, the server %v", e.Path, got, names)
		}
	}
	for path := range doc.Paths {
		// The index answers without its slash too, and lists itself once.
		if !slices.Contains(listed, path) && path != server.BasePath {
			t.Errorf("the document has %s, which the server's index does not list", path)
		}
	}
	for _, c := range dataset.Collections {
		if _, ok := params[server.BasePath+"/"+string(c)]; !ok {
			t.Errorf("the document lacks the %s collection", c)
		}
	}
	// Near misses of the documented paths are not endpoints. A record's
	// are an empty key, a segment more and the collection in capitals.
	for path := range doc.Paths {
		misses := []string{strings.TrimSuffix(path, "/"), path + "/", path + "x", strings.ToUpper(path)}
		if key := withKey(path); key != path {
			collection := path[:strings.LastIndexByte(path, '/')+1]
			misses = []string{collection, key + "/", key + "/x", strings.ToUpper(collection) + "pn"}
		}
		for _, miss := range misses {
			if _, documented := doc.Paths[miss]; !documented {
				if rec := do(t, embedded, request{target: miss}); rec.Code != 404 {
					t.Errorf("%s: status %d, want 404", miss, rec.Code)
				}
			}
		}
	}
}

// withKey fills a record's path template with a key of the embedded
// archive, and an election's path with 2017's; any other path is
// returned as it is.
func withKey(path string) string {
	return strings.NewReplacer(
		"/elections/{election}", "/elections/2017",
		"/parties/{slug_or_id}", "/parties/pn",
		"/districts/{number_or_id}", "/districts/5",
		"/candidates/{slug_or_id}", "/candidates/robert-abela",
		"/results/{number_or_id}", "/results/5",
		"/people/{slug_or_id}", "/people/robert-abela",
	).Replace(path)
}

func jsonText(v any) string {
	if s, ok := v.(string); ok {
		return s
	}
	b, _ := json.Marshal(v)
	return string(b)
}

// TestOpenAPIExamples: every example in the document is what the server
// says for the embedded dataset, to the byte's meaning: the record
// examples are records of it, and each response example is the answer to
// the request its summary names.
func TestOpenAPIExamples(t *testing.T) {
	var doc map[string]any
	if err := json.Unmarshal(server.OpenAPIDocument(), &doc); err != nil {
		t.Fatal(err)
	}
	at := func(pointer string) any {
		var v any = doc
		for _, tok := range strings.Split(strings.TrimPrefix(pointer, "/"), "/") {
			tok = strings.NewReplacer("~1", "/", "~0", "~").Replace(tok)
			m, ok := v.(map[string]any)
			if !ok {
				t.Fatalf("%s: %q is not in the document", pointer, tok)
			}
			v = m[tok]
		}
		if v == nil {
			t.Fatalf("%s is not in the document", pointer)
		}
		return v
	}
	s, _ := newServer(t, server.Options{RateLimit: 1000})
	answer := func(q hostRequest) any {
		var v any
		if err := json.Unmarshal(doHost(t, s, q).Body.Bytes(), &v); err != nil {
			t.Fatal(err)
		}
		return v
	}
	get := func(target string) any { return answer(hostRequest{target: target, host: "example.com"}) }
	withSheets, _ := countsServer(t, true, server.Options{RateLimit: 1000})
	// The archive's own answers are shown of an archive of two elections,
	// 2022 and 2017: the embedded one's century would fill the page.
	twoArchive, err := archive.Load(datasettest.TwoElections(t))
	if err != nil {
		t.Fatal(err)
	}
	two, _ := serverOn(twoArchive, server.Options{RateLimit: 1000})
	without, _ := countsServer(t, false, server.Options{RateLimit: 1000})
	getFrom := func(s *server.Server, target string) any {
		var v any
		if err := json.Unmarshal(doHost(t, s, hostRequest{target: target, host: "example.com"}).Body.Bytes(), &v); err != nil {
			t.Fatal(err)
		}
		return v
	}

	// Every response example, with the request it answers.
	const r = "/components/responses/"
	examples := map[string]any{
		r + "PartiesOK/content/application~1json/examples/all":                    get("/api/public/v1/parties"),
		r + "CandidatesOK/content/application~1json/examples/filtered":            get("/api/public/v1/candidates?district=5&party=pl&limit=2"),
		r + "CandidatesOK/content/application~1json/examples/one":                 get("/api/public/v1/candidates?district=5&party=pn&limit=1"),
		r + "CandidatesOK/content/application~1json/examples/none":                get("/api/public/v1/candidates?district=13&party=volt"),
		r + "PartyOK/content/application~1json/examples/pn":                       get("/api/public/v1/parties/pn"),
		r + "DistrictOK/content/application~1json/examples/five":                  get("/api/public/v1/districts/5"),
		r + "CandidateOK/content/application~1json/examples/slug":                 get("/api/public/v1/candidates/toni-bezzina"),
		r + "DistrictsOK/content/application~1json/examples/locality":             get("/api/public/v1/districts?locality=Luqa"),
		r + "BadRequest/content/application~1problem+json/examples/locality":      get("/api/public/v1/districts?locality=Birzebuga"),
		r + "RecordNotFound/content/application~1problem+json/examples/candidate": get("/api/public/v1/candidates/nobody"),
		r + "RecordNotFound/content/application~1problem+json/examples/misspelt":  get("/api/public/v1/parties/pnn"),
		r + "RecordNotFound/content/application~1problem+json/examples/result":    get("/api/public/v1/results/14"),
		r + "ResultsOK/content/application~1json/examples/none":                   getFrom(without, "/api/public/v1/results"),
		r + "NationalOK/content/application~1json/examples/2022":                  getFrom(withSheets, "/api/public/v1/results/national"),
		r + "IndexOK/content/application~1json/examples/two":                      getFrom(two, "/api/public/v1/"),
		r + "CatalogOK/content/application~1ld+json/examples/two":                 publishedOn(t, twoArchive, "http://localhost:8080", "/api/public/v1/catalog.jsonld"),
		r + "BadRequest/content/application~1problem+json/examples/limit":         get("/api/public/v1/candidates?limit=0"),
		r + "BadRequest/content/application~1problem+json/examples/all":           get("/api/public/v1/candidates?district=14&party=nope&limit=0"),
		r + "NotFound/content/application~1problem+json/examples/unknown":         get("/api/public/v1/ballots"),
		r + "MethodNotAllowed/content/application~1problem+json/examples/post":    answer(hostRequest{method: http.MethodPost, target: "/api/public/v1/parties", host: "example.com"}),
		r + "BadRequest/content/application~1problem+json/examples/offset":        get("/api/public/v1/candidates?district=5&party=pn&offset=7"),
		r + "BadRequest/content/application~1problem+json/examples/people":        get("/api/public/v1/people"),
		r + "ElectionsOK/content/application~1json/examples/two":                  getFrom(two, "/api/public/v1/elections"),
		r + "ElectionOK/content/application~1json/examples/slug":                  get("/api/public/v1/elections/2017"),
		r + "ElectionNotFound/content/application~1problem+json/examples/unknown": getFrom(two, "/api/public/v1/elections/2016/candidates"),
		r + "RecordNotFound/content/application~1problem+json/examples/election":  getFrom(two, "/api/public/v1/elections/2016"),
		r + "RecordNotFound/content/application~1problem+json/examples/person":    get("/api/public/v1/people/nobody"),
		r + "PeopleOK/content/application~1json/examples/name":                    getFrom(two, "/api/public/v1/people?q=zrinzo"),
		r + "PersonOK/content/application~1json/examples/slug":                    get("/api/public/v1/people/robert-abela"),
		// Not reachable from outside the package: a fault of the server.
		r + "InternalServerError/content/application~1problem+json/examples/fault": map[string]any{
			"type": "about:blank", "title": "Internal Server Error", "status": 500.0, "detail": "the server could not answer this request",
		},
	}
	// The 61st request to parties, 6 s into the window, as TestRateLimit.
	rl, rlClock := newServer(t, server.Options{})
	for range 60 {
		do(t, rl, request{target: "/api/public/v1/parties"})
		rlClock.Advance(100 * time.Millisecond)
	}
	var limited any
	if err := json.Unmarshal(do(t, rl, request{target: "/api/public/v1/parties"}).Body.Bytes(), &limited); err != nil {
		t.Fatal(err)
	}
	examples[r+"TooManyRequests/content/application~1problem+json/examples/limit"] = limited

	for pointer, want := range examples {
		got := at(pointer).(map[string]any)["value"]
		if !reflect.DeepEqual(got, want) {
			g, _ := json.Marshal(got)
			w, _ := json.Marshal(want)
			t.Errorf("%s is not the server's answer:\n got: %.400s\nwant: %.400s", pointer, g, w)
		}
	}
	// No example escapes that list.
	for name, resp := range at("/components/responses").(map[string]any) {
		content, _ := resp.(map[string]any)["content"].(map[string]any)
		for media, mt := range content {
			exs, _ := mt.(map[string]any)["examples"].(map[string]any)
			for ex := range exs {
				pointer := r + name + "/content/" + strings.ReplaceAll(media, "/", "~1") + "/examples/" + ex
				if _, ok := examples[pointer]; !ok {
					t.Errorf("%s is not checked against the server: add it to this test", pointer)
				}
			}
		}
	}

	// The record schemas' examples are records of the embedded dataset.
	records := map[string]any{}
	for _, c := range []string{"parties", "districts", "candidates?limit=500"} {
		for _, rec := range get("/api/public/v1/" + c).(map[string]any)["data"].([]any) {
			m := rec.(map[string]any)
			records[m["id"].(string)] = m
			for _, l := range asSlice(m["localities"]) {
				records[m["id"].(string)+"/"+l.(map[string]any)["slug"].(string)] = l
			}
		}
	}
	for _, schema := range []string{"Party", "District", "Locality", "Candidate"} {
		exs := asSlice(at("/components/schemas/" + schema + "/examples"))
		if len(exs) == 0 {
			t.Errorf("%s has no example", schema)
		}
		for _, ex := range exs {
			m := ex.(map[string]any)
			found := false
			if id, ok := m["id"].(string); ok {
				found = reflect.DeepEqual(records[id], m)
			} else {
				for key, rec := range records {
					found = found || strings.HasSuffix(key, "/"+m["slug"].(string)) && reflect.DeepEqual(rec, m)
				}
			}
			if !found {
				t.Errorf("the example of %s is not a record of the embedded dataset: %v", schema, m)
			}
		}
	}
}

func asSlice(v any) []any {
	s, _ := v.([]any)
	return s
}

// publishedOn is the answer to target of a server of the archive a whose
// public URL is publicURL.
func publishedOn(t *testing.T, a *archive.Archive, publicURL, target string) any {
	t.Helper()
	s, _ := serverOn(a, server.Options{PublicURL: publicURL})
	var v any
	if err := json.Unmarshal(do(t, s, request{target: target}).Body.Bytes(), &v); err != nil {
		t.Fatal(err)
	}
	return v
}
