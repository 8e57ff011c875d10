package server

import (
	"bytes"
	_ "embed"
	"slices"
	"strconv"
	"strings"
	"sync"

	"ballot/answers"
	"ballot/archive"
	"ballot/dataset"
)

// The documents for clients and portals: the index of the API, its OpenAPI
// description and a DCAT-AP catalogue of its collections. None of them is a
// collection, so none is wrapped in the data/meta envelope; each is a plain
// JSON object whose shape the OpenAPI document describes. They are built
// once per dataset, with the public URL the server was given, and served
// with a strong ETag, since their bytes are the same for every request.

//go:embed openapi.json
var openAPI []byte

// OpenAPIDocument returns the OpenAPI 3.1 description of the API as
// server/openapi.json holds it: the bytes GET /api/public/v1/openapi.json
// answers when no public URL is set.
func OpenAPIDocument() []byte { return bytes.Clone(openAPI) }

// openAPIServer is the servers entry of openapi.json: the server the
// document was fetched from. A public URL replaces it.
const openAPIServer = `"servers": [
    {
      "url": "/",
      "description": "The server this document was fetched from"
    }
  ]`

// documents are the index, the OpenAPI description and the catalogue of one
// archive, ready to write.
type documents struct {
	index, openAPI, catalog answer
}

// buildDocuments prepares the documents of the archive a, whose index is
// idx. publicURL is the API's public base URL, such as
// "https://elections.example.org", with no trailing slash; empty, the
// documents' URLs are relative.
func buildDocuments(a *archive.Archive, idx index, publicURL string) *documents {
	abs := func(path string) string { return publicURL + path }
	return &documents{
		index:   prepare(jsonValue, dataset.EncodeJSON(idx)),
		openAPI: openAPIAnswer(publicURL),
		catalog: prepare(jsonLDValue, dataset.EncodeJSON(newCatalog(a, abs))),
	}
}

// openAPIPrepared is the OpenAPI document prepared for the public URL a
// server of this process was last given: it depends on the URL alone,
// not on the archive, and compressing its 300 KB as small as they get
// takes longer than preparing the current election's answers, so a
// reload does not do it again.
var openAPIPrepared struct {
	sync.Mutex
	publicURL string
	answer    answer
	made      bool
}

// openAPIAnswer is the OpenAPI document prepared for publicURL, its
// servers entry that URL's, or relative when it is empty.
func openAPIAnswer(publicURL string) answer {
	p := &openAPIPrepared
	p.Lock()
	defer p.Unlock()
	if p.made && p.publicURL == publicURL {
		return p.answer
	}
	api := openAPI
	if publicURL != "" {
		url := bytes.TrimSuffix(dataset.EncodeJSON(publicURL), []byte("\n"))
		server := strings.Replace(openAPIServer, `"/"`, string(url), 1)
		server = strings.Replace(server, "The server this document was fetched from", "The API's public address", 1)
		api = bytes.Replace(openAPI, []byte(openAPIServer), []byte(server), 1)
	}
	p.publicURL, p.answer, p.made = publicURL, prepare(jsonValue, api), true
	return p.answer
}

// prepare makes a document an answer: its bytes, gzipped as small as they
// get, and a strong ETag for each encoding, since a strong validator names
// the bytes sent.
func prepare(contentType []string, body []byte) answer {
	etag := answers.DocumentETag(body)
	return answer{
		contentType: contentType,
		etag:        etag,
		gzipETag:    answers.GzipETag(etag),
		body:        body,
		gzipBody:    answers.GzipDocument(body),
	}
}

// index is the body of GET /api/public/v1/: the current election's
// dataset, as the paths without an election answer for it, then every
// election with the paths of its collections, and the endpoints.
type index struct {
	Title       string                   `json:"title"`
	Description *string                  `json:"description"`
	Version     string                   `json:"version"`
	License     string                   `json:"license"`
	LicenseURL  *string                  `json:"license_url"`
	PublishedAt *string                  `json:"published_at"`
	Coverage    indexCoverage            `json:"coverage"`
	Attribution attribution              `json:"attribution"`
	Counts      counts                   `json:"counts"`
	Elections   []answers.ElectionRecord `json:"elections"`
	Endpoints   []indexEndpoint          `json:"endpoints"`
	Links       indexLinks               `json:"links"`
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

// counts is the number of records of each collection, keyed by the
// collection's name in dataset.Table's order.
type counts []int

// MarshalJSON writes the counts as an object, in dataset.Table's order,
// which a map would lose.
func (c counts) MarshalJSON() ([]byte, error) {
	b := []byte{'{'}
	for i, info := range dataset.Table {
		if i > 0 {
			b = append(b, ',')
		}
		b = strconv.AppendQuote(b, string(info.Name))
		b = append(b, ':')
		b = strconv.AppendInt(b, int64(c[i]), 10)
	}
	return append(b, '}'), nil
}

type indexEndpoint struct {
	Path        string      `json:"path"`
	MediaType   string      `json:"media_type"`
	Description string      `json:"description"`
	Parameters  []parameter `json:"parameters"`
}

type indexLinks struct {
	Self      string `json:"self"`
	OpenAPI   string `json:"openapi"`
	Catalog   string `json:"catalog"`
	Elections string `json:"elections"`
}

// newIndex is the index of the archive a, listing endpoints: each at its
// path, then the endpoints of an election's collections under the
// election's path.
func newIndex(a *archive.Archive, endpoints []endpoint) index {
	ds := a.Current().Dataset()
	m := ds.Manifest
	notes := m.Coverage.Notes
	if notes == nil {
		notes = []string{}
	}
	var list []indexEndpoint
	for _, e := range endpoints {
		params := e.parameters
		if params == nil {
			params = []parameter{}
		}
		list = append(list, indexEndpoint{BasePath + e.path, e.mediaType, e.description, params})
	}
	for _, e := range endpoints {
		if e.perElection {
			list = append(list, indexEndpoint{BasePath + electionPrefix + e.path, e.mediaType,
				"As " + BasePath + e.path + ", for the election the path names.", append([]parameter{electionParameter}, e.parameters...)})
		}
	}
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
		Counts:    countsOf(ds),
		Elections: answers.Elections(a, ElectionsPath),
		Endpoints: list,
		Links:     indexLinks{Self: BasePath + "/", OpenAPI: BasePath + "/openapi.json", Catalog: BasePath + "/catalog.jsonld", Elections: ElectionsPath},
	}
}

// countsOf counts the records of each collection of ds.
func countsOf(ds *dataset.Dataset) counts {
	c := make(counts, len(dataset.Table))
	for i, info := range dataset.Table {
		res, _ := ds.Query(info.Name, dataset.Params{"limit": {"1"}}) // no parameter is ever refused
		c[i] = res.Total()
	}
	return c
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

// newCatalog builds the catalogue of the archive a: a dataset for each
// collection of the current election, at the paths without an election,
// then, for an archive of elections (not a dataset directory served
// alone), a dataset for each election, with a distribution for each of
// its collections at the election's paths; abs makes the URL of a path,
// on the public URL when one is set.
func newCatalog(a *archive.Archive, abs func(path string) string) catalog {
	ds := a.Current().Dataset()
	m := ds.Manifest
	sh := newCatalogShared(m, abs)
	description := m.Description
	if strings.TrimSpace(description) == "" {
		description = m.Title
	}
	c := catalog{
		Context:     catalogContext,
		ID:          sh.self,
		Type:        "dcat:Catalog",
		Title:       m.Title,
		Description: description,
		Publisher:   sh.publisher,
		License:     sh.license,
		Issued:      sh.date,
		Modified:    sh.date,
	}
	var served []ref
	for _, e := range dataset.Table {
		d := sh.collection(ds, e)
		c.Datasets = append(c.Datasets, d)
		served = append(served, ref{d.ID})
	}
	if !a.Single() {
		for _, e := range a.Elections() {
			d := sh.election(e)
			c.Datasets = append(c.Datasets, d)
			served = append(served, ref{d.ID})
		}
	}
	c.Services = []dataService{{
		ID:                  sh.service,
		Type:                "dcat:DataService",
		Title:               "ballot public API, version 1: " + m.Title,
		EndpointURL:         ref{abs(BasePath + "/")},
		EndpointDescription: sh.openAPI,
		ServesDataset:       served,
		Publisher:           ref{sh.publisher.ID},
		License:             sh.license,
	}}
	return c
}

// catalogShared is what the catalogue's entries share: its own URL, the
// API's, the publisher, the licence and the date of publication.
type catalogShared struct {
	abs           func(path string) string
	self, service string
	openAPI       ref
	publisher     agent
	license       license
	date          *typedValue
	contactURL    string
	landing       *ref
	title         string
}

func newCatalogShared(m dataset.Manifest, abs func(path string) string) catalogShared {
	self := abs(BasePath + "/catalog.jsonld")
	sh := catalogShared{
		abs:        abs,
		self:       self,
		service:    self + "#api",
		openAPI:    ref{abs(BasePath + "/openapi.json")},
		publisher:  agent{ID: "_:publisher", Type: "foaf:Agent", Name: m.Publisher.Name, Homepage: ref{m.Publisher.URL}},
		license:    license{ID: m.LicenseURL, Type: "dct:LicenseDocument", Label: m.License},
		contactURL: m.Publisher.URL,
		title:      m.Title,
	}
	if d := publishedAt(m); d != nil {
		sh.date = &typedValue{Value: *d, Type: "xsd:date"}
	}
	if m.Publisher.AboutURL != "" {
		sh.contactURL = m.Publisher.AboutURL
		sh.landing = &ref{m.Publisher.AboutURL}
	}
	return sh
}

// collection is the catalogue's entry of one collection of ds, with its
// one distribution, the API's JSON answer.
func (sh catalogShared) collection(ds *dataset.Dataset, e dataset.CollectionInfo) catalogDataset {
	id := sh.self + "#" + string(e.Name)
	dist := sh.distribution(len(ds.Candidates()), e, BasePath+"/"+string(e.Name), id+"-json", sh.title, sh.license, sh.date)
	return catalogDataset{
		ID:           id,
		Type:         "dcat:Dataset",
		Identifier:   id,
		Title:        sh.title + ": " + e.Title,
		Description:  e.Description,
		Keywords:     e.Keywords,
		Publisher:    ref{sh.publisher.ID},
		ContactPoint: contact{Type: "vcard:Organization", Name: sh.publisher.Name, URL: ref{sh.contactURL}},
		License:      sh.license,
		LandingPage:  sh.landing,
		Version:      ds.Version,
		Issued:       sh.date,
		Modified:     sh.date,
		Distribution: []distribution{dist},
	}
}

// distribution is the distribution of one collection of a dataset of that
// many candidates, the API's JSON answer at path, with the id, the title of
// its dataset, the licence and the date given.
func (sh catalogShared) distribution(candidates int, e dataset.CollectionInfo, path, id, title string, lic license, date *typedValue) distribution {
	dist := distribution{
		ID:            id,
		Type:          "dcat:Distribution",
		Title:         title + ": " + e.Title + " (JSON)",
		Description:   "The API's JSON answer: the records in data, their count and the time of the answer in meta.",
		AccessURL:     ref{sh.abs(path)},
		MediaType:     ref{"https://www.iana.org/assignments/media-types/application/json"},
		Format:        ref{"http://publications.europa.eu/resource/authority/file-type/JSON"},
		ConformsTo:    sh.openAPI,
		AccessService: ref{sh.service},
		License:       lic,
		Modified:      date,
	}
	// The whole collection in one answer: candidates come 100 at a
	// time unless asked for more, up to 500.
	switch {
	case e.Name != dataset.Candidates:
		dist.DownloadURL = &ref{sh.abs(path)}
	case candidates <= dataset.MaxLimit:
		dist.DownloadURL = &ref{sh.abs(path + "?limit=" + strconv.Itoa(dataset.MaxLimit))}
	}
	return dist
}

// election is the catalogue's entry of one election of an archive: its
// dataset's title, description, licence, version and date, and a
// distribution for each of its collections, at the election's paths
// (ElectionsPath/2017/parties). The publisher is the catalogue's.
func (sh catalogShared) election(e *archive.Election) catalogDataset {
	m := e.Manifest
	slug := e.Record.Slug
	id := sh.self + "#election-" + slug
	lic := license{ID: m.LicenseURL, Type: "dct:LicenseDocument", Label: m.License}
	var date *typedValue
	if d := publishedAt(m); d != nil {
		date = &typedValue{Value: *d, Type: "xsd:date"}
	}
	description := m.Description
	if strings.TrimSpace(description) == "" {
		description = m.Title
	}
	var keywords []string
	var dists []distribution
	for _, c := range dataset.Table {
		for _, k := range c.Keywords {
			if !slices.Contains(keywords, k) {
				keywords = append(keywords, k)
			}
		}
		dists = append(dists, sh.distribution(e.Record.Counts.Candidates, c, ElectionsPath+"/"+slug+"/"+string(c.Name), id+"-"+string(c.Name)+"-json", m.Title, lic, date))
	}
	return catalogDataset{
		ID:           id,
		Type:         "dcat:Dataset",
		Identifier:   id,
		Title:        m.Title,
		Description:  description,
		Keywords:     keywords,
		Publisher:    ref{sh.publisher.ID},
		ContactPoint: contact{Type: "vcard:Organization", Name: sh.publisher.Name, URL: ref{sh.contactURL}},
		License:      lic,
		LandingPage:  sh.landing,
		Version:      e.Version,
		Issued:       date,
		Modified:     date,
		Distribution: dists,
	}
}
