package dataset

import (
	"slices"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"
)

// The readers' filters on candidates: stood_in (a district among a
// candidate's district_ids), elected (true or false) and q (a name search).
// The contract's district and party filters have a prepared list for each
// pair of values; the readers' filters are applied to that list when asked,
// over facts prepared at load: each candidate's districts as a bit set, its
// result, and its names folded once into one searchable string. The answer
// holds the page's records only, copied from the prepared records.

// The limits of q, in characters, spaces at either end not counted.
const (
	MinQ = 2
	MaxQ = 100
)

// Reasons for refusing a reader's filter.
const (
	reasonElected = "must be true or false"
	reasonQ       = "must be text of 2 to 100 characters, spaces at either end not counted"
	reasonQLetter = "must hold a letter or a digit"
	reasonQNeeded = "is required: the text to look for in the names, of 2 to 100 characters"
)

func isLetterOrDigit(r rune) bool { return unicode.IsLetter(r) || unicode.IsDigit(r) }

// Elected is the elected filter's value.
type Elected int8

// The elected filter's values: none, true and false.
const (
	ElectedAny Elected = iota
	ElectedTrue
	ElectedFalse
)

// candidateFacts is what the readers' filters read of one candidate.
type candidateFacts struct {
	stood   uint32  // bit n set: district n is among district_ids
	elected Elected // ElectedTrue, ElectedFalse, or ElectedAny for null
}

// NameIndex finds records by a text their names hold, as the candidates'
// q filter does: it holds every record's names folded, in the records'
// order, each name ended by a NUL, and starts[i] is where record i's
// begin, with a last entry for the end. pairs lists, for each pair of
// adjacent bytes of a name, the records whose names hold it, in order: a
// search reads the list of the text's rarest pair and checks only those
// records. A scan of the whole text instead costs a call for every byte
// that starts the text, common letters for a name: about 0.5 ms on 20,000
// candidates. The candidates' q reads one, and so do the people of an
// archive (package archive).
type NameIndex struct {
	text   string
	starts []int
	pairs  map[uint16][]int32
}

// names returns record i's folded names, each ended by a NUL.
func (n *NameIndex) names(i int) string { return n.text[n.starts[i]:n.starts[i+1]] }

const nameSep = "\x00"

// NewNameIndex indexes n records, record i by every name names(i, add)
// gives add, in order.
func NewNameIndex(n int, names func(i int, add func(name string))) NameIndex {
	var b strings.Builder
	starts := make([]int, 0, n+1)
	add := func(name string) {
		b.WriteString(Fold(name))
		b.WriteString(nameSep)
	}
	for i := range n {
		starts = append(starts, b.Len())
		names(i, add)
	}
	ix := NameIndex{text: b.String(), starts: append(starts, b.Len()), pairs: map[uint16][]int32{}}
	for i := range n {
		names := ix.names(i)
		for j := 0; j+1 < len(names); j++ {
			if names[j] == nameSep[0] || names[j+1] == nameSep[0] {
				continue
			}
			pair := uint16(names[j])<<8 | uint16(names[j+1])
			if l := ix.pairs[pair]; len(l) == 0 || l[len(l)-1] != int32(i) {
				ix.pairs[pair] = append(l, int32(i))
			}
		}
	}
	return ix
}

// indexFilters prepares the facts the readers' filters read, once per
// load, after the candidates are in published order.
func (d *Dataset) indexFilters() {
	d.facts = make([]candidateFacts, len(d.candidates))
	for i, c := range d.candidates {
		f := candidateFacts{elected: ElectedAny}
		for _, id := range c.DistrictIDs {
			if n, ok := d.districtByID[id]; ok {
				f.stood |= 1 << n
			}
		}
		if c.Elected != nil {
			f.elected = ElectedFalse
			if *c.Elected {
				f.elected = ElectedTrue
			}
		}
		d.facts[i] = f
	}
	d.names = NewNameIndex(len(d.candidates), func(i int, add func(string)) {
		c := &d.candidates[i]
		add(c.Name)
		add(c.GivenName)
		add(c.FamilyName)
	})
}

// readersFilters are the readers' filters of a query, as understood.
type readersFilters struct {
	stoodIn int     // a district number; 0 for none
	elected Elected // ElectedTrue, ElectedFalse or ElectedAny
	q       string  // the text asked for, trimmed; "" for none
}

func (f readersFilters) any() bool { return f.stoodIn > 0 || f.elected != ElectedAny || f.q != "" }

// parseReadersFilters reads stood_in, elected and q, refusing each bad
// value by name.
func (d *Dataset) parseReadersFilters(p Params, refuse func(name, reason string)) readersFilters {
	f := readersFilters{stoodIn: d.districtParam(p, "stood_in", refuse)}
	if v, ok := single(p, "elected", refuse); ok {
		switch v {
		case "true":
			f.elected = ElectedTrue
		case "false":
			f.elected = ElectedFalse
		default:
			refuse("elected", reasonElected)
		}
	}
	if v, ok := single(p, "q", refuse); ok {
		if q, reason := ParseQ(v); reason != "" {
			refuse("q", reason)
		} else {
			f.q = q
		}
	}
	return f
}

// QParam reads the q parameter of p where a name search is all there is
// to ask (the people's): required, where the candidates' q may be left
// out, and given once; its one value read by ParseQ. A q missing, empty
// or refused is a *ParamError naming q.
func QParam(p Params) (string, error) {
	reason := reasonQNeeded
	switch vs := p["q"]; {
	case len(vs) > 1:
		reason = reasonOnce
	case len(vs) == 1 && vs[0] != "":
		var q string
		if q, reason = ParseQ(vs[0]); reason == "" {
			return q, nil
		}
	}
	return "", &ParamError{Params: []InvalidParam{{Name: "q", Reason: reason}}}
}

// ParseQ reads the value of a q parameter, a name search: the text
// trimmed, or why it is refused ("" when it is not).
func ParseQ(v string) (q, reason string) {
	q = strings.TrimSpace(v)
	if n := utf8.RuneCountInString(q); !utf8.ValidString(q) || n < MinQ || n > MaxQ {
		return "", reasonQ
	}
	if strings.IndexFunc(Fold(q), isLetterOrDigit) < 0 {
		// Marks alone fold to nothing, which every name holds.
		return "", reasonQLetter
	}
	return q, ""
}

// districtParam reads the parameter name, if given, as a district filter
// (districtNumber), refusing a bad value by name: the district's number,
// or 0 when the parameter is absent or refused.
func (d *Dataset) districtParam(p Params, name string, refuse func(name, reason string)) int {
	v, ok := single(p, name, refuse)
	if !ok {
		return 0
	}
	n, reason := d.districtNumber(v)
	if reason != "" {
		refuse(name, reason)
	}
	return n
}

// districtNumber reads a district filter's value, a number from 1 to the
// election's number of districts or a district UUID in any letter case,
// or says why it is refused.
func (d *Dataset) districtNumber(v string) (int, string) {
	if n, isNumber := decimal(v); isNumber {
		if n < 1 || n > len(d.districts) {
			return 0, d.districtReason()
		}
		return n, ""
	}
	if isUUID(v) {
		if n, found := d.districtByID[strings.ToLower(v)]; found {
			return n, ""
		}
		return 0, "names no published district; " + d.districtReason()
	}
	return 0, d.districtReason()
}

// districtReason is why a district filter's value is refused: the values
// it accepts, the districts numbered 1 to their number, as the load
// checks.
func (d *Dataset) districtReason() string {
	return "must be a district number from 1 to " + strconv.Itoa(len(d.districts)) + " or a district UUID"
}

// match returns the positions, in published order, of the candidates of
// the prepared list l that pass the readers' filters.
func (d *Dataset) match(l *List, f readersFilters) []int32 {
	keep := func(ci int) bool {
		facts := d.facts[ci]
		return (f.stoodIn == 0 || facts.stood&(1<<f.stoodIn) != 0) &&
			(f.elected == ElectedAny || facts.elected == f.elected)
	}
	if f.q == "" {
		var out []int32
		for _, ci := range l.Pos {
			if keep(int(ci)) {
				out = append(out, ci)
			}
		}
		return out
	}
	return d.names.Search(f.q, l.Pos, keep)
}

// Search returns, in ascending order, the records among within (their
// indexes, ascending) whose names hold q, a text ParseQ accepted, with
// case, accents and Maltese letters folded, and that keep keeps (nil keeps
// every one).
func (n *NameIndex) Search(q string, within []int32, keep func(i int) bool) []int32 {
	fq := Fold(q)
	if strings.Contains(fq, nameSep) {
		return nil // no name holds the separator
	}
	// The records to check: those holding the text's rarest pair of
	// bytes, or, for a text folded to fewer than two bytes (marks alone),
	// all those within.
	records := within
	for j := 0; j+1 < len(fq); j++ {
		if c := n.pairs[uint16(fq[j])<<8|uint16(fq[j+1])]; j == 0 || len(c) < len(records) {
			records = c
		}
	}
	// Both ascend: within is searched from the last found.
	var out []int32
	pos := within
	for _, i := range records {
		j, inList := slices.BinarySearch(pos, i)
		pos = pos[j:]
		if inList && (keep == nil || keep(int(i))) && strings.Contains(n.names(int(i)), fq) {
			out = append(out, i)
		}
	}
	return out
}

// queryFiltered answers a candidates query with readers' filters: the
// page of the matching records, from offset, at most limit of them.
func queryFiltered(f readersFilters, pg page, matches []int32) Result {
	shown := matches[pg.offset:min(len(matches), pg.offset+pg.limit)]
	pg.filtered = true
	pg.matched = len(matches)
	pg.stoodIn, pg.elected, pg.q = f.stoodIn, f.elected, f.q
	return Result{list: pg.d.allCandidates(), n: len(shown), page: pg, shown: shown}
}
