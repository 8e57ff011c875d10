package sheet_test

import (
	"errors"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"ballot/dataset"
	"ballot/dataset/sheet"
)

// FuzzSheet puts any bytes in place of one of the three CSV files of the
// minimal folder, read with the delimiter guessed or given: Import never
// panics; it gives the dataset's four files, or Problems with at least one
// error; every problem names a file and says something, comes in file and
// line order, and every problem of the CSV file put in has a line within
// it, but for the two that are of the file as a whole (an empty file, a
// district without rows). The seed corpus in testdata/fuzz/FuzzSheet holds
// the shapes that broke the reader before: a quote never closed, bytes that
// are not UTF-8, cells separated by ';' or tabs, a byte-order mark and CRLF,
// lines ended by a carriage return alone, letters turned into "?".
func FuzzSheet(f *testing.F) {
	files := []string{sheet.PartiesFile, sheet.DistrictsFile, sheet.CandidatesFile}
	for i, name := range files {
		f.Add(uint8(i), uint8(0), []byte(minimal()[name]))
	}
	f.Add(uint8(2), uint8(2), []byte(strings.ReplaceAll(strings.ReplaceAll(candidatesCSV, "5;6", `"5;6"`), ",", ";")))
	f.Add(uint8(0), uint8(0), []byte("slug,name,short_name\npl,\"Partit Laburista,PL\n"))
	f.Add(uint8(1), uint8(0), []byte("number,locality\n1,Mellie\xb1a\n"))
	f.Fuzz(func(t *testing.T, which, delim uint8, data []byte) {
		name := files[int(which)%len(files)]
		var opts sheet.Options
		if d := int(delim) % (len(sheet.Delimiters) + 1); d > 0 {
			opts.Delimiter = sheet.Delimiters[d-1]
		}
		res, err := sheet.ImportWith(minimal().with(name, string(data)).fs(), opts)
		if err == nil {
			if len(res.Files) != 4 || res.Problems.Errors() != 0 {
				t.Fatalf("no error, %d files and %d errors; want the 4 files and none", len(res.Files), res.Problems.Errors())
			}
		} else {
			var problems sheet.Problems
			if !errors.As(err, &problems) || problems.Errors() == 0 || res.Files != nil {
				t.Fatalf("error %v (%T) beside %d files, want Problems with errors and no files", err, err, len(res.Files))
			}
		}
		lines := lineCount(data)
		for i, p := range res.Problems {
			if p.File == "" || p.Message == "" || p.Line < 0 || p.Char < 0 {
				t.Fatalf("a problem without file or message, or at a negative place: %+v", p)
			}
			if i > 0 && order(res.Problems[i-1]) > order(p) {
				t.Fatalf("%q comes before %q", res.Problems[i-1], p)
			}
			if p.File != name {
				continue
			}
			wholeFile := p.Message == "is empty: it needs a header row" || strings.HasSuffix(p.Message, "(or one row with the locality empty, where they are not given)")
			if p.Line == 0 && !wholeFile || p.Line > lines {
				t.Fatalf("%q is not at a line of the %d of %s", p, lines, name)
			}
		}
		for _, r := range res.Read {
			if !slices.Contains(sheet.Delimiters, r.Delimiter) || r.Guessed != (opts.Delimiter == 0) {
				t.Fatalf("%s read with %q, guessed %v; want one of %q, guessed when none is given", r.File, r.Delimiter, r.Guessed, sheet.Delimiters)
			}
		}
	})
}

// lineCount is how many lines data has at most: each line feed ends one,
// and so does a carriage return no line feed follows, in a file whose
// header row ends so.
func lineCount(data []byte) int {
	return strings.Count(string(data), "\n") + strings.Count(string(data), "\r") - strings.Count(string(data), "\r\n") + 1
}

// order ranks a problem by its file and line.
func order(p dataset.Problem) int {
	rank := slices.Index([]string{dataset.ManifestFile, sheet.PartiesFile, sheet.DistrictsFile, sheet.CandidatesFile}, p.File)
	if rank < 0 {
		rank = 4
	}
	return rank<<32 | p.Line
}

// FuzzCounts puts any bytes in place of counts.csv or district_totals.csv
// of testdata/counts, read with the delimiter guessed or given: Import
// never panics; it gives the dataset's five files, or Problems with at
// least one error; every problem names a file and says something, comes in
// file and line order, and every problem of the file put in has a line
// within it, but for those of the file as a whole (an empty file).
func FuzzCounts(f *testing.F) {
	files := []string{sheet.CountsFile, sheet.DistrictTotalsFile}
	base := dataset.Files{}
	for _, name := range []string{dataset.ManifestFile, sheet.PartiesFile, sheet.DistrictsFile, sheet.CandidatesFile, sheet.CountsFile, sheet.DistrictTotalsFile} {
		b, err := os.ReadFile(filepath.Join("testdata", "counts", name))
		if err != nil {
			f.Fatal(err)
		}
		base[name] = b
	}
	for i, name := range files {
		f.Add(uint8(i), uint8(0), base[name])
	}
	f.Add(uint8(0), uint8(2), []byte(strings.ReplaceAll(string(base[sheet.CountsFile]), ",", ";")))
	f.Add(uint8(0), uint8(0), []byte("\uFEFFdistrict,name,party,candidate,count_1,count_2\r\n4,\"Chris Fearne,PL,,6770,3752\r\n"))
	f.Add(uint8(1), uint8(0), []byte("district,valid_votes,quota,seats,status\n4,22506,3752,5,counting\n4,x,,-1,\n"))
	f.Fuzz(func(t *testing.T, which, delim uint8, data []byte) {
		name := files[int(which)%len(files)]
		var opts sheet.Options
		if d := int(delim) % (len(sheet.Delimiters) + 1); d > 0 {
			opts.Delimiter = sheet.Delimiters[d-1]
		}
		src := maps.Clone(base)
		src[name] = data
		res, err := sheet.ImportWith(src, opts)
		if err == nil {
			if len(res.Files) != 5 || res.Problems.Errors() != 0 {
				t.Fatalf("no error, %d files and %d errors; want the 5 files and none", len(res.Files), res.Problems.Errors())
			}
		} else {
			var problems sheet.Problems
			if !errors.As(err, &problems) || problems.Errors() == 0 || res.Files != nil {
				t.Fatalf("error %v (%T) beside %d files, want Problems with errors and no files", err, err, len(res.Files))
			}
		}
		rank := func(p dataset.Problem) int {
			r := slices.Index([]string{dataset.ManifestFile, sheet.PartiesFile, sheet.DistrictsFile, sheet.CandidatesFile, sheet.CountsFile, sheet.DistrictTotalsFile}, p.File)
			if r < 0 {
				r = 6
			}
			return r<<32 | p.Line
		}
		lines := lineCount(data)
		for i, p := range res.Problems {
			if p.File == "" || p.Message == "" || p.Line < 0 || p.Char < 0 {
				t.Fatalf("a problem without file or message, or at a negative place: %+v", p)
			}
			if i > 0 && rank(res.Problems[i-1]) > rank(p) {
				t.Fatalf("%q comes before %q", res.Problems[i-1], p)
			}
			if p.File == name && (p.Line == 0 && p.Message != "is empty: it needs a header row" || p.Line > lines) {
				t.Fatalf("%q is not at a line of the %d of %s", p, lines, name)
			}
		}
	})
}
