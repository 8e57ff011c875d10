package server

import (
	"bytes"
	"encoding/json"
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
