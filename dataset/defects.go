package dataset

import (
	"fmt"
	"slices"
	"strings"
)

// The known defects of a count sheet. A publisher who serves a sheet that
// breaks a rule of the count, as a transcription of an old sheet may,
// states each break in the sheet's defects, by count and rule, with a
// note; the sheet is then served with them, never as sound. Every break
// the rules find must be stated, and every statement must be a break they
// find; a stated break is a warning, the others errors as ever.

// Defect is a break of a rule of the count that the sheet states: at a
// count, or of the sheet as a whole (Count nil), the rule broken, what
// the rule says of it, and the publisher's note.
type Defect struct {
	Count *int   `json:"count" dataset:"optional"`
	Rule  string `json:"rule"`
	// Message is what the rule says of the break, without the
	// district's number: several breaks of one rule at one count are
	// joined by "; ". It follows from the totals; counts.json may give
	// it, as the API serves it, and it must then agree.
	Message string `json:"message" dataset:"optional"`
	Note    string `json:"note"`
	// Elected are who took the seats a final sheet leaves unfilled, as
	// the published result gives them, by candidate id: only the
	// elected-seats defect of the sheet as a whole states them (empty
	// for any other). No count shows it; the tally elects them at the
	// sheet's last count, after those the rules elect, in this order.
	Elected []string `json:"elected" dataset:"optional"`
}

// DefectRules are the rules of the count a sheet may state a defect of,
// in the order messages list them.
var DefectRules = []string{"count-balance", "count-event", "total-falls", "elected-total-changes", "elected-seats", "registered"}

// sheetRules are the rules of DefectRules broken by a sheet as a whole
// (a defect at no count) or, for elected-seats, at a count too.
var sheetRules = []string{"elected-seats", "registered"}

// defectKey is a defect's count (0 for the sheet as a whole) and rule.
type defectKey struct {
	count int
	rule  string
}

// checkDefectFields applies the rules of one field to the defects sheet
// i states: a rule of DefectRules, a count of the sheet where the rule
// breaks at one (registered never does), and a note. It reports whether
// they can be matched to the breaks the count finds.
func (d *records) checkDefectFields(r *Report, i int, s *sheetFile) bool {
	f := &d.counts
	ok := true
	for n, def := range s.Defects {
		has := func(field string) bool { return f.hasIn(i, "defects", n, field) }
		ruleOK := has("rule") && slices.Contains(DefectRules, def.Rule)
		if has("rule") && !ruleOK {
			r.errorf(CountsFile, pointer(i, "defects", n, "rule"), "defect", "is %q; a defect names a rule of the count: %s", def.Rule, strings.Join(DefectRules, ", "))
			ok = false
		}
		switch {
		case !has("count"):
		case def.Count != nil && len(s.Counts) > 0 && (*def.Count < 1 || *def.Count > len(s.Counts)):
			r.errorf(CountsFile, pointer(i, "defects", n, "count"), "range", "is %d; must be a count of the sheet, 1 to %d", *def.Count, len(s.Counts))
			ok = false
		case ruleOK && def.Count == nil && !slices.Contains(sheetRules, def.Rule):
			r.errorf(CountsFile, pointer(i, "defects", n, "count"), "defect", "is null; %s breaks at a count: give its number", def.Rule)
			ok = false
		case ruleOK && def.Count != nil && def.Rule == "registered":
			r.errorf(CountsFile, pointer(i, "defects", n, "count"), "defect", "is %d; registered is the sheet's figure, at no count: give null", *def.Count)
			ok = false
		}
		if has("note") && strings.TrimSpace(def.Note) == "" {
			r.errorf(CountsFile, pointer(i, "defects", n, "note"), "required", "must not be empty: say what is known of the break")
		}
	}
	return ok
}

// checkStated notes the defects the sheet states by count and rule, for
// broken, reporting one stated twice.
func (t *tally) checkStated() {
	t.stated = map[defectKey]int{}
	t.breaks = make([][]string, len(t.sheet.Defects))
	for n, def := range t.sheet.Defects {
		key := defectKey{count: derefCount(def.Count), rule: def.Rule}
		if first, dup := t.stated[key]; dup {
			t.errorf(pointer(t.i, "defects", n), "duplicate-key", "%s: %s is stated already, at %s", t.where(key.count), def.Rule, pointer(t.i, "defects", first))
			continue
		}
		t.stated[key] = n
	}
}

// derefCount is a defect's count, 0 for the sheet as a whole.
func derefCount(c *int) int {
	if c == nil {
		return 0
	}
	return *c
}

// where names a count in a message, or the sheet for count 0.
func (t *tally) where(count int) string {
	if count == 0 {
		return "the sheet"
	}
	return fmt.Sprintf("count %d", count)
}

// broken reports a break of a rule of the count at count (0: of the
// sheet as a whole): a warning, naming the statement, when the sheet
// states it as a defect; an error when it does not.
func (t *tally) broken(count int, ptr, rule, format string, args ...any) {
	msg := fmt.Sprintf(format, args...)
	if n, ok := t.stated[defectKey{count, rule}]; ok {
		t.breaks[n] = append(t.breaks[n], msg)
		t.warnf(ptr, rule, "%s; a known defect, stated at %s", msg, pointer(t.i, "defects", n))
		return
	}
	t.errorf(ptr, rule, "%s", msg)
}

// isStated reports whether the sheet states a break of rule at count.
func (t *tally) isStated(count int, rule string) bool {
	_, ok := t.stated[defectKey{count, rule}]
	return ok
}

// checkUnbroken reports each defect the sheet states that the rules do
// not find.
func (t *tally) checkUnbroken() {
	for n, def := range t.sheet.Defects {
		key := defectKey{count: derefCount(def.Count), rule: def.Rule}
		if first, ok := t.stated[key]; !ok || first != n || len(t.breaks[n]) > 0 {
			continue
		}
		ptr := pointer(t.i, "defects", n)
		switch {
		case key.count == 0:
			t.errorf(ptr, "defect", "the sheet is stated to break %s, and the rule finds no break in it", def.Rule)
		case def.Rule == "count-balance":
			t.errorf(ptr, "defect", "count %d is stated to break count-balance, and it balances", key.count)
		default:
			t.errorf(ptr, "defect", "count %d is stated to break %s, and the rule finds no break there", key.count, def.Rule)
		}
	}
}

// electPublished checks who the sheet's defects state took the seats
// its counts leave unfilled, as the published result gives them, and
// elects them at its last count, after those the rules elect, in the
// order stated: only the elected-seats defect of the sheet as a whole
// states them, each a candidate of the sheet continuing at its last
// count, no more than the seats left. It runs once every count is
// walked, and the break of the sheet as a whole is reported: the sheet
// still ends early, whoever the publisher says took the seats.
func (t *tally) electPublished() {
	k := len(t.sheet.Counts) - 1
	// Its messages name the district, as those of a derived field do.
	errorf := func(ptr, rule, format string, args ...any) {
		t.r.errorf(CountsFile, ptr, rule, "district %d: %s", t.number, fmt.Sprintf(format, args...))
	}
	for n, def := range t.sheet.Defects {
		if len(def.Elected) == 0 {
			continue
		}
		ptr := pointer(t.i, "defects", n, "elected")
		if def.Count != nil || def.Rule != "elected-seats" {
			errorf(ptr, "defect", "is %s; only the elected-seats defect of the sheet as a whole, at no count, states who took the seats the sheet leaves unfilled", t.names(def.Elected))
			continue
		}
		if t.stated[defectKey{0, def.Rule}] != n { // stated twice: reported
			continue
		}
		rows := make(map[string]int, len(t.sheet.Candidacies))
		for j, row := range t.sheet.Candidacies {
			rows[row.CandidateID] = j
		}
		errors := t.r.found
		switch left := t.sheet.Seats - len(t.elected); {
		case left == 0:
			errorf(ptr, "defect", "is %s, and the counts fill all %d seats: none is left unfilled", t.names(def.Elected), t.sheet.Seats)
		case len(def.Elected) > left:
			errorf(ptr, "defect", "is %s, %d candidates, and the counts leave %d of the %d seats unfilled", t.names(def.Elected), len(def.Elected), left, t.sheet.Seats)
		}
		var js []int
		named := map[string]bool{}
		for m, id := range def.Elected {
			at := pointer(t.i, "defects", n, "elected", m)
			j, ok := rows[id]
			dup := named[id]
			named[id] = true
			switch {
			case dup && ok:
				errorf(at, "duplicate-key", "%s is named twice; a candidate takes one seat", t.name(j))
			case dup:
			case !ok:
				errorf(at, "reference", "no row of the sheet has candidate id %s", id)
			case t.state[j] == elected:
				errorf(at, "defect", "%s is elected at count %d; the seats the sheet leaves unfilled go to candidates continuing at its last count, %d", t.name(j), t.electedAt[j], k+1)
			case t.state[j] == excluded:
				errorf(at, "defect", "%s is excluded at count %d; the seats the sheet leaves unfilled go to candidates continuing at its last count, %d", t.name(j), t.excludedAt[j], k+1)
			default:
				js = append(js, j)
			}
		}
		if t.r.found == errors {
			t.electAll(js, k)
		}
	}
}

// defects is the sheet's defects as the API serves them, each with what
// the rule says of the break, and who took the seats the sheet leaves
// unfilled (an empty list when it states none).
func (t *tally) defects() []Defect {
	out := make([]Defect, 0, len(t.sheet.Defects))
	for n, def := range t.sheet.Defects {
		if len(t.breaks[n]) == 0 { // stated twice: reported
			continue
		}
		def.Message = strings.Join(t.breaks[n], "; ")
		if def.Elected == nil {
			def.Elected = []string{}
		}
		out = append(out, def)
	}
	return out
}
