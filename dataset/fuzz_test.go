package dataset_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"testing/fstest"

	"ballot/dataset"
)

// FuzzLoad puts any bytes in place of one of the four files of a small
// valid dataset (commands/testdata/datasets/valid: 13 districts, a few
// parties and candidates, so that one load takes well under a millisecond):
// the load gives a dataset or a report of problems that each name their
// file, and never panics. The seeds are the four files and every file of the
// broken datasets the command tests use (one for each rule of the loader and
// the checks), all small: the fuzzer minimises each new input it finds, and a
// seed of hundreds of kilobytes kept it minimising for minutes. The corpus in
// testdata/fuzz/FuzzLoad holds the shapes that broke loaders before: a file
// that is not JSON, invalid UTF-8, lone surrogates, controls, duplicate
// keys, deep nesting.
func FuzzLoad(f *testing.F) {
	files := []string{dataset.ManifestFile, dataset.PartiesFile, dataset.DistrictsFile, dataset.CandidatesFile}
	const datasets = "../commands/testdata/datasets"
	read := func(dir, name string) []byte {
		b, err := os.ReadFile(filepath.Join(datasets, dir, name))
		if err != nil && !errors.Is(err, fs.ErrNotExist) {
			f.Fatal(err)
		}
		return b
	}
	base := fstest.MapFS{}
	for i, name := range files {
		base[name] = &fstest.MapFile{Data: read("valid", name)}
		f.Add(uint8(i), base[name].Data)
	}
	dirs, err := os.ReadDir(datasets)
	if err != nil {
		f.Fatal(err)
	}
	for _, d := range dirs {
		for i, name := range files {
			if b := read(d.Name(), name); b != nil && !bytes.Equal(b, base[name].Data) {
				f.Add(uint8(i), b)
			}
		}
	}
	f.Add(uint8(3), []byte(`[{"id":"x","id":"y"}]`))
	f.Add(uint8(1), []byte("[\"\xff\\ud800\u202e\\u0000\"]"))
	f.Add(uint8(0), []byte("title = \"\u202e\"\n"))
	f.Add(uint8(2), []byte(strings.Repeat("[", 20000)))
	f.Fuzz(func(t *testing.T, which uint8, data []byte) {
		m := fstest.MapFS{}
		for name, file := range base {
			m[name] = file
		}
		name := files[int(which)%len(files)]
		m[name] = &fstest.MapFile{Data: data}
		ds, err := dataset.Load(m)
		if err == nil {
			if ds == nil || ds.Version == "" {
				t.Fatal("no error and no dataset")
			}
			return
		}
		var report *dataset.Report
		if !errors.As(err, &report) || len(report.Errors) == 0 {
			t.Fatalf("error %v (%T), want a report with errors", err, err)
		}
		for _, p := range report.Errors {
			if p.File == "" || p.Rule == "" || p.Message == "" {
				t.Fatalf("a problem without file, rule or message: %+v", p)
			}
		}
	})
}

// FuzzCountSheets puts any bytes in place of counts.json beside the 2022
// dataset: the load gives a dataset or a report of problems that each name
// their file, and never panics nor wraps a sum round. The seeds are the
// 13th district's sheet alone (the smallest, 16 counts) and broken copies
// of it.
func FuzzCountSheets(f *testing.F) {
	base := countSheets(f)
	var sheets []json.RawMessage
	if err := json.Unmarshal(base[dataset.CountsFile].Data, &sheets); err != nil {
		f.Fatal(err)
	}
	last := sheets[len(sheets)-1]
	f.Add([]byte("[" + string(last) + "]"))
	f.Add([]byte(`[{"district_id":"x","status":"final","seats":5,"valid_votes":9223372036854775807,"quota":1,"counts":[{"non_transferable":9223372036854775807}],"candidacies":[{"candidate_id":"y","name":"n","totals":[9223372036854775807]}]}]`))
	f.Add([]byte(`[{"district_id":"x","status":"final","seats":0,"valid_votes":0,"quota":0,"counts":[],"candidacies":[]}]`))
	f.Add([]byte(strings.Replace("["+string(last)+"]", "3", "-3", 5)))
	f.Fuzz(func(t *testing.T, data []byte) {
		m := fstest.MapFS{}
		for name, file := range base {
			m[name] = file
		}
		m[dataset.CountsFile] = &fstest.MapFile{Data: data}
		ds, err := dataset.Load(m)
		if err == nil {
			for _, s := range ds.Sheets() {
				if len(s.Counts) == 0 || len(s.Elected) > s.Seats {
					t.Fatalf("a sheet served with %d counts and %d elected of %d seats", len(s.Counts), len(s.Elected), s.Seats)
				}
			}
			return
		}
		var report *dataset.Report
		if !errors.As(err, &report) || len(report.Errors) == 0 {
			t.Fatalf("error %v (%T), want a report with errors", err, err)
		}
		for _, p := range report.Errors {
			if p.File == "" || p.Rule == "" || p.Message == "" {
				t.Fatalf("a problem without file, rule or message: %+v", p)
			}
		}
	})
}
