package answers_test

import (
	"strings"
	"testing"

	"ballot/answers"
	"ballot/dataset"
	"ballot/internal/datasettest"
)

// TestDownloadNeutralisesFormulas: a value a spreadsheet would run as a
// formula is written with a leading "'" in every column it reaches, the
// party's name in a candidate's row included.
func TestDownloadNeutralisesFormulas(t *testing.T) {
	m := datasettest.Files(t)
	datasettest.Edit(t, m, dataset.PartiesFile, func(rs []map[string]any) []map[string]any {
		for _, r := range rs {
			if r["slug"] == "abba" {
				r["name"], r["short_name"] = `=HYPERLINK("http://evil.example","ABBA")`, "+ABBA"
			}
		}
		return rs
	})
	datasettest.Edit(t, m, dataset.CandidatesFile, func(rs []map[string]any) []map[string]any {
		for _, r := range rs {
			if r["slug"] == "sammy-farrugia" {
				r["name"], r["given_name"], r["family_name"] = "@Sammy -Farrugia", "@Sammy", "-Farrugia"
			}
		}
		return rs
	})
	ds, err := dataset.Load(m)
	if err != nil {
		t.Fatal(err)
	}
	parties, err := ds.Rows(dataset.Parties, nil)
	if err != nil {
		t.Fatal(err)
	}
	want := "\uFEFFName,Short name,Name in English,Leader,Website,Wikipedia,Logo,Colour,Slug,ID\r\n" +
		`"'=HYPERLINK(""http://evil.example"",""ABBA"")",'+ABBA,,,https://abba.com.mt,,,,abba,a2207904-8b5f-5135-9321-5a3721b07366` + "\r\n"
	if got := string(answers.NewDownload(ds, parties).AppendCSV(nil)); !strings.HasPrefix(got, want) {
		t.Errorf("parties.csv begins\n%q\nwant\n%q", got[:min(len(got), len(want))], want)
	}
	cands, err := ds.Rows(dataset.Candidates, dataset.Params{"q": {"sammy"}})
	if err != nil || cands.Count() != 1 {
		t.Fatalf("q=sammy: %d rows, %v", cands.Count(), err)
	}
	want = "\uFEFFName,Given name,Family name,Party,Primary district,Districts stood in,Elected,Incumbent,Website,Photo,Slug,ID,Party ID,Primary district ID,District IDs\r\n" +
		`'@Sammy -Farrugia,'@Sammy,'-Farrugia,"'=HYPERLINK(""http://evil.example"",""ABBA"")",1,1; 10,no,,,,sammy-farrugia,` +
		"6274388c-1444-5aaa-b0f9-b70c6f2cf4eb,a2207904-8b5f-5135-9321-5a3721b07366,e15cb27f-fe38-5006-941a-db985fc8e40c,e15cb27f-fe38-5006-941a-db985fc8e40c; c5662614-cc04-520b-8e3d-6173dc3e793a\r\n"
	if got := string(answers.NewDownload(ds, cands).AppendCSV(nil)); got != want {
		t.Errorf("candidates.csv?q=sammy\n got %q\nwant %q", got, want)
	}
}

// TestDownloadRows: a download has a line for each of its rows and one
// for the header.
func TestDownloadRows(t *testing.T) {
	ds, err := dataset.Default()
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range []dataset.Params{nil, {"district": {"5"}}, {"q": {"ar"}}, {"q": {"qqq"}}} {
		rows, err := ds.Rows(dataset.Candidates, p)
		if err != nil {
			t.Fatalf("%q: %v", p, err)
		}
		if lines := strings.Count(string(answers.NewDownload(ds, rows).AppendCSV(nil)), "\r\n"); lines != rows.Count()+1 {
			t.Errorf("%q: %d lines, want %d rows and the header", p, lines, rows.Count())
		}
	}
}

func TestSafeCSVCell(t *testing.T) {
	tests := []struct{ name, in, want string }{
		{"equals", `=HYPERLINK("http://evil.example","x")`, `'=HYPERLINK("http://evil.example","x")`},
		{"plus", "+356 2122 0000", "'+356 2122 0000"},
		{"minus", "-3", "'-3"},
		{"at", "@SUM(A1)", "'@SUM(A1)"},
		{"tab", "\t=1", "'\t=1"},
		{"carriage return", "\r=1", "'\r=1"},
		{"plain name", "Partit Laburista", "Partit Laburista"},
		{"formula later", "a=1", "a=1"},
		{"quote already", "'=1", "'=1"},
		{"empty", "", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := answers.SafeCSVCell(tt.in); got != tt.want {
				t.Errorf("SafeCSVCell(%q) = %q, want %q", tt.in, got, tt.want)
			}
		})
	}
}
