// Package suggest holds the project's one "did you mean": one distance
// between two strings, the name one slip away from a misspelt identifier
// (a JSON field, a TOML key, a CSV column, a flag, a slug), the names
// nearest what a person typed (a locality, a party or district in a
// sheet, a candidate's name), and the "a, b or c" list a message offers
// them in, with the words that offer them (Offer).
//
// It compares the strings it is given, rune by rune: callers fold them
// first (dataset.Fold, dataset.Slugify), so that accents and letter case
// do not count. It imports nothing of the project: dataset, dataset/sheet,
// server/pages and commands import it, and it must import none of them.
package suggest

import (
	"iter"
	"slices"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Distance is the number of runes to insert, delete or replace, or of
// neighbouring runes to swap, to turn a into b (the optimal string
// alignment distance, Damerau's variant of Levenshtein's): the one measure
// of every "did you mean" of the project.
func Distance(a, b string) int {
	var m measure
	ra, rb := []rune(a), []rune(b)
	return m.distance(ra, rb, max(len(ra), len(rb)))
}

// Best returns the first of names at the least distance from s, at most
// within, or "" when none is that near. A name equal to s is not
// suggested, nor any for an s that holds anything but ASCII: the names are
// identifiers, and a key with a letter no identifier has, or an invisible
// character such as a byte-order mark, is better shown as the unknown key
// it is than hidden behind a name that looks the same. With within 1 it
// is the name that s misspells by one slip of the hand, which is how
// identifiers are suggested: any further, and s may well be the name of
// something else.
func Best(s string, names iter.Seq[string], within int) string {
	if !isASCII(s) {
		return ""
	}
	var m measure
	rs := []rune(s)
	best, bestD := "", within+1
	for name := range names {
		m.b = appendRunes(m.b[:0], name)
		if d := m.distance(rs, m.b, bestD-1); d > 0 && d < bestD {
			best, bestD = name, d
			if d == 1 {
				break // no name is nearer but s itself
			}
		}
	}
	return best
}

func isASCII(s string) bool {
	for i := range len(s) {
		if s[i] >= utf8.RuneSelf {
			return false
		}
	}
	return true
}

// Near begins a ranking of the items nearest key, a name a person typed,
// folded as the names Add is given are.
//
// A name is near when it is within a few edits of key, fewer for a short
// word than a long one: one edit when the shorter of the two has up to 4
// runes, two up to 8, a third of its runes beyond, and at most 8. A name
// that begins with a key of 3 runes or more, or that holds key as whole
// words, or is held whole in it ("hal-ghaxaq" holds the locality
// "ghaxaq"), counts as one edit away, however long the rest.
func Near(key string) *Ranking {
	return &Ranking{key: key, runes: []rune(key), at: map[int]int{}}
}

// A Ranking gathers the items near a key, each by the nearest of its
// names. Near makes one.
type Ranking struct {
	key   string
	runes []rune
	found []ranked
	at    map[int]int // item -> its place in found
	m     measure
}

type ranked struct{ item, distance int }

// bound is how many edits apart two names of n and m runes may be and
// still be near. It grows with the shorter name, but stops at 8: further
// than that is no slip of the hand, and the stop keeps measuring a long
// key linear in its length.
func bound(n, m int) int {
	switch shorter := min(n, m); {
	case shorter > 8:
		return min(shorter/3, 8)
	case shorter > 4:
		return 2
	}
	return 1
}

// Add considers item by one of its names.
func (r *Ranking) Add(item int, name string) { r.add(item, name, true) }

// AddPart considers item by a part of its name, a given or a family
// name, as Add does, except that a key holding the part whole is no nearer
// for it: the key may as well name someone else of that given or family
// name.
func (r *Ranking) AddPart(item int, part string) { r.add(item, part, false) }

func (r *Ranking) add(item int, name string, whole bool) {
	if r.key == "" || name == "" {
		return
	}
	r.m.b = appendRunes(r.m.b[:0], name)
	limit := bound(len(r.runes), len(r.m.b))
	d := r.m.distance(r.runes, r.m.b, limit)
	if len(r.runes) >= 3 && strings.HasPrefix(name, r.key) || holdsWords(name, r.key) || whole && holdsWords(r.key, name) {
		d = min(d, 1)
	}
	if d > limit {
		return
	}
	if i, ok := r.at[item]; ok {
		r.found[i].distance = min(r.found[i].distance, d)
		return
	}
	r.at[item] = len(r.found)
	r.found = append(r.found, ranked{item, d})
}

// Nearest returns up to n of the items added, the nearest first, and
// those as near in the order of their numbers.
func (r *Ranking) Nearest(n int) []int {
	slices.SortFunc(r.found, func(a, b ranked) int {
		if a.distance != b.distance {
			return a.distance - b.distance
		}
		return a.item - b.item
	})
	var items []int
	for _, f := range r.found[:min(n, len(r.found))] {
		items = append(items, f.item)
	}
	return items
}

// List joins items as a sentence lists them, with conj ("or", "and")
// before the last: "a", "a or b", "a, b or c"; "" for none.
func List(items []string, conj string) string {
	if len(items) <= 1 {
		return strings.Join(items, "")
	}
	return strings.Join(items[:len(items)-1], ", ") + " " + conj + " " + items[len(items)-1]
}

// Offer is how a message offers the names it suggests, after what was
// wrong: " (did you mean a, b or c?)", or "" for none.
func Offer(names ...string) string {
	if len(names) == 0 {
		return ""
	}
	return " (did you mean " + List(names, "or") + "?)"
}

// OfferClause is how an API's problem detail offers them, as a clause of
// its own: "; did you mean a, b or c?", or "" for none.
func OfferClause(names ...string) string {
	if len(names) == 0 {
		return ""
	}
	return "; did you mean " + List(names, "or") + "?"
}

// Quoted is name as Offer shows an identifier (a key, a column, a flag, a
// slug), quoted as Go quotes a string, or none for "": what Best returns
// made ready for Offer.
func Quoted(name string) []string {
	if name == "" {
		return nil
	}
	return []string{strconv.Quote(name)}
}

// holdsWords reports whether s holds w as whole words: equal, or bounded
// by the ends or by anything but letters and digits ("mosta-dam" holds
// "mosta", "robert abela" holds "abela").
func holdsWords(s, w string) bool {
	if w == "" {
		return false
	}
	for i := 0; ; {
		j := strings.Index(s[i:], w)
		if j < 0 {
			return false
		}
		start, end := i+j, i+j+len(w)
		if boundary(s[:start], s[end:]) {
			return true
		}
		i = start + 1
	}
}

// boundary reports whether a word may end at the end of before, or begin
// at the start of after.
func boundary(before, after string) bool {
	r, _ := utf8.DecodeLastRuneInString(before)
	if before != "" && (unicode.IsLetter(r) || unicode.IsDigit(r)) {
		return false
	}
	r, _ = utf8.DecodeRuneInString(after)
	return after == "" || !unicode.IsLetter(r) && !unicode.IsDigit(r)
}

func appendRunes(dst []rune, s string) []rune {
	for _, r := range s {
		dst = append(dst, r)
	}
	return dst
}

// measure holds the rows of a distance's table, reused from one name to
// the next, and a name's runes.
type measure struct {
	b                []rune
	prev2, prev, cur []int
}

// distance is the distance of a and b when it is at most limit, and
// limit+1 otherwise. Only the cells within limit of the diagonal are
// worked out, so a name far longer or shorter than the key costs nothing
// and a near one a few steps per rune: client input is measured against
// every slug of a dataset.
func (m *measure) distance(a, b []rune, limit int) int {
	if len(a) > len(b) {
		a, b = b, a
	}
	if len(b)-len(a) > limit {
		return limit + 1
	}
	if len(a) == 0 {
		return len(b)
	}
	far := limit + 1
	width := len(b) + 1
	m.prev2 = grow(m.prev2, width)
	m.prev = grow(m.prev, width)
	m.cur = grow(m.cur, width)
	for j := range width {
		m.prev[j] = min(j, far)
	}
	for i := 1; i <= len(a); i++ {
		lo, hi := max(1, i-limit), min(len(b), i+limit)
		m.cur[lo-1] = far
		if lo == 1 {
			m.cur[0] = min(i, far)
		}
		best := far
		for j := lo; j <= hi; j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			d := min(m.prev[j-1]+cost, m.prev[j]+1, m.cur[j-1]+1)
			if i > 1 && j > 1 && a[i-1] == b[j-2] && a[i-2] == b[j-1] {
				d = min(d, m.prev2[j-2]+1)
			}
			d = min(d, far)
			m.cur[j] = d
			best = min(best, d)
		}
		if hi < len(b) {
			m.cur[hi+1] = far
		}
		if best == far {
			return far
		}
		m.prev2, m.prev, m.cur = m.prev, m.cur, m.prev2
	}
	return m.prev[len(b)]
}

func grow(s []int, n int) []int {
	if cap(s) < n {
		return make([]int, n)
	}
	return s[:n]
}
