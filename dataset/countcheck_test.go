package dataset_test

import (
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"
	"testing/fstest"

	"ballot/dataset"
	"ballot/internal/datasettest"
)

// The rules of counts.json, each broken in a copy of a real sheet: the
// 2022 count of district 5 (the fifth sheet, /4), whose totals are
//
//	count:              1     2 …   16    17    18
//	Robert Abela     9,996 3,799 … 3,799 3,799 3,799  surplus at count 2
//	Bernard Grech    5,799 5,799 … 3,799 3,799 3,799  surplus at count 3
//	Miriam Dalli     1,122 3,073 … 4,550 3,799 3,799  elected at 16, surplus at 17
//	Owen Bonnici     1,127 2,905 … 4,034 4,034 3,799  elected at 16, surplus at 18
//	Stefan Zrinzo A. 1,021 1,830 … 2,530 3,274 3,508  elected at 18, the last seat
//
// with a quota of 3,799 and 22,789 valid votes.

// sheet is the generic form of one count sheet, to break.
type sheet = map[string]any

// candidacy returns the row of the sheet whose name is name.
func candidacy(t *testing.T, s sheet, name string) map[string]any {
	t.Helper()
	for _, row := range s["candidacies"].([]any) {
		if r := row.(map[string]any); r["name"] == name {
			return r
		}
	}
	t.Fatalf("no row named %q", name)
	return nil
}

// totals returns a row's totals, to change in place.
func totals(row map[string]any) []any { return row["totals"].([]any) }

// add adds n to the totals of row from count from to count to (1-based,
// both included).
func add(row map[string]any, from, to int, n float64) {
	ts := totals(row)
	for k := from - 1; k < to; k++ {
		ts[k] = ts[k].(float64) + n
	}
}

// dropCount removes count k (1-based) from a sheet: its column of every
// row and its entry in counts.
func dropCount(s sheet, k int) {
	s["counts"] = slices.Delete(s["counts"].([]any), k-1, k)
	for _, row := range s["candidacies"].([]any) {
		r := row.(map[string]any)
		r["totals"] = slices.Delete(totals(r), k-1, k)
	}
}

// stripDerived leaves in a sheet only what a Commission's sheet prints,
// so that breaking a total is not also reported as the derived fields it
// changes.
func stripDerived(s sheet) {
	delete(s, "district_number")
	delete(s, "elected")
	for _, c := range s["counts"].([]any) {
		for _, k := range []string{"number", "event", "candidate_ids", "votes"} {
			delete(c.(map[string]any), k)
		}
	}
	for _, row := range s["candidacies"].([]any) {
		for _, k := range []string{"party_id", "first_preferences", "elected_at_count", "excluded_at_count"} {
			delete(row.(map[string]any), k)
		}
	}
}

// repeatCount puts a copy of count k (1-based) after it: a count at
// which nothing moves.
func repeatCount(s sheet, k int) {
	counts := s["counts"].([]any)
	s["counts"] = slices.Insert(counts, k, counts[k-1])
	for _, row := range s["candidacies"].([]any) {
		r := row.(map[string]any)
		ts := totals(r)
		r["totals"] = slices.Insert(ts, k, ts[k-1])
	}
}

// indexOf is the index in candidates.json of the candidate named name.
func indexOf(t *testing.T, m fstest.MapFS, name string) int {
	t.Helper()
	i := -1
	datasettest.Edit(t, m, dataset.CandidatesFile, func(cs []map[string]any) []map[string]any {
		for j, c := range cs {
			if c["name"] == name {
				i = j
			}
		}
		return cs
	})
	if i < 0 {
		t.Fatalf("no candidate named %q", name)
	}
	return i
}

// editCandidate changes the candidate named name in candidates.json.
func editCandidate(t *testing.T, m fstest.MapFS, name string, change func(c map[string]any)) {
	t.Helper()
	datasettest.Edit(t, m, dataset.CandidatesFile, func(cs []map[string]any) []map[string]any {
		for _, c := range cs {
			if c["name"] == name {
				change(c)
			}
		}
		return cs
	})
}

func TestCountRules(t *testing.T) {
	tests := []struct {
		name    string
		status  string // of the sheet; final when empty
		derived bool   // keep what the sheet gives that follows from the totals
		edit    func(t *testing.T, m fstest.MapFS, s sheet)
		want    func(t *testing.T, m fstest.MapFS) []string
	}{{
		name: "count-balance: a total one vote short",
		edit: func(t *testing.T, m fstest.MapFS, s sheet) { add(candidacy(t, s, "Owen Bonnici"), 6, 6, -1) },
		want: func(*testing.T, fstest.MapFS) []string {
			return []string{"counts.json: /4/counts/5: district 5, count 6: the totals add up to 22,788, and the valid votes are 22,789 [count-balance]"}
		},
	}, {
		name: "quota: not the Droop quota",
		edit: func(t *testing.T, m fstest.MapFS, s sheet) { s["quota"] = 3800 },
		want: func(*testing.T, fstest.MapFS) []string {
			return []string{"counts.json: /4/quota: district 5: the quota is 3,800, and floor(22,789 / (5 + 1)) + 1 is 3,799 [quota]"}
		},
	}, {
		name: "count-event: a surplus that leaves more than the quota",
		edit: func(t *testing.T, m fstest.MapFS, s sheet) {
			// Robert Abela keeps one vote of his surplus, which Owen
			// Bonnici then lacks until his own surplus, and Stefan
			// Zrinzo Azzopardi after it.
			add(candidacy(t, s, "Robert Abela"), 2, 18, 1)
			add(candidacy(t, s, "Owen Bonnici"), 2, 17, -1)
			add(candidacy(t, s, "Stefan Zrinzo Azzopardi"), 18, 18, -1)
		},
		want: func(*testing.T, fstest.MapFS) []string {
			return []string{"counts.json: /4/candidacies/0/totals/1: district 5, count 2: Robert Abela's surplus leaves them 3,800, not the quota of 3,799 [count-event]"}
		},
	}, {
		name: "count-event: the excluded is not the lowest",
		edit: func(t *testing.T, m fstest.MapFS, s sheet) {
			// Radu Gheorghe, excluded at count 4, had 90 votes more,
			// and Owen Bonnici 90 fewer until then.
			add(candidacy(t, s, "Radu Gheorghe"), 1, 3, 90)
			add(candidacy(t, s, "Owen Bonnici"), 1, 3, -90)
		},
		want: func(*testing.T, fstest.MapFS) []string {
			return []string{"counts.json: /4/counts/3: district 5, count 4: Radu Gheorghe is excluded with 121 votes, but Tania Gauci has fewer (91); the lowest continuing candidate is excluded [count-event]"}
		},
	}, {
		name: "count-event: several excluded with more votes than the next",
		// Counts 5 and 6 made one: Tania Gauci (113) and Gianluca
		// Cutajar (134) excluded together, while Jean Claude Micallef
		// has 159.
		edit: func(t *testing.T, m fstest.MapFS, s sheet) { dropCount(s, 5) },
		want: func(*testing.T, fstest.MapFS) []string {
			return []string{"counts.json: /4/counts/4: district 5, count 5: Tania Gauci and Gianluca Cutajar are excluded together with 247 votes, and Jean Claude Micallef has 159; several are excluded at once only when their votes together are fewer than the next-lowest's [count-event]"}
		},
	}, {
		name: "count-balance: a sum past the largest integer",
		// Stefan Zrinzo Azzopardi, elected at the last count, and
		// non-transferable with 2^62 votes each there: the totals add
		// up past the largest integer, and are said to be that or more.
		edit: func(t *testing.T, m fstest.MapFS, s sheet) {
			totals(candidacy(t, s, "Stefan Zrinzo Azzopardi"))[17] = float64(1 << 62)
			s["counts"].([]any)[17].(map[string]any)["non_transferable"] = float64(1 << 62)
		},
		want: func(*testing.T, fstest.MapFS) []string {
			return []string{"counts.json: /4/counts/17: district 5, count 18: the totals add up to 9,223,372,036,854,775,807 or more, and the valid votes are 22,789 [count-balance]"}
		},
	}, {
		name: "count-event: two surpluses in one count",
		// Counts 17 and 18 made one: Miriam Dalli's and Owen Bonnici's
		// surpluses at once.
		edit: func(t *testing.T, m fstest.MapFS, s sheet) { dropCount(s, 17) },
		want: func(*testing.T, fstest.MapFS) []string {
			return []string{"counts.json: /4/counts/16: district 5, count 17: the surpluses of Miriam Dalli and Owen Bonnici move at the same count; a count transfers one [count-event]"}
		},
	}, {
		name: "count-event: nothing moves",
		edit: func(t *testing.T, m fstest.MapFS, s sheet) { repeatCount(s, 4) },
		want: func(*testing.T, fstest.MapFS) []string {
			return []string{"counts.json: /4/counts/4: district 5, count 5: no total falls; a count transfers a surplus or excludes a candidate [count-event]"}
		},
	}, {
		name: "total-falls: a continuing candidate",
		edit: func(t *testing.T, m fstest.MapFS, s sheet) {
			add(candidacy(t, s, "Stanley Zammit"), 6, 6, -1)
			nt := s["counts"].([]any)[5].(map[string]any)
			nt["non_transferable"] = nt["non_transferable"].(float64) + 1
		},
		want: func(*testing.T, fstest.MapFS) []string {
			return []string{"counts.json: /4/candidacies/16/totals/5: district 5, count 6: Stanley Zammit's total falls from 916 to 915; a continuing candidate's total never falls [total-falls]"}
		},
	}, {
		name: "total-falls: non-transferable",
		edit: func(t *testing.T, m fstest.MapFS, s sheet) {
			add(candidacy(t, s, "Stefan Zrinzo Azzopardi"), 17, 17, 1)
			nt := s["counts"].([]any)[16].(map[string]any)
			nt["non_transferable"] = nt["non_transferable"].(float64) - 1
		},
		want: func(*testing.T, fstest.MapFS) []string {
			return []string{"counts.json: /4/counts/16/non_transferable: district 5, count 17: non-transferable falls from 834 to 833; it never falls [total-falls]"}
		},
	}, {
		name: "elected-total-changes: a vote for the elected after their surplus",
		edit: func(t *testing.T, m fstest.MapFS, s sheet) {
			add(candidacy(t, s, "Robert Abela"), 10, 18, 1)
			add(candidacy(t, s, "Stefan Zrinzo Azzopardi"), 10, 18, -1)
		},
		want: func(*testing.T, fstest.MapFS) []string {
			return []string{"counts.json: /4/candidacies/0/totals/9: district 5, count 10: Robert Abela was elected at count 1, and their total rises from 3,799 to 3,800; it never changes after their surplus has gone [elected-total-changes]"}
		},
	}, {
		name: "elected-seats: a final sheet one count short",
		edit: func(t *testing.T, m fstest.MapFS, s sheet) { dropCount(s, 18) },
		want: func(*testing.T, fstest.MapFS) []string {
			return []string{"counts.json: /4/status: district 5, the sheet is final, but its 17 counts elect 4 of its 5 seats: after count 17, Anthony [Toni] Bezzina, below the last seat, has 3,250 votes, 3,485 with Owen Bonnici's surplus of 235 votes still to transfer, and Stefan Zrinzo Azzopardi, who would take it, has 3,274; a further count could still change who is elected [elected-seats]"}
		},
	}, {
		name:   "elected-seats: a counting sheet may elect fewer",
		status: dataset.StatusCounting,
		edit:   func(t *testing.T, m fstest.MapFS, s sheet) { dropCount(s, 18) },
		want:   func(*testing.T, fstest.MapFS) []string { return nil },
	}, {
		name: "elected-seats: a count after the last seat",
		// Count 19 excludes Anthony [Toni] Bezzina, the one left out
		// after count 18, and gives his votes to Stefan Zrinzo
		// Azzopardi, who takes the last seat; count 20 repeats it.
		edit: func(t *testing.T, m fstest.MapFS, s sheet) {
			repeatCount(s, 18)
			repeatCount(s, 19)
			add(candidacy(t, s, "Stefan Zrinzo Azzopardi"), 19, 20, 3251)
			add(candidacy(t, s, "Anthony [Toni] Bezzina"), 19, 20, -3251)
		},
		want: func(*testing.T, fstest.MapFS) []string {
			return []string{"counts.json: /4/counts/19: district 5, count 20: every seat was filled at count 19, so the count ends there [elected-seats]"}
		},
	}, {
		name: "candidacy-missing: a candidate of the district without a row",
		edit: func(t *testing.T, m fstest.MapFS, s sheet) {
			editCandidate(t, m, "Melissa Bagley", func(c map[string]any) {
				c["district_ids"] = append(c["district_ids"].([]any), districtID(t, m, 6))
			})
		},
		want: func(t *testing.T, m fstest.MapFS) []string {
			return []string{fmt.Sprintf("counts.json: /5/candidacies: district 6: Melissa Bagley (candidates.json /%d) stands in district 6 and has no row; a sheet holds every candidacy of its district [candidacy-missing]", indexOf(t, m, "Melissa Bagley"))}
		},
	}, {
		name: "candidacy-district: a row of a candidate of another district",
		edit: func(t *testing.T, m fstest.MapFS, s sheet) {
			editCandidate(t, m, "Clint Calleja", func(c map[string]any) {
				c["district_ids"] = []any{c["primary_district_id"]}
			})
		},
		want: func(t *testing.T, m fstest.MapFS) []string {
			return []string{fmt.Sprintf("counts.json: /4/candidacies/6/candidate_id: district 5: Clint Calleja (candidates.json /%d) does not stand in district 5; every row of a sheet is a candidacy in its district [candidacy-district]", indexOf(t, m, "Clint Calleja"))}
		},
	}, {
		name: "elected-flag: elected at a count, and not elected",
		edit: func(t *testing.T, m fstest.MapFS, s sheet) {
			editCandidate(t, m, "Stefan Zrinzo Azzopardi", func(c map[string]any) { c["elected"] = false })
		},
		want: func(t *testing.T, m fstest.MapFS) []string {
			return []string{fmt.Sprintf("candidates.json: /%d/elected: is false, and Stefan Zrinzo Azzopardi is elected at count 18 of district 5 (counts.json /4/candidacies/4); a candidate elected at a count is elected [elected-flag]", indexOf(t, m, "Stefan Zrinzo Azzopardi"))}
		},
	}, {
		name: "count-event: a surplus and an exclusion at one count",
		// Counts 3 and 4 made one: Bernard Grech's surplus and Radu
		// Gheorghe's exclusion.
		edit: func(t *testing.T, m fstest.MapFS, s sheet) { dropCount(s, 3) },
		want: func(*testing.T, fstest.MapFS) []string {
			return []string{"counts.json: /4/counts/2: district 5, count 3: Bernard Grech's surplus moves and Radu Gheorghe is excluded at the same count; a count is one event [count-event]"}
		},
	}, {
		name: "count-event: a vote for an excluded candidate",
		edit: func(t *testing.T, m fstest.MapFS, s sheet) {
			add(candidacy(t, s, "Tania Gauci"), 7, 18, 1)
			add(candidacy(t, s, "Stefan Zrinzo Azzopardi"), 7, 18, -1)
		},
		want: func(*testing.T, fstest.MapFS) []string {
			return []string{"counts.json: /4/candidacies/18/totals/6: district 5, count 7: Tania Gauci was excluded at count 5, and gains 1 vote; votes go only to continuing candidates or non-transferable [count-event]"}
		},
	}, {
		name: "count-event: a vote for the elected before their surplus moves",
		edit: func(t *testing.T, m fstest.MapFS, s sheet) {
			add(candidacy(t, s, "Bernard Grech"), 2, 2, 1)
			add(candidacy(t, s, "Owen Bonnici"), 2, 2, -1)
		},
		want: func(*testing.T, fstest.MapFS) []string {
			return []string{"counts.json: /4/candidacies/1/totals/1: district 5, count 2: Bernard Grech was elected at count 1, and gains 1 vote before their surplus moves; votes go only to continuing candidates or non-transferable [count-event]"}
		},
	}, {
		name: "elected-total-changes: the elected lose a vote after their surplus",
		edit: func(t *testing.T, m fstest.MapFS, s sheet) {
			add(candidacy(t, s, "Robert Abela"), 10, 18, -1)
			add(candidacy(t, s, "Stefan Zrinzo Azzopardi"), 10, 18, 1)
		},
		want: func(*testing.T, fstest.MapFS) []string {
			return []string{"counts.json: /4/candidacies/0/totals/9: district 5, count 10: Robert Abela's surplus went at an earlier count, and their total falls from 3,799 to 3,798; it never changes after [elected-total-changes]"}
		},
	}, {
		name:    "derived-field: the elected in another order",
		derived: true,
		edit: func(t *testing.T, m fstest.MapFS, s sheet) {
			e := s["elected"].([]any)
			e[0], e[1] = e[1], e[0]
		},
		want: func(t *testing.T, m fstest.MapFS) []string {
			return []string{"counts.json: /4/elected: district 5: is [Bernard Grech, Robert Abela, Miriam Dalli, Owen Bonnici, Stefan Zrinzo Azzopardi], and the counts elect [Robert Abela, Bernard Grech, Miriam Dalli, Owen Bonnici, Stefan Zrinzo Azzopardi], in that order [derived-field]"}
		},
	}, {
		name:    "derived-field: the elected in another order, two rows of one name",
		derived: true,
		// Bernard Grech's row printed as Robert Abela's: each of the
		// two is named with their id.
		edit: func(t *testing.T, m fstest.MapFS, s sheet) {
			candidacy(t, s, "Bernard Grech")["name"] = "Robert Abela"
			e := s["elected"].([]any)
			e[0], e[1] = e[1], e[0]
		},
		want: func(t *testing.T, m fstest.MapFS) []string {
			abela, grech := candidateID(t, m, "Robert Abela"), candidateID(t, m, "Bernard Grech")
			return []string{fmt.Sprintf("counts.json: /4/elected: district 5: is [Robert Abela (%s), Robert Abela (%s), Miriam Dalli, Owen Bonnici, Stefan Zrinzo Azzopardi], and the counts elect [Robert Abela (%[2]s), Robert Abela (%[1]s), Miriam Dalli, Owen Bonnici, Stefan Zrinzo Azzopardi], in that order [derived-field]", grech, abela)}
		},
	}, {
		name:    "derived-field: whose surplus moves, and an id of no row",
		derived: true,
		edit: func(t *testing.T, m fstest.MapFS, s sheet) {
			s["counts"].([]any)[1].(map[string]any)["candidate_ids"] = []any{candidateID(t, m, "Bernard Grech"), "00000000-0000-5000-8000-000000000000"}
		},
		want: func(t *testing.T, m fstest.MapFS) []string {
			return []string{"counts.json: /4/counts/1/candidate_ids: district 5, count 2: is [Bernard Grech, 00000000-0000-5000-8000-000000000000], and the totals show [Robert Abela] [derived-field]"}
		},
	}, {
		name:    "derived-field: first preferences and the count of an election",
		derived: true,
		edit: func(t *testing.T, m fstest.MapFS, s sheet) {
			row := candidacy(t, s, "Robert Abela")
			row["first_preferences"] = 9995
			candidacy(t, s, "Miriam Dalli")["elected_at_count"] = 17
			candidacy(t, s, "Radu Gheorghe")["elected_at_count"] = 4
		},
		want: func(*testing.T, fstest.MapFS) []string {
			return []string{
				"counts.json: /4/candidacies/0/first_preferences: district 5: Robert Abela: is 9,995, and the first count's total is 9,996 [derived-field]",
				"counts.json: /4/candidacies/2/elected_at_count: district 5: Miriam Dalli: is 17, and the totals elect them at count 16 [derived-field]",
				"counts.json: /4/candidacies/15/elected_at_count: district 5: Radu Gheorghe: is 4, and by the totals Radu Gheorghe is not elected [derived-field]",
			}
		},
	}, {
		name: "candidacy-party: a row's party not its candidate's",
		edit: func(t *testing.T, m fstest.MapFS, s sheet) {
			candidacy(t, s, "Robert Abela")["party_id"] = partyID(t, m, "pn")
		},
		want: func(t *testing.T, m fstest.MapFS) []string {
			return []string{fmt.Sprintf("counts.json: /4/candidacies/0/party_id: district 5: is %s, and Robert Abela's party_id is %s [candidacy-party]", partyID(t, m, "pn"), partyID(t, m, "pl"))}
		},
	}, {
		name:    "derived-field: an event the totals do not show",
		derived: true,
		edit: func(t *testing.T, m fstest.MapFS, s sheet) {
			s["counts"].([]any)[1].(map[string]any)["event"] = "exclusion"
		},
		want: func(*testing.T, fstest.MapFS) []string {
			return []string{`counts.json: /4/counts/1/event: district 5, count 2: is "exclusion", and the totals show "surplus" [derived-field]`}
		},
	}, {
		name: "count-length: a row one total short",
		edit: func(t *testing.T, m fstest.MapFS, s sheet) {
			row := candidacy(t, s, "Clint Calleja")
			row["totals"] = totals(row)[:17]
		},
		want: func(*testing.T, fstest.MapFS) []string {
			return []string{"counts.json: /4/candidacies/6/totals: has 17 totals, and the sheet 18 counts [count-length]"}
		},
	}, {
		name: "status: neither counting nor final",
		edit: func(t *testing.T, m fstest.MapFS, s sheet) { s["status"] = "done" },
		want: func(*testing.T, fstest.MapFS) []string {
			return []string{`counts.json: /4/status: is "done"; must be "counting" or "final" [status]`}
		},
	}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m := countSheets(t)
			datasettest.Edit(t, m, dataset.CountsFile, func(sheets []map[string]any) []map[string]any {
				s := sheets[4]
				if !tt.derived {
					stripDerived(s)
				}
				if tt.status != "" {
					s["status"] = tt.status
				}
				tt.edit(t, m, s)
				return sheets
			})
			got := problems(t, m)
			if want := tt.want(t, m); !slices.Equal(got, want) {
				t.Errorf("problems:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
			}
		})
	}
}

// candidateID is the id of the candidate named name.
func candidateID(t *testing.T, m fstest.MapFS, name string) string {
	t.Helper()
	id := ""
	datasettest.Edit(t, m, dataset.CandidatesFile, func(cs []map[string]any) []map[string]any {
		for _, c := range cs {
			if c["name"] == name {
				id = c["id"].(string)
			}
		}
		return cs
	})
	return id
}

// partyID is the id of the party whose slug is slug.
func partyID(t *testing.T, m fstest.MapFS, slug string) string {
	t.Helper()
	id := ""
	datasettest.Edit(t, m, dataset.PartiesFile, func(ps []map[string]any) []map[string]any {
		for _, p := range ps {
			if p["slug"] == slug {
				id = p["id"].(string)
			}
		}
		return ps
	})
	return id
}

// districtID is the id of the district numbered n.
func districtID(t *testing.T, m fstest.MapFS, n int) string {
	t.Helper()
	id := ""
	datasettest.Edit(t, m, dataset.DistrictsFile, func(ds []map[string]any) []map[string]any {
		for _, d := range ds {
			if d["number"] == float64(n) {
				id = d["id"].(string)
			}
		}
		return ds
	})
	return id
}

// problems loads m and returns its errors as "PROBLEM [RULE]", none when
// it is valid.
func problems(t *testing.T, m fstest.MapFS) []string {
	t.Helper()
	_, err := dataset.Load(m)
	if err == nil {
		return nil
	}
	var r *dataset.Report
	if !errors.As(err, &r) {
		t.Fatalf("load: %v", err)
	}
	var out []string
	for _, p := range r.Errors {
		out = append(out, p.String()+" ["+p.Rule+"]")
	}
	return out
}

func TestCountSheetsValid(t *testing.T) {
	if got := problems(t, countSheets(t)); got != nil {
		t.Fatalf("the 2022 sheets: %s", strings.Join(got, "\n"))
	}
}

// The record of district 5 as the API serves it: each count's event,
// from the totals alone, and who was elected at which count.
func TestCountSheetServed(t *testing.T) {
	ds, err := dataset.Load(countSheets(t))
	if err != nil {
		t.Fatal(err)
	}
	s, ok := ds.Sheet(5)
	if !ok {
		t.Fatal("no sheet for district 5")
	}
	names := map[string]string{}
	for _, c := range s.Candidacies {
		names[c.CandidateID] = c.Name
	}
	var events []string
	for _, c := range s.Counts {
		var who []string
		for _, id := range c.CandidateIDs {
			who = append(who, names[id])
		}
		events = append(events, fmt.Sprintf("%d %s %s %d nt %d", c.Number, c.Event, strings.Join(who, "+"), c.Votes, c.NonTransferable))
	}
	want := []string{
		"1 first_preferences  0 nt 0",
		"2 surplus Robert Abela 6197 nt 0",
		"3 surplus Bernard Grech 2000 nt 0",
		"4 exclusion Radu Gheorghe 31 nt 1",
		"5 exclusion Tania Gauci 113 nt 57",
		"6 exclusion Gianluca Cutajar 134 nt 71",
		"7 exclusion Jean Claude Micallef 163 nt 73",
		"8 exclusion Owen Sciberras 168 nt 77",
		"9 exclusion Clint Calleja 177 nt 166",
		"10 exclusion Joseph [Joe] M. Sammut 285 nt 183",
		"11 exclusion Stefan Caruana 292 nt 195",
		"12 exclusion Melissa Joan Bagley 493 nt 441",
		"13 exclusion Francine Farrugia 600 nt 491",
		"14 exclusion Omar Farrugia 1016 nt 581",
		"15 exclusion Stanley Zammit 1343 nt 734",
		"16 exclusion Julia Farrugia Portelli 2092 nt 834",
		"17 surplus Miriam Dalli 751 nt 834",
		"18 surplus Owen Bonnici 235 nt 834",
	}
	if !slices.Equal(events, want) {
		t.Errorf("counts:\n%s\nwant:\n%s", strings.Join(events, "\n"), strings.Join(want, "\n"))
	}
	var order []string
	for _, c := range s.Candidacies {
		at := "-"
		switch {
		case c.ElectedAtCount != nil:
			at = fmt.Sprintf("elected %d", *c.ElectedAtCount)
		case c.ExcludedAtCount != nil:
			at = fmt.Sprintf("excluded %d", *c.ExcludedAtCount)
		}
		order = append(order, fmt.Sprintf("%s %d %s", c.Name, c.FirstPreferences, at))
	}
	wantOrder := []string{
		"Robert Abela 9996 elected 1",
		"Bernard Grech 5799 elected 1",
		"Miriam Dalli 1122 elected 16",
		"Owen Bonnici 1127 elected 16",
		"Stefan Zrinzo Azzopardi 1021 elected 18",
		"Anthony [Toni] Bezzina 762 -",
	}
	if len(order) != 19 || !slices.Equal(order[:6], wantOrder) {
		t.Errorf("candidacies (%d):\n%s\nwant first:\n%s", len(order), strings.Join(order, "\n"), strings.Join(wantOrder, "\n"))
	}
	if len(s.Elected) != 5 || names[s.Elected[4]] != "Stefan Zrinzo Azzopardi" {
		t.Errorf("elected = %v", s.Elected)
	}
	if s.DistrictNumber != 5 || s.Quota != 3799 || s.ValidVotes != 22789 || s.Registered == nil || *s.Registered != 27056 || s.Status != dataset.StatusFinal {
		t.Errorf("figures: %+v", s)
	}
}

// The rules of one field, and of references, each broken in district 5's
// sheet.
func TestCountSheetFields(t *testing.T) {
	tests := []struct {
		name string
		edit func(s sheet, sheets []map[string]any) []map[string]any
		want []string
	}{{
		name: "an unknown candidate",
		edit: func(s sheet, sheets []map[string]any) []map[string]any {
			s["candidacies"].([]any)[0].(map[string]any)["candidate_id"] = "00000000-0000-5000-8000-000000000000"
			return sheets
		},
		want: []string{
			"counts.json: /4/candidacies/0/candidate_id: district 5: no candidate has id 00000000-0000-5000-8000-000000000000 [reference]",
			"counts.json: /4/candidacies: district 5: Robert Abela (candidates.json /30) stands in district 5 and has no row; a sheet holds every candidacy of its district [candidacy-missing]",
		},
	}, {
		name: "a candidate with two rows",
		edit: func(s sheet, sheets []map[string]any) []map[string]any {
			rows := s["candidacies"].([]any)
			rows[1].(map[string]any)["candidate_id"] = rows[0].(map[string]any)["candidate_id"]
			return sheets
		},
		want: []string{
			"counts.json: /4/candidacies/1/candidate_id: district 5: Robert Abela has a row already, at /4/candidacies/0 [duplicate-key]",
			"counts.json: /4/candidacies: district 5: Bernard Grech (candidates.json /83) stands in district 5 and has no row; a sheet holds every candidacy of its district [candidacy-missing]",
		},
	}, {
		name: "two sheets of one district",
		edit: func(s sheet, sheets []map[string]any) []map[string]any {
			sheets[5]["district_id"] = s["district_id"]
			return sheets
		},
		want: []string{"counts.json: /5/district_id: district 5 has a sheet already, at /4 [duplicate-key]"},
	}, {
		name: "a district that is not one",
		edit: func(s sheet, sheets []map[string]any) []map[string]any {
			s["district_id"] = "00000000-0000-5000-8000-000000000014"
			return sheets
		},
		want: []string{"counts.json: /4/district_id: no district has id 00000000-0000-5000-8000-000000000014 [reference]"},
	}, {
		name: "no candidacies",
		edit: func(s sheet, sheets []map[string]any) []map[string]any {
			s["candidacies"] = []any{}
			return sheets
		},
		want: []string{"counts.json: /4/candidacies: is empty; a sheet holds a row for each candidacy of its district [required]"},
	}, {
		name: "more seats than candidacies",
		edit: func(s sheet, sheets []map[string]any) []map[string]any {
			s["seats"] = 1 << 62
			return sheets
		},
		want: []string{"counts.json: /4/seats: is 4,611,686,018,427,387,904, more than the sheet's 19 candidacies [range]"},
	}, {
		name: "a quota of 0: one problem",
		edit: func(s sheet, sheets []map[string]any) []map[string]any {
			s["quota"] = 0
			return sheets
		},
		want: []string{"counts.json: /4/quota: is 0; must be 1 or more [range]"},
	}, {
		name: "a negative total",
		edit: func(s sheet, sheets []map[string]any) []map[string]any {
			totals(s["candidacies"].([]any)[1].(map[string]any))[4] = -1.0
			return sheets
		},
		want: []string{"counts.json: /4/candidacies/1/totals/4: district 5, count 5: is -1; must be 0 or more [range]"},
	}, {
		name: "a negative non-transferable",
		edit: func(s sheet, sheets []map[string]any) []map[string]any {
			s["counts"].([]any)[0].(map[string]any)["non_transferable"] = -1.0
			return sheets
		},
		want: []string{"counts.json: /4/counts/0/non_transferable: district 5, count 1: is -1; must be 0 or more [range]"},
	}, {
		name: "fewer registered than valid votes",
		edit: func(s sheet, sheets []map[string]any) []map[string]any {
			s["registered"] = 22788
			return sheets
		},
		want: []string{"counts.json: /4/registered: district 5, the registered voters are 22,788, fewer than the 22,789 valid votes [registered]"},
	}, {
		name: "more valid votes than a JSON reader keeps exact",
		edit: func(s sheet, sheets []map[string]any) []map[string]any {
			s["valid_votes"] = 1 << 60
			s["registered"] = nil
			return sheets
		},
		want: []string{
			"counts.json: /4/valid_votes: is 1,152,921,504,606,846,976; must be at most 9,007,199,254,740,991, the largest integer every JSON reader keeps exact [range]",
		},
	}, {
		name: "no counts",
		edit: func(s sheet, sheets []map[string]any) []map[string]any {
			s["counts"] = []any{}
			for _, row := range s["candidacies"].([]any) {
				row.(map[string]any)["totals"] = []any{}
			}
			return sheets
		},
		want: []string{"counts.json: /4/counts: is empty; a sheet holds count 1 at least [count-length]"},
	}, {
		name: "a total past 64 bits",
		edit: func(s sheet, sheets []map[string]any) []map[string]any {
			totals(s["candidacies"].([]any)[1].(map[string]any))[4] = 1e25
			return sheets
		},
		want: []string{"counts.json: /4/candidacies/1/totals/4: must be an integer, not 1e+25 [type]"},
	}, {
		name: "a total of 21 digits",
		edit: func(s sheet, sheets []map[string]any) []map[string]any {
			totals(s["candidacies"].([]any)[1].(map[string]any))[4] = 1e20
			totals(s["candidacies"].([]any)[2].(map[string]any))[4] = -1e20
			totals(s["candidacies"].([]any)[3].(map[string]any))[4] = json.RawMessage("1" + strings.Repeat("0", 99))
			return sheets
		},
		want: []string{
			"counts.json: /4/candidacies/1/totals/4: is 100000000000000000000; must be at most 9,223,372,036,854,775,807 [range]",
			"counts.json: /4/candidacies/2/totals/4: is -100000000000000000000; must be at least -9,223,372,036,854,775,808 [range]",
			"counts.json: /4/candidacies/3/totals/4: is a number of 100 digits; must be at most 9,223,372,036,854,775,807 [range]",
		},
	}, {
		name: "a total that is text",
		edit: func(s sheet, sheets []map[string]any) []map[string]any {
			totals(s["candidacies"].([]any)[1].(map[string]any))[4] = "40"
			return sheets
		},
		want: []string{"counts.json: /4/candidacies/1/totals/4: must be an integer, not string [type]"},
	}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m := countSheets(t)
			datasettest.Edit(t, m, dataset.CountsFile, func(sheets []map[string]any) []map[string]any {
				stripDerived(sheets[4])
				return tt.edit(sheets[4], sheets)
			})
			if got := problems(t, m); !slices.Equal(got, tt.want) {
				t.Errorf("problems:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(tt.want, "\n"))
			}
		})
	}
}

// A dataset without counts.json is valid and has no sheets.
func TestNoCountSheets(t *testing.T) {
	m := countSheets(t)
	delete(m, dataset.CountsFile)
	ds, err := dataset.Load(m)
	if err != nil {
		t.Fatal(err)
	}
	if n := len(ds.Sheets()); n != 0 {
		t.Errorf("%d sheets, want none", n)
	}
	if _, ok := ds.Sheet(5); ok {
		t.Error("Sheet(5) found one")
	}
}

// A candidate with no votes is excluded with the first exclusion, beside
// the lowest, whatever that one's votes.
func TestCountNoVotes(t *testing.T) {
	m := countSheets(t)
	const id = "00000000-0000-5000-8000-000000000005"
	datasettest.Edit(t, m, dataset.CandidatesFile, func(cs []map[string]any) []map[string]any {
		d := districtID(t, m, 5)
		return append(cs, map[string]any{"id": id, "slug": "no-votes", "name": "No Votes", "given_name": "No", "family_name": "Votes", "party_id": nil, "primary_district_id": d, "district_ids": []any{d}})
	})
	datasettest.Edit(t, m, dataset.CountsFile, func(sheets []map[string]any) []map[string]any {
		s := sheets[4]
		stripDerived(s)
		s["candidacies"] = append(s["candidacies"].([]any), map[string]any{"candidate_id": id, "name": "No Votes", "totals": make([]int, 18)})
		return sheets
	})
	ds, err := dataset.Load(m)
	if err != nil {
		t.Fatal(err)
	}
	s, _ := ds.Sheet(5)
	c := s.Counts[3]
	if c.Event != dataset.EventExclusion || len(c.CandidateIDs) != 2 || c.CandidateIDs[0] != id || c.Votes != 31 {
		t.Errorf("count 4: %+v, want the exclusion of No Votes and Radu Gheorghe, 31 votes", c)
	}
	for _, row := range s.Candidacies {
		if row.CandidateID == id && (row.ExcludedAtCount == nil || *row.ExcludedAtCount != 4) {
			t.Errorf("No Votes excluded at %v, want count 4", row.ExcludedAtCount)
		}
	}
}

// What a sheet gives that follows from the totals may be left out: the
// 2022 sheets with only what the Commission prints load as the same
// records.
func TestCountSheetDerivedFieldsOptional(t *testing.T) {
	m := countSheets(t)
	whole, err := dataset.Load(m)
	if err != nil {
		t.Fatal(err)
	}
	datasettest.Edit(t, m, dataset.CountsFile, func(sheets []map[string]any) []map[string]any {
		for _, s := range sheets {
			stripDerived(s)
		}
		return sheets
	})
	printed, err := dataset.Load(m)
	if err != nil {
		t.Fatal(err)
	}
	if got, want := dataset.EncodeJSON(printed.Sheets()), dataset.EncodeJSON(whole.Sheets()); string(got) != string(want) {
		t.Errorf("the sheets without their derived fields load as\n%.2000s\nwant\n%.2000s", got, want)
	}
}

// TestCountSheetNamesFormulas: a name a sheet's row prints that begins
// with a character a spreadsheet runs as a formula is warned of, as a
// name of candidates.json is, at the row's pointer.
func TestCountSheetNamesFormulas(t *testing.T) {
	m := countSheets(t)
	datasettest.Edit(t, m, dataset.CountsFile, func(sheets []map[string]any) []map[string]any {
		candidacy(t, sheets[4], "Robert Abela")["name"] = "=HYPERLINK(\"http://evil.example\",\"Robert Abela\")"
		candidacy(t, sheets[4], "Owen Bonnici")["name"] = "-Owen Bonnici"
		return sheets
	})
	ds, err := dataset.Load(m)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, p := range ds.Warnings {
		got = append(got, p.String()+" ["+p.Rule+"]")
	}
	want := []string{
		`counts.json: /4/candidacies/0/name: "=HYPERLINK(\"http://evil.example\",\"Robert Abela\")" begins with "=", which a spreadsheet may run as a formula [formula-prefix]`,
		`counts.json: /4/candidacies/3/name: "-Owen Bonnici" begins with "-", which a spreadsheet may run as a formula [formula-prefix]`,
	}
	if !slices.Equal(got, want) {
		t.Errorf("warnings:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}
