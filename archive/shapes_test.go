package archive_test

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"testing/fstest"

	"ballot/archive"
	"ballot/dataset"
	"ballot/internal/datasettest"
)

// shapesTOML lists the elections of shapes: 2022 current, and three of
// other shapes (datasettest.Shape), whose [election] slugs are 1971, 1939
// and 1921.
const shapesTOML = `elections = ["2022", "1971", "1939", "1921"]
current = "2022"
`

// shapes is an archive of the embedded dataset as 2022 and the elections
// of other shapes, each with a change made by edit when given.
func shapes(t *testing.T, manifest string, edit map[string]func(fstest.MapFS)) fstest.MapFS {
	t.Helper()
	elections := map[string]fstest.MapFS{
		"2022": election(t, `slug = "2022"`, `name = "Elezzjoni Ġenerali 2022"`, `date = 2022-03-26`),
		"1971": datasettest.Shape(t, datasettest.Ten),
		"1939": datasettest.Shape(t, datasettest.Two),
		"1921": datasettest.Shape(t, datasettest.Eight),
	}
	for dir, f := range edit {
		f(elections[dir])
	}
	return archiveOf(manifest, elections)
}

// errorLines loads m and returns its errors as validate prints them,
// failing when it loads.
func errorLines(t *testing.T, m fstest.MapFS) []string {
	t.Helper()
	_, err := archive.Load(m)
	var r *dataset.Report
	if !errors.As(err, &r) {
		t.Fatalf("loaded: %v", err)
	}
	var lines []string
	for _, p := range r.Errors {
		lines = append(lines, p.String())
	}
	return lines
}

// localityProblems are the problems of the rule district-localities.
func localityProblems(ps []dataset.Problem) []string {
	var lines []string
	for _, p := range ps {
		if p.Rule == "district-localities" {
			lines = append(lines, p.String())
		}
	}
	return lines
}

// TestShapesInAnArchive: elections of 8, 10 and 2 districts stand beside
// today's 13, each record with its own number of districts and the seats
// they elect; the districts of 1921 list no localities, which a past
// election may, with a warning.
func TestShapesInAnArchive(t *testing.T) {
	a, err := archive.Load(shapes(t, shapesTOML, nil))
	if err != nil {
		t.Fatal(err)
	}
	type shape struct {
		slug             string
		districts, seats int
	}
	var got []shape
	for _, e := range a.Elections() {
		got = append(got, shape{e.Record.Slug, e.Record.Districts, *e.Record.Seats})
	}
	if want := []shape{{"2022", 13, 65}, {"1971", 10, 55}, {"1939", 2, 10}, {"1921", 8, 32}}; !slices.Equal(got, want) {
		t.Errorf("elections %v, want %v", got, want)
	}
	var want []string
	for n := 1; n <= 8; n++ {
		if n == 3 {
			want = append(want, `1921/districts.json: /2/localities: warning: district 3 has no localities, and no note: say in its note why they are not given ("No locality list is given for the districts of 1950")`)
			continue
		}
		want = append(want, fmt.Sprintf("1921/districts.json: /%d/localities: warning: district %d has no localities: its record says so in its note", n-1, n))
	}
	for i := range a.Warnings {
		a.Warnings[i].Warning = true
	}
	if got := localityProblems(a.Warnings); !slices.Equal(got, want) {
		t.Errorf("warnings\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}

	// Without its count sheets, half of 1921's districts say how many
	// seats they elect: the election's seats are not known.
	a, err = archive.Load(shapes(t, shapesTOML, map[string]func(fstest.MapFS){"1921": func(m fstest.MapFS) { delete(m, dataset.CountsFile) }}))
	if err != nil {
		t.Fatal(err)
	}
	if e, _ := a.Election("1921"); e.Record.Seats != nil {
		t.Errorf("1921 without count sheets: %d seats, want null", *e.Record.Seats)
	}
}

// TestCurrentElectionLocalities: a district without localities is an
// error in the current election (here, 1921 made current, or today's 2022
// with district 5's emptied) and a warning in a past one (2022 past); a
// dataset on its own is the current election of its archive of one.
func TestCurrentElectionLocalities(t *testing.T) {
	const current = "every district of the current election (and of a dataset served alone) lists its localities; only a past election of an archive may leave them out, saying why in the district's note"
	got := errorLines(t, shapes(t, strings.Replace(shapesTOML, `"2022"`+"\n", `"1921"`+"\n", 1), nil))
	if len(got) != 8 || got[1] != "1921/districts.json: /1/localities: district 2 has no localities: "+current {
		t.Errorf("1921 current: errors\n%s", strings.Join(got, "\n"))
	}

	empty5 := func(m fstest.MapFS) {
		datasettest.Edit(t, m, dataset.DistrictsFile, func(rs []map[string]any) []map[string]any {
			rs[4]["localities"] = []any{}
			return rs
		})
	}
	got = errorLines(t, shapes(t, shapesTOML, map[string]func(fstest.MapFS){"2022": empty5}))
	if want := []string{"2022/districts.json: /4/localities: district 5 has no localities: " + current}; !slices.Equal(got, want) {
		t.Errorf("2022 current, district 5 empty: errors\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	a, err := archive.Load(shapes(t, strings.Replace(shapesTOML, `"2022"`+"\n", `"1971"`+"\n", 1), map[string]func(fstest.MapFS){"2022": empty5}))
	if err != nil {
		t.Fatalf("2022 past, district 5 empty: %v", err)
	}
	got = localityProblems(a.Warnings)
	if len(got) != 9 || got[0] != `2022/districts.json: /4/localities: district 5 has no localities, and no note: say in its note why they are not given ("No locality list is given for the districts of 1950")` {
		t.Errorf("2022 past, district 5 empty: warnings\n%s", strings.Join(got, "\n"))
	}

	// Alone, loaded or checked on disk.
	alone := datasettest.Shape(t, datasettest.Eight)
	if got := errorLines(t, alone); len(got) != 8 || got[0] != "districts.json: /0/localities: district 1 has no localities: "+current {
		t.Errorf("1921 alone: errors\n%s", strings.Join(got, "\n"))
	}
	dir := t.TempDir()
	for name, f := range alone {
		if err := os.WriteFile(filepath.Join(dir, name), f.Data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	_, err = archive.CheckDirContext(t.Context(), dir, dataset.Options{})
	var r *dataset.Report
	if !errors.As(err, &r) || len(r.Errors) != 8 {
		t.Errorf("1921 alone on disk: %v", err)
	}
}
