package sheet_test

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"ballot/dataset"
	"ballot/dataset/sheet"
	"ballot/internal/datasettest"
)

// shapeFolder is the sheets of an election of another shape, from
// testdata/shapes: datasettest.Eight, Ten or Two.
func shapeFolder(t *testing.T, name string) sheets {
	t.Helper()
	s := sheets{}
	for _, file := range []string{dataset.ManifestFile, sheet.PartiesFile, sheet.DistrictsFile, sheet.CandidatesFile, sheet.CountsFile, sheet.DistrictTotalsFile} {
		b, err := os.ReadFile(filepath.Join("testdata", "shapes", name, file))
		if err != nil {
			t.Fatal(err)
		}
		s[file] = string(b)
	}
	return s
}

// TestImportShapes: the sheets of elections of 8 districts of 4 seats, 10
// of 5 and 6, and 2 of 5, as [election] districts says, import to the
// datasets of datasettest.Shape, byte for byte: districts.csv's rows
// without a locality give their district's name, seats and note, and a
// district whose row gives no seats takes its count sheet's when the
// dataset loads. The districts of 8 list no localities, a warning at each
// district's row.
func TestImportShapes(t *testing.T) {
	tests := []struct {
		name     string
		warnings string
	}{
		{datasettest.Eight, `districts.csv:2: locality: warning: district 1 has no localities: its record says so in its note
districts.csv:3: locality: warning: district 2 has no localities: its record says so in its note
districts.csv:4: locality: warning: district 3 has no localities, and no note: say in its note why they are not given ("No locality list is given for the districts of 1950")
districts.csv:5: locality: warning: district 4 has no localities: its record says so in its note
districts.csv:6: locality: warning: district 5 has no localities: its record says so in its note
districts.csv:7: locality: warning: district 6 has no localities: its record says so in its note
districts.csv:8: locality: warning: district 7 has no localities: its record says so in its note
districts.csv:9: locality: warning: district 8 has no localities: its record says so in its note`},
		{datasettest.Ten, ""},
		{datasettest.Two, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res, err := sheet.ImportWith(shapeFolder(t, tt.name).fs(), sheet.Options{})
			if err != nil {
				t.Fatalf("Import: %v", err)
			}
			if got := res.Problems.Error(); got != tt.warnings {
				t.Errorf("warnings\n%s\nwant\n%s", got, tt.warnings)
			}
			for _, file := range dataset.FileNames() {
				golden(t, filepath.Join("..", "..", "internal", "datasettest", "shapes", tt.name, file), res.Files[file])
			}
		})
	}
}

// TestImportShapeProblems: the numbers of districts.csv, candidates.csv,
// the count sheets and ties.csv are 1 to [election] districts; a row
// without a locality gives its district's own columns alone, once; a
// district's seats agree with its count sheet's.
func TestImportShapeProblems(t *testing.T) {
	eight := shapeFolder(t, datasettest.Eight)
	ten := shapeFolder(t, datasettest.Ten)
	tests := []struct {
		name string
		src  sheets
		want string
	}{
		{"district 9 of 8", eight.with(sheet.DistrictsFile, eight[sheet.DistrictsFile]+"9,,Distrett 9,4,\n"),
			`districts.csv:10: number: district "9" is not a number from 1 to 8`},
		{"a candidate in district 9 of 8", eight.with(sheet.CandidatesFile, setCell(eight[sheet.CandidatesFile], 2, 4, "9")),
			`candidates.csv:2: districts: district "9" is not a number from 1 to 8`},
		{"a count sheet of district 9 of 8", eight.with(sheet.DistrictTotalsFile, eight[sheet.DistrictTotalsFile]+"9,100,90,19,4,1\n"),
			`district_totals.csv:10: district: district "9" is not a number from 1 to 8`},
		{"district 8 missing", eight.with(sheet.DistrictsFile, strings.TrimSuffix(eight[sheet.DistrictsFile], "8,,Distrett 8,,No locality list is given for the districts of this election\n")),
			"districts.csv: number: district 8 has no rows: each of the 8 districts needs a row for each of its localities (or one row with the locality empty, where they are not given)"},
		{"a locality's columns on a row without one", eight.with(sheet.DistrictsFile, withColumn(eight[sheet.DistrictsFile], "locality_slug", 2, "belt")),
			"districts.csv:2: locality_slug: is a locality's, and the row names no locality: a row with the locality empty gives its district's own columns alone (district_name, seats, note, source_url, id)"},
		{"a district's row given twice", eight.with(sheet.DistrictsFile, eight[sheet.DistrictsFile]+"2,,Distrett 2,,\n"),
			"districts.csv:10: locality: is empty, and district 2 has a row without a locality already, on line 3: give its own columns on one row"},
		{"an empty locality among localities", ten.with(sheet.DistrictsFile, ten[sheet.DistrictsFile]+"2,,Distrett 2,,\n"),
			"districts.csv:22: locality: must not be empty"},
		{"seats the count sheet does not fill", eight.with(sheet.DistrictsFile, setCell(eight[sheet.DistrictsFile], 2, 4, "5")),
			"district_totals.csv:2: seats: district 1: the sheet fills 4 seats, and the district elects 5 (districts.csv line 2): the two must agree"},
		{"no seats", eight.with(sheet.DistrictsFile, setCell(eight[sheet.DistrictsFile], 2, 4, "0")),
			"districts.csv:2: seats: is 0; must be 1 or more"},
		{"seats not a number", eight.with(sheet.DistrictsFile, setCell(eight[sheet.DistrictsFile], 2, 4, "four")),
			`districts.csv:2: seats: "four" is not a whole number of votes: write digits only, such as 1234`},
		{"a number of districts refused", eight.with(dataset.ManifestFile, strings.Replace(eight[dataset.ManifestFile], "districts = 8", "districts = 40", 1)),
			"dataset.toml: election.districts: is 40; must be a number of districts from 1 to 31"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := importProblems(t, tt.src.fs()); got != tt.want {
				t.Errorf("report\n%s\nwant\n%s", got, tt.want)
			}
		})
	}
}

// withColumn returns a CSV text without quotes with a column added, empty
// but on line (from 1), where it holds value.
func withColumn(text, column string, line int, value string) string {
	lines := strings.Split(strings.TrimSuffix(text, "\n"), "\n")
	lines[0] += "," + column
	for i := 1; i < len(lines); i++ {
		lines[i] += ","
		if i == line-1 {
			lines[i] += value
		}
	}
	return strings.Join(lines, "\n") + "\n"
}

// TestImportMoreDistrictsThanToday: an election of 20 districts, more
// than today's 13, imports with each numbered 1 to 20, its sheets read
// at those numbers.
func TestImportMoreDistrictsThanToday(t *testing.T) {
	src := shapeFolder(t, datasettest.Eight)
	src[dataset.ManifestFile] = strings.Replace(src[dataset.ManifestFile], "districts = 8", "districts = 20", 1)
	for n := 9; n <= 20; n++ {
		src[sheet.DistrictsFile] += fmt.Sprintf("%d,,Distrett %d,5,No locality list is given\n", n, n)
	}
	src[sheet.CandidatesFile] += "Ġużeppi,Borg,UPM,20,no\n"
	res, err := sheet.ImportWith(src.fs(), sheet.Options{})
	if err != nil {
		t.Fatalf("Import: %v", err)
	}
	var districts []dataset.District
	if err := json.Unmarshal(res.Files[dataset.DistrictsFile], &districts); err != nil {
		t.Fatal(err)
	}
	if len(districts) != 20 || districts[19].Number != 20 || *districts[19].Seats != 5 {
		t.Fatalf("%d districts, the last %+v", len(districts), districts[len(districts)-1])
	}
	candidates := decode[[]dataset.Candidate](t, res.Files, dataset.CandidatesFile)
	if last := candidates[len(candidates)-1]; last.PrimaryDistrictID != districts[19].ID {
		t.Errorf("Ġużeppi Borg stands in %s, want district 20's %s", last.PrimaryDistrictID, districts[19].ID)
	}
	if got := strings.Count(res.Problems.Error(), "has no candidates"); got != 11 {
		t.Errorf("%d warnings of a district without candidates, want 11 (9 to 19):\n%s", got, res.Problems.Error())
	}
}
