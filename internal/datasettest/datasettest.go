// Package datasettest is for tests only: the embedded dataset's files as a
// map a test may break, a dataset with the 2022 count sheets (Counts), a
// count sheet of chosen totals in their place (Synthetic), elections of
// other shapes than today's (Shape), and a query's answer as the API
// writes it. The
// tests of dataset, answers, server, server/pages and bench share it. It imports dataset and
// answers; no package but a test imports it.
package datasettest

import (
	"embed"
	"encoding/json"
	"errors"
	"io/fs"
	"slices"
	"strings"
	"sync"
	"testing"
	"testing/fstest"

	"ballot/answers"
	"ballot/dataset"
)

// shapes holds the datasets of Shape, as ballot import writes them from
// dataset/sheet/testdata/shapes (TestImportShapes holds them to it).
//
//go:embed shapes
var shapes embed.FS

// The elections of Shape: synthetic, their names and figures invented,
// each with a count sheet of every district.
const (
	// Eight is 8 districts of 4 seats, as from 1921 to 1932, without
	// localities: every district but 3 says so in its note, and districts
	// 1, 3, 5 and 7 give their seats, the others take their sheet's.
	Eight = "eight"
	// Ten is 10 districts, 1 to 5 of 6 seats and 6 to 10 of 5, as in
	// 1971, each with two localities.
	Ten = "ten"
	// Two is 2 districts of 5 seats, as in 1939 and 1945: Malta and
	// Gozo, each with two localities.
	Two = "two"
)

// Shape is the files of the dataset of an election of another shape:
// Eight, Ten or Two.
func Shape(t testing.TB, name string) fstest.MapFS {
	t.Helper()
	m := fstest.MapFS{}
	for _, file := range dataset.FileNames() {
		b, err := shapes.ReadFile("shapes/" + name + "/" + file)
		if err != nil {
			t.Fatal(err)
		}
		m[file] = &fstest.MapFile{Data: b}
	}
	return m
}

// ShapeDataset is the dataset of Shape(t, name), loaded.
func ShapeDataset(t testing.TB, name string) *dataset.Dataset {
	t.Helper()
	ds, err := dataset.Load(Shape(t, name))
	if err != nil {
		t.Fatalf("loading the %s dataset: %v", name, err)
	}
	return ds
}

// Files copies the embedded dataset into a map the tests can break.
func Files(t testing.TB) fstest.MapFS {
	t.Helper()
	m := fstest.MapFS{}
	for _, name := range dataset.FileNames() {
		b, err := fs.ReadFile(dataset.DefaultFS(), name)
		if name == dataset.CountsFile && errors.Is(err, fs.ErrNotExist) {
			continue
		}
		if err != nil {
			t.Fatal(err)
		}
		m[name] = &fstest.MapFile{Data: b}
	}
	return m
}

// TwoElections copies the embedded archive's two latest elections, 2022
// (current) and 2017, into an archive of their own: the answers of an
// archive small enough to show whole, as the OpenAPI description's
// examples do.
func TwoElections(t testing.TB) fstest.MapFS {
	t.Helper()
	m := fstest.MapFS{"archive.toml": &fstest.MapFile{Data: []byte("elections = [\"malta-2022\", \"malta-2017\"]\ncurrent = \"2022\"\n")}}
	for _, dir := range []string{"malta-2022", "malta-2017"} {
		for _, name := range dataset.FileNames() {
			b, err := fs.ReadFile(dataset.ArchiveFS(), dir+"/"+name)
			if err != nil {
				t.Fatal(err)
			}
			m[dir+"/"+name] = &fstest.MapFile{Data: b}
		}
	}
	return m
}

// CountsFiles is Files, the embedded dataset with its 2022 count sheets;
// without counts.json when sheets is false: the same dataset without its
// count sheets.
func CountsFiles(t testing.TB, sheets bool) fstest.MapFS {
	t.Helper()
	m := Files(t)
	if !sheets {
		delete(m, dataset.CountsFile)
	}
	return m
}

// counts holds the datasets Counts loads, by sheets, once for the test
// binary's life.
var counts sync.Map

// Counts is the dataset of CountsFiles, loaded once.
func Counts(t testing.TB, sheets bool) *dataset.Dataset {
	t.Helper()
	if ds, ok := counts.Load(sheets); ok {
		return ds.(*dataset.Dataset)
	}
	ds, err := dataset.Load(CountsFiles(t, sheets))
	if err != nil {
		t.Fatalf("loading the dataset with count sheets: %v", err)
	}
	actual, _ := counts.LoadOrStore(sheets, ds)
	return actual.(*dataset.Dataset)
}

// Edit decodes the JSON file name of m into generic values, lets change
// alter them and writes them back.
func Edit(t testing.TB, m fstest.MapFS, name string, change func(records []map[string]any) []map[string]any) {
	t.Helper()
	var records []map[string]any
	if err := json.Unmarshal(m[name].Data, &records); err != nil {
		t.Fatal(err)
	}
	b, err := json.Marshal(change(records))
	if err != nil {
		t.Fatal(err)
	}
	m[name] = &fstest.MapFile{Data: b}
}

// Synthetic makes the count sheet of district 5 (the fifth of counts.json)
// a count of seats over the running totals of its first rows, one list a
// row, and 0 at every count for its other rows; nt is the
// non-transferable after each count, and the valid votes and the quota
// follow from them. The sheet keeps only what a Commission's sheet
// prints, so the dataset works out the rest, and every candidate of the
// district is marked elected, so that whom the count elects is no flag's
// concern. It returns the names of the sheet's rows, in order.
func Synthetic(t testing.TB, m fstest.MapFS, seats int, nt []int, rows ...[]int) []string {
	t.Helper()
	var names []string
	var district string
	Edit(t, m, dataset.CountsFile, func(sheets []map[string]any) []map[string]any {
		s := sheets[4]
		district = s["district_id"].(string)
		valid := nt[0]
		for _, r := range rows {
			valid += r[0]
		}
		for _, k := range []string{"district_number", "elected", "ties"} {
			delete(s, k)
		}
		s["seats"], s["valid_votes"], s["quota"], s["registered"] = seats, valid, valid/(seats+1)+1, nil
		counts := make([]any, len(nt))
		for k, n := range nt {
			counts[k] = map[string]any{"non_transferable": n}
		}
		s["counts"] = counts
		for j, row := range s["candidacies"].([]any) {
			r := row.(map[string]any)
			names = append(names, r["name"].(string))
			totals := make([]any, len(nt))
			for k := range totals {
				totals[k] = 0
				if j < len(rows) {
					totals[k] = rows[j][k]
				}
			}
			for _, k := range []string{"party_id", "first_preferences", "elected_at_count", "excluded_at_count"} {
				delete(r, k)
			}
			r["totals"] = totals
		}
		return sheets
	})
	Edit(t, m, dataset.CandidatesFile, func(cs []map[string]any) []map[string]any {
		for _, c := range cs {
			if slices.Contains(c["district_ids"].([]any), any(district)) {
				c["elected"] = true
			}
		}
		return cs
	})
	return names
}

// prepared holds each dataset's answers, prepared once for every test.
var prepared sync.Map

// Answer is res, a result of ds, as the API writes it: ds's answers are
// prepared on the first call and kept for the test binary's life.
func Answer(ds *dataset.Dataset, res dataset.Result) answers.Result {
	a, ok := prepared.Load(ds)
	if !ok {
		a, _ = prepared.LoadOrStore(ds, answers.Prepare(ds))
	}
	return a.(*answers.Answers).Of(res)
}

// WithElection replaces the [election] table of m's dataset.toml with
// table (see ReplaceElection).
func WithElection(t testing.TB, m fstest.MapFS, table string) {
	t.Helper()
	m[dataset.ManifestFile] = &fstest.MapFile{Data: ReplaceElection(m[dataset.ManifestFile].Data, table)}
}

// ReplaceElection returns manifest, a dataset.toml, with its [election]
// table replaced by table, the text of another ("[election]\nslug = …"),
// or removed when table is "": the embedded dataset's manifest has one,
// and TOML refuses a table defined twice, so a test that gives its own
// replaces it. The table is written last, after a blank line.
func ReplaceElection(manifest []byte, table string) []byte {
	var kept []string
	in := false
	for _, line := range strings.SplitAfter(string(manifest), "\n") {
		switch trimmed := strings.TrimSpace(line); {
		case trimmed == "[election]":
			in = true
			continue
		case strings.HasPrefix(trimmed, "["):
			in = false
		}
		if !in {
			kept = append(kept, line)
		}
	}
	b := strings.Join(kept, "")
	if table != "" {
		b += "\n" + table
	}
	return []byte(b)
}
