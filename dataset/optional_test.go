package dataset_test

import (
	"slices"
	"strings"
	"testing"

	"ballot/dataset"
	"ballot/internal/datasettest"
)

// TestOptionalFieldsMayBeLeftOut: a dataset whose records carry only the
// required fields loads, and every optional field is served as null (a
// locality's split as false), so each record of a type has the same keys.
func TestOptionalFieldsMayBeLeftOut(t *testing.T) {
	m := datasettest.Files(t)
	keep := func(keys ...string) func([]map[string]any) []map[string]any {
		return func(rs []map[string]any) []map[string]any {
			for _, r := range rs {
				for k := range r {
					if !slices.Contains(keys, k) {
						delete(r, k)
					}
				}
				if locs, ok := r["localities"].([]any); ok {
					for _, l := range locs {
						loc := l.(map[string]any)
						delete(loc, "name_en")
						delete(loc, "split")
						delete(loc, "note")
					}
				}
			}
			return rs
		}
	}
	datasettest.Edit(t, m, dataset.PartiesFile, keep("id", "slug", "name", "short_name"))
	datasettest.Edit(t, m, dataset.DistrictsFile, keep("id", "number", "name", "localities"))
	datasettest.Edit(t, m, dataset.CandidatesFile, keep("id", "slug", "name", "given_name", "family_name", "party_id", "primary_district_id", "district_ids"))
	// Beside count sheets, a candidate elected at a count must say so:
	// counts.json's own optional fields are TestCountSheetDerivedFieldsOptional's.
	delete(m, dataset.CountsFile)
	ds, err := dataset.Load(m)
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name string
		got  []byte
		want string
	}{
		{"party", dataset.EncodeJSON(ds.Parties()[0]), `{"id":"a2207904-8b5f-5135-9321-5a3721b07366","slug":"abba","name":"ABBA","short_name":"ABBA","name_en":null,"color":null,"website":null,"leader_name":null,"logo_url":null,"wikipedia_url":null}` + "\n"},
		{"locality", dataset.EncodeJSON(ds.Districts()[0].Localities[0]), `{"name":"Valletta","slug":"valletta","name_en":null,"split":false,"note":null}` + "\n"},
		{"district", dataset.EncodeJSON(ds.Districts()[0].SourceURL), "null\n"},
	}
	for _, tt := range tests {
		if string(tt.got) != tt.want {
			t.Errorf("%s:\n got %s\nwant %s", tt.name, tt.got, tt.want)
		}
	}
	c := ds.Candidates()[0]
	if c.Elected != nil || c.IsIncumbent != nil || c.Website != nil || c.PhotoURL != nil {
		t.Errorf("candidate's absent optional fields are not null: %+v", c)
	}
}

// TestDefectiveRecordStillChecked: a record with a missing required field
// still has its other fields checked, so a bad colour in the same record is
// reported in the same run, and the missing field's message offers null only
// where null is allowed.
func TestDefectiveRecordStillChecked(t *testing.T) {
	m := datasettest.Files(t)
	datasettest.Edit(t, m, dataset.PartiesFile, func(rs []map[string]any) []map[string]any {
		delete(rs[0], "name")
		rs[0]["color"] = "#CC0000"
		rs[0]["logo_url"] = "logo.png"
		return rs
	})
	datasettest.Edit(t, m, dataset.CandidatesFile, func(rs []map[string]any) []map[string]any {
		delete(rs[3], "party_id")
		rs[3]["slug"] = "Not A Slug"
		return rs
	})
	_, err := dataset.Load(m)
	const want = `dataset is invalid: 5 errors
parties.json: /0/name: required field "name" is missing
candidates.json: /3/party_id: required field "party_id" is missing (use null for an independent)
parties.json: /0/color: "#CC0000" is not a colour of the form #rrggbb (lower-case hex)
parties.json: /0/logo_url: "logo.png" is not an absolute http or https URL: it is relative (write the whole URL, beginning https://)
candidates.json: /3/slug: "Not A Slug" is not a slug (lower-case ASCII letters and digits joined by single hyphens)`
	if err == nil || err.Error() != want {
		t.Errorf("got:\n%v\nwant:\n%s", err, want)
	}
}

// TestManifestUnknownKeySuggests: a misspelt key of dataset.toml gets a
// "did you mean", as a misspelt JSON field does.
func TestManifestUnknownKeySuggests(t *testing.T) {
	m := datasettest.Files(t)
	m[dataset.ManifestFile].Data = []byte(strings.Replace(string(m[dataset.ManifestFile].Data), "license_url =", "licence_url =", 1))
	_, err := dataset.Load(m)
	const want = "dataset is invalid: 1 error\n" + `dataset.toml: licence_url: unknown key "licence_url" (did you mean "license_url"?)`
	if err == nil || err.Error() != want {
		t.Errorf("got:\n%v\nwant:\n%s", err, want)
	}
}
