package dataset_test

import (
	"strings"
	"testing"

	"ballot/dataset"
)

// TestDownloadNeutralisesFormulas: a value a spreadsheet would run as a
// formula is written with a leading "'" in every column it reaches, the
// party's name in a candidate's row included.
func TestDownloadNeutralisesFormulas(t *testing.T) {
	m := defaultFiles(t)
	edit(t, m, dataset.PartiesFile, func(rs []map[string]any) []map[string]any {
		for _, r := range rs {
			if r["slug"] == "abba" {
				r["name"], r["short_name"] = `=HYPERLINK("http://evil.example","ABBA")`, "+ABBA"
			}
		}
		return rs
	})
	edit(t, m, dataset.CandidatesFile, func(rs []map[string]any) []map[string]any {
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
	if got := string(parties.AppendCSV(nil)); !strings.HasPrefix(got, want) {
		t.Errorf("parties.csv begins\n%q\nwant\n%q", got[:min(len(got), len(want))], want)
	}
	cands, err := ds.Rows(dataset.Candidates, dataset.Params{"q": {"sammy"}})
	if err != nil || cands.Count() != 1 {
		t.Fatalf("q=sammy: %d rows, %v", cands.Count(), err)
	}
	want = "\uFEFFName,Given name,Family name,Party,Primary district,Districts stood in,Elected,Incumbent,Website,Photo,Slug,ID,Party ID,Primary district ID,District IDs\r\n" +
		`'@Sammy -Farrugia,'@Sammy,'-Farrugia,"'=HYPERLINK(""http://evil.example"",""ABBA"")",1,1,no,,,,sammy-farrugia,` +
		"6274388c-1444-5aaa-b0f9-b70c6f2cf4eb,a2207904-8b5f-5135-9321-5a3721b07366,e15cb27f-fe38-5006-941a-db985fc8e40c,e15cb27f-fe38-5006-941a-db985fc8e40c\r\n"
	if got := string(cands.AppendCSV(nil)); got != want {
		t.Errorf("candidates.csv?q=sammy\n got %q\nwant %q", got, want)
	}
}

// TestDownloadRowsAreTheQuerysRecords: a download's rows are the records
// Query answers for the same filters, every one of them, in order.
func TestDownloadRowsAreTheQuerysRecords(t *testing.T) {
	ds, err := dataset.Default()
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range []dataset.Params{
		nil, {"district": {"5"}}, {"party": {"pl"}}, {"stood_in": {"5"}, "elected": {"true"}}, {"q": {"ar"}}, {"q": {"qqq"}},
		{"limit": {"0"}, "offset": {"x"}, "party": {"PN"}}, // limit and offset are not read
	} {
		rows, err := ds.Rows(dataset.Candidates, p)
		if err != nil {
			t.Fatalf("%q: %v", p, err)
		}
		q := dataset.Params{"limit": {"500"}}
		for k, v := range p {
			if k != "limit" && k != "offset" {
				q[k] = v
			}
		}
		res, err := ds.Query(dataset.Candidates, q)
		if err != nil {
			t.Fatal(err)
		}
		if rows.Count() != res.Total() {
			t.Fatalf("%q: %d rows, the query's total %d", p, rows.Count(), res.Total())
		}
		for i := range rows.Count() {
			if rows.Index(i) != res.Index(i) {
				t.Fatalf("%q: row %d is record %d, the query's %d", p, i, rows.Index(i), res.Index(i))
			}
		}
		if lines := strings.Count(string(rows.AppendCSV(nil)), "\r\n"); lines != rows.Count()+1 {
			t.Errorf("%q: %d lines, want %d rows and the header", p, lines, rows.Count())
		}
	}
}
