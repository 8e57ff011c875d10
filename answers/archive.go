package answers

import (
	"encoding/binary"
	"hash/crc32"
	"hash/fnv"
	"strconv"
	"time"

	"ballot/archive"
	"ballot/dataset"
)

// The answers of an archive's own endpoints, its elections and the people
// who stood in them (package archive), prepared once when the archive
// loads as a dataset's are: each record encoded once; the list of the
// elections, and each election alone, with their gzip encodings and
// ETags; the people's records, of which a person, or the people a search
// finds, are a request's pick, gzipped on request as a candidate's record
// is. Their envelope is a collection's: the records in data, their count
// and total and the time of the answer in meta.

// ElectionRecord is an election as the API serves it: its record, and
// the paths of its collections.
type ElectionRecord struct {
	archive.Record
	Paths ElectionPaths `json:"paths"`
}

// ElectionPaths are the paths of an election's collections, each under
// the path of the elections and the election's slug
// (/api/public/v1/elections/2017/parties).
type ElectionPaths struct {
	Parties    string `json:"parties"`
	Districts  string `json:"districts"`
	Candidates string `json:"candidates"`
	Results    string `json:"results"`
}

// Elections returns the records of a's elections, newest first, each
// with the paths of its collections under electionsPath, the path the
// API serves the elections at ("/api/public/v1/elections").
func Elections(a *archive.Archive, electionsPath string) []ElectionRecord {
	records := make([]ElectionRecord, len(a.Elections()))
	for i, e := range a.Elections() {
		base := electionsPath + "/" + e.Record.Slug + "/"
		records[i] = ElectionRecord{e.Record, ElectionPaths{base + "parties", base + "districts", base + "candidates", base + "results"}}
	}
	return records
}

// ArchiveAnswers are the answers of an archive's elections and people,
// prepared once when it loads (PrepareArchive). They are immutable; a
// reload prepares new ones with the archive.
type ArchiveAnswers struct {
	version   string  // the archive's, in every ETag
	elections *list   // every election, newest first
	election  []*list // each election alone, by its position in elections
	people    *list   // every person, in published order
}

// PrepareArchive prepares the answers of a's elections, whose
// collections the API serves under electionsPath, and of its people, for
// a server that answers many requests: the elections' JSON, gzip
// encodings and ETags, and each person's JSON.
func PrepareArchive(a *archive.Archive, electionsPath string) *ArchiveAnswers {
	return prepareArchive(a, electionsPath, true)
}

// PrepareArchiveJSON is PrepareArchive without the gzip encodings, for
// one answer written once (ballot query).
func PrepareArchiveJSON(a *archive.Archive, electionsPath string) *ArchiveAnswers {
	return prepareArchive(a, electionsPath, false)
}

func prepareArchive(a *archive.Archive, electionsPath string, gzip bool) *ArchiveAnswers {
	most := 3 * int(a.Size())
	records := Elections(a, electionsPath)
	ans := &ArchiveAnswers{
		version:   a.Version,
		elections: newList("ae", records, most),
		election:  make([]*list, len(records)),
		people:    newPeopleList(a.People()),
	}
	for i := range records {
		ans.election[i] = newList("ae"+strconv.Itoa(i), records[i:i+1], most)
	}
	var lc *compressor
	if gzip {
		lc = compressors.get(listLevel)
		defer compressors.put(lc)
	}
	for _, l := range append([]*list{ans.elections}, ans.election...) {
		if gzip {
			l.compress(lc, false)
		}
		l.tagAll(a.Version, false)
	}
	return ans
}

// newPeopleList encodes the people into a list, as newList does, each
// person's JSON the bytes dataset.EncodeRecord makes of it, but put
// together from its parts: its id, slug and name, and for each candidacy
// its ids and name, each a string written as appendJSONString writes it,
// then the rest of the candidacy (candidacyRest) through the encoder. A
// person's record holds their name at least twice (theirs and their
// latest candidacy's), and the encoder's buffers grow as large as the
// largest value it encodes: encoded whole, a candidate whose name filled
// the file took a load past the bound of memory per byte
// (dataset.PeakMemoryPerByte); a name of plain text is now copied once,
// into the list, and nothing else holds it. The list is sized in a first
// pass, then filled, as newList sizes a short list.
// TestPeopleListIsEncodeRecord holds every person's bytes to
// dataset.EncodeRecord's.
func newPeopleList(people []archive.Person) *list {
	var e dataset.Encoder
	// each gives the parts of person i's record to raw (bytes as they
	// are) and str (a string, as JSON), in order.
	each := func(i int, raw func([]byte), str func(string)) {
		p := &people[i]
		raw([]byte(`{"id":`))
		str(p.ID)
		raw([]byte(`,"slug":`))
		str(p.Slug)
		raw([]byte(`,"name":`))
		str(p.Name)
		raw([]byte(`,"candidacies":[`))
		for j := range p.Candidacies {
			c := &p.Candidacies[j]
			if j > 0 {
				raw([]byte(","))
			}
			raw([]byte(`{"election_id":`))
			str(c.ElectionID)
			raw([]byte(`,"election_slug":`))
			str(c.ElectionSlug)
			raw([]byte(`,"candidate_id":`))
			str(c.CandidateID)
			raw([]byte(`,"name":`))
			str(c.Name)
			rest := e.Record(candidacyRest{c.PartyID, c.DistrictIDs, c.Elected, c.Results})
			raw([]byte(","))
			raw(rest[1:]) // past its "{"
		}
		raw([]byte("]}"))
	}
	size := len(envelopeStart)
	for i := range people {
		each(i, func(b []byte) { size += len(b) }, func(s string) { size += jsonStringLen(s) })
		size++ // a comma
	}
	l := &list{tag: "ah", data: append(make([]byte, 0, size), envelopeStart...), ends: make([]int, 0, len(people))}
	for i := range people {
		if i > 0 {
			l.data = append(l.data, ',')
		}
		each(i, func(b []byte) { l.data = append(l.data, b...) }, func(s string) { l.data = appendJSONString(l.data, s) })
		l.ends = append(l.ends, len(l.data))
	}
	return l
}

// candidacyRest is what follows a candidacy's name in its record
// (archive.Candidacy), with the same keys, in the same order.
type candidacyRest struct {
	PartyID     *string                  `json:"party_id"`
	DistrictIDs []string                 `json:"district_ids"`
	Elected     *bool                    `json:"elected"`
	Results     []archive.DistrictResult `json:"results"`
}

// jsonStringLen is the length of what appendJSONString appends of s.
func jsonStringLen(s string) int {
	for i := range len(s) {
		if c := s[i]; c < 0x20 || c > 0x7e || c == '"' || c == '\\' {
			return len(dataset.EncodeRecord(s))
		}
	}
	return len(s) + 2
}

// Elections is the answer of every election, newest first.
func (a *ArchiveAnswers) Elections() Records {
	return Records{l: a.elections, etag: a.elections.whole}
}

// Election is the answer of the election at position i of the
// archive's elections, alone.
func (a *ArchiveAnswers) Election(i int) Records {
	l := a.election[i]
	return Records{l: l, etag: l.whole}
}

// Person is the answer of the person at position i of the archive's
// people, alone.
func (a *ArchiveAnswers) Person(i int) Records {
	return Records{l: a.people, pick: []int32{int32(i)}, etag: a.etag("ah"+strconv.Itoa(i), 1, "")}
}

// People is the answer of the people at the positions found (a search's,
// archive.Archive.QueryPeople), in that order.
func (a *ArchiveAnswers) People(found []int32) Records {
	if found == nil {
		found = []int32{}
	}
	h := fnv.New64a()
	var b [4]byte
	for _, i := range found {
		binary.LittleEndian.PutUint32(b[:], uint32(i))
		h.Write(b[:])
	}
	return Records{l: a.people, pick: found, etag: a.etag("aq", len(found), "-"+strconv.FormatUint(h.Sum64(), 16))}
}

// etag is the ETag of n records of the archive tagged tag, with suffix
// before the closing quote: weak, as a collection's, for the body carries
// generatedAt.
func (a *ArchiveAnswers) etag(tag string, n int, suffix string) string {
	return `W/"` + a.version[:16] + "-" + answerFormat + tag + "-" + strconv.Itoa(n) + suffix + `"`
}

// Records is an answer of an archive's records: a whole list prepared at
// load, or the records of one that a request picks. The zero Records is
// the answer of nothing (IsZero).
type Records struct {
	l    *list
	pick []int32 // the positions in l of the records answered; nil: all of l
	etag string
}

// IsZero reports whether r is the zero Records.
func (r Records) IsZero() bool { return r.l == nil }

// ETag identifies the answer's content: the archive's version, the list
// and the records picked. It is weak: the body also carries generatedAt.
func (r Records) ETag() string { return r.etag }

// Count is how many records the answer holds.
func (r Records) Count() int {
	if r.pick != nil {
		return len(r.pick)
	}
	return len(r.l.ends)
}

// Record returns the encoded JSON of the i-th record of the answer,
// exactly as it appears in the body.
func (r Records) Record(i int) []byte {
	if r.pick != nil {
		return r.l.record(int(r.pick[i]))
	}
	return r.l.record(i)
}

// AppendJSON appends the response body, the envelope
// {"data":[...],"meta":{"count":N,"total":N,"generatedAt":"..."}} and a
// newline, to dst: the bytes of the HTTP server and of the command line
// alike.
func (r Records) AppendJSON(dst []byte, generatedAt time.Time) []byte {
	if r.pick == nil {
		dst = append(dst, r.l.data...)
	} else {
		dst = append(dst, envelopeStart...)
		for i := range r.pick {
			if i > 0 {
				dst = append(dst, ',')
			}
			dst = append(dst, r.Record(i)...)
		}
	}
	return r.appendTail(dst, generatedAt)
}

// appendTail appends what follows the records: the end of data and meta.
func (r Records) appendTail(dst []byte, generatedAt time.Time) []byte {
	n := int64(r.Count())
	dst = append(dst, `],"meta":{"count":`...)
	dst = strconv.AppendInt(dst, n, 10)
	dst = append(dst, `,"total":`...)
	dst = strconv.AppendInt(dst, n, 10)
	dst = append(dst, `,"generatedAt":"`...)
	dst = AppendTime(dst, generatedAt)
	return append(dst, "\"}}\n"...)
}

// AppendGzip appends the gzip encoding of the body AppendJSON writes: a
// whole list's compressed at load, with the tail after it; picked
// records compressed now, at the fastest level.
func (r Records) AppendGzip(dst []byte, generatedAt time.Time) []byte {
	var crc uint32
	var size int
	if r.pick == nil && r.l.gz.stream != nil {
		n := len(r.l.ends)
		_, end, sum := r.l.gz.flush(n)
		dst = append(dst, gzipHeader...)
		dst = append(dst, r.l.gz.stream[:end]...)
		crc, size = sum, r.l.end(n)
	} else {
		c := compressors.get(requestLevel)
		c.out.b = append(dst, gzipHeader...)
		c.fw.Reset(&c.out)
		write := func(b []byte) {
			_, _ = c.fw.Write(b) // an appender does not fail
			crc = crc32.Update(crc, crc32.IEEETable, b)
			size += len(b)
		}
		write(envelopeStartBytes)
		for i := range r.Count() {
			if i > 0 {
				write(comma)
			}
			write(r.Record(i))
		}
		_ = c.fw.Flush() // byte-aligned, not final: the tail follows
		dst = c.out.b
		compressors.put(c)
	}
	mark := len(dst)
	dst = append(dst, finalStoredHead...)
	dst = r.appendTail(dst, generatedAt)
	return endGzip(dst, mark, crc, size)
}
