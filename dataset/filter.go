package dataset

import (
	"crypto/sha256"
	"encoding/hex"
	"net/url"
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
)

func isLetterOrDigit(r rune) bool { return unicode.IsLetter(r) || unicode.IsDigit(r) }

// elected filter values, as page.elected holds them.
const (
	electedAny   = 0
	electedTrue  = 1
	electedFalse = 2
)

// candidateFacts is what the readers' filters read of one candidate.
type candidateFacts struct {
	stood   uint32 // bit n set: district n is among district_ids
	elected int8   // electedTrue, electedFalse, or electedAny for null
}

// nameIndex holds every candidate's name, given name and family name,
// folded, in published order: each candidate's three names end with a NUL,
// and starts[i] is where candidate i's begin, with a last entry for the
// end. pairs lists, for each pair of adjacent bytes of a name, the
// candidates whose names hold it, in published order: a search reads the
// list of the text's rarest pair and checks only those candidates. A
// scan of the whole text instead costs a call for every byte that starts
// the text, common letters for a name: about 0.5 ms on 20,000 candidates.
type nameIndex struct {
	text   string
	starts []int
	pairs  map[uint16][]int32
}

// names returns candidate i's folded names, each ended by a NUL.
func (n *nameIndex) names(i int) string { return n.text[n.starts[i]:n.starts[i+1]] }

const nameSep = "\x00"

// indexFilters prepares the facts the readers' filters read, once per
// load, after the candidates are in published order.
func (d *Dataset) indexFilters() {
	d.facts = make([]candidateFacts, len(d.candidates))
	var b strings.Builder
	starts := make([]int, 0, len(d.candidates)+1)
	for i, c := range d.candidates {
		f := candidateFacts{elected: electedAny}
		for _, id := range c.DistrictIDs {
			if n, ok := d.districtByID[id]; ok {
				f.stood |= 1 << n
			}
		}
		if c.Elected != nil {
			f.elected = electedFalse
			if *c.Elected {
				f.elected = electedTrue
			}
		}
		d.facts[i] = f
		starts = append(starts, b.Len())
		for _, name := range [...]string{c.Name, c.GivenName, c.FamilyName} {
			b.WriteString(Fold(name))
			b.WriteString(nameSep)
		}
	}
	d.names = nameIndex{text: b.String(), starts: append(starts, b.Len()), pairs: map[uint16][]int32{}}
	for i := range d.candidates {
		names := d.names.names(i)
		for j := 0; j+1 < len(names); j++ {
			if names[j] == nameSep[0] || names[j+1] == nameSep[0] {
				continue
			}
			pair := uint16(names[j])<<8 | uint16(names[j+1])
			if l := d.names.pairs[pair]; len(l) == 0 || l[len(l)-1] != int32(i) {
				d.names.pairs[pair] = append(l, int32(i))
			}
		}
	}
}

// readersFilters are the readers' filters of a query, as understood.
type readersFilters struct {
	stoodIn int    // a district number; 0 for none
	elected int8   // electedTrue, electedFalse or electedAny
	q       string // the text asked for, trimmed; "" for none
}

func (f readersFilters) any() bool { return f.stoodIn > 0 || f.elected != electedAny || f.q != "" }

// parseReadersFilters reads stood_in, elected and q, refusing each bad
// value by name.
func (d *Dataset) parseReadersFilters(p Params, refuse func(name, reason string)) readersFilters {
	var f readersFilters
	if v, ok := single(p, "stood_in", refuse); ok {
		if n, reason := d.districtNumber(v); reason != "" {
			refuse("stood_in", reason)
		} else {
			f.stoodIn = n
		}
	}
	if v, ok := single(p, "elected", refuse); ok {
		switch v {
		case "true":
			f.elected = electedTrue
		case "false":
			f.elected = electedFalse
		default:
			refuse("elected", reasonElected)
		}
	}
	if v, ok := single(p, "q", refuse); ok {
		q := strings.TrimSpace(v)
		if n := utf8.RuneCountInString(q); !utf8.ValidString(q) || n < MinQ || n > MaxQ {
			refuse("q", reasonQ)
		} else if strings.IndexFunc(Fold(q), isLetterOrDigit) < 0 {
			// Marks alone fold to nothing, which every name holds.
			refuse("q", reasonQLetter)
		} else {
			f.q = q
		}
	}
	return f
}

// districtNumber reads a district filter's value, a number from 1 to 13 or
// a district UUID in any letter case, or says why it is refused.
func (d *Dataset) districtNumber(v string) (int, string) {
	if n, isNumber := decimal(v); isNumber {
		if n < 1 || n > DistrictCount {
			return 0, reasonDistrict
		}
		return n, ""
	}
	if isUUID(v) {
		if n, found := d.districtByID[strings.ToLower(v)]; found {
			return n, ""
		}
		return 0, "names no published district; " + reasonDistrict
	}
	return 0, reasonDistrict
}

// match returns the positions, in published order, of the candidates of
// the prepared list l that pass the readers' filters.
func (d *Dataset) match(l *list, f readersFilters) []int32 {
	keep := func(ci int) bool {
		facts := d.facts[ci]
		return (f.stoodIn == 0 || facts.stood&(1<<f.stoodIn) != 0) &&
			(f.elected == electedAny || facts.elected == f.elected)
	}
	var out []int32
	if f.q == "" {
		for _, ci := range l.pos {
			if keep(int(ci)) {
				out = append(out, ci)
			}
		}
		return out
	}
	fq := Fold(f.q)
	if strings.Contains(fq, nameSep) {
		return nil // no name holds the separator
	}
	// The candidates to check: those holding the text's rarest pair of
	// bytes, or, for a text folded to fewer than two bytes (marks alone),
	// the whole list.
	candidates := l.pos
	for j := 0; j+1 < len(fq); j++ {
		if c := d.names.pairs[uint16(fq[j])<<8|uint16(fq[j+1])]; j == 0 || len(c) < len(candidates) {
			candidates = c
		}
	}
	// Both ascend: the list's positions are searched from the last found.
	pos := l.pos
	for _, ci := range candidates {
		j, inList := slices.BinarySearch(pos, ci)
		pos = pos[j:]
		if inList && keep(int(ci)) && strings.Contains(d.names.names(int(ci)), fq) {
			out = append(out, ci)
		}
	}
	return out
}

// queryFiltered answers a candidates query with readers' filters: the
// page of the matching records, from offset, at most limit of them.
func (d *Dataset) queryFiltered(f readersFilters, pg page, matches []int32) Result {
	all := d.allCandidates()
	shown := matches[pg.offset:min(len(matches), pg.offset+pg.limit)]
	pl := &list{tag: "f"}
	pl.data = append(make([]byte, 0, 512*len(shown)), envelopeStart...)
	for _, ci := range shown {
		pl.add(Result{list: all, n: len(all.ends)}.Record(int(ci)), int(ci))
	}
	pg.filtered = true
	pg.matched = len(matches)
	pg.stoodIn, pg.elected, pg.q = f.stoodIn, f.elected, f.q
	return Result{list: pl, n: len(shown), page: pg}
}

// filteredETag is the ETag of an answer with readers' filters: the
// dataset version, every filter (q by a hash), the limit, the offset and
// the count.
func (r Result) filteredETag() string {
	h := sha256.Sum256([]byte(r.q))
	return `W/"` + r.d.Version[:16] + "-" + answerFormat + "r" + strconv.Itoa(r.n) +
		"-l" + strconv.Itoa(r.limit) + "-d" + strconv.Itoa(r.district) + "-p" + strconv.Itoa(r.party) +
		"-s" + strconv.Itoa(r.stoodIn) + "-e" + strconv.Itoa(int(r.elected)) + "-q" + hex.EncodeToString(h[:8]) +
		"@" + strconv.Itoa(r.offset) + `"`
}

// appendReadersQuery appends the readers' filters in canonical form, each
// followed by "&", for the next page's query string.
func (r Result) appendReadersQuery(dst []byte) []byte {
	if r.stoodIn > 0 {
		dst = append(dst, "stood_in="...)
		dst = strconv.AppendInt(dst, int64(r.stoodIn), 10)
		dst = append(dst, '&')
	}
	switch r.elected {
	case electedTrue:
		dst = append(dst, "elected=true&"...)
	case electedFalse:
		dst = append(dst, "elected=false&"...)
	}
	if r.q != "" {
		dst = append(dst, "q="...)
		dst = append(dst, url.QueryEscape(r.q)...)
		dst = append(dst, '&')
	}
	return dst
}

// appendReadersMeta appends meta.filters' stood_in, elected and q, each
// null when not asked for.
func (r Result) appendReadersMeta(dst []byte) []byte {
	dst = append(dst, `,"stood_in":`...)
	dst = append(dst, r.d.districtFilters[r.stoodIn]...)
	dst = append(dst, `,"elected":`...)
	switch r.elected {
	case electedTrue:
		dst = append(dst, "true"...)
	case electedFalse:
		dst = append(dst, "false"...)
	default:
		dst = append(dst, "null"...)
	}
	dst = append(dst, `,"q":`...)
	if r.q == "" {
		return append(dst, "null"...)
	}
	return append(dst, encodeRecord(r.q)...)
}
