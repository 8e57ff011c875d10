package answers_test

import (
	"bytes"
	"compress/gzip"
	"fmt"
	"io"
	"slices"
	"testing"
	"time"

	"ballot/answers"
	"ballot/dataset"
	"ballot/internal/datasettest"
)

// TestAppendGzip checks that the gzip body, pieced together from the list
// compressed at load and a tail compressed per request, or compressed on
// request for a page past the first and a one-record answer, is valid gzip
// of exactly the plain body, for every count; and that PrepareJSON gives
// the same answers without compressing its lists at load.
func TestAppendGzip(t *testing.T) {
	ds, err := dataset.Default()
	if err != nil {
		t.Fatal(err)
	}
	at := time.Date(2026, 11, 21, 4, 15, 0, 123_000_000, time.UTC)
	queries := []struct {
		c dataset.Collection
		p dataset.Params
	}{
		{dataset.Parties, nil},
		{dataset.Districts, nil},
		{dataset.Districts, dataset.Params{"locality": {"valletta"}}},               // one district's
		{dataset.Districts, dataset.Params{"locality": {"fgura"}}},                  // two districts'
		{dataset.Candidates, dataset.Params{"district": {"13"}, "party": {"volt"}}}, // empty
	}
	for _, limit := range []string{"1", "2", "7", "20", "21", "37", "99", "100", "138", "139", "500"} {
		queries = append(queries, struct {
			c dataset.Collection
			p dataset.Params
		}{dataset.Candidates, dataset.Params{"limit": {limit}}})
	}
	queries = append(queries, struct {
		c dataset.Collection
		p dataset.Params
	}{dataset.Candidates, dataset.Params{"district": {"5"}, "party": {"pn"}}})
	// Pages past the first, compressed on request.
	for _, o := range [][2]string{{"1", "1"}, {"3", "7"}, {"100", ""}, {"176", "500"}, {"177", ""}} {
		queries = append(queries, struct {
			c dataset.Collection
			p dataset.Params
		}{dataset.Candidates, dataset.Params{"offset": {o[0]}, "limit": {o[1]}}})
	}
	type answer struct {
		name string
		res  answers.Result
	}
	var all []answer
	for _, q := range queries {
		res, err := ds.Query(q.c, q.p)
		if err != nil {
			t.Fatal(err)
		}
		all = append(all, answer{string(q.c) + " " + fmt.Sprint(q.p), datasettest.Answer(ds, res)})
	}
	// One-record answers, compressed on request.
	for _, r := range []struct {
		c   dataset.Collection
		key string
	}{{dataset.Parties, "pn"}, {dataset.Districts, "1"}, {dataset.Districts, "13"}, {dataset.Candidates, "toni-bezzina"}} {
		res, err := ds.Record(r.c, r.key)
		if err != nil {
			t.Fatal(err)
		}
		all = append(all, answer{string(r.c) + "/" + r.key, datasettest.Answer(ds, res)})
	}
	// The same answers of PrepareJSON, whose lists are not compressed at
	// load: the same body and ETag, and a gzip body compressed on request.
	jsonOnly := answers.PrepareJSON(ds)
	for _, a := range all[:len(all):len(all)] {
		all = append(all, answer{a.name + " (PrepareJSON)", jsonOnly.Of(a.res.Query())})
	}
	for _, a := range all {
		res := a.res
		plain := res.AppendJSON(nil, at)
		zr, err := gzip.NewReader(bytes.NewReader(res.AppendGzip(nil, at)))
		if err != nil {
			t.Fatalf("%s: %v", a.name, err)
		}
		got, err := io.ReadAll(zr) // checks the CRC-32 and the length too
		if err != nil {
			t.Fatalf("%s: invalid gzip: %v", a.name, err)
		}
		if !bytes.Equal(got, plain) {
			t.Errorf("%s: gzip holds %q, want %q", a.name, got, plain)
		}
	}
	for i, a := range all[:len(all)/2] {
		b := all[len(all)/2+i]
		if pa, pb := a.res.AppendJSON(nil, at), b.res.AppendJSON(nil, at); !bytes.Equal(pa, pb) {
			t.Errorf("%s: body %q, want Prepare's %q", b.name, pb, pa)
		}
		if b.res.ETag() != a.res.ETag() {
			t.Errorf("%s: ETag %s, want Prepare's %s", b.name, b.res.ETag(), a.res.ETag())
		}
	}
}

func BenchmarkAppendGzip(b *testing.B) {
	ds, _ := dataset.Default()
	q, _ := ds.Query(dataset.Candidates, nil)
	res := datasettest.Answer(ds, q)
	buf := make([]byte, 0, 64<<10)
	now := time.Now()
	b.ReportAllocs()
	for b.Loop() {
		buf = res.AppendGzip(buf[:0], now)
	}
	b.SetBytes(int64(len(res.AppendJSON(nil, now))))
}

// A locality answer of one district holds the same record as that
// district's record answer, and not its ETag: the two are different answers.
func TestLocalityAnswerOwnETag(t *testing.T) {
	ds, err := dataset.Default()
	if err != nil {
		t.Fatal(err)
	}
	locQ, err := ds.Query(dataset.Districts, dataset.Params{"locality": {"valletta"}})
	if err != nil {
		t.Fatal(err)
	}
	recQ, err := ds.Record(dataset.Districts, "1")
	if err != nil {
		t.Fatal(err)
	}
	loc, rec := datasettest.Answer(ds, locQ), datasettest.Answer(ds, recQ)
	if loc.ETag() == rec.ETag() {
		t.Errorf("the locality answer and district 1's record answer share the ETag %s", loc.ETag())
	}
	at := time.Date(2026, 11, 26, 6, 0, 0, 0, time.UTC)
	if !bytes.Contains(loc.AppendJSON(nil, at), []byte(`"number":1,`)) {
		t.Errorf("the answer for valletta does not hold district 1: %s", loc.AppendJSON(nil, at))
	}
}

// TestPreparedInPlace: an answer whose records are one run of their
// list's prepared bytes gives those bytes themselves, the same for every
// answer (PreparedRun, PreparedGzip), and the parts made for it
// (AppendTail, AppendGzipRest) complete them into the body AppendJSON and
// AppendGzip append; one record, a page past the first and a list
// compressed whole are such answers in plain, the first pages of a list
// in gzip too.
func TestPreparedInPlace(t *testing.T) {
	ds := datasettest.Counts(t, true)
	at := time.Date(2026, 11, 21, 4, 15, 0, 123_000_000, time.UTC)
	var results []dataset.Result
	for _, q := range []struct {
		c dataset.Collection
		p dataset.Params
	}{
		{dataset.Results, nil},
		{dataset.Parties, nil},
		{dataset.Candidates, dataset.Params{"limit": {"37"}}},
		{dataset.Candidates, dataset.Params{"district": {"5"}}},
		{dataset.Candidates, dataset.Params{"offset": {"3"}, "limit": {"7"}}},
	} {
		res, err := ds.Query(q.c, q.p)
		if err != nil {
			t.Fatal(err)
		}
		results = append(results, res)
	}
	for _, key := range []string{"1", "5", "13"} {
		res, err := ds.Record(dataset.Results, key)
		if err != nil {
			t.Fatal(err)
		}
		results = append(results, res)
	}
	for _, res := range results {
		a, b := datasettest.Answer(ds, res), datasettest.Answer(ds, res)
		name := fmt.Sprint(res.List().ID, res.Pick(), res.Offset())
		head, prepared := a.PreparedRun()
		_, again := b.PreparedRun()
		if len(prepared) == 0 || &prepared[0] != &again[0] {
			t.Errorf("%s: prepared run %d bytes, not the same bytes for two answers", name, len(prepared))
			continue
		}
		body := a.AppendTail(append(slices.Clone(head), prepared...), at)
		if want := a.AppendJSON(nil, at); !bytes.Equal(body, want) {
			t.Errorf("%s: in place %q, want %q", name, body, want)
		}
		if head, prepared := a.PreparedGzip(); prepared != nil {
			if _, again := b.PreparedGzip(); len(prepared) > 0 && &prepared[0] != &again[0] {
				t.Errorf("%s: prepared gzip not the same bytes for two answers", name)
			}
			gz := a.AppendGzipRest(append(slices.Clone(head), prepared...), at)
			if want := a.AppendGzip(nil, at); !bytes.Equal(gz, want) {
				t.Errorf("%s: gzip in place differs from AppendGzip's", name)
			}
		}
	}
}
