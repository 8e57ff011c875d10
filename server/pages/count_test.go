package pages

import (
	"fmt"
	"math"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"ballot/dataset"
	"ballot/internal/datasettest"
)

// TestStory: the sentences of counts the 2022 sheets never have (several
// excluded at once, a surplus that goes wholly to non-transferable, more
// gains than a sentence lists, the last seat filled without the quota),
// in both languages.
func TestStory(t *testing.T) {
	at := func(n int) *int { return &n }
	// Seats 2, valid votes 100, quota 34: A is elected on first
	// preferences; C and D, the lowest, are excluded together; A's
	// surplus of 6 all goes to non-transferable; E drops out; B is
	// elected as the last continuing candidate.
	sheet := &dataset.CountSheet{
		Seats: 2, ValidVotes: 100, Quota: 34,
		Counts: []dataset.Count{
			{Number: 1, Event: dataset.EventFirstPreferences},
			{Number: 2, Event: dataset.EventExclusion, CandidateIDs: []string{"c", "d"}, Votes: 6, NonTransferable: 1},
			{Number: 3, Event: dataset.EventSurplus, CandidateIDs: []string{"a"}, Votes: 6, NonTransferable: 7},
			{Number: 4, Event: dataset.EventExclusion, CandidateIDs: []string{"e"}, Votes: 27, NonTransferable: 7},
		},
		Candidacies: []dataset.Candidacy{
			{CandidateID: "a", Totals: []int{40, 40, 34, 34}, ElectedAtCount: at(1)},
			{CandidateID: "b", Totals: []int{27, 29, 29, 33}, ElectedAtCount: at(4)},
			{CandidateID: "e", Totals: []int{27, 27, 27, 0}, ExcludedAtCount: at(4)},
			{CandidateID: "c", Totals: []int{5, 0, 0, 0}, ExcludedAtCount: at(2)},
			{CandidateID: "d", Totals: []int{1, 0, 0, 0}, ExcludedAtCount: at(2)},
		},
		Elected: []string{"a", "b"},
	}
	names := []string{"Anna", "Bert", "Emma", "Carm", "Dora"}
	tests := []struct {
		lang *Lang
		want []storyLine
	}{
		{English, []storyLine{
			{"Count 1:", "The first preferences of 100 valid votes; the quota is 34. Anna reaches the quota and is elected.", ""},
			{"Count 2:", "Carm and Dora excluded with 6 votes between them: Bert +2; 1 vote became non-transferable.", ""},
			{"Count 3:", "Anna's surplus of 6 votes transferred: no candidate gained; 6 votes became non-transferable.", ""},
			{"Count 4:", "Emma excluded with 27 votes: Bert +4; none became non-transferable. Bert is elected without reaching the quota, as many candidates being left as seats.", ""},
		}},
		{Maltese, []storyLine{
			{"Għadd 1:", "L-ewwel preferenzi; il-voti validi huma 100 u l-kwota hija 34. Anna: elett/a, bil-kwota.", ""},
			{"Għadd 2:", "Carm u Dora eliminati b'6 voti bejniethom: Bert +2; mhux trasferibbli: 1 vot.", ""},
			{"Għadd 3:", "Is-surplus ta' Anna ta' 6 voti ġie trasferit: l-ebda kandidat ma kiseb voti; mhux trasferibbli: 6 voti.", ""},
			{"Għadd 4:", "Emma eliminat/a b'27 vot: Bert +4; il-voti kollha ġew trasferiti. Bert: elett/a mingħajr il-kwota, għax baqgħu kandidati daqs is-siġġijiet.", ""},
		}},
	}
	for _, tt := range tests {
		s := &Site{lang: tt.lang}
		got := s.story(sheet, names, rowsByID(sheet))
		for i := range max(len(got), len(tt.want)) {
			var g, w storyLine
			if i < len(got) {
				g = got[i]
			}
			if i < len(tt.want) {
				w = tt.want[i]
			}
			if g != w {
				t.Errorf("%s, count %d:\n got %q\nwant %q", tt.lang.Code, i+1, g, w)
			}
		}
	}
}

// TestStoryOfDefects: the counts a sheet states defects of are marked,
// and an irregular count (neither one surplus nor an exclusion, which
// only such a sheet has) is told as its totals show it: whose fell, by how
// much together, and who gained; or that none fell. In both languages.
func TestStoryOfDefects(t *testing.T) {
	at := func(n int) *int { return &n }
	// Seats 2, valid votes 100, quota 34: A is elected on first
	// preferences; count 2 moves A's surplus and excludes C at once;
	// count 3 moves nothing; B takes the last seat.
	sheet := &dataset.CountSheet{
		Seats: 2, ValidVotes: 100, Quota: 34,
		Counts: []dataset.Count{
			{Number: 1, Event: dataset.EventFirstPreferences},
			{Number: 2, Event: dataset.EventIrregular, CandidateIDs: []string{"a", "c"}, Votes: 11, NonTransferable: 1},
			{Number: 3, Event: dataset.EventIrregular, CandidateIDs: []string{}, NonTransferable: 1},
		},
		Candidacies: []dataset.Candidacy{
			{CandidateID: "a", Totals: []int{40, 34, 34}, ElectedAtCount: at(1)},
			{CandidateID: "b", Totals: []int{30, 33, 33}, ElectedAtCount: at(3)},
			{CandidateID: "e", Totals: []int{25, 32, 32}},
			{CandidateID: "c", Totals: []int{5, 0, 0}, ExcludedAtCount: at(2)},
		},
		Elected: []string{"a", "b"},
		Defects: []dataset.Defect{
			{Count: at(2), Rule: "count-event", Message: "count 2: A's surplus moves and C is excluded at the same count; a count is one event"},
			{Count: at(3), Rule: "count-event", Message: "count 3: no total falls; a count transfers a surplus or excludes a candidate"},
		},
	}
	names := []string{"Anna", "Bert", "Emma", "Carm"}
	tests := []struct {
		lang *Lang
		want []storyLine
	}{
		{English, []storyLine{
			{"Count 1:", "The first preferences of 100 valid votes; the quota is 34. Anna reaches the quota and is elected.", ""},
			{"Count 2:", "The totals of Anna and Carm fall by 11 votes together: Emma +7, Bert +3; 1 vote became non-transferable.", "⚠ known defect"},
			{"Count 3:", "No total falls; none became non-transferable. Bert is elected without reaching the quota: no surplus is left, and of the 2 candidates still in the count the highest takes the last seat; Emma, with 32, is not elected.", "⚠ known defect"},
		}},
		{Maltese, []storyLine{
			{"Għadd 1:", "L-ewwel preferenzi; il-voti validi huma 100 u l-kwota hija 34. Anna: elett/a, bil-kwota.", ""},
			{"Għadd 2:", "It-totali ta' Anna u Carm jonqsu b'11 vot flimkien: Emma +7, Bert +3; mhux trasferibbli: 1 vot.", "⚠ difett magħruf"},
			{"Għadd 3:", "L-ebda total ma jonqos; il-voti kollha ġew trasferiti. Bert: elett/a mingħajr il-kwota, għax ma fadal l-ebda surplus u, minn 2 kandidati li għadhom fl-għadd, l-ogħla jieħu l-aħħar siġġu; Emma, b'32, mhux elett/a.", "⚠ difett magħruf"},
		}},
	}
	for _, tt := range tests {
		s := &Site{lang: tt.lang}
		got := s.story(sheet, names, rowsByID(sheet))
		if !slices.Equal(got, tt.want) {
			t.Errorf("%s:\n got %q\nwant %q", tt.lang.Code, got, tt.want)
		}
	}
}

// TestCorrectionMarks: each corrected figure is marked in the sheet's
// table, where it shows it: a total in its row and count, a count's
// non-transferable in its row, a party or a district at the row's name.
func TestCorrectionMarks(t *testing.T) {
	at := func(n int) *int { return &n }
	id := func(s string) *string { return &s }
	sheet := &dataset.CountSheet{
		Seats: 1, ValidVotes: 10, Quota: 6,
		Counts:      []dataset.Count{{Number: 1, Event: dataset.EventFirstPreferences}, {Number: 2, Event: dataset.EventExclusion, CandidateIDs: []string{"b"}, Votes: 4, NonTransferable: 1}},
		Candidacies: []dataset.Candidacy{{CandidateID: "a", Totals: []int{6, 9}, ElectedAtCount: at(1)}, {CandidateID: "b", Totals: []int{4, 0}, ExcludedAtCount: at(2)}},
		Elected:     []string{"a"},
		Corrections: []dataset.Correction{
			{CandidateID: id("b"), Count: at(2), Field: dataset.CorrectedTotal, To: dataset.Number(0), Evidence: "empty"},
			{Count: at(2), Field: dataset.CorrectedNonTransferable, From: dataset.Number(0), To: dataset.Number(1), Evidence: "the sum"},
			{CandidateID: id("a"), Field: dataset.CorrectedDistrict, From: dataset.Number(3), To: dataset.Number(1), Evidence: "the figures"},
		},
	}
	s := &Site{lang: English}
	names := []string{"Anna", "Bert"}
	tab := s.sheetTable(sheet, names, []string{"", ""}, rowsByID(sheet))
	got := s.corrections(sheet, names, rowsByID(sheet), &tab)
	marks := []fix{tab.Rows[1].Cells[1].Fix, tab.NonTransferable.Cells[1].Fix, tab.Rows[0].Fix, tab.Rows[0].Cells[1].Fix}
	want := []fix{{"*1", "correction-1"}, {"*2", "correction-2"}, {"*3", "correction-3"}, {}}
	if !slices.Equal(marks, want) {
		t.Errorf("marks %v, want %v", marks, want)
	}
	wantViews := []string{
		"*1 Count 2, Bert: 0 from an empty cell",
		"*2 Count 2, Non-transferable: 1 from 0",
		"*3 Anna: under District 3",
	}
	var views []string
	for _, v := range got {
		if v.Place != "" {
			views = append(views, v.Mark+" "+v.Where+": under "+v.Place)
			continue
		}
		views = append(views, v.Mark+" "+v.Where+": "+v.Sheet+" from "+v.Source)
	}
	if !slices.Equal(views, wantViews) {
		t.Errorf("corrections:\n%s\nwant:\n%s", strings.Join(views, "\n"), strings.Join(wantViews, "\n"))
	}
}

// TestStoryGains: a sentence lists the three largest gains, the largest
// first and equal gains by name, and "…" when more gained.
func TestStoryGains(t *testing.T) {
	sheet := &dataset.CountSheet{Candidacies: []dataset.Candidacy{
		{Totals: []int{10, 12}}, {Totals: []int{10, 15}}, {Totals: []int{10, 12}}, {Totals: []int{10, 11}}, {Totals: []int{10, 10}},
	}}
	s := &Site{lang: English}
	if got, want := s.gains(sheet, 1, []string{"Dee", "Bea", "Cal", "Al", "Ed"}), "Bea +5, Cal +2, Dee +2, …"; got != want {
		t.Errorf("got %q, want %q", got, want)
	}
}

// TestVotes: a number of votes in words, with its digits grouped, and
// Maltese's plural after 2 to 10 (and 102 to 110, …).
func TestVotes(t *testing.T) {
	tests := []struct {
		n      int
		en, mt string
	}{
		{0, "0 votes", "0 voti"},
		{1, "1 vote", "1 vot"},
		{2, "2 votes", "2 voti"},
		{10, "10 votes", "10 voti"},
		{11, "11 votes", "11 vot"},
		{105, "105 votes", "105 voti"},
		{7891, "7,891 votes", "7,891 vot"},
		{1234567, "1,234,567 votes", "1,234,567 vot"},
	}
	en, mt := &Site{lang: English}, &Site{lang: Maltese}
	for _, tt := range tests {
		if got := en.votes(tt.n); got != tt.en {
			t.Errorf("%d in English: %q, want %q", tt.n, got, tt.en)
		}
		if got := mt.votes(tt.n); got != tt.mt {
			t.Errorf("%d in Maltese: %q, want %q", tt.n, got, tt.mt)
		}
	}
}

// TestTickStep: the chart's grid has a round step and at most seven
// lines, 0 and the one above the highest total among them.
func TestTickStep(t *testing.T) {
	for top, want := range map[int]int{1: 1, 5: 1, 6: 2, 11: 2, 29: 5, 30: 10, 3803: 1000, 11694: 2000, 30000: 10000} {
		if got := tickStep(top); got != want {
			t.Errorf("tickStep(%d) = %d, want %d", top, got, want)
		}
	}
	for top := 1; top < 100000; top = top*3 + 1 {
		if n := top/tickStep(top) + 2; n > 7 || !slices.Contains([]int{1, 2, 5}, firstDigit(tickStep(top))) {
			t.Errorf("tickStep(%d) = %d: %d lines", top, tickStep(top), n)
		}
	}
}

// TestChartCountNumbers: the counts are numbered under the chart from 1,
// every so many so that no two numbers are nearer than 20 units, and the
// last count is always numbered, in place of one that would run into it
// (district 5 of 2022 read "15 1718" at a phone's width).
func TestChartCountNumbers(t *testing.T) {
	s := &Site{lang: English}
	number := regexp.MustCompile(`<text x="([0-9.]+)" y="[0-9.]+" text-anchor="middle" fill="#5b6570" font-size="12">([0-9]+)</text>`)
	for _, l := range []chartLayout{wideChart, narrowChart} {
		for n := 1; n <= 60; n++ {
			sh := &dataset.CountSheet{DistrictNumber: 5, Quota: 3799}
			for k := range n {
				sh.Counts = append(sh.Counts, dataset.Count{Number: k + 1})
			}
			sh.Candidacies = []dataset.Candidacy{{CandidateID: "a", Totals: make([]int, n)}}
			var got []int
			last := -100.0
			for _, m := range number.FindAllStringSubmatch(string(s.drawChart(sh, []string{"A"}, l)), -1) {
				x, _ := strconv.ParseFloat(m[1], 64)
				k, _ := strconv.Atoi(m[2])
				if x-last < 19.9 { // x is written to a tenth
					t.Errorf("%s, %d counts: %d at x=%s, %.1f after the number before it", l.class, n, k, m[1], x-last)
				}
				got, last = append(got, k), x
			}
			if len(got) == 0 || got[0] != 1 || got[len(got)-1] != n {
				t.Errorf("%s, %d counts: numbered %v, want from 1 to %d", l.class, n, got, n)
			}
		}
	}
}

func firstDigit(n int) int {
	for n >= 10 {
		n /= 10
	}
	return n
}

// TestCountViewBounded: a sheet of many candidacies over many counts,
// which the rules accept, makes a page of bounded size: the first
// shownCounts counts, at most sheetCells cells of the sheet, Listed rows
// of a list and chartLines lines of a chart, each cut said in a sentence.
func TestCountViewBounded(t *testing.T) {
	s := &Site{ds: datasettest.Counts(t, true), lang: English, api: "/api/public/v1"}
	const rows, counts = 2000, 600
	at := func(n int) *int { return &n }
	sh := &dataset.CountSheet{DistrictNumber: 1, Status: dataset.StatusFinal, Seats: 3, ValidVotes: rows * 10, Quota: rows*10/4 + 1}
	for k := range counts {
		c := dataset.Count{Number: k + 1, Event: dataset.EventExclusion, CandidateIDs: []string{"c1999"}}
		if k == 0 {
			c = dataset.Count{Number: 1, Event: dataset.EventFirstPreferences}
		}
		sh.Counts = append(sh.Counts, c)
	}
	for j := range rows {
		c := dataset.Candidacy{CandidateID: "c" + strconv.Itoa(j), Name: "Candidate", Totals: make([]int, counts), FirstPreferences: 10}
		for k := range c.Totals {
			c.Totals[k] = 10
		}
		if j < 3 {
			c.ElectedAtCount = at(j*250 + 1) // the third after the counts shown
			sh.Elected = append(sh.Elected, c.CandidateID)
		}
		sh.Candidacies = append(sh.Candidacies, c)
	}
	v := s.newCountView(sh)
	if got := len(v.Sheet.Rows) * len(v.Sheet.Counts); got > sheetCells || len(v.Sheet.Counts) != shownCounts {
		t.Errorf("the sheet shows %d rows of %d counts", len(v.Sheet.Rows), len(v.Sheet.Counts))
	}
	if len(v.Story) != shownCounts || len(v.Others) != Listed || len(v.Elected) != 3 {
		t.Errorf("%d sentences, %d others, %d elected; want %d, %d, 3", len(v.Story), len(v.Others), len(v.Elected), shownCounts, Listed)
	}
	want := []string{"The first 503 of the 2000 candidates are listed; every one is in the API.", "The first 500 of 600 counts are shown; every one is in the API."}
	if !slices.Equal(v.More, want) || v.Sheet.More != "The first 20 of the 2000 candidates, the elected first; every one is in the API." {
		t.Errorf("the cuts are said as %q and %q", v.More, v.Sheet.More)
	}
	for _, chart := range []string{string(v.Chart), string(v.ChartNarrow)} {
		if n := strings.Count(chart, "<polyline"); n > chartLines+3 || len(chart) > 1<<20 {
			t.Errorf("a chart of %d lines, %d bytes", n, len(chart))
		}
	}
}

// TestChartLeaders: on every sheet of the embedded dataset, in both
// layouts, each elected line's leader to its name starts after the line's
// last point, level with it, and is thinner than the line, so that a name
// moved away from its line does not read as the line falling to it; and
// it ends level with its name.
func TestChartLeaders(t *testing.T) {
	ds, err := dataset.Default()
	if err != nil {
		t.Fatal(err)
	}
	s := &Site{lang: English}
	polyline := regexp.MustCompile(`<polyline points="([^"]+)" fill="none" (?:stroke-linejoin="round" stroke-linecap="round" )?stroke="(#[0-9a-f]{6})" stroke-width="([0-9.]+)"/>`)
	label := regexp.MustCompile(`<text x="([0-9.]+)" y="([0-9.]+)" fill="#1d232a" stroke="#fff" stroke-width="4" stroke-linejoin="round" paint-order="stroke">([^<]+)</text>`)
	points := func(p string) [][2]float64 {
		var pts [][2]float64
		for _, xy := range strings.Fields(p) {
			x, y, _ := strings.Cut(xy, ",")
			fx, _ := strconv.ParseFloat(x, 64)
			fy, _ := strconv.ParseFloat(y, 64)
			pts = append(pts, [2]float64{fx, fy})
		}
		return pts
	}
	sheets := ds.Sheets()
	if len(sheets) != 13 {
		t.Fatalf("%d sheets, want 13", len(sheets))
	}
	for i := range sheets {
		sh := &sheets[i]
		names := make([]string, len(sh.Candidacies))
		for j, row := range sh.Candidacies {
			names[j] = row.Name
		}
		for _, l := range []chartLayout{wideChart, narrowChart} {
			svg := string(s.drawChart(sh, names, l))
			type line struct {
				pts   [][2]float64
				width string
			}
			lines := map[string]line{}   // an elected line, by its colour
			leaders := map[string]line{} // a leader, by its colour
			for _, m := range polyline.FindAllStringSubmatch(svg, -1) {
				if strings.Contains(m[0], "stroke-linecap") {
					lines[m[2]] = line{points(m[1]), m[3]}
				} else {
					leaders[m[2]] = line{points(m[1]), m[3]}
				}
			}
			labels := label.FindAllStringSubmatch(svg, -1)
			name := fmt.Sprintf("district %d, %s", sh.DistrictNumber, l.class)
			if len(leaders) != len(sh.Elected) || len(labels) != len(sh.Elected) {
				t.Fatalf("%s: %d leaders and %d names, want %d of each", name, len(leaders), len(labels), len(sh.Elected))
			}
			for j := range sh.Elected {
				colour := chartColour(j)
				ln, ld := lines[colour], leaders[colour]
				end, start, stop := ln.pts[len(ln.pts)-1], ld.pts[0], ld.pts[len(ld.pts)-1]
				if start[0] < end[0]+3 || start[1] != end[1] {
					t.Errorf("%s: %s's leader starts at %v, want level with the line's end %v and at least 3 after it", name, names[j], start, end)
				}
				lw, _ := strconv.ParseFloat(ln.width, 64)
				dw, _ := strconv.ParseFloat(ld.width, 64)
				if dw >= lw/2 {
					t.Errorf("%s: %s's leader is %s wide, the line %s: want under half", name, names[j], ld.width, ln.width)
				}
				want := strconv.Itoa(j + 1)
				if !l.numbered {
					want = names[j]
				}
				found := false
				for _, m := range labels {
					x, _ := strconv.ParseFloat(m[1], 64)
					y, _ := strconv.ParseFloat(m[2], 64)
					if m[3] == want {
						found = true
						if x < stop[0] || math.Abs(y-4-stop[1]) > 0.05 { // written to a tenth
							t.Errorf("%s: %s's leader ends at %v, its name is at %v,%v", name, names[j], stop, x, y)
						}
					}
				}
				if !found {
					t.Errorf("%s: no label %q", name, want)
				}
			}
		}
	}
}

// TestStoryBounded: a count that excludes thousands at once, and a last
// seat that leaves thousands out, are each told in a sentence of a few
// names and how many others, in both languages: no sentence of the story
// is longer than storyChars characters.
func TestStoryBounded(t *testing.T) {
	const storyChars = 600
	at := func(n int) *int { return &n }
	sh := &dataset.CountSheet{DistrictNumber: 1, Status: dataset.StatusFinal, Seats: 2, ValidVotes: 13000, Quota: 4334}
	sh.Counts = []dataset.Count{{Number: 1, Event: dataset.EventFirstPreferences}, {Number: 2, Event: dataset.EventExclusion}}
	row := func(name string, totals ...int) *dataset.Candidacy {
		sh.Candidacies = append(sh.Candidacies, dataset.Candidacy{CandidateID: name, Name: name, Totals: totals, FirstPreferences: totals[0]})
		return &sh.Candidacies[len(sh.Candidacies)-1]
	}
	row("Anna Abela", 5000, 5000).ElectedAtCount = at(1)
	row("Bert Borg", 4000, 4000).ElectedAtCount = at(2)
	sh.Elected = []string{"Anna Abela", "Bert Borg"}
	for j := range 4997 { // excluded at count 2, with no vote
		id := fmt.Sprintf("Excluded Candidate %04d", j)
		row(id, 0, 0).ExcludedAtCount = at(2)
		sh.Counts[1].CandidateIDs = append(sh.Counts[1].CandidateIDs, id)
	}
	for j := range 4000 { // left out of the last seat
		row(fmt.Sprintf("Continuing Candidate %04d", j), 1, 1)
	}
	for _, lang := range []*Lang{English, Maltese} {
		s := &Site{ds: datasettest.Counts(t, true), lang: lang, api: "/api/public/v1"}
		longest := ""
		for _, l := range s.newCountView(sh).Story {
			if len([]rune(l.Text)) > len([]rune(longest)) {
				longest = l.Text
			}
		}
		if n := len([]rune(longest)); n > storyChars {
			t.Errorf("%s: a sentence of %d characters, more than %d: %.400s…", lang.Code, n, storyChars, longest)
		}
	}
}
