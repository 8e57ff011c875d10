package server

import (
	"bytes"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"slices"
	"testing"

	"ballot/archive"
	"ballot/dataset"
	"ballot/server/pages"
)

// missingEndpoints lists the endpoints of the endpoints table that the
// reference page does not show, each with its operations and parameters.
func missingEndpoints(endpoints []endpoint, page []byte) []string {
	var missing []string
	for _, e := range endpoints {
		path := BasePath + e.path
		want := []string{"<h2><code>" + path + "</code></h2>", "<code>GET " + path + "</code>", "<code>HEAD " + path + "</code>", "<code>OPTIONS " + path + "</code>"}
		for _, p := range e.parameters {
			want = append(want, `<th scope="row"><code>`+p.Name+`</code></th>`)
		}
		for _, w := range want {
			if !bytes.Contains(page, []byte(w)) {
				missing = append(missing, path)
				break
			}
		}
	}
	return missing
}

// TestReferenceListsEveryEndpoint renders the API reference from
// openapi.json and fails when an endpoint of the table is missing from it;
// and shows that it would fail, with a document that lacks one.
func TestReferenceListsEveryEndpoint(t *testing.T) {
	ds, err := dataset.Default()
	if err != nil {
		t.Fatal(err)
	}
	s := New(archive.Of(ds), DefaultOptions())
	page := s.snap.Load().pages.lang[0].reference.body
	if missing := missingEndpoints(s.endpointList, page); len(missing) > 0 {
		t.Errorf("the reference page lacks %q", missing)
	}
	for _, want := range []string{"<th scope=\"row\">200</th>", "<th scope=\"row\">304</th>", "<th scope=\"row\">400</th>", "<th scope=\"row\">404</th>", "<th scope=\"row\">405</th>", "<th scope=\"row\">429</th>", "<th scope=\"row\">500</th>", "<th scope=\"row\">204</th>",
		`<code>X-RateLimit-Reset</code>`, `<code>Retry-After</code>`, `<code>ETag</code>`, "<h4>Example answer 200", "<h4>Example answer 400"} {
		if !bytes.Contains(page, []byte(want)) {
			t.Errorf("the reference page lacks %q", want)
		}
	}

	var doc map[string]any
	if err := json.Unmarshal(openAPI, &doc); err != nil {
		t.Fatal(err)
	}
	gone := BasePath + "/candidates"
	delete(doc["paths"].(map[string]any), gone)
	b, err := json.Marshal(doc)
	if err != nil {
		t.Fatal(err)
	}
	site, err := pages.New(pages.Election{Archive: archive.Of(ds)}, pages.About{}, BasePath, b, pages.English)
	if err != nil {
		t.Fatal(err)
	}
	if missing := missingEndpoints(s.endpointList, site.Reference); !slices.Equal(missing, []string{gone}) {
		t.Errorf("with %s left out of openapi.json, the check finds %q missing", gone, missing)
	}
}

// TestElectionPagesBuiltWhenAsked: a load builds the current election's
// pages at today's paths alone; an election's pages under its own path
// are built at the first request for one of them, and the archive's
// elections and history pages at the first request for one of those.
func TestElectionPagesBuiltWhenAsked(t *testing.T) {
	a, err := archive.Default()
	if err != nil {
		t.Fatal(err)
	}
	opts := DefaultOptions()
	opts.RateLimit = 1000
	s := New(a, opts)
	snap := s.snap.Load()
	if snap.pages == nil {
		t.Fatal("the current election's pages at today's paths are not built at load")
	}
	built := func() []string {
		var slugs []string
		for i, e := range a.Elections() {
			if e.IsHeld() && snap.electionAt(i).pages != nil {
				slugs = append(slugs, e.Record.Slug)
			}
		}
		return slugs
	}
	if got := built(); len(got) != 0 || snap.archivePages.lang != nil {
		t.Fatalf("at load, the pages of %q and the archive's (%v) are built; want none", got, snap.archivePages.lang != nil)
	}
	for _, target := range []string{"/elections/1962/districts/5", "/mt/elections/1962/", "/elections/2017/candidates.csv", "/districts/5"} {
		rec := httptest.NewRecorder()
		s.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, target, nil))
		if rec.Code != http.StatusOK {
			t.Fatalf("%s: status %d", target, rec.Code)
		}
	}
	if got := built(); !slices.Equal(got, []string{"1962"}) {
		t.Errorf("after pages of 1962 and a download of 2017, the pages of %q are built; want 1962's alone", got)
	}
	rec := httptest.NewRecorder()
	s.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, "/history", nil))
	if rec.Code != http.StatusOK || len(snap.archivePages.lang) != len(pages.Langs) {
		t.Errorf("/history: status %d, the archive's pages built in %d languages", rec.Code, len(snap.archivePages.lang))
	}
}
