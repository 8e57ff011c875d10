package dataset

import (
	"bytes"
	"compress/flate"
	"fmt"
	"hash/crc32"
	"slices"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Two lookups by name, each answered from lists prepared at load like the
// collections': one record by its slug, number or id, and the districts
// that hold a locality.

// NotFoundError reports a record key that names no record of a collection.
// The HTTP server answers it with 404.
type NotFoundError struct {
	Collection Collection
	Key        string
	// Suggestion is the slug the key probably misspells, or "".
	Suggestion string
}

// Error names the collection and the key, and suggests a slug when the key
// is one edit away from one. A key that is long or holds anything but
// printable characters is not repeated: it would only make the message
// unreadable.
func (e *NotFoundError) Error() string {
	key := "this key"
	if len(e.Key) <= 100 && utf8.ValidString(e.Key) && strings.IndexFunc(e.Key, func(r rune) bool { return !unicode.IsPrint(r) }) < 0 {
		key = strconv.Quote(e.Key)
	}
	var msg string
	switch e.Collection {
	case Parties:
		msg = "no party has the slug or id " + key
	case Districts:
		msg = "no district has the number or id " + key + "; districts are numbered 1 to " + strconv.Itoa(DistrictCount)
	default:
		msg = "no candidate has the slug or id " + key
	}
	if e.Suggestion != "" {
		msg += "; did you mean " + strconv.Quote(e.Suggestion) + "?"
	}
	return msg
}

// recordAnswers are the one-record answers of a dataset, prepared at load,
// and the indexes that find them.
type recordAnswers struct {
	party, district, candidate []*list // in published order
	candidateBySlug            map[string]int
	candidateByID              map[string]int
	candidateSlugs             []string
	partySlugs                 []string
}

// localityAnswers are the answers of the locality parameter, prepared at
// load.
type localityAnswers struct {
	byKey map[string]*list // LocalityKey of a name, English name or slug -> its districts
	names []string         // every locality name and English name, for suggestions
}

// Lookup finds one record of a collection by its key, as Record reads
// it, and returns its index in Parties, Districts or Candidates.
func (d *Dataset) Lookup(c Collection, key string) (int, bool) {
	lower := strings.ToLower(key)
	switch c {
	case Parties:
		if i, ok := d.partyBySlug[lower]; ok {
			return i, true
		}
		i, ok := d.partyByID[lower]
		return i, ok
	case Districts:
		n, isNumber := decimal(key)
		if !isNumber {
			n = d.districtByID[lower]
		}
		// Numbers are 1 to DistrictCount and districts in number order,
		// as the load checks.
		if n >= 1 && n <= len(d.districts) {
			return n - 1, true
		}
	case Candidates:
		if i, ok := d.recs.candidateBySlug[lower]; ok {
			return i, true
		}
		i, ok := d.recs.candidateByID[lower]
		return i, ok
	}
	return 0, false
}

// Record answers a request for one record of a collection by its key: a
// party or a candidate by slug or UUID, a district by number (decimal
// digits, so "05" is district 5) or UUID, in any letter case. A key that
// names no record gives a *NotFoundError.
func (d *Dataset) Record(c Collection, key string) (Result, error) {
	i, found := d.Lookup(c, key)
	suggestion := ""
	switch c {
	case Parties:
		if found {
			return one(d.recs.party[i]), nil
		}
		suggestion = Nearest(strings.ToLower(key), d.recs.partySlugs)
	case Districts:
		if found {
			return one(d.recs.district[i]), nil
		}
	case Candidates:
		if found {
			return one(d.recs.candidate[i]), nil
		}
		suggestion = Nearest(strings.ToLower(key), d.recs.candidateSlugs)
	default:
		return Result{}, &CollectionError{Name: string(c)}
	}
	return Result{}, &NotFoundError{Collection: c, Key: key, Suggestion: suggestion}
}

func one(l *list) Result { return Result{list: l, n: 1} }

// queryDistricts answers the districts collection: every district, or,
// with the locality parameter, the districts holding that locality.
func (d *Dataset) queryDistricts(p Params) (Result, error) {
	var bad []InvalidParam
	refuse := func(name, reason string) { bad = append(bad, InvalidParam{Name: name, Reason: reason}) }
	v, ok := single(p, "locality", refuse)
	switch {
	case len(bad) > 0:
		return Result{}, &ParamError{Params: bad}
	case !ok:
		return Result{list: d.districtsList, n: len(d.districts)}, nil
	}
	if l := d.localities.byKey[LocalityKey(v)]; l != nil {
		return Result{list: l, n: len(l.ends)}, nil
	}
	reason := "names no locality of this dataset; give a locality's name, English name or slug"
	if near := closest(LocalityKey(v), d.localities.names, 3); len(near) > 0 {
		reason += "; did you mean " + orList(near) + "?"
	}
	refuse("locality", reason)
	return Result{}, &ParamError{Params: bad}
}

// LocalityKey is what the locality parameter compares: the name as a slug,
// so that letter case, accents, spaces and punctuation make no difference
// ("Birżebbuġa", "BIRZEBBUGA" and "birzebbuga" are one key, and so are
// "San Pawl il-Baħar" and "san pawl il bahar").
func LocalityKey(name string) string { return Slugify(name) }

// indexRecords prepares the one-record answers and the locality lookups,
// once the records are in their published order.
func (d *Dataset) indexRecords(lc *listCompressor) {
	// One writer, reset for each record: a new one per record would cost
	// more than the record's compression.
	fw := lc.fast
	prepare := func(tag string, record []byte, pos int) *list {
		// Sized to the record: a dataset of many small records holds
		// one of these for each, and growing it would double it.
		l := &list{tag: tag, data: make([]byte, 0, len(envelopeStart)+len(record))}
		l.data = append(l.data, envelopeStart...)
		l.add(record, pos)
		l.compressOne(fw, &lc.buf)
		l.tagAll(d.Version, false)
		return l
	}
	// Each record is copied from its collection's list, where it was
	// encoded already, in the same order.
	encoded := func(l *list, i int) []byte { return Result{list: l, n: len(l.ends)}.Record(i) }
	r := &d.recs
	for i, p := range d.parties {
		r.party = append(r.party, prepare("rp"+strconv.Itoa(i), encoded(d.partiesList, i), i))
		r.partySlugs = append(r.partySlugs, p.Slug)
	}
	for i, dist := range d.districts {
		r.district = append(r.district, prepare("rd"+strconv.Itoa(dist.Number), encoded(d.districtsList, i), i))
	}
	r.candidateBySlug = make(map[string]int, len(d.candidates))
	r.candidateByID = make(map[string]int, len(d.candidates))
	all := d.candidateLists[d.candidateKey(0, 0)]
	for i, c := range d.candidates {
		r.candidate = append(r.candidate, prepare("rc"+strconv.Itoa(i), encoded(all, i), i))
		r.candidateBySlug[c.Slug] = i
		r.candidateByID[c.ID] = i
		r.candidateSlugs = append(r.candidateSlugs, c.Slug)
	}

	// Each key's districts, in number order; keys holding the same
	// districts share one list.
	numbers := map[string][]int{}
	seen := map[string]bool{}
	for _, dist := range d.districts {
		for _, loc := range dist.Localities {
			keys := []string{LocalityKey(loc.Name), loc.Slug}
			names := []string{loc.Name}
			if loc.NameEN != nil {
				keys = append(keys, LocalityKey(*loc.NameEN))
				names = append(names, *loc.NameEN)
			}
			for _, k := range keys {
				if k != "" && !slices.Contains(numbers[k], dist.Number) {
					numbers[k] = append(numbers[k], dist.Number)
				}
			}
			for _, n := range names {
				if !seen[n] {
					seen[n] = true
					d.localities.names = append(d.localities.names, n)
				}
			}
		}
	}
	slices.SortFunc(d.localities.names, func(a, b string) int { return strings.Compare(Fold(a), Fold(b)) })
	d.localities.byKey = make(map[string]*list, len(numbers))
	lists := map[string]*list{}
	for key, ns := range numbers {
		slices.Sort(ns)
		tag := "l"
		for i, n := range ns {
			if i > 0 {
				tag += "."
			}
			tag += strconv.Itoa(n)
		}
		l := lists[tag]
		if l == nil && len(ns) == 1 {
			// One district's answer: its bytes and gzip stream are those
			// of the district's own, shared (neither changes once made);
			// only the tag and the ETags are the list's own.
			shared := *d.recs.district[ns[0]-1]
			l = &shared
			l.tag, l.etags, l.defaultETag = tag, nil, ""
			l.tagAll(d.Version, false)
			lists[tag] = l
		}
		if l == nil {
			l = &list{tag: tag}
			l.data = append(l.data, envelopeStart...)
			for _, n := range ns {
				l.add(d.recs.district[n-1].data[len(envelopeStart):], n-1)
			}
			l.compress(lc, false)
			l.tagAll(d.Version, false)
			lists[tag] = l
		}
		d.localities.byKey[key] = l
	}
}

// compressOne prepares a one-record list's gzip encoding as compress does,
// with fw reset for it and buf as its scratch. Its one answer holds the record, so the stream has
// one flush point, after it: a flush point costs a Huffman table, and the
// tables were most of the time a dataset of many candidates took to load.
func (l *list) compressOne(fw *flate.Writer, buf *bytes.Buffer) {
	buf.Reset()
	fw.Reset(buf)
	_, _ = fw.Write(l.data) // a bytes.Buffer does not fail
	_ = fw.Flush()
	l.gz = compressed{
		stream: bytes.Clone(buf.Bytes()), // no spare capacity, held for each record
		ends:   []int{-1, buf.Len()},
		crcs:   []uint32{0, crc32.ChecksumIEEE(l.data)},
	}
}

// closest returns up to n of names whose keys are nearest key: within a
// few edits, or beginning with it, nearest first.
func closest(key string, names []string, n int) []string {
	if key == "" || len(key) > 64 { // no locality has a name that long
		return nil
	}
	type scored struct {
		name     string
		distance int
	}
	var found []scored
	for _, name := range names {
		k := LocalityKey(name)
		dist := EditDistance(key, k)
		if len(key) >= 3 && strings.HasPrefix(k, key) {
			dist = min(dist, 1)
		}
		// A name written in full ("Ħal Għaxaq", "Ħaż-Żebbuġ") holds the
		// name the data uses as a whole word, and the other way round.
		if len(key) >= 3 && len(k) >= 3 && (hasWord(key, k) || hasWord(k, key)) {
			dist = min(dist, 1)
		}
		if dist <= max(2, len(k)/3) {
			found = append(found, scored{name, dist})
		}
	}
	slices.SortStableFunc(found, func(a, b scored) int { return a.distance - b.distance })
	out := make([]string, 0, n)
	for _, s := range found[:min(n, len(found))] {
		out = append(out, s.name)
	}
	return out
}

// hasWord reports whether the key s holds the key w as whole words: equal,
// or bounded by hyphens or the ends.
func hasWord(s, w string) bool {
	return strings.Contains("-"+s+"-", "-"+w+"-")
}

// EditDistance is the number of letters to insert, delete or replace to
// turn a into b (the Levenshtein distance, in runes): the measure of every
// "did you mean" of the project.
func EditDistance(a, b string) int {
	ra, rb := []rune(a), []rune(b)
	prev := make([]int, len(rb)+1)
	cur := make([]int, len(rb)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(ra); i++ {
		cur[0] = i
		for j := 1; j <= len(rb); j++ {
			cost := 1
			if ra[i-1] == rb[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return prev[len(rb)]
}

// orList joins names as a person would: "A", "A or B", "A, B or C".
func orList(names []string) string {
	if len(names) == 1 {
		return names[0]
	}
	return fmt.Sprintf("%s or %s", strings.Join(names[:len(names)-1], ", "), names[len(names)-1])
}
