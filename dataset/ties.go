package dataset

import (
	"cmp"
	"fmt"
	"slices"
	"strings"
)

// The ties of a count, as the tally meets them. A tie is for the lowest
// place, when the candidate an exclusion takes had the same total as a
// continuing candidate who stays, or for the last seat, when the lowest
// candidate who takes a seat had the same total as the highest who does
// not. The law decides it by the earlier counts: of the tied, the one
// with fewer votes at the first count at which they had unequal totals
// loses; when they were equal at every count, the returning officer
// draws lots. The totals show who was excluded, and the sheet's elected
// (or elected_at_count) who took a seat; a sheet may state how a tie was
// decided in its ties. A stated decision the totals contradict is an
// error; a tie no decision settles is a warning.

// tallyTie is a tie the tally met, as the API serves it (Tie).
type tallyTie struct {
	count     int // the count's number
	kind      string
	rows      []int // the tied candidacies, in row order
	decidedBy *string
	stated    bool
}

// listed is how many names a message of a tie lists before saying how
// many more there are.
const listed = 5

// checkStatements reports a tie stated twice (at one count, of one kind
// or of either), and notes the others by count, for statement.
func (t *tally) checkStatements() {
	t.matched = make([]bool, len(t.sheet.Ties))
	t.statedAt = map[int][]int{}
	for n, s := range t.sheet.Ties {
		at := t.statedAt[s.Count]
		first := slices.IndexFunc(at, func(m int) bool {
			o := t.sheet.Ties[m].Kind
			return o == nil || s.Kind == nil || *o == *s.Kind
		})
		if first >= 0 {
			t.errorf(pointer(t.i, "ties", n), "duplicate-key", "count %d: the tie is stated already, at /%d/ties/%d", s.Count, t.i, at[first])
			t.matched[n] = true // reported: read no further
			continue
		}
		t.statedAt[s.Count] = append(at, n)
	}
}

// statement returns the index in the sheet's ties of the statement of a
// tie of kind at count, or -1 when it states none.
func (t *tally) statement(count int, kind string) int {
	for _, n := range t.statedAt[count] {
		if k := t.sheet.Ties[n].Kind; k == nil || *k == kind {
			t.matched[n] = true
			return n
		}
	}
	return -1
}

// decided is how statement n says its tie was decided: "" when n is -1
// or states no decision.
func (t *tally) decided(n int) string {
	if n < 0 {
		return ""
	}
	return Text(t.sheet.Ties[n].DecidedBy)
}

// checkUnmatched reports each statement of a tie the count did not meet.
func (t *tally) checkUnmatched() {
	for n, s := range t.sheet.Ties {
		if t.matched[n] {
			continue
		}
		what := "for the lowest place or a seat"
		switch Text(s.Kind) {
		case TieExclusion:
			what = "for the lowest place"
		case TieSeat:
			what = "for a seat"
		}
		t.errorf(pointer(t.i, "ties", n, "count"), "tie", "count %d: a tie is stated, and no candidates are tied there %s", s.Count, what)
	}
}

// checkTied checks the tied that statement n gives, when it does, against
// the tie the totals show.
func (t *tally) checkTied(n int, tie *tallyTie) {
	given := t.sheet.Ties[n].CandidateIDs
	if given == nil {
		return
	}
	want := make([]string, len(tie.rows))
	for m, j := range tie.rows {
		want[m] = t.sheet.Candidacies[j].CandidateID
	}
	if !slices.Equal(sortedIDs(given), sortedIDs(want)) {
		t.errorf(pointer(t.i, "ties", n, "candidate_ids"), "derived-field", "count %d: is [%s], and the totals show [%s] tied", tie.count, strings.Join(given, ", "), strings.Join(want, ", "))
	}
}

func (t *tally) warnf(ptr, rule, format string, args ...any) {
	t.r.warnf(CountsFile, ptr, rule, "district %d, %s", t.number, fmt.Sprintf(format, args...))
}

// earlier compares a's and b's totals count by count, from count 1, up to
// the count before index upto: the first count at which they differ
// decides; 0 when they were equal at every one. It compares their ranks
// (rankTo), so that a tie of thousands equal at every count is not
// compared total by total.
func (t *tally) earlier(a, b, upto int) int {
	rank := t.rankTo(upto)
	return cmp.Compare(rank[a], rank[b])
}

// differ is the first count index before upto at which a's and b's totals
// differ, or -1: the count a message names.
func (t *tally) differ(a, b, upto int) int {
	for m := range upto {
		if t.total(a, m) != t.total(b, m) {
			return m
		}
	}
	return -1
}

// rankTo returns each candidacy's rank by its totals count by count from
// count 1 up to the count before index upto, as the earlier counts
// compare them: equal ranks for totals equal at every one of those
// counts, a lower rank for fewer votes at the first that differs. It is
// worked out a count at a time, as the ties of the count ask for it, and
// only then.
func (t *tally) rankTo(upto int) []int {
	n := len(t.sheet.Candidacies)
	if t.rank == nil {
		t.rank, t.ranked = make([]int, n), make([]int, n)
		for j := range t.ranked {
			t.ranked[j] = j
		}
	}
	for ; t.rankedTo < upto; t.rankedTo++ {
		m := t.rankedTo
		// The rows are in rank order: each run of equal rank is put in
		// order of its totals at count m.
		for lo := 0; lo < n; {
			hi := lo + 1
			for hi < n && t.rank[t.ranked[hi]] == t.rank[t.ranked[lo]] {
				hi++
			}
			slices.SortStableFunc(t.ranked[lo:hi], func(a, b int) int { return cmp.Compare(t.total(a, m), t.total(b, m)) })
			lo = hi
		}
		prev := -1
		for i, j := range t.ranked {
			if i == 0 || t.rank[j] != prev || t.total(j, m) != t.total(t.ranked[i-1], m) {
				prev = t.rank[j]
				t.rank[j] = i
				continue
			}
			prev = t.rank[j]
			t.rank[j] = t.rank[t.ranked[i-1]]
		}
	}
	return t.rank
}

// against writes a's and b's totals at count index m: "count 1 (55
// against 62)".
func (t *tally) against(a, b, m int) string {
	return fmt.Sprintf("count %d (%s against %s)", m+1, Thousands(t.total(a, m)), Thousands(t.total(b, m)))
}

// equalBefore says that candidates tied after count upto had equal
// totals at every count up to it.
func equalBefore(upto int) string {
	if upto <= 1 {
		return "have no earlier count to tell them apart"
	}
	return fmt.Sprintf("were equal at every count from 1 to %d", upto)
}

// listSome names the candidacies js as list does, the first few and how
// many others when there are many.
func (t *tally) listSome(js []int) string {
	if len(js) <= listed+1 {
		return t.list(js)
	}
	names := make([]string, listed)
	for n, j := range js[:listed] {
		names[n] = t.name(j)
	}
	return strings.Join(names, ", ") + " and " + Thousands(len(js)-listed) + " others"
}

// exclusionTie settles the tie at count k+1 (k > 0) for the lowest place
// between x, whom the totals show excluded with votes, and the continuing
// candidates who had x's total after count k.
func (t *tally) exclusionTie(x, k int) {
	v := t.total(x, k-1)
	tie := tallyTie{count: k + 1, kind: TieExclusion}
	for j := range t.sheet.Candidacies {
		if j == x || t.state[j] == continuing && t.total(j, k-1) == v {
			tie.rows = append(tie.rows, j)
		}
	}
	// below is a tied candidate the earlier counts put below x, at count
	// index at; same are those equal to x at every count.
	upto := k
	below, at := -1, -1
	var same []int // in row order
	for _, g := range tie.rows {
		switch c := t.earlier(x, g, upto); {
		case g == x, c == 0:
			same = append(same, g)
		case c > 0 && below < 0:
			below, at = g, t.differ(x, g, upto)
		}
	}
	ptr := pointer(t.i, "counts", k)
	n := t.statement(tie.count, tie.kind)
	notX := func() string {
		return fmt.Sprintf("the earlier counts do not exclude %s, whom the totals show excluded: %s had fewer votes at %s", t.name(x), t.name(below), t.against(below, x, at))
	}
	switch decided := t.decided(n); {
	case decided == DecidedByLot:
		tie.decidedBy, tie.stated = Optional(DecidedByLot), true
	case decided == DecidedByEarlierCounts && below >= 0:
		t.errorf(pointer(t.i, "ties", n, "decided_by"), "tie", "count %d: is %q, and %s", tie.count, decided, notX())
	case decided == DecidedByEarlierCounts && len(same) > 1:
		t.errorf(pointer(t.i, "ties", n, "decided_by"), "tie", "count %d: is %q, and %s, tied at %s for the lowest place, %s: only a lot decides between them", tie.count, decided, t.listSome(same), Thousands(v), equalBefore(upto))
	case decided == DecidedByEarlierCounts:
		tie.decidedBy, tie.stated = Optional(DecidedByEarlierCounts), true
	case below >= 0:
		t.warnf(ptr, "tie", "count %d: %s are tied at %s for the lowest place, and %s; if a lot decided it, state it in ties", tie.count, t.listSome(tie.rows), Thousands(v), notX())
	case len(same) > 1:
		t.warnf(ptr, "tie", "count %d: %s, tied at %s for the lowest place, %s, and no decision is stated; the totals show %s excluded: if a lot decided it, state it in ties", tie.count, t.listSome(same), Thousands(v), equalBefore(upto), t.name(x))
	default:
		tie.decidedBy = Optional(DecidedByEarlierCounts)
	}
	if n >= 0 {
		t.checkTied(n, &tie)
	}
	t.ties = append(t.ties, tie)
}

// settleSeats settles a tie for the last of seats among js, the
// candidacies that may take them after count k, by their totals highest
// first: the lowest who would take a seat has the same total as the
// highest who would not. It returns js with the tied who take the seats
// before the others.
func (t *tally) settleSeats(js []int, seats, k int) []int {
	if seats <= 0 || len(js) <= seats || t.total(js[seats-1], k) != t.total(js[seats], k) {
		return js
	}
	v := t.total(js[seats-1], k)
	lo, hi := seats-1, seats+1
	for lo > 0 && t.total(js[lo-1], k) == v {
		lo--
	}
	for hi < len(js) && t.total(js[hi], k) == v {
		hi++
	}
	w := seats - lo // the seats among the tied
	tie := tallyTie{count: k + 1, kind: TieSeat, rows: slices.Clone(js[lo:hi])}
	upto := k + 1
	byEarlier := slices.Clone(tie.rows)
	slices.SortStableFunc(byEarlier, func(a, b int) int { return t.earlier(b, a, upto) })
	c := t.earlier(byEarlier[w-1], byEarlier[w], upto)
	settled := c != 0
	var same []int // those the earlier counts cannot tell apart at the line
	for _, j := range tie.rows {
		if t.earlier(j, byEarlier[w], upto) == 0 {
			same = append(same, j)
		}
	}
	named := t.named(tie.rows, k)
	says := len(named) == w
	earlier := slices.Sorted(slices.Values(byEarlier[:w]))
	winners := tie.rows[:w] // by the row order, when nothing else says
	what, take := "the last seat", "takes it"
	if w > 1 {
		what, take = fmt.Sprintf("the last %d seats", w), "take them"
	}
	// other says which of the earlier counts' winners beat whom the sheet
	// elects instead.
	other := func() string {
		l := named[slices.IndexFunc(named, func(j int) bool { return !slices.Contains(earlier, j) })]
		g := earlier[slices.IndexFunc(earlier, func(j int) bool { return !slices.Contains(named, j) })]
		m := t.differ(g, l, upto)
		return fmt.Sprintf("the earlier counts do not give %s to %s, whom the sheet elects: %s had more votes at %s", what, t.name(l), t.name(g), t.against(g, l, m))
	}
	ptr := pointer(t.i, "counts", k)
	n := t.statement(tie.count, tie.kind)
	switch decided := t.decided(n); {
	case decided == DecidedByLot && !says:
		t.errorf(pointer(t.i, "ties", n, "decided_by"), "tie", "count %d: is %q, and the sheet does not say which of %s took %s: name them in elected, or give the elected_at_count of each who took one", tie.count, decided, t.listSome(tie.rows), what)
	case decided == DecidedByLot:
		winners = named
		tie.decidedBy, tie.stated = Optional(DecidedByLot), true
	case decided == DecidedByEarlierCounts && !settled:
		t.errorf(pointer(t.i, "ties", n, "decided_by"), "tie", "count %d: is %q, and %s, tied at %s for %s, %s: only a lot decides between them", tie.count, decided, t.listSome(same), Thousands(v), what, equalBefore(upto))
	case decided == DecidedByEarlierCounts && says && !slices.Equal(named, earlier):
		t.errorf(pointer(t.i, "ties", n, "decided_by"), "tie", "count %d: is %q, and %s", tie.count, decided, other())
	case decided == DecidedByEarlierCounts:
		winners = earlier
		tie.decidedBy, tie.stated = Optional(DecidedByEarlierCounts), true
	case settled && (!says || slices.Equal(named, earlier)):
		winners = earlier
		tie.decidedBy = Optional(DecidedByEarlierCounts)
	case settled:
		winners = named
		t.warnf(ptr, "tie", "count %d: %s are tied at %s for %s, and %s; if a lot decided it, state it in ties", tie.count, t.listSome(tie.rows), Thousands(v), what, other())
	case says:
		winners = named
		t.warnf(ptr, "tie", "count %d: %s, tied at %s for %s, %s, and no decision is stated; the sheet elects %s: if a lot decided it, state it in ties", tie.count, t.listSome(same), Thousands(v), what, equalBefore(upto), t.listSome(named))
	default:
		t.warnf(ptr, "tie", "count %d: %s, tied at %s for %s, %s, and no decision is stated; %s %s by the order of the sheet's rows: if a lot decided it, state it in ties, and who took %s in elected", tie.count, t.listSome(same), Thousands(v), what, equalBefore(upto), t.listSome(winners), take, what)
	}
	if n >= 0 {
		t.checkTied(n, &tie)
	}
	t.ties = append(t.ties, tie)
	// The winners first, in row order, then the others.
	order := slices.Clone(winners)
	for _, j := range tie.rows {
		if !slices.Contains(winners, j) {
			order = append(order, j)
		}
	}
	copy(js[lo:hi], order)
	return js
}

// named is who of the tied rows the sheet says took a seat after count
// k, in row order: those in its elected, when it gives it, else those
// whose elected_at_count is k+1.
func (t *tally) named(rows []int, k int) []int {
	var out []int
	for _, j := range rows {
		c := &t.sheet.Candidacies[j]
		if t.sheet.Elected != nil {
			if slices.Contains(t.sheet.Elected, c.CandidateID) {
				out = append(out, j)
			}
		} else if c.ElectedAtCount != nil && *c.ElectedAtCount == k+1 {
			out = append(out, j)
		}
	}
	return out
}
