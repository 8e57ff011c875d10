// Package dataset owns ballot's data: the record types, loading and checking
// a dataset directory, the indexes built once at load time (the lists of
// records each filter answers with, the lookups by key and by locality, the
// facts the readers' filters read), and the one query function that both the
// HTTP server and the command line call. A query returns records, or their
// positions: which list, which page, what the filters were understood to
// be (Result, Rows).
//
// How an answer is written, the JSON envelope and meta, ETags, gzip and
// CSV, is package answers', which prepares its bytes from a Dataset once
// when it loads. dataset must not import answers, archive, server or
// commands, nor anything of HTTP: it knows records and rules, not the
// wire.
package dataset

import (
	"bytes"
	"cmp"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
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
	sheets     []CountSheet // by district number

	partyBySlug    keyIndex // lower-case slug -> index in parties
	partyByID      keyIndex
	districtByID   map[string]int // id -> district number
	partyReason    string         // the accepted values of the party parameter
	lists          []*List        // by ID
	partiesList    *List
	districtsList  *List
	candidateLists map[int]*List // by candidateKey; only the lists that hold a candidate
	emptyList      *List
	recs           recordAnswers   // one record by its key
	localities     localityAnswers // the districts holding a locality
	results        resultAnswers   // the count sheets' lists and national totals
	// What the readers' filters read of each candidate (filter.go).
	facts []candidateFacts
	names NameIndex
	// filesSize is the dataset files' size (Size).
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
		sheets:     d.sheets,
		filesSize:  r.size,
	}
	d.release()
	ds.sheetSeats()
	if opts.RecordsOnly {
		ds.order()
	} else {
		ds.index()
	}
	return ds, nil
}

// sheetSeats gives each district whose record does not say how many
// members it elects the seats of its count sheet, when it has one: the
// rules hold the two to agree where both are given, so a district's seats
// are known wherever either says.
func (d *Dataset) sheetSeats() {
	for i := range d.districts {
		dist := &d.districts[i]
		for j := range d.sheets {
			if dist.Seats == nil && d.sheets[j].DistrictID == dist.ID {
				dist.Seats = &d.sheets[j].Seats
			}
		}
	}
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
	// The version hashes the files as they are read, so that no file's
	// bytes are held once decoded: they would add the files' size to the
	// peak memory of the load.
	h := sha256.New()
	size := 0
	for _, name := range FileNames() {
		if name == CountsFile {
			// The count sheets are optional: a dataset without them is
			// read, and its version made, as before they existed.
			if _, err := fs.Stat(fsys, name); errors.Is(err, fs.ErrNotExist) {
				continue
			}
			d.hasCounts = true
		}
		b, ok := readFile(ctx, fsys, name, opts.maxFileBytes(), r)
		if ok && opts.Keep != nil {
			opts.Keep(name, b)
		}
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
		case CountsFile:
			d.counts = decodeArray[sheetFile](name, b, r)
		}
	}
	d.current = opts.Current != nil && d.manifestOK && opts.Current(d.manifest.Election)
	d.check(r)
	if !r.Valid() {
		r.finish()
		return nil, checked{}, r
	}
	d.warn(r)
	r.finish()
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

// index sorts the records into their published order and makes the
// indexes a query reads, so a query is a lookup.
func (d *Dataset) index() {
	d.order()
	d.indexLists()
	d.indexResults()
	d.indexRecords()
	d.indexFilters()
}

// order sorts the records into their published order, with the maps of
// ids that sorting needs: all that Compare asks of a dataset.
func (d *Dataset) order() {
	slices.SortFunc(d.parties, func(a, b Party) int {
		return cmp.Or(strings.Compare(Fold(a.Name), Fold(b.Name)), strings.Compare(a.ID, b.ID))
	})
	slices.SortFunc(d.districts, func(a, b District) int { return cmp.Compare(a.Number, b.Number) })
	slices.SortFunc(d.sheets, func(a, b CountSheet) int { return cmp.Compare(a.DistrictNumber, b.DistrictNumber) })

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

// indexLists makes the lists of records a query can answer with: each
// collection whole, and the candidates of each district filter and party
// filter that some candidate passes.
func (d *Dataset) indexLists() {
	d.lists = nil
	d.emptyList = d.newList(Candidates, "c-", nil)
	d.partiesList = d.newList(Parties, "p", identity(len(d.parties)))
	d.districtsList = d.newList(Districts, "d", identity(len(d.districts)))
	d.candidateLists = map[int]*List{}
	if len(d.candidates) == 0 {
		return
	}
	all := d.newList(Candidates, "c"+strconv.Itoa(d.candidateKey(0, 0)), identity(len(d.candidates)))
	d.candidateLists[d.candidateKey(0, 0)] = all
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
	// Each list is allocated at its size once the sizes are known.
	sizes := map[int]int{}
	var order []int
	for ci := range d.candidates {
		for _, k := range keys(ci) {
			if _, seen := sizes[k]; !seen {
				order = append(order, k)
			}
			sizes[k]++
		}
	}
	for _, k := range order {
		d.candidateLists[k] = d.newList(Candidates, "c"+strconv.Itoa(k), make([]int32, 0, sizes[k]))
	}
	for ci := range d.candidates {
		for _, k := range keys(ci) {
			l := d.candidateLists[k]
			l.Pos = append(l.Pos, int32(ci))
		}
	}
}

// newList adds a list of records at positions pos of c to the dataset's
// lists.
func (d *Dataset) newList(c Collection, tag string, pos []int32) *List {
	l := &List{ID: len(d.lists), Tag: tag, Collection: c, Pos: pos}
	d.lists = append(d.lists, l)
	return l
}

// identity is the positions 0 to n-1: a whole collection.
func identity(n int) []int32 {
	pos := make([]int32, n)
	for i := range pos {
		pos[i] = int32(i)
	}
	return pos
}

// List is the records of one answer a query can give, prepared at load:
// a collection whole, or the candidates of one district filter and one
// party filter, in published order. Package answers prepares each list's
// bytes once, by its ID.
type List struct {
	// ID is the list's index in Lists.
	ID int
	// Tag names the list inside a dataset version ("p", "d", "c14").
	Tag string
	// Collection is the collection the records are of.
	Collection Collection
	// Pos holds each record's position in its collection's published
	// order: the list's i-th record is Parties()[Pos[i]], Districts()[Pos[i]]
	// or Candidates()[Pos[i]].
	Pos []int32
}

// Lists returns every list a query answers with, by ID. The slice is
// shared: callers must not modify it.
func (d *Dataset) Lists() []*List { return d.lists }

// Whole returns the list of every record of c, in published order: its
// i-th record is at position i.
func (d *Dataset) Whole(c Collection) *List {
	switch c {
	case Parties:
		return d.partiesList
	case Districts:
		return d.districtsList
	case Results:
		return d.results.all
	}
	return d.allCandidates()
}

// allCandidates is the list of every candidate.
func (d *Dataset) allCandidates() *List { return d.candidateList(0, 0) }

// Size is the size of the dataset's files, in bytes.
func (d *Dataset) Size() int { return d.filesSize }

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

// EncodeRecord is EncodeJSON without the final newline: one record, or one
// value, as it stands inside an answer.
func EncodeRecord(v any) []byte {
	var e Encoder
	return e.Record(v)
}

// EncodeJSON encodes v compactly with a final newline, leaving "<", ">" and
// "&" as they are: every body ballot serves, and every file import writes,
// is JSON for programs, never HTML, and goes through this one encoder.
func EncodeJSON(v any) []byte {
	var e Encoder
	return e.encode(v)
}

// An Encoder encodes values one after the other as EncodeJSON does, into
// one buffer it keeps: what it returns holds until its next call. The
// API's answers encode a list's records with one.
type Encoder struct {
	buf bytes.Buffer
	enc *json.Encoder
}

// Record is EncodeRecord into e's buffer.
func (e *Encoder) Record(v any) []byte {
	return bytes.TrimSuffix(e.encode(v), []byte("\n"))
}

// encode is EncodeJSON into e's buffer.
func (e *Encoder) encode(v any) []byte {
	if e.enc == nil {
		e.enc = json.NewEncoder(&e.buf)
		e.enc.SetEscapeHTML(false)
	}
	e.buf.Reset()
	if err := e.enc.Encode(v); err != nil {
		// Records and documents hold only strings, numbers, booleans,
		// and slices and structs of them, which always encode.
		panic("dataset: encoding JSON: " + err.Error())
	}
	return e.buf.Bytes()
}
