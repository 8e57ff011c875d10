// Package dataset owns ballot's data: the record types, loading and checking
// a dataset directory, the indexes built once at load time, and the one query
// function that both the HTTP server and the command line call.
//
// Two things here serve HTTP, and live here because they are made of a
// list's internals, not of HTTP: a Result's ETag is the dataset version,
// the list and the record count, prepared for every count at load; and its
// gzip encoding splices the list's DEFLATE stream, compressed at load with a
// flush at record boundaries, with the records and the tail of the answer
// (see gzip.go). Moving either to server would mean exporting those
// internals or redoing the work on every request. Which encoding to send,
// the ETag's header and 304s are server's.
package dataset

import (
	"bytes"
	"cmp"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"
)

// Dataset is a loaded, checked and indexed dataset. It is immutable: every
// answer is prepared when it loads, and a reload builds a new Dataset.
type Dataset struct {
	// Manifest is the dataset's dataset.toml.
	Manifest Manifest
	// Version is the SHA-256 of the dataset's files, in hex: it changes
	// whenever any byte of the data does.
	Version string
	// Warnings are the problems that do not stop the dataset being served.
	Warnings []Problem

	parties    []Party // in published order
	districts  []District
	candidates []Candidate

	partyBySlug    keyIndex // lower-case slug -> index in parties
	partyByID      keyIndex
	districtByID   map[string]int // id -> district number
	partyReason    string         // the accepted values of the party parameter
	partiesList    *list
	districtsList  *list
	candidateLists map[int]*list // by candidateKey; only the lists that hold a candidate
	emptyList      *list
	recs           recordAnswers   // one record by its key
	localities     localityAnswers // the districts holding a locality
	// districtFilters[n] is meta.filters' district, by number.
	districtFilters []string
	// What the readers' filters read of each candidate (filter.go).
	facts []candidateFacts
	names nameIndex
	// filesSize is the dataset files' size: a list of its records
	// reserves at most a few times it before it is encoded (newList).
	filesSize int
}

// LoadDir loads the dataset in directory dir with the default limits
// (see LoadDirContext). The path is resolved once
// (see ResolveDir) and every file is read from the directory it resolves
// to, so a publisher who replaces a symbolic link to the dataset while it
// loads gets the old dataset or the new one, never files of both.
func LoadDir(dir string) (*Dataset, error) {
	return LoadDirContext(context.Background(), dir, Options{})
}

// ConfigMapLink is the symbolic link through which a Kubernetes ConfigMap
// volume exposes its current files: the files in the volume are links
// through it, and an update replaces it at once.
const ConfigMapLink = "..data"

// ResolveDir returns the directory a load of dir reads its files from: dir
// with every symbolic link in its path followed, or, when dir holds a
// ConfigMapLink, the directory that link names. It fails when that is not
// a directory.
func ResolveDir(dir string) (string, error) {
	resolved, err := filepath.EvalSymlinks(dir)
	if err != nil {
		return "", err
	}
	if target, err := filepath.EvalSymlinks(filepath.Join(resolved, ConfigMapLink)); err == nil {
		resolved = target
	}
	fi, err := os.Stat(resolved)
	if err != nil {
		return "", err
	}
	if !fi.IsDir() {
		return "", fmt.Errorf("%s is not a directory", resolved)
	}
	return resolved, nil
}

// Load reads, checks and indexes the dataset held in fsys. When the dataset
// has errors, the error returned is a *Report listing every one of them.
func Load(fsys fs.FS) (*Dataset, error) {
	return LoadContext(context.Background(), fsys, Options{})
}

// LoadContext is Load within opts' limits, stopping with ctx's error when
// ctx ends before the dataset is read and checked.
func LoadContext(ctx context.Context, fsys fs.FS, opts Options) (*Dataset, error) {
	d, r, err := check(ctx, fsys, opts)
	if err != nil {
		return nil, err
	}
	ds := &Dataset{
		Manifest:   d.manifest,
		Version:    r.version,
		Warnings:   r.Warnings,
		parties:    d.parties.recs,
		districts:  d.districts.recs,
		candidates: d.candidates.recs,
		filesSize:  r.size,
	}
	d.release()
	if opts.RecordsOnly {
		ds.order()
	} else {
		ds.index()
	}
	return ds, nil
}

// checked is the report of a dataset that check found valid, with the
// dataset's version.
type checked struct {
	*Report
	version string
	size    int // the files' size, in bytes
}

// check reads, decodes and checks the dataset held in fsys: a *Report
// error when it has errors, ctx's error when ctx ends first.
func check(ctx context.Context, fsys fs.FS, opts Options) (*records, checked, error) {
	r := &Report{warn: opts.Warn}
	d := &records{}
	files := [...]string{ManifestFile, PartiesFile, DistrictsFile, CandidatesFile}
	// The version hashes the files as they are read, so that no file's
	// bytes are held once decoded: they would add the files' size to the
	// peak memory of the load.
	h := sha256.New()
	size := 0
	for _, name := range files {
		b, ok := readFile(ctx, fsys, name, opts.maxFileBytes(), r)
		h.Write([]byte(name))
		h.Write([]byte(strconv.Itoa(len(b))))
		h.Write(b)
		size += len(b)
		if ok && name != ManifestFile {
			ok = scanJSON(ctx, name, b, r)
		}
		if err := ctx.Err(); err != nil {
			return nil, checked{}, err
		}
		if !ok {
			continue
		}
		switch name {
		case ManifestFile:
			d.manifest, d.manifestOK = decodeManifest(b, r)
			if d.manifestOK {
				checkManifestText(d.manifest, r)
			}
		case PartiesFile:
			d.parties = decodeArray[Party](name, b, r)
		case DistrictsFile:
			d.districts = decodeArray[District](name, b, r)
		case CandidatesFile:
			d.candidates = decodeArray[Candidate](name, b, r)
		}
	}
	d.check(r)
	if !r.Valid() {
		return nil, checked{}, r
	}
	d.warn(r)
	return d, checked{r, hex.EncodeToString(h.Sum(nil)), size}, nil
}

// LoadFiles loads a dataset held in memory, keyed by file name (ManifestFile
// and the three JSON files), as Load does: the importer checks what it is
// about to write with exactly the rules serve applies.
func LoadFiles(files map[string][]byte) (*Dataset, error) {
	return Load(Files(files))
}

// CheckFiles applies to a dataset held in memory, keyed by file name as
// for LoadFiles, every rule LoadFiles applies, and stops there, as
// CheckDirContext does: the importer checks what it is about to write
// without preparing the answers a server gives, which would be most of its
// memory. Files are not refused for their size: the importer applies its
// own limit. It returns the warnings of a valid dataset, or a *Report of
// every problem of an invalid one.
func CheckFiles(files map[string][]byte) ([]Problem, error) {
	var largest int64
	for _, b := range files {
		largest = max(largest, int64(len(b)))
	}
	d, r, err := check(context.Background(), Files(files), Options{MaxFileBytes: largest + 1})
	if err != nil {
		return nil, err
	}
	d.release()
	return r.Warnings, nil
}

// Files is a flat directory of files held in memory, keyed by name. It is
// an fs.FS for fs.ReadFile, which is all Load and the importer ask of one:
// files built in memory are checked or imported without touching a disk.
type Files map[string][]byte

// Open opens the named file for reading, as a regular file of its size, so
// that a load reads it as it reads a file on disk.
func (m Files) Open(name string) (fs.File, error) {
	b, ok := m[name]
	if !ok {
		return nil, &fs.PathError{Op: "open", Path: name, Err: fs.ErrNotExist}
	}
	return &memFile{Reader: bytes.NewReader(b), b: b, info: memInfo{name: name, size: int64(len(b))}}, nil
}

// memFile is an open file of Files.
type memFile struct {
	*bytes.Reader
	b    []byte
	info memInfo
}

func (f *memFile) Stat() (fs.FileInfo, error) { return f.info, nil }
func (f *memFile) Close() error               { return nil }

// memInfo describes a file of Files: a regular, read-only file.
type memInfo struct {
	name string
	size int64
}

func (i memInfo) Name() string       { return i.name }
func (i memInfo) Size() int64        { return i.size }
func (i memInfo) Mode() fs.FileMode  { return 0o444 }
func (i memInfo) ModTime() time.Time { return time.Time{} }
func (i memInfo) IsDir() bool        { return false }
func (i memInfo) Sys() any           { return nil }

// ReadFile returns a copy of the named file.
func (m Files) ReadFile(name string) ([]byte, error) {
	b, ok := m[name]
	if !ok {
		return nil, &fs.PathError{Op: "open", Path: name, Err: fs.ErrNotExist}
	}
	return slices.Clone(b), nil
}

// Parties returns the parties in published order. The slice is shared:
// callers must not modify it.
func (d *Dataset) Parties() []Party { return d.parties }

// Districts returns the districts in published order (by number).
func (d *Dataset) Districts() []District { return d.districts }

// Candidates returns every candidate in published order.
func (d *Dataset) Candidates() []Candidate { return d.candidates }

// index sorts the records into their published order and prepares every
// answer the API can give, so a request is a lookup and a write.
func (d *Dataset) index() {
	d.order()
	d.prepareFilters()
	d.prepare()
}

// order sorts the records into their published order, with the maps of
// ids that sorting needs: all that Compare asks of a dataset.
func (d *Dataset) order() {
	slices.SortFunc(d.parties, func(a, b Party) int {
		return cmp.Or(strings.Compare(Fold(a.Name), Fold(b.Name)), strings.Compare(a.ID, b.ID))
	})
	slices.SortFunc(d.districts, func(a, b District) int { return cmp.Compare(a.Number, b.Number) })

	d.partyBySlug = newKeyIndex(len(d.parties), d.partySlug)
	d.partyByID = newKeyIndex(len(d.parties), d.partyID)
	d.partyReason = partyReason(d.partyBySlug, d.partySlug)
	d.districtByID = make(map[string]int, len(d.districts))
	for _, dist := range d.districts {
		d.districtByID[dist.ID] = dist.Number
	}

	type sortKey struct{ family, given string }
	keys := make(map[string]sortKey, len(d.candidates))
	for _, c := range d.candidates {
		keys[c.ID] = sortKey{Fold(c.FamilyName), Fold(c.GivenName)}
	}
	slices.SortFunc(d.candidates, func(a, b Candidate) int {
		ka, kb := keys[a.ID], keys[b.ID]
		return cmp.Or(
			cmp.Compare(d.districtByID[a.PrimaryDistrictID], d.districtByID[b.PrimaryDistrictID]),
			strings.Compare(ka.family, kb.family),
			strings.Compare(ka.given, kb.given),
			strings.Compare(a.ID, b.ID),
		)
	})
}

// prepare prepares every answer the API can give.
func (d *Dataset) prepare() {
	d.emptyList = newList[Candidate]("c-", nil, 0)
	// A record encoded takes about twice its bytes in the file at most
	// (every absent optional field written as null): a list reserves no
	// more than three times the files' size, and grows past it if needed.
	most := 3 * d.filesSize
	d.partiesList = newList("p", d.parties, most)
	d.districtsList = newList("d", d.districts, most)
	d.candidateLists = map[int]*list{}
	lists := []*list{d.emptyList, d.partiesList, d.districtsList}
	if len(d.candidates) > 0 {
		// Every candidate is encoded once, into the list of all of them;
		// the lists of a filter copy the records from it, each list
		// allocated at its size once the sizes are known.
		all := newList("c"+strconv.Itoa(d.candidateKey(0, 0)), d.candidates, most)
		d.candidateLists[d.candidateKey(0, 0)] = all
		lists = append(lists, all)
		keys := func(ci int) []int {
			c := &d.candidates[ci]
			dn := d.districtByID[c.PrimaryDistrictID]
			ks := []int{d.candidateKey(dn, 0)}
			if c.PartyID != nil { // independents belong to no party's list
				pi, _ := d.partyByID.find(*c.PartyID, d.partyID)
				pi++
				ks = append(ks, d.candidateKey(0, pi), d.candidateKey(dn, pi))
			}
			return ks
		}
		type size struct{ records, bytes int }
		sizes := map[int]size{}
		var order []int
		for ci := range d.candidates {
			n := len(all.record(ci)) + 1 // and a comma
			for _, k := range keys(ci) {
				sz, seen := sizes[k]
				if !seen {
					order = append(order, k)
				}
				sizes[k] = size{sz.records + 1, sz.bytes + n}
			}
		}
		for _, k := range order {
			sz := sizes[k]
			l := &list{
				tag:  "c" + strconv.Itoa(k),
				data: append(make([]byte, 0, len(envelopeStart)+sz.bytes), envelopeStart...),
				ends: make([]int, 0, sz.records),
				pos:  make([]int32, 0, sz.records),
			}
			d.candidateLists[k] = l
			lists = append(lists, l)
		}
		for ci := range d.candidates {
			record := all.record(ci)
			for _, k := range keys(ci) {
				d.candidateLists[k].add(record, ci)
			}
		}
	}
	lc := listCompressors.Get().(*listCompressor)
	defer func() {
		lc.buf = bytes.Buffer{} // not kept: as large as the largest list
		listCompressors.Put(lc)
	}()
	for _, l := range lists {
		limited := l != d.partiesList && l != d.districtsList
		l.compress(lc, limited)
		l.tagAll(d.Version, limited)
	}
	d.indexRecords()
	d.indexFilters()
}

// allCandidates is the list of every candidate.
func (d *Dataset) allCandidates() *list { return d.candidateList(0, 0) }

func (d *Dataset) partySlug(i int) string     { return d.parties[i].Slug }
func (d *Dataset) partyID(i int) string       { return d.parties[i].ID }
func (d *Dataset) candidateSlug(i int) string { return d.candidates[i].Slug }
func (d *Dataset) candidateID(i int) string   { return d.candidates[i].ID }

// keyIndex finds a record by a key no two records share, as a map would,
// in a twelfth of a map's memory: the records' indexes, sorted by key.
// A dataset of many small records would hold a map entry of 30 or more
// bytes per record and key, more than some records take in the file.
type keyIndex []int32

// newKeyIndex indexes n records by key(i).
func newKeyIndex(n int, key func(i int) string) keyIndex {
	ix := make(keyIndex, n)
	for i := range ix {
		ix[i] = int32(i)
	}
	slices.SortFunc(ix, func(a, b int32) int { return strings.Compare(key(int(a)), key(int(b))) })
	return ix
}

// find returns the index of the record whose key(i) is k.
func (ix keyIndex) find(k string, key func(i int) string) (int, bool) {
	j, found := slices.BinarySearchFunc(ix, k, func(e int32, k string) int { return strings.Compare(key(int(e)), k) })
	if !found {
		return 0, false
	}
	return int(ix[j]), true
}

// candidateKey numbers the candidate lists: district 0 and party 0 mean "no
// filter"; party p > 0 is the party at index p-1.
func (d *Dataset) candidateKey(district, party int) int {
	return district*(len(d.parties)+1) + party
}

const envelopeStart = `{"data":[`

// answerFormat names the shape of the answers around their records (the
// envelope and the keys of meta) and is part of every answer's ETag with
// the dataset version, so that a release that answers the same data in
// another shape does not confirm a client's old body with a 304.
// TestAnswerFormat holds it to the shape: change one, change the other.
const answerFormat = "f3"

// list is one prepared answer: the start of the envelope and the encoded
// records of one filter, in order, with the offset at which each ends so that
// the first n records are a slice of data.
type list struct {
	tag  string // identifies the list inside a dataset version (ETags)
	data []byte
	ends []int
	// pos holds each record's position in its collection's published
	// order (Parties, Districts or Candidates), so that a result gives its
	// records as values without decoding what was just encoded.
	pos []int32
	gz  compressed
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
		last = min(len(l.ends), MaxLimit)
	}
	l.etags = make([]string, last+1)
	for n := range l.etags {
		l.etags[n] = `W/"` + version[:16] + "-" + answerFormat + l.tag + "-" + strconv.Itoa(n) + `"`
	}
	l.whole = `W/"` + version[:16] + "-" + answerFormat + l.tag + "-" + strconv.Itoa(len(l.ends)) + `"`
	if n := len(l.ends); limited && n < DefaultLimit {
		l.defaultETag = `W/"` + version[:16] + "-" + answerFormat + l.tag + "-" + strconv.Itoa(n) + "-l" + strconv.Itoa(DefaultLimit) + `"`
	}
}

// add appends a record, the one at position pos of its collection.
func (l *list) add(record []byte, pos int) {
	if len(l.ends) > 0 {
		l.data = append(l.data, ',')
	}
	l.data = append(l.data, record...)
	l.ends = append(l.ends, len(l.data))
	l.pos = append(l.pos, int32(pos))
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
	l := &list{tag: tag, ends: make([]int, 0, len(records)), pos: make([]int32, 0, len(records))}
	var e recordEncoder
	size := len(envelopeStart)
	if len(records) < sample {
		for i := range records {
			size += len(e.encode(&records[i])) + 1 // and a comma
		}
	}
	l.data = append(make([]byte, 0, size), envelopeStart...)
	for i := range records {
		if i == sample {
			left := len(records) - i
			per := (len(l.data)-len(envelopeStart))/i + 1
			l.data = slices.Grow(l.data, min(left*per+left*per/16, most))
		}
		l.add(e.encode(&records[i]), i)
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

// recordEncoder encodes records one after the other as encodeRecord does,
// into one buffer: what encode returns holds until the next call.
type recordEncoder struct {
	buf bytes.Buffer
	enc *json.Encoder
}

func (e *recordEncoder) encode(v any) []byte {
	if e.enc == nil {
		e.enc = json.NewEncoder(&e.buf)
		e.enc.SetEscapeHTML(false)
	}
	e.buf.Reset()
	if err := e.enc.Encode(v); err != nil {
		// As EncodeJSON: records always encode.
		panic("dataset: encoding JSON: " + err.Error())
	}
	return bytes.TrimSuffix(e.buf.Bytes(), []byte("\n"))
}

// encodeRecord encodes one record without the final newline.
func encodeRecord(v any) []byte {
	return bytes.TrimSuffix(EncodeJSON(v), []byte("\n"))
}

// EncodeJSON encodes v compactly with a final newline, leaving "<", ">" and
// "&" as they are: every body ballot serves is JSON for programs, never
// HTML, and goes through this one encoder.
func EncodeJSON(v any) []byte {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		// Records and documents hold only strings, numbers, booleans,
		// and slices and structs of them, which always encode.
		panic("dataset: encoding JSON: " + err.Error())
	}
	return b.Bytes()
}
