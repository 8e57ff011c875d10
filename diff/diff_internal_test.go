package diff

import (
	"bytes"
	"encoding/json"
	"reflect"
	"slices"
	"testing"
	"time"

	"ballot/dataset"
)

// TestCompareValues: records are compared through their JSON, so a field
// that one side lacks (a field added to a record type later) is a change
// like any other, and nested values are compared element by element.
func TestCompareValues(t *testing.T) {
	raw := func(s string) json.RawMessage { return json.RawMessage(s) }
	tests := []struct {
		name     string
		old, new string
		want     []Change
	}{
		{"equal", `{"id":"a","n":1}`, `{"id":"a","n":1}`, nil},
		{"a value", `{"id":"a","name":"X"}`, `{"id":"a","name":"Y"}`, []Change{{Field: "name", Old: raw(`"X"`), New: raw(`"Y"`)}}},
		{"null to a value", `{"color":null}`, `{"color":"#cc0000"}`, []Change{{Field: "color", Old: raw(`null`), New: raw(`"#cc0000"`)}}},
		{"a field only in the new", `{"id":"a"}`, `{"id":"a","logo_url":null}`, []Change{{Field: "logo_url", New: raw(`null`)}}},
		{"a field only in the old", `{"id":"a","x":true}`, `{"id":"a"}`, []Change{{Field: "x", Old: raw(`true`)}}},
		{"nested, in written order", `{"b":{"y":1,"x":1},"a":2}`, `{"b":{"y":2,"x":3},"a":3}`, []Change{
			{Field: "b/y", Old: raw(`1`), New: raw(`2`)},
			{Field: "b/x", Old: raw(`1`), New: raw(`3`)},
			{Field: "a", Old: raw(`2`), New: raw(`3`)},
		}},
		{"arrays of one length, by index", `{"l":[{"n":"a"},{"n":"b"}]}`, `{"l":[{"n":"a"},{"n":"c"}]}`, []Change{{Field: "l/1/n", Old: raw(`"b"`), New: raw(`"c"`)}}},
		{"arrays of two lengths, whole", `{"l":["a"]}`, `{"l":["a","b"]}`, []Change{{Field: "l", Old: raw(`["a"]`), New: raw(`["a","b"]`)}}},
		{"a type change", `{"e":null}`, `{"e":[]}`, []Change{{Field: "e", Old: raw(`null`), New: raw(`[]`)}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var got []Change
			compareValues("", raw(tt.old), raw(tt.new), &got)
			if !reflect.DeepEqual(got, tt.want) {
				t.Errorf("compareValues(%s, %s) = %v, want %v", tt.old, tt.new, got, tt.want)
			}
		})
	}
}

// TestCompareKeysSwapped: two records that swap their slugs keep their ids,
// so neither is an identity break; a slug under a new id whose old id is
// gone is one.
func TestCompareKeysSwapped(t *testing.T) {
	rec := func(id, slug string) record {
		b := json.RawMessage(`{"id":"` + id + `","slug":"` + slug + `","name":"N"}`)
		_, fields := objectFields(b)
		return record{id: id, key: fields["slug"], name: "N", json: b}
	}
	before := collection{"parties", "slug", []record{rec("1", "a"), rec("2", "b")}, compareRecords, false}
	swapped := collection{"parties", "slug", []record{rec("1", "b"), rec("2", "a")}, compareRecords, false}
	if c, w := compareCollection(before, swapped); len(w) != 0 || len(c.Changed) != 2 || len(c.Added)+len(c.Removed) != 0 {
		t.Errorf("swapped slugs: %+v, warnings %+v; want two changes and no warning", c, w)
	}
	renewed := collection{"parties", "slug", []record{rec("1", "a"), rec("3", "b")}, compareRecords, false}
	c, w := compareCollection(before, renewed)
	if len(w) != 1 || w[0].Rule != "identity-break" || w[0].ID != "2" || w[0].NewID != "3" || len(c.Added) != 1 || len(c.Removed) != 1 {
		t.Errorf("slug b under a new id: %+v, warnings %+v; want one identity break from 2 to 3", c, w)
	}
}

// TestManifestDate: published_at is compared as dataset.toml writes it: a
// date as a date, a timestamp whole, and nothing when it is absent.
func TestManifestDate(t *testing.T) {
	tests := []struct {
		name string
		in   time.Time
		want string
	}{
		{"absent", time.Time{}, ""},
		{"a date", time.Date(2026, 1, 15, 0, 0, 0, 0, time.UTC), "2026-01-15"},
		{"a time of day", time.Date(2026, 1, 15, 9, 30, 0, 0, time.UTC), "2026-01-15T09:30:00Z"},
	}
	for _, tt := range tests {
		if got := manifestDate(tt.in); got != tt.want {
			t.Errorf("%s: manifestDate(%v) = %q, want %q", tt.name, tt.in, got, tt.want)
		}
	}
}

// TestManifestElection: [election] is compared key by key, its date as
// dataset.toml writes it, and a manifest without it shows no election.
func TestManifestElection(t *testing.T) {
	none := dataset.Manifest{Title: "T"}
	before := dataset.Manifest{Title: "T", Election: dataset.Election{Slug: "2022", Name: "General election"}}
	after := dataset.Manifest{Title: "T", Election: dataset.Election{Slug: "2022", Name: "General election 2022", Date: dataset.Date{Year: 2022, Month: 3, Day: 26}}}
	if got := string(manifestJSON(none)); bytes.Contains([]byte(got), []byte("election")) {
		t.Errorf("a manifest without [election]: %s, want no election", got)
	}
	var got []Change
	compareValues("", manifestJSON(before), manifestJSON(after), &got)
	want := []Change{
		{Field: "election/name", Old: json.RawMessage(`"General election"`), New: json.RawMessage(`"General election 2022"`)},
		{Field: "election/date", New: json.RawMessage(`"2022-03-26"`)},
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("changes %v, want %v", got, want)
	}
}

// TestManifestElectionDistricts: [election] districts is compared as its
// other keys, and left out when not given, the default.
func TestManifestElectionDistricts(t *testing.T) {
	eight, ten := 8, 10
	var got []Change
	compareValues("", manifestJSON(dataset.Manifest{Election: dataset.Election{Slug: "1921"}}), manifestJSON(dataset.Manifest{Election: dataset.Election{Slug: "1921", Districts: &eight}}), &got)
	compareValues("", manifestJSON(dataset.Manifest{Election: dataset.Election{Districts: &eight}}), manifestJSON(dataset.Manifest{Election: dataset.Election{Districts: &ten}}), &got)
	want := []Change{
		{Field: "election/districts", New: json.RawMessage(`8`)},
		{Field: "election/districts", Old: json.RawMessage(`8`), New: json.RawMessage(`10`)},
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("changes %v, want %v", got, want)
	}
}

// TestObjectFieldsShareInput: a record's values are slices of its JSON, not
// copies, so a diff holds each changed value once.
func TestObjectFieldsShareInput(t *testing.T) {
	v := json.RawMessage(`{"id":"a","localities":[{"name":"X"}],"n":1}`)
	keys, fields := objectFields(v)
	if want := []string{"id", "localities", "n"}; !reflect.DeepEqual(keys, want) {
		t.Fatalf("keys %q, want %q", keys, want)
	}
	for k, want := range map[string]string{"id": `"a"`, "localities": `[{"name":"X"}]`, "n": "1"} {
		got := fields[k]
		if string(got) != want {
			t.Errorf("%s = %s, want %s", k, got, want)
		}
		if &got[0] != &v[bytes.Index(v, []byte(want))] {
			t.Errorf("%s is a copy, not a slice of the record", k)
		}
	}
}

// TestSheetRowsByCandidate: a count sheet's rows are compared by their
// candidate, not their place: rows that only changed places are no
// change, a row's change is named by its candidate's name, two rows of one
// name by name and id, and a count by its number.
func TestSheetRowsByCandidate(t *testing.T) {
	at := func(n int) *int { return &n }
	sheet := func(rows ...dataset.Candidacy) *dataset.CountSheet {
		return &dataset.CountSheet{
			DistrictID: "d", DistrictNumber: 4, Status: dataset.StatusCounting, Seats: 1, ValidVotes: 10, Quota: 6,
			Counts:      []dataset.Count{{Number: 1, Event: dataset.EventFirstPreferences, CandidateIDs: []string{}}},
			Candidacies: rows, Elected: []string{},
		}
	}
	row := func(id, name string, totals ...int) dataset.Candidacy {
		return dataset.Candidacy{CandidateID: id, Name: name, Totals: totals, FirstPreferences: totals[0]}
	}
	compare := func(a, b *dataset.CountSheet) []Change {
		enc := func(sh *dataset.CountSheet) record {
			return record{id: sh.DistrictID, key: json.RawMessage(`4`), json: dataset.EncodeRecord(sh)}
		}
		c, _ := compareCollection(collection{"results", "district_number", []record{enc(a)}, compareSheet, true}, collection{"results", "district_number", []record{enc(b)}, compareSheet, true})
		if len(c.Changed) == 0 {
			return nil
		}
		return c.Changed[0].Changes
	}
	raw := func(s string) json.RawMessage { return json.RawMessage(s) }

	before := sheet(row("a", "Ivan Bartolo", 5), row("b", "Ivan Bartolo", 3), row("c", "Rita Borg", 2))
	reordered := sheet(row("c", "Rita Borg", 2), row("a", "Ivan Bartolo", 5), row("b", "Ivan Bartolo", 3))
	if got := compare(before, reordered); got != nil {
		t.Errorf("rows reordered: %v, want no change", got)
	}

	next := sheet(row("b", "Ivan Bartolo", 3, 0), row("a", "Ivan Bartolo", 5, 6), row("c", "Rita Borg", 2, 4))
	next.Candidacies[0].ExcludedAtCount = at(2)
	next.Candidacies[1].ElectedAtCount = at(2)
	next.Counts = append(next.Counts, dataset.Count{Number: 2, Event: dataset.EventExclusion, CandidateIDs: []string{"b"}, Votes: 3})
	next.Status, next.Elected = dataset.StatusFinal, []string{"a"}
	want := []Change{
		{Field: "status", Old: raw(`"counting"`), New: raw(`"final"`)},
		{Field: "candidacies/Ivan Bartolo (a)/totals", Old: raw(`[5]`), New: raw(`[5,6]`)},
		{Field: "candidacies/Ivan Bartolo (a)/elected_at_count", Old: raw(`null`), New: raw(`2`)},
		{Field: "candidacies/Ivan Bartolo (b)/totals", Old: raw(`[3]`), New: raw(`[3,0]`)},
		{Field: "candidacies/Ivan Bartolo (b)/excluded_at_count", Old: raw(`null`), New: raw(`2`)},
		{Field: "candidacies/Rita Borg/totals", Old: raw(`[2]`), New: raw(`[2,4]`)},
		{Field: "elected", Old: raw(`[]`), New: raw(`["a"]`)},
	}
	got := compare(before, next)
	// The count added, as a whole value under its number, comes after
	// the fields before it in the sheet.
	wantCount := Change{Field: "counts/2", New: raw(`{"number":2,"event":"exclusion","candidate_ids":["b"],"votes":3,"non_transferable":0}`)}
	if i := slices.IndexFunc(got, func(c Change) bool { return c.Field == "counts/2" }); i < 0 || !reflect.DeepEqual(got[i], wantCount) {
		t.Errorf("the count added: %v, want %v", got, wantCount)
	} else {
		got = slices.Delete(got, i, i+1)
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("changes:\n%v\nwant\n%v", got, want)
	}
}

// TestSheetRowsRenamed: a row is its candidate's, whatever its name: a
// renamed row is a change of its name, named by the new one; a name that
// comes to be shared names each of its rows with their ids, and the row
// that did not change shows no change; a "/" in a name is written "~1";
// and a sheet is matched by its district's number, so a district's new
// id is a change of the sheet's district_id.
func TestSheetRowsRenamed(t *testing.T) {
	sheet := func(district string, rows ...dataset.Candidacy) record {
		sh := &dataset.CountSheet{
			DistrictID: district, DistrictNumber: 4, Status: dataset.StatusCounting, Seats: 1, ValidVotes: 10, Quota: 6,
			Counts:      []dataset.Count{{Number: 1, Event: dataset.EventFirstPreferences, CandidateIDs: []string{}}},
			Candidacies: rows, Elected: []string{},
		}
		return record{id: district, key: json.RawMessage(`4`), json: dataset.EncodeRecord(sh)}
	}
	row := func(id, name string, total int) dataset.Candidacy {
		return dataset.Candidacy{CandidateID: id, Name: name, Totals: []int{total}, FirstPreferences: total}
	}
	raw := func(s string) json.RawMessage { return json.RawMessage(s) }
	compare := func(a, b record) Collection {
		c, w := compareCollection(collection{"results", "district_number", []record{a}, compareSheet, true}, collection{"results", "district_number", []record{b}, compareSheet, true})
		if len(w) != 0 {
			t.Errorf("warnings %v, want none", w)
		}
		return c
	}
	before := sheet("d", row("a", "Tania Gauci", 5), row("b", "Radu Gheorghe", 3), row("c", "Rita Borg", 2))
	tests := []struct {
		name  string
		after record
		want  []Change
	}{
		{"renamed", sheet("d", row("a", "Tania Gauci Fiorini", 5), row("b", "Radu Gheorghe", 3), row("c", "Rita Borg", 2)), []Change{
			{Field: "candidacies/Tania Gauci Fiorini/name", Old: raw(`"Tania Gauci"`), New: raw(`"Tania Gauci Fiorini"`)},
		}},
		{"a name come to be shared", sheet("d", row("a", "Tania Gauci", 5), row("b", "Tania Gauci", 3), row("c", "Rita Borg", 2)), []Change{
			{Field: "candidacies/Tania Gauci (b)/name", Old: raw(`"Radu Gheorghe"`), New: raw(`"Tania Gauci"`)},
		}},
		{"a slash", sheet("d", row("a", "Tania Gauci", 5), row("b", "Radu Gheorghe", 3), row("c", "Rita/Borg~", 2)), []Change{
			{Field: "candidacies/Rita~1Borg~0/name", Old: raw(`"Rita Borg"`), New: raw(`"Rita/Borg~"`)},
		}},
		{"a row added and one removed", sheet("d", row("a", "Tania Gauci", 5), row("e", "Edward Bonello", 3), row("c", "Rita Borg", 2)), []Change{
			{Field: "candidacies/Radu Gheorghe", Old: raw(`{"candidate_id":"b","name":"Radu Gheorghe","party_id":null,"totals":[3],"first_preferences":3,"elected_at_count":null,"excluded_at_count":null}`)},
			{Field: "candidacies/Edward Bonello", New: raw(`{"candidate_id":"e","name":"Edward Bonello","party_id":null,"totals":[3],"first_preferences":3,"elected_at_count":null,"excluded_at_count":null}`)},
		}},
		{"the district's new id", sheet("d2", row("a", "Tania Gauci", 5), row("b", "Radu Gheorghe", 3), row("c", "Rita Borg", 2)), []Change{
			{Field: "district_id", Old: raw(`"d"`), New: raw(`"d2"`)},
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := compare(before, tt.after)
			if len(c.Added)+len(c.Removed) != 0 || len(c.Changed) != 1 {
				t.Fatalf("%d added, %d removed, %d changed; want the one sheet changed", len(c.Added), len(c.Removed), len(c.Changed))
			}
			if got := c.Changed[0].Changes; !reflect.DeepEqual(got, tt.want) {
				t.Errorf("changes:\n%v\nwant\n%v", got, tt.want)
			}
		})
	}
}

// TestEncodeSheet: a sheet made a count and a row at a time is the bytes
// dataset.EncodeRecord makes of it whole, in a buffer of its length: every
// sheet of the embedded dataset, and sheets of no count, no row, nil
// lists (written whole) and a name that JSON escapes.
func TestEncodeSheet(t *testing.T) {
	ds, err := dataset.Default()
	if err != nil {
		t.Fatal(err)
	}
	sheets := slices.Clone(ds.Sheets())
	one := sheets[0]
	noCounts, noRows, nilCounts, nilRows, escaped := one, one, one, one, one
	noCounts.Counts = []dataset.Count{}
	noRows.Candidacies = []dataset.Candidacy{}
	nilCounts.Counts = nil
	nilRows.Candidacies = nil
	escaped.Candidacies = slices.Clone(one.Candidacies)
	escaped.Candidacies[0].Name = "A \"quoted\" <name> & \u2028"
	noBoth := noCounts
	noBoth.Candidacies = []dataset.Candidacy{}
	sheets = append(sheets, noCounts, noRows, nilCounts, nilRows, escaped, noBoth)
	var e dataset.Encoder
	for i := range sheets {
		sh := &sheets[i]
		got, want := encodeSheet(&e, sh), dataset.EncodeRecord(sh)
		if !bytes.Equal(got, want) {
			t.Errorf("sheet %d (district %d, %d counts, %d rows):\n got %.300s\nwant %.300s", i, sh.DistrictNumber, len(sh.Counts), len(sh.Candidacies), got, want)
		}
		if sh.Counts != nil && sh.Candidacies != nil && cap(got) != len(got) { // a nil list's sheet is written whole
			t.Errorf("sheet %d: %d bytes in a buffer of %d", i, len(got), cap(got))
		}
	}
}
