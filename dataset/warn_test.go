package dataset

import (
	"context"
	"slices"
	"testing"
)

// TestSplitUnmarkedOrder: the localities listed in more than one district
// and not marked split are warned of by slug, in order, and within a slug
// in the order of the file.
func TestSplitUnmarkedOrder(t *testing.T) {
	loc := func(slug string, split bool) Locality { return Locality{Name: slug, Slug: slug, Split: split} }
	districts := []District{
		{ID: "d1", Number: 1, Localities: []Locality{loc("zebbug", false), loc("attard", false), loc("mosta", false)}},
		{ID: "d2", Number: 2, Localities: []Locality{loc("mosta", true), loc("zebbug", false)}},
		{ID: "d3", Number: 3, Localities: []Locality{loc("zebbug", false), loc("attard", true), loc("qormi", false)}},
	}
	d := records{districts: file[District]{recs: districts, valid: []bool{true, true, true}}}
	r := &Report{}
	d.warn(r)
	var got []string
	for _, p := range r.Warnings {
		if p.Rule == "split-unmarked" {
			got = append(got, p.Pointer+" "+p.Message)
		}
	}
	const tail = " districts but is not marked as split (a different place of the same name needs a different slug)"
	want := []string{
		`/0/localities/1/split locality "attard" appears in 2` + tail,
		`/0/localities/2/split locality "mosta" appears in 2` + tail,
		`/0/localities/0/split locality "zebbug" appears in 3` + tail,
		`/1/localities/1/split locality "zebbug" appears in 3` + tail,
		`/2/localities/0/split locality "zebbug" appears in 3` + tail,
	}
	if !slices.Equal(got, want) {
		t.Errorf("split-unmarked warnings:\n%q\nwant\n%q", got, want)
	}
}

// TestRepeatsNameTheFirst: a value repeated where it must be unique is
// reported with the pointer of its first use.
func TestRepeatsNameTheFirst(t *testing.T) {
	const id1, id2 = "00000000-0000-4000-8000-000000000001", "00000000-0000-4000-8000-000000000002"
	d := records{
		parties: file[Party]{
			recs:   []Party{{ID: id1, Slug: "labour", Name: "L", ShortName: "L"}, {ID: id2, Slug: "labour", Name: "M", ShortName: "M"}},
			valid:  []bool{true, true},
			object: []bool{true, true},
		},
		districts: file[District]{
			recs: []District{{ID: id1, Number: 1, Name: "First", Localities: []Locality{
				{Name: "Mosta", Slug: "mosta"}, {Name: "MOSTA", Slug: "mosta-2"}, {Name: "Naxxar", Slug: "mosta"},
			}}},
			valid:  []bool{true},
			object: []bool{true},
		},
	}
	r := &Report{}
	d.check(r)
	var got []string
	for _, p := range r.Errors {
		got = append(got, p.String())
	}
	want := []string{
		`parties.json: /1/slug: slug "labour" is already used at parties.json#/0/slug`,
		`districts.json: /0/id: id ` + id1 + ` is already used at parties.json#/0/id`,
		`districts.json: /0/localities/1/name: locality "MOSTA" is already listed in this district at districts.json#/0/localities/0/name`,
		`districts.json: /0/localities/2/slug: slug "mosta" is already used at districts.json#/0/localities/0/slug`,
	}
	if !slices.Equal(got, want) {
		t.Errorf("errors:\n%q\nwant\n%q", got, want)
	}
}

// TestOptionsWarn: with Options.Warn, a check and a load give each warning
// to it, in the order a report lists them, and keep none.
func TestOptionsWarn(t *testing.T) {
	const dir = "../commands/testdata/datasets/warnings"
	want, err := CheckDirContext(context.Background(), dir, Options{})
	if err != nil || len(want) < 5 {
		t.Fatalf("CheckDirContext: %d warnings, %v; want 5 or more", len(want), err)
	}
	var got []Problem
	kept, err := CheckDirContext(context.Background(), dir, Options{Warn: func(p Problem) { got = append(got, p) }})
	if err != nil || kept != nil {
		t.Fatalf("CheckDirContext with Warn: %d kept, %v; want none", len(kept), err)
	}
	if !slices.Equal(got, want) {
		t.Errorf("warnings given to Warn:\n%v\nwant\n%v", got, want)
	}
	got = nil
	ds, err := LoadDirContext(context.Background(), dir, Options{Warn: func(p Problem) { got = append(got, p) }})
	if err != nil || ds.Warnings != nil {
		t.Fatalf("LoadDirContext with Warn: %v, %v; want no warnings kept", err, ds.Warnings)
	}
	if !slices.Equal(got, want) {
		t.Errorf("warnings of a load given to Warn:\n%v\nwant\n%v", got, want)
	}
}

// TestCandidateDuplicate: two candidates of the same name and party are
// warned of as one person listed twice, unless together they stand in more
// districts than one candidate may, which makes them two people. A third
// is compared with the first.
func TestCandidateDuplicate(t *testing.T) {
	party := "p"
	tests := []struct {
		name      string
		districts [][]string // of each "Ivan Bartolo" in turn
		want      []string   // the warnings' pointers and messages
	}{
		{"the same districts", [][]string{{"d1"}, {"d1"}}, []string{`/1/name "Ivan Bartolo" of the same party is also at candidates.json#/0: the same person twice?`}},
		{"one district each", [][]string{{"d1"}, {"d2"}}, []string{`/1/name "Ivan Bartolo" of the same party is also at candidates.json#/0: the same person twice?`}},
		{"two and one of them again", [][]string{{"d1", "d2"}, {"d2"}}, []string{`/1/name "Ivan Bartolo" of the same party is also at candidates.json#/0: the same person twice?`}},
		{"three districts together", [][]string{{"d11"}, {"d4", "d7"}}, nil},
		{"four districts together", [][]string{{"d9", "d12"}, {"d4", "d7"}}, nil},
		{"a third, like the first", [][]string{{"d11"}, {"d4", "d7"}, {"d11"}}, []string{`/2/name "Ivan Bartolo" of the same party is also at candidates.json#/0: the same person twice?`}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var d records
			for _, ids := range tt.districts {
				d.candidates.recs = append(d.candidates.recs, Candidate{Name: "Ivan Bartolo", PartyID: &party, DistrictIDs: ids})
				d.candidates.valid = append(d.candidates.valid, true)
			}
			r := &Report{}
			d.warn(r)
			var got []string
			for _, p := range r.Warnings {
				if p.Rule == "candidate-duplicate" {
					got = append(got, p.Pointer+" "+p.Message)
				}
			}
			if !slices.Equal(got, tt.want) {
				t.Errorf("candidate-duplicate warnings:\n%q\nwant\n%q", got, tt.want)
			}
		})
	}
}
