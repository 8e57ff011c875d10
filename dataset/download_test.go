package dataset_test

import (
	"testing"

	"ballot/dataset"
)

// TestDownloadRowsAreTheQuerysRecords: a download's rows are the records
// Query answers for the same filters, every one of them, in order.
func TestDownloadRowsAreTheQuerysRecords(t *testing.T) {
	ds, err := dataset.Default()
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range []dataset.Params{
		nil, {"district": {"5"}}, {"party": {"pl"}}, {"stood_in": {"5"}, "elected": {"true"}}, {"q": {"ar"}}, {"q": {"qqq"}},
		{"limit": {"0"}, "offset": {"x"}, "party": {"PN"}}, // limit and offset are not read
	} {
		rows, err := ds.Rows(dataset.Candidates, p)
		if err != nil {
			t.Fatalf("%q: %v", p, err)
		}
		q := dataset.Params{"limit": {"500"}}
		for k, v := range p {
			if k != "limit" && k != "offset" {
				q[k] = v
			}
		}
		res, err := ds.Query(dataset.Candidates, q)
		if err != nil {
			t.Fatal(err)
		}
		if rows.Count() != res.Total() {
			t.Fatalf("%q: %d rows, the query's total %d", p, rows.Count(), res.Total())
		}
		for i := range rows.Count() {
			if rows.Index(i) != res.Index(i) {
				t.Fatalf("%q: row %d is record %d, the query's %d", p, i, rows.Index(i), res.Index(i))
			}
		}
	}
}
