package server

import (
	"bytes"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"ballot/archive"
	"ballot/dataset"
	"ballot/internal/datasettest"
	"ballot/server/pages"
)

// TestRecordPagesKeptOnceRendered: a party's, a district's and a
// candidate's page are rendered at the first request for them and kept,
// in each language, and every later answer is the first's, byte for byte,
// header fields too; a search's page is not kept. A reload starts with
// none kept, and its pages are the new dataset's.
func TestRecordPagesKeptOnceRendered(t *testing.T) {
	s := fuzzServer(t)
	ds := s.snap.Load().ds
	get := func(target string) *httptest.ResponseRecorder {
		rec := httptest.NewRecorder()
		s.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, target, nil))
		if rec.Code != http.StatusOK {
			t.Fatalf("GET %s: status %d", target, rec.Code)
		}
		return rec
	}
	kept := func() int {
		c := s.snap.Load().pages.records
		c.mu.RLock()
		defer c.mu.RUnlock()
		return len(c.body)
	}
	targets := []string{"/districts/5", "/mt/districts/5", "/parties/pn", "/candidates/" + ds.Candidates()[0].Slug}
	for i, target := range targets {
		first := get(target)
		if got := kept(); got != i+1 {
			t.Fatalf("after GET %s: %d pages kept, want %d", target, got, i+1)
		}
		again := get(target)
		if !bytes.Equal(again.Body.Bytes(), first.Body.Bytes()) || !equalHeaders(again.Header(), first.Header()) {
			t.Errorf("GET %s again: another answer than the first's", target)
		}
	}
	get("/search?q=abela")
	if got := kept(); got != len(targets) {
		t.Errorf("after a search: %d pages kept, want %d", got, len(targets))
	}

	m := datasettest.Files(t)
	manifest := string(m[dataset.ManifestFile].Data)
	m[dataset.ManifestFile].Data = []byte(strings.Replace(manifest, `title = "`, `title = "Next edition: `, 1))
	next, err := dataset.Load(m)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.Reload(func() (*archive.Archive, error) { return archive.Of(next), nil }); err != nil {
		t.Fatal(err)
	}
	if got := kept(); got != 0 {
		t.Errorf("after a reload: %d pages kept, want none", got)
	}
	if page := get("/districts/5").Body.String(); !strings.Contains(page, "Next edition") {
		t.Errorf("the district page after a reload is not the new dataset's")
	}
}

// equalHeaders reports whether two answers' header fields are the same,
// but for the rate limit's count of what is left, which each request
// lowers.
func equalHeaders(a, b http.Header) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if k == "X-Ratelimit-Remaining" || k == "Ratelimit" {
			continue
		}
		if strings.Join(v, "\n") != strings.Join(b[k], "\n") {
			return false
		}
	}
	return true
}

// TestRenderedPagesBudget: a page is kept while the budget has room for
// it, and rendered at each request past it; a page is rendered once when
// kept.
func TestRenderedPagesBudget(t *testing.T) {
	c := &renderedPages{body: map[string][]byte{}, left: 10}
	renders := map[string]int{}
	page := func(tag string, size int) pages.Rendered {
		return pages.Rendered{Tag: tag, Render: func() []byte {
			renders[tag]++
			return bytes.Repeat([]byte("x"), size)
		}}
	}
	for range 3 {
		c.get(page("a", 6)) // kept: 4 bytes left
		c.get(page("b", 5)) // past what is left
		c.get(page("c", 4)) // kept: none left
	}
	if renders["a"] != 1 || renders["b"] != 3 || renders["c"] != 1 {
		t.Errorf("renders %v, want a once, b three times, c once", renders)
	}
	if c.left != 0 || len(c.body) != 2 {
		t.Errorf("%d bytes left and %d pages kept, want 0 and 2", c.left, len(c.body))
	}
}
