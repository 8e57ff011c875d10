package pages

import (
	"strings"
	"testing"

	"ballot/archive"
	"ballot/dataset"
)

// TestFilterOfIsWhatWasAsked: the filter a candidates page of an accepted
// query shows, links and is tagged by is the query's as dataset.Query
// understood it (filterOf), and is what the page read of the parameters
// themselves before (canonical), for every filter in every form it
// accepts: numbers with leading zeros, ids in any letter case, a party by
// id or slug, q with spaces around it, limit and offset.
func TestFilterOfIsWhatWasAsked(t *testing.T) {
	ds, err := dataset.Default()
	if err != nil {
		t.Fatal(err)
	}
	site, err := New(Election{Archive: archive.Of(ds)}, About{Title: "t"}, "/api/public/v1", []byte(`{"paths":{}}`), English)
	if err != nil {
		t.Fatal(err)
	}
	d5, pn := ds.Districts()[4], ds.Parties()[1]
	queries := []dataset.Params{
		{},
		{"district": {"05"}},
		{"district": {strings.ToUpper(d5.ID)}},
		{"stood_in": {"13"}},
		{"stood_in": {d5.ID}, "district": {"5"}},
		{"party": {strings.ToUpper(pn.Slug)}},
		{"party": {pn.ID}},
		{"elected": {"true"}},
		{"elected": {"false"}, "q": {"  abela "}},
		{"q": {"Ċa"}, "limit": {"007"}},
		{"limit": {"500"}, "offset": {"003"}},
		{"district": {"5"}, "party": {"PL"}, "stood_in": {"5"}, "elected": {"true"}, "limit": {"1"}, "offset": {"1"}},
	}
	for _, q := range queries {
		res, err := ds.Query(dataset.Candidates, q)
		if err != nil {
			t.Fatalf("%v: %v", q, err)
		}
		if got, want := site.filterOf(res), site.canonical(q); got != want {
			t.Errorf("%v: filterOf %+v, want %+v", q, got, want)
		}
	}
}
