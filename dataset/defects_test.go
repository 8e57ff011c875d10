package dataset_test

import (
	"slices"
	"strings"
	"testing"

	"ballot/dataset"
	"ballot/internal/datasettest"
)

// broken is a synthetic sheet of district 5 (two seats, 100 valid votes,
// a quota of 34) whose count 2 adds up to 101: Miriam Dalli has one vote
// too many there. Robert Abela is elected on first preferences, his
// surplus goes at count 2, Stefan Zrinzo Azzopardi is excluded at count
// 3, after which Bernard Grech's 33 are more than the 32 of all below
// him together.
var broken = struct {
	nt   []int
	rows [][]int
}{[]int{0, 1, 1}, [][]int{{40, 34, 34}, {30, 33, 33}, {18, 20, 22}, {7, 8, 10}, {5, 5, 0}}}

// defect states a defect in district 5's sheet: count 0 for none (null).
func defect(count int, rule, note string, extra ...string) func(s sheet) {
	return func(s sheet) {
		d := map[string]any{"rule": rule, "note": note, "count": nil}
		if count > 0 {
			d["count"] = float64(count)
		}
		for i := 0; i+1 < len(extra); i += 2 {
			d[extra[i]] = extra[i+1]
		}
		s["defects"] = append(listOf(s["defects"]), d)
	}
}

// TestDefects: a sheet that breaks a rule of the count is served when it
// states each break as a defect, by count and rule; each stated break is
// a warning, naming the statement, and the served sheet holds it with
// what the rule says of it. A break not stated is an error, and so is a
// statement of a break the rules do not find, or a statement that names
// no rule of the count, or a count where the rule has none.
func TestDefects(t *testing.T) {
	const note = "the transcription's count 2 has one vote too many"
	tests := []struct {
		name     string
		nt       []int
		rows     [][]int
		edits    []func(s sheet)
		problems []string
		warnings []string
		defects  []dataset.Defect // served
		events   []string         // served, of each count
		fates    []string
	}{{
		name:  "a count that does not balance, stated",
		edits: []func(s sheet){defect(2, "count-balance", note)},
		warnings: []string{
			"counts.json: /4/counts/1: district 5, count 2: the totals add up to 101, and the valid votes are 100; a known defect, stated at /4/defects/0 [count-balance]",
		},
		defects: []dataset.Defect{{Count: at(2), Rule: "count-balance", Message: "count 2: the totals add up to 101, and the valid votes are 100", Note: note, Elected: []string{}}},
		events:  []string{"first_preferences", "surplus", "exclusion"},
		fates:   []string{"Robert Abela: elected 1", "Bernard Grech: elected 3", "Miriam Dalli: -", "Owen Bonnici: -", "Stefan Zrinzo Azzopardi: excluded 3"},
	}, {
		name: "a count that does not balance, not stated",
		problems: []string{
			"counts.json: /4/counts/1: district 5, count 2: the totals add up to 101, and the valid votes are 100 [count-balance]",
		},
	}, {
		name:  "a count stated to break a rule it keeps",
		edits: []func(s sheet){defect(2, "count-balance", note), defect(3, "count-balance", note), defect(3, "total-falls", note)},
		problems: []string{
			"counts.json: /4/defects/1: district 5, count 3 is stated to break count-balance, and it balances [defect]",
			"counts.json: /4/defects/2: district 5, count 3 is stated to break total-falls, and the rule finds no break there [defect]",
		},
	}, {
		name:  "the sheet stated to break a rule it keeps",
		edits: []func(s sheet){defect(2, "count-balance", note), defect(0, "elected-seats", note)},
		problems: []string{
			"counts.json: /4/defects/1: district 5, the sheet is stated to break elected-seats, and the rule finds no break in it [defect]",
		},
	}, {
		name:  "a final sheet that ends too early, stated",
		nt:    []int{0, 1},
		rows:  [][]int{{40, 34}, {28, 31}, {20, 21}, {7, 8}, {5, 5}},
		edits: []func(s sheet){defect(0, "elected-seats", "the transcription ends at count 2")},
		warnings: []string{
			"counts.json: /4/status: district 5, the sheet is final, but its 2 counts elect 1 of its 2 seats: after count 2, the 17 candidates below the last seat have 34 votes together, and Bernard Grech, who would take it, has 31; a further count could still change who is elected; a known defect, stated at /4/defects/0 [elected-seats]",
		},
		defects: []dataset.Defect{{Rule: "elected-seats", Message: "the sheet is final, but its 2 counts elect 1 of its 2 seats: after count 2, the 17 candidates below the last seat have 34 votes together, and Bernard Grech, who would take it, has 31; a further count could still change who is elected", Note: "the transcription ends at count 2", Elected: []string{}}},
		events:  []string{"first_preferences", "surplus"},
		fates:   []string{"Robert Abela: elected 1", "Bernard Grech: -", "Miriam Dalli: -"},
	}, {
		name: "a count after every seat was filled, stated",
		// Count 4 excludes Owen Bonnici, the one left below Bernard
		// Grech; count 5 repeats it.
		nt:    []int{0, 1, 1, 1, 1},
		rows:  [][]int{{40, 34, 34, 34, 34}, {30, 33, 33, 43, 43}, {18, 19, 22, 22, 22}, {7, 8, 10, 0, 0}, {5, 5, 0, 0, 0}},
		edits: []func(s sheet){defect(5, "elected-seats", "count 5 repeats count 4"), defect(5, "count-event", "count 5 repeats count 4")},
		warnings: []string{
			"counts.json: /4/counts/4: district 5, count 5: every seat was filled at count 4, so the count ends there; a known defect, stated at /4/defects/0 [elected-seats]",
			"counts.json: /4/counts/4: district 5, count 5: no total falls; a count transfers a surplus or excludes a candidate; a known defect, stated at /4/defects/1 [count-event]",
		},
		defects: []dataset.Defect{
			{Count: at(5), Rule: "elected-seats", Message: "count 5: every seat was filled at count 4, so the count ends there", Note: "count 5 repeats count 4", Elected: []string{}},
			{Count: at(5), Rule: "count-event", Message: "count 5: no total falls; a count transfers a surplus or excludes a candidate", Note: "count 5 repeats count 4", Elected: []string{}},
		},
		events: []string{"first_preferences", "surplus", "exclusion", "exclusion", "irregular"},
		fates:  []string{"Robert Abela: elected 1", "Bernard Grech: elected 4", "Miriam Dalli: -", "Owen Bonnici: excluded 4", "Stefan Zrinzo Azzopardi: excluded 3"},
	}, {
		name: "a surplus and an exclusion at one count, stated",
		// Count 2 moves Robert Abela's surplus of 6 and excludes Stefan
		// Zrinzo Azzopardi's 5 at once.
		nt:    []int{0, 1},
		rows:  [][]int{{40, 34}, {30, 33}, {18, 23}, {7, 9}, {5, 0}},
		edits: []func(s sheet){defect(2, "count-event", "the transcription joins two counts")},
		warnings: []string{
			"counts.json: /4/counts/1: district 5, count 2: Robert Abela's surplus moves and Stefan Zrinzo Azzopardi is excluded at the same count; a count is one event; a known defect, stated at /4/defects/0 [count-event]",
		},
		defects: []dataset.Defect{{Count: at(2), Rule: "count-event", Message: "count 2: Robert Abela's surplus moves and Stefan Zrinzo Azzopardi is excluded at the same count; a count is one event", Note: "the transcription joins two counts", Elected: []string{}}},
		events:  []string{"first_preferences", "irregular"},
		fates:   []string{"Robert Abela: elected 1", "Bernard Grech: elected 2", "Miriam Dalli: -", "Owen Bonnici: -", "Stefan Zrinzo Azzopardi: excluded 2"},
	}, {
		name: "fewer registered than valid votes, stated",
		nt:   []int{0, 1, 1}, rows: [][]int{{40, 34, 34}, {30, 33, 33}, {18, 19, 22}, {7, 8, 10}, {5, 5, 0}},
		edits: []func(s sheet){func(s sheet) { s["registered"] = 99 }, defect(0, "registered", "the figure is district 1's")},
		warnings: []string{
			"counts.json: /4/registered: district 5, the registered voters are 99, fewer than the 100 valid votes; a known defect, stated at /4/defects/0 [registered]",
		},
		defects: []dataset.Defect{{Rule: "registered", Message: "the registered voters are 99, fewer than the 100 valid votes", Note: "the figure is district 1's", Elected: []string{}}},
		events:  []string{"first_preferences", "surplus", "exclusion"},
	}, {
		name:  "the message given, as the rule says it",
		edits: []func(s sheet){defect(2, "count-balance", note, "message", "count 2: the totals add up to 101, and the valid votes are 100")},
		warnings: []string{
			"counts.json: /4/counts/1: district 5, count 2: the totals add up to 101, and the valid votes are 100; a known defect, stated at /4/defects/0 [count-balance]",
		},
		defects: []dataset.Defect{{Count: at(2), Rule: "count-balance", Message: "count 2: the totals add up to 101, and the valid votes are 100", Note: note, Elected: []string{}}},
		events:  []string{"first_preferences", "surplus", "exclusion"},
	}, {
		name:  "the message given, and not as the rule says it",
		edits: []func(s sheet){defect(2, "count-balance", note, "message", "count 2: off by one")},
		problems: []string{
			`counts.json: /4/defects/0/message: district 5: is "count 2: off by one", and the rule says "count 2: the totals add up to 101, and the valid votes are 100" [derived-field]`,
		},
	}, {
		name:  "stated twice",
		edits: []func(s sheet){defect(2, "count-balance", note), defect(2, "count-balance", note)},
		problems: []string{
			"counts.json: /4/defects/1: district 5, count 2: count-balance is stated already, at /4/defects/0 [duplicate-key]",
		},
	}, {
		name: "fields out of the rules",
		edits: []func(s sheet){
			defect(2, "quota", note), defect(0, "count-balance", note), defect(9, "count-event", note),
			defect(2, "registered", note), defect(2, "total-falls", " "),
		},
		problems: []string{
			`counts.json: /4/defects/0/rule: is "quota"; a defect names a rule of the count: count-balance, count-event, total-falls, elected-total-changes, elected-seats, registered [defect]`,
			"counts.json: /4/defects/1/count: is null; count-balance breaks at a count: give its number [defect]",
			"counts.json: /4/defects/2/count: is 9; must be a count of the sheet, 1 to 3 [range]",
			"counts.json: /4/defects/3/count: is 2; registered is the sheet's figure, at no count: give null [defect]",
			"counts.json: /4/defects/4/note: must not be empty: say what is known of the break [required]",
		},
	}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m := countSheets(t)
			nt, rows := broken.nt, broken.rows
			if tt.rows != nil {
				nt, rows = tt.nt, tt.rows
			}
			names := datasettest.Synthetic(t, m, 2, nt, rows...)
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
			if got := dataset.EncodeJSON(s.Defects); string(got) != string(dataset.EncodeJSON(tt.defects)) {
				t.Errorf("defects: %s, want %s", got, dataset.EncodeJSON(tt.defects))
			}
			var events []string
			for _, c := range s.Counts {
				events = append(events, c.Event)
			}
			if !slices.Equal(events, tt.events) {
				t.Errorf("events: %v, want %v", events, tt.events)
			}
			if got := fates(s, names, len(tt.fates)); !slices.Equal(got, tt.fates) {
				t.Errorf("fates:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(tt.fates, "\n"))
			}
		})
	}
}

// early is a synthetic final sheet of district 5 (two seats, 100 valid
// votes, a quota of 34) that ends too early: Robert Abela is elected on
// first preferences, his surplus goes at count 2, Stefan Zrinzo
// Azzopardi is excluded at count 3 (with the rows of no vote), and the
// sheet ends with one seat unfilled: Miriam Dalli's 22 and Owen
// Bonnici's 11 below the last seat could still reach Bernard Grech's 32.
var early = struct {
	nt   []int
	rows [][]int
}{[]int{0, 1, 1}, [][]int{{40, 34, 34}, {28, 31, 32}, {20, 21, 22}, {7, 8, 11}, {5, 5, 0}}}

// endsEarly is what the rule says of early.
const endsEarly = "the sheet is final, but its 3 counts elect 1 of its 2 seats: after count 3, the 2 candidates below the last seat have 33 votes together, and Bernard Grech, who would take it, has 32; a further count could still change who is elected"

// electedAs states, in the last defect of district 5's sheet, who took
// the seats the sheet leaves unfilled: each by the candidate id of the
// row of that name, or as it is when no row has it.
func electedAs(names ...string) func(s sheet) {
	return func(s sheet) {
		ids := make([]any, len(names))
		for n, name := range names {
			ids[n] = name
			for _, row := range s["candidacies"].([]any) {
				if r := row.(map[string]any); r["name"] == name {
					ids[n] = r["candidate_id"]
				}
			}
		}
		defects := listOf(s["defects"])
		defects[len(defects)-1].(map[string]any)["elected"] = ids
	}
}

// TestDefectsElectedAsPublished: the elected-seats defect of a final
// sheet that ends too early may state who took the seats it leaves
// unfilled, as the published result gives them: each a candidate
// continuing at its last count, in whatever order of their totals, no
// more than the seats left. They are elected at the sheet's last count,
// after those the rules elect; the break stays a warning, and the served
// defect names them. No other defect states them, and a sheet whose
// counts fill every seat has none left to state.
func TestDefectsElectedAsPublished(t *testing.T) {
	const note = "the transcription ends at count 3"
	warned := "counts.json: /4/status: district 5, " + endsEarly + "; a known defect, stated at /4/defects/0 [elected-seats]"
	tests := []struct {
		name     string
		nt       []int
		rows     [][]int
		edits    []func(s sheet)
		problems []string
		warnings []string
		elected  []string // served, of the sheet and of its defect, by name
		fates    []string
	}{{
		name:     "the highest continuing",
		edits:    []func(s sheet){defect(0, "elected-seats", note), electedAs("Bernard Grech")},
		warnings: []string{warned},
		elected:  []string{"Bernard Grech"},
		fates:    []string{"Robert Abela: elected 1", "Bernard Grech: elected 3", "Miriam Dalli: -", "Owen Bonnici: -", "Stefan Zrinzo Azzopardi: excluded 3"},
	}, {
		name:     "a lower continuing candidate, as published",
		edits:    []func(s sheet){defect(0, "elected-seats", note), electedAs("Owen Bonnici")},
		warnings: []string{warned},
		elected:  []string{"Owen Bonnici"},
		fates:    []string{"Robert Abela: elected 1", "Bernard Grech: -", "Miriam Dalli: -", "Owen Bonnici: elected 3", "Stefan Zrinzo Azzopardi: excluded 3"},
	}, {
		name:  "elected, or excluded, before the last count",
		edits: []func(s sheet){defect(0, "elected-seats", note), electedAs("Robert Abela", "Stefan Zrinzo Azzopardi")},
		problems: []string{
			"counts.json: /4/defects/0/elected: district 5: is [Robert Abela, Stefan Zrinzo Azzopardi], 2 candidates, and the counts leave 1 of the 2 seats unfilled [defect]",
			"counts.json: /4/defects/0/elected/0: district 5: Robert Abela is elected at count 1; the seats the sheet leaves unfilled go to candidates continuing at its last count, 3 [defect]",
			"counts.json: /4/defects/0/elected/1: district 5: Stefan Zrinzo Azzopardi is excluded at count 3; the seats the sheet leaves unfilled go to candidates continuing at its last count, 3 [defect]",
		},
	}, {
		name:  "more than the seats left",
		edits: []func(s sheet){defect(0, "elected-seats", note), electedAs("Bernard Grech", "Miriam Dalli")},
		problems: []string{
			"counts.json: /4/defects/0/elected: district 5: is [Bernard Grech, Miriam Dalli], 2 candidates, and the counts leave 1 of the 2 seats unfilled [defect]",
		},
	}, {
		name:  "named twice, or no row's",
		edits: []func(s sheet){defect(0, "elected-seats", note), electedAs("Bernard Grech", "Bernard Grech", "no-such-id")},
		problems: []string{
			"counts.json: /4/defects/0/elected: district 5: is [Bernard Grech, Bernard Grech, no-such-id], 3 candidates, and the counts leave 1 of the 2 seats unfilled [defect]",
			"counts.json: /4/defects/0/elected/1: district 5: Bernard Grech is named twice; a candidate takes one seat [duplicate-key]",
			"counts.json: /4/defects/0/elected/2: district 5: no row of the sheet has candidate id no-such-id [reference]",
		},
	}, {
		name:  "on another defect",
		nt:    broken.nt,
		rows:  broken.rows,
		edits: []func(s sheet){defect(2, "count-balance", note), electedAs("Miriam Dalli")},
		problems: []string{
			"counts.json: /4/defects/0/elected: district 5: is [Miriam Dalli]; only the elected-seats defect of the sheet as a whole, at no count, states who took the seats the sheet leaves unfilled [defect]",
		},
	}, {
		name:  "on a sheet whose counts fill every seat",
		nt:    broken.nt,
		rows:  broken.rows,
		edits: []func(s sheet){defect(2, "count-balance", note), defect(0, "elected-seats", note), electedAs("Miriam Dalli")},
		problems: []string{
			"counts.json: /4/defects/1: district 5, the sheet is stated to break elected-seats, and the rule finds no break in it [defect]",
			"counts.json: /4/defects/1/elected: district 5: is [Miriam Dalli], and the counts fill all 2 seats: none is left unfilled [defect]",
		},
	}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m := countSheets(t)
			nt, rows := early.nt, early.rows
			if tt.rows != nil {
				nt, rows = tt.nt, tt.rows
			}
			names := datasettest.Synthetic(t, m, 2, nt, rows...)
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
			byID := map[string]string{}
			for _, c := range s.Candidacies {
				byID[c.CandidateID] = c.Name
			}
			named := func(ids []string) []string {
				out := []string{}
				for _, id := range ids {
					out = append(out, byID[id])
				}
				return out
			}
			want := append([]string{"Robert Abela"}, tt.elected...)
			if got := named(s.Elected); !slices.Equal(got, want) {
				t.Errorf("elected: %v, want %v", got, want)
			}
			if got := named(s.Defects[0].Elected); !slices.Equal(got, tt.elected) {
				t.Errorf("the defect's elected: %v, want %v", got, tt.elected)
			}
			if s.Defects[0].Message != endsEarly {
				t.Errorf("the defect's message: %q, want %q", s.Defects[0].Message, endsEarly)
			}
			if got := fates(s, names, len(tt.fates)); !slices.Equal(got, tt.fates) {
				t.Errorf("fates:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(tt.fates, "\n"))
			}
		})
	}
}

// at is a count's number as a defect or a correction gives it.
func at(n int) *int { return &n }
