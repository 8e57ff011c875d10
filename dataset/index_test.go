package dataset_test

import (
	"bytes"
	"cmp"
	"encoding/json"
	"strconv"
	"testing"

	"ballot/dataset"
	"ballot/internal/datasettest"
)

// TestResultIndex: every record a result gives by Index is the one its
// JSON holds, for every collection, filter, offset, record and locality.
func TestResultIndex(t *testing.T) {
	ds, err := dataset.Default()
	if err != nil {
		t.Fatal(err)
	}
	type query struct {
		c dataset.Collection
		p dataset.Params
	}
	queries := []query{
		{dataset.Parties, nil},
		{dataset.Districts, nil},
		{dataset.Districts, dataset.Params{"locality": {"Żebbuġ"}}},
		{dataset.Candidates, dataset.Params{"limit": {"500"}}},
		{dataset.Candidates, dataset.Params{"limit": {"7"}, "offset": {"30"}}},
		{dataset.Candidates, dataset.Params{"party": {"pn"}, "offset": {"3"}}},
	}
	for n := 1; n <= 13; n++ {
		queries = append(queries, query{dataset.Candidates, dataset.Params{"district": {strconv.Itoa(n)}, "party": {"pl"}}})
	}
	encode := func(c dataset.Collection, i int) []byte {
		var v any
		switch c {
		case dataset.Parties:
			v = ds.Parties()[i]
		case dataset.Districts:
			v = ds.Districts()[i]
		case dataset.Results:
			v = ds.Sheets()[i]
		default:
			v = ds.Candidates()[i]
		}
		return bytes.TrimSuffix(dataset.EncodeJSON(v), []byte("\n"))
	}
	check := func(name string, c dataset.Collection, res dataset.Result) {
		t.Helper()
		for i := range res.Count() {
			if got, want := encode(c, res.Index(i)), datasettest.Answer(ds, res).Record(i); !bytes.Equal(got, want) {
				t.Errorf("%s: record %d by Index is %s, the answer holds %s", name, i, got, want)
			}
		}
	}
	for _, q := range queries {
		res, err := ds.Query(q.c, q.p)
		if err != nil {
			t.Fatalf("%s %v: %v", q.c, q.p, err)
		}
		if res.Count() == 0 && q.c != dataset.Candidates {
			t.Fatalf("%s %v: no records", q.c, q.p)
		}
		check(string(q.c)+" "+mustJSON(t, q.p), q.c, res)
	}
	for _, c := range dataset.Collections {
		all, _ := ds.Query(c, dataset.Params{"limit": {"500"}})
		for i := range all.Count() {
			var key struct {
				ID         string
				DistrictID string `json:"district_id"` // a result's
			}
			if err := json.Unmarshal(datasettest.Answer(ds, all).Record(i), &key); err != nil {
				t.Fatal(err)
			}
			key.ID = cmp.Or(key.ID, key.DistrictID)
			res, err := ds.Record(c, key.ID)
			if err != nil {
				t.Fatal(err)
			}
			if res.Index(0) != all.Index(i) {
				t.Errorf("%s %s: Index %d, want %d", c, key.ID, res.Index(0), all.Index(i))
			}
			check(string(c)+" "+key.ID, c, res)
		}
	}
}

func mustJSON(t *testing.T, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}
