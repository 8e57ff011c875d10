package dataset_test

import (
	"bytes"
	"slices"
	"strings"
	"testing"
	"testing/fstest"
	"unicode/utf8"

	"ballot/dataset"
	"ballot/internal/datasettest"
)

// TestLoadRefusesHiddenText writes, byte for byte, text that decoding would
// change or that does not display as it is stored, and a key given twice,
// and checks that each is an error at its pointer, with a message that does
// not repeat the text.
func TestLoadRefusesHiddenText(t *testing.T) {
	const (
		firstParty = `"name": "Partit Laburista"`
		firstSlug  = `"slug": "sammy-farrugia"`
		firstName  = `"name": "Sammy Farrugia"`
		firstNote  = `"note": "includes Gwardamanġa"`
		firstLoc   = `"name": "Valletta"`
	)
	tests := []struct {
		name       string
		file, old  string
		new        string
		wantPtr    string
		wantRule   string
		noProblems bool // the change is allowed
	}{
		{"invalid UTF-8 in a name", dataset.PartiesFile, firstParty, "\"name\": \"Partit \xff\xfeLaburista\"", "/0/name", "invalid-utf8", false},
		{"a lone high surrogate", dataset.CandidatesFile, firstName, `"name": "Sammy \ud800Farrugia"`, "/0/name", "lone-surrogate", false},
		{"a lone low surrogate", dataset.CandidatesFile, firstName, `"name": "Sammy \udc00"`, "/0/name", "lone-surrogate", false},
		{"a surrogate pair is a character", dataset.CandidatesFile, firstName, `"name": "Sammy \ud83d\ude00 Farrugia"`, "", "", true},
		{"NUL escaped", dataset.CandidatesFile, firstSlug, `"slug": "sammy\u0000-farrugia"`, "/0/slug", "control-character", false},
		{"a C1 control", dataset.CandidatesFile, firstName, "\"name\": \"Sammy\u0085 Farrugia\"", "/0/name", "control-character", false},
		{"DEL", dataset.CandidatesFile, firstName, "\"name\": \"Sammy\x7f Farrugia\"", "/0/name", "control-character", false},
		{"a tab in a name", dataset.CandidatesFile, firstName, `"name": "Sammy\tFarrugia"`, "/0/name", "control-character", false},
		{"a newline in a locality name", dataset.DistrictsFile, firstLoc, `"name": "Vall\netta"`, "/0/localities/0/name", "control-character", false},
		{"a tab and a newline in a note", dataset.DistrictsFile, firstNote, `"note": "includes\tGwardamanġa\nand more"`, "", "", true},
		{"a form feed in a note", dataset.DistrictsFile, firstNote, `"note": "includes\fGwardamanġa"`, "/0/localities/4/note", "control-character", false},
		{"right-to-left override", dataset.CandidatesFile, firstName, "\"name\": \"Sammy \u202eaigurraF\"", "/0/name", "bidi-control", false},
		{"right-to-left override escaped", dataset.CandidatesFile, firstName, `"name": "Sammy \u202EaigurraF"`, "/0/name", "bidi-control", false},
		{"a first-strong isolate in a note", dataset.DistrictsFile, firstNote, "\"note\": \"includes \u2068Gwardamanġa\"", "/0/localities/4/note", "bidi-control", false},
		{"a left-to-right mark", dataset.PartiesFile, firstParty, "\"name\": \"Partit\u200e Laburista\"", "/0/name", "bidi-control", false},
		{"an Arabic letter mark", dataset.PartiesFile, firstParty, "\"name\": \"Partit\u061c Laburista\"", "/0/name", "bidi-control", false},
		{"a control in a district id", dataset.CandidatesFile, `"district_ids": [
      "e15cb27f-fe38-5006-941a-db985fc8e40c"`, `"district_ids": [
      "e15cb27f-fe38-5006-941a-db985fc8e40c\u0007"`, "/0/district_ids/0", "control-character", false},
		{"a key with a bidi control", dataset.CandidatesFile, firstName, "\"name\": \"Sammy Farrugia\", \"\u202ename\": 1", "/0", "bidi-control", false},
		{"a key given twice", dataset.CandidatesFile, firstName, `"name": "Sammy Farrugia", "name": "<script>x</script>"`, "/0/name", "duplicate-key", false},
		{"a key given twice in a locality", dataset.DistrictsFile, firstLoc, `"name": "Valletta", "slug": "valletta"`, "/0/localities/0/slug", "duplicate-key", false},
		{"a bidi control in the manifest", dataset.ManifestFile, `title = "Malta`, "title = \"\u202eMalta", "title", "bidi-control", false},
		{"a NUL in the manifest", dataset.ManifestFile, `title = "Malta`, `title = "\u0000Malta`, "title", "control-character", false},
		{"a control in a coverage note", dataset.ManifestFile, `notes = [
  "This is`, `notes = [
  "\u001bThis is`, "coverage.notes[0]", "control-character", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m := datasettest.Files(t)
			data := m[tt.file].Data
			if !bytes.Contains(data, []byte(tt.old)) {
				t.Fatalf("%s does not hold %q", tt.file, tt.old)
			}
			m[tt.file] = &fstest.MapFile{Data: bytes.Replace(data, []byte(tt.old), []byte(tt.new), 1)}
			ds, err := dataset.Load(m)
			if tt.noProblems {
				if err != nil {
					t.Fatalf("refused: %v", err)
				}
				if ds.Version == "" {
					t.Fatal("no version")
				}
				return
			}
			report, ok := err.(*dataset.Report)
			if !ok {
				t.Fatalf("error is %T (%v), want *dataset.Report", err, err)
			}
			want := dataset.Problem{File: tt.file, Pointer: tt.wantPtr, Rule: tt.wantRule}
			if !slices.ContainsFunc(report.Errors, func(p dataset.Problem) bool {
				return p.File == want.File && p.Pointer == want.Pointer && p.Rule == want.Rule
			}) {
				t.Errorf("want a problem %+v, got:\n%v", want, report)
			}
			for _, p := range report.Errors {
				if p.Rule == tt.wantRule && (!utf8.ValidString(p.Message) || strings.ContainsAny(p.Message, "\u202e\x00\u2068\u200e\u061c\u0085\x7f\x07\x1b") || strings.Contains(p.Message, "<script>")) {
					t.Errorf("the message repeats the text: %q", p.Message)
				}
			}
		})
	}
}

// TestSyntaxErrorQuotesNoByte: a file that is not JSON (here /etc/passwd's
// shape) is refused with its line and column, and the message does not show
// what the file holds.
func TestSyntaxErrorQuotesNoByte(t *testing.T) {
	tests := []struct {
		name, data string
		line, col  int
		message    string
	}{
		{"text", "root:x:0:0:root:/root:/bin/bash\n", 1, 1, "not JSON: invalid character looking for beginning of value"},
		{"a byte not UTF-8", "[\n  \xff]", 2, 3, "not JSON: invalid character looking for beginning of value"},
		{"after the value", "[]\nsecret", 2, 1, "not JSON: invalid character after top-level value"},
		{"cut short", "[\n  {\"id\": \"x\"", 2, 13, "not JSON: unexpected end of file"},
		{"empty", "", 1, 1, "not JSON: unexpected end of file"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m := datasettest.Files(t)
			m[dataset.CandidatesFile] = &fstest.MapFile{Data: []byte(tt.data)}
			_, err := dataset.Load(m)
			report, ok := err.(*dataset.Report)
			if !ok {
				t.Fatalf("error is %T (%v), want *dataset.Report", err, err)
			}
			want := dataset.Problem{File: dataset.CandidatesFile, Line: tt.line, Char: tt.col, Rule: "json-syntax", Message: tt.message}
			if len(report.Errors) == 0 || report.Errors[0] != want {
				t.Errorf("got:\n%v\nwant the first problem %v", report, want)
			}
		})
	}
}
