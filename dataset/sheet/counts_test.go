package sheet_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"ballot/dataset"
	"ballot/dataset/sheet"
)

// countsFolder is testdata/counts: districts 4, 11 and 12 of the 2022
// count sheets, cut from the published counts.csv and district_totals.csv
// whole rows at a time (their header, 27 count columns, as it is), and the
// candidates who stand in them. Three candidates share "Ivan Bartolo" (PN):
// Ivan Bartolo of district 11 (slug ivan-bartolo), Ivan J. Bartolo of 9
// and 12, whom the sheet of 12 prints "Ivan Bartolo", and another Ivan
// Bartolo of 4 and 7 (ivan-bartolo-2).
func countsFolder(t *testing.T) sheets {
	t.Helper()
	s := sheets{}
	for _, name := range []string{dataset.ManifestFile, sheet.PartiesFile, sheet.DistrictsFile, sheet.CandidatesFile, sheet.CountsFile, sheet.DistrictTotalsFile} {
		b, err := os.ReadFile(filepath.Join("testdata", "counts", name))
		if err != nil {
			t.Fatal(err)
		}
		s[name] = string(b)
	}
	return s
}

// setCell returns a CSV text without quotes with the cell at line (from 1)
// and column (from 1) set to value.
func setCell(text string, line, column int, value string) string {
	lines := strings.Split(text, "\n")
	cells := strings.Split(lines[line-1], ",")
	cells[column-1] = value
	lines[line-1] = strings.Join(cells, ",")
	return strings.Join(lines, "\n")
}

// deleteLine returns text without its line (from 1).
func deleteLine(text string, line int) string {
	lines := strings.Split(text, "\n")
	return strings.Join(append(lines[:line-1:line-1], lines[line:]...), "\n")
}

// cutCounts returns counts.csv with the cells of district n past count
// last emptied.
func cutCounts(text, n string, last int) string {
	lines := strings.Split(text, "\n")
	for i, l := range lines {
		cells := strings.Split(l, ",")
		if cells[0] != n {
			continue
		}
		for k := 4 + last; k < len(cells); k++ {
			cells[k] = ""
		}
		lines[i] = strings.Join(cells, ",")
	}
	return strings.Join(lines, "\n")
}

// Lines of testdata/counts/counts.csv.
const (
	lineCacopardo    = 4  // district 4, ADPD
	lineCamilleri    = 9  // district 4, PL, elected
	lineBartolo4     = 17 // district 4, the Ivan Bartolo of 4 and 7
	lineNT4          = 26 // district 4, Non-transferable
	lineFirst11      = 27
	lineNT11         = 48
	lineBartolo12    = 64 // district 12, Ivan J. Bartolo, printed "Ivan Bartolo"
	lineCastillo     = 66 // district 12, PN
	lineNT12         = 72
	countsColumnBase = 4 // count_k is column countsColumnBase+k
)

// TestImportCounts: the count sheets of three districts, as published,
// give counts.json in the shape the API serves (golden), which
// dataset.LoadFiles accepts and serves as it is; each row is its
// candidate's by name, party and district, the three Ivan Bartolos among
// them.
func TestImportCounts(t *testing.T) {
	files := importOK(t, countsFolder(t).fs())
	golden(t, filepath.Join("testdata", "counts-out", dataset.CountsFile), files[dataset.CountsFile])
	ds, err := dataset.LoadFiles(files)
	if err != nil {
		t.Fatalf("LoadFiles: %v", err)
	}
	// It writes the ties, corrections and defects the sheets state, and
	// these state none.
	served := slices.Clone(ds.Sheets())
	for i := range served {
		served[i].Ties, served[i].Corrections, served[i].Defects = nil, nil, nil
	}
	written := dataset.EncodeJSON(decode[[]dataset.CountSheet](t, files, dataset.CountsFile))
	if served := dataset.EncodeJSON(served); !bytes.Equal(written, served) {
		t.Errorf("counts.json is not the sheets as the dataset serves them:\n%s\nwant\n%s", written, served)
	}
	slugs := map[string]string{}
	for _, c := range ds.Candidates() {
		slugs[c.ID] = c.Slug
	}
	tests := []struct {
		district int
		name     string
		slug     string
	}{
		{4, "Ivan Bartolo", "ivan-bartolo-2"},
		{11, "Ivan Bartolo", "ivan-bartolo"},
		{12, "Ivan Bartolo", "ivan-j-bartolo"},
		{11, "Kassandra Mallia", "thomas-mallia"},
		{11, "Arnold Cassola", "arnold-cassola"},
	}
	for _, tt := range tests {
		s, ok := ds.Sheet(tt.district)
		if !ok {
			t.Fatalf("no sheet of district %d", tt.district)
		}
		found := false
		for _, c := range s.Candidacies {
			if c.Name == tt.name && slugs[c.CandidateID] == tt.slug {
				found = true
			}
		}
		if !found {
			t.Errorf("district %d: no row %q of %s", tt.district, tt.name, tt.slug)
		}
	}
	if n := len(ds.Sheets()); n != 3 {
		t.Errorf("%d sheets, want 3", n)
	}
}

// TestImportCountsShapes: what district_totals.csv may leave out or add,
// and the friendlier column names, import alike.
func TestImportCountsShapes(t *testing.T) {
	base := countsFolder(t)
	totals := base[sheet.DistrictTotalsFile]
	counts := base[sheet.CountsFile]
	tests := []struct {
		name    string
		src     sheets
		check   func(t *testing.T, s []dataset.CountSheet)
		isEqual bool // counts.json is the one of base
	}{
		{"as published", base, nil, true},
		{"without the counts column", base.with(sheet.DistrictTotalsFile, dropLastColumn(totals)), nil, true},
		{"friendlier names, in another order, separated by ';'", base.with(sheet.CountsFile, strings.ReplaceAll(strings.Replace(counts, "district,name,party_abbreviation,audited_name", "District,Name,Party,Candidate", 1), ",", ";")), nil, true},
		{"a candidate given by slug", base.with(sheet.CountsFile, setCell(counts, lineBartolo4, 4, "ivan-bartolo-2")), nil, true},
		{"status column, final", base.with(sheet.DistrictTotalsFile, addColumn(totals, "status", "final")), nil, true},
		{"registered unknown", base.with(sheet.DistrictTotalsFile, setCell(totals, 3, 2, "")), func(t *testing.T, s []dataset.CountSheet) {
			if s[1].Registered != nil || s[0].Registered == nil || *s[0].Registered != 26688 {
				t.Errorf("registered of districts 4 and 11: %v and %v, want 26688 and null", s[0].Registered, s[1].Registered)
			}
		}, false},
		// District 4 after its 10th count, while the count goes on.
		{"status counting", base.with(
			sheet.CountsFile, cutCounts(counts, "4", 10),
			sheet.DistrictTotalsFile, setCell(setCell(addColumn(totals, "status", ""), 2, 7, "Counting"), 2, 6, "10"),
		), func(t *testing.T, s []dataset.CountSheet) {
			if d := s[0]; d.Status != dataset.StatusCounting || len(d.Counts) != 10 || len(d.Elected) != 2 {
				t.Errorf("district 4: status %s, %d counts, %d elected; want counting, 10, 2", d.Status, len(d.Counts), len(d.Elected))
			}
		}, false},
	}
	want := importOK(t, base.fs())[dataset.CountsFile]
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			files := importOK(t, tt.src.fs())
			if got := files[dataset.CountsFile]; bytes.Equal(got, want) != tt.isEqual {
				t.Errorf("counts.json equal to the published sheets' is %v, want %v", !tt.isEqual, tt.isEqual)
			}
			if tt.check != nil {
				tt.check(t, decode[[]dataset.CountSheet](t, files, dataset.CountsFile))
			}
		})
	}
}

// addColumn returns a CSV text with a column added at the end: header
// name, and value on every other line but the empty last.
func addColumn(text, header, value string) string {
	lines := strings.Split(text, "\n")
	for i, l := range lines {
		switch {
		case i == 0:
			lines[i] = l + "," + header
		case l != "":
			lines[i] = l + "," + value
		}
	}
	return strings.Join(lines, "\n")
}

// dropLastColumn returns a CSV text without its last column.
func dropLastColumn(text string) string {
	lines := strings.Split(text, "\n")
	for i, l := range lines {
		if j := strings.LastIndex(l, ","); j >= 0 {
			lines[i] = l[:j]
		}
	}
	return strings.Join(lines, "\n")
}

// TestImportCountsProblems gives each problem of the count sheets a case,
// and asserts the whole report, with its file, line and column: those
// counts.go finds as it reads, and those the dataset's rules find in
// counts.json, placed at the sheet's line and column.
func TestImportCountsProblems(t *testing.T) {
	base := countsFolder(t)
	counts, totals, cands := base[sheet.CountsFile], base[sheet.DistrictTotalsFile], base[sheet.CandidatesFile]
	count := func(k int) int { return countsColumnBase + k }
	tests := []struct {
		name string
		src  sheets
		want []string
	}{
		// the two files
		{"without district_totals.csv", base.without(sheet.DistrictTotalsFile), []string{
			"district_totals.csv: file is missing: counts.csv needs it beside it, for each district's valid votes, quota and seats",
		}},
		{"without counts.csv", base.without(sheet.CountsFile), []string{
			"counts.csv: file is missing: district_totals.csv needs it beside it, for each district's running totals count by count",
		}},
		{"district not in district_totals.csv", base.with(sheet.DistrictTotalsFile, deleteLine(totals, 3)), []string{
			"counts.csv:27: district: district 11 has no line in district_totals.csv: give its valid votes, quota and seats there",
		}},
		{"district not in counts.csv", base.with(sheet.DistrictTotalsFile, totals+"5,27056,22789,3799,5,18\n"), []string{
			"district_totals.csv:5: district: district 5 has no rows in counts.csv",
		}},
		{"district twice in district_totals.csv", base.with(sheet.DistrictTotalsFile, totals+"4,26688,22506,3752,5,22\n"), []string{
			"district_totals.csv:5: district: district 4 is already on line 2",
		}},

		// columns
		{"both party columns", base.with(sheet.CountsFile, addColumn(counts, "party", "")), []string{
			"counts.csv:1: party_abbreviation: says what party says: keep one of the two columns",
		}},
		{"no party column", base.with(sheet.CountsFile, strings.Replace(counts, "party_abbreviation", "partyabbreviation", 1)), []string{
			`counts.csv:1: partyabbreviation: unknown column (did you mean "party_abbreviation"?)`,
			"counts.csv:1: party: required column is missing (or party_abbreviation): the party's slug, short name or name, empty for an independent",
		}},
		{"a count column missing", base.with(sheet.CountsFile, strings.Replace(counts, "count_27", "count_28", 1)), []string{
			"counts.csv:1: count_27: column is missing: the columns count_1 to count_28 are each needed, one after another",
		}},
		{"no count column", base.with(sheet.CountsFile, "district,name,party\n4,Chris Fearne,PL\n"), []string{
			"counts.csv:1: count_1: required column is missing: count_1, count_2, … hold each row's running total at each count",
		}},

		// cells
		{"a count with letters", base.with(sheet.CountsFile, setCell(counts, lineCamilleri, count(3), "38x4")), []string{
			`counts.csv:9: count_3: district 4, count 3: "38x4" is not a whole number of votes: write digits only, such as 1234`,
		}},
		{"a negative count", base.with(sheet.CountsFile, setCell(counts, lineCamilleri, count(3), "-3")), []string{
			`counts.csv:9: count_3: district 4, count 3: "-3" is not a whole number of votes: write digits only, such as 1234`,
		}},
		// A number too large is called so: the most a count can hold is
		// what a sheet's valid votes may be.
		{"a count too large", base.with(sheet.CountsFile, setCell(counts, lineCamilleri, count(3), "99999999999999999999")), []string{
			`counts.csv:9: count_3: district 4, count 3: "99999999999999999999" is more votes than a count can hold: at most 9,007,199,254,740,991`,
		}},
		{"figures too large", base.with(sheet.DistrictTotalsFile, setCell(setCell(totals, 2, 3, "9007199254740992"), 3, 5, "9223372036854775808")), []string{
			`district_totals.csv:2: valid_votes: "9007199254740992" is more votes than a count can hold: at most 9,007,199,254,740,991`,
			`district_totals.csv:3: seats: "9223372036854775808" is more seats than a count can hold: at most 9,007,199,254,740,991`,
		}},
		{"an empty cell before the last count", base.with(sheet.CountsFile, setCell(counts, lineCamilleri, count(3), "")), []string{
			"counts.csv:9: count_3: district 4, count 3: is empty, but count_22 is not: a row has a total at every count up to its district's last",
		}},
		{"a cell past the last count", base.with(sheet.CountsFile, setCell(counts, lineCamilleri, count(23), "3752")), []string{
			"counts.csv:9: count_23: district 4, count 23: is filled, past the district's last count: district_totals.csv line 2 gives it 22 counts",
		}},
		{"a row short of the last count", base.with(sheet.CountsFile, setCell(counts, lineCamilleri, count(22), "")), []string{
			"counts.csv:9: count_22: district 4, count 22: is empty, and the district has 22 counts (district_totals.csv line 2): a row has a total at each count",
		}},
		{"a row short, without the counts column", base.with(sheet.CountsFile, setCell(counts, lineCamilleri, count(22), ""), sheet.DistrictTotalsFile, dropLastColumn(totals)), []string{
			"counts.csv:9: count_22: district 4, count 22: is empty, and line 26 has a total at count 22: every row of the district has a total at each of its counts",
		}},
		{"more counts than columns", base.with(sheet.DistrictTotalsFile, setCell(totals, 2, 6, "30")), []string{
			"district_totals.csv:2: counts: is 30, and counts.csv has columns up to count_27",
		}},
		{"no counts", base.with(sheet.DistrictTotalsFile, setCell(totals, 2, 6, "0")), []string{
			"district_totals.csv:2: counts: is 0: a sheet holds count 1 at least",
		}},
		{"valid votes not a number", base.with(sheet.DistrictTotalsFile, setCell(totals, 2, 3, `"22,506"`)), []string{
			`district_totals.csv:2: valid_votes: "22,506" is not a whole number of votes: write digits only, such as 1234`,
		}},
		{"quota empty", base.with(sheet.DistrictTotalsFile, setCell(totals, 2, 4, "")), []string{
			"district_totals.csv:2: quota: must not be empty",
		}},
		{"status unknown", base.with(sheet.DistrictTotalsFile, setCell(addColumn(totals, "status", ""), 2, 7, "done")), []string{
			`district_totals.csv:2: status: "done" is not a status: write counting while counts are still coming in, or final (or leave it empty) once the count is over`,
		}},

		// rows and candidates
		{"no Non-transferable row", base.with(sheet.CountsFile, deleteLine(counts, lineNT11)), []string{
			"counts.csv:27: name: district 11 has no Non-transferable row: add one, named Non-transferable, with the running total of the votes that could go to no continuing candidate",
		}},
		{"two Non-transferable rows", base.with(sheet.CountsFile, counts+strings.Split(counts, "\n")[lineNT11-1]+"\n"), []string{
			"counts.csv:73: name: district 11 has a Non-transferable row already, on line 48",
		}},
		{"a row that matches no candidate", base.with(sheet.CountsFile, setCell(counts, lineCastillo, 4, "Ivan Castilo")), []string{
			`counts.csv:66: audited_name: no candidate in candidates.csv is "Ivan Castilo", of PN, standing in district 12 (did you mean "Ivan Castillo", of PN, in district 12, "Ivan Bartolo", of PN, in district 11 or "Ivan Bartolo", of PN, in districts 4 and 7?)`,
		}},
		{"the Ivan Bartolo of 4 and 7 named as Ivan J. Bartolo", base.with(sheet.CountsFile, setCell(counts, lineBartolo4, 4, "Ivan J. Bartolo")), []string{
			`counts.csv:17: audited_name: no candidate in candidates.csv is "Ivan J. Bartolo", of PN, standing in district 4 (did you mean "Ivan Bartolo", of PN, in districts 4 and 7, "Ivan J. Bartolo", of PN, in districts 9 and 12 or "Ivan Bartolo", of PN, in district 11?)`,
		}},
		{"a party that is not the candidate's", base.with(sheet.CountsFile, setCell(counts, lineCacopardo, 3, "PL")), []string{
			`counts.csv:4: audited_name: no candidate in candidates.csv is "Carmel Cacopardo", of PL, standing in district 4 (did you mean "Carmel Cacopardo", of ADPD, in districts 4 and 9?)`,
		}},
		{"a party that is no party", base.with(sheet.CountsFile, setCell(counts, lineCacopardo, 3, "ADDP")), []string{
			`counts.csv:4: party_abbreviation: no party in parties.csv has the slug, short name, name or English name "ADDP" (did you mean "adpd" for ADPD – The Green Party?); leave it empty for an independent`,
		}},
		{"a candidate twice", base.with(sheet.CountsFile, setCell(setCell(counts, lineBartolo12+1, 2, "Ivan Castillo"), lineBartolo12+1, 4, "")), []string{
			"counts.csv:66: audited_name: is Ivan Castillo again, whose row in district 12 is line 65: a candidate has one row in each district they stand in",
		}},
		{"two candidates fit", base.with(sheet.CandidatesFile, addColumn(cands, "slug", "")+"Ivan Castillo,Ivan,Castillo,PN,12,no,ivan-castillo-b\n"), []string{
			`counts.csv:66: audited_name: "Ivan Castillo", of PN, standing in district 12, fits 2 candidates in candidates.csv, "ivan-castillo" and "ivan-castillo-b": write the slug of the one meant in a candidate column`,
		}},
		// A slug that is also the key of the name two candidates share
		// names the one whose slug it is: the second is then a candidate
		// with no row.
		{"two candidates fit, one named by its slug", base.with(sheet.CandidatesFile, addColumn(cands, "slug", "")+"Ivan Castillo,Ivan,Castillo,PN,12,no,ivan-castillo-b\n", sheet.CountsFile, setCell(counts, lineCastillo, 4, "ivan-castillo")), []string{
			"counts.csv:49: district: district 12: Ivan Castillo (candidates.csv line 65) stands in district 12 and has no row; a sheet holds every candidacy of its district",
		}},
		// A character a cell may not hold is reported once, at the
		// cell, not again as the count's rules find it in counts.json.
		{"a control character in a name, and another problem", base.with(sheet.CountsFile, setCell(counts, lineCastillo, 2, "Ivan\aCastillo"), sheet.CandidatesFile, setCell(cands, 2, 4, "XX")), []string{
			`candidates.csv:2: party: no party in parties.csv has the slug, short name, name or English name "XX"; leave it empty for an independent`,
			"counts.csv:66: name: holds the control character U+0007, not allowed in names, slugs, ids and links",
		}},
		{"candidates.csv has errors", base.with(sheet.CandidatesFile, setCell(cands, 2, 4, "XX"), sheet.CountsFile, setCell(counts, lineCamilleri, count(3), "x")), []string{
			`candidates.csv:2: party: no party in parties.csv has the slug, short name, name or English name "XX"; leave it empty for an independent`,
			`counts.csv:9: count_3: district 4, count 3: "x" is not a whole number of votes: write digits only, such as 1234`,
		}},

		// the rules of the count, at the sheets' lines and columns
		{"a count that does not add up", base.with(sheet.CountsFile, setCell(counts, lineCastillo, count(21), "3648")), []string{
			"counts.csv:66: count_21: district 12, count 21: Ivan Castillo's surplus leaves them 3,648, not the quota of 3,647",
			"counts.csv:72: count_21: district 12, count 21: the totals add up to 21,882, and the valid votes are 21,881",
		}},
		{"a count that does not add up, and a candidate not found", base.with(sheet.CountsFile, setCell(setCell(counts, lineCastillo, count(21), "3648"), lineCacopardo, 3, "PL")), []string{
			`counts.csv:4: audited_name: no candidate in candidates.csv is "Carmel Cacopardo", of PL, standing in district 4 (did you mean "Carmel Cacopardo", of ADPD, in districts 4 and 9?)`,
			"counts.csv:66: count_21: district 12, count 21: Ivan Castillo's surplus leaves them 3,648, not the quota of 3,647",
			"counts.csv:72: count_21: district 12, count 21: the totals add up to 21,882, and the valid votes are 21,881",
		}},
		{"a quota that is not the Droop quota", base.with(sheet.DistrictTotalsFile, setCell(totals, 2, 4, "3753")), []string{
			"district_totals.csv:2: quota: district 4: the quota is 3,753, and floor(22,506 / (5 + 1)) + 1 is 3,752",
		}},
		{"registered fewer than valid votes", base.with(sheet.DistrictTotalsFile, setCell(totals, 2, 2, "22505")), []string{
			"district_totals.csv:2: registered: district 4, the registered voters are 22,505, fewer than the 22,506 valid votes",
		}},
		{"final before every seat is filled", base.with(sheet.CountsFile, cutCounts(counts, "4", 10), sheet.DistrictTotalsFile, setCell(totals, 2, 6, "10")), []string{
			"district_totals.csv:2: status: district 4, the sheet is final, but its 10 counts elect 2 of its 5 seats: after count 10, the 12 candidates below the 3 seats left have 9,052 votes together, and Carm Mifsud Bonnici, the lowest of those who would take them, has 1,549; a further count could still change who is elected; while the count goes on, write counting in its status column",
		}},
		{"a candidate without a row", base.with(sheet.CandidatesFile, cands+"Ġorġ Borġ,Ġorġ,Borġ,PL,4,no\n"), []string{
			"counts.csv:2: district: district 4: Ġorġ Borġ (candidates.csv line 65) stands in district 4 and has no row; a sheet holds every candidacy of its district",
		}},
		// A candidate elected at a count is elected: no is refused at
		// the cell, naming the count (an empty cell is filled: see
		// TestImportElectedFilled).
		{"elected at a count, and no", base.with(sheet.CandidatesFile, strings.Replace(cands, "Chris Fearne,Chris,Fearne,PL,3;4,yes", "Chris Fearne,Chris,Fearne,PL,3;4,le", 1)), []string{
			"candidates.csv:15: elected: says no, but counts.csv elects Chris Fearne at count 1 of district 4 (line 13); a candidate elected at a count is elected: write yes, or leave the cell empty to have it filled",
		}},
		{"elected at a count, and no, beside another problem", base.with(
			sheet.CandidatesFile, strings.Replace(cands, "Chris Fearne,Chris,Fearne,PL,3;4,yes", "Chris Fearne,Chris,Fearne,PL,3;4,no", 1),
			sheet.CountsFile, setCell(counts, lineCastillo, count(21), "3648"),
		), []string{
			"candidates.csv:15: elected: says no, but counts.csv elects Chris Fearne at count 1 of district 4 (line 13); a candidate elected at a count is elected: write yes, or leave the cell empty to have it filled",
			"counts.csv:66: count_21: district 12, count 21: Ivan Castillo's surplus leaves them 3,648, not the quota of 3,647",
			"counts.csv:72: count_21: district 12, count 21: the totals add up to 21,882, and the valid votes are 21,881",
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			want := strings.Join(tt.want, "\n")
			if got := importProblems(t, tt.src.fs()); got != want {
				t.Errorf("report\n%s\nwant\n%s", got, want)
			}
			if got := importProblems(t, oneByte{tt.src.fs()}); got != want {
				t.Errorf("read a byte at a time, report\n%s\nwant\n%s", got, want)
			}
		})
	}
}

// TestImportCountsNameFormula: a name a row of counts.csv prints that a
// spreadsheet may run as a formula is warned of at its cell, as validate
// warns of it in counts.json.
func TestImportCountsNameFormula(t *testing.T) {
	base := countsFolder(t)
	res, err := sheet.ImportWith(base.with(sheet.CountsFile, setCell(base[sheet.CountsFile], lineCacopardo, 2, "=Carmel Cacopardo")).fs(), sheet.Options{})
	if err != nil {
		t.Fatalf("ImportWith: %v", err)
	}
	want := `counts.csv:4: name: warning: "=Carmel Cacopardo" begins with "=", which a spreadsheet may run as a formula`
	if got := res.Problems.Error(); got != want {
		t.Errorf("report\n%s\nwant\n%s", got, want)
	}
}

// TestImportElectedFilled: an elected cell left empty for a candidate a
// count sheet elects is filled with yes, with a warning at the cell that
// names each count that elects them; without an elected column, every
// such candidate's is.
func TestImportElectedFilled(t *testing.T) {
	base := countsFolder(t)
	for _, name := range []string{sheet.CandidatesFile, sheet.CountsFile, sheet.DistrictTotalsFile} {
		b, err := os.ReadFile(filepath.Join("testdata", "counts-2022", name))
		if err != nil {
			t.Fatal(err)
		}
		base[name] = string(b)
	}
	cands := base[sheet.CandidatesFile]
	tests := []struct {
		name       string
		candidates string
		report     []string // the first few warnings
		warnings   int
	}{
		{"an empty cell", strings.Replace(cands, "Robert Abela,Robert,Abela,PL,2;5,yes", "Robert Abela,Robert,Abela,PL,2;5,", 1), []string{
			"candidates.csv:32: elected: warning: left empty; filled with yes, as counts.csv elects Robert Abela at count 1 of district 2 (line 32) and at count 1 of district 5 (line 108)",
		}, 1},
		{"no elected column", dropLastColumn(cands), []string{
			"candidates.csv:2: elected: warning: not given, as candidates.csv has no elected column; filled with yes, as counts.csv elects Ivan Bartolo at count 18 of district 11 (line 264)",
		}, 65 - 16},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res, err := sheet.ImportWith(base.with(sheet.CandidatesFile, tt.candidates).fs(), sheet.Options{})
			if err != nil {
				t.Fatalf("ImportWith: %v", err)
			}
			if n := len(res.Problems); n != tt.warnings || res.Problems.Errors() != 0 {
				t.Errorf("%d problems, %d of them errors; want %d warnings", n, res.Problems.Errors(), tt.warnings)
			}
			if got, want := res.Problems[:len(tt.report)].Error(), strings.Join(tt.report, "\n"); got != want {
				t.Errorf("report\n%s\nwant\n%s", got, want)
			}
			// Each candidate a count elects is elected.
			ds, err := dataset.LoadFiles(res.Files)
			if err != nil {
				t.Fatalf("LoadFiles: %v", err)
			}
			elected := map[string]bool{}
			for _, s := range ds.Sheets() {
				for _, id := range s.Elected {
					elected[id] = true
				}
			}
			filled := 0
			for _, c := range ds.Candidates() {
				if elected[c.ID] {
					filled++
					if c.Elected == nil || !*c.Elected {
						t.Errorf("%s is elected %v, want yes", c.Name, c.Elected)
					}
				}
			}
			if filled != 49 {
				t.Errorf("%d candidates elected at a count, want 49", filled)
			}
		})
	}
}

// TestImportCounts2022: the published count sheets of 2022, all 13
// districts, byte for byte as published (testdata/counts-2022), with a
// candidates.csv of every candidacy they hold, import to 13 final sheets
// that elect 65, 38 of PL and 27 of PN, as SOURCES.md says of them.
func TestImportCounts2022(t *testing.T) {
	src := countsFolder(t)
	for _, name := range []string{sheet.CandidatesFile, sheet.CountsFile, sheet.DistrictTotalsFile} {
		b, err := os.ReadFile(filepath.Join("testdata", "counts-2022", name))
		if err != nil {
			t.Fatal(err)
		}
		src[name] = string(b)
	}
	ds, err := dataset.LoadFiles(importOK(t, src.fs()))
	if err != nil {
		t.Fatalf("LoadFiles: %v", err)
	}
	party := map[string]string{}
	for _, p := range ds.Parties() {
		party[p.ID] = p.ShortName
	}
	seats := map[string]int{}
	elected := 0
	for _, s := range ds.Sheets() {
		if s.Status != dataset.StatusFinal || len(s.Elected) != 5 {
			t.Errorf("district %d: %s, %d elected; want final, 5", s.DistrictNumber, s.Status, len(s.Elected))
		}
		for _, c := range s.Candidacies {
			if c.ElectedAtCount != nil {
				seats[party[dataset.Text(c.PartyID)]]++
				elected++
			}
		}
	}
	if n := len(ds.Sheets()); n != 13 || elected != 65 || seats["PL"] != 38 || seats["PN"] != 27 {
		t.Errorf("%d sheets electing %d, by party %v; want 13 electing 65, PL 38 and PN 27", n, elected, seats)
	}
}

// TestImportCountsNameForms: a row whose name is no candidate's is taken
// as the one candidate of its party in its district whose name is a form
// of it, with a warning that says how to make it sure; two such are an
// error; a name given in the candidate column must be the candidate's.
func TestImportCountsNameForms(t *testing.T) {
	base := countsFolder(t)
	cands := strings.NewReplacer(
		"Anthony [Tony] Agius Decelis,Anthony,[Tony] Agius Decelis,", "Tony Agius Decelis,Tony,Agius Decelis,",
		"Maria Deguara,Maria,Deguara,", "Maria Fatima Deguara,Maria Fatima,Deguara,",
	).Replace(base[sheet.CandidatesFile])
	const form = "whose name in candidates.csv is a form of it (the name without a part, or a nickname in brackets)"
	tests := []struct {
		name   string
		src    sheets
		report []string // warnings, or the problems when it fails
		ok     bool
	}{
		{"a nickname, a given name left out", base.with(sheet.CandidatesFile, cands), []string{
			`counts.csv:30: name: warning: "Anthony [Tony] Agius Decelis" is taken as Tony Agius Decelis, of PL, standing in district 11, ` + form + `; write "Tony Agius Decelis" in audited_name to say so`,
			`counts.csv:39: name: warning: "Maria Deguara" is taken as Maria Fatima Deguara, of PN, standing in district 11, ` + form + `; write "Maria Fatima Deguara" in audited_name to say so`,
			`counts.csv:53: name: warning: "Anthony [Tony] Agius Decelis" is taken as Tony Agius Decelis, of PL, standing in district 12, ` + form + `; write "Tony Agius Decelis" in audited_name to say so`,
			`counts.csv:68: name: warning: "Maria Deguara" is taken as Maria Fatima Deguara, of PN, standing in district 12, ` + form + `; write "Maria Fatima Deguara" in audited_name to say so`,
		}, true},
		{"in the candidate column, no form is taken", base.with(sheet.CandidatesFile, cands, sheet.CountsFile, setCell(base[sheet.CountsFile], 39, 4, "Maria Deguara")), []string{
			`counts.csv:30: name: warning: "Anthony [Tony] Agius Decelis" is taken as Tony Agius Decelis, of PL, standing in district 11, ` + form + `; write "Tony Agius Decelis" in audited_name to say so`,
			`counts.csv:39: audited_name: no candidate in candidates.csv is "Maria Deguara", of PN, standing in district 11 (did you mean "Maria Fatima Deguara", of PN, in districts 11 and 12?)`,
			`counts.csv:53: name: warning: "Anthony [Tony] Agius Decelis" is taken as Tony Agius Decelis, of PL, standing in district 12, ` + form + `; write "Tony Agius Decelis" in audited_name to say so`,
			`counts.csv:68: name: warning: "Maria Deguara" is taken as Maria Fatima Deguara, of PN, standing in district 12, ` + form + `; write "Maria Fatima Deguara" in audited_name to say so`,
		}, false},
		{"two forms", base.with(sheet.CandidatesFile, cands+"Maria Josephine Deguara,Maria Josephine,Deguara,PN,11,no\n", sheet.CountsFile, setCell(base[sheet.CountsFile], 30, 4, "Tony Agius Decelis")), []string{
			`counts.csv:39: name: no candidate in candidates.csv is "Maria Deguara", of PN, standing in district 11 (did you mean "Maria Fatima Deguara", of PN, in districts 11 and 12 or "Maria Josephine Deguara", of PN, in district 11?)`,
			`counts.csv:53: name: warning: "Anthony [Tony] Agius Decelis" is taken as Tony Agius Decelis, of PL, standing in district 12, ` + form + `; write "Tony Agius Decelis" in audited_name to say so`,
			`counts.csv:68: name: warning: "Maria Deguara" is taken as Maria Fatima Deguara, of PN, standing in district 12, ` + form + `; write "Maria Fatima Deguara" in audited_name to say so`,
		}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res, err := sheet.ImportWith(tt.src.fs(), sheet.Options{})
			if (err == nil) != tt.ok || (res.Files != nil) != tt.ok {
				t.Fatalf("Import: %v, %d files; want success %v", err, len(res.Files), tt.ok)
			}
			if got, want := res.Problems.Error(), strings.Join(tt.report, "\n"); got != want {
				t.Errorf("report\n%s\nwant\n%s", got, want)
			}
		})
	}
}

// countsFolder2022 is countsFolder with the published count sheets of
// all 13 districts of 2022 (testdata/counts-2022), whose three ties, at
// district 1's count 7, 6's count 6 and 10's count 10, are each for the
// lowest place and settled by the earlier counts.
func countsFolder2022(t *testing.T) sheets {
	t.Helper()
	src := countsFolder(t)
	for _, name := range []string{sheet.CandidatesFile, sheet.CountsFile, sheet.DistrictTotalsFile} {
		b, err := os.ReadFile(filepath.Join("testdata", "counts-2022", name))
		if err != nil {
			t.Fatal(err)
		}
		src[name] = string(b)
	}
	return src
}

// swapCells returns a CSV text without quotes with the cells of two lines
// (from 1) swapped in the columns from to to (from 1, both included).
func swapCells(text string, a, b, from, to int) string {
	lines := strings.Split(text, "\n")
	ca, cb := strings.Split(lines[a-1], ","), strings.Split(lines[b-1], ",")
	for c := from - 1; c < to; c++ {
		ca[c], cb[c] = cb[c], ca[c]
	}
	lines[a-1], lines[b-1] = strings.Join(ca, ","), strings.Join(cb, ",")
	return strings.Join(lines, "\n")
}

// TestImportTies: ties.csv states how ties were decided; import writes
// into counts.json the decisions it states and nothing of the ties the
// totals settle, so the 2022 sheets without it give counts.json as
// before; a tie nothing settles is a warning at the sheet's line.
func TestImportTies(t *testing.T) {
	base := countsFolder2022(t)
	// District 1's count 7 the other way: Sean Apap Meli (line 6) and
	// Josianne Cardona Gatt (line 17) swap their totals of counts 1 to
	// 6, so she had 55 at count 1, and he is still the one excluded.
	otherWay := swapCells(base[sheet.CountsFile], 6, 17, countsColumnBase+1, countsColumnBase+6)
	tests := []struct {
		name     string
		src      sheets
		ties     map[int]string // each sheet's ties in counts.json, by district
		warnings []string
	}{
		{"no ties.csv", base, map[int]string{}, nil},
		{"the ties the totals settle, stated", base.with(sheet.TiesFile, "district,count,decided_by\n1,7,earlier_counts\n6,6,Lot\n"), map[int]string{
			1: "count 7, exclusion, Josianne Cardona Gatt and Sean Apap Meli, earlier_counts",
			6: "count 6, exclusion, Joe Cutajar and John Mark Attard, lot",
		}, nil},
		{"a tie the totals show the other way", base.with(sheet.CountsFile, otherWay), map[int]string{}, []string{
			"counts.csv:26: count_7: warning: district 1, count 7: Sean Apap Meli and Josianne Cardona Gatt are tied at 62 for the lowest place, and the earlier counts do not exclude Sean Apap Meli, whom the totals show excluded: Josianne Cardona Gatt had fewer votes at count 1 (55 against 62); if a lot decided it, state it in ties.csv",
		}},
		{"a tie the totals show the other way, by lot", base.with(sheet.CountsFile, otherWay, sheet.TiesFile, "district;count;decided_by;elected\n1;7;lot;\n"), map[int]string{
			1: "count 7, exclusion, Josianne Cardona Gatt and Sean Apap Meli, lot",
		}, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res, err := sheet.ImportWith(tt.src.fs(), sheet.Options{})
			if err != nil {
				t.Fatalf("Import: %v", err)
			}
			var warnings []string
			for _, p := range res.Problems {
				warnings = append(warnings, p.String())
			}
			if !slices.Equal(warnings, tt.warnings) {
				t.Errorf("warnings:\n%s\nwant:\n%s", strings.Join(warnings, "\n"), strings.Join(tt.warnings, "\n"))
			}
			got := map[int]string{}
			for _, s := range decode[[]map[string]json.RawMessage](t, res.Files, dataset.CountsFile) {
				raw, ok := s["ties"]
				if !ok {
					continue
				}
				var n int
				var rows []dataset.Candidacy
				var ties []dataset.Tie
				if json.Unmarshal(s["district_number"], &n) != nil || json.Unmarshal(s["candidacies"], &rows) != nil || json.Unmarshal(raw, &ties) != nil {
					t.Fatalf("counts.json: a sheet not in the served shape: %s", raw)
				}
				names := map[string]string{}
				for _, c := range rows {
					names[c.CandidateID] = c.Name
				}
				var said []string
				for _, x := range ties {
					var tied []string
					for _, id := range x.CandidateIDs {
						tied = append(tied, names[id])
					}
					said = append(said, fmt.Sprintf("count %d, %s, %s, %s", x.Count, x.Kind, strings.Join(tied, " and "), dataset.Text(x.DecidedBy)))
				}
				got[n] = strings.Join(said, "; ")
			}
			if !maps.Equal(got, tt.ties) {
				t.Errorf("ties in counts.json: %v, want %v", got, tt.ties)
			}
		})
	}
}

// TestImportTiesProblems: each problem of ties.csv at its line and
// column, those import finds as it reads and those the dataset's rules
// find in what it states.
func TestImportTiesProblems(t *testing.T) {
	base := countsFolder2022(t)
	ties := func(lines ...string) string {
		return "district,count,decided_by,elected\n" + strings.Join(lines, "\n") + "\n"
	}
	tests := []struct {
		name string
		src  sheets
		want []string
	}{
		{"without the count sheets", base.without(sheet.CountsFile).without(sheet.DistrictTotalsFile).with(sheet.TiesFile, ties("1,7,lot,")), []string{
			"counts.csv: file is missing: ties.csv needs it and district_totals.csv beside it, for the count sheets whose ties it states",
		}},
		{"cells", base.with(sheet.TiesFile, ties("1,seven,lot,", "1,7,coin,", "14,7,lot,", "1,7,,")), []string{
			`ties.csv:2: count: "seven" is not a count: write its number, such as 7`,
			`ties.csv:3: decided_by: "coin" is not how a tie is decided: write earlier_counts, when the earlier counts decided it, or lot`,
			`ties.csv:4: district: district "14" is not a number from 1 to 13`,
			"ties.csv:5: decided_by: must not be empty",
		}},
		{"a name of no row", base.with(sheet.TiesFile, ties("1,7,lot,Jose Hererra")), []string{
			`ties.csv:2: elected: no row of district 1 in counts.csv is "Jose Hererra" (did you mean "Jose' Herrera"?)`,
		}},
		{"no tie at the count", base.with(sheet.TiesFile, ties("1,9,earlier_counts,")), []string{
			"ties.csv:2: count: district 1, count 9: a tie is stated, and no candidates are tied there for the lowest place or a seat",
		}},
		{"a count the sheet has not", base.with(sheet.TiesFile, ties("1,40,lot,")), []string{
			"ties.csv:2: count: is 40; must be a count of the sheet, 1 to 22",
		}},
		{"a seat where the tie is for the lowest place", base.with(sheet.TiesFile, ties("1,7,lot,Jose' Herrera")), []string{
			"ties.csv:2: count: district 1, count 7: a tie is stated, and no candidates are tied there for a seat",
		}},
		{"a tie stated twice", base.with(sheet.TiesFile, ties("1,7,lot,", "1,7,earlier_counts,")), []string{
			"ties.csv:3: district: district 1, count 7: the tie is stated already, on line 2",
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got, want := importProblems(t, tt.src.fs()), strings.Join(tt.want, "\n"); got != want {
				t.Errorf("report\n%s\nwant\n%s", got, want)
			}
		})
	}
}

// TestImportSeatTie: a tie for the last seat that only a lot decides, in
// the minimal folder with a count sheet of district 6: one seat, and its
// two candidates tied at 10 on first preferences. ties.csv names who took
// the seat by lot; without it the higher row takes it, with a warning.
func TestImportSeatTie(t *testing.T) {
	base := minimal().with(
		sheet.CandidatesFile, "given_name,family_name,party,districts,elected\nĠorġ,Borġ,PL,5;6,yes\nMarija,Borġ,pn,6,yes\n",
		sheet.CountsFile, "district,name,party,count_1\n6,Ġorġ Borġ,PL,10\n6,Marija Borġ,PN,10\n6,Non-transferable,,0\n",
		sheet.DistrictTotalsFile, "district,valid_votes,quota,seats\n6,20,11,1\n",
	)
	tests := []struct {
		name     string
		src      sheets
		elected  string // who the sheet elects
		ties     string // the sheet's ties as the API serves them
		problems []string
	}{
		{"no ties.csv", base, "Ġorġ Borġ", "count 1, seat, Ġorġ Borġ and Marija Borġ, ", []string{
			"counts.csv:4: count_1: warning: district 6, count 1: Ġorġ Borġ and Marija Borġ, tied at 10 for the last seat, have no earlier count to tell them apart, and no decision is stated; Ġorġ Borġ takes it by the order of the sheet's rows: if a lot decided it, state it in ties.csv, and who took the last seat in elected",
		}},
		{"by lot", base.with(sheet.TiesFile, "district,count,decided_by,elected\n6,1,lot,marija-borg\n"), "Marija Borġ", "count 1, seat, Marija Borġ and Ġorġ Borġ, lot", nil},
		{"by lot, no one named", base.with(sheet.TiesFile, "district,count,decided_by,elected\n6,1,lot,\n"), "", "", []string{
			`ties.csv:2: decided_by: district 6, count 1: is "lot", and the sheet does not say which of Ġorġ Borġ and Marija Borġ took the last seat: name them in its elected column`,
		}},
		{"by the earlier counts, which there are not", base.with(sheet.TiesFile, "district,count,decided_by,elected\n6,1,earlier_counts,Marija Borġ\n"), "", "", []string{
			`ties.csv:2: decided_by: district 6, count 1: is "earlier_counts", and Ġorġ Borġ and Marija Borġ, tied at 10 for the last seat, have no earlier count to tell them apart: only a lot decides between them`,
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res, _ := sheet.ImportWith(tt.src.fs(), sheet.Options{})
			var problems []string
			for _, p := range res.Problems {
				// The minimal folder's districts without candidates are
				// warned of too; this test is of the tie's.
				if !strings.HasSuffix(p.Message, "has no candidates") {
					problems = append(problems, p.String())
				}
			}
			if !slices.Equal(problems, tt.problems) {
				t.Errorf("problems:\n%s\nwant:\n%s", strings.Join(problems, "\n"), strings.Join(tt.problems, "\n"))
			}
			if res.Files == nil {
				return
			}
			ds, err := dataset.LoadFiles(res.Files)
			if err != nil {
				t.Fatal(err)
			}
			s, _ := ds.Sheet(6)
			names := map[string]string{}
			for _, c := range s.Candidacies {
				names[c.CandidateID] = c.Name
			}
			var tied []string
			for _, id := range s.Ties[0].CandidateIDs {
				tied = append(tied, names[id])
			}
			got := fmt.Sprintf("count %d, %s, %s, %s", s.Ties[0].Count, s.Ties[0].Kind, strings.Join(tied, " and "), dataset.Text(s.Ties[0].DecidedBy))
			if names[s.Elected[0]] != tt.elected || got != tt.ties {
				t.Errorf("elected %s, ties %s; want %s, %s", names[s.Elected[0]], got, tt.elected, tt.ties)
			}
		})
	}
}

// TestImportErrata: corrections.csv states the changes made to the
// source's figures, and defects.csv the breaks of the rules of the count
// a sheet is known to have; import writes them into their sheets of
// counts.json, and a stated break is a warning at the sheet's cell,
// naming the line that states it. The 2022 sheets of district 1 with
// count 2's non-transferable one too many.
func TestImportErrata(t *testing.T) {
	base := countsFolder2022(t)
	src := base.with(
		sheet.CountsFile, setCell(base[sheet.CountsFile], 26, countsColumnBase+2, "1"),
		sheet.CorrectionsFile, "district,count,name,field,from,to,evidence\n"+
			"1,7,Sean Apap Meli,total,,0,the cell is empty in the transcription\n"+
			"1,,Sammy Farrugia,party,PL,ABBA,the row's party total is ABBA's\n"+
			"1,2,,non_transferable,0,1,the transcription's count 2\n",
		sheet.DefectsFile, "district,count,rule,note\n1,2,Count-Balance,one vote too many in the transcription\n",
	)
	res, err := sheet.ImportWith(src.fs(), sheet.Options{})
	if err != nil {
		t.Fatalf("Import: %v", err)
	}
	var warnings []string
	for _, p := range res.Problems {
		warnings = append(warnings, p.String())
	}
	want := []string{"counts.csv:26: count_2: warning: district 1, count 2: the totals add up to 21,685, and the valid votes are 21,684; a known defect, stated on defects.csv line 2"}
	if !slices.Equal(warnings, want) {
		t.Errorf("warnings:\n%s\nwant:\n%s", strings.Join(warnings, "\n"), strings.Join(want, "\n"))
	}
	sheets := decode[[]dataset.CountSheet](t, res.Files, dataset.CountsFile)
	ids := map[string]string{}
	for _, c := range sheets[0].Candidacies {
		ids[c.Name] = c.CandidateID
	}
	ds, err := dataset.LoadFiles(res.Files)
	if err != nil {
		t.Fatal(err)
	}
	parties := map[string]string{}
	for _, p := range ds.Parties() {
		parties[p.ShortName] = p.ID
	}
	got := string(dataset.EncodeJSON(map[string]any{"corrections": sheets[0].Corrections, "defects": sheets[0].Defects}))
	wantJSON := string(dataset.EncodeJSON(map[string]any{
		"corrections": []dataset.Correction{
			{CandidateID: ptr(ids["Sean Apap Meli"]), Count: intPtr(7), Field: "total", To: dataset.Number(0), Evidence: "the cell is empty in the transcription"},
			{CandidateID: ptr(ids["Sammy Farrugia"]), Field: "party", From: dataset.TextCell(parties["PL"]), To: dataset.TextCell(parties["ABBA"]), Evidence: "the row's party total is ABBA's"},
			{Count: intPtr(2), Field: "non_transferable", From: dataset.Number(0), To: dataset.Number(1), Evidence: "the transcription's count 2"},
		},
		"defects": []dataset.Defect{{Count: intPtr(2), Rule: "count-balance", Message: "count 2: the totals add up to 21,685, and the valid votes are 21,684", Note: "one vote too many in the transcription", Elected: []string{}}},
	}))
	if got != wantJSON {
		t.Errorf("district 1's corrections and defects in counts.json:\n%s\nwant\n%s", got, wantJSON)
	}
	for _, s := range sheets[1:] {
		if s.Corrections != nil || s.Defects != nil {
			t.Errorf("district %d: counts.json has corrections or defects, and the sheets state none", s.DistrictNumber)
		}
	}
}

func intPtr(n int) *int { return &n }

// TestImportErrataProblems: each problem of corrections.csv and
// defects.csv at its line and column, those import finds as it reads and
// those the dataset's rules find in what they state.
func TestImportErrataProblems(t *testing.T) {
	base := countsFolder2022(t)
	corrections := func(lines ...string) string {
		return "district,count,name,field,from,to,evidence\n" + strings.Join(lines, "\n") + "\n"
	}
	defects := func(lines ...string) string {
		return "district,count,rule,note\n" + strings.Join(lines, "\n") + "\n"
	}
	broken := setCell(base[sheet.CountsFile], 26, countsColumnBase+2, "1") // district 1, count 2: one vote too many
	tests := []struct {
		name string
		src  sheets
		want []string
	}{
		{"without the count sheets", base.without(sheet.CountsFile).without(sheet.DistrictTotalsFile).with(sheet.CorrectionsFile, corrections(), sheet.DefectsFile, defects()), []string{
			"counts.csv: file is missing: corrections.csv needs it and district_totals.csv beside it, for the count sheets whose figures it corrects",
			"counts.csv: file is missing: defects.csv needs it and district_totals.csv beside it, for the count sheets whose defects it states",
		}},
		{"cells of corrections.csv", base.with(sheet.CorrectionsFile, corrections(
			"1,7,Sean Apap Meli,name,,0,e",
			"1,7,,total,,0,e",
			"1,7,Sean Apap Meli,non_transferable,,0,e",
			"1,,Sean Apap Meli,total,,0,e",
			"1,7,Sean Apap Meli,party,PL,PL,e",
			"1,seven,Sean Apap Meli,total,,0,e",
			"1,7,Sean Apap Meli,total,none,,e",
			"1,,Sean Apap Meli,party,XX,PL,e",
			"14,7,Sean Apap Meli,total,,0,e",
			"1,7,Sean Apap Meli,total,,0,",
			"1,,Sean Apap Meli,district,,1,e",
		)), []string{
			`corrections.csv:2: field: "name" is not a field a correction changes: write total, non_transferable, party or district`,
			"corrections.csv:3: name: is empty: a correction of total names its row, as counts.csv prints it",
			`corrections.csv:4: name: is "Sean Apap Meli": a correction of non_transferable names no row; leave it empty`,
			"corrections.csv:5: count: is empty: a correction of total names its count",
			`corrections.csv:6: count: is "7": a correction of party names no count; leave it empty`,
			`corrections.csv:7: count: "seven" is not a count: write its number, such as 7`,
			`corrections.csv:8: from: "none" is not a whole number of votes: write digits only, such as 1234`,
			"corrections.csv:8: to: is empty: write what the sheet holds",
			`corrections.csv:9: from: no party in parties.csv has the slug, short name, name or English name "XX"; leave it empty for an independent`,
			`corrections.csv:10: district: district "14" is not a number from 1 to 13`,
			"corrections.csv:11: evidence: must not be empty",
			"corrections.csv:12: from: is empty: write the district the source gives the row, or where it files it, in words",
		}},
		{"what the sheet does not hold", base.with(sheet.CorrectionsFile, corrections(
			"1,7,Sean Apap Meli,total,,5,e",
			"1,,Sean Apap Meli,district,2017,2,e",
			"1,7,Sean Apap Meli,total,,0,e",
			"1,7,Sean Apap Meli,total,,0,e",
		)), []string{
			"corrections.csv:2: to: district 1, count 7: is 5, and Sean Apap Meli's total there is 0",
			"corrections.csv:3: to: is 2, and the sheet is district 1's",
			"corrections.csv:4: district: district 1, count 7: Sean Apap Meli's total is corrected already, on line 2",
			"corrections.csv:5: district: district 1, count 7: Sean Apap Meli's total is corrected already, on line 2",
		}},
		{"a count or a row the sheet has not", base.with(sheet.CorrectionsFile, corrections(
			"1,40,Sean Apap Meli,total,,0,e",
			"1,7,Sean Apap Mel,total,,0,e",
			"1,7,Sean Apap Meli,total,0,0,e",
		)), []string{
			"corrections.csv:2: count: is 40; must be a count of the sheet, 1 to 22",
			`corrections.csv:3: name: no row of district 1 in counts.csv is "Sean Apap Mel" (did you mean "Sean Apap Meli"?)`,
			"corrections.csv:4: from: is 0, as to is; a correction changes the source's figure",
		}},
		{"defects stated and not found", base.with(sheet.CountsFile, broken, sheet.DefectsFile, defects(
			"1,2,count-balance,one vote too many",
			"1,3,count-balance,one vote too many",
			"1,2,count-balance,again",
		)), []string{
			// The warnings are given once nothing is wrong.
			"defects.csv:3: district: district 1, count 3 is stated to break count-balance, and it balances",
			"defects.csv:4: district: district 1, count 2: count-balance is stated already, on line 2",
		}},
		{"cells of defects.csv", base.with(sheet.CountsFile, broken, sheet.DefectsFile, defects(
			"1,,quota,the quota",
			"1,x,count-event,e",
			"1,4,count-event,",
			"1,2,count-balance,one vote too many",
		)), []string{
			`defects.csv:2: rule: is "quota"; a defect names a rule of the count: count-balance, count-event, total-falls, elected-total-changes, elected-seats, registered`,
			`defects.csv:3: count: "x" is not a count: write its number, such as 7`,
			"defects.csv:4: note: must not be empty",
		}},
		{"a break not stated", base.with(sheet.CountsFile, broken, sheet.DefectsFile, defects()), []string{
			"counts.csv:26: count_2: district 1, count 2: the totals add up to 21,685, and the valid votes are 21,684",
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got, want := importProblems(t, tt.src.fs()), strings.Join(tt.want, "\n"); got != want {
				t.Errorf("report\n%s\nwant\n%s", got, want)
			}
		})
	}
}

// TestImportErrataElectedAsPublished: defects.csv's elected column names,
// on the elected-seats line of a final sheet that ends too early, who took
// the seats it leaves unfilled, as published: each matched to its row as
// ties.csv's names are (the name the row prints, or the candidate's name
// or slug), and elected at the sheet's last count, after those its counts
// elect, in the order named; the break stays a warning.
func TestImportErrataElectedAsPublished(t *testing.T) {
	base := countsFolder(t)
	src := base.with(
		sheet.CountsFile, cutCounts(base[sheet.CountsFile], "4", 10),
		sheet.DistrictTotalsFile, setCell(base[sheet.DistrictTotalsFile], 2, 6, "10"),
		sheet.DefectsFile, "district,count,rule,note,elected\n4,,elected-seats,the record ends at count 10,Jonathan Attard; mark-anthony-sammut ;Carmelo Mifsud Bonnici\n",
	)
	res, err := sheet.ImportWith(src.fs(), sheet.Options{})
	if err != nil {
		t.Fatalf("Import: %v", err)
	}
	var warnings []string
	for _, p := range res.Problems {
		warnings = append(warnings, p.String())
	}
	want := []string{
		"district_totals.csv:2: status: warning: district 4, the sheet is final, but its 10 counts elect 2 of its 5 seats: after count 10, the 12 candidates below the 3 seats left have 9,052 votes together, and Carm Mifsud Bonnici, the lowest of those who would take them, has 1,549; a further count could still change who is elected; a known defect, stated on defects.csv line 2",
	}
	if !slices.Equal(warnings, want) {
		t.Errorf("warnings:\n%s\nwant:\n%s", strings.Join(warnings, "\n"), strings.Join(want, "\n"))
	}
	sheets := decode[[]dataset.CountSheet](t, res.Files, dataset.CountsFile)
	names := map[string]string{}
	for _, c := range decode[[]dataset.Candidate](t, res.Files, dataset.CandidatesFile) {
		names[c.ID] = c.Name
	}
	var elected, stated, at []string
	for _, id := range sheets[0].Elected {
		elected = append(elected, names[id])
	}
	for _, id := range sheets[0].Defects[0].Elected {
		stated = append(stated, names[id])
	}
	for _, c := range sheets[0].Candidacies[2:5] {
		at = append(at, fmt.Sprintf("%s %d", c.Name, *c.ElectedAtCount))
	}
	if w := []string{"Chris Fearne", "Byron Camilleri", "Jonathan Attard", "Mark Anthony Sammut", "Carmelo Mifsud Bonnici"}; !slices.Equal(elected, w) {
		t.Errorf("elected %v, want %v", elected, w)
	}
	if w := []string{"Jonathan Attard", "Mark Anthony Sammut", "Carmelo Mifsud Bonnici"}; !slices.Equal(stated, w) {
		t.Errorf("the defect's elected %v, want %v", stated, w)
	}
	if w := []string{"Jonathan Attard 10", "Mark Anthony Sammut 10", "Carm Mifsud Bonnici 10"}; !slices.Equal(at, w) {
		t.Errorf("elected at %v, want %v", at, w)
	}
}

// TestImportErrataElectedProblems: each problem of defects.csv's elected
// column at its line and column, those import finds as it matches a name
// to its row and those the dataset's rules find in whom it names.
func TestImportErrataElectedProblems(t *testing.T) {
	base := countsFolder(t)
	src := func(lines ...string) fs.FS {
		return base.with(
			sheet.CountsFile, cutCounts(base[sheet.CountsFile], "4", 10),
			sheet.DistrictTotalsFile, setCell(setCell(base[sheet.DistrictTotalsFile], 2, 6, "10"), 2, 2, "22505"),
			sheet.DefectsFile, "district,count,rule,note,elected\n"+strings.Join(lines, "\n")+"\n",
		).fs()
	}
	const registered = "4,,registered,the figure is another district's,"
	tests := []struct {
		name string
		src  fs.FS
		want []string
	}{
		{"a name of no row", src("4,,elected-seats,e,Jonathan Atard", registered), []string{
			// The line is left out, and the break it states with it.
			"district_totals.csv:2: status: district 4, the sheet is final, but its 10 counts elect 2 of its 5 seats: after count 10, the 12 candidates below the 3 seats left have 9,052 votes together, and Carm Mifsud Bonnici, the lowest of those who would take them, has 1,549; a further count could still change who is elected; while the count goes on, write counting in its status column",
			`defects.csv:2: elected: no row of district 4 in counts.csv is "Jonathan Atard" (did you mean "Jonathan Attard"?)`,
		}},
		{"elected at a count, or excluded", src("4,,elected-seats,e,Chris Fearne;Antoine Daccache", registered), []string{
			"defects.csv:2: elected: district 4: Chris Fearne is elected at count 1; the seats the sheet leaves unfilled go to candidates continuing at its last count, 10",
			"defects.csv:2: elected: district 4: Antoine Daccache is excluded at count 10; the seats the sheet leaves unfilled go to candidates continuing at its last count, 10",
		}},
		{"more than the seats left", src("4,,elected-seats,e,Jonathan Attard;Mark Anthony Sammut;Jason Azzopardi;Chris Bonett", registered), []string{
			"defects.csv:2: elected: district 4: is [Jonathan Attard, Mark Anthony Sammut, Jason Azzopardi, Chris Bonett], 4 candidates, and the counts leave 3 of the 5 seats unfilled",
		}},
		{"named twice", src("4,,elected-seats,e,Jonathan Attard;jonathan-attard", registered), []string{
			"defects.csv:2: elected: district 4: Jonathan Attard is named twice; a candidate takes one seat",
		}},
		{"on another defect", src("4,,elected-seats,e,", registered+"Jonathan Attard"), []string{
			"defects.csv:3: elected: district 4: is [Jonathan Attard]; only the elected-seats defect of the sheet as a whole, at no count, states who took the seats the sheet leaves unfilled",
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got, want := importProblems(t, tt.src), strings.Join(tt.want, "\n"); got != want {
				t.Errorf("report\n%s\nwant\n%s", got, want)
			}
		})
	}
}

// TestImportErrataOfTheSheet: a final sheet that ends before every seat is
// filled, and registered voters fewer than the valid votes, stated in
// defects.csv with no count: each is a warning at its cell of
// district_totals.csv, which does not ask for counting in the status.
func TestImportErrataOfTheSheet(t *testing.T) {
	base := countsFolder(t)
	src := base.with(
		sheet.CountsFile, cutCounts(base[sheet.CountsFile], "4", 10),
		sheet.DistrictTotalsFile, setCell(setCell(base[sheet.DistrictTotalsFile], 2, 6, "10"), 2, 2, "22505"),
		sheet.DefectsFile, "district,count,rule,note\n4,,elected-seats,the record ends at count 10\n4,,registered,the figure is another district's\n",
	)
	res, err := sheet.ImportWith(src.fs(), sheet.Options{})
	if err != nil {
		t.Fatalf("Import: %v", err)
	}
	var warnings []string
	for _, p := range res.Problems {
		warnings = append(warnings, p.String())
	}
	want := []string{
		"district_totals.csv:2: registered: warning: district 4, the registered voters are 22,505, fewer than the 22,506 valid votes; a known defect, stated on defects.csv line 3",
		"district_totals.csv:2: status: warning: district 4, the sheet is final, but its 10 counts elect 2 of its 5 seats: after count 10, the 12 candidates below the 3 seats left have 9,052 votes together, and Carm Mifsud Bonnici, the lowest of those who would take them, has 1,549; a further count could still change who is elected; a known defect, stated on defects.csv line 2",
	}
	if !slices.Equal(warnings, want) {
		t.Errorf("warnings:\n%s\nwant:\n%s", strings.Join(warnings, "\n"), strings.Join(want, "\n"))
	}
}
