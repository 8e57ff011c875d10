package dataset

import (
	"iter"
	"slices"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"ballot/suggest"
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
	// District is, for a count sheet, the number of the district the key
	// names, which has no sheet; 0 when the key names no district.
	District int
	// Districts is how many districts the dataset has, numbered from 1,
	// for a district or a count sheet; 0 when not known, and the message
	// does not say.
	Districts int
}

// Error names the collection and the key, and suggests a slug when the key
// is one edit away from one. A key that is long or holds anything but
// printable characters is not repeated: it would only make the message
// unreadable.
func (e *NotFoundError) Error() string {
	key := QuoteKey(e.Key)
	var msg string
	switch e.Collection {
	case Parties:
		msg = "no party has the slug or id " + key
	case Districts:
		msg = "no district has the number or id " + key + e.numbered()
	case Results:
		msg = "no count sheet has the district number or id " + key + e.numbered()
		if e.District > 0 {
			msg = "district " + strconv.Itoa(e.District) + " has no count sheet in this dataset"
		}
	default:
		msg = "no candidate has the slug or id " + key
	}
	return msg + suggest.OfferClause(suggest.Quoted(e.Suggestion)...)
}

// numbered says how the districts are numbered, when the error knows.
func (e *NotFoundError) numbered() string {
	if e.Districts == 0 {
		return ""
	}
	return "; districts are numbered 1 to " + strconv.Itoa(e.Districts)
}

// QuoteKey is a key a client asked for, as a message repeats it: quoted,
// or "this key" for one that is long or holds anything but printable
// characters, which would only make the message unreadable.
func QuoteKey(key string) string {
	if len(key) <= 100 && utf8.ValidString(key) && strings.IndexFunc(key, func(r rune) bool { return !unicode.IsPrint(r) }) < 0 {
		return strconv.Quote(key)
	}
	return "this key"
}

// recordAnswers are the indexes that find one record by its key. The
// answer itself is a Pick made on request of the record in its
// collection's list: preparing one for each record, with its own bytes,
// gzip stream and ETags, made a dataset of many small records weigh many
// times its files.
type recordAnswers struct {
	candidateBySlug keyIndex
	candidateByID   keyIndex
}

// localityAnswers are the answers of the locality parameter, prepared at
// load: each key's districts, as records of the districts list.
type localityAnswers struct {
	// bySlug is every locality, sorted by slug: a locality's slug is its
	// key, and the slug is held by the record already. A map of a
	// million keys would weigh more than the localities in the file.
	bySlug []localityRef
	// byName holds the districts of the other keys, those of a name or
	// English name that are not the locality's slug: bit n for district n.
	byName map[string]uint32
	sets   map[uint32]*Pick // the answer of each set of districts a key has
	picks  []*Pick          // the same answers, by ID
	names  []string         // every locality name and English name, for suggestions
}

// localityRef is a locality of a district: Districts()[district].Localities[i].
type localityRef struct{ district, i int32 }

// slug is the slug of the locality r.
func (d *Dataset) localitySlug(r localityRef) string {
	return d.districts[r.district].Localities[r.i].Slug
}

// localityDistricts is the set of districts holding the locality key k,
// bit n for district n; 0 for none.
func (d *Dataset) localityDistricts(k string) uint32 {
	set := d.localities.byName[k]
	refs := d.localities.bySlug
	i, _ := slices.BinarySearchFunc(refs, k, func(r localityRef, k string) int { return strings.Compare(d.localitySlug(r), k) })
	for ; i < len(refs) && d.localitySlug(refs[i]) == k; i++ {
		set |= 1 << d.districts[refs[i].district].Number
	}
	return set
}

// Lookup finds one record of a collection by its key, as Record reads
// it, and returns its index in Parties, Districts, Candidates or Sheets.
func (d *Dataset) Lookup(c Collection, key string) (int, bool) {
	lower := strings.ToLower(key)
	switch c {
	case Parties:
		if i, ok := d.partyBySlug.find(lower, d.partySlug); ok {
			return i, true
		}
		return d.partyByID.find(lower, d.partyID)
	case Districts:
		n, isNumber := decimal(key)
		if !isNumber {
			n = d.districtByID[lower]
		}
		// Numbers are 1 to the number of districts and districts in
		// number order, as the load checks.
		if n >= 1 && n <= len(d.districts) {
			return n - 1, true
		}
	case Candidates:
		if i, ok := d.recs.candidateBySlug.find(lower, d.candidateSlug); ok {
			return i, true
		}
		return d.recs.candidateByID.find(lower, d.candidateID)
	case Results:
		return d.lookupSheet(key)
	}
	return 0, false
}

// Record answers a request for one record of a collection by its key: a
// party or a candidate by slug or UUID, a district by number (decimal
// digits, so "05" is district 5) or UUID, in any letter case, and a count
// sheet by its district's number or UUID likewise. A key that
// names no record gives a *NotFoundError.
func (d *Dataset) Record(c Collection, key string) (Result, error) {
	i, found := d.Lookup(c, key)
	suggestion, district := "", 0
	switch c {
	case Parties:
		if found {
			return one(d.partiesList, i, "rp", i), nil
		}
		suggestion = suggest.Best(strings.ToLower(key), slugs(len(d.parties), d.partySlug), 1)
	case Districts:
		if found {
			return one(d.districtsList, i, "rd", d.districts[i].Number), nil
		}
	case Candidates:
		if found {
			return one(d.allCandidates(), i, "rc", i), nil
		}
		suggestion = suggest.Best(strings.ToLower(key), slugs(len(d.candidates), d.candidateSlug), 1)
	case Results:
		if found {
			return Result{list: d.results.byNumber[d.sheets[i].DistrictNumber], n: 1}, nil
		}
		if n, ok := d.Lookup(Districts, key); ok {
			district = d.districts[n].Number
		}
	default:
		return Result{}, &CollectionError{Name: string(c)}
	}
	return Result{}, &NotFoundError{Collection: c, Key: key, Suggestion: suggestion, District: district, Districts: len(d.districts)}
}

// one is the answer of the i-th record of l, a whole collection, alone,
// tagged prefix and number: "rp3", the fourth party.
func one(l *List, i int, prefix string, number int) Result {
	p := &Pick{ID: -1, Tag: prefix + strconv.Itoa(number), one: [1]int32{int32(i)}}
	p.At = p.one[:]
	return Result{list: l, n: 1, pick: p}
}

// slugs are the n slugs slug(i) gives, without a slice of them: a dataset
// of many records would hold one for nothing but a suggestion.
func slugs(n int, slug func(i int) string) iter.Seq[string] {
	return func(yield func(string) bool) {
		for i := range n {
			if !yield(slug(i)) {
				return
			}
		}
	}
}

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
	if set := d.localityDistricts(LocalityKey(v)); set != 0 {
		p := d.localities.sets[set]
		return Result{list: d.districtsList, n: len(p.At), pick: p}, nil
	}
	if len(d.localities.names) == 0 {
		bad = append(bad, InvalidParam{Name: "locality", Reason: "names no locality: the districts of this dataset list none"})
		return Result{}, &ParamError{Params: bad}
	}
	near := d.nearestLocalities(v, 3)
	reason := "names no locality of this dataset; give a locality's name, English name or slug" + suggest.OfferClause(near...)
	bad = append(bad, InvalidParam{Name: "locality", Reason: reason, Near: near})
	return Result{}, &ParamError{Params: bad}
}

// LocalityKey is what the locality parameter compares: the name as a slug,
// so that letter case, accents, spaces and punctuation make no difference
// ("Birżebbuġa", "BIRZEBBUGA" and "birzebbuga" are one key, and so are
// "San Pawl il-Baħar" and "san pawl il bahar").
func LocalityKey(name string) string { return Slugify(name) }

// indexRecords prepares the lookups of one record and of localities,
// once the records are in their published order.
func (d *Dataset) indexRecords() {
	r := &d.recs
	r.candidateBySlug = newKeyIndex(len(d.candidates), d.candidateSlug)
	r.candidateByID = newKeyIndex(len(d.candidates), d.candidateID)

	// Each key's districts, as bits; keys holding the same districts
	// share one answer.
	loc := &d.localities
	loc.byName = map[string]uint32{}
	count := 0
	for _, dist := range d.districts {
		count += len(dist.Localities)
	}
	loc.bySlug = make([]localityRef, 0, count)
	for di, dist := range d.districts {
		bit := uint32(1) << dist.Number // numbered 1 to at most MaxDistricts, as the load checks
		for li := range dist.Localities {
			l := &dist.Localities[li]
			if l.Slug != "" {
				loc.bySlug = append(loc.bySlug, localityRef{int32(di), int32(li)})
			}
			if k := LocalityKey(l.Name); k != l.Slug && k != "" {
				loc.byName[k] |= bit
			}
			if l.NameEN != nil {
				if k := LocalityKey(*l.NameEN); k != l.Slug && k != "" {
					loc.byName[k] |= bit
				}
			}
			loc.names = append(loc.names, l.Name)
			if l.NameEN != nil {
				loc.names = append(loc.names, *l.NameEN)
			}
		}
	}
	loc.names = sortNames(loc.names)
	slices.SortFunc(loc.bySlug, func(a, b localityRef) int { return strings.Compare(d.localitySlug(a), d.localitySlug(b)) })
	loc.sets = map[uint32]*Pick{}
	loc.picks = nil
	for i, r := range loc.bySlug {
		if k := d.localitySlug(r); i == 0 || k != d.localitySlug(loc.bySlug[i-1]) {
			d.prepareLocalitySet(d.localityDistricts(k))
		}
	}
	for k := range loc.byName {
		d.prepareLocalitySet(d.localityDistricts(k))
	}
}

// sortNames sorts names by their folded form, names that fold alike in
// the order given, and keeps the first of each name given more than once.
// A name given twice folds as itself, so the two meet in the sorted order:
// no map of every name is needed to find them, and a map of a million
// names weighed more than the names.
func sortNames(names []string) []string {
	slices.SortStableFunc(names, func(a, b string) int { return strings.Compare(Fold(a), Fold(b)) })
	out := names[:0]
	group := 0               // where the names of out's last folded form begin
	var many map[string]bool // the names of a group too large to search
	for i, n := range names {
		if i > 0 && Fold(n) != Fold(names[i-1]) {
			group, many = len(out), nil
		}
		switch {
		case many != nil:
			if many[n] {
				continue
			}
			many[n] = true
		case slices.Contains(out[group:], n):
			continue
		case len(out)-group == 16: // the letter case of a name gives many
			many = map[string]bool{n: true}
			for _, m := range out[group:] {
				many[m] = true
			}
		}
		out = append(out, n)
	}
	clear(names[len(out):]) // no longer held
	return out
}

// prepareLocalitySet makes the answer of a set of districts, bit n for
// district n, if not prepared yet.
func (d *Dataset) prepareLocalitySet(set uint32) {
	if d.localities.sets[set] != nil {
		return
	}
	// Districts in number order, numbered from 1, as the load checks.
	p := &Pick{ID: len(d.localities.picks)}
	tag := "l"
	for n := 1; n <= MaxDistricts; n++ {
		if set&(1<<n) == 0 {
			continue
		}
		if len(p.At) > 0 {
			tag += "."
		}
		tag += strconv.Itoa(n)
		p.At = append(p.At, int32(n-1))
	}
	p.Tag = tag
	d.localities.sets[set] = p
	d.localities.picks = append(d.localities.picks, p)
}

// nearestLocalities returns up to n of the localities' names nearest the
// name v, compared as the locality parameter is.
func (d *Dataset) nearestLocalities(v string, n int) []string {
	r := suggest.Near(LocalityKey(v))
	for i, name := range d.localities.names {
		r.Add(i, LocalityKey(name))
	}
	var names []string
	for _, i := range r.Nearest(n) {
		names = append(names, d.localities.names[i])
	}
	return names
}
