package answers

import (
	"crypto/sha256"
	"encoding/hex"
	"slices"
	"strconv"
	"strings"

	"ballot/dataset"
)

// Answers are the API's answers of one dataset, prepared once when it
// loads: each list's records encoded to JSON after the start of the
// envelope, its gzip encoding and its ETags. A request is a lookup and a
// write (Of). Answers are immutable; a reload prepares new ones.
type Answers struct {
	ds    *dataset.Dataset
	lists []*list // by dataset.List.ID
	// pickETags are the ETags of the picks made at load (the districts of
	// a locality), by dataset.Pick.ID.
	pickETags []string
	// districtFilters[n] is meta.filters' district, and stood_in, by
	// number.
	districtFilters []string
}

// Prepare prepares every answer the API can give of ds, a dataset loaded
// with its indexes (not dataset.Options.RecordsOnly), for a server that
// answers many requests: each list's JSON, its gzip encoding and its
// ETags.
func Prepare(ds *dataset.Dataset) *Answers {
	return prepare(ds, true)
}

// PrepareJSON is Prepare without the lists' gzip encodings, for one
// answer written once (ballot query): compressing every list costs five
// times what encoding them does. AppendGzip still answers, compressing
// the records when asked, as it does a page past the first.
func PrepareJSON(ds *dataset.Dataset) *Answers {
	return prepare(ds, false)
}

func prepare(ds *dataset.Dataset, gzip bool) *Answers {
	a := &Answers{ds: ds, lists: make([]*list, len(ds.Lists()))}
	a.prepareFilters()
	a.encodeLists()
	var lc *compressor
	if gzip {
		lc = compressors.get(listLevel)
		defer compressors.put(lc) // without its bytes, as large as the largest list
	}
	for _, dl := range ds.Lists() {
		l := a.lists[dl.ID]
		limited := dl.Collection == dataset.Candidates
		if gzip {
			l.compress(lc, limited)
		}
		l.tagAll(ds.Version, limited)
	}
	a.pickETags = make([]string, len(ds.Picks()))
	for _, p := range ds.Picks() {
		a.pickETags[p.ID] = a.etag(p.Tag, len(p.At), "")
	}
	return a
}

// Dataset is the dataset the answers are of.
func (a *Answers) Dataset() *dataset.Dataset { return a.ds }

// encodeLists encodes the records of every list. Every record is encoded
// once, into its collection's whole list; the lists of a filter copy the
// records from it, each list allocated at its size. The national totals
// are a list of their own, of one record.
func (a *Answers) encodeLists() {
	ds := a.ds
	// A record encoded takes about twice its bytes in the file at most
	// (every absent optional field written as null): a list reserves no
	// more than three times the files' size, and grows past it if needed.
	most := 3 * ds.Size()
	whole := map[dataset.Collection]*list{
		dataset.Parties:    newList(ds.Whole(dataset.Parties).Tag, ds.Parties(), most),
		dataset.Districts:  newList(ds.Whole(dataset.Districts).Tag, ds.Districts(), most),
		dataset.Candidates: newList(ds.Whole(dataset.Candidates).Tag, ds.Candidates(), most),
		dataset.Results:    newList(ds.Whole(dataset.Results).Tag, ds.Sheets(), most),
	}
	for c, l := range whole {
		a.lists[ds.Whole(c).ID] = l
	}
	national := ds.National().List()
	a.lists[national.ID] = newList(national.Tag, []dataset.NationalTotals{ds.NationalTotals()}, most)
	for _, dl := range ds.Lists() {
		if a.lists[dl.ID] != nil {
			continue
		}
		from := whole[dl.Collection]
		size := len(envelopeStart)
		for _, i := range dl.Pos {
			size += len(from.record(int(i))) + 1 // and a comma
		}
		l := &list{
			tag:  dl.Tag,
			data: append(make([]byte, 0, size), envelopeStart...),
			ends: make([]int, 0, len(dl.Pos)),
		}
		for _, i := range dl.Pos {
			l.add(from.record(int(i)))
		}
		a.lists[dl.ID] = l
	}
}

// etag is the ETag of n records of the list or pick tagged tag, as tagAll
// prepares them, with suffix before the closing quote.
func (a *Answers) etag(tag string, n int, suffix string) string {
	return `W/"` + a.ds.Version[:16] + "-" + answerFormat + tag + "-" + strconv.Itoa(n) + suffix + `"`
}

// DocumentETag is the strong ETag of a document prepared whole (the
// index, the OpenAPI description, the catalogue): a strong validator
// names the bytes sent, here by the first 12 bytes of their SHA-256.
func DocumentETag(body []byte) string {
	sum := sha256.Sum256(body)
	return `"` + hex.EncodeToString(sum[:12]) + `"`
}

// GzipETag is the strong ETag of the gzip encoding of a body whose strong
// ETag is etag (a document's, a download's): other bytes, so another tag.
func GzipETag(etag string) string {
	return strings.TrimSuffix(etag, `"`) + `-gzip"`
}

const envelopeStart = `{"data":[`

// answerFormat names the shape of the answers around their records (the
// envelope and the keys of meta) and is part of every answer's ETag with
// the dataset version, so that a release that answers the same data in
// another shape does not confirm a client's old body with a 304.
// TestAnswerFormat holds it to the shape: change one, change the other.
const answerFormat = "f3"

// list is one prepared answer: the start of the envelope and the encoded
// records of one dataset.List, in order, with the offset at which each
// ends so that the first n records are a slice of data.
type list struct {
	tag  string // identifies the list inside a dataset version (ETags)
	data []byte
	ends []int
	gz   compressed
	// etags[n]: the ETag of the first n records, for every n a limited
	// list can answer; a list given whole (parties, districts) has only
	// etags[0] and whole.
	etags []string
	whole string // the ETag of the whole list
	// defaultETag is the ETag of the first page at the default limit when
	// the list holds fewer records than it: n alone does not say the limit
	// a candidates answer echoes then.
	defaultETag string
}

// tagAll prepares the ETag of every answer the list can give: the dataset
// version, the list and the number of records. The body also carries
// generatedAt, which changes with every response, so the tags are weak.
func (l *list) tagAll(version string, limited bool) {
	last := 0
	if limited {
		last = min(len(l.ends), dataset.MaxLimit)
	}
	l.etags = make([]string, last+1)
	for n := range l.etags {
		l.etags[n] = `W/"` + version[:16] + "-" + answerFormat + l.tag + "-" + strconv.Itoa(n) + `"`
	}
	l.whole = `W/"` + version[:16] + "-" + answerFormat + l.tag + "-" + strconv.Itoa(len(l.ends)) + `"`
	if n := len(l.ends); limited && n < dataset.DefaultLimit {
		l.defaultETag = `W/"` + version[:16] + "-" + answerFormat + l.tag + "-" + strconv.Itoa(n) + "-l" + strconv.Itoa(dataset.DefaultLimit) + `"`
	}
}

// etag is the ETag of the first n records of the list.
func (l *list) etag(n int) string {
	if n == len(l.ends) {
		return l.whole
	}
	return l.etags[n]
}

// add appends a record.
func (l *list) add(record []byte) {
	if len(l.ends) > 0 {
		l.data = append(l.data, ',')
	}
	l.data = append(l.data, record...)
	l.ends = append(l.ends, len(l.data))
}

// newList encodes records into a list. A list of many records is
// allocated once at the size the first of them foretell, with a margin,
// rather than grown as it fills: each growth copies the list so far and
// leaves the old copy to be collected, which raised the peak memory of a
// load of many small records by as much as the list itself. What it
// reserves so is at most most bytes, so that large first records and small
// others cannot make it reserve many times what the list needs.
//
// A list of fewer records than that sample is encoded twice, first to
// learn its size: such a list is small, or holds records large enough
// (districts of very many localities) that growing it would leave several
// times its size to be collected.
func newList[T any](tag string, records []T, most int) *list {
	const sample = 256 // records encoded before the list is sized
	l := &list{tag: tag, ends: make([]int, 0, len(records))}
	var e dataset.Encoder
	size := len(envelopeStart)
	if len(records) < sample {
		for i := range records {
			size += len(e.Record(&records[i])) + 1 // and a comma
		}
	}
	l.data = append(make([]byte, 0, size), envelopeStart...)
	for i := range records {
		if i == sample {
			left := len(records) - i
			per := (len(l.data)-len(envelopeStart))/i + 1
			l.data = slices.Grow(l.data, min(left*per+left*per/16, most))
		}
		l.add(e.Record(&records[i]))
	}
	return l
}

// record is the i-th record of the list, without the comma before it.
func (l *list) record(i int) []byte {
	start := len(envelopeStart)
	if i > 0 {
		start = l.ends[i-1] + 1 // past the comma
	}
	return l.data[start:l.ends[i]]
}

// end is the length of the envelope's start and the first n records.
func (l *list) end(n int) int {
	if n == 0 {
		return len(envelopeStart)
	}
	return l.ends[n-1]
}
