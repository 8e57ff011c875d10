package answers

import (
	"net/url"
	"strconv"
	"sync/atomic"
	"time"

	"ballot/dataset"
)

// A candidates answer is one page of a prepared list: the records from an
// offset on, at most the limit of them. Its meta says what the request was
// understood to ask (the limit, the offset and the filters, each filter in
// its canonical form) and how many records match (total), so that a client
// knows what the limit left out. The other collections are not paged: their
// meta carries total too, equal to count, so every envelope has it.

// Result is a query's answer ready to be written: the records of a
// dataset.Result in their prepared bytes, with the envelope and meta
// around them.
type Result struct {
	a   *Answers
	res dataset.Result
	// l is the prepared list the records are read from: the result's
	// list, or for a pick or a page of readers' filters its collection's
	// whole list, whose i-th record is the record at position i.
	l *list
	// meta is the text of the envelope's tail up to generatedAt's value,
	// made once for a result answered many times (Prepared); nil for a
	// result made for one answer, whose tail is written with it.
	meta []byte
}

// Prepared returns r with the text of its envelope's tail made once, up
// to generatedAt's value, so that an answer of it writes only the time
// after its records: for a result kept and answered many times.
func (r Result) Prepared() Result {
	r.meta = r.appendMeta(nil)
	return r
}

// Of is the answer of res, a result of the answers' dataset.
func (a *Answers) Of(res dataset.Result) Result {
	return Result{a: a, res: res, l: a.lists[res.List().ID]}
}

// IsZero reports whether r is the zero Result, the answer of no result
// (every other is made by Of).
func (r Result) IsZero() bool { return r.a == nil }

// Query is the dataset's result of a query (dataset.Result), as its
// answer.
func (r Result) Query() dataset.Result { return r.res }

// ETag identifies the result's content: the dataset version, the list, the
// number of records and, for candidates, the limit, offset and filters the
// body echoes (implied by the list and the count where they can be). It is
// weak: the body also carries generatedAt.
func (r Result) ETag() string {
	res := r.res
	n := res.Count()
	if p := res.Pick(); p != nil {
		if p.ID >= 0 {
			return r.a.pickETags[p.ID]
		}
		return r.a.etag(p.Tag, n, "")
	}
	if !res.Paged() {
		return r.l.etag(n)
	}
	if res.Filtered() {
		return r.filteredETag()
	}
	// A candidates answer's body also says its limit, offset and filters:
	// the prepared tags serve where the list and n imply them all.
	if res.Offset() == 0 && len(res.List().Pos) > 0 {
		switch res.Limit() {
		case n: // a full page: n is the limit
			return r.l.etag(n)
		case dataset.DefaultLimit: // the whole list, shorter than the default limit
			return r.l.defaultETag
		}
	}
	return r.pageETag()
}

// pageETag is the ETag of a candidates answer whose list and count do not
// imply the rest of its body: a page past the first, a limit other than the
// default above the count, or no record at all (every empty filter shares
// one list). It names the count, limit, filters and offset. The first
// pages' tags are prepared at load; preparing one for every offset, limit
// and count would take memory the cube of the list's length.
func (r Result) pageETag() string {
	f := r.res.Filters()
	tag := r.l.etags[0]
	tag = tag[:len(tag)-2] // without "0" and the closing quote
	return tag + strconv.Itoa(r.res.Count()) + "-l" + strconv.Itoa(r.res.Limit()) + "-d" + strconv.Itoa(f.District) +
		"-p" + strconv.Itoa(f.Party) + "@" + strconv.Itoa(r.res.Offset()) + `"`
}

// filteredETag is the ETag of an answer with readers' filters: the
// dataset version, every filter (q by a hash), the limit, the offset and
// the count.
func (r Result) filteredETag() string {
	f := r.res.Filters()
	return `W/"` + r.a.ds.Version[:16] + "-" + answerFormat + "r" + strconv.Itoa(r.res.Count()) +
		"-l" + strconv.Itoa(r.res.Limit()) + "-d" + strconv.Itoa(f.District) + "-p" + strconv.Itoa(f.Party) +
		dataset.ReadersTag(f.StoodIn, f.Elected, f.Q) + "@" + strconv.Itoa(r.res.Offset()) + `"`
}

// Record returns the encoded JSON of the i-th record of the result, exactly
// as it appears in the body.
func (r Result) Record(i int) []byte {
	if start, run := r.res.Run(); run {
		return r.l.record(start + i)
	}
	return r.l.record(r.res.Index(i))
}

// AppendJSON appends the response body, the envelope
// {"data":[...],"meta":{"count":N,"generatedAt":"..."}} and a newline, to
// dst. The HTTP server and the command line both write bodies through it, so
// their bytes are the same.
func (r Result) AppendJSON(dst []byte, generatedAt time.Time) []byte {
	if head, prepared := r.PreparedRun(); prepared != nil {
		dst = append(dst, head...)
		dst = append(dst, prepared...)
		return r.AppendTail(dst, generatedAt)
	}
	dst = append(dst, envelopeStart...)
	for i := range r.res.Count() {
		if i > 0 {
			dst = append(dst, ',')
		}
		dst = append(dst, r.Record(i)...)
	}
	return r.AppendTail(dst, generatedAt)
}

// PreparedRun returns the body AppendJSON appends up to its tail when its
// records are one run of their list's prepared bytes: head, the
// envelope's start or nothing, and prepared, the list's bytes from its
// start or from the run's first record (shared by every answer: never to
// be changed); AppendTail appends the rest. A large body is written from
// them in place rather than copied for each answer (a sheet of 26 MB was,
// for each of 40 slow readers). nil, nil when the records are not one run.
func (r Result) PreparedRun() (head, prepared []byte) {
	start, run := r.res.Run()
	switch {
	case !run:
		return nil, nil
	case start > 0:
		return envelopeStartBytes, r.runRecords(start)
	}
	return nil, r.l.data[:r.l.end(r.res.Count())]
}

// runRecords is the records of a run from start, without the envelope: a
// slice of the list's prepared bytes.
func (r Result) runRecords(start int) []byte {
	n := r.res.Count()
	if n == 0 {
		return nil
	}
	if start == 0 {
		return r.l.data[len(envelopeStart):r.l.end(n)]
	}
	return r.l.data[r.l.end(start)+1 : r.l.end(start+n)] // +1: past the comma
}

// AppendTail appends what follows the records: the end of data and meta.
func (r Result) AppendTail(dst []byte, generatedAt time.Time) []byte {
	if r.meta != nil {
		dst = append(dst, r.meta...)
	} else {
		dst = r.appendMeta(dst)
	}
	dst = AppendTime(dst, generatedAt)
	return append(dst, "\"}}\n"...)
}

// appendMeta appends the envelope's tail up to generatedAt's value.
func (r Result) appendMeta(dst []byte) []byte {
	dst = append(dst, `],"meta":{"count":`...)
	dst = strconv.AppendInt(dst, int64(r.res.Count()), 10)
	dst = r.appendPageMeta(dst)
	return append(dst, `,"generatedAt":"`...)
}

// appendPageMeta appends the keys of meta that follow count: total, and
// for a page its limit, offset and filters, as in
// ,"total":19,"limit":2,"offset":0,"filters":{"district":{…},"party":null,
// "stood_in":null,"elected":true,"q":null}.
func (r Result) appendPageMeta(dst []byte) []byte {
	dst = append(dst, `,"total":`...)
	dst = strconv.AppendInt(dst, int64(r.res.Total()), 10)
	if !r.res.Paged() {
		return dst
	}
	f := r.res.Filters()
	dst = append(dst, `,"limit":`...)
	dst = strconv.AppendInt(dst, int64(r.res.Limit()), 10)
	dst = append(dst, `,"offset":`...)
	dst = strconv.AppendInt(dst, int64(r.res.Offset()), 10)
	dst = append(dst, `,"filters":{"district":`...)
	dst = append(dst, r.a.districtFilters[f.District]...)
	dst = append(dst, `,"party":`...)
	dst = r.a.appendPartyFilter(dst, f.Party)
	dst = append(dst, `,"stood_in":`...)
	dst = append(dst, r.a.districtFilters[f.StoodIn]...)
	dst = append(dst, `,"elected":`...)
	switch f.Elected {
	case dataset.ElectedTrue:
		dst = append(dst, "true"...)
	case dataset.ElectedFalse:
		dst = append(dst, "false"...)
	default:
		dst = append(dst, "null"...)
	}
	dst = append(dst, `,"q":`...)
	if f.Q == "" {
		dst = append(dst, "null"...)
	} else {
		dst = append(dst, dataset.EncodeRecord(f.Q)...)
	}
	return append(dst, '}')
}

// prepareFilters encodes, for meta.filters, each district as the district
// filter echoes it ({"number":5,"id":"…"}); index 0, no filter, is null.
// A party is encoded on request (appendPartyFilter): an election has a
// few districts (13 in Malta's today), but there may be many parties.
func (a *Answers) prepareFilters() {
	a.districtFilters = make([]string, len(a.ds.Districts())+1)
	a.districtFilters[0] = "null"
	for _, dist := range a.ds.Districts() {
		a.districtFilters[dist.Number] = string(dataset.EncodeRecord(struct {
			Number int    `json:"number"`
			ID     string `json:"id"`
		}{dist.Number, dist.ID}))
	}
}

// appendPartyFilter appends the party filter p (a party's index plus one,
// as dataset.Filters holds it) as meta.filters echoes it,
// {"slug":"pn","id":"…"}, or null for none.
func (a *Answers) appendPartyFilter(dst []byte, p int) []byte {
	if p == 0 {
		return append(dst, "null"...)
	}
	party := &a.ds.Parties()[p-1]
	dst = append(dst, `{"slug":`...)
	dst = appendJSONString(dst, party.Slug)
	dst = append(dst, `,"id":`...)
	dst = appendJSONString(dst, party.ID)
	return append(dst, '}')
}

// appendJSONString appends s as dataset.EncodeJSON encodes it: as it is,
// quoted, when it holds only printable ASCII other than quote and
// backslash (every slug and UUID), through the encoder otherwise.
func appendJSONString(dst []byte, s string) []byte {
	for i := range len(s) {
		if c := s[i]; c < 0x20 || c > 0x7e || c == '"' || c == '\\' {
			return append(dst, dataset.EncodeRecord(s)...)
		}
	}
	dst = append(dst, '"')
	dst = append(dst, s...)
	return append(dst, '"')
}

// AppendNextQuery appends the query string of the page after this one: the
// filters in canonical form (a district by number, a party by slug), the
// limit and the next offset, as in "district=5&party=pn&limit=100&offset=100",
// with the readers' filters after party (q escaped). Numbers and slugs need
// no escaping in a URL.
func (r Result) AppendNextQuery(dst []byte) []byte {
	next, _ := r.res.Next()
	dst = r.AppendFilterQuery(dst)
	dst = append(dst, "limit="...)
	dst = strconv.AppendInt(dst, int64(r.res.Limit()), 10)
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
	if !r.res.Paged() {
		return dst
	}
	f := r.res.Filters()
	if f.District > 0 {
		dst = append(dst, "district="...)
		dst = strconv.AppendInt(dst, int64(f.District), 10)
		dst = append(dst, '&')
	}
	if f.Party > 0 {
		dst = append(dst, "party="...)
		dst = append(dst, r.a.ds.Parties()[f.Party-1].Slug...)
		dst = append(dst, '&')
	}
	if f.StoodIn > 0 {
		dst = append(dst, "stood_in="...)
		dst = strconv.AppendInt(dst, int64(f.StoodIn), 10)
		dst = append(dst, '&')
	}
	switch f.Elected {
	case dataset.ElectedTrue:
		dst = append(dst, "elected=true&"...)
	case dataset.ElectedFalse:
		dst = append(dst, "elected=false&"...)
	}
	if f.Q != "" {
		dst = append(dst, "q="...)
		dst = append(dst, url.QueryEscape(f.Q)...)
		dst = append(dst, '&')
	}
	return dst
}

// AppendTime appends t in TimeFormat, as t.UTC().AppendFormat(dst,
// TimeFormat) does, digit by digit: on every answer, parsing the layout
// costs more than the rest of the tail. The answers of one second share
// its text up to the milliseconds, kept from the answer before
// (lastSecond), so that most write only the milliseconds.
func AppendTime(dst []byte, t time.Time) []byte {
	sec := t.Unix()
	ms := t.Nanosecond() / int(time.Millisecond)
	if c := lastSecond.Load(); c != nil && c.unix == sec {
		dst = append(dst, c.text[:]...)
		return append(dst, byte('0'+ms/100), byte('0'+ms/10%10), byte('0'+ms%10), 'Z')
	}
	t = t.UTC()
	year, month, day := t.Date()
	if year < 0 || year > 9999 {
		return t.AppendFormat(dst, TimeFormat)
	}
	hour, minute, second := t.Clock()
	c := &secondText{unix: sec, text: [...]byte{
		byte('0' + year/1000), byte('0' + year/100%10), byte('0' + year/10%10), byte('0' + year%10), '-',
		byte('0' + month/10), byte('0' + month%10), '-',
		byte('0' + day/10), byte('0' + day%10), 'T',
		byte('0' + hour/10), byte('0' + hour%10), ':',
		byte('0' + minute/10), byte('0' + minute%10), ':',
		byte('0' + second/10), byte('0' + second%10), '.'}}
	lastSecond.Store(c)
	dst = append(dst, c.text[:]...)
	return append(dst, byte('0'+ms/100), byte('0'+ms/10%10), byte('0'+ms%10), 'Z')
}

// secondText is the text in TimeFormat of one second, up to its
// milliseconds.
type secondText struct {
	unix int64
	text [len("2006-01-02T15:04:05.")]byte
}

var lastSecond atomic.Pointer[secondText]

// TimeFormat is the format of meta.generatedAt: UTC with exactly three
// fractional digits.
const TimeFormat = "2006-01-02T15:04:05.000Z"
