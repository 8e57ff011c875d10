package dataset_test

import (
	"slices"
	"testing"
	"testing/fstest"

	"ballot/dataset"
	"ballot/internal/datasettest"
)

// countSheets is the embedded dataset, with its 2022 count sheets, to
// break.
func countSheets(t testing.TB) fstest.MapFS { return datasettest.Files(t) }

// TestCheckCountSheetsAfterABrokenSheet: CheckCountSheets, as import runs
// it, counts each sheet after one that does not decode as itself: the
// first sheet's seats of the wrong type are reported, and the second
// elects its own five, at its own rows.
func TestCheckCountSheetsAfterABrokenSheet(t *testing.T) {
	m := countSheets(t)
	var want []int // the rows the second sheet elects
	datasettest.Edit(t, m, dataset.CountsFile, func(sheets []map[string]any) []map[string]any {
		sheets[0]["seats"] = "five"
		for j, row := range sheets[1]["candidacies"].([]any) {
			if row.(map[string]any)["elected_at_count"] != nil {
				want = append(want, j)
			}
		}
		return sheets
	})
	problems, seats := dataset.CheckCountSheets(m[dataset.CountsFile].Data)
	if len(problems) != 1 || problems[0].String() != "counts.json: /0/seats: must be an integer, not string" {
		t.Errorf("problems %v, want the first sheet's seats", problems)
	}
	var got []int
	for _, s := range seats {
		if s.Sheet == 1 {
			got = append(got, s.Row)
		}
	}
	if !slices.Equal(slices.Sorted(slices.Values(got)), want) {
		t.Errorf("the second sheet elects rows %v, want %v", got, want)
	}
}
