package dataset_test

import (
	"slices"
	"strings"
	"testing"
	"testing/fstest"

	"ballot/dataset"
	"ballot/internal/datasettest"
)

// correction states a correction in district 5's sheet: row -1 for none
// (candidate_id null), count 0 for none; from and to as JSON values.
func correction(row, count int, field string, from, to any, evidence string) func(s sheet) {
	return func(s sheet) {
		c := map[string]any{"candidate_id": nil, "count": nil, "field": field, "from": from, "to": to, "evidence": evidence}
		if row >= 0 {
			c["candidate_id"] = s["candidacies"].([]any)[row].(map[string]any)["candidate_id"]
		}
		if count > 0 {
			c["count"] = float64(count)
		}
		s["corrections"] = append(listOf(s["corrections"]), c)
	}
}

// partyOf is the party_id in candidates.json of the candidate of row j of
// district 5's sheet, and the id of a party that is not theirs.
func partyOf(t *testing.T, m fstest.MapFS, j int) (theirs, other any) {
	t.Helper()
	var id any
	editSheet(t, m, func(s sheet) { id = s["candidacies"].([]any)[j].(map[string]any)["candidate_id"] })
	datasettest.Edit(t, m, dataset.CandidatesFile, func(cs []map[string]any) []map[string]any {
		for _, c := range cs {
			if c["id"] == id {
				theirs = c["party_id"]
			}
		}
		for _, c := range cs {
			if p := c["party_id"]; p != nil && p != theirs {
				other = p
			}
		}
		return cs
	})
	return theirs, other
}

// TestCorrections: a sheet states each change the publisher made to the
// figures of its source, with the evidence; validate checks that each
// names a row and a count the sheet has, as its field needs, that the
// sheet holds its to and its from differs, and the served sheet holds
// them as stated. The sheet is TestLastCount's of two seats whose count
// 3 excludes Stefan Zrinzo Azzopardi.
func TestCorrections(t *testing.T) {
	const evidence = "the row falls to 0 a count before its votes are transferred"
	nt, rows := []int{0, 1, 1}, [][]int{{40, 34, 34}, {30, 33, 33}, {18, 19, 22}, {7, 8, 10}, {5, 5, 0}}
	tests := []struct {
		name     string
		edits    func(t *testing.T, m fstest.MapFS) []func(s sheet)
		problems []string
		served   string // the served corrections, as JSON
	}{{
		name: "a total and a non-transferable",
		edits: func(*testing.T, fstest.MapFS) []func(s sheet) {
			return []func(s sheet){correction(2, 2, "total", 0, 19, evidence), correction(-1, 1, "non_transferable", nil, 0, "the cell is empty")}
		},
		served: `[{"candidate_id":"df6fd76a-d356-5cf3-affc-d8f921c66bbd","count":2,"field":"total","from":0,"to":19,"evidence":"the row falls to 0 a count before its votes are transferred"},{"candidate_id":null,"count":1,"field":"non_transferable","from":null,"to":0,"evidence":"the cell is empty"}]`,
	}, {
		name: "a party and a district",
		edits: func(t *testing.T, m fstest.MapFS) []func(s sheet) {
			theirs, other := partyOf(t, m, 0)
			return []func(s sheet){
				correction(0, 0, "party", other, theirs, "the row's party total is the other party's"),
				correction(1, 0, "district", "2008, district 3", 5, "the row's figures are this district's"),
			}
		},
	}, {
		name: "a figure the sheet does not hold",
		edits: func(t *testing.T, m fstest.MapFS) []func(s sheet) {
			theirs, other := partyOf(t, m, 0)
			return []func(s sheet){
				correction(2, 2, "total", 0, 20, evidence), correction(-1, 3, "non_transferable", 0, 2, evidence),
				correction(0, 0, "party", theirs, other, evidence), correction(1, 0, "district", 3, 4, evidence),
				correction(3, 0, "party", "no-such-party", nil, evidence),
			}
		},
		problems: []string{
			"counts.json: /4/corrections/0/to: district 5, count 2: is 20, and Miriam Dalli's total there is 19 [correction]",
			"counts.json: /4/corrections/1/to: district 5, count 3: is 2, and the count's non-transferable is 1 [correction]",
			"counts.json: /4/corrections/2/to: district 5: is \"2bdee7a6-2817-5758-a63d-ccb8b2221dfa\", and Robert Abela's party_id is 3340687a-1cbe-535f-87e7-72791cd00741 [correction]",
			"counts.json: /4/corrections/3/to: is 4, and the sheet is district 5's [correction]",
			"counts.json: /4/corrections/4/to: district 5: is null, and Owen Bonnici's party_id is 3340687a-1cbe-535f-87e7-72791cd00741 [correction]",
			"counts.json: /4/corrections/4/from: district 5: no party has id no-such-party [reference]",
		},
	}, {
		name: "a row or a count where the field has none, or none where it has one",
		edits: func(*testing.T, fstest.MapFS) []func(s sheet) {
			return []func(s sheet){
				correction(-1, 2, "total", 0, 19, evidence), correction(2, 0, "total", 0, 19, evidence),
				correction(2, 2, "non_transferable", 0, 1, evidence), correction(2, 2, "party", nil, nil, evidence),
				correction(2, 9, "total", 0, 19, evidence),
			}
		},
		problems: []string{
			"counts.json: /4/corrections/0/candidate_id: is null; a correction of total names its row [correction]",
			"counts.json: /4/corrections/1/count: is null; a correction of total names its count [correction]",
			"counts.json: /4/corrections/2/candidate_id: is given; a correction of non_transferable names no row: give null [correction]",
			"counts.json: /4/corrections/3/count: is 2; a correction of party names no count: give null [correction]",
			"counts.json: /4/corrections/3/from: is null, as to is; a correction changes the source's figure [correction]",
			"counts.json: /4/corrections/4/count: is 9; must be a count of the sheet, 1 to 3 [range]",
		},
	}, {
		name: "values of another kind, the same figure, no evidence, another field",
		edits: func(*testing.T, fstest.MapFS) []func(s sheet) {
			return []func(s sheet){
				correction(2, 2, "total", "nineteen", -1, evidence), correction(2, 2, "total", 19, 19, evidence),
				correction(2, 2, "total", 0, 19, " "), correction(2, 2, "name", 0, 19, evidence),
				correction(2, 0, "district", nil, "5", evidence), correction(2, 0, "party", 3, true, evidence),
			}
		},
		problems: []string{
			`counts.json: /4/corrections/5/to: must be a whole number, a string or null, not bool [type]`,
			`counts.json: /4/corrections/0/from: is "nineteen"; a correction of total holds a whole number of votes, or null for an empty cell [correction]`,
			"counts.json: /4/corrections/0/to: is -1; a correction of total holds a whole number of votes, the sheet's [correction]",
			"counts.json: /4/corrections/1/from: is 19, as to is; a correction changes the source's figure [correction]",
			"counts.json: /4/corrections/2/evidence: must not be empty: say how the source's figure is known to be wrong [required]",
			`counts.json: /4/corrections/3/field: is "name"; must be "total", "non_transferable", "party" or "district" [correction]`,
			"counts.json: /4/corrections/4/from: is null; a correction of district holds the district's number, or where the source filed the row, in words [correction]",
			`counts.json: /4/corrections/4/to: is "5"; a correction of district holds the number of the sheet's district [correction]`,
			"counts.json: /4/corrections/5/from: is 3; a correction of party holds a party's id, or null for an independent [correction]",
		},
	}, {
		name: "a figure corrected twice, a row not of the sheet",
		edits: func(*testing.T, fstest.MapFS) []func(s sheet) {
			return []func(s sheet){
				correction(2, 2, "total", 0, 19, evidence), correction(2, 2, "total", 1, 19, evidence),
				func(s sheet) {
					correction(2, 2, "total", 0, 19, evidence)(s)
					c := listOf(s["corrections"])
					c[len(c)-1].(map[string]any)["candidate_id"] = "11111111-1111-5111-8111-111111111111"
				},
			}
		},
		problems: []string{
			"counts.json: /4/corrections/1: district 5, count 2: Miriam Dalli's total is corrected already, at /4/corrections/0 [duplicate-key]",
			"counts.json: /4/corrections/2/candidate_id: district 5: no row of the sheet is candidate 11111111-1111-5111-8111-111111111111 [reference]",
		},
	}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m := countSheets(t)
			datasettest.Synthetic(t, m, 2, nt, rows...)
			for _, edit := range tt.edits(t, m) {
				editSheet(t, m, edit)
			}
			errs, warnings, s := outcome(t, m)
			if !slices.Equal(errs, tt.problems) || warnings != nil {
				t.Fatalf("problems:\n%s\nwarnings:\n%s\nwant:\n%s", strings.Join(errs, "\n"), strings.Join(warnings, "\n"), strings.Join(tt.problems, "\n"))
			}
			if s == nil {
				return
			}
			if got := string(dataset.EncodeJSON(s.Corrections)); tt.served != "" && got != tt.served+"\n" {
				t.Errorf("corrections:\n%s\nwant\n%s", got, tt.served)
			}
		})
	}
}

// The sheets as the API serves them, with corrections and defects, load
// back as the same sheets: what the file gives as the API does is checked,
// and accepted; so too who took the seats a sheet that ends too early
// leaves unfilled, as its defect states them and as the sheet elects them.
func TestDefectsServedLoadBack(t *testing.T) {
	tests := []struct {
		name  string
		nt    []int
		rows  [][]int
		edits []func(s sheet)
		want  string // a part of the served sheets
	}{{
		name:  "a defect and a correction",
		nt:    broken.nt,
		rows:  broken.rows,
		edits: []func(s sheet){defect(2, "count-balance", "one vote too many"), correction(2, 2, "total", 19, 20, "the transcription's figure")},
		want:  `"defects":[{"count":2,"rule":"count-balance","message":"count 2: the totals add up to 101, and the valid votes are 100","note":"one vote too many","elected":[]}]`,
	}, {
		name:  "who took the seat left unfilled, as published",
		nt:    early.nt,
		rows:  early.rows,
		edits: []func(s sheet){defect(0, "elected-seats", "the transcription ends at count 3"), electedAs("Owen Bonnici")},
		want:  `"note":"the transcription ends at count 3","elected":["`,
	}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m := countSheets(t)
			datasettest.Synthetic(t, m, 2, tt.nt, tt.rows...)
			for _, edit := range tt.edits {
				editSheet(t, m, edit)
			}
			ds, err := dataset.Load(m)
			if err != nil {
				t.Fatal(err)
			}
			served := dataset.EncodeJSON(ds.Sheets())
			if !strings.Contains(string(served), tt.want) {
				t.Fatalf("the served sheets hold no %s", tt.want)
			}
			m[dataset.CountsFile] = &fstest.MapFile{Data: served}
			again, err := dataset.Load(m)
			if err != nil {
				t.Fatal(err)
			}
			if got := dataset.EncodeJSON(again.Sheets()); string(got) != string(served) {
				t.Errorf("the served sheets load as\n%.2000s\nwant\n%.2000s", got, served)
			}
		})
	}
}
