package dataset

import (
	"fmt"
	"strconv"
	"strings"
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
	// Near are the values the reason suggests ("did you mean"), for a
	// reader's page to list in its own words; the API's body has the
	// reason alone.
	Near []string `json:"-"`
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
	reasonLimit = "must be an integer from 1 to 500"
	reasonOnce  = "must be given at most once"
)

// Query answers a request for a collection. Parties take no parameters and
// ignore any given; districts take locality (see lookup.go); candidates take
// district, party, the readers' filters stood_in, elected and q (see
// filter.go), limit and offset, as documented in docs/API.md; results take
// district (see results.go). Parameters with an empty value count
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
	case Results:
		return d.queryResults(p)
	}
	return Result{}, &CollectionError{Name: string(c)}
}

func (d *Dataset) queryCandidates(p Params) (Result, error) {
	var bad []InvalidParam
	refuse := func(name, reason string) { bad = append(bad, InvalidParam{Name: name, Reason: reason}) }

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
		return queryFiltered(readers, page{d: d, offset: offset, limit: limit, district: district, party: party}, matches), nil
	}
	offset := checkOffset(p, filtersOK, len(l.Pos), refuse)
	if len(bad) > 0 {
		return Result{}, &ParamError{Params: bad}
	}
	return Result{list: l, n: min(limit, len(l.Pos)-offset), page: page{
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
	f := candidateFilters{district: d.districtParam(p, "district", refuse)}
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

// candidateList is the list of a district and a party filter.
func (d *Dataset) candidateList(district, party int) *List {
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
	case isSlug(key):
		i, found = d.partyBySlug.find(key, d.partySlug)
	default:
		return 0, d.partyReason
	}
	if !found {
		return 0, "names no published party; " + d.partyReason
	}
	return i, ""
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

// Result is the answer to a query: which records, of which list, and what
// the query was understood to ask. How it is written (the envelope, meta,
// the ETag, gzip) is package answers'.
type Result struct {
	list *List
	n    int
	page
	// pick, when set, chooses the result's records of list by index: one
	// record by its key, or the districts of a locality.
	pick *Pick
	// shown, for a page of readers' filters, is the positions of its
	// records, of all that match.
	shown []int32
}

// Pick is an answer of some records of a collection's whole list (see
// Dataset.Whole), in the order given: one record by its key, or the
// districts of a locality. Those of a locality are made at load, one for
// each set of districts (Picks); one record's, on request.
type Pick struct {
	// ID is the pick's index in Picks, or -1 for one made on request.
	ID int
	// Tag names the answer inside a dataset version, as a list's Tag does.
	Tag string
	// At holds the records' positions in their collection.
	At  []int32
	one [1]int32
}

// Picks returns the picks made at load, by ID. The slice is shared:
// callers must not modify it.
func (d *Dataset) Picks() []*Pick { return d.localities.picks }

// Count is the number of records in the result.
func (r Result) Count() int { return r.n }

// List is the list the result's records are of: for a pick or a page of
// readers' filters, its collection's whole list.
func (r Result) List() *List { return r.list }

// Pick is the result's pick, or nil when its records are a run of its
// list's.
func (r Result) Pick() *Pick { return r.pick }

// Run reports where in List the result's records run, from start, when
// they are a run of its list's records: not for a pick or a page of
// readers' filters, whose records Index gives one by one.
func (r Result) Run() (start int, ok bool) {
	if r.pick != nil || r.filtered {
		return 0, false
	}
	return r.offset, true
}

// Index returns the position of the result's i-th record in its
// collection's published order: the record is Parties()[Index(i)],
// Districts()[Index(i)], Candidates()[Index(i)] or Sheets()[Index(i)]
// (for the national totals, 0). The pages and query's columns read
// records as values through it.
func (r Result) Index(i int) int {
	switch {
	case r.pick != nil:
		return int(r.pick.At[i])
	case r.filtered:
		return int(r.shown[i])
	}
	return int(r.list.Pos[r.offset+i])
}

// tag names the result's list inside a dataset version.
func (r Result) tag() string {
	if r.pick != nil {
		return r.pick.Tag
	}
	return r.list.Tag
}
