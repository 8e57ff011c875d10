package dataset

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"strconv"
)

// A candidates answer is one page of a prepared list: the records from an
// offset on, at most the limit of them. Its meta says what the request was
// understood to ask (the limit, the offset and the filters, each filter in
// its canonical form) and how many records match (total), so that a client
// knows what the limit left out. The other collections are not paged: their
// meta carries total too, equal to count, so every envelope has it.

// page is what a candidates answer says of itself besides its records. The
// zero page is an answer that is not paged.
type page struct {
	d        *Dataset // nil: the collection is not paged
	offset   int      // records of the list before the first of the answer
	limit    int      // the limit applied
	district int      // the district filter's number; 0 for none
	party    int      // the party filter, as in candidateKey: index+1; 0 for none
	// With readers' filters (filter.go) the list holds the page's records
	// alone, matched of all that match.
	filtered bool
	matched  int
	stoodIn  int     // the stood_in filter's number; 0 for none
	elected  Elected // ElectedTrue, ElectedFalse or ElectedAny
	q        string  // the q filter, trimmed; "" for none
}

// Total is the number of records matching the query's filters, before the
// limit and offset.
func (r Result) Total() int {
	switch {
	case r.d == nil:
		return r.n
	case r.filtered:
		return r.matched
	}
	return len(r.list.Pos)
}

// Offset is the number of matching records before the first of the result.
func (r Result) Offset() int { return r.offset }

// Next returns the offset of the page after this one, and whether records
// remain after this one for it to hold.
func (r Result) Next() (int, bool) {
	next := r.offset + r.n
	return next, r.d != nil && next < r.Total()
}

// Paged reports whether the result is a page of candidates, whose meta
// says its limit, offset and filters: the other collections, and one
// record, are not paged.
func (r Result) Paged() bool { return r.d != nil }

// Filtered reports whether the result is a page of readers' filters
// (stood_in, elected, q): its records are picked one by one of all that
// match (Index), not a run of a prepared list.
func (r Result) Filtered() bool { return r.filtered }

// Limit is the limit applied to a page.
func (r Result) Limit() int { return r.limit }

// Filters are the filters of a candidates query as understood, each in
// its canonical form: what meta.filters echoes and the next page's link
// names.
type Filters struct {
	// District and StoodIn are district numbers; 0 for none.
	District, StoodIn int
	// Party is the party's index in Parties plus one; 0 for none.
	Party   int
	Elected Elected
	// Q is the text asked for, trimmed; "" for none.
	Q string
}

// ReadersTag names the readers' filters stood_in, elected and q in a tag
// of the answer or the download they select: q by a hash of the text the
// bytes depend on (as asked, where the answer echoes it; folded, where
// only the rows depend on it).
func ReadersTag(stoodIn int, elected Elected, q string) string {
	h := sha256.Sum256([]byte(q))
	return "-s" + strconv.Itoa(stoodIn) + "-e" + strconv.Itoa(int(elected)) + "-q" + hex.EncodeToString(h[:8])
}

// Filters returns the page's filters.
func (r Result) Filters() Filters {
	return Filters{District: r.district, StoodIn: r.stoodIn, Party: r.party, Elected: r.elected, Q: r.q}
}

// checkOffset reads the offset parameter: decimal digits from 0 to total,
// the number of records matching the filters, and 0 when absent. When the
// filters were refused, total is unknown, and only the form is checked.
func checkOffset(p Params, filtersOK bool, total int, refuse func(name, reason string)) int {
	v, ok := single(p, "offset", refuse)
	if !ok {
		return 0
	}
	n, isNumber := decimal(v)
	switch {
	case !filtersOK && (!isNumber || n < 0):
		refuse("offset", "must be an integer from 0 to the number of candidates matching the filters")
	case filtersOK && (!isNumber || n < 0 || n > total):
		refuse("offset", fmt.Sprintf("must be an integer from 0 to %d, the number of candidates matching the filters", total))
	}
	return max(n, 0)
}
