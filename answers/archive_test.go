package answers_test

import (
	"bytes"
	"compress/gzip"
	"encoding/json"
	"io"
	"testing"
	"time"

	"ballot/answers"
	"ballot/archive"
	"ballot/dataset"
	"ballot/internal/datasettest"
)

// TestArchiveRecords: each answer of an archive's records (the elections,
// one election, a person, the people a search finds, none) is the
// envelope of its records, count and total, as the collections'; its gzip
// body, prepared at load for the elections or compressed on request for
// a pick, is valid gzip of exactly the plain body; PrepareArchiveJSON
// gives the same bytes; and no two answers share an ETag.
func TestArchiveRecords(t *testing.T) {
	a, err := archive.Default()
	if err != nil {
		t.Fatal(err)
	}
	at := time.Date(2026, 11, 21, 4, 15, 0, 123_000_000, time.UTC)
	const path = "/api/public/v1/elections"
	prepared, plain := answers.PrepareArchive(a, path), answers.PrepareArchiveJSON(a, path)
	found, err := a.SearchPeople("abela")
	if err != nil {
		t.Fatal(err)
	}
	pick := func(ans *answers.ArchiveAnswers) map[string]answers.Records {
		return map[string]answers.Records{
			"elections":       ans.Elections(),
			"election 1":      ans.Election(1),
			"person 0":        ans.Person(0),
			"abela":           ans.People(found),
			"nobody":          ans.People(nil),
			"the first Abela": ans.People(found[:1]),
		}
	}
	json2 := pick(plain)
	etags := map[string]string{}
	for name, rec := range pick(prepared) {
		body := rec.AppendJSON(nil, at)
		var env struct {
			Data []json.RawMessage
			Meta struct{ Count, Total int }
		}
		if err := json.Unmarshal(body, &env); err != nil || len(env.Data) != rec.Count() || env.Meta.Count != rec.Count() || env.Meta.Total != rec.Count() {
			t.Errorf("%s: %d records, meta %+v (%v); want %d", name, len(env.Data), env.Meta, err, rec.Count())
		}
		for i, r := range env.Data {
			if !bytes.Equal(r, rec.Record(i)) {
				t.Errorf("%s: record %d is not Record(%d)", name, i, i)
			}
		}
		zr, err := gzip.NewReader(bytes.NewReader(rec.AppendGzip(nil, at)))
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		unzipped, err := io.ReadAll(zr)
		if err != nil || !bytes.Equal(unzipped, body) {
			t.Errorf("%s: the gzip body is not the plain one (%v)", name, err)
		}
		if other := json2[name]; !bytes.Equal(other.AppendJSON(nil, at), body) || other.ETag() != rec.ETag() {
			t.Errorf("%s: PrepareArchiveJSON answers other bytes or another ETag", name)
		}
		if other, ok := etags[rec.ETag()]; ok {
			t.Errorf("%s and %s share the ETag %s", name, other, rec.ETag())
		}
		etags[rec.ETag()] = name
	}
	if n, want := prepared.Elections().Count(), len(a.Elections()); n != want {
		t.Errorf("%d elections, want %d", n, want)
	}
	var e answers.ElectionRecord
	if err := json.Unmarshal(prepared.Election(1).Record(0), &e); err != nil || e.Slug != "2017" || e.Paths.Candidates != path+"/2017/candidates" {
		t.Errorf("election 1: %+v (%v), want 2017 with its paths", e, err)
	}
}

// TestPeopleListIsEncodeRecord: each person's record in the people's
// answers, put together from its parts, is the bytes dataset.EncodeRecord
// makes of the person whole: for every person of the embedded archive,
// and for names that the encoder must escape (a quote, a backslash) or
// writes itself (Maltese letters, <, >, &; a name holds no control
// character).
func TestPeopleListIsEncodeRecord(t *testing.T) {
	embedded, err := archive.Default()
	if err != nil {
		t.Fatal(err)
	}
	m := datasettest.Files(t)
	names := []string{`Joe "Il-Bajjad" Borg`, `Back\slash Borg`, "Ġorġ Żammit", "<b>Borg</b> & Co"}
	datasettest.Edit(t, m, dataset.CandidatesFile, func(rs []map[string]any) []map[string]any {
		for i, name := range names {
			rs[i]["name"] = name
		}
		return rs
	})
	edited, err := archive.Load(m)
	if err != nil {
		t.Fatal(err)
	}
	for _, a := range []*archive.Archive{embedded, edited} {
		ans := answers.PrepareArchiveJSON(a, "/api/public/v1/elections")
		for i := range a.People() {
			if got, want := ans.Person(i).Record(0), dataset.EncodeRecord(&a.People()[i]); !bytes.Equal(got, want) {
				t.Fatalf("person %d:\n got %s\nwant %s", i, got, want)
			}
		}
	}
	found, err := edited.SearchPeople("borg")
	if err != nil || len(found) < len(names)-1 {
		t.Fatalf("q=borg: %d people, %v; want the edited names among them", len(found), err)
	}
}
