package dataset_test

import (
	"encoding/csv"
	"os"
	"path/filepath"
	"testing"

	"ballot/dataset"
)

// The facts of the 2022 count sheets that dataset/malta-2022/SOURCES.md
// ("Count sheets") gives, recomputed from the embedded counts.json: the
// national totals, the leaders' first counts and the seats at the count.
func TestEmbeddedCountSheets(t *testing.T) {
	ds, err := dataset.Default()
	if err != nil {
		t.Fatal(err)
	}
	sheets := ds.Sheets()
	if len(sheets) != dataset.DefaultDistricts {
		t.Fatalf("%d sheets, want one for each of the %d districts", len(sheets), dataset.DefaultDistricts)
	}
	short := map[string]string{} // party id -> short name
	for _, p := range ds.Parties() {
		short[p.ID] = p.ShortName
	}
	party := map[string]*string{}
	for _, c := range ds.Candidates() {
		party[c.ID] = c.PartyID
	}
	valid, registered, seats := 0, 0, 0
	first := map[string]int{}   // party short name ("" independents) -> first preferences
	atCount := map[string]int{} // party -> seats at the count
	byName := map[string]map[int]int{}
	for i, s := range sheets {
		if s.DistrictNumber != i+1 || s.Status != dataset.StatusFinal || s.Seats != 5 || len(s.Elected) != 5 {
			t.Errorf("district %d: number %d, status %s, %d seats, %d elected", i+1, s.DistrictNumber, s.Status, s.Seats, len(s.Elected))
		}
		valid += s.ValidVotes
		registered += *s.Registered
		seats += len(s.Elected)
		for _, c := range s.Candidacies {
			p := ""
			if id := party[c.CandidateID]; id != nil {
				p = short[*id]
			}
			first[p] += c.FirstPreferences
			if c.ElectedAtCount != nil {
				atCount[p]++
			}
			if byName[c.Name] == nil {
				byName[c.Name] = map[int]int{}
			}
			byName[c.Name][s.DistrictNumber] = c.FirstPreferences
		}
	}
	if valid != 295248 || registered != 355075 || seats != 65 {
		t.Errorf("valid votes %d, registered %d, seats at the count %d; want 295248, 355075, 65", valid, registered, seats)
	}
	for p, want := range map[string]int{"PL": 162707, "PN": 123233, "ADPD": 4747, "PP": 1533, "ABBA": 1364, "": 1282, "Volt": 382} {
		if first[p] != want {
			t.Errorf("first preferences of %q: %d, want %d", p, first[p], want)
		}
	}
	if atCount["PL"] != 38 || atCount["PN"] != 27 || len(atCount) != 2 {
		t.Errorf("seats at the count: %v, want PL 38, PN 27", atCount)
	}
	for _, f := range []struct {
		name     string
		district int
		votes    int
	}{{"Robert Abela", 2, 11694}, {"Robert Abela", 5, 9996}, {"Bernard Grech", 5, 5799}, {"Bernard Grech", 11, 9450}} {
		if got := byName[f.name][f.district]; got != f.votes {
			t.Errorf("%s's first preferences on the %d: %d, want %d", f.name, f.district, got, f.votes)
		}
	}
}

// The count sheet import reads is the published one (source/counts.csv,
// as SOURCES.md gives it), with only the candidate's name filled in where
// the printed name differs from candidates.csv's and the published file
// leaves it empty: 14 rows, of 7 people.
func TestEmbeddedCountSheetIsThePublishedOne(t *testing.T) {
	read := func(name string) [][]string {
		f, err := os.Open(filepath.Join("malta-2022", name))
		if err != nil {
			t.Fatal(err)
		}
		defer f.Close()
		rows, err := csv.NewReader(f).ReadAll()
		if err != nil {
			t.Fatal(err)
		}
		return rows
	}
	published, sheet := read("source/counts.csv"), read("sheets/counts.csv")
	if len(published) != len(sheet) {
		t.Fatalf("%d rows, the published sheet %d", len(sheet), len(published))
	}
	filled := 0
	for i := range published {
		for j := range published[i] {
			switch p, s := published[i][j], sheet[i][j]; {
			case p == s:
			case j == 3 && p == "" && s != "":
				filled++
			default:
				t.Errorf("line %d, column %d: %q, published %q", i+1, j+1, s, p)
			}
		}
	}
	if filled != 14 {
		t.Errorf("%d candidate names filled in, want 14", filled)
	}
}
