package pages

import (
	"cmp"
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"testing/fstest"

	"ballot/archive"
	"ballot/dataset"
	"ballot/internal/datasettest"
)

// The story of a count is checked here sentence by sentence against what
// the sheet's totals say happened, worked out below apart from the
// story's code: each sentence is read back by a grammar of the sentences
// each language writes, its names and figures are taken out, and each
// claim is held to the facts; a sentence the grammar does not know, and a
// fact of a count no sentence tells, fail too.

// countFacts is what the totals say of one count.
type countFacts struct {
	surplus   int // whose surplus moved, or -1
	excluded  []int
	votes     int // the votes that moved
	gains     map[int]int
	nt        int         // the votes that became non-transferable
	quota     []int       // elected by reaching the quota
	filled    []int       // elected without it, as the last seats were filled
	leftOut   []int       // still in the count, and not elected, when they were
	surplusL  bool        // a surplus was left when they were
	lowTie    []int       // tied for the lowest place: the excluded and who stayed
	seatTie   []int       // tied for the last seat
	unfilled  int         // the seats the sheet leaves unfilled, at its last count
	published []int       // who took them, as the sheet's defects state
	totals    map[int]int // each candidacy's total after the count
	before    map[int]int // and before it
}

// facts works out each count of sh from its totals: the event (who fell
// to the quota, who fell to 0, and those with no vote, who go with the
// first exclusion), the gains, who reached the quota, and, at a final
// sheet's last count, who filled the seats left (the highest continuing;
// where they tie at the line, the sheet's elected say who took the seat)
// and who was left out, or, when its defects state who took them as
// published, those; and who tied.
func facts(sh *dataset.CountSheet) []countFacts {
	const (
		continuing = iota
		elected
		excluded
	)
	state := make([]int, len(sh.Candidacies))
	seats := sh.Seats
	total := func(j, k int) int { return sh.Candidacies[j].Totals[k] }
	electedAt := func(j, k int) bool {
		c := sh.Candidacies[j]
		return c.ElectedAtCount != nil && *c.ElectedAtCount == k+1
	}
	// takeSeats elects the first n of js, highest first, and returns
	// them, with the tied at the line when there is a tie there.
	takeSeats := func(js []int, n, k int) (took, tied []int) {
		slices.SortStableFunc(js, func(a, b int) int { return total(b, k) - total(a, k) })
		if n < len(js) && n > 0 && total(js[n-1], k) == total(js[n], k) {
			v := total(js[n-1], k)
			var above []int
			for _, j := range js {
				switch {
				case total(j, k) > v:
					above = append(above, j)
				case total(j, k) == v:
					tied = append(tied, j)
				}
			}
			took = above
			for _, j := range tied {
				if electedAt(j, k) {
					took = append(took, j)
				}
			}
		} else {
			took = js[:min(n, len(js))]
		}
		for _, j := range took {
			state[j] = elected
		}
		return slices.Clone(took), tied
	}
	out := make([]countFacts, len(sh.Counts))
	for k := range sh.Counts {
		f := countFacts{surplus: -1, gains: map[int]int{}, totals: map[int]int{}, before: map[int]int{}}
		for j := range sh.Candidacies {
			f.totals[j] = total(j, k)
			if k > 0 {
				f.before[j] = total(j, k-1)
			}
		}
		if k > 0 {
			f.nt = sh.Counts[k].NonTransferable - sh.Counts[k-1].NonTransferable
			for j := range sh.Candidacies {
				switch d := total(j, k) - total(j, k-1); {
				case d > 0:
					f.gains[j] = d
				case d < 0 && state[j] == elected:
					f.surplus, f.votes = j, -d
				case d < 0:
					f.excluded = append(f.excluded, j)
				}
			}
			if f.surplus < 0 {
				for j := range sh.Candidacies {
					if state[j] == continuing && total(j, k-1) == 0 && !slices.Contains(f.excluded, j) {
						f.excluded = append(f.excluded, j)
					}
				}
				hi := -1 // the excluded with the most votes
				for _, j := range f.excluded {
					state[j] = excluded
					f.votes += total(j, k-1)
					if hi < 0 || total(j, k-1) > total(hi, k-1) {
						hi = j
					}
				}
				for j := range sh.Candidacies {
					if hi >= 0 && total(hi, k-1) > 0 && state[j] == continuing && total(j, k-1) == total(hi, k-1) {
						f.lowTie = append(f.lowTie, j)
					}
				}
				if len(f.lowTie) > 0 {
					f.lowTie = append(f.lowTie, hi)
				}
			}
		}
		var reach, left []int
		for j := range sh.Candidacies {
			if state[j] == continuing {
				left = append(left, j)
				if total(j, k) >= sh.Quota {
					reach = append(reach, j)
				}
			}
		}
		f.quota, f.seatTie = takeSeats(reach, seats, k)
		seats -= len(f.quota)
		var stated []int
		for _, d := range sh.Defects {
			for _, id := range d.Elected {
				stated = append(stated, slices.IndexFunc(sh.Candidacies, func(c dataset.Candidacy) bool { return c.CandidateID == id }))
			}
		}
		if k == len(sh.Counts)-1 && len(stated) > 0 {
			f.unfilled, f.published = seats, stated
			seats = 0
		}
		if k == len(sh.Counts)-1 && sh.Status == dataset.StatusFinal && seats > 0 {
			left = slices.DeleteFunc(left, func(j int) bool { return state[j] != continuing })
			var tied []int
			f.filled, tied = takeSeats(left, seats, k)
			f.seatTie = append(f.seatTie, tied...)
			for _, j := range left {
				if state[j] == continuing {
					f.leftOut = append(f.leftOut, j)
				}
			}
			for j := range sh.Candidacies {
				if state[j] == elected && total(j, k) > sh.Quota && !slices.Contains(f.filled, j) {
					f.surplusL = true
				}
			}
		}
		out[k] = f
	}
	return out
}

// grammar reads a language's sentences back: each clause a regular
// expression whose named groups hold the names and figures it claims.
type grammar struct {
	and    string
	others *regexp.Regexp // "4,997 others, all with no vote,"
	cmpOne *regexp.Regexp // "at count 1 (55 against 62)"
	than   string         // the word before each name of a longer comparison
	cmpOf  *regexp.Regexp // "B at count 1 (55 against 60)"
	out    *regexp.Regexp // one left out: "José Herrera, with 2,723, is not elected"
	outs   *regexp.Regexp // several: "… are not elected"
	noGain string
	ntNone string
	ntSome *regexp.Regexp
	// the clauses of a count's sentences, in the order they come
	first, tieLow, surplus, excluded, quota, tieSeat, left, fill, published *regexp.Regexp
}

// clause makes a clause's expression: N is a number, and each clause
// ends its sentence.
func clause(re string) *regexp.Regexp {
	return regexp.MustCompile("^" + strings.ReplaceAll(re, "N", `[\d,]+`) + `(?: |$)`)
}

var grammars = map[*Lang]grammar{
	English: {
		and:       " and ",
		others:    regexp.MustCompile(`^([\d,]+) others?(, all with no vote,)?$`),
		cmpOne:    regexp.MustCompile(`^at count (\d+) \(([\d,]+) against ([\d,]+)\)$`),
		than:      "than ",
		cmpOf:     regexp.MustCompile(`^(.+) at count (\d+) \(([\d,]+) against ([\d,]+)\)$`),
		out:       regexp.MustCompile(`^(.+), with ([\d,]+), is not elected$`),
		outs:      regexp.MustCompile(`^(.+) are not elected$`),
		noGain:    "no candidate gained",
		ntNone:    "none",
		ntSome:    regexp.MustCompile(`^([\d,]+) votes?$`),
		first:     clause(`The first preferences of (?P<valid>N) valid votes; the quota is (?P<quota>N)\.`),
		tieLow:    clause(`(?P<tied>.+?) are tied at (?P<total>N) for the lowest place; (?:(?P<x>.+?), with fewer votes (?P<cmp>.+?), is excluded|by the earlier counts, (?P<xe>.+?) is excluded|by lot, (?P<xl>.+?) is excluded|(?P<open>the sheet does not say what decided between them))\.`),
		surplus:   clause(`(?P<who>.+?)'s surplus of (?P<votes>N) votes? transferred: (?P<gains>.+?); (?P<nt>.+?) became non-transferable\.`),
		excluded:  clause(`(?P<who>.+?) excluded with (?P<votes>N) votes?(?: between them)?: (?P<gains>.+?); (?P<nt>.+?) became non-transferable\.`),
		quota:     clause(`(?P<who>.+?) (?:reaches the quota and is elected|reach the quota and are elected)\.`),
		tieSeat:   clause(`(?P<tied>.+?) are tied at (?P<total>N) for the last (?:seat|(?P<seats>N) seats); (?:(?P<w>.+?), with more votes (?P<cmpw>.+?), takes it|(?P<l>.+?), with fewer votes (?P<cmpl>.+?), is not elected|by the earlier counts, (?P<we>.+?) takes? (?:it|them)|by lot, (?P<wl>.+?) takes? (?:it|them)|(?P<open>the sheet does not say what decided between them))\.`),
		left:      clause(`(?P<who>.+?) (?:is|are) elected without reaching the quota, as many candidates being left as seats\.`),
		fill:      clause(`(?P<who>.+?) (?:is|are) elected without reaching the quota: no surplus is left, and of the (?P<still>N) candidates? still in the count the (?:highest takes the last seat|(?P<m>N) highest take the seats left); (?P<out>.+)\.`),
		published: clause(`The sheet ends here with (?:(?P<one>one) seat|(?P<n>N) seats?) unfilled; as published, (?P<who>.+?) (?:(?P<all>takes it|take them)|(?P<some>takes one) of them|take (?P<m>N) of them)\.`),
	},
	Maltese: {
		and:       " u ",
		others:    regexp.MustCompile(`^([\d,]+) (?:kandidati oħra|kandidat ieħor)(, kollha bla ebda vot,)?$`),
		cmpOne:    regexp.MustCompile(`^fl-għadd (\d+) \(([\d,]+) kontra ([\d,]+)\)$`),
		than:      "minn ",
		cmpOf:     regexp.MustCompile(`^(.+) fl-għadd (\d+) \(([\d,]+) kontra ([\d,]+)\)$`),
		out:       regexp.MustCompile(`^(.+), b'([\d,]+), mhux elett/a$`),
		outs:      regexp.MustCompile(`^(.+) mhux eletti$`),
		noGain:    "l-ebda kandidat ma kiseb voti",
		ntNone:    "il-voti kollha ġew trasferiti",
		ntSome:    regexp.MustCompile(`^mhux trasferibbli: ([\d,]+) voti?$`),
		first:     clause(`L-ewwel preferenzi; il-voti validi huma (?P<valid>N) u l-kwota hija (?P<quota>N)\.`),
		tieLow:    clause(`(?P<tied>.+?) huma ndaqs fl-aħħar post, bl-istess total ta' (?P<total>N); (?:(?P<x>.+?), b'inqas voti (?P<cmp>.+?), eliminat/a|skont l-għadd ta' qabel, (?P<xe>.+?) eliminat/a|bix-xorti, (?P<xl>.+?) eliminat/a|(?P<open>il-folja ma tgħidx x'iddeċieda bejniethom))\.`),
		surplus:   clause(`Is-surplus ta' (?P<who>.+?) ta' (?P<votes>N) voti? ġie trasferit: (?P<gains>.+?); (?P<nt>.+?)\.`),
		excluded:  clause(`(?P<who>.+?) eliminat(?:/a|i) b'(?P<votes>N) voti?(?: bejniethom)?: (?P<gains>.+?); (?P<nt>.+?)\.`),
		quota:     clause(`(?P<who>.+?): (?:elett/a|eletti), bil-kwota\.`),
		tieSeat:   clause(`(?P<tied>.+?) huma ndaqs għall-aħħar (?:siġġu|(?P<seats>N) siġġ(?:ijiet|u)), bl-istess total ta' (?P<total>N); (?:is-siġġu jmur għand (?P<w>.+?), b'aktar voti (?P<cmpw>.+?)|(?P<l>.+?), b'inqas voti (?P<cmpl>.+?), mhux elett/a|skont l-għadd ta' qabel, is-(?:siġġu jmur|siġġijiet imorru) għand (?P<we>.+?)|bix-xorti, is-(?:siġġu jmur|siġġijiet imorru) għand (?P<wl>.+?)|(?P<open>il-folja ma tgħidx x'iddeċieda bejniethom))\.`),
		left:      clause(`(?P<who>.+?): (?:elett/a|eletti) mingħajr il-kwota, għax baqgħu kandidati daqs is-siġġijiet\.`),
		fill:      clause(`(?P<who>.+?): (?:elett/a|eletti) mingħajr il-kwota, għax ma fadal l-ebda surplus u, minn (?P<still>N) kandidat(?:i)? li għadhom fl-għadd, l-ogħla (?:jieħu l-aħħar siġġu|(?P<m>N) jieħdu s-siġġijiet li fadal); (?P<out>.+)\.`),
		published: clause(`Il-folja tieqaf hawn u fadal (?:(?P<one>siġġu wieħed) x'jimtela|(?P<n>N) siġġ(?:ijiet|u) x'jimtlew); kif ippubblikat, (?:(?P<all>imur|imorru)|(?P<some>wieħed) minnhom imur|(?P<m>N) minnhom imorru) għand (?P<who>.+?)\.`),
	},
}

// reader reads one count's sentences, in one language, against its
// facts.
type reader struct {
	t     *testing.T
	g     grammar
	sh    *dataset.CountSheet
	f     countFacts
	k     int
	names []string
	where string
	rest  string
}

func (r *reader) errorf(format string, args ...any) {
	r.t.Helper()
	r.t.Errorf("%s: %s", r.where, fmt.Sprintf(format, args...))
}

// take reads the clause re at the start of what is left of the sentences,
// and returns its groups by name, or nil when it is not there.
func (r *reader) take(re *regexp.Regexp) map[string]string {
	m := re.FindStringSubmatch(r.rest)
	if m == nil {
		return nil
	}
	r.rest = r.rest[len(m[0]):]
	groups := map[string]string{}
	for i, name := range re.SubexpNames() {
		if name != "" {
			groups[name] = m[i]
		}
	}
	return groups
}

func number(s string) int {
	n, err := strconv.Atoi(strings.ReplaceAll(s, ",", ""))
	if err != nil {
		return -1
	}
	return n
}

// row is the candidacy a name names.
func (r *reader) row(name string) int {
	j := slices.Index(r.names, name)
	if j < 0 {
		r.errorf("%q is no candidate of the sheet", name)
	}
	return j
}

// list reads a list of names (each taken by item, which returns its row),
// and the others it counts: "A, B and 3 others, all with no vote,".
func (r *reader) list(s string, item func(string) int) (rows []int, others int, noVote bool) {
	items := []string{s}
	if i := strings.LastIndex(s, r.g.and); i >= 0 {
		items = append(strings.Split(s[:i], ", "), s[i+len(r.g.and):])
	}
	if m := r.g.others.FindStringSubmatch(items[len(items)-1]); m != nil {
		items, others, noVote = items[:len(items)-1], number(m[1]), m[2] != ""
	}
	for _, it := range items {
		rows = append(rows, item(it))
	}
	return rows, others, noVote
}

// same checks that a list, with the others it counts, names the rows of
// want: each it names, and as many as there are; when it counts others,
// it names the first few by order (highest first, by total), and says
// "all with no vote" just when the others have none.
func (r *reader) same(what, s string, want []int, item func(string) int, totals map[int]int) {
	rows, others, noVote := r.list(s, item)
	if len(rows)+others != len(want) {
		r.errorf("%s: %q names %d and %d others, and the totals show %d", what, s, len(rows), others, len(want))
		return
	}
	for _, j := range rows {
		if !slices.Contains(want, j) {
			r.errorf("%s: %q names %s, and the totals do not", what, s, r.names[j])
		}
	}
	if others == 0 {
		return
	}
	none := true
	for _, j := range want {
		if !slices.Contains(rows, j) {
			none = none && totals[j] == 0
			for _, named := range rows {
				if totals[named] < totals[j] {
					r.errorf("%s: %q names %s (%d) before %s (%d)", what, s, r.names[named], totals[named], r.names[j], totals[j])
				}
			}
		}
	}
	if noVote != none {
		r.errorf("%s: %q says all the others have no vote: %v; the totals: %v", what, s, noVote, none)
	}
}

func (r *reader) names1(what, s string, want []int, totals map[int]int) {
	r.same(what, s, want, r.row, totals)
}

// gains checks the largest gains a sentence lists.
func (r *reader) gains(s string) {
	if s == r.g.noGain {
		if len(r.f.gains) > 0 {
			r.errorf("says no one gained; %d did", len(r.f.gains))
		}
		return
	}
	parts := strings.Split(s, ", ")
	more := parts[len(parts)-1] == "…"
	if more {
		parts = parts[:len(parts)-1]
	}
	var least int
	for i, p := range parts {
		name, d, ok := strings.Cut(p, " +")
		j := r.row(name)
		if !ok || j < 0 || r.f.gains[j] != number(d) {
			r.errorf("gain %q: the totals show %d", p, r.f.gains[j])
		}
		if i > 0 && number(d) > least {
			r.errorf("gain %q listed after a smaller one", p)
		}
		least = number(d)
	}
	for j, d := range r.f.gains {
		if d > least && !slices.ContainsFunc(parts, func(p string) bool { return strings.HasPrefix(p, r.names[j]+" +") }) {
			r.errorf("%s gained %d, more than a gain listed, and is not listed", r.names[j], d)
		}
	}
	if more != (len(r.f.gains) > len(parts)) || len(parts) > storyGains {
		r.errorf("gains %q: %d gained", s, len(r.f.gains))
	}
}

// nt checks the votes that became non-transferable.
func (r *reader) nt(s string) {
	n := 0
	if s != r.g.ntNone {
		m := r.g.ntSome.FindStringSubmatch(s)
		if m == nil {
			r.errorf("non-transferable %q: not a sentence of the story", s)
			return
		}
		n = number(m[1])
	}
	if n != r.f.nt {
		r.errorf("says %d became non-transferable; the totals show %d", n, r.f.nt)
	}
}

// compare checks a tie's comparisons, count by count: a, of the tied,
// had fewer votes (or more, when more) than each other, with the figures
// given, at the first count at which they differed. It returns those it
// compared a with.
func (r *reader) compare(a int, s string, more bool, at int) []int {
	type cmp struct{ other, count, a, b int }
	var cmps []cmp
	if m := r.g.cmpOne.FindStringSubmatch(s); m != nil {
		cmps = append(cmps, cmp{-1, number(m[1]), number(m[2]), number(m[3])})
	} else {
		for _, part := range strings.Split(strings.TrimPrefix(s, r.g.than), r.g.and+r.g.than) {
			m := r.g.cmpOf.FindStringSubmatch(part)
			if m == nil {
				r.errorf("comparison %q: not a sentence of the story", s)
				return nil
			}
			cmps = append(cmps, cmp{r.row(m[1]), number(m[2]), number(m[3]), number(m[4])})
		}
	}
	var with []int
	for _, c := range cmps {
		others := []int{c.other}
		if c.other < 0 { // the one other tied
			others = slices.DeleteFunc(slices.Concat(r.f.lowTie, r.f.seatTie), func(j int) bool { return j == a })
		}
		for _, o := range others {
			ta, to := r.sh.Candidacies[a].Totals, r.sh.Candidacies[o].Totals
			first := -1
			for i := range at + 1 {
				if ta[i] != to[i] {
					first = i
					break
				}
			}
			if first+1 != c.count || ta[first] != c.a || to[first] != c.b || (ta[first] > to[first]) != more {
				r.errorf("%q: %s and %s first differ at count %d (%v and %v)", s, r.names[a], r.names[o], first+1, ta[:at+1], to[:at+1])
			}
			with = append(with, o)
		}
	}
	return with
}

// tieDecision is how the sheet's record says the tie of kind at count
// k+1 was decided.
func (r *reader) tieDecision(kind string) string {
	for _, t := range r.sh.Ties {
		if t.Count == r.k+1 && t.Kind == kind {
			return dataset.Text(t.DecidedBy)
		}
	}
	r.errorf("the record has no %s tie at count %d", kind, r.k+1)
	return ""
}

// read reads the sentences of count k+1 and checks each claim; each fact
// of the count must be told.
func (r *reader) read(text string) {
	r.rest = text
	f := r.f
	told := map[string]bool{}
	if c := r.take(r.g.tieLow); c != nil {
		told["lowTie"] = true
		r.names1("tied for the lowest place", c["tied"], f.lowTie, nil)
		if len(f.lowTie) > 0 && number(c["total"]) != f.before[f.lowTie[0]] {
			r.errorf("tied at %s; the totals show %d", c["total"], f.before[f.lowTie[0]])
		}
		x := -1
		if c["open"] == "" {
			x = r.row(c["x"] + c["xe"] + c["xl"])
		}
		decided := r.tieDecision(dataset.TieExclusion)
		switch {
		case c["open"] != "" && decided != "":
			r.errorf("says the sheet does not say what decided the tie; it says %s", decided)
		case c["xl"] != "" && decided != dataset.DecidedByLot, c["x"]+c["xe"] != "" && decided != dataset.DecidedByEarlierCounts:
			r.errorf("says how the tie was decided; the sheet says %q", decided)
		case x >= 0 && !slices.Contains(f.excluded, x):
			r.errorf("says %s is excluded", r.names[x])
		case c["cmp"] != "":
			r.compare(x, c["cmp"], false, r.k-1)
		}
	}
	switch {
	case r.k == 0:
		c := r.take(r.g.first)
		if c == nil || number(c["valid"]) != r.sh.ValidVotes || number(c["quota"]) != r.sh.Quota {
			r.errorf("count 1: %q", text)
			return
		}
	case f.surplus >= 0:
		c := r.take(r.g.surplus)
		if c == nil {
			r.errorf("%q: no surplus sentence", r.rest)
			return
		}
		if r.row(c["who"]) != f.surplus || number(c["votes"]) != f.votes {
			r.errorf("says %s's surplus of %s moved; the totals show %s's of %d", c["who"], c["votes"], r.names[f.surplus], f.votes)
		}
		r.gains(c["gains"])
		r.nt(c["nt"])
	default:
		c := r.take(r.g.excluded)
		if c == nil {
			r.errorf("%q: no exclusion sentence", r.rest)
			return
		}
		r.names1("excluded", c["who"], f.excluded, f.before)
		if number(c["votes"]) != f.votes {
			r.errorf("says %s votes moved; the totals show %d", c["votes"], f.votes)
		}
		r.gains(c["gains"])
		r.nt(c["nt"])
	}
	if c := r.take(r.g.quota); c != nil {
		told["quota"] = true
		r.names1("elected with the quota", c["who"], f.quota, nil)
	}
	if c := r.take(r.g.tieSeat); c != nil {
		told["seatTie"] = true
		r.names1("tied for the last seat", c["tied"], f.seatTie, nil)
		if len(f.seatTie) > 0 && number(c["total"]) != f.totals[f.seatTie[0]] {
			r.errorf("tied at %s; the totals show %d", c["total"], f.totals[f.seatTie[0]])
		}
		took := slices.Concat(f.quota, f.filled)
		decided := r.tieDecision(dataset.TieSeat)
		switch {
		case c["open"] != "" && decided != "":
			r.errorf("says the sheet does not say what decided the tie; it says %s", decided)
		case c["wl"] != "" && decided != dataset.DecidedByLot, c["w"]+c["l"]+c["we"] != "" && decided != dataset.DecidedByEarlierCounts:
			r.errorf("says how the tie was decided; the sheet says %q", decided)
		case c["w"] != "":
			if w := r.row(c["w"]); slices.Contains(took, w) {
				r.compare(w, c["cmpw"], true, r.k)
			} else {
				r.errorf("says %s takes the seat", c["w"])
			}
		case c["l"] != "":
			if l := r.row(c["l"]); !slices.Contains(took, l) {
				r.compare(l, c["cmpl"], false, r.k)
			} else {
				r.errorf("says %s does not take a seat", c["l"])
			}
		case c["we"]+c["wl"] != "":
			var won []int
			for _, j := range f.seatTie {
				if slices.Contains(took, j) {
					won = append(won, j)
				}
			}
			r.names1("took the seats of the tie", c["we"]+c["wl"], won, nil)
		}
	}
	if c := r.take(r.g.left); c != nil {
		told["filled"] = true
		r.names1("elected without the quota", c["who"], f.filled, nil)
		if len(f.leftOut) > 0 {
			r.errorf("says as many candidates were left as seats; %d more are left out", len(f.leftOut))
		}
	} else if c := r.take(r.g.fill); c != nil {
		told["filled"] = true
		r.names1("elected without the quota", c["who"], f.filled, nil)
		if still := len(f.filled) + len(f.leftOut); number(c["still"]) != still {
			r.errorf("says %s still in the count; the totals show %d", c["still"], still)
		}
		if c["m"] != "" && number(c["m"]) != len(f.filled) || c["m"] == "" && len(f.filled) != 1 {
			r.errorf("says the %s highest take the seats; %d do", c["m"], len(f.filled))
		}
		if f.surplusL {
			r.errorf("says no surplus is left; one is")
		}
		for _, a := range f.filled {
			for _, b := range f.leftOut {
				if f.totals[a] < f.totals[b] {
					r.errorf("%s (%d) takes a seat over %s (%d)", r.names[a], f.totals[a], r.names[b], f.totals[b])
				}
			}
		}
		// Those left out, each with their total.
		item := func(s string) int {
			open := strings.LastIndex(s, " (")
			if open < 0 || !strings.HasSuffix(s, ")") {
				r.errorf("%q: a name without its total", s)
				return -1
			}
			j := r.row(s[:open])
			if j >= 0 && number(s[open+2:len(s)-1]) != f.totals[j] {
				r.errorf("%q: the totals show %d", s, f.totals[j])
			}
			return j
		}
		if m := r.g.out.FindStringSubmatch(c["out"]); m != nil {
			if j := item(m[1] + " (" + m[2] + ")"); len(f.leftOut) != 1 || j != f.leftOut[0] {
				r.errorf("says %s alone is left out; the totals show %d", m[1], len(f.leftOut))
			}
		} else if m := r.g.outs.FindStringSubmatch(c["out"]); m != nil {
			r.same("left out", m[1], f.leftOut, item, f.totals)
		} else {
			r.errorf("%q: not a sentence of the story", c["out"])
		}
	}
	if c := r.take(r.g.published); c != nil {
		told["published"] = true
		r.names1("took the seats left as published", c["who"], f.published, nil)
		if n := number(c["n"]); c["one"] != "" && f.unfilled != 1 || c["one"] == "" && n != f.unfilled {
			r.errorf("says %s%s seats are left unfilled; the sheet leaves %d", c["one"], c["n"], f.unfilled)
		}
		switch took := len(f.published); {
		case c["all"] != "" && took != f.unfilled, c["some"] != "" && took != 1, c["m"] != "" && number(c["m"]) != took:
			r.errorf("%q: %d took %d seats left", text, took, f.unfilled)
		case c["m"] != "" && took == f.unfilled:
			r.errorf("%q: %d took every seat left", text, took)
		}
	}
	if r.rest != "" {
		r.errorf("%q: not a sentence of the story", r.rest)
	}
	for fact, n := range map[string]int{"lowTie": len(f.lowTie), "quota": len(f.quota), "seatTie": len(f.seatTie), "filled": len(f.filled), "published": len(f.published)} {
		if n > 0 && !told[fact] {
			r.errorf("%q tells nothing of %s (%d)", text, fact, n)
		}
	}
}

// checkStory reads every sentence of sh's story in both languages
// against the facts of its totals.
func checkStory(t *testing.T, ds *dataset.Dataset, sh *dataset.CountSheet) {
	t.Helper()
	fs := facts(sh)
	for _, lang := range []*Lang{English, Maltese} {
		s := &Site{ds: ds, lang: lang, api: "/api/public/v1"}
		v := s.newCountView(sh)
		names := make([]string, len(sh.Candidacies))
		for j := range sh.Candidacies {
			_, names[j], _ = s.candidacyRow(&sh.Candidacies[j])
		}
		for k, line := range v.Story {
			where := fmt.Sprintf("district %d, %s, %s", sh.DistrictNumber, lang.Code, line.Count)
			if line.Count != lang.T("story_count", k+1) {
				t.Errorf("%s: the line of count %d", where, k+1)
			}
			r := &reader{t: t, g: grammars[lang], sh: sh, f: fs[k], k: k, names: names, where: where}
			r.read(line.Text)
		}
	}
}

// TestStoryTells: every sentence of the story of every 2022 district, in
// both languages, says what the totals show.
func TestStoryTells(t *testing.T) {
	ds, err := dataset.Default()
	if err != nil {
		t.Fatal(err)
	}
	if len(ds.Sheets()) != 13 {
		t.Fatalf("%d sheets, want 13", len(ds.Sheets()))
	}
	for i := range ds.Sheets() {
		checkStory(t, ds, &ds.Sheets()[i])
	}
}

// TestStoryTellsPublished: the same of the archive's three sheets that
// end with seats unfilled, whose known defects state who took them as
// published: the story of the last count says so, in both languages.
func TestStoryTellsPublished(t *testing.T) {
	a, err := archive.Default()
	if err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		election string
		district int
		story    []string // the last count's last sentence, in English and in Maltese
	}{
		{"1992", 8, []string{
			"The sheet ends here with 2 seats unfilled; as published, Lino (Carmel) Gauci Borda and Joe Fenech take them.",
			"Il-folja tieqaf hawn u fadal 2 siġġijiet x'jimtlew; kif ippubblikat, imorru għand Lino (Carmel) Gauci Borda u Joe Fenech.",
		}},
		{"2013", 1, []string{
			"The sheet ends here with one seat unfilled; as published, Claudio Grech takes it.",
			"Il-folja tieqaf hawn u fadal siġġu wieħed x'jimtela; kif ippubblikat, imur għand Claudio Grech.",
		}},
		{"2013", 9, []string{
			"The sheet ends here with one seat unfilled; as published, Leo-Maria Brincat takes it.",
			"Il-folja tieqaf hawn u fadal siġġu wieħed x'jimtela; kif ippubblikat, imur għand Leo-Maria Brincat.",
		}},
	} {
		e, err := a.Election(tt.election)
		if err != nil {
			t.Fatal(err)
		}
		sh, ok := e.Dataset().Sheet(tt.district)
		if !ok {
			t.Fatalf("%s has no sheet of district %d", tt.election, tt.district)
		}
		checkStory(t, e.Dataset(), sh)
		for i, want := range tt.story {
			s := &Site{ds: e.Dataset(), lang: []*Lang{English, Maltese}[i]}
			v := s.newCountView(sh)
			if got := v.Story[len(v.Story)-1].Text; !strings.HasSuffix(got, " "+want) {
				t.Errorf("%s, district %d, the last count, %s:\n got %q\nwant it to end %q", tt.election, tt.district, s.lang.Code, got, want)
			}
		}
	}
}

// TestStoryTellsShapes: the same of synthetic sheets of every shape a
// count takes (two seats, 100 valid votes, a quota of 34; district 5's
// first rows, the rest with no vote), each loaded as a dataset.
func TestStoryTellsShapes(t *testing.T) {
	lot := func(k int, row int) func(m fstest.MapFS) {
		return func(m fstest.MapFS) {
			datasettest.Edit(t, m, dataset.CountsFile, func(sheets []map[string]any) []map[string]any {
				s := sheets[4]
				s["candidacies"].([]any)[row].(map[string]any)["elected_at_count"] = k
				s["ties"] = []any{map[string]any{"count": k, "decided_by": "lot"}}
				return sheets
			})
		}
	}
	// published states that the sheet ends too early, and who took the
	// seats it leaves unfilled, as published, by name.
	published := func(names ...string) func(m fstest.MapFS) {
		return func(m fstest.MapFS) {
			datasettest.Edit(t, m, dataset.CountsFile, func(sheets []map[string]any) []map[string]any {
				s := sheets[4]
				var ids []any
				for _, name := range names {
					for _, row := range s["candidacies"].([]any) {
						if r := row.(map[string]any); r["name"] == name {
							ids = append(ids, r["candidate_id"])
						}
					}
				}
				s["defects"] = []any{map[string]any{"count": nil, "rule": "elected-seats", "note": "the transcription ends here", "elected": ids}}
				return sheets
			})
		}
	}
	tests := []struct {
		name  string
		seats int // 2 when 0
		nt    []int
		rows  [][]int
		edit  func(m fstest.MapFS)
		story []string // the sentences of the last count, in English and in Maltese, for a reader
	}{{
		name: "a surplus, a bulk exclusion with those with no vote, one left out",
		nt:   []int{0, 1, 4},
		rows: [][]int{{40, 34, 34}, {28, 30, 33}, {20, 22, 29}, {7, 8, 0}, {5, 5, 0}},
		story: []string{
			"Owen Bonnici, Stefan Zrinzo Azzopardi, Clint Calleja, Francine Farrugia, Gianluca Cutajar and 11 others, all with no vote, excluded with 13 votes between them: Miriam Dalli +7, Bernard Grech +3; 3 votes became non-transferable. Bernard Grech is elected without reaching the quota: no surplus is left, and of the 2 candidates still in the count the highest takes the last seat; Miriam Dalli, with 29, is not elected.",
			"Owen Bonnici, Stefan Zrinzo Azzopardi, Clint Calleja, Francine Farrugia, Gianluca Cutajar u 11 kandidat ieħor, kollha bla ebda vot, eliminati b'13 vot bejniethom: Miriam Dalli +7, Bernard Grech +3; mhux trasferibbli: 3 voti. Bernard Grech: elett/a mingħajr il-kwota, għax ma fadal l-ebda surplus u, minn 2 kandidati li għadhom fl-għadd, l-ogħla jieħu l-aħħar siġġu; Miriam Dalli, b'29, mhux elett/a.",
		},
	}, {
		name: "several left out",
		nt:   []int{0, 1},
		rows: [][]int{{40, 34}, {30, 33}, {18, 19}, {7, 8}, {5, 5}},
		story: []string{
			"Robert Abela's surplus of 6 votes transferred: Bernard Grech +3, Miriam Dalli +1, Owen Bonnici +1; 1 vote became non-transferable. Bernard Grech is elected without reaching the quota: no surplus is left, and of the 18 candidates still in the count the highest takes the last seat; Miriam Dalli (19), Owen Bonnici (8), Stefan Zrinzo Azzopardi (5), Clint Calleja (0), Francine Farrugia (0) and 12 others, all with no vote, are not elected.",
			"Is-surplus ta' Robert Abela ta' 6 voti ġie trasferit: Bernard Grech +3, Miriam Dalli +1, Owen Bonnici +1; mhux trasferibbli: 1 vot. Bernard Grech: elett/a mingħajr il-kwota, għax ma fadal l-ebda surplus u, minn 18 kandidat li għadhom fl-għadd, l-ogħla jieħu l-aħħar siġġu; Miriam Dalli (19), Owen Bonnici (8), Stefan Zrinzo Azzopardi (5), Clint Calleja (0), Francine Farrugia (0) u 12 kandidat ieħor, kollha bla ebda vot, mhux eletti.",
		},
	}, {
		name: "many left out, with votes",
		nt:   []int{0, 3},
		rows: [][]int{{40, 34}, {30, 33}, {7, 7}, {3, 3}, {3, 3}, {3, 3}, {3, 3}, {3, 3}, {3, 3}, {3, 3}, {2, 2}},
	}, {
		name: "as many as seats",
		nt:   []int{0, 1, 33},
		rows: [][]int{{40, 34, 34}, {30, 33, 33}, {18, 19, 0}, {7, 8, 0}, {5, 5, 0}},
	}, {
		name: "two reach the quota at once",
		nt:   []int{0},
		rows: [][]int{{40}, {35}, {15}, {10}},
	}, {
		name: "a single exclusion, a tie for the lowest place settled by the earlier counts",
		nt:   []int{0, 0, 0, 1},
		rows: [][]int{{40, 34, 34, 34}, {25, 26, 32, 33}, {14, 14, 17, 32}, {11, 12, 0, 0}, {10, 14, 17, 0}},
		story: []string{
			"Miriam Dalli and Stefan Zrinzo Azzopardi are tied at 17 for the lowest place; Stefan Zrinzo Azzopardi, with fewer votes at count 1 (10 against 14), is excluded. Stefan Zrinzo Azzopardi excluded with 17 votes: Miriam Dalli +15, Bernard Grech +1; 1 vote became non-transferable. Bernard Grech is elected without reaching the quota: no surplus is left, and of the 2 candidates still in the count the highest takes the last seat; Miriam Dalli, with 32, is not elected.",
			"Miriam Dalli u Stefan Zrinzo Azzopardi huma ndaqs fl-aħħar post, bl-istess total ta' 17; Stefan Zrinzo Azzopardi, b'inqas voti fl-għadd 1 (10 kontra 14), eliminat/a. Stefan Zrinzo Azzopardi eliminat/a b'17 vot: Miriam Dalli +15, Bernard Grech +1; mhux trasferibbli: 1 vot. Bernard Grech: elett/a mingħajr il-kwota, għax ma fadal l-ebda surplus u, minn 2 kandidati li għadhom fl-għadd, l-ogħla jieħu l-aħħar siġġu; Miriam Dalli, b'32, mhux elett/a.",
		},
	}, {
		name: "a tie for the lowest place nothing settles",
		nt:   []int{0, 0, 0, 1},
		rows: [][]int{{40, 34, 34, 34}, {25, 26, 32, 33}, {12, 14, 17, 32}, {11, 12, 0, 0}, {12, 14, 17, 0}},
	}, {
		name: "a tie for the last seat settled by the earlier counts",
		nt:   []int{0, 0, 0},
		rows: [][]int{{40, 34, 34}, {28, 30, 33}, {27, 30, 33}, {5, 6, 0}},
		story: []string{
			"Owen Bonnici, Clint Calleja, Francine Farrugia, Gianluca Cutajar, Jean Claude Micallef and 11 others, all with no vote, excluded with 6 votes between them: Bernard Grech +3, Miriam Dalli +3; none became non-transferable. Bernard Grech and Miriam Dalli are tied at 33 for the last seat; Bernard Grech, with more votes at count 1 (28 against 27), takes it. Bernard Grech is elected without reaching the quota: no surplus is left, and of the 2 candidates still in the count the highest takes the last seat; Miriam Dalli, with 33, is not elected.",
			"Owen Bonnici, Clint Calleja, Francine Farrugia, Gianluca Cutajar, Jean Claude Micallef u 11 kandidat ieħor, kollha bla ebda vot, eliminati b'6 voti bejniethom: Bernard Grech +3, Miriam Dalli +3; il-voti kollha ġew trasferiti. Bernard Grech u Miriam Dalli huma ndaqs għall-aħħar siġġu, bl-istess total ta' 33; is-siġġu jmur għand Bernard Grech, b'aktar voti fl-għadd 1 (28 kontra 27). Bernard Grech: elett/a mingħajr il-kwota, għax ma fadal l-ebda surplus u, minn 2 kandidati li għadhom fl-għadd, l-ogħla jieħu l-aħħar siġġu; Miriam Dalli, b'33, mhux elett/a.",
		},
	}, {
		name: "a tie for the last seat decided by lot",
		nt:   []int{0, 0, 0},
		rows: [][]int{{40, 34, 34}, {28, 30, 33}, {28, 30, 33}, {4, 6, 0}},
		edit: lot(3, 2),
		story: []string{
			"Owen Bonnici, Clint Calleja, Francine Farrugia, Gianluca Cutajar, Jean Claude Micallef and 11 others, all with no vote, excluded with 6 votes between them: Bernard Grech +3, Miriam Dalli +3; none became non-transferable. Miriam Dalli and Bernard Grech are tied at 33 for the last seat; by lot, Miriam Dalli takes it. Miriam Dalli is elected without reaching the quota: no surplus is left, and of the 2 candidates still in the count the highest takes the last seat; Bernard Grech, with 33, is not elected.",
			"Owen Bonnici, Clint Calleja, Francine Farrugia, Gianluca Cutajar, Jean Claude Micallef u 11 kandidat ieħor, kollha bla ebda vot, eliminati b'6 voti bejniethom: Bernard Grech +3, Miriam Dalli +3; il-voti kollha ġew trasferiti. Miriam Dalli u Bernard Grech huma ndaqs għall-aħħar siġġu, bl-istess total ta' 33; bix-xorti, is-siġġu jmur għand Miriam Dalli. Miriam Dalli: elett/a mingħajr il-kwota, għax ma fadal l-ebda surplus u, minn 2 kandidati li għadhom fl-għadd, l-ogħla jieħu l-aħħar siġġu; Bernard Grech, b'33, mhux elett/a.",
		},
	}, {
		name: "the sheet ends with a seat unfilled, which the highest took as published",
		nt:   []int{0, 1, 1},
		rows: [][]int{{40, 34, 34}, {28, 31, 32}, {20, 21, 22}, {7, 8, 11}, {5, 5, 0}},
		edit: published("Bernard Grech"),
		story: []string{
			"Stefan Zrinzo Azzopardi, Clint Calleja, Francine Farrugia, Gianluca Cutajar, Jean Claude Micallef and 10 others, all with no vote, excluded with 5 votes between them: Owen Bonnici +3, Bernard Grech +1, Miriam Dalli +1; none became non-transferable. The sheet ends here with one seat unfilled; as published, Bernard Grech takes it.",
			"Stefan Zrinzo Azzopardi, Clint Calleja, Francine Farrugia, Gianluca Cutajar, Jean Claude Micallef u 10 kandidati oħra, kollha bla ebda vot, eliminati b'5 voti bejniethom: Owen Bonnici +3, Bernard Grech +1, Miriam Dalli +1; il-voti kollha ġew trasferiti. Il-folja tieqaf hawn u fadal siġġu wieħed x'jimtela; kif ippubblikat, imur għand Bernard Grech.",
		},
	}, {
		name:  "two seats unfilled, as published, not the two highest",
		seats: 3,
		nt:    []int{0, 0},
		rows:  [][]int{{40, 26}, {20, 23}, {18, 21}, {12, 16}, {10, 14}},
		edit:  published("Bernard Grech", "Owen Bonnici"),
		story: []string{
			"Robert Abela's surplus of 14 votes transferred: Owen Bonnici +4, Stefan Zrinzo Azzopardi +4, Bernard Grech +3, …; none became non-transferable. The sheet ends here with 2 seats unfilled; as published, Bernard Grech and Owen Bonnici take them.",
			"Is-surplus ta' Robert Abela ta' 14 vot ġie trasferit: Owen Bonnici +4, Stefan Zrinzo Azzopardi +4, Bernard Grech +3, …; il-voti kollha ġew trasferiti. Il-folja tieqaf hawn u fadal 2 siġġijiet x'jimtlew; kif ippubblikat, imorru għand Bernard Grech u Owen Bonnici.",
		},
	}, {
		name:  "one of two seats unfilled, as published",
		seats: 3,
		nt:    []int{0, 0},
		rows:  [][]int{{40, 26}, {20, 23}, {18, 21}, {12, 16}, {10, 14}},
		edit:  published("Miriam Dalli"),
		story: []string{
			"Robert Abela's surplus of 14 votes transferred: Owen Bonnici +4, Stefan Zrinzo Azzopardi +4, Bernard Grech +3, …; none became non-transferable. The sheet ends here with 2 seats unfilled; as published, Miriam Dalli takes one of them.",
			"Is-surplus ta' Robert Abela ta' 14 vot ġie trasferit: Owen Bonnici +4, Stefan Zrinzo Azzopardi +4, Bernard Grech +3, …; il-voti kollha ġew trasferiti. Il-folja tieqaf hawn u fadal 2 siġġijiet x'jimtlew; kif ippubblikat, wieħed minnhom imur għand Miriam Dalli.",
		},
	}, {
		name:  "two of three seats unfilled, as published",
		seats: 4,
		nt:    []int{0, 14},
		rows:  [][]int{{40, 21}, {18, 19}, {16, 17}, {12, 13}, {8, 9}, {6, 7}},
		edit:  published("Bernard Grech", "Stefan Zrinzo Azzopardi"),
	}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m := datasettest.Files(t)
			datasettest.Synthetic(t, m, cmp.Or(tt.seats, 2), tt.nt, tt.rows...)
			if tt.edit != nil {
				tt.edit(m)
			}
			ds, err := dataset.Load(m)
			if err != nil {
				t.Fatal(err)
			}
			sh, _ := ds.Sheet(5)
			checkStory(t, ds, sh)
			for i, want := range tt.story {
				s := &Site{ds: ds, lang: []*Lang{English, Maltese}[i]}
				v := s.newCountView(sh)
				if got := v.Story[len(v.Story)-1].Text; got != want {
					t.Errorf("the last count, %s:\n got %q\nwant %q", s.lang.Code, got, want)
				}
			}
		})
	}
}
