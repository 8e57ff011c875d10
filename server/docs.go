package server

import (
	"bytes"
	"compress/gzip"
	"crypto/sha256"
	_ "embed"
	"encoding/hex"
	"hash/fnv"
	"net/http"
	"net/netip"
	"strconv"
	"strings"
	"sync"

	"ballot/dataset"
)

// The documents for clients and portals: the index of the API, its OpenAPI
// description and a DCAT-AP catalogue of its collections. None of them is a
// collection, so none is wrapped in the data/meta envelope; each is a plain
// JSON object whose shape the OpenAPI document describes. They are built
// once per dataset and served with a strong ETag, since their bytes are the
// same for every request (the catalogue's for every request to one host).

//go:embed openapi.json
var openAPI []byte

// openAPIETag identifies the embedded OpenAPI document.
var openAPIETag = strongETag(openAPI)

// openAPIGzip is the OpenAPI document gzipped, once.
var openAPIGzip = sync.OnceValue(func() []byte { return gzipped(openAPI) })

// OpenAPIDocument returns the OpenAPI 3.1 description of the API, the bytes
// GET /api/public/v1/openapi.json answers.
func OpenAPIDocument() []byte { return bytes.Clone(openAPI) }

// handleIndex answers GET /api/public/v1/: the endpoints, the dataset's
// title, version and licence, and whom to credit.
func (s *Server) handleIndex(w http.ResponseWriter, r *http.Request) {
	d := s.docs.Load()
	s.writeDocument(w, r, "application/json; charset=utf-8", d.indexETag, d.index, d.indexGzip)
}

// handleOpenAPI answers GET /api/public/v1/openapi.json.
func (s *Server) handleOpenAPI(w http.ResponseWriter, r *http.Request) {
	s.writeDocument(w, r, "application/json; charset=utf-8", openAPIETag, openAPI, openAPIGzip())
}

// handleCatalog answers GET /api/public/v1/catalog.jsonld. Its URLs are
// absolute, on the host the request was sent to: the prepared catalogue is
// split where they go, and a request only joins the parts.
func (s *Server) handleCatalog(w http.ResponseWriter, r *http.Request) {
	d := s.docs.Load()
	origin := s.origin(r)
	h := fnv.New64a()
	h.Write([]byte(origin))
	etag := d.catalogETag + "-" + strconv.FormatUint(h.Sum64(), 36) + `"`
	if acceptsGzip(r.Header.Values("Accept-Encoding")) {
		etag = gzipETag(etag) // the compressor middleware encodes it
	}
	if s.notModified(w, r, etag) {
		return
	}
	bp := bodies.Get().(*[]byte)
	body := (*bp)[:0]
	for i, part := range d.catalog {
		if i > 0 {
			body = append(body, origin...)
		}
		body = append(body, part...)
	}
	writeBody(w, r, "application/ld+json", body)
	*bp = body
	bodies.Put(bp)
}

// writeDocument answers with a prepared document, already gzipped when the
// client accepts gzip, or 304 when the client holds it already.
func (s *Server) writeDocument(w http.ResponseWriter, r *http.Request, contentType, etag string, body, gz []byte) {
	gzipped := acceptsGzip(r.Header.Values("Accept-Encoding"))
	if gzipped {
		// A strong validator names the bytes sent: the gzip encoding
		// has a tag of its own.
		etag = gzipETag(etag)
	}
	if s.notModified(w, r, etag) {
		return
	}
	if gzipped {
		w.Header().Set("Content-Encoding", "gzip")
		body = gz
	}
	writeBody(w, r, contentType, body)
}

// gzipETag is the strong tag of the gzip encoding of the content tagged
// etag.
func gzipETag(etag string) string { return strings.TrimSuffix(etag, `"`) + `-gzip"` }

// notModified sets the validators and answers 304 when If-None-Match
// matches etag.
func (s *Server) notModified(w http.ResponseWriter, r *http.Request, etag string) bool {
	h := w.Header()
	h.Set("ETag", etag)
	h.Set("Cache-Control", s.cacheControl)
	if !noneMatch(r.Header.Values("If-None-Match"), etag) {
		return false
	}
	w.WriteHeader(http.StatusNotModified)
	return true
}

// writeBody answers 200 with body, or with its headers only to HEAD.
func writeBody(w http.ResponseWriter, r *http.Request, contentType string, body []byte) {
	h := w.Header()
	h.Set("Content-Type", contentType)
	h.Set("Content-Length", strconv.Itoa(len(body)))
	w.WriteHeader(http.StatusOK)
	if r.Method != http.MethodHead {
		_, _ = w.Write(body)
	}
}

// gzipped compresses a document served many times, as small as it gets.
func gzipped(b []byte) []byte {
	var buf bytes.Buffer
	zw, _ := gzip.NewWriterLevel(&buf, gzip.BestCompression)
	_, _ = zw.Write(b)
	_ = zw.Close()
	return buf.Bytes()
}

func strongETag(b []byte) string {
	sum := sha256.Sum256(b)
	return `"` + hex.EncodeToString(sum[:12]) + `"`
}

// origin is the scheme and host the request was sent to, such as
// "https://api.example:8443", from which the catalogue's URLs are made. A
// Host that is not a plain host[:port] gives "": the URLs are then
// relative, and nothing the client sent is written into the body. The
// scheme is https when the connection is TLS, or when a trusted proxy says
// so with X-Forwarded-Proto.
func (s *Server) origin(r *http.Request) string {
	host, ok := cleanHost(r.Host)
	if !ok {
		return ""
	}
	scheme := "http"
	if r.TLS != nil || s.forwardedHTTPS(r) {
		scheme = "https"
	}
	return scheme + "://" + host
}

// forwardedHTTPS reports whether a trusted proxy in front of the server
// says the client connected with https. Only the nearest hop's word counts.
func (s *Server) forwardedHTTPS(r *http.Request) bool {
	values := r.Header.Values("X-Forwarded-Proto")
	if len(values) == 0 || !s.opts.ClientIP.trusted(peerAddr(r.RemoteAddr)) {
		return false
	}
	last := values[len(values)-1]
	if i := strings.LastIndexByte(last, ','); i >= 0 {
		last = last[i+1:]
	}
	return strings.EqualFold(strings.TrimSpace(last), "https")
}

// cleanHost returns host in lower case when it is a DNS name, an IPv4
// address or a bracketed IPv6 address, optionally with a port.
func cleanHost(host string) (string, bool) {
	if host == "" || len(host) > 260 {
		return "", false
	}
	host = strings.ToLower(host)
	name, port := host, ""
	if strings.HasPrefix(host, "[") {
		end := strings.IndexByte(host, ']')
		if end < 0 {
			return "", false
		}
		name, port = host[1:end], host[end+1:]
		if a, err := netip.ParseAddr(name); err != nil || !a.Is6() || a.Zone() != "" {
			return "", false
		}
	} else {
		if i := strings.LastIndexByte(host, ':'); i >= 0 {
			name, port = host[:i], host[i:]
		}
		if !isDNSName(name) {
			return "", false
		}
	}
	if port != "" {
		n, err := strconv.Atoi(port[1:])
		if port[0] != ':' || len(port) > 6 || strings.Trim(port[1:], "0123456789") != "" || err != nil || n < 1 || n > 65535 {
			return "", false
		}
	}
	return host, true
}

// isDNSName reports whether s is a host name of lower-case letters, digits
// and hyphens in dot-separated labels (an IPv4 address is one).
func isDNSName(s string) bool {
	if s == "" || len(s) > 253 {
		return false
	}
	for label := range strings.SplitSeq(s, ".") {
		if label == "" || len(label) > 63 || label[0] == '-' || label[len(label)-1] == '-' {
			return false
		}
		for i := 0; i < len(label); i++ {
			if c := label[i]; !(c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '-') {
				return false
			}
		}
	}
	return true
}

// documents are the index and the catalogue of one dataset, ready to write.
type documents struct {
	ds        *dataset.Dataset
	index     []byte
	indexGzip []byte
	indexETag string
	// catalog is the catalogue cut where the request's origin goes.
	catalog [][]byte
	// catalogETag is the start of the catalogue's ETag; the origin's hash
	// ends it.
	catalogETag string
}

func buildDocuments(ds *dataset.Dataset) *documents {
	d := &documents{ds: ds, index: dataset.EncodeJSON(newIndex(ds))}
	d.indexETag = strongETag(d.index)
	d.indexGzip = gzipped(d.index)
	// The origin is written in as a marker that the encoder escapes, and
	// the encoded catalogue is cut at every marker. The marker must not
	// occur in the dataset's own text: the catalogue with relative URLs
	// tells, and another marker is tried.
	relative := dataset.EncodeJSON(newCatalog(ds, func(path string) string { return path }))
	for n := 0; ; n++ {
		marker := "\x00origin" + strconv.Itoa(n) + "\x00"
		encoded := []byte(`\u0000origin` + strconv.Itoa(n) + `\u0000`)
		if bytes.Contains(relative, encoded) {
			continue
		}
		b := dataset.EncodeJSON(newCatalog(ds, func(path string) string { return marker + path }))
		d.catalog = bytes.Split(b, encoded)
		d.catalogETag = strings.TrimSuffix(strongETag(b), `"`)
		return d
	}
}

// index is the body of GET /api/public/v1/.
type index struct {
	Title       string        `json:"title"`
	Description *string       `json:"description"`
	Version     string        `json:"version"`
	License     string        `json:"license"`
	LicenseURL  *string       `json:"license_url"`
	PublishedAt *string       `json:"published_at"`
	Coverage    indexCoverage `json:"coverage"`
	Attribution attribution   `json:"attribution"`
	Counts      counts        `json:"counts"`
	Endpoints   []endpoint    `json:"endpoints"`
	Links       indexLinks    `json:"links"`
}

type indexCoverage struct {
	Summary *string  `json:"summary"`
	Notes   []string `json:"notes"`
}

type attribution struct {
	Name        string  `json:"name"`
	URL         string  `json:"url"`
	AboutURL    *string `json:"about_url"`
	HowToCredit string  `json:"how_to_credit"`
}

type counts struct {
	Parties    int `json:"parties"`
	Districts  int `json:"districts"`
	Candidates int `json:"candidates"`
}

type endpoint struct {
	Path        string      `json:"path"`
	MediaType   string      `json:"media_type"`
	Description string      `json:"description"`
	Parameters  []parameter `json:"parameters"`
}

type parameter struct {
	Name        string `json:"name"`
	Description string `json:"description"`
	Default     *int   `json:"default"`
}

type indexLinks struct {
	Self    string `json:"self"`
	OpenAPI string `json:"openapi"`
	Catalog string `json:"catalog"`
}

func newIndex(ds *dataset.Dataset) index {
	m := ds.Manifest
	notes := m.Coverage.Notes
	if notes == nil {
		notes = []string{}
	}
	defaultLimit := dataset.DefaultLimit
	return index{
		Title:       m.Title,
		Description: nonEmpty(m.Description),
		Version:     ds.Version,
		License:     m.License,
		LicenseURL:  nonEmpty(m.LicenseURL),
		PublishedAt: publishedAt(m),
		Coverage:    indexCoverage{Summary: nonEmpty(m.Coverage.Summary), Notes: notes},
		Attribution: attribution{
			Name:        m.Publisher.Name,
			URL:         m.Publisher.URL,
			AboutURL:    nonEmpty(m.Publisher.AboutURL),
			HowToCredit: howToCredit(m),
		},
		Counts: counts{Parties: len(ds.Parties()), Districts: len(ds.Districts()), Candidates: len(ds.Candidates())},
		Endpoints: []endpoint{
			{BasePath + "/parties", "application/json", "Every party, ordered by name, then id.", []parameter{}},
			{BasePath + "/districts", "application/json", "The 13 electoral districts with their localities, ordered by number.", []parameter{}},
			{BasePath + "/candidates", "application/json", "Candidates, ordered by their primary district's number, family name, given name, then id; the filters combine with AND.", []parameter{
				{"district", "A district number from 1 to 13, or a district UUID: keeps the candidates whose primary_district_id is that district.", nil},
				{"party", "A party slug or a party UUID, in any letter case: keeps the candidates of that party.", nil},
				{"limit", "An integer from 1 to 500: returns at most that many candidates, the first of the order.", &defaultLimit},
			}},
			{BasePath + "/", "application/json", "This index: the dataset, whom to credit, and the endpoints.", []parameter{}},
			{BasePath + "/openapi.json", "application/json", "The OpenAPI 3.1 description of the whole API.", []parameter{}},
			{BasePath + "/catalog.jsonld", "application/ld+json", "A DCAT-AP 3 catalogue of the three collections, for open-data portals.", []parameter{}},
		},
		Links: indexLinks{Self: BasePath + "/", OpenAPI: BasePath + "/openapi.json", Catalog: BasePath + "/catalog.jsonld"},
	}
}

// howToCredit is the one sentence a reuser can follow.
func howToCredit(m dataset.Manifest) string {
	s := "Credit " + m.Publisher.Name + " with a link to " + m.Publisher.URL + " wherever you reuse this data (licence: " + m.License + ")"
	if m.Publisher.AboutURL != "" {
		return s + "; " + m.Publisher.AboutURL + " explains how it was sourced."
	}
	return s + "."
}

func nonEmpty(s string) *string {
	if strings.TrimSpace(s) == "" {
		return nil
	}
	return &s
}

func publishedAt(m dataset.Manifest) *string {
	if m.PublishedAt.IsZero() {
		return nil
	}
	s := m.PublishedAt.Format("2006-01-02")
	return &s
}

// The catalogue, in JSON-LD with the prefixes of DCAT-AP 3.

type catalog struct {
	Context     map[string]string `json:"@context"`
	ID          string            `json:"@id"`
	Type        string            `json:"@type"`
	Title       string            `json:"dct:title"`
	Description string            `json:"dct:description"`
	Publisher   agent             `json:"dct:publisher"`
	License     license           `json:"dct:license"`
	Issued      *typedValue       `json:"dct:issued,omitempty"`
	Modified    *typedValue       `json:"dct:modified,omitempty"`
	Datasets    []catalogDataset  `json:"dcat:dataset"`
	Services    []dataService     `json:"dcat:service"`
}

type ref struct {
	ID string `json:"@id"`
}

type typedValue struct {
	Value string `json:"@value"`
	Type  string `json:"@type"`
}

type agent struct {
	ID       string `json:"@id"`
	Type     string `json:"@type"`
	Name     string `json:"foaf:name"`
	Homepage ref    `json:"foaf:homepage"`
}

type license struct {
	ID    string `json:"@id,omitempty"`
	Type  string `json:"@type"`
	Label string `json:"rdfs:label"`
}

type contact struct {
	Type string `json:"@type"`
	Name string `json:"vcard:fn"`
	URL  ref    `json:"vcard:hasURL"`
}

type catalogDataset struct {
	ID           string         `json:"@id"`
	Type         string         `json:"@type"`
	Identifier   string         `json:"dct:identifier"`
	Title        string         `json:"dct:title"`
	Description  string         `json:"dct:description"`
	Keywords     []string       `json:"dcat:keyword"`
	Publisher    ref            `json:"dct:publisher"`
	ContactPoint contact        `json:"dcat:contactPoint"`
	License      license        `json:"dct:license"`
	LandingPage  *ref           `json:"dcat:landingPage,omitempty"`
	Version      string         `json:"dcat:version"`
	Issued       *typedValue    `json:"dct:issued,omitempty"`
	Modified     *typedValue    `json:"dct:modified,omitempty"`
	Distribution []distribution `json:"dcat:distribution"`
}

type distribution struct {
	ID            string      `json:"@id"`
	Type          string      `json:"@type"`
	Title         string      `json:"dct:title"`
	Description   string      `json:"dct:description"`
	AccessURL     ref         `json:"dcat:accessURL"`
	DownloadURL   *ref        `json:"dcat:downloadURL,omitempty"`
	MediaType     ref         `json:"dcat:mediaType"`
	Format        ref         `json:"dct:format"`
	ConformsTo    ref         `json:"dct:conformsTo"`
	AccessService ref         `json:"dcat:accessService"`
	License       license     `json:"dct:license"`
	Modified      *typedValue `json:"dct:modified,omitempty"`
}

type dataService struct {
	ID                  string  `json:"@id"`
	Type                string  `json:"@type"`
	Title               string  `json:"dct:title"`
	EndpointURL         ref     `json:"dcat:endpointURL"`
	EndpointDescription ref     `json:"dcat:endpointDescription"`
	ServesDataset       []ref   `json:"dcat:servesDataset"`
	Publisher           ref     `json:"dct:publisher"`
	License             license `json:"dct:license"`
}

// catalogContext maps the prefixes the catalogue uses to their vocabularies.
var catalogContext = map[string]string{
	"dcat":  "http://www.w3.org/ns/dcat#",
	"dct":   "http://purl.org/dc/terms/",
	"foaf":  "http://xmlns.com/foaf/0.1/",
	"rdfs":  "http://www.w3.org/2000/01/rdf-schema#",
	"vcard": "http://www.w3.org/2006/vcard/ns#",
	"xsd":   "http://www.w3.org/2001/XMLSchema#",
}

// What the catalogue says of each collection, beyond the dataset's own
// manifest.
var catalogEntries = []struct {
	collection  dataset.Collection
	title       string
	description string
	keywords    []string
}{
	{dataset.Parties, "parties", "The parties that stood in the election: id, slug, name, short name, English name, colour and website.", []string{"elections", "political parties"}},
	{dataset.Districts, "electoral districts", "The 13 electoral districts, each with its localities (local councils, some split between two districts).", []string{"elections", "electoral districts", "localities"}},
	{dataset.Candidates, "candidates", "The candidates: names, party (null for an independent), primary district and every district contested, and whether they were elected.", []string{"elections", "candidates"}},
}

// newCatalog builds the catalogue of ds; abs makes an absolute URL of a
// path on the request's host.
func newCatalog(ds *dataset.Dataset, abs func(path string) string) catalog {
	m := ds.Manifest
	self := abs(BasePath + "/catalog.jsonld")
	openapi := ref{abs(BasePath + "/openapi.json")}
	service := self + "#api"
	publisher := agent{ID: "_:publisher", Type: "foaf:Agent", Name: m.Publisher.Name, Homepage: ref{m.Publisher.URL}}
	lic := license{ID: m.LicenseURL, Type: "dct:LicenseDocument", Label: m.License}
	var date *typedValue
	if d := publishedAt(m); d != nil {
		date = &typedValue{Value: *d, Type: "xsd:date"}
	}
	description := m.Description
	if strings.TrimSpace(description) == "" {
		description = m.Title
	}
	contactURL := m.Publisher.URL
	var landing *ref
	if m.Publisher.AboutURL != "" {
		contactURL = m.Publisher.AboutURL
		landing = &ref{m.Publisher.AboutURL}
	}

	c := catalog{
		Context:     catalogContext,
		ID:          self,
		Type:        "dcat:Catalog",
		Title:       m.Title,
		Description: description,
		Publisher:   publisher,
		License:     lic,
		Issued:      date,
		Modified:    date,
	}
	var served []ref
	for _, e := range catalogEntries {
		path := BasePath + "/" + string(e.collection)
		id := self + "#" + string(e.collection)
		dist := distribution{
			ID:            id + "-json",
			Type:          "dcat:Distribution",
			Title:         m.Title + ": " + e.title + " (JSON)",
			Description:   "The API's JSON answer: the records in data, their count and the time of the answer in meta.",
			AccessURL:     ref{abs(path)},
			MediaType:     ref{"https://www.iana.org/assignments/media-types/application/json"},
			Format:        ref{"http://publications.europa.eu/resource/authority/file-type/JSON"},
			ConformsTo:    openapi,
			AccessService: ref{service},
			License:       lic,
			Modified:      date,
		}
		// The whole collection in one answer: candidates come 100 at a
		// time unless asked for more, up to 500.
		switch {
		case e.collection != dataset.Candidates:
			dist.DownloadURL = &ref{abs(path)}
		case len(ds.Candidates()) <= dataset.MaxLimit:
			dist.DownloadURL = &ref{abs(path + "?limit=" + strconv.Itoa(dataset.MaxLimit))}
		}
		c.Datasets = append(c.Datasets, catalogDataset{
			ID:           id,
			Type:         "dcat:Dataset",
			Identifier:   id,
			Title:        m.Title + ": " + e.title,
			Description:  e.description,
			Keywords:     e.keywords,
			Publisher:    ref{publisher.ID},
			ContactPoint: contact{Type: "vcard:Organization", Name: m.Publisher.Name, URL: ref{contactURL}},
			License:      lic,
			LandingPage:  landing,
			Version:      ds.Version,
			Issued:       date,
			Modified:     date,
			Distribution: []distribution{dist},
		})
		served = append(served, ref{id})
	}
	c.Services = []dataService{{
		ID:                  service,
		Type:                "dcat:DataService",
		Title:               "ballot public API, version 1: " + m.Title,
		EndpointURL:         ref{abs(BasePath + "/")},
		EndpointDescription: openapi,
		ServesDataset:       served,
		Publisher:           ref{publisher.ID},
		License:             lic,
	}}
	return c
}
