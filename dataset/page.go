package dataset

import (
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
	stoodIn  int    // the stood_in filter's number; 0 for none
	elected  int8   // electedTrue, electedFalse or electedAny
	q        string // the q filter, trimmed; "" for none
}

// start is the position in the result's list of its first record: the
// offset, but for a list that holds only the page.
func (r Result) start() int {
	if r.filtered {
		return 0
	}
	return r.offset
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
	return len(r.list.ends)
}

// Offset is the number of matching records before the first of the result.
func (r Result) Offset() int { return r.offset }

// Next returns the offset of the page after this one, and whether records
// remain after this one for it to hold.
func (r Result) Next() (int, bool) {
	next := r.offset + r.n
	return next, r.d != nil && next < r.Total()
}

// AppendNextQuery appends the query string of the page after this one: the
// filters in canonical form (a district by number, a party by slug), the
// limit and the next offset, as in "district=5&party=pn&limit=100&offset=100",
// with the readers' filters after party (q escaped). Numbers and slugs need
// no escaping in a URL.
func (r Result) AppendNextQuery(dst []byte) []byte {
	next, _ := r.Next()
	dst = r.AppendFilterQuery(dst)
	dst = append(dst, "limit="...)
	dst = strconv.AppendInt(dst, int64(r.limit), 10)
	dst = append(dst, "&offset="...)
	return strconv.AppendInt(dst, int64(next), 10)
}

// AppendFilterQuery appends the candidates' filters of the answer as a
// query string in canonical form, each ended by "&" (a district by number,
// a party by slug, q trimmed and escaped), as in "district=5&party=pn&q=ab&";
// nothing for an answer with no filter. The same filters in any other form
// give the same bytes: a page's cache key, or the link to the same rows
// elsewhere (/candidates.csv?…).
func (r Result) AppendFilterQuery(dst []byte) []byte {
	if r.d == nil {
		return dst
	}
	if r.district > 0 {
		dst = append(dst, "district="...)
		dst = strconv.AppendInt(dst, int64(r.district), 10)
		dst = append(dst, '&')
	}
	if r.party > 0 {
		dst = append(dst, "party="...)
		dst = append(dst, r.d.parties[r.party-1].Slug...)
		dst = append(dst, '&')
	}
	return r.appendReadersQuery(dst)
}

// appendPageMeta appends the keys of meta that follow count: total, and
// for a page its limit, offset and filters, as in
// ,"total":19,"limit":2,"offset":0,"filters":{"district":{…},"party":null,
// "stood_in":null,"elected":true,"q":null}.
func (r Result) appendPageMeta(dst []byte) []byte {
	dst = append(dst, `,"total":`...)
	dst = strconv.AppendInt(dst, int64(r.Total()), 10)
	if r.d == nil {
		return dst
	}
	dst = append(dst, `,"limit":`...)
	dst = strconv.AppendInt(dst, int64(r.limit), 10)
	dst = append(dst, `,"offset":`...)
	dst = strconv.AppendInt(dst, int64(r.offset), 10)
	dst = append(dst, `,"filters":{"district":`...)
	dst = append(dst, r.d.districtFilters[r.district]...)
	dst = append(dst, `,"party":`...)
	dst = r.d.appendPartyFilter(dst, r.party)
	dst = r.appendReadersMeta(dst)
	return append(dst, '}')
}

// pageRecords is the records of a page, without the envelope: a slice of
// the list's prepared bytes.
func (r Result) pageRecords() []byte {
	if r.n == 0 {
		return nil
	}
	start := r.start()
	if start == 0 {
		return r.list.data[len(envelopeStart):r.list.end(r.n)]
	}
	return r.list.data[r.list.end(start)+1 : r.list.end(start+r.n)] // +1: past the comma
}

// pageETag is the ETag of a candidates answer whose list and count do not
// imply the rest of its body: a page past the first, a limit other than the
// default above the count, or no record at all (every empty filter shares
// one list). It names the count, limit, filters and offset. The first
// pages' tags are prepared at load; preparing one for every offset, limit
// and count would take memory the cube of the list's length.
func (r Result) pageETag() string {
	tag := r.list.etags[0]
	tag = tag[:len(tag)-2] // without "0" and the closing quote
	return tag + strconv.Itoa(r.n) + "-l" + strconv.Itoa(r.limit) + "-d" + strconv.Itoa(r.district) +
		"-p" + strconv.Itoa(r.party) + "@" + strconv.Itoa(r.offset) + `"`
}

// prepareFilters encodes, for meta.filters, each district as the district
// filter echoes it ({"number":5,"id":"…"}); index 0, no filter, is null.
// A party is encoded on request (appendPartyFilter): there are 13
// districts, but there may be many parties.
func (d *Dataset) prepareFilters() {
	d.districtFilters = make([]string, DistrictCount+1)
	d.districtFilters[0] = "null"
	for _, dist := range d.districts {
		d.districtFilters[dist.Number] = string(encodeRecord(struct {
			Number int    `json:"number"`
			ID     string `json:"id"`
		}{dist.Number, dist.ID}))
	}
}

// appendPartyFilter appends the party filter p (as in candidateKey) as
// meta.filters echoes it, {"slug":"pn","id":"…"}, or null for none.
func (d *Dataset) appendPartyFilter(dst []byte, p int) []byte {
	if p == 0 {
		return append(dst, "null"...)
	}
	party := &d.parties[p-1]
	dst = append(dst, `{"slug":`...)
	dst = appendJSONString(dst, party.Slug)
	dst = append(dst, `,"id":`...)
	dst = appendJSONString(dst, party.ID)
	return append(dst, '}')
}

// appendJSONString appends s as EncodeJSON encodes it: as it is, quoted,
// when it holds only printable ASCII other than quote and backslash (every
// slug and UUID), through the encoder otherwise.
func appendJSONString(dst []byte, s string) []byte {
	for i := range len(s) {
		if c := s[i]; c < 0x20 || c > 0x7e || c == '"' || c == '\\' {
			return append(dst, encodeRecord(s)...)
		}
	}
	dst = append(dst, '"')
	dst = append(dst, s...)
	return append(dst, '"')
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
