package dataset_test

import (
	"bytes"
	"compress/gzip"
	"encoding/json"
	"fmt"
	"io"
	"slices"
	"strings"
	"testing"
	"testing/fstest"
	"time"

	"ballot/dataset"
	"ballot/internal/datasettest"
)

func TestDefaultDatasetLoads(t *testing.T) {
	ds, err := dataset.Default()
	if err != nil {
		t.Fatal(err)
	}
	if got := [3]int{len(ds.Parties()), len(ds.Districts()), len(ds.Candidates())}; got != [3]int{6, 13, 177} {
		t.Errorf("parties, districts, candidates = %v, want [6 13 177]", got)
	}
	if len(ds.Version) != 64 {
		t.Errorf("Version = %q, want a SHA-256 in hex", ds.Version)
	}
	if ds.Manifest.Publisher.Name == "" || ds.Manifest.Coverage.Summary == "" || ds.Manifest.License == "" {
		t.Errorf("manifest lacks attribution or coverage: %+v", ds.Manifest)
	}
	if !strings.Contains(ds.Manifest.Coverage.Summary, "all 177 candidates") || !strings.Contains(ds.Manifest.Coverage.Summary, "all 78") {
		t.Errorf("coverage summary = %q", ds.Manifest.Coverage.Summary)
	}
}

// TestLoadRefusesBrokenData breaks one rule at a time and checks that the
// loader refuses the dataset, naming the file, the pointer and the rule.
func TestLoadRefusesBrokenData(t *testing.T) {
	first := func(f func(r map[string]any)) func([]map[string]any) []map[string]any {
		return func(rs []map[string]any) []map[string]any { f(rs[0]); return rs }
	}
	tests := []struct {
		name   string
		break_ func(t *testing.T, m fstest.MapFS)
		want   dataset.Problem
	}{
		{"missing file", func(t *testing.T, m fstest.MapFS) { delete(m, dataset.PartiesFile) },
			dataset.Problem{File: "parties.json", Rule: "file-missing"}},
		{"JSON syntax", func(t *testing.T, m fstest.MapFS) {
			m[dataset.PartiesFile] = &fstest.MapFile{Data: []byte("[\n  {\"id\": }\n]")}
		},
			dataset.Problem{File: "parties.json", Line: 2, Char: 10, Rule: "json-syntax"}},
		{"not an array", func(t *testing.T, m fstest.MapFS) {
			m[dataset.PartiesFile] = &fstest.MapFile{Data: []byte(`{"id":"x"}`)}
		},
			dataset.Problem{File: "parties.json", Rule: "type"}},
		{"unknown field", func(t *testing.T, m fstest.MapFS) {
			datasettest.Edit(t, m, dataset.CandidatesFile, func(rs []map[string]any) []map[string]any {
				rs[5]["primary_distrct_id"] = rs[5]["primary_district_id"]
				return rs
			})
		}, dataset.Problem{File: "candidates.json", Pointer: "/5/primary_distrct_id", Rule: "unknown-field"}},
		{"missing field", func(t *testing.T, m fstest.MapFS) {
			datasettest.Edit(t, m, dataset.PartiesFile, first(func(r map[string]any) { delete(r, "short_name") }))
		}, dataset.Problem{File: "parties.json", Pointer: "/0/short_name", Rule: "required"}},
		{"missing party_id", func(t *testing.T, m fstest.MapFS) {
			datasettest.Edit(t, m, dataset.CandidatesFile, first(func(r map[string]any) { delete(r, "party_id") }))
		}, dataset.Problem{File: "candidates.json", Pointer: "/0/party_id", Rule: "required"}},
		{"new optional URL not http", func(t *testing.T, m fstest.MapFS) {
			datasettest.Edit(t, m, dataset.PartiesFile, first(func(r map[string]any) { r["wikipedia_url"] = "en.wikipedia.org/wiki/Malta" }))
		}, dataset.Problem{File: "parties.json", Pointer: "/0/wikipedia_url", Rule: "url"}},
		{"null where a value is required", func(t *testing.T, m fstest.MapFS) {
			datasettest.Edit(t, m, dataset.PartiesFile, first(func(r map[string]any) { r["name"] = nil }))
		}, dataset.Problem{File: "parties.json", Pointer: "/0/name", Rule: "type"}},
		{"wrong type", func(t *testing.T, m fstest.MapFS) {
			datasettest.Edit(t, m, dataset.DistrictsFile, first(func(r map[string]any) { r["number"] = "one" }))
		}, dataset.Problem{File: "districts.json", Pointer: "/0/number", Rule: "type"}},
		{"wrong type in a locality", func(t *testing.T, m fstest.MapFS) {
			datasettest.Edit(t, m, dataset.DistrictsFile, first(func(r map[string]any) { r["localities"].([]any)[1].(map[string]any)["split"] = "no" }))
		}, dataset.Problem{File: "districts.json", Pointer: "/0/localities/1/split", Rule: "type"}},
		{"12 districts", func(t *testing.T, m fstest.MapFS) {
			datasettest.Edit(t, m, dataset.DistrictsFile, func(rs []map[string]any) []map[string]any { return rs[1:] })
		}, dataset.Problem{File: "districts.json", Rule: "district-count"}},
		{"district number repeated", func(t *testing.T, m fstest.MapFS) {
			datasettest.Edit(t, m, dataset.DistrictsFile, func(rs []map[string]any) []map[string]any { rs[1]["number"] = 1; return rs })
		}, dataset.Problem{File: "districts.json", Pointer: "/1/number", Rule: "district-number"}},
		{"district number 14", func(t *testing.T, m fstest.MapFS) {
			datasettest.Edit(t, m, dataset.DistrictsFile, func(rs []map[string]any) []map[string]any { rs[12]["number"] = 14; return rs })
		}, dataset.Problem{File: "districts.json", Pointer: "/12/number", Rule: "district-number"}},
		{"UUID in upper case", func(t *testing.T, m fstest.MapFS) {
			datasettest.Edit(t, m, dataset.PartiesFile, first(func(r map[string]any) { r["id"] = strings.ToUpper(r["id"].(string)) }))
		}, dataset.Problem{File: "parties.json", Pointer: "/0/id", Rule: "uuid"}},
		{"UUID repeated across files", func(t *testing.T, m fstest.MapFS) {
			var parties []map[string]any
			_ = json.Unmarshal(m[dataset.PartiesFile].Data, &parties)
			datasettest.Edit(t, m, dataset.CandidatesFile, first(func(r map[string]any) { r["id"] = parties[2]["id"] }))
		}, dataset.Problem{File: "candidates.json", Pointer: "/0/id", Rule: "uuid-unique"}},
		{"slug repeated", func(t *testing.T, m fstest.MapFS) {
			datasettest.Edit(t, m, dataset.PartiesFile, func(rs []map[string]any) []map[string]any { rs[1]["slug"] = rs[0]["slug"]; return rs })
		}, dataset.Problem{File: "parties.json", Pointer: "/1/slug", Rule: "slug-unique"}},
		{"slug malformed", func(t *testing.T, m fstest.MapFS) {
			datasettest.Edit(t, m, dataset.CandidatesFile, first(func(r map[string]any) { r["slug"] = "Ray Abela" }))
		}, dataset.Problem{File: "candidates.json", Pointer: "/0/slug", Rule: "slug"}},
		{"party that does not exist", func(t *testing.T, m fstest.MapFS) {
			datasettest.Edit(t, m, dataset.CandidatesFile, func(rs []map[string]any) []map[string]any {
				rs[5]["party_id"] = "0b6f0000-0000-4000-8000-000000000000"
				return rs
			})
		}, dataset.Problem{File: "candidates.json", Pointer: "/5/party_id", Rule: "reference"}},
		{"primary district that does not exist", func(t *testing.T, m fstest.MapFS) {
			datasettest.Edit(t, m, dataset.CandidatesFile, first(func(r map[string]any) {
				r["primary_district_id"] = "0b6f0000-0000-4000-8000-000000000000"
			}))
		}, dataset.Problem{File: "candidates.json", Pointer: "/0/primary_district_id", Rule: "reference"}},
		{"primary district not first", func(t *testing.T, m fstest.MapFS) {
			datasettest.Edit(t, m, dataset.CandidatesFile, func(rs []map[string]any) []map[string]any {
				ids := rs[2]["district_ids"].([]any) // Anthony Buttigieg: districts 1 and 10
				rs[2]["district_ids"] = []any{ids[1], ids[0]}
				return rs
			})
		}, dataset.Problem{File: "candidates.json", Pointer: "/2/district_ids/0", Rule: "primary-first"}},
		{"manifest unknown key", func(t *testing.T, m fstest.MapFS) {
			m[dataset.ManifestFile].Data = append(m[dataset.ManifestFile].Data, []byte("\n[extra]\nkey = 1\n")...)
		}, dataset.Problem{File: "dataset.toml", Pointer: "extra", Rule: "unknown-field"}},
		{"manifest without a title", func(t *testing.T, m fstest.MapFS) {
			m[dataset.ManifestFile].Data = []byte(strings.Replace(string(m[dataset.ManifestFile].Data), "title =", "# title =", 1))
		}, dataset.Problem{File: "dataset.toml", Pointer: "title", Rule: "required"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m := datasettest.Files(t)
			tt.break_(t, m)
			ds, err := dataset.Load(m)
			if ds != nil || err == nil {
				t.Fatal("the broken dataset loaded")
			}
			report, ok := err.(*dataset.Report)
			if !ok {
				t.Fatalf("error is %T, want *dataset.Report", err)
			}
			found := slices.ContainsFunc(report.Errors, func(p dataset.Problem) bool {
				return p.File == tt.want.File && p.Pointer == tt.want.Pointer && p.Rule == tt.want.Rule &&
					p.Line == tt.want.Line && p.Char == tt.want.Char && p.Message != ""
			})
			if !found {
				t.Errorf("want a problem %+v, got:\n%v", tt.want, report)
			}
		})
	}
}

// TestReportLines checks the report's text, and that a record with a defect
// does not stop the rules being applied to the others.
func TestReportLines(t *testing.T) {
	m := datasettest.Files(t)
	datasettest.Edit(t, m, dataset.CandidatesFile, func(rs []map[string]any) []map[string]any {
		rs[5]["primary_distrct_id"] = 1
		rs[7]["party_id"] = "0b6f0000-0000-4000-8000-000000000000"
		return rs
	})
	_, err := dataset.Load(m)
	const want = `dataset is invalid: 2 errors
candidates.json: /5/primary_distrct_id: unknown field "primary_distrct_id" (did you mean "primary_district_id"?)
candidates.json: /7/party_id: no party has id 0b6f0000-0000-4000-8000-000000000000`
	if err == nil || err.Error() != want {
		t.Errorf("got:\n%v\nwant:\n%s", err, want)
	}
}

func TestFoldAndSlugify(t *testing.T) {
	tests := []struct{ in, fold, slug string }{
		{"Żebbuġ", "zebbug", "zebbug"},
		{"Ħamrun", "hamrun", "hamrun"},
		{"San Ġiljan", "san giljan", "san-giljan"},
		{"Ta' Xbiex", "ta' xbiex", "ta-xbiex"},
		{"Joseph M. Sammut", "joseph m. sammut", "joseph-m-sammut"},
		{"José Herrera", "jose herrera", "jose-herrera"},
		{"Rebekah-Ann Cilia", "rebekah-ann cilia", "rebekah-ann-cilia"},
		{"  Għargħur  ", "  gћargћur  ", ""},
	}
	for _, tt := range tests[:len(tests)-1] {
		if got := dataset.Fold(tt.in); got != tt.fold {
			t.Errorf("Fold(%q) = %q, want %q", tt.in, got, tt.fold)
		}
		if got := dataset.Slugify(tt.in); got != tt.slug {
			t.Errorf("Slugify(%q) = %q, want %q", tt.in, got, tt.slug)
		}
	}
}

// TestManyParties: a list no limit applies to is answered whole, however
// long it is (600 parties, more than the largest limit).
func TestManyParties(t *testing.T) {
	m := datasettest.Files(t)
	datasettest.Edit(t, m, dataset.PartiesFile, func(rs []map[string]any) []map[string]any {
		for i := range 600 {
			rs = append(rs, map[string]any{
				"id": fmt.Sprintf("00000000-0000-4000-8000-%012d", i), "slug": fmt.Sprintf("extra-%d", i),
				"name": fmt.Sprintf("Extra %d", i), "short_name": "X", "name_en": nil, "color": nil, "website": nil,
			})
		}
		return rs
	})
	ds, err := dataset.Load(m)
	if err != nil {
		t.Fatal(err)
	}
	res, err := ds.Query(dataset.Parties, nil)
	if err != nil || res.Count() != 606 || datasettest.Answer(ds, res).ETag() == "" {
		t.Fatalf("parties: %d records, ETag %q, %v", res.Count(), datasettest.Answer(ds, res).ETag(), err)
	}
	zr, err := gzip.NewReader(bytes.NewReader(datasettest.Answer(ds, res).AppendGzip(nil, time.Now())))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := io.ReadAll(zr); err != nil {
		t.Fatalf("gzip of 606 parties: %v", err)
	}
}
