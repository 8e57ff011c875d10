package dataset

import (
	"fmt"
	"strconv"
	"strings"
	"time"
)

// The candidates' limit parameter: its default and its accepted range.
const (
	DefaultLimit = 100
	MaxLimit     = 500
)

// Params holds a request's query parameters by name, each with every value
// it was given (net/url.Values has this shape).
type Params map[string][]string

// InvalidParam names one query parameter whose value was refused and says
// which values it accepts.
type InvalidParam struct {
	Name   string `json:"name"`
	Reason string `json:"reason"`
}

// ParamError reports every query parameter that was refused.
type ParamError struct {
	Params []InvalidParam
}

// Error is the detail a person reads: each refused parameter and what it
// accepts.
func (e *ParamError) Error() string {
	parts := make([]string, len(e.Params))
	for i, p := range e.Params {
		parts[i] = p.Name + " " + p.Reason
	}
	return strings.Join(parts, "; ")
}

// CollectionError reports a collection name that does not exist.
type CollectionError struct{ Name string }

// Error lists the collections that exist.
func (e *CollectionError) Error() string {
	return fmt.Sprintf("unknown collection %q: use %s", e.Name, CollectionChoice())
}

// Reasons for refusing a parameter; they tell the accepted values.
const (
	reasonLimit    = "must be an integer from 1 to 500"
	reasonDistrict = "must be a district number from 1 to 13 or a district UUID"
	reasonOnce     = "must be given at most once"
)

// Query answers a request for a collection. Parties take no parameters and
// ignore any given; districts take locality (see lookup.go); candidates take
// district, party, the readers' filters stood_in, elected and q (see
// filter.go), limit and offset, as documented in the README. Parameters with an empty value count
// as absent and unknown parameters are ignored. A refused parameter gives a
// *ParamError naming every refused parameter.
func (d *Dataset) Query(c Collection, p Params) (Result, error) {
	switch c {
	case Parties:
		return Result{list: d.partiesList, n: len(d.parties)}, nil
	case Districts:
		return d.queryDistricts(p)
	case Candidates:
		return d.queryCandidates(p)
	}
	return Result{}, &CollectionError{Name: string(c)}
}

func (d *Dataset) queryCandidates(p Params) (Result, error) {
	var bad []InvalidParam
	refuse := func(name, reason string) { bad = append(bad, InvalidParam{name, reason}) }

	f := d.parseCandidateFilters(p, refuse)
	district, party, readers, limit := f.district, f.party, f.readers, DefaultLimit
	filtersOK := len(bad) == 0 // the offset's range is known only then
	if v, ok := single(p, "limit", refuse); ok {
		if n, isNumber := decimal(v); isNumber && n >= 1 && n <= MaxLimit {
			limit = n
		} else {
			refuse("limit", reasonLimit)
		}
	}
	l := d.candidateList(district, party)
	if readers.any() {
		var matches []int32
		if filtersOK {
			matches = d.match(l, readers)
		}
		offset := checkOffset(p, filtersOK, len(matches), refuse)
		if len(bad) > 0 {
			return Result{}, &ParamError{Params: bad}
		}
		return d.queryFiltered(readers, page{d: d, offset: offset, limit: limit, district: district, party: party}, matches), nil
	}
	offset := checkOffset(p, filtersOK, len(l.ends), refuse)
	if len(bad) > 0 {
		return Result{}, &ParamError{Params: bad}
	}
	return Result{list: l, n: min(limit, len(l.ends)-offset), page: page{
		d: d, offset: offset, limit: limit, district: district, party: party,
	}}, nil
}

// candidateFilters are the filters of a candidates query, as understood.
type candidateFilters struct {
	district int // a district number; 0 for none
	party    int // as in candidateKey: index+1; 0 for none
	readers  readersFilters
}

// parseCandidateFilters reads the candidates' filters, refusing each bad
// value by name.
func (d *Dataset) parseCandidateFilters(p Params, refuse func(name, reason string)) candidateFilters {
	var f candidateFilters
	if v, ok := single(p, "district", refuse); ok {
		if n, reason := d.districtNumber(v); reason != "" {
			refuse("district", reason)
		} else {
			f.district = n
		}
	}
	if v, ok := single(p, "party", refuse); ok {
		if i, reason := d.lookupParty(v); reason != "" {
			refuse("party", reason)
		} else {
			f.party = i + 1
		}
	}
	f.readers = d.parseReadersFilters(p, refuse)
	return f
}

// candidateList is the prepared list of a district and a party filter.
func (d *Dataset) candidateList(district, party int) *list {
	if l := d.candidateLists[d.candidateKey(district, party)]; l != nil {
		return l
	}
	return d.emptyList
}

// single returns the one non-empty value of a parameter. A parameter given
// more than once is refused, whatever its values.
func single(p Params, name string, refuse func(name, reason string)) (string, bool) {
	vs := p[name]
	switch {
	case len(vs) > 1:
		refuse(name, reasonOnce)
		return "", false
	case len(vs) == 0 || vs[0] == "":
		return "", false
	}
	return vs[0], true
}

// decimal parses a string of ASCII digits only (no sign, no spaces). Values
// too long to parse are returned as -1, which every range check refuses.
func decimal(s string) (int, bool) {
	if s == "" || strings.Trim(s, "0123456789") != "" {
		return 0, false
	}
	n, err := strconv.Atoi(s)
	if err != nil {
		return -1, true
	}
	return n, true
}

// lookupParty finds a party by slug or UUID in any letter case, or says why
// the value is refused.
func (d *Dataset) lookupParty(v string) (int, string) {
	key := strings.ToLower(v)
	var i int
	var found bool
	switch {
	case isUUID(key):
		i, found = d.partyByID.find(key, d.partyID)
	case slugPattern.MatchString(key):
		i, found = d.partyBySlug.find(key, d.partySlug)
	default:
		return 0, d.partyReason
	}
	if !found {
		return 0, "names no published party; " + d.partyReason
	}
	return i, ""
}

// isUUID reports whether s is a UUID in canonical 8-4-4-4-12 form, in any
// letter case.
func isUUID(s string) bool {
	return len(s) == 36 && uuidPattern.MatchString(strings.ToLower(s))
}

// partyReason names the first slugs in order, from the index of slugs.
func partyReason(bySlug keyIndex, slug func(i int) string) string {
	const shown = 20
	if len(bySlug) == 0 {
		return "must be a party slug or a party UUID, and this dataset has no parties"
	}
	first := make([]string, min(len(bySlug), shown))
	for i := range first {
		first[i] = slug(int(bySlug[i]))
	}
	list := strings.Join(first, ", ")
	if len(bySlug) > shown {
		list += ", …"
	}
	return "must be a party slug (" + list + ") or a party UUID"
}

// Result is the answer to a query, ready to be written: n records of a
// prepared list, from the page's offset on.
type Result struct {
	list *list
	n    int
	page
	// pick, when set, chooses the result's records of list by index: an
	// answer built on request rather than prepared at load.
	pick *picked
}

// picked is an answer of some records of a list, in the order given, not
// prepared at load: one record by its key, or the districts of a locality.
// Its body and gzip encoding are made on request from the records' bytes
// in the list, so the record is held once, in its collection's list.
type picked struct {
	tag  string  // names the answer inside a dataset version, as a list's tag
	etag string  // the ETag of the answer
	at   []int32 // the records' indexes in the list
	one  [1]int32
}

// Count is the number of records in the result.
func (r Result) Count() int { return r.n }

// ETag identifies the result's content: the dataset version, the list, the
// number of records and, for candidates, the limit, offset and filters the
// body echoes (implied by the list and the count where they can be). It is
// weak: the body also carries generatedAt.
func (r Result) ETag() string {
	if r.pick != nil {
		return r.pick.etag
	}
	if r.d == nil {
		return r.list.etag(r.n)
	}
	if r.filtered {
		return r.filteredETag()
	}
	// A candidates answer's body also says its limit, offset and filters:
	// the prepared tags serve where the list and n imply them all.
	if r.offset == 0 && r.list != r.d.emptyList {
		switch r.limit {
		case r.n: // a full page: n is the limit
			return r.list.etag(r.n)
		case DefaultLimit: // the whole list, shorter than the default limit
			return r.list.defaultETag
		}
	}
	return r.pageETag()
}

// etag is the ETag of the first n records of the list.
func (l *list) etag(n int) string {
	if n == len(l.ends) {
		return l.whole
	}
	return l.etags[n]
}

// AppendJSON appends the response body, the envelope
// {"data":[...],"meta":{"count":N,"generatedAt":"..."}} and a newline, to
// dst. The HTTP server and the command line both write bodies through it, so
// their bytes are the same.
func (r Result) AppendJSON(dst []byte, generatedAt time.Time) []byte {
	if r.pick != nil {
		dst = append(dst, envelopeStart...)
		for i := range r.pick.at {
			if i > 0 {
				dst = append(dst, ',')
			}
			dst = append(dst, r.Record(i)...)
		}
		return r.appendTail(dst, generatedAt)
	}
	if r.start() > 0 {
		dst = append(dst, envelopeStart...)
		dst = append(dst, r.pageRecords()...)
	} else {
		dst = append(dst, r.list.data[:r.list.end(r.n)]...)
	}
	return r.appendTail(dst, generatedAt)
}

// appendTail appends what follows the records: the end of data and meta.
func (r Result) appendTail(dst []byte, generatedAt time.Time) []byte {
	dst = append(dst, `],"meta":{"count":`...)
	dst = strconv.AppendInt(dst, int64(r.n), 10)
	dst = r.appendPageMeta(dst)
	dst = append(dst, `,"generatedAt":"`...)
	dst = AppendTime(dst, generatedAt)
	return append(dst, "\"}}\n"...)
}

// AppendTime appends t in TimeFormat, as t.UTC().AppendFormat(dst,
// TimeFormat) does, digit by digit: on every answer, parsing the layout
// costs more than the rest of the tail.
func AppendTime(dst []byte, t time.Time) []byte {
	t = t.UTC()
	year, month, day := t.Date()
	if year < 0 || year > 9999 {
		return t.AppendFormat(dst, TimeFormat)
	}
	hour, minute, second := t.Clock()
	ms := t.Nanosecond() / int(time.Millisecond)
	return append(dst,
		byte('0'+year/1000), byte('0'+year/100%10), byte('0'+year/10%10), byte('0'+year%10), '-',
		byte('0'+month/10), byte('0'+month%10), '-',
		byte('0'+day/10), byte('0'+day%10), 'T',
		byte('0'+hour/10), byte('0'+hour%10), ':',
		byte('0'+minute/10), byte('0'+minute%10), ':',
		byte('0'+second/10), byte('0'+second%10), '.',
		byte('0'+ms/100), byte('0'+ms/10%10), byte('0'+ms%10), 'Z')
}

// TimeFormat is the format of meta.generatedAt: UTC with exactly three
// fractional digits.
const TimeFormat = "2006-01-02T15:04:05.000Z"

// Index returns the position of the result's i-th record in its
// collection's published order: the record is Parties()[Index(i)],
// Districts()[Index(i)] or Candidates()[Index(i)]. The pages and query's
// columns read records as values through it, rather than decoding the JSON
// the result holds.
func (r Result) Index(i int) int { return int(r.list.pos[r.at(i)]) }

// tag names the result's list inside a dataset version.
func (r Result) tag() string {
	if r.pick != nil {
		return r.pick.tag
	}
	return r.list.tag
}

// at is the index in the result's list of its i-th record.
func (r Result) at(i int) int {
	if r.pick != nil {
		return int(r.pick.at[i])
	}
	return r.start() + i
}

// Record returns the encoded JSON of the i-th record of the result, exactly
// as it appears in the body.
func (r Result) Record(i int) []byte { return r.list.record(r.at(i)) }
