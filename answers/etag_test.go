package answers_test

import (
	"strconv"
	"testing"
	"time"

	"ballot/dataset"
	"ballot/internal/datasettest"
)

// TestETagsTellBodiesApart checks that two candidates answers with
// different bodies never share an ETag, over every district and party
// filter (the empty ones included), several limits and offsets: a client
// holding one body must never get a 304 for another. Bodies are compared
// with one generatedAt, which the weak tags leave out.
func TestETagsTellBodiesApart(t *testing.T) {
	d, err := dataset.Default()
	if err != nil {
		t.Fatal(err)
	}
	at := time.Date(2026, 11, 21, 4, 15, 0, 0, time.UTC)
	parties := []string{""}
	for _, p := range d.Parties() {
		parties = append(parties, p.Slug)
	}
	bodyOf := map[string]string{} // ETag → body
	queries := 0
	for district := 0; district <= dataset.DefaultDistricts; district++ {
		for _, party := range parties {
			for _, limit := range []string{"", "1", "7", "100", "176", "177", "200", "500"} {
				for _, offset := range []string{"", "0", "1", "6", "100", "176", "177"} {
					p := dataset.Params{"party": {party}, "limit": {limit}, "offset": {offset}}
					if district > 0 {
						p["district"] = []string{strconv.Itoa(district)}
					}
					res, err := d.Query(dataset.Candidates, p)
					if err != nil {
						continue // an offset beyond this filter's total
					}
					queries++
					ans := datasettest.Answer(d, res)
					body := string(ans.AppendJSON(nil, at))
					tag := ans.ETag()
					if prev, ok := bodyOf[tag]; ok && prev != body {
						t.Fatalf("district %d, party %q, limit %q, offset %q: ETag %s also tags another body:\n%s\n%s", district, party, limit, offset, tag, prev, body)
					}
					bodyOf[tag] = body
				}
			}
		}
	}
	if queries < 1000 {
		t.Fatalf("only %d queries answered; the test covers too little", queries)
	}
	t.Logf("%d answers, %d distinct ETags", queries, len(bodyOf))
}
