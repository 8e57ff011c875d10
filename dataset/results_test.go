package dataset_test

import (
	"errors"
	"reflect"
	"slices"
	"testing"

	"ballot/dataset"
	"ballot/internal/datasettest"
)

// TestNationalTotals2022 holds the national totals of the 2022 count
// sheets to the figures SOURCES.md gives ("Count sheets"): the valid votes
// and registered voters as electionguide and the IPU give them, the
// parties' first preferences as reported, and the 65 seats at the count.
func TestNationalTotals2022(t *testing.T) {
	ds := datasettest.Counts(t, true)
	slug := map[string]string{}
	for _, p := range ds.Parties() {
		slug[p.ID] = p.Slug
	}
	type row struct {
		party                 string
		first, atCount, inPar int
		share                 float64
	}
	var got []row
	n := ds.NationalTotals()
	for _, p := range n.Parties {
		r := row{party: "independents", first: p.FirstPreferences, atCount: p.SeatsAtCount, inPar: p.SeatsElected, share: p.Share}
		if p.PartyID != nil {
			r.party = slug[*p.PartyID]
		}
		got = append(got, r)
	}
	elected := map[string]int{}
	for _, c := range ds.Candidates() {
		if c.Elected != nil && *c.Elected {
			p := "independents"
			if c.PartyID != nil {
				p = slug[*c.PartyID]
			}
			elected[p]++
		}
	}
	want := []row{
		{"pl", 162707, 38, elected["pl"], 0.5511},
		{"pn", 123233, 27, elected["pn"], 0.4174},
		{"adpd", 4747, 0, elected["adpd"], 0.0161},
		{"pp", 1533, 0, elected["pp"], 0.0052},
		{"abba", 1364, 0, elected["abba"], 0.0046},
		{"independents", 1282, 0, elected["independents"], 0.0043},
		{"volt", 382, 0, elected["volt"], 0.0013},
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("parties:\n got %v\nwant %v", got, want)
	}
	if n.ValidVotes != 295248 || n.Registered == nil || *n.Registered != 355075 || n.Districts != 13 || n.Final != 13 || n.Seats != 65 {
		t.Errorf("valid_votes %d, registered %v, districts %d, final %d, seats %d; want 295248, 355075, 13, 13, 65",
			n.ValidVotes, n.Registered, n.Districts, n.Final, n.Seats)
	}
	if elected["pl"] < 38 || elected["pn"] < 27 {
		t.Errorf("seats in parliament %v: fewer than at the count", elected)
	}
}

// TestSeatsWon: each party's candidates elected, in the parties' order and
// the independents last, with or without count sheets, and the national
// totals' seats_elected are the same figures; nil once a candidate does not
// say whether they were elected.
func TestSeatsWon(t *testing.T) {
	for _, sheets := range []bool{true, false} {
		ds := datasettest.Counts(t, sheets)
		parties := ds.Parties()
		want := make([]int, len(parties)+1)
		for _, c := range ds.Candidates() {
			if c.Elected == nil || !*c.Elected {
				continue
			}
			i := len(parties)
			if c.PartyID != nil {
				i = slices.IndexFunc(parties, func(p dataset.Party) bool { return p.ID == *c.PartyID })
			}
			want[i]++
		}
		got := ds.SeatsWon()
		if !slices.Equal(got, want) {
			t.Errorf("sheets %v: SeatsWon %v, want %v", sheets, got, want)
		}
		// 79 seats, one of them a co-opted member who was no candidate
		// (SOURCES.md, "The elected column").
		if n := sumInts(want); n != 78 {
			t.Errorf("sheets %v: %d candidates elected, want 78", sheets, n)
		}
		for _, p := range ds.NationalTotals().Parties {
			i := len(parties)
			if p.PartyID != nil {
				i = slices.IndexFunc(parties, func(q dataset.Party) bool { return q.ID == *p.PartyID })
			}
			if p.SeatsElected != want[i] {
				t.Errorf("national totals: %v has seats_elected %d, want %d", p.PartyID, p.SeatsElected, want[i])
			}
		}
		got[0] = -1 // a copy: the dataset stays as loaded
		if ds.SeatsWon()[0] != want[0] {
			t.Errorf("SeatsWon gave the dataset's own slice")
		}
	}
	m := datasettest.CountsFiles(t, false)
	datasettest.Edit(t, m, dataset.CandidatesFile, func(records []map[string]any) []map[string]any {
		records[0]["elected"] = nil
		return records
	})
	ds, err := dataset.Load(m)
	if err != nil {
		t.Fatal(err)
	}
	if got := ds.SeatsWon(); got != nil {
		t.Errorf("a candidate's elected null: SeatsWon %v, want nil", got)
	}
}

func sumInts(v []int) (n int) {
	for _, x := range v {
		n += x
	}
	return n
}

// TestNationalTotalsWithoutSheets: a dataset without count sheets has
// national totals of nothing, and registered null.
func TestNationalTotalsWithoutSheets(t *testing.T) {
	n := datasettest.Counts(t, false).NationalTotals()
	want := dataset.NationalTotals{Parties: []dataset.PartyTotal{}}
	if !reflect.DeepEqual(n, want) {
		t.Errorf("national totals %+v, want %+v", n, want)
	}
}

// TestQueryResults: the results collection, its district filter and one
// sheet by its key, with and without count sheets.
func TestQueryResults(t *testing.T) {
	withSheets, without := datasettest.Counts(t, true), datasettest.Counts(t, false)
	id5 := withSheets.Districts()[4].ID
	tests := []struct {
		name   string
		ds     *dataset.Dataset
		params dataset.Params
		want   []int // the sheets' district numbers
		bad    string
	}{
		{"every sheet", withSheets, nil, []int{1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13}, ""},
		{"by number", withSheets, dataset.Params{"district": {"5"}}, []int{5}, ""},
		{"by number with a zero", withSheets, dataset.Params{"district": {"05"}}, []int{5}, ""},
		{"by UUID in capitals", withSheets, dataset.Params{"district": {"D0E4F679-6E46-543C-A8F9-478075ABCC0A"}}, []int{5}, ""},
		{"an empty value is none", withSheets, dataset.Params{"district": {""}}, []int{1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13}, ""},
		{"limit and offset are not read", withSheets, dataset.Params{"limit": {"1"}, "offset": {"99"}}, []int{1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13}, ""},
		{"no sheets", without, nil, []int{}, ""},
		{"no sheet of the district", without, dataset.Params{"district": {id5}}, []int{}, ""},
		{"a number out of range", withSheets, dataset.Params{"district": {"14"}}, nil, "district must be a district number from 1 to 13 or a district UUID"},
		{"a UUID of no district", withSheets, dataset.Params{"district": {"00000000-0000-0000-0000-000000000000"}}, nil,
			"district names no published district; must be a district number from 1 to 13 or a district UUID"},
		{"given twice", withSheets, dataset.Params{"district": {"5", "6"}}, nil, "district must be given at most once"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res, err := tt.ds.Query(dataset.Results, tt.params)
			if tt.bad != "" {
				var perr *dataset.ParamError
				if !errors.As(err, &perr) || err.Error() != tt.bad {
					t.Fatalf("error %v, want the ParamError %q", err, tt.bad)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			got := []int{}
			for i := range res.Count() {
				got = append(got, tt.ds.Sheets()[res.Index(i)].DistrictNumber)
			}
			if !reflect.DeepEqual(got, tt.want) || res.Total() != len(tt.want) || res.Paged() {
				t.Errorf("sheets %v, total %d, paged %v; want %v, %d, false", got, res.Total(), res.Paged(), tt.want, len(tt.want))
			}
		})
	}
}

// TestRecordResult: one sheet by its district's number or UUID, or a
// NotFoundError worded as a district's.
func TestRecordResult(t *testing.T) {
	withSheets, without := datasettest.Counts(t, true), datasettest.Counts(t, false)
	tests := []struct {
		name string
		ds   *dataset.Dataset
		key  string
		want int    // the sheet's district number
		err  string // the NotFoundError's message
	}{
		{"by number", withSheets, "5", 5, ""},
		{"by number with a zero", withSheets, "013", 13, ""},
		{"by UUID", withSheets, "d0e4f679-6e46-543c-a8f9-478075abcc0a", 5, ""},
		{"by UUID in capitals", withSheets, "D0E4F679-6E46-543C-A8F9-478075ABCC0A", 5, ""},
		{"out of range", withSheets, "14", 0, `no count sheet has the district number or id "14"; districts are numbered 1 to 13`},
		{"zero", withSheets, "0", 0, `no count sheet has the district number or id "0"; districts are numbered 1 to 13`},
		{"national is no record", withSheets, "national", 0, `no count sheet has the district number or id "national"; districts are numbered 1 to 13`},
		{"a district without a sheet", without, "5", 0, "district 5 has no count sheet in this dataset"},
		{"a district without a sheet by UUID", without, "D0E4F679-6E46-543C-A8F9-478075ABCC0A", 0, "district 5 has no count sheet in this dataset"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res, err := tt.ds.Record(dataset.Results, tt.key)
			if tt.err != "" {
				var nf *dataset.NotFoundError
				if !errors.As(err, &nf) || err.Error() != tt.err {
					t.Fatalf("error %v, want the NotFoundError %q", err, tt.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if res.Count() != 1 || tt.ds.Sheets()[res.Index(0)].DistrictNumber != tt.want {
				t.Errorf("%d records, the first of district %d; want one, of district %d", res.Count(), tt.ds.Sheets()[res.Index(0)].DistrictNumber, tt.want)
			}
			// The record's answer is the district filter's.
			filtered, _ := tt.ds.Query(dataset.Results, dataset.Params{"district": {tt.key}})
			if filtered.List() != res.List() {
				t.Errorf("/results/%s and ?district=%s answer from different lists", tt.key, tt.key)
			}
		})
	}
}
