package dataset_test

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"
	"testing/fstest"
	"time"

	"ballot/dataset"
	"ballot/internal/datasettest"
)

// problemLines is each problem of ps as validate prints it, with its
// rule: "districts.json: /2/localities: … [district-localities]".
func problemLines(ps []dataset.Problem) []string {
	var lines []string
	for _, p := range ps {
		lines = append(lines, p.String()+" ["+p.Rule+"]")
	}
	return lines
}

// loadErrors loads m and returns its errors' lines, failing when it loads.
func loadErrors(t *testing.T, m fstest.MapFS, opts dataset.Options) []string {
	t.Helper()
	ds, err := dataset.LoadContext(t.Context(), m, opts)
	var report *dataset.Report
	if ds != nil || !errors.As(err, &report) {
		t.Fatalf("loaded: %v, want a report", err)
	}
	return problemLines(report.Errors)
}

// setElection replaces the line of [election] that begins with key in m's
// dataset.toml with line, or removes it when line is "".
func setElection(t *testing.T, m fstest.MapFS, key, line string) {
	t.Helper()
	var out []string
	found := false
	for l := range strings.SplitSeq(string(m[dataset.ManifestFile].Data), "\n") {
		if strings.HasPrefix(l, key+" =") {
			found = true
			if line == "" {
				continue
			}
			l = line
		}
		out = append(out, l)
	}
	if !found {
		t.Fatalf("dataset.toml has no %s", key)
	}
	m[dataset.ManifestFile].Data = []byte(strings.Join(out, "\n"))
}

// TestShapes: elections of 8 districts of 4 seats, of 10 of 5 and 6, and of
// 2 of 5 load with their own number of districts, each district with its
// seats (its own, or its count sheet's), each sheet's quota the Droop quota
// of its seats; the districts of the 8 list no localities, which a dataset
// on its own warns of.
func TestShapes(t *testing.T) {
	note := "district %d has no localities: its record says so in its note"
	tests := []struct {
		name     string
		seats    []int
		warnings []string
	}{
		{datasettest.Eight, []int{4, 4, 4, 4, 4, 4, 4, 4}, []string{
			"districts.json: /0/localities: " + fmt.Sprintf(note, 1) + " [district-localities]",
			"districts.json: /1/localities: " + fmt.Sprintf(note, 2) + " [district-localities]",
			`districts.json: /2/localities: district 3 has no localities, and no note: say in its note why they are not given ("No locality list is given for the districts of 1950") [district-localities]`,
			"districts.json: /3/localities: " + fmt.Sprintf(note, 4) + " [district-localities]",
			"districts.json: /4/localities: " + fmt.Sprintf(note, 5) + " [district-localities]",
			"districts.json: /5/localities: " + fmt.Sprintf(note, 6) + " [district-localities]",
			"districts.json: /6/localities: " + fmt.Sprintf(note, 7) + " [district-localities]",
			"districts.json: /7/localities: " + fmt.Sprintf(note, 8) + " [district-localities]",
		}},
		{datasettest.Ten, []int{6, 6, 6, 6, 6, 5, 5, 5, 5, 5}, nil},
		{datasettest.Two, []int{5, 5}, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ds := datasettest.ShapeDataset(t, tt.name)
			if got := len(ds.Districts()); got != len(tt.seats) || ds.Manifest.Election.DistrictCount() != len(tt.seats) {
				t.Fatalf("%d districts, [election] districts %d; want %d", got, ds.Manifest.Election.DistrictCount(), len(tt.seats))
			}
			for i, d := range ds.Districts() {
				if d.Number != i+1 || d.Seats == nil || *d.Seats != tt.seats[i] {
					t.Errorf("district %d (number %d): seats %v, want %d", i+1, d.Number, d.Seats, tt.seats[i])
				}
			}
			if len(ds.Sheets()) != len(tt.seats) {
				t.Fatalf("%d sheets, want %d", len(ds.Sheets()), len(tt.seats))
			}
			for _, s := range ds.Sheets() {
				if s.Seats != tt.seats[s.DistrictNumber-1] || s.Quota != s.ValidVotes/(s.Seats+1)+1 || len(s.Elected) != s.Seats {
					t.Errorf("sheet of district %d: %d seats, quota %d of %d valid votes, %d elected", s.DistrictNumber, s.Seats, s.Quota, s.ValidVotes, len(s.Elected))
				}
			}
			if got := problemLines(ds.Warnings); !slices.Equal(got, tt.warnings) {
				t.Errorf("warnings\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(tt.warnings, "\n"))
			}
		})
	}
}

// TestDistrictCount: [election] districts is the number of districts the
// dataset must hold, numbered 1 to it, and the messages say which number
// was checked and where it comes from; 13 when it does not say.
func TestDistrictCount(t *testing.T) {
	tests := []struct {
		name  string
		shape string
		edit  func(t *testing.T, m fstest.MapFS)
		want  []string
	}{
		{"8 districts where the manifest does not say", datasettest.Eight, func(t *testing.T, m fstest.MapFS) {
			setElection(t, m, "districts", "")
		}, []string{"districts.json: must hold exactly 13 districts, found 8 [district-count]"}},
		{"8 districts where it says 7", datasettest.Eight, func(t *testing.T, m fstest.MapFS) {
			setElection(t, m, "districts", "districts = 7")
		}, []string{
			"districts.json: must hold exactly 7 districts, as [election] districts says, found 8 [district-count]",
			"districts.json: /7/number: district number 8 is outside 1 to 7 [district-number]",
		}},
		{"10 districts where it says 11", datasettest.Ten, func(t *testing.T, m fstest.MapFS) {
			setElection(t, m, "districts", "districts = 11")
		}, []string{"districts.json: must hold exactly 11 districts, as [election] districts says, found 10 [district-count]"}},
		{"a number missing among 10", datasettest.Ten, func(t *testing.T, m fstest.MapFS) {
			delete(m, dataset.CountsFile) // which would name the district by its old number
			datasettest.Edit(t, m, dataset.DistrictsFile, func(rs []map[string]any) []map[string]any { rs[9]["number"] = 11; return rs })
		}, []string{
			"districts.json: /9/number: district number 11 is outside 1 to 10 [district-number]",
			"districts.json: district number 10 is missing [district-number]",
		}},
		{"a number missing of 2", datasettest.Two, func(t *testing.T, m fstest.MapFS) {
			delete(m, dataset.CountsFile)
			datasettest.Edit(t, m, dataset.DistrictsFile, func(rs []map[string]any) []map[string]any { rs[1]["number"] = 1; return rs })
		}, []string{
			"districts.json: /1/number: district number 1 is already used at districts.json#/0/number [district-number]",
			"districts.json: district number 2 is missing [district-number]",
		}},
		{"no district", datasettest.Two, func(t *testing.T, m fstest.MapFS) {
			setElection(t, m, "districts", "districts = 0")
		}, []string{"dataset.toml: election.districts: is 0; must be a number of districts from 1 to 31 [range]"}},
		{"more districts than ballot takes", datasettest.Two, func(t *testing.T, m fstest.MapFS) {
			setElection(t, m, "districts", "districts = 32")
		}, []string{"dataset.toml: election.districts: is 32; must be a number of districts from 1 to 31 [range]"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m := datasettest.Shape(t, tt.shape)
			tt.edit(t, m)
			if got := loadErrors(t, m, dataset.Options{}); !slices.Equal(got, tt.want) {
				t.Errorf("errors\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(tt.want, "\n"))
			}
		})
	}
}

// TestDistrictSeatsAndNote: a district's seats are 1 or more and agree
// with its count sheet's; a district that does not give them takes the
// sheet's, and without a sheet they are null; its note is text or null.
func TestDistrictSeatsAndNote(t *testing.T) {
	tests := []struct {
		name string
		edit func(rs []map[string]any)
		want []string
	}{
		{"no seats", func(rs []map[string]any) { rs[0]["seats"] = 0 }, []string{
			"districts.json: /0/seats: is 0; must be 1 or more [range]"}},
		{"seats past what JSON keeps exact", func(rs []map[string]any) { rs[0]["seats"] = 1 << 53 }, []string{
			"districts.json: /0/seats: is 9,007,199,254,740,992; must be at most 9,007,199,254,740,991, the largest integer every JSON reader keeps exact [range]"}},
		{"seats that are not a number", func(rs []map[string]any) { rs[0]["seats"] = "4" }, []string{
			"districts.json: /0/seats: must be an integer, not string [type]"}},
		{"seats the sheet does not fill", func(rs []map[string]any) { rs[4]["seats"] = 5 }, []string{
			"counts.json: /4/seats: district 5: the sheet fills 4 seats, and the district elects 5 (districts.json#/4/seats): the two must agree [district-seats]"}},
		{"an empty note", func(rs []map[string]any) { rs[1]["note"] = " " }, []string{
			"districts.json: /1/note: must not be empty (use null, or leave the field out, when it is unknown) [required]"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m := datasettest.Shape(t, datasettest.Eight)
			datasettest.Edit(t, m, dataset.DistrictsFile, func(rs []map[string]any) []map[string]any { tt.edit(rs); return rs })
			if got := loadErrors(t, m, dataset.Options{}); !slices.Equal(got, tt.want) {
				t.Errorf("errors\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(tt.want, "\n"))
			}
		})
	}

	t.Run("without count sheets", func(t *testing.T) {
		m := datasettest.Shape(t, datasettest.Eight)
		delete(m, dataset.CountsFile)
		ds, err := dataset.Load(m)
		if err != nil {
			t.Fatal(err)
		}
		for _, d := range ds.Districts() {
			// Districts 1, 3, 5 and 7 give their seats; the others took
			// their sheet's.
			if given := d.Number%2 == 1; given != (d.Seats != nil) {
				t.Errorf("district %d: seats %v", d.Number, d.Seats)
			}
		}
		if got := string(dataset.EncodeRecord(ds.Districts()[1])); !strings.Contains(got, `"source_url":null,"seats":null,"note":"No locality list is given for the districts of this election"}`) {
			t.Errorf("district 2 is served as %s", got)
		}
	})
}

// TestDistrictsWithoutLocalities: a district that lists no localities is
// a warning in a dataset of a past election, and an error in the current
// one (Options.Current), as the contract says of it.
func TestDistrictsWithoutLocalities(t *testing.T) {
	current := func(dataset.Election) bool { return true }
	m := datasettest.Shape(t, datasettest.Eight)
	got := loadErrors(t, m, dataset.Options{Current: current})
	if len(got) != 8 {
		t.Fatalf("%d errors, want one for each of the 8 districts:\n%s", len(got), strings.Join(got, "\n"))
	}
	want := "districts.json: /2/localities: district 3 has no localities: every district of the current election (and of a dataset served alone) lists its localities; only a past election of an archive may leave them out, saying why in the district's note [district-localities]"
	if got[2] != want {
		t.Errorf("error\n%s\nwant\n%s", got[2], want)
	}

	// One district of today's 13 without its localities.
	m = datasettest.Files(t)
	datasettest.Edit(t, m, dataset.DistrictsFile, func(rs []map[string]any) []map[string]any {
		rs[4]["localities"] = []any{}
		rs[4]["note"] = "No locality list is given for this district"
		return rs
	})
	past := func(dataset.Election) bool { return false }
	ds, err := dataset.LoadContext(t.Context(), m, dataset.Options{Current: past})
	if err != nil {
		t.Fatalf("a past election: %v", err)
	}
	if got, want := problemLines(ds.Warnings), []string{"districts.json: /4/localities: district 5 has no localities: its record says so in its note [district-localities]"}; !slices.Equal(got, want) {
		t.Errorf("warnings %q, want %q", got, want)
	}
	if got, want := loadErrors(t, m, dataset.Options{Current: current}), []string{"districts.json: /4/localities: district 5 has no localities: every district of the current election (and of a dataset served alone) lists its localities; only a past election of an archive may leave them out, saying why in the district's note [district-localities]"}; !slices.Equal(got, want) {
		t.Errorf("errors %q, want %q", got, want)
	}
}

// TestShapeQueries: the district and stood_in filters, the results'
// district, the lookups by number and the locality parameter take the
// election's own numbers, and refuse the others with them.
func TestShapeQueries(t *testing.T) {
	refused := func(name string, n int) string {
		return fmt.Sprintf("%s must be a district number from 1 to %d or a district UUID", name, n)
	}
	tests := []struct {
		shape  string
		c      dataset.Collection
		params dataset.Params
		count  int    // the records, when accepted
		err    string // the refusal
	}{
		{datasettest.Eight, dataset.Candidates, dataset.Params{"district": {"8"}}, 7, ""},
		{datasettest.Eight, dataset.Candidates, dataset.Params{"district": {"9"}}, 0, refused("district", 8)},
		{datasettest.Eight, dataset.Candidates, dataset.Params{"stood_in": {"8"}}, 7, ""},
		{datasettest.Eight, dataset.Candidates, dataset.Params{"stood_in": {"9"}}, 0, refused("stood_in", 8)},
		{datasettest.Eight, dataset.Results, dataset.Params{"district": {"8"}}, 1, ""},
		{datasettest.Eight, dataset.Results, dataset.Params{"district": {"9"}}, 0, refused("district", 8)},
		{datasettest.Eight, dataset.Districts, dataset.Params{"locality": {"Valletta"}}, 0, "locality names no locality: the districts of this dataset list none"},
		{datasettest.Ten, dataset.Candidates, dataset.Params{"district": {"10"}}, 8, ""},
		{datasettest.Ten, dataset.Candidates, dataset.Params{"district": {"1"}, "elected": {"true"}}, 6, ""},
		{datasettest.Ten, dataset.Candidates, dataset.Params{"district": {"10"}, "elected": {"true"}}, 5, ""},
		{datasettest.Ten, dataset.Candidates, dataset.Params{"district": {"11"}}, 0, refused("district", 10)},
		{datasettest.Ten, dataset.Districts, dataset.Params{"locality": {"Belt 10"}}, 1, ""},
		{datasettest.Two, dataset.Candidates, dataset.Params{"stood_in": {"2"}}, 8, ""},
		{datasettest.Two, dataset.Candidates, dataset.Params{"district": {"3"}, "stood_in": {"3"}}, 0, refused("district", 2) + "; " + refused("stood_in", 2)},
	}
	for _, tt := range tests {
		t.Run(fmt.Sprint(tt.shape, " ", tt.c, " ", tt.params), func(t *testing.T) {
			ds := datasettest.ShapeDataset(t, tt.shape)
			res, err := ds.Query(tt.c, tt.params)
			switch {
			case tt.err != "" && (err == nil || err.Error() != tt.err):
				t.Errorf("error %v, want %q", err, tt.err)
			case tt.err == "" && err != nil:
				t.Errorf("refused: %v", err)
			case tt.err == "" && res.Count() != tt.count:
				t.Errorf("%d records, want %d", res.Count(), tt.count)
			}
		})
	}

	ds := datasettest.ShapeDataset(t, datasettest.Eight)
	for _, tt := range []struct {
		c    dataset.Collection
		key  string
		want string
	}{
		{dataset.Districts, "9", `no district has the number or id "9"; districts are numbered 1 to 8`},
		{dataset.Results, "9", `no count sheet has the district number or id "9"; districts are numbered 1 to 8`},
	} {
		if _, err := ds.Record(tt.c, tt.key); err == nil || err.Error() != tt.want {
			t.Errorf("%s %s: %v, want %q", tt.c, tt.key, err, tt.want)
		}
		if _, err := ds.Record(tt.c, "8"); err != nil {
			t.Errorf("%s 8: %v", tt.c, err)
		}
	}
}

// TestMoreDistrictsThanToday: an election may have more districts than
// today's 13, up to 31, numbered from 1: each is a filter's value, a
// list, and a filter echoed in meta.
func TestMoreDistrictsThanToday(t *testing.T) {
	const n = dataset.MaxDistricts
	m := datasettest.Shape(t, datasettest.Two)
	delete(m, dataset.CountsFile)
	setElection(t, m, "districts", fmt.Sprintf("districts = %d", n))
	var lastID string
	datasettest.Edit(t, m, dataset.DistrictsFile, func(rs []map[string]any) []map[string]any {
		for i := 3; i <= n; i++ {
			lastID = fmt.Sprintf("00000000-0000-4000-8000-%012d", i)
			rs = append(rs, map[string]any{"id": lastID, "number": i, "name": fmt.Sprint("District ", i),
				"localities": []any{map[string]any{"name": fmt.Sprint("Town ", i), "slug": fmt.Sprint("town-", i)}}})
		}
		return rs
	})
	datasettest.Edit(t, m, dataset.CandidatesFile, func(rs []map[string]any) []map[string]any {
		rs[0]["primary_district_id"], rs[0]["district_ids"] = lastID, []any{lastID}
		return rs
	})
	ds, err := dataset.Load(m)
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range []dataset.Params{{"district": {fmt.Sprint(n)}}, {"stood_in": {fmt.Sprint(n)}}} {
		res, err := ds.Query(dataset.Candidates, p)
		if err != nil || res.Count() != 1 {
			t.Fatalf("%v: %d candidates, %v; want 1", p, res.Count(), err)
		}
		body := string(datasettest.Answer(ds, res).AppendJSON(nil, time.Time{}))
		if want := fmt.Sprintf(`{"number":%d,"id":"%s"}`, n, lastID); !strings.Contains(body, want) {
			t.Errorf("%v: meta does not echo %s:\n%.300s", p, want, body)
		}
	}
	if res, err := ds.Query(dataset.Districts, dataset.Params{"locality": {"Town 31"}}); err != nil || res.Count() != 1 || res.Index(0) != n-1 {
		t.Errorf("locality Town 31: %v", err)
	}
	if _, err := ds.Query(dataset.Candidates, dataset.Params{"district": {fmt.Sprint(n + 1)}}); err == nil || err.Error() != fmt.Sprintf("district must be a district number from 1 to %d or a district UUID", n) {
		t.Errorf("district %d: %v", n+1, err)
	}
}
