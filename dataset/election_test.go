package dataset_test

import (
	"errors"
	"strconv"
	"strings"
	"testing"
	"testing/fstest"

	"ballot/dataset"
	"ballot/internal/datasettest"
)

// TestPersonRules holds each rule of a candidate's person_id to its
// message: the form of the id, and one person per candidate within one
// election whatever the names.
func TestPersonRules(t *testing.T) {
	const person = "5b0e9a4c-7d1e-5c2a-9f3b-2d6e8a1c4f70"
	tests := []struct {
		name string
		edit func(rs []map[string]any)
		want string
	}{
		{"not a UUID", func(rs []map[string]any) { rs[0]["person_id"] = "robert-abela" },
			`candidates.json: /0/person_id: "robert-abela" is not a UUID in lower-case canonical form (8-4-4-4-12 hex digits)`},
		{"upper case", func(rs []map[string]any) { rs[0]["person_id"] = strings.ToUpper(person) },
			`candidates.json: /0/person_id: "5B0E9A4C-7D1E-5C2A-9F3B-2D6E8A1C4F70" is not a UUID in lower-case canonical form (8-4-4-4-12 hex digits)`},
		{"two names", func(rs []map[string]any) { rs[0]["person_id"], rs[2]["person_id"] = person, person },
			`candidates.json: /2/person_id: "Anthony Buttigieg" has the person_id of "Sammy Farrugia" at candidates.json#/0/person_id: two candidates with different names are two people; give each a person of their own`},
		{"one name twice", func(rs []map[string]any) {
			rs[0]["person_id"], rs[2]["person_id"] = person, person
			rs[2]["name"] = "SAMMY FARRUGIA" // the same name, folded
		},
			`candidates.json: /2/person_id: "SAMMY FARRUGIA" has the person_id of another "Sammy Farrugia" at candidates.json#/0/person_id: a person is one candidate in an election, whatever districts they contest; list them once, or give each of two people of that name a person of their own`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m := datasettest.Files(t)
			datasettest.Edit(t, m, dataset.CandidatesFile, func(rs []map[string]any) []map[string]any { tt.edit(rs); return rs })
			_, err := dataset.Load(m)
			want := "dataset is invalid: 1 error\n" + tt.want
			if err == nil || err.Error() != want {
				t.Errorf("got:\n%v\nwant:\n%s", err, want)
			}
		})
	}
}

// TestPersonIDServed: a candidate's person_id is optional in the file and
// always served, null when the file gives null or leaves it out.
func TestPersonIDServed(t *testing.T) {
	const person = "5b0e9a4c-7d1e-5c2a-9f3b-2d6e8a1c4f70"
	m := datasettest.Files(t)
	datasettest.Edit(t, m, dataset.CandidatesFile, func(rs []map[string]any) []map[string]any {
		rs[0]["person_id"] = person
		rs[1]["person_id"] = nil
		delete(rs[2], "person_id")
		return rs
	})
	ds, err := dataset.Load(m)
	if err != nil {
		t.Fatal(err)
	}
	i, _ := ds.Lookup(dataset.Candidates, "sammy-farrugia")
	if c := ds.Candidates()[i]; c.PersonID == nil || *c.PersonID != person {
		t.Errorf("Sammy Farrugia's person_id = %v, want %s", c.PersonID, person)
	}
	for _, slug := range []string{"tania-gauci-fiorini", "anthony-buttigieg"} {
		i, _ = ds.Lookup(dataset.Candidates, slug)
		if got := string(dataset.EncodeRecord(ds.Candidates()[i])); !strings.HasSuffix(got, `,"person_id":null}`) {
			t.Errorf("a candidate without person_id is served as %s, want person_id null, last", got)
		}
	}
}

// withElection returns the embedded dataset with table as its
// dataset.toml's [election], last in the file.
func withElection(t *testing.T, table string) fstest.MapFS {
	t.Helper()
	m := datasettest.Files(t)
	datasettest.WithElection(t, m, table)
	return m
}

// TestElectionTable: dataset.toml's [election] is read whole, and each key
// it gives is checked, with its message.
func TestElectionTable(t *testing.T) {
	m := withElection(t, `[election]
slug = "2022"
name = "Elezzjoni Ġenerali 2022"
name_en = "General election 2022"
kind = "general"
date = 2022-03-26
id = "0f8b6f4e-1f2a-5d3c-9b7e-6a5d4c3b2a19"
`)
	ds, err := dataset.Load(m)
	if err != nil {
		t.Fatal(err)
	}
	want := dataset.Election{Slug: "2022", Name: "Elezzjoni Ġenerali 2022", NameEN: "General election 2022", Kind: "general",
		Date: dataset.Date{Year: 2022, Month: 3, Day: 26}, ID: "0f8b6f4e-1f2a-5d3c-9b7e-6a5d4c3b2a19"}
	if got := ds.Manifest.Election; got != want {
		t.Errorf("[election] = %+v, want %+v", got, want)
	}
	if got := ds.Manifest.Election.Date.String(); got != "2022-03-26" {
		t.Errorf("date = %q, want 2022-03-26", got)
	}

	// The date's line: after the file's lines but its own [election], a
	// blank one and [election].
	dateLine := strconv.Itoa(strings.Count(string(withElection(t, "")[dataset.ManifestFile].Data), "\n") + 3)
	tests := []struct{ name, table, want string }{
		{"slug", "[election]\nslug = \"GE 2022\"\n",
			`dataset.toml: election.slug: "GE 2022" is not a slug (lower-case ASCII letters and digits joined by single hyphens)`},
		{"kind", "[election]\nkind = \"General election\"\n",
			`dataset.toml: election.kind: "General election" is not a kind: a word of lower-case ASCII letters and digits, joined by single hyphens ("general", "by-election")`},
		{"blank name", "[election]\nname = \"  \"\n",
			`dataset.toml: election.name: key "election.name" is blank: give the name, or leave the key out`},
		{"id", "[election]\nid = \"2022\"\n",
			`dataset.toml: election.id: "2022" is not a UUID in lower-case canonical form (8-4-4-4-12 hex digits)`},
		{"date in quotes", "[election]\ndate = \"2022-03-26\"\n",
			`dataset.toml:` + dateLine + `:9: must be a date written bare, as date = 2022-03-26 (a TOML local date: no quotes, no time of day)`},
		{"date and time", "[election]\ndate = 2022-03-26T08:00:00Z\n",
			`dataset.toml:` + dateLine + `:8: must be a date written bare, as date = 2022-03-26 (a TOML local date: no quotes, no time of day)`},
		{"unknown key", "[election]\nslgu = \"2022\"\n",
			`dataset.toml: election.slgu: unknown key "election.slgu" (did you mean "election.slug"?)`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := dataset.Load(withElection(t, tt.table))
			var r *dataset.Report
			if !errors.As(err, &r) || len(r.Errors) != 1 || r.Errors[0].String() != tt.want {
				t.Errorf("got:\n%v\nwant the one error:\n%s", err, tt.want)
			}
		})
	}
}
