package answers_test

import (
	"slices"
	"strconv"
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
	want = "\uFEFFName,Given name,Family name,Party,Primary district,Districts stood in,Elected,Incumbent,Website,Photo,Slug,ID,Party ID,Primary district ID,District IDs,Person ID\r\n" +
		`'@Sammy -Farrugia,'@Sammy,'-Farrugia,"'=HYPERLINK(""http://evil.example"",""ABBA"")",1,1; 10,no,,,,sammy-farrugia,` +
		"6274388c-1444-5aaa-b0f9-b70c6f2cf4eb,a2207904-8b5f-5135-9321-5a3721b07366,e15cb27f-fe38-5006-941a-db985fc8e40c,e15cb27f-fe38-5006-941a-db985fc8e40c; c5662614-cc04-520b-8e3d-6173dc3e793a,00c19919-13ec-56c9-beff-3caec9d7e939\r\n"
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

// TestSheetDownload: a district's count sheet as CSV, its cells through
// SafeCSVCell (a name or a party's short name that a spreadsheet would run
// as a formula gets a leading "'"), a row per candidacy in the sheet's
// order, then the non-transferable row.
func TestSheetDownload(t *testing.T) {
	m := datasettest.CountsFiles(t, true)
	datasettest.Edit(t, m, dataset.CountsFile, func(sheets []map[string]any) []map[string]any {
		for _, s := range sheets {
			for _, c := range s["candidacies"].([]any) {
				if c := c.(map[string]any); c["name"] == "Robert Abela" {
					c["name"] = "=Robert Abela"
				}
			}
		}
		return sheets
	})
	datasettest.Edit(t, m, dataset.PartiesFile, func(rs []map[string]any) []map[string]any {
		for _, r := range rs {
			if r["slug"] == "pl" {
				r["short_name"] = "+PL"
			}
		}
		return rs
	})
	ds, err := dataset.Load(m)
	if err != nil {
		t.Fatal(err)
	}
	sheet, _ := ds.Sheet(5)
	got := strings.Split(string(answers.NewSheetDownload(ds, sheet).AppendCSV(nil)), "\r\n")
	counts := ""
	for k := range 18 {
		counts += ",count_" + strconv.Itoa(k+1)
	}
	want := map[int]string{
		0:                          "\uFEFFcandidate_id,name,party,first_preferences,elected_at_count,excluded_at_count" + counts,
		1:                          "096d8135-71fe-5b81-b421-97c341bd1972,'=Robert Abela,'+PL,9996,1,,9996" + strings.Repeat(",3799", 17),
		2:                          "5a91e46e-7c9f-50e9-9a84-0289dc1435fe,Bernard Grech,PN,5799,1,,5799,5799" + strings.Repeat(",3799", 16),
		len(sheet.Candidacies):     "151928f3-62c7-5963-8167-d9bd2778fba3,Tania Gauci,ABBA,87,,5,87,88,91,113" + strings.Repeat(",0", 14),
		len(sheet.Candidacies) + 1: ",Non-transferable,,0,,,0,0,0,1,57,71,73,77,166,183,195,441,491,581,734,834,834,834",
		len(sheet.Candidacies) + 2: "",
	}
	if len(got) != len(sheet.Candidacies)+3 {
		t.Fatalf("%d lines, want the header, %d candidacies, the non-transferable row and the end", len(got)-1, len(sheet.Candidacies))
	}
	for i, line := range want {
		if got[i] != line {
			t.Errorf("line %d:\n got %q\nwant %q", i+1, got[i], line)
		}
	}
	if d := answers.NewSheetDownload(ds, sheet); d.Filename() != "district-5-count.csv" || d.ETag() != `"`+ds.Version[:16]+`-csv2s5-19"` {
		t.Errorf("filename %q, ETag %s", d.Filename(), d.ETag())
	}
}

// TestResultColumns: a count sheet's row in query's columns: its figures,
// its number of counts and the elected in order.
func TestResultColumns(t *testing.T) {
	ds := datasettest.Counts(t, true)
	res, err := ds.Query(dataset.Results, dataset.Params{"district": {"5"}})
	if err != nil {
		t.Fatal(err)
	}
	got := answers.CSVRows(ds, dataset.Results, res, answers.FieldColumns)
	want := [][]string{
		{"district_id", "district_number", "status", "seats", "registered", "valid_votes", "quota", "counts", "elected"},
		{"d0e4f679-6e46-543c-a8f9-478075abcc0a", "5", "final", "5", "27056", "22789", "3799", "18",
			"096d8135-71fe-5b81-b421-97c341bd1972;5a91e46e-7c9f-50e9-9a84-0289dc1435fe;df6fd76a-d356-5cf3-affc-d8f921c66bbd;f27ab73f-0ce7-5c2b-b83a-a8cf47941942;4f6d7b88-0885-5a10-bba0-8b2dc1196e1f"},
	}
	if !slices.EqualFunc(got, want, slices.Equal) {
		t.Errorf("rows\n got %q\nwant %q", got, want)
	}
}
