package dataset

import (
	"cmp"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"

	"ballot/suggest"
)

// tally walks one count sheet's counts in order, as a returning officer
// reads them: it works out each count's event from the totals, and who is
// elected or excluded at which count, and reports each count that breaks
// a rule of the single transferable vote. After a broken count it goes
// on from what the totals show, so every broken count is reported in one
// run.
type tally struct {
	r      *Report
	sheet  *sheetFile
	i      int // the sheet's index in counts.json
	number int // the district's number, for messages

	state       []standing
	electedAt   []int // the count a candidacy was elected at; 0 when not
	excludedAt  []int
	surplusGone []bool
	elected     []int // candidacies, in the order elected
	filledAt    int   // the count at which the last seat was filled
	counts      []Count
	ties        []tallyTie
	matched     []bool            // matched[n]: the sheet's ties[n] states a tie the count met, or is reported
	statedAt    map[int][]int     // the sheet's ties by count, those stated twice left out
	rank        []int             // each candidacy's rank by the earlier counts (rankTo)
	ranked      []int             // the candidacies in rank order
	rankedTo    int               // the counts rank reads
	stated      map[defectKey]int // the sheet's defects by count and rule, those stated twice left out
	breaks      [][]string        // breaks[n]: what the rule says of the break the sheet's defects[n] states
}

func newTally(r *Report, s *sheetFile, i, number int) *tally {
	n := len(s.Candidacies)
	t := &tally{
		r: r, sheet: s, i: i, number: number,
		state: make([]standing, n), electedAt: make([]int, n), excludedAt: make([]int, n), surplusGone: make([]bool, n),
		counts: make([]Count, 0, len(s.Counts)),
	}
	return t
}

// run walks every count. The sheet's candidacies all have a total for
// each count, none negative, and it has a count at least. A break of a
// rule the sheet states as a defect is a warning, and the walk goes on
// past it as past any other.
func (t *tally) run() {
	errors := t.r.found
	t.checkStatements()
	t.checkStated()
	if reg := t.sheet.Registered; reg != nil && *reg < t.sheet.ValidVotes {
		t.broken(0, pointer(t.i, "registered"), "registered", "the registered voters are %s, fewer than the %s valid votes", Thousands(*reg), Thousands(t.sheet.ValidVotes))
	}
	for k := range t.sheet.Counts {
		t.balance(k)
		if k == 0 {
			t.counts = append(t.counts, Count{Number: 1, Event: EventFirstPreferences, CandidateIDs: []string{}, NonTransferable: t.sheet.Counts[0].NonTransferable})
		} else {
			if t.filledAt > 0 {
				t.broken(k+1, pointer(t.i, "counts", k), "elected-seats", "count %d: every seat was filled at count %d, so the count ends there", k+1, t.filledAt)
				if !t.isStated(k+1, "elected-seats") {
					return
				}
			}
			t.counts = append(t.counts, t.event(k))
		}
		t.elect(k)
	}
	if t.sheet.Status == StatusFinal && len(t.elected) != t.sheet.Seats {
		t.broken(0, pointer(t.i, "status"), "elected-seats", "the sheet is final, but its %d counts elect %d of its %d seats%s", len(t.sheet.Counts), len(t.elected), t.sheet.Seats, t.unfinished())
	}
	t.checkUnbroken()
	t.electPublished()
	// A statement of a tie the totals do not show, once the count is
	// sound: a broken count may hide the tie it states.
	if t.r.found == errors {
		t.checkUnmatched()
	}
}

func (t *tally) errorf(ptr, rule, format string, args ...any) {
	t.r.errorf(CountsFile, ptr, rule, "district %d, %s", t.number, fmt.Sprintf(format, args...))
}

func (t *tally) name(j int) string { return t.sheet.Candidacies[j].Name }

func (t *tally) total(j, k int) int { return t.sheet.Candidacies[j].Totals[k] }

// balance checks that count k's totals and non-transferable add up to
// the valid votes.
func (t *tally) balance(k int) {
	// Every figure is 0 or more (checkSheetFields); a sum past the
	// largest int stops there rather than wrap round.
	sum := t.sheet.Counts[k].NonTransferable
	for j := range t.sheet.Candidacies {
		sum = saturated(sum, t.total(j, k))
	}
	if sum != t.sheet.ValidVotes {
		t.broken(k+1, pointer(t.i, "counts", k), "count-balance", "count %d: the totals add up to %s, and the valid votes are %s", k+1, sumText(sum), Thousands(t.sheet.ValidVotes))
	}
}

// saturated is a + b, or the largest int when that would overflow.
func saturated(a, b int) int {
	if a > math.MaxInt-b {
		return math.MaxInt
	}
	return a + b
}

// sumText writes a sum saturated adds up, as Thousands does; the largest
// int, where it stops, is written as the least the sum is, never as if it
// were the sum.
func sumText(sum int) string {
	if sum == math.MaxInt {
		return Thousands(sum) + " or more"
	}
	return Thousands(sum)
}

// event works out what count k (k > 0) was from how the totals moved
// since count k-1, and reports what breaks the rules.
func (t *tally) event(k int) Count {
	c := Count{Number: k + 1, CandidateIDs: []string{}, NonTransferable: t.sheet.Counts[k].NonTransferable}
	if prev := t.sheet.Counts[k-1].NonTransferable; c.NonTransferable < prev {
		t.broken(k+1, pointer(t.i, "counts", k, "non_transferable"), "total-falls", "count %d: non-transferable falls from %s to %s; it never falls", k+1, Thousands(prev), Thousands(c.NonTransferable))
	}
	var surplus, out []int // who falls: elected with a surplus, continuing to 0
	for j := range t.sheet.Candidacies {
		before, after := t.total(j, k-1), t.total(j, k)
		switch {
		case after > before:
			t.gains(j, k, before, after)
		case after == before:
		case t.state[j] == elected && !t.surplusGone[j]:
			surplus = append(surplus, j)
		case t.state[j] == elected:
			t.broken(k+1, t.at(j, k), "elected-total-changes", "count %d: %s's surplus went at an earlier count, and their total falls from %s to %s; it never changes after", k+1, t.name(j), Thousands(before), Thousands(after))
		case after == 0:
			out = append(out, j)
		default:
			t.broken(k+1, t.at(j, k), "total-falls", "count %d: %s's total falls from %s to %s; a continuing candidate's total never falls", k+1, t.name(j), Thousands(before), Thousands(after))
		}
	}
	switch {
	case len(surplus) > 0 && len(out) > 0:
		t.broken(k+1, pointer(t.i, "counts", k), "count-event", "count %d: %s's surplus moves and %s %s excluded at the same count; a count is one event", k+1, t.list(surplus), t.list(out), isAre(len(out)))
	case len(surplus) > 1:
		t.broken(k+1, pointer(t.i, "counts", k), "count-event", "count %d: the surpluses of %s move at the same count; a count transfers one", k+1, t.list(surplus))
	case len(surplus) == 1:
		return t.surplus(c, surplus[0], k)
	}
	for j := range t.sheet.Candidacies {
		// A candidate with no votes goes with the first exclusion.
		if t.state[j] == continuing && t.total(j, k-1) == 0 {
			out = append(out, j)
		}
	}
	if len(surplus) > 0 { // reported above: go on from what the totals show
		c.Event = EventIrregular
		for _, j := range append(surplus, out...) {
			c.CandidateIDs = append(c.CandidateIDs, t.sheet.Candidacies[j].CandidateID)
			c.Votes += t.total(j, k-1) - t.total(j, k)
		}
		for _, j := range surplus {
			t.surplusGone[j] = true
		}
		t.exclude(out, k)
		return c
	}
	if len(out) == 0 {
		t.broken(k+1, pointer(t.i, "counts", k), "count-event", "count %d: no total falls; a count transfers a surplus or excludes a candidate", k+1)
		c.Event = EventIrregular
		return c
	}
	return t.exclusion(c, out, k)
}

// at is the pointer of candidacy j's total after count k.
func (t *tally) at(j, k int) string { return pointer(t.i, "candidacies", j, "totals", k) }

// gains checks that candidacy j, whose total rises at count k, is
// continuing: votes go only to continuing candidates or non-transferable.
func (t *tally) gains(j, k, before, after int) {
	switch {
	case t.state[j] == excluded:
		t.broken(k+1, t.at(j, k), "count-event", "count %d: %s was excluded at count %d, and gains %s; votes go only to continuing candidates or non-transferable", k+1, t.name(j), t.excludedAt[j], votes(after-before))
	case t.surplusGone[j] || t.electedAt[j] > 0 && t.total(j, t.electedAt[j]-1) == t.sheet.Quota:
		t.broken(k+1, t.at(j, k), "elected-total-changes", "count %d: %s was elected at count %d, and their total rises from %s to %s; it never changes after their surplus has gone", k+1, t.name(j), t.electedAt[j], Thousands(before), Thousands(after))
	case t.state[j] == elected:
		t.broken(k+1, t.at(j, k), "count-event", "count %d: %s was elected at count %d, and gains %s before their surplus moves; votes go only to continuing candidates or non-transferable", k+1, t.name(j), t.electedAt[j], votes(after-before))
	}
}

// surplus is count k as the transfer of candidacy j's surplus: j falls to
// exactly the quota.
func (t *tally) surplus(c Count, j, k int) Count {
	before, after := t.total(j, k-1), t.total(j, k)
	if after != t.sheet.Quota {
		t.broken(k+1, t.at(j, k), "count-event", "count %d: %s's surplus leaves them %s, not the quota of %s", k+1, t.name(j), Thousands(after), Thousands(t.sheet.Quota))
	}
	t.surplusGone[j] = true
	c.Event, c.CandidateIDs, c.Votes = EventSurplus, []string{t.sheet.Candidacies[j].CandidateID}, before-after
	return c
}

// exclusion is count k as the exclusion of the candidacies out, lowest
// first: the lowest continuing candidate, or several whose votes together
// are below the next-lowest's.
func (t *tally) exclusion(c Count, out []int, k int) Count {
	slices.SortFunc(out, func(a, b int) int { return cmp.Or(cmp.Compare(t.total(a, k-1), t.total(b, k-1)), cmp.Compare(a, b)) })
	total, withVotes := 0, 0
	for _, j := range out {
		total += t.total(j, k-1)
		if t.total(j, k-1) > 0 {
			withVotes++
		}
	}
	t.exclude(out, k)
	next := -1 // the lowest continuing candidate, who stays
	for j := range t.sheet.Candidacies {
		if t.state[j] == continuing && (next < 0 || t.total(j, k-1) < t.total(next, k-1)) {
			next = j
		}
	}
	if next >= 0 {
		low := t.total(next, k-1)
		switch {
		case withVotes == 1 && total > low:
			t.broken(k+1, pointer(t.i, "counts", k), "count-event", "count %d: %s is excluded with %s, but %s has fewer (%s); the lowest continuing candidate is excluded", k+1, t.name(out[len(out)-1]), votes(total), t.name(next), Thousands(low))
		case withVotes > 1 && total >= low:
			t.broken(k+1, pointer(t.i, "counts", k), "count-event", "count %d: %s are excluded together with %s, and %s has %s; several are excluded at once only when their votes together are fewer than the next-lowest's", k+1, t.list(out), votes(total), t.name(next), Thousands(low))
		case withVotes == 1 && total == low:
			// The one excluded with votes shares the lowest place.
			t.exclusionTie(out[len(out)-1], k)
		}
	}
	c.Event, c.Votes = EventExclusion, total
	for _, j := range out {
		c.CandidateIDs = append(c.CandidateIDs, t.sheet.Candidacies[j].CandidateID)
	}
	return c
}

func (t *tally) exclude(out []int, k int) {
	for _, j := range out {
		t.state[j], t.excludedAt[j] = excluded, k+1
	}
}

// elect elects, after count k, the continuing candidates who reach the
// quota, highest first; then, once as many continuing candidates remain
// as seats are still to fill, those remaining; or, after the sheet's last
// count, when the seats still to fill can go no other way (filled), the
// highest of those remaining. A tie at the line is settled as settleSeats
// says.
func (t *tally) elect(k int) {
	var reach, left []int
	for j := range t.sheet.Candidacies {
		if t.state[j] != continuing {
			continue
		}
		left = append(left, j)
		if t.total(j, k) >= t.sheet.Quota {
			reach = append(reach, j)
		}
	}
	t.byTotal(reach, k)
	t.electAll(t.settleSeats(reach, t.sheet.Seats-len(t.elected), k), k)
	if seats := t.sheet.Seats - len(t.elected); seats > 0 {
		left = slices.DeleteFunc(left, func(j int) bool { return t.state[j] != continuing })
		switch {
		case len(left) <= seats:
			t.byTotal(left, k)
			t.electAll(left, k)
		case k == len(t.sheet.Counts)-1:
			// A sheet may end here without printing the exclusions
			// left, as the Commission's 2022 sheets do with one
			// candidate more than seats; or print them, count by count,
			// as the sheets of 1947 and 1981 print the last, until as
			// many continuing candidates remain as seats: so only its
			// last count is read as its end.
			if t.byTotal(left, k); t.filled(left, seats, k) {
				t.electAll(t.settleSeats(left, seats, k), k)
			}
		}
	}
	if len(t.elected) >= t.sheet.Seats && t.filledAt == 0 {
		t.filledAt = k + 1
	}
}

// filled reports whether, after count k, the seats still to fill can go
// no other way: the continuing candidates left, by their totals highest
// first, less the first seats, have fewer votes together, with every
// surplus still to transfer, than the lowest of those who would take the
// seats, so that no transfer or exclusion can lift one of them above
// her; or, with no surplus left, one of them at most has votes, and the
// only step left is to exclude the lowest.
func (t *tally) filled(left []int, seats, k int) bool {
	low := t.total(left[seats-1], k)
	sum, withVotes := t.pending(k), 0
	for _, j := range left[seats:] {
		sum = saturated(sum, t.total(j, k))
		if t.total(j, k) > 0 {
			withVotes++
		}
	}
	return withVotes <= 1 && t.pending(k) == 0 || sum < low
}

// unfinished says, for a final sheet whose counts leave seats to fill,
// what was still to count after its last count; "" when nothing was.
func (t *tally) unfinished() string {
	k := len(t.sheet.Counts) - 1
	var left []int
	for j := range t.sheet.Candidacies {
		if t.state[j] == continuing {
			left = append(left, j)
		}
	}
	seats := t.sheet.Seats - len(t.elected)
	if len(left) <= seats {
		return ""
	}
	t.byTotal(left, k)
	sum := 0
	for _, j := range left[seats:] {
		sum = saturated(sum, t.total(j, k))
	}
	what, who := "the last seat", "who would take it"
	if seats > 1 {
		what, who = fmt.Sprintf("the %d seats left", seats), "the lowest of those who would take them"
	}
	below := fmt.Sprintf("the %d candidates below %s have %s together", len(left)-seats, what, votes(sum))
	if len(left)-seats == 1 {
		below = fmt.Sprintf("%s, below %s, has %s", t.name(left[seats]), what, votes(sum))
	}
	if pending := t.pending(k); pending > 0 {
		below += fmt.Sprintf(", %s with %s still to transfer", sumText(saturated(sum, pending)), t.surpluses(k))
	}
	return fmt.Sprintf(": after count %d, %s, and %s, %s, has %s; a further count could still change who is elected", k+1, below, t.name(left[seats-1]), who, Thousands(t.total(left[seats-1], k)))
}

// pending is the votes of the surpluses still to transfer after count k.
func (t *tally) pending(k int) int {
	sum := 0
	for _, j := range t.elected {
		if !t.surplusGone[j] && t.total(j, k) > t.sheet.Quota {
			sum = saturated(sum, t.total(j, k)-t.sheet.Quota)
		}
	}
	return sum
}

// surpluses names the surpluses still to transfer after count k:
// "Robert Abela's surplus of 6 votes", or "the surpluses of Robert Abela
// (6 votes) and Chris Fearne (4 votes)".
func (t *tally) surpluses(k int) string {
	var js []int
	for _, j := range t.elected {
		if !t.surplusGone[j] && t.total(j, k) > t.sheet.Quota {
			js = append(js, j)
		}
	}
	if len(js) == 1 {
		return fmt.Sprintf("%s's surplus of %s", t.name(js[0]), votes(t.total(js[0], k)-t.sheet.Quota))
	}
	each := make([]string, len(js))
	for n, j := range js {
		each[n] = fmt.Sprintf("%s (%s)", t.name(j), votes(t.total(j, k)-t.sheet.Quota))
	}
	return "the surpluses of " + suggest.List(each, "and")
}

// byTotal sorts the candidacies js by their totals after count k, highest
// first, and equal totals in the sheet's row order.
func (t *tally) byTotal(js []int, k int) {
	slices.SortFunc(js, func(a, b int) int { return cmp.Or(cmp.Compare(t.total(b, k), t.total(a, k)), cmp.Compare(a, b)) })
}

// electAll elects the candidacies js after count k, in their order, until
// every seat is filled.
func (t *tally) electAll(js []int, k int) {
	for _, j := range js {
		if len(t.elected) == t.sheet.Seats {
			return
		}
		t.state[j], t.electedAt[j] = elected, k+1
		t.elected = append(t.elected, j)
	}
}

// list names the candidacies js as a sentence does: "A, B and C".
func (t *tally) list(js []int) string {
	names := make([]string, len(js))
	for n, j := range js {
		names[n] = t.name(j)
	}
	return suggest.List(names, "and")
}

func isAre(n int) string {
	if n == 1 {
		return "is"
	}
	return "are"
}

// votes writes n votes, grouped by thousands: "1 vote", "22,788 votes".
func votes(n int) string {
	if n == 1 {
		return "1 vote"
	}
	return Thousands(n) + " votes"
}

// Thousands writes n in digits grouped by threes with commas, as the
// Commission's sheets print votes: 22,788.
func Thousands(n int) string {
	s := strconv.Itoa(n)
	start := 0
	if n < 0 {
		start = 1
	}
	var b strings.Builder
	for i, r := range s {
		if i > start && (len(s)-i)%3 == 0 {
			b.WriteByte(',')
		}
		b.WriteRune(r)
	}
	return b.String()
}
