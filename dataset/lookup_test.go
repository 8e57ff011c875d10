package dataset_test

import (
	"bytes"
	"compress/gzip"
	"encoding/json"
	"errors"
	"io"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"ballot/dataset"
	"ballot/internal/datasettest"
)

// numbers returns the district numbers of a districts result, in order.
func numbers(t *testing.T, ds *dataset.Dataset, res dataset.Result) []int {
	t.Helper()
	var ns []int
	for i := range res.Count() {
		var d struct{ Number int }
		if err := json.Unmarshal(datasettest.Answer(ds, res).Record(i), &d); err != nil {
			t.Fatal(err)
		}
		ns = append(ns, d.Number)
	}
	return ns
}

func lookup(t *testing.T, ds *dataset.Dataset, name string) ([]int, error) {
	t.Helper()
	res, err := ds.Query(dataset.Districts, dataset.Params{"locality": {name}})
	if err != nil {
		return nil, err
	}
	return numbers(t, ds, res), nil
}

// TestLocalityEveryCouncil looks up every locality of the embedded data by
// its name, its slug and its English name: each finds its own district,
// and exactly the districts holding a locality of that name or slug (so a
// council split between two districts gives both).
func TestLocalityEveryCouncil(t *testing.T) {
	ds, err := dataset.Default()
	if err != nil {
		t.Fatal(err)
	}
	// The districts holding each council, by its slug, and each name's.
	bySlug := map[string][]int{}
	byName := map[string][]int{}
	add := func(m map[string][]int, k string, n int) {
		if !slices.Contains(m[k], n) {
			m[k] = append(m[k], n)
		}
	}
	englishNames := 0
	for _, d := range ds.Districts() {
		for _, l := range d.Localities {
			add(bySlug, l.Slug, d.Number)
			add(byName, dataset.Fold(l.Name), d.Number)
			if l.NameEN != nil {
				add(byName, dataset.Fold(*l.NameEN), d.Number)
				englishNames++
			}
		}
	}
	if len(bySlug) != 68 {
		t.Fatalf("the embedded data has %d councils, want Malta's 68", len(bySlug))
	}
	if englishNames == 0 {
		t.Fatal("the embedded data has no English names")
	}
	union := func(a, b []int) []int {
		out := slices.Clone(a)
		for _, n := range b {
			if !slices.Contains(out, n) {
				out = append(out, n)
			}
		}
		slices.Sort(out)
		return out
	}
	for _, d := range ds.Districts() {
		for _, l := range d.Localities {
			queries := map[string][]int{
				l.Name: union(byName[dataset.Fold(l.Name)], bySlug[dataset.Slugify(l.Name)]),
				l.Slug: union(bySlug[l.Slug], byName[dataset.Fold(strings.ReplaceAll(l.Slug, "-", " "))]),
			}
			if l.NameEN != nil {
				queries[*l.NameEN] = union(byName[dataset.Fold(*l.NameEN)], bySlug[dataset.Slugify(*l.NameEN)])
			}
			for q, want := range queries {
				got, err := lookup(t, ds, q)
				if err != nil {
					t.Errorf("locality=%s: %v", q, err)
					continue
				}
				if !slices.Contains(got, d.Number) || !slices.Equal(got, want) {
					t.Errorf("locality=%s: districts %v, want %v", q, got, want)
				}
				if l.Split && len(got) < 2 {
					t.Errorf("locality=%s is a split council: districts %v, want both", q, got)
				}
			}
		}
	}
}

// TestLocality names the answers a person expects, in the spellings people
// type.
func TestLocality(t *testing.T) {
	ds, err := dataset.Default()
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		locality string
		want     []int
	}{
		{"Birżebbuġa", []int{5}},
		{"birzebbuga", []int{5}},
		{"BIRZEBBUGA", []int{5}},
		{"BIRŻEBBUĠA", []int{5}},
		{"Birze\u0307bbug\u0307a", []int{5}}, // dots as combining marks
		{"Vittoriosa", []int{2}},
		{"vittoriosa", []int{2}},
		{"Birgu", []int{2}},
		{"Cospicua", []int{2}},
		{"Senglea", []int{2}},
		{"St Julian's", []int{10}},
		{"st julians", []int{10}},
		{"San Ġiljan", []int{10}},
		{"Ħamrun", []int{1}},
		{"hamrun", []int{1}},
		{"Ta' Xbiex", []int{9}},
		{"ta-xbiex", []int{9}},
		{"  Valletta  ", []int{1}},
		// Councils split between two districts.
		{"Fgura", []int{2, 4}},
		{"Luqa", []int{5, 6}},
		{"Naxxar", []int{10, 12}},
		{"San Pawl il-Baħar", []int{11, 12}},
		{"san pawl il bahar", []int{11, 12}},
		{"St Paul's Bay", []int{11, 12}},
		// Malta's Żebbuġ (split between 6 and 7) and Gozo's share a name.
		{"Żebbuġ", []int{6, 7, 13}},
		{"zebbug", []int{6, 7, 13}},
		{"zebbug-gozo", []int{13}},
	}
	for _, tt := range tests {
		t.Run(tt.locality, func(t *testing.T) {
			got, err := lookup(t, ds, tt.locality)
			if err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(got, tt.want) {
				t.Errorf("districts %v, want %v", got, tt.want)
			}
		})
	}
}

// TestLocalityRefused: a name that matches nothing, or the parameter given
// twice, is refused by name; an empty value is no parameter.
func TestLocalityRefused(t *testing.T) {
	ds, err := dataset.Default()
	if err != nil {
		t.Fatal(err)
	}
	const noLocality = "names no locality of this dataset; give a locality's name, English name or slug"
	tests := []struct {
		name   string
		values []string
		reason string
		near   []string // the suggestions, as a page lists them
	}{
		{"a misspelling gets suggestions", []string{"Birzebuga"}, noLocality + "; did you mean Birżebbuġa?", []string{"Birżebbuġa"}},
		{"a beginning gets suggestions", []string{"marsa"}, "" /* Marsa itself */, nil},
		{"a prefix of several", []string{"Mars"}, noLocality + "; did you mean Marsa, Marsaskala or Marsaxlokk?", []string{"Marsa", "Marsaskala", "Marsaxlokk"}},
		{"an English name misspelt", []string{"Vittorioza"}, noLocality + "; did you mean Vittoriosa?", []string{"Vittoriosa"}},
		{"a name in full", []string{"Ħal Għaxaq"}, noLocality + "; did you mean Għaxaq?", []string{"Għaxaq"}},
		{"a name in full, in ASCII", []string{"hal tarxien"}, noLocality + "; did you mean Tarxien?", []string{"Tarxien"}},
		{"nothing near", []string{"London"}, noLocality, nil},
		{"punctuation only", []string{"!!!"}, noLocality, nil},
		{"very long", []string{strings.Repeat("a", 5000)}, noLocality, nil},
		{"given twice", []string{"Luqa", "Luqa"}, "must be given at most once", nil},
		{"given twice, one empty", []string{"", "Luqa"}, "must be given at most once", nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res, err := ds.Query(dataset.Districts, dataset.Params{"locality": tt.values})
			if tt.reason == "" {
				if err != nil || res.Count() != 1 {
					t.Fatalf("count %d, %v; want one district", res.Count(), err)
				}
				return
			}
			var perr *dataset.ParamError
			if !errors.As(err, &perr) {
				t.Fatalf("err = %v, want a *ParamError", err)
			}
			want := []dataset.InvalidParam{{Name: "locality", Reason: tt.reason, Near: tt.near}}
			if !reflect.DeepEqual(perr.Params, want) {
				t.Errorf("refused %q, want %q", perr.Params, want)
			}
		})
	}

	all, err := ds.Query(dataset.Districts, nil)
	if err != nil {
		t.Fatal(err)
	}
	empty, err := ds.Query(dataset.Districts, dataset.Params{"locality": {""}})
	if err != nil || datasettest.Answer(ds, empty).ETag() != datasettest.Answer(ds, all).ETag() || empty.Count() != 13 {
		t.Errorf("locality= gives %d districts, %v; want all 13, as without it", empty.Count(), err)
	}
}

// TestRecord finds one record by each of its keys and refuses keys that
// name none.
func TestRecord(t *testing.T) {
	ds, err := dataset.Default()
	if err != nil {
		t.Fatal(err)
	}
	at := time.Date(2026, 11, 22, 0, 0, 0, 0, time.UTC)
	body := func(rec []byte) string {
		return `{"data":[` + string(rec) + `],"meta":{"count":1,"total":1,"generatedAt":"2026-11-22T00:00:00.000Z"}}` + "\n"
	}
	parties, _ := ds.Query(dataset.Parties, nil)
	districts, _ := ds.Query(dataset.Districts, nil)
	candidates, _ := ds.Query(dataset.Candidates, dataset.Params{"limit": {"500"}})
	check := func(c dataset.Collection, key string, want []byte) {
		t.Helper()
		res, err := ds.Record(c, key)
		if err != nil {
			t.Errorf("%s/%s: %v", c, key, err)
			return
		}
		if got := string(datasettest.Answer(ds, res).AppendJSON(nil, at)); got != body(want) {
			t.Errorf("%s/%s = %s, want %s", c, key, got, body(want))
		}
		zr, err := gzip.NewReader(bytes.NewReader(datasettest.Answer(ds, res).AppendGzip(nil, at)))
		if err != nil {
			t.Fatal(err)
		}
		if got, err := io.ReadAll(zr); err != nil || string(got) != body(want) {
			t.Errorf("%s/%s gzipped = %s, %v; want %s", c, key, got, err, body(want))
		}
	}
	for i, p := range ds.Parties() {
		for _, key := range []string{p.Slug, strings.ToUpper(p.Slug), p.ID, strings.ToUpper(p.ID)} {
			check(dataset.Parties, key, datasettest.Answer(ds, parties).Record(i))
		}
	}
	for i, d := range ds.Districts() {
		for _, key := range []string{strconv.Itoa(d.Number), "0" + strconv.Itoa(d.Number), d.ID, strings.ToUpper(d.ID)} {
			check(dataset.Districts, key, datasettest.Answer(ds, districts).Record(i))
		}
	}
	for i, c := range ds.Candidates() {
		for _, key := range []string{c.Slug, strings.ToUpper(c.Slug), c.ID, strings.ToUpper(c.ID)} {
			check(dataset.Candidates, key, datasettest.Answer(ds, candidates).Record(i))
		}
	}

	c0 := ds.Candidates()[0]
	tests := []struct {
		c      dataset.Collection
		key    string
		detail string
	}{
		{dataset.Parties, "nope", `no party has the slug or id "nope"`},
		{dataset.Parties, "pnn", `no party has the slug or id "pnn"; did you mean "pn"?`},
		{dataset.Parties, "00000000-0000-4000-8000-000000000000", `no party has the slug or id "00000000-0000-4000-8000-000000000000"`},
		{dataset.Parties, ds.Districts()[0].ID, `no party has the slug or id "` + ds.Districts()[0].ID + `"`},
		{dataset.Districts, "0", `no district has the number or id "0"; districts are numbered 1 to 13`},
		{dataset.Districts, "14", `no district has the number or id "14"; districts are numbered 1 to 13`},
		{dataset.Districts, "99999999999999999999999", `no district has the number or id "99999999999999999999999"; districts are numbered 1 to 13`},
		{dataset.Districts, "+5", `no district has the number or id "+5"; districts are numbered 1 to 13`},
		{dataset.Districts, "five", `no district has the number or id "five"; districts are numbered 1 to 13`},
		{dataset.Candidates, c0.Slug + "x", `no candidate has the slug or id "` + c0.Slug + `x"; did you mean "` + c0.Slug + `"?`},
		{dataset.Candidates, "a\x00b", `no candidate has the slug or id this key`},
		{dataset.Candidates, "\xff", `no candidate has the slug or id this key`},
		{dataset.Candidates, strings.Repeat("a", 101), `no candidate has the slug or id this key`},
	}
	for _, tt := range tests {
		_, err := ds.Record(tt.c, tt.key)
		var nf *dataset.NotFoundError
		if !errors.As(err, &nf) || err.Error() != tt.detail {
			t.Errorf("%s/%q: %v, want a *NotFoundError %q", tt.c, tt.key, err, tt.detail)
		}
	}
}
