package dataset_test

import (
	"cmp"
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"
	"testing/fstest"

	"ballot/dataset"
	"ballot/internal/datasettest"
)

// editSheet changes district 5's sheet (/4).
func editSheet(t *testing.T, m fstest.MapFS, edit func(s sheet)) {
	t.Helper()
	datasettest.Edit(t, m, dataset.CountsFile, func(sheets []map[string]any) []map[string]any {
		edit(sheets[4])
		return sheets
	})
}

// outcome loads m and returns its errors and its warnings as "PROBLEM
// [RULE]", and the sheet of district 5 when it loads.
func outcome(t *testing.T, m fstest.MapFS) (errs, warnings []string, s *dataset.CountSheet) {
	t.Helper()
	ds, err := dataset.Load(m)
	if err != nil {
		var r *dataset.Report
		if !errors.As(err, &r) {
			t.Fatalf("load: %v", err)
		}
		for _, p := range r.Errors {
			errs = append(errs, p.String()+" ["+p.Rule+"]")
		}
		return errs, nil, nil
	}
	for _, p := range ds.Warnings {
		warnings = append(warnings, p.String()+" ["+p.Rule+"]")
	}
	s, _ = ds.Sheet(5)
	return nil, warnings, s
}

// fates says how each of the first n rows of a sheet ended, by name:
// "elected 2", "excluded 3", or "-".
func fates(s *dataset.CountSheet, names []string, n int) []string {
	by := map[string]string{}
	for _, c := range s.Candidacies {
		at := "-"
		switch {
		case c.ElectedAtCount != nil:
			at = fmt.Sprintf("elected %d", *c.ElectedAtCount)
		case c.ExcludedAtCount != nil:
			at = fmt.Sprintf("excluded %d", *c.ExcludedAtCount)
		}
		by[c.Name] = at
	}
	var out []string
	for _, name := range names[:n] {
		out = append(out, name+": "+by[name])
	}
	return out
}

// TestLastCount: the seats still to fill are filled, without the quota,
// by the highest continuing candidates once no count can change who takes
// them: with as many continuing as seats, at any count; at the sheet's
// last count, with one more and no surplus left (the 2022 sheets end
// so), or when those below the last seat have fewer votes together, with
// every surplus still to transfer, than the lowest who would take one
// (1924's district 4 ends so). A sheet may also print the exclusions
// left (1947's district 1 prints the last). A final sheet that ends
// before the outcome is settled is refused, saying what was still to
// count, and so is a count after every seat was filled.
func TestLastCount(t *testing.T) {
	// Two seats, 100 valid votes, a quota of 34: Robert Abela is elected
	// on first preferences and his surplus of 6 transferred at count 2.
	// Then Bernard Grech has 33, and the 17 below him 32 together
	// (Miriam Dalli 19, Owen Bonnici 8, Stefan Zrinzo Azzopardi 5 and 14
	// with no vote).
	several := [][]int{{40, 34}, {30, 33}, {18, 19}, {7, 8}, {5, 5}}
	tests := []struct {
		name     string
		seats    int // 2 when not given
		nt       []int
		rows     [][]int
		want     []string // the fates of the first five rows
		problems []string
	}{{
		name: "several left out at the last count",
		nt:   []int{0, 1}, rows: several,
		want: []string{"Robert Abela: elected 1", "Bernard Grech: elected 2", "Miriam Dalli: -", "Owen Bonnici: -", "Stefan Zrinzo Azzopardi: -"},
	}, {
		name: "several left out, excluded one by one",
		// Stefan Zrinzo Azzopardi excluded at count 3, with the 14 with
		// no vote: Miriam Dalli 22 and Owen Bonnici 10 stay, 32 together.
		nt:   []int{0, 1, 1},
		rows: [][]int{{40, 34, 34}, {30, 33, 33}, {18, 19, 22}, {7, 8, 10}, {5, 5, 0}},
		want: []string{"Robert Abela: elected 1", "Bernard Grech: elected 3", "Miriam Dalli: -", "Owen Bonnici: -", "Stefan Zrinzo Azzopardi: excluded 3"},
	}, {
		name: "one left out",
		// Owen Bonnici excluded at count 4 too: Miriam Dalli stays alone
		// below Bernard Grech.
		nt:   []int{0, 1, 1, 1},
		rows: [][]int{{40, 34, 34, 34}, {30, 33, 33, 33}, {18, 19, 22, 32}, {7, 8, 10, 0}, {5, 5, 0, 0}},
		want: []string{"Robert Abela: elected 1", "Bernard Grech: elected 4", "Miriam Dalli: -", "Owen Bonnici: excluded 4", "Stefan Zrinzo Azzopardi: excluded 3"},
	}, {
		name: "as many as seats",
		// Miriam Dalli, Owen Bonnici and Stefan Zrinzo Azzopardi
		// excluded together at count 3, with the 14 with no vote (32
		// votes, fewer than Bernard Grech's 33): he is left alone for
		// the last seat.
		nt:   []int{0, 1, 33},
		rows: [][]int{{40, 34, 34}, {30, 33, 33}, {18, 19, 0}, {7, 8, 0}, {5, 5, 0}},
		want: []string{"Robert Abela: elected 1", "Bernard Grech: elected 3", "Miriam Dalli: excluded 3", "Owen Bonnici: excluded 3", "Stefan Zrinzo Azzopardi: excluded 3"},
	}, {
		name: "ends too early: those below could overtake",
		// Miriam Dalli 21, Owen Bonnici 8 and Stefan Zrinzo Azzopardi 5
		// have 34 together, more than Bernard Grech's 31.
		nt:   []int{0, 1},
		rows: [][]int{{40, 34}, {28, 31}, {20, 21}, {7, 8}, {5, 5}},
		problems: []string{
			"counts.json: /4/status: district 5, the sheet is final, but its 2 counts elect 1 of its 2 seats: after count 2, the 17 candidates below the last seat have 34 votes together, and Bernard Grech, who would take it, has 31; a further count could still change who is elected [elected-seats]",
		},
	}, {
		name: "ends too early: a surplus left",
		nt:   []int{0},
		rows: [][]int{{40}, {30}, {18}, {7}, {5}},
		problems: []string{
			"counts.json: /4/status: district 5, the sheet is final, but its 1 counts elect 1 of its 2 seats: after count 1, the 17 candidates below the last seat have 30 votes together, 36 with Robert Abela's surplus of 6 votes still to transfer, and Bernard Grech, who would take it, has 30; a further count could still change who is elected [elected-seats]",
		},
	}, {
		name:  "ends too early: surpluses left",
		seats: 3,
		// 100 valid votes, a quota of 26: Robert Abela (14 over) and
		// Bernard Grech (4 over) are elected on first preferences;
		// Owen Bonnici's 8 and their 18 are more than Miriam Dalli's 22.
		nt:   []int{0},
		rows: [][]int{{40}, {30}, {22}, {8}},
		problems: []string{
			"counts.json: /4/status: district 5, the sheet is final, but its 1 counts elect 2 of its 3 seats: after count 1, the 16 candidates below the last seat have 8 votes together, 26 with the surpluses of Robert Abela (14 votes) and Bernard Grech (4 votes) still to transfer, and Miriam Dalli, who would take it, has 22; a further count could still change who is elected [elected-seats]",
		},
	}, {
		name:  "settled with surpluses left",
		seats: 3,
		// As above, with Miriam Dalli at 25 and Owen Bonnici at 5: the
		// 18 votes of the surpluses and his 5 cannot overtake her.
		nt:   []int{0},
		rows: [][]int{{40}, {30}, {25}, {5}},
		want: []string{"Robert Abela: elected 1", "Bernard Grech: elected 1", "Miriam Dalli: elected 1", "Owen Bonnici: -", "Stefan Zrinzo Azzopardi: -"},
	}, {
		name: "the exclusion left printed",
		// Count 5 excludes Miriam Dalli, the one more than seats after
		// count 4: Bernard Grech is left alone for the last seat.
		nt:   []int{0, 1, 1, 1, 1},
		rows: [][]int{{40, 34, 34, 34, 34}, {30, 33, 33, 33, 65}, {18, 19, 22, 32, 0}, {7, 8, 10, 0, 0}, {5, 5, 0, 0, 0}},
		want: []string{"Robert Abela: elected 1", "Bernard Grech: elected 5", "Miriam Dalli: excluded 5", "Owen Bonnici: excluded 4", "Stefan Zrinzo Azzopardi: excluded 3"},
	}, {
		name: "a count after every seat was filled",
		// As above, and count 6 repeats count 5.
		nt:   []int{0, 1, 1, 1, 1, 1},
		rows: [][]int{{40, 34, 34, 34, 34, 34}, {30, 33, 33, 33, 65, 65}, {18, 19, 22, 32, 0, 0}, {7, 8, 10, 0, 0, 0}, {5, 5, 0, 0, 0, 0}},
		problems: []string{
			"counts.json: /4/counts/5: district 5, count 6: every seat was filled at count 5, so the count ends there [elected-seats]",
		},
	}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m := countSheets(t)
			names := datasettest.Synthetic(t, m, cmp.Or(tt.seats, 2), tt.nt, tt.rows...)
			errs, warnings, s := outcome(t, m)
			if !slices.Equal(errs, tt.problems) || warnings != nil {
				t.Fatalf("problems:\n%s\nwarnings:\n%s\nwant:\n%s", strings.Join(errs, "\n"), strings.Join(warnings, "\n"), strings.Join(tt.problems, "\n"))
			}
			if s == nil {
				return
			}
			if got := fates(s, names, 5); !slices.Equal(got, tt.want) {
				t.Errorf("fates:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(tt.want, "\n"))
			}
		})
	}
}

// TestLastCountOfHistory holds the rules of the last count to real sheets
// that show them, put in the place of district 5's sheet (its rows take
// the names of 2022's; the comments give those the sheets print): 1924's
// district 4 and 1945's district 2 fill their last seat with a surplus
// untransferred, which cannot change who takes it; 1947's district 1
// prints the exclusion of the one left out.
func TestLastCountOfHistory(t *testing.T) {
	tests := []struct {
		name  string
		seats int
		nt    []int
		rows  [][]int
		fates []string // of each row, by its place
	}{{
		name:  "1924, district 4",
		seats: 4,
		// Count 9 excludes Michael Dundon: Carmelo Bugelli reaches 763,
		// 93 over the quota of 670; Agius Muscat's 449 and those 93
		// cannot reach Giovanni Bencini's 611 for the last seat.
		nt: []int{0, 0, 0, 4, 10, 38, 149, 155, 183},
		rows: [][]int{
			{43, 43, 99, 99, 161, 161, 0, 0, 0},           // Joseph E.H. Gatt
			{772, 772, 670, 670, 670, 670, 670, 670, 670}, // Robert E. Hamilton
			{40, 41, 77, 80, 0, 0, 0, 0, 0},               // Joseph Pace
			{84, 146, 147, 160, 160, 0, 0, 0, 0},          // Giuseppe Lia
			{806, 670, 670, 670, 670, 670, 670, 670, 670}, // Carmelo Mifsud Bonnici
			{231, 232, 233, 234, 234, 236, 236, 0, 0},     // Alberto Abela
			{322, 323, 324, 325, 328, 329, 348, 520, 611}, // Giovanni Bencini
			{448, 484, 486, 495, 500, 523, 530, 555, 763}, // Carmelo Bugelli
			{273, 284, 287, 289, 292, 301, 321, 339, 0},   // Michael Dundon
			{279, 295, 297, 320, 321, 418, 422, 437, 449}, // Giuseppe Agius Muscat
			{48, 56, 56, 0, 0, 0, 0, 0, 0},                // Antonio Vella
		},
		fates: []string{"excluded 7", "elected 1", "excluded 5", "excluded 6", "elected 1", "excluded 8", "elected 9", "elected 9", "excluded 9", "-", "excluded 4"},
	}, {
		name:  "1945, district 2",
		seats: 5,
		// Count 7 transfers Arthur F. Colombo's surplus: Godwin G. Ganado
		// reaches 2,552, 150 over the quota of 2,402; Guze Schembri's
		// 1,291 and those 150 cannot reach Ant. Schembri Adami's 1,980.
		nt: []int{0, 874, 997, 997, 1297, 1381, 1381},
		rows: [][]int{
			{2371, 2395, 2413, 2402, 2402, 2402, 2402}, // Robert Bencini
			{1142, 1154, 1165, 1170, 1184, 0, 0},       // Bertram Camilleri
			{2126, 2153, 2173, 2176, 2196, 2969, 2402}, // Arthur F. Colombo
			{1830, 1858, 1869, 1870, 1897, 2099, 2552}, // Godwin G. Ganado
			{1719, 1758, 1775, 1775, 1801, 1887, 1980}, // Ant. Schembri Adami
			{302, 349, 0, 0, 0, 0, 0},                  // Charles Chetcuti
			{3786, 2402, 2402, 2402, 2402, 2402, 2402}, // Henry Jones
			{692, 859, 1001, 1003, 1231, 1270, 1291},   // Guze Schembri
			{442, 608, 615, 615, 0, 0, 0},              // Joseph James Scorey
		},
		fates: []string{"elected 3", "excluded 6", "elected 6", "elected 7", "elected 7", "excluded 3", "elected 1", "-", "excluded 5"},
	}, {
		name:  "1947, district 1",
		seats: 5,
		// After count 12 four continuing candidates remain for three
		// seats; count 13 excludes Robert Bencini, the lowest, and the
		// three are elected at it.
		nt: []int{0, 0, 2, 3, 4, 5, 9, 9, 12, 38, 67, 1263, 1298},
		rows: [][]int{
			{1391, 1498, 1498, 1500, 1500, 1501, 1503, 1503, 1604, 1618, 1623, 1625, 0},    // Robert Bencini
			{2504, 2113, 2113, 2113, 2113, 2113, 2113, 2113, 2113, 2113, 2113, 2113, 2113}, // Pawlu Boffa
			{1633, 1737, 1738, 1742, 1742, 1744, 1744, 1744, 1874, 1880, 1891, 1910, 3188}, // Bertram Camilleri
			{1459, 1595, 1597, 1600, 1600, 1600, 1603, 1603, 1825, 1839, 1848, 1854, 2159}, // Guze Ellul
			{423, 462, 463, 465, 465, 467, 467, 467, 0, 0, 0, 0, 0},                        // Guze Miceli
			{654, 655, 656, 659, 751, 970, 1083, 1234, 1234, 1262, 1290, 0, 0},             // Giorgio Borg Olivier
			{381, 381, 382, 384, 393, 414, 0, 0, 0, 0, 0, 0, 0},                            // Giuseppe Camilleri
			{1816, 1817, 1819, 1823, 1874, 1984, 2267, 2113, 2113, 2113, 2113, 2113, 2113}, // Enrico Mizzi
			{168, 168, 170, 170, 0, 0, 0, 0, 0, 0, 0, 0, 0},                                // Vincenzo Maria Pellegrini
			{350, 350, 351, 351, 363, 0, 0, 0, 0, 0, 0, 0, 0},                              // Emanuel Quattromani
			{448, 449, 466, 512, 513, 517, 518, 518, 520, 739, 0, 0, 0},                    // Alb. V. Bernard
			{140, 141, 157, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0},                                  // George Borg Barthet
			{125, 125, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0},                                    // Maurice Caruana Curran
			{728, 728, 787, 856, 859, 860, 865, 866, 870, 1071, 1728, 1795, 1802},          // Joseph Hyzler
			{453, 454, 474, 495, 496, 498, 501, 503, 508, 0, 0, 0, 0},                      // Henry Sacco
		},
		fates: []string{"excluded 13", "elected 1", "elected 13", "elected 13", "excluded 9", "excluded 12", "excluded 7", "elected 7", "excluded 5", "excluded 6", "excluded 11", "excluded 4", "excluded 3", "elected 13", "excluded 10"},
	}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m := countSheets(t)
			names := datasettest.Synthetic(t, m, tt.seats, tt.nt, tt.rows...)
			errs, warnings, s := outcome(t, m)
			if errs != nil || warnings != nil {
				t.Fatalf("problems:\n%s\nwarnings:\n%s", strings.Join(errs, "\n"), strings.Join(warnings, "\n"))
			}
			var got []string
			for _, f := range fates(s, names, len(tt.rows)) {
				_, fate, _ := strings.Cut(f, ": ")
				got = append(got, fate)
			}
			if !slices.Equal(got, tt.fates) {
				t.Errorf("fates:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(tt.fates, "\n"))
			}
		})
	}
}

// TestTies: a tie for the lowest place, or for the last seat, settled by
// the earlier counts or by a lot the sheet states; a statement the totals
// contradict is an error, and a tie no decision settles a warning. Each
// sheet is synthetic: two seats, 100 valid votes, a quota of 34; Robert
// Abela is elected on first preferences and his surplus transferred at
// count 2.
func TestTies(t *testing.T) {
	// Lowest: Miriam Dalli and Stefan Zrinzo Azzopardi are tied at 17
	// after count 3, Owen Bonnici's exclusion; at count 1 she had 14 and
	// he 10, so he is excluded at count 4. Bernard Grech then takes the
	// last seat, one more than seats left.
	lowest := [][]int{{40, 34, 34, 34}, {25, 26, 32, 33}, {14, 14, 17, 32}, {11, 12, 0, 0}, {10, 14, 17, 0}}
	// lowestEqual is lowest with the two equal at every count before.
	lowestEqual := [][]int{{40, 34, 34, 34}, {25, 26, 32, 33}, {12, 14, 17, 32}, {11, 12, 0, 0}, {12, 14, 17, 0}}
	// lowestOther is lowest with Miriam Dalli excluded instead.
	lowestOther := [][]int{{40, 34, 34, 34}, {25, 26, 32, 33}, {14, 14, 17, 0}, {11, 12, 0, 0}, {10, 14, 17, 32}}
	// Seat: Bernard Grech and Miriam Dalli are tied at 33 for the last
	// seat after count 3, Owen Bonnici's exclusion; at count 1 he had
	// 28 and she 27, so he takes it.
	seat := [][]int{{40, 34, 34}, {28, 30, 33}, {27, 30, 33}, {5, 6, 0}}
	// seatEqual is seat with the two equal at every count before.
	seatEqual := [][]int{{40, 34, 34}, {28, 30, 33}, {28, 30, 33}, {4, 6, 0}}
	type tie struct {
		count     int
		kind      string
		tied      string
		decidedBy string
	}
	at := func(k int) any { return float64(k) }
	state := func(n int, decided any, extra ...string) func(s sheet) {
		return func(s sheet) {
			st := map[string]any{"count": at(n), "decided_by": decided}
			for i := 0; i+1 < len(extra); i += 2 {
				st[extra[i]] = extra[i+1]
			}
			s["ties"] = append(listOf(s["ties"]), st)
		}
	}
	electedAt := func(row, k int) func(s sheet) {
		return func(s sheet) { s["candidacies"].([]any)[row].(map[string]any)["elected_at_count"] = at(k) }
	}
	tests := []struct {
		name     string
		nt       []int
		rows     [][]int
		edits    []func(s sheet)
		fates    []string // of the first five rows, or four
		ties     []tie
		problems []string
		warnings []string
	}{{
		name: "lowest, by the earlier counts, unstated",
		nt:   []int{0, 0, 0, 1}, rows: lowest,
		fates: []string{"Robert Abela: elected 1", "Bernard Grech: elected 4", "Miriam Dalli: -", "Owen Bonnici: excluded 3", "Stefan Zrinzo Azzopardi: excluded 4"},
		ties:  []tie{{4, "exclusion", "Miriam Dalli, Stefan Zrinzo Azzopardi", "earlier_counts"}},
	}, {
		name: "lowest, by the earlier counts, stated",
		nt:   []int{0, 0, 0, 1}, rows: lowest,
		edits: []func(s sheet){state(4, "earlier_counts", "kind", "exclusion")},
		fates: []string{"Robert Abela: elected 1", "Bernard Grech: elected 4", "Miriam Dalli: -", "Owen Bonnici: excluded 3", "Stefan Zrinzo Azzopardi: excluded 4"},
		ties:  []tie{{4, "exclusion", "Miriam Dalli, Stefan Zrinzo Azzopardi", "earlier_counts"}},
	}, {
		name: "lowest, equal at every count, unstated",
		nt:   []int{0, 0, 0, 1}, rows: lowestEqual,
		fates:    []string{"Robert Abela: elected 1", "Bernard Grech: elected 4", "Miriam Dalli: -", "Owen Bonnici: excluded 3", "Stefan Zrinzo Azzopardi: excluded 4"},
		ties:     []tie{{4, "exclusion", "Miriam Dalli, Stefan Zrinzo Azzopardi", ""}},
		warnings: []string{"counts.json: /4/counts/3: district 5, count 4: Miriam Dalli and Stefan Zrinzo Azzopardi, tied at 17 for the lowest place, were equal at every count from 1 to 3, and no decision is stated; the totals show Stefan Zrinzo Azzopardi excluded: if a lot decided it, state it in ties [tie]"},
	}, {
		name: "lowest, equal at every count, by lot",
		nt:   []int{0, 0, 0, 1}, rows: lowestEqual,
		edits: []func(s sheet){state(4, "lot")},
		fates: []string{"Robert Abela: elected 1", "Bernard Grech: elected 4", "Miriam Dalli: -", "Owen Bonnici: excluded 3", "Stefan Zrinzo Azzopardi: excluded 4"},
		ties:  []tie{{4, "exclusion", "Miriam Dalli, Stefan Zrinzo Azzopardi", "lot"}},
	}, {
		name: "lowest, equal at every count, stated by the earlier counts",
		nt:   []int{0, 0, 0, 1}, rows: lowestEqual,
		edits:    []func(s sheet){state(4, "earlier_counts")},
		problems: []string{`counts.json: /4/ties/0/decided_by: district 5, count 4: is "earlier_counts", and Miriam Dalli and Stefan Zrinzo Azzopardi, tied at 17 for the lowest place, were equal at every count from 1 to 3: only a lot decides between them [tie]`},
	}, {
		name: "lowest, the other excluded, unstated",
		nt:   []int{0, 0, 0, 1}, rows: lowestOther,
		fates:    []string{"Robert Abela: elected 1", "Bernard Grech: elected 4", "Miriam Dalli: excluded 4", "Owen Bonnici: excluded 3", "Stefan Zrinzo Azzopardi: -"},
		ties:     []tie{{4, "exclusion", "Stefan Zrinzo Azzopardi, Miriam Dalli", ""}},
		warnings: []string{"counts.json: /4/counts/3: district 5, count 4: Miriam Dalli and Stefan Zrinzo Azzopardi are tied at 17 for the lowest place, and the earlier counts do not exclude Miriam Dalli, whom the totals show excluded: Stefan Zrinzo Azzopardi had fewer votes at count 1 (10 against 14); if a lot decided it, state it in ties [tie]"},
	}, {
		name: "lowest, the other excluded, by lot",
		nt:   []int{0, 0, 0, 1}, rows: lowestOther,
		edits: []func(s sheet){state(4, "lot")},
		fates: []string{"Robert Abela: elected 1", "Bernard Grech: elected 4", "Miriam Dalli: excluded 4", "Owen Bonnici: excluded 3", "Stefan Zrinzo Azzopardi: -"},
		ties:  []tie{{4, "exclusion", "Stefan Zrinzo Azzopardi, Miriam Dalli", "lot"}},
	}, {
		name: "lowest, the other excluded, stated by the earlier counts",
		nt:   []int{0, 0, 0, 1}, rows: lowestOther,
		edits:    []func(s sheet){state(4, "earlier_counts")},
		problems: []string{`counts.json: /4/ties/0/decided_by: district 5, count 4: is "earlier_counts", and the earlier counts do not exclude Miriam Dalli, whom the totals show excluded: Stefan Zrinzo Azzopardi had fewer votes at count 1 (10 against 14) [tie]`},
	}, {
		name: "seat, by the earlier counts, unstated",
		nt:   []int{0, 0, 0}, rows: seat,
		fates: []string{"Robert Abela: elected 1", "Bernard Grech: elected 3", "Miriam Dalli: -", "Owen Bonnici: excluded 3"},
		ties:  []tie{{3, "seat", "Bernard Grech, Miriam Dalli", "earlier_counts"}},
	}, {
		name: "seat, the sheet elects the other, unstated",
		nt:   []int{0, 0, 0}, rows: seat,
		edits:    []func(s sheet){electedAt(2, 3)},
		fates:    []string{"Robert Abela: elected 1", "Bernard Grech: -", "Miriam Dalli: elected 3", "Owen Bonnici: excluded 3"},
		ties:     []tie{{3, "seat", "Miriam Dalli, Bernard Grech", ""}},
		warnings: []string{"counts.json: /4/counts/2: district 5, count 3: Bernard Grech and Miriam Dalli are tied at 33 for the last seat, and the earlier counts do not give the last seat to Miriam Dalli, whom the sheet elects: Bernard Grech had more votes at count 1 (28 against 27); if a lot decided it, state it in ties [tie]"},
	}, {
		name: "seat, the sheet elects the other, by lot",
		nt:   []int{0, 0, 0}, rows: seat,
		edits: []func(s sheet){electedAt(2, 3), state(3, "lot", "kind", "seat")},
		fates: []string{"Robert Abela: elected 1", "Bernard Grech: -", "Miriam Dalli: elected 3", "Owen Bonnici: excluded 3"},
		ties:  []tie{{3, "seat", "Miriam Dalli, Bernard Grech", "lot"}},
	}, {
		name: "seat, the sheet elects the other, stated by the earlier counts",
		nt:   []int{0, 0, 0}, rows: seat,
		edits:    []func(s sheet){electedAt(2, 3), state(3, "earlier_counts")},
		problems: []string{`counts.json: /4/ties/0/decided_by: district 5, count 3: is "earlier_counts", and the earlier counts do not give the last seat to Miriam Dalli, whom the sheet elects: Bernard Grech had more votes at count 1 (28 against 27) [tie]`},
	}, {
		name: "seat, equal at every count, unstated",
		nt:   []int{0, 0, 0}, rows: seatEqual,
		fates:    []string{"Robert Abela: elected 1", "Bernard Grech: elected 3", "Miriam Dalli: -", "Owen Bonnici: excluded 3"},
		ties:     []tie{{3, "seat", "Bernard Grech, Miriam Dalli", ""}},
		warnings: []string{"counts.json: /4/counts/2: district 5, count 3: Bernard Grech and Miriam Dalli, tied at 33 for the last seat, were equal at every count from 1 to 3, and no decision is stated; Bernard Grech takes it by the order of the sheet's rows: if a lot decided it, state it in ties, and who took the last seat in elected [tie]"},
	}, {
		name: "seat, equal at every count, the sheet elects one, unstated",
		nt:   []int{0, 0, 0}, rows: seatEqual,
		edits:    []func(s sheet){electedAt(2, 3)},
		fates:    []string{"Robert Abela: elected 1", "Bernard Grech: -", "Miriam Dalli: elected 3", "Owen Bonnici: excluded 3"},
		ties:     []tie{{3, "seat", "Miriam Dalli, Bernard Grech", ""}},
		warnings: []string{"counts.json: /4/counts/2: district 5, count 3: Bernard Grech and Miriam Dalli, tied at 33 for the last seat, were equal at every count from 1 to 3, and no decision is stated; the sheet elects Miriam Dalli: if a lot decided it, state it in ties [tie]"},
	}, {
		name: "seat, equal at every count, by lot",
		nt:   []int{0, 0, 0}, rows: seatEqual,
		edits: []func(s sheet){electedAt(2, 3), state(3, "lot")},
		fates: []string{"Robert Abela: elected 1", "Bernard Grech: -", "Miriam Dalli: elected 3", "Owen Bonnici: excluded 3"},
		ties:  []tie{{3, "seat", "Miriam Dalli, Bernard Grech", "lot"}},
	}, {
		name: "seat, by lot, and no one named",
		nt:   []int{0, 0, 0}, rows: seatEqual,
		edits:    []func(s sheet){state(3, "lot")},
		problems: []string{`counts.json: /4/ties/0/decided_by: district 5, count 3: is "lot", and the sheet does not say which of Bernard Grech and Miriam Dalli took the last seat: name them in elected, or give the elected_at_count of each who took one [tie]`},
	}, {
		name: "seat, equal at every count, stated by the earlier counts",
		nt:   []int{0, 0, 0}, rows: seatEqual,
		edits:    []func(s sheet){state(3, "earlier_counts")},
		problems: []string{`counts.json: /4/ties/0/decided_by: district 5, count 3: is "earlier_counts", and Bernard Grech and Miriam Dalli, tied at 33 for the last seat, were equal at every count from 1 to 3: only a lot decides between them [tie]`},
	}, {
		name: "a tie stated where there is none",
		nt:   []int{0, 0, 0, 1}, rows: lowest,
		edits:    []func(s sheet){state(3, "lot"), state(4, "lot", "kind", "seat")},
		problems: []string{"counts.json: /4/ties/0/count: district 5, count 3: a tie is stated, and no candidates are tied there for the lowest place or a seat [tie]", "counts.json: /4/ties/1/count: district 5, count 4: a tie is stated, and no candidates are tied there for a seat [tie]"},
	}, {
		name: "a tie stated twice",
		nt:   []int{0, 0, 0, 1}, rows: lowest,
		edits:    []func(s sheet){state(4, "lot"), state(4, "earlier_counts", "kind", "exclusion")},
		problems: []string{"counts.json: /4/ties/1: district 5, count 4: the tie is stated already, at /4/ties/0 [duplicate-key]"},
	}, {
		name: "a statement out of range",
		nt:   []int{0, 0, 0, 1}, rows: lowest,
		edits: []func(s sheet){state(5, "coin", "kind", "last")},
		problems: []string{
			"counts.json: /4/ties/0/count: is 5; must be a count of the sheet, 1 to 4 [range]",
			`counts.json: /4/ties/0/kind: is "last"; must be "exclusion" (for the lowest place) or "seat" (for the last seat) [tie]`,
			`counts.json: /4/ties/0/decided_by: is "coin"; must be "earlier_counts", "lot", or null for no decision stated [tie]`,
		},
	}, {
		name: "the tied given, and not those tied",
		nt:   []int{0, 0, 0, 1}, rows: lowest,
		edits: []func(s sheet){func(s sheet) {
			s["ties"] = []any{map[string]any{"count": at(4), "decided_by": nil, "candidate_ids": []any{s["candidacies"].([]any)[4].(map[string]any)["candidate_id"]}}}
		}},
		problems: []string{"counts.json: /4/ties/0/candidate_ids: district 5, count 4: is [4f6d7b88-0885-5a10-bba0-8b2dc1196e1f], and the totals show [df6fd76a-d356-5cf3-affc-d8f921c66bbd, 4f6d7b88-0885-5a10-bba0-8b2dc1196e1f] tied [derived-field]"},
	}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m := countSheets(t)
			names := datasettest.Synthetic(t, m, 2, tt.nt, tt.rows...)
			for _, edit := range tt.edits {
				editSheet(t, m, edit)
			}
			errs, warnings, s := outcome(t, m)
			if !slices.Equal(errs, tt.problems) || !slices.Equal(warnings, tt.warnings) {
				t.Fatalf("problems:\n%s\nwarnings:\n%s\nwant:\n%s\nand warnings:\n%s", strings.Join(errs, "\n"), strings.Join(warnings, "\n"), strings.Join(tt.problems, "\n"), strings.Join(tt.warnings, "\n"))
			}
			if s == nil {
				return
			}
			if got := fates(s, names, len(tt.fates)); !slices.Equal(got, tt.fates) {
				t.Errorf("fates:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(tt.fates, "\n"))
			}
			byID := map[string]string{}
			for _, c := range s.Candidacies {
				byID[c.CandidateID] = c.Name
			}
			var got []tie
			for _, x := range s.Ties {
				var tied []string
				for _, id := range x.CandidateIDs {
					tied = append(tied, byID[id])
				}
				got = append(got, tie{x.Count, x.Kind, strings.Join(tied, ", "), dataset.Text(x.DecidedBy)})
			}
			if !slices.Equal(got, tt.ties) {
				t.Errorf("ties: %+v, want %+v", got, tt.ties)
			}
		})
	}
}

func listOf(v any) []any {
	l, _ := v.([]any)
	return l
}

// The 2022 sheets' three ties, each for the lowest place, are settled by
// the earlier counts: each needs no statement and gives no warning.
func TestTies2022(t *testing.T) {
	ds, err := dataset.Load(countSheets(t))
	if err != nil {
		t.Fatal(err)
	}
	if len(ds.Warnings) > 0 {
		t.Errorf("warnings: %v", ds.Warnings)
	}
	var got []string
	for _, s := range ds.Sheets() {
		names := map[string]string{}
		for _, c := range s.Candidacies {
			names[c.CandidateID] = c.Name
		}
		for _, x := range s.Ties {
			var tied []string
			for _, id := range x.CandidateIDs {
				tied = append(tied, names[id])
			}
			got = append(got, fmt.Sprintf("district %d, count %d: %s, %s, %s", s.DistrictNumber, x.Count, x.Kind, strings.Join(tied, " and "), dataset.Text(x.DecidedBy)))
		}
	}
	want := []string{
		"district 1, count 7: exclusion, Josianne Cardona Gatt and Sean Apap Meli, earlier_counts",
		"district 6, count 6: exclusion, Joe Cutajar and John Mark Attard, earlier_counts",
		"district 10, count 10: exclusion, Felix Busuttil Galea and Ivan Grech Mintoff, earlier_counts",
	}
	if !slices.Equal(got, want) {
		t.Errorf("ties:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

// The sheets as the API serves them, their ties with them, are a
// counts.json that loads as the same sheets: a tie the file gives as the
// API does is checked, and accepted.
func TestTiesServedLoadBack(t *testing.T) {
	m := countSheets(t)
	ds, err := dataset.Load(m)
	if err != nil {
		t.Fatal(err)
	}
	served := dataset.EncodeJSON(ds.Sheets())
	if !strings.Contains(string(served), `"ties":[{"count":7,"kind":"exclusion"`) {
		t.Fatalf("the served sheets hold no tie of district 1 at count 7")
	}
	m[dataset.CountsFile] = &fstest.MapFile{Data: served}
	again, err := dataset.Load(m)
	if err != nil {
		t.Fatal(err)
	}
	if got := dataset.EncodeJSON(again.Sheets()); string(got) != string(served) {
		t.Errorf("the served sheets load as\n%.2000s\nwant\n%.2000s", got, served)
	}
	for _, s := range again.Sheets() {
		for _, x := range s.Ties {
			if !x.Stated {
				t.Errorf("district %d, count %d: the tie the file gives is not stated", s.DistrictNumber, x.Count)
			}
		}
	}
}
