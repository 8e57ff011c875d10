// Package sheet turns a folder of CSV files, as a spreadsheet exports them,
// into the files of a dataset directory: what `ballot import` does. The
// format is described in the README ("Import from a spreadsheet").
//
// Import reports every problem it finds in one run, each as
// FILE:LINE: column: message, and returns files only when the dataset they
// make passes every rule `ballot validate` applies.
package sheet

import (
	"bufio"
	"bytes"
	"encoding/csv"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"maps"
	"slices"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/google/uuid"

	"ballot/dataset"
)

// The CSV files Import reads, beside dataset.ManifestFile.
const (
	PartiesFile    = "parties.csv"
	DistrictsFile  = "districts.csv"
	CandidatesFile = "candidates.csv"
)

// Problem is one defect of the CSV folder: the file, the line (0 for the
// file as a whole) and, where it is known, the character on it (1 for the
// first; 0 when not known), the column (or the manifest key) and what is
// wrong. A warning does not stop the import.
type Problem struct {
	File    string
	Line    int
	Char    int
	Column  string
	Message string
	Warning bool
}

// String formats the problem as FILE:LINE:CHAR: column: message, with
// "warning: " before the message of a warning, leaving out what it does
// not have.
func (p Problem) String() string {
	var b strings.Builder
	b.WriteString(p.File)
	if p.Line > 0 {
		b.WriteString(":" + strconv.Itoa(p.Line))
		if p.Char > 0 {
			b.WriteString(":" + strconv.Itoa(p.Char))
		}
	}
	if p.Column != "" {
		b.WriteString(": " + p.Column)
	}
	b.WriteString(": ")
	if p.Warning {
		b.WriteString("warning: ")
	}
	b.WriteString(p.Message)
	return b.String()
}

// Problems is the error Import returns: every problem found, warnings
// among them, in file and line order.
type Problems []Problem

func (ps Problems) Error() string {
	lines := make([]string, len(ps))
	for i, p := range ps {
		lines[i] = p.String()
	}
	return strings.Join(lines, "\n")
}

// Errors counts the problems that are not warnings.
func (ps Problems) Errors() int {
	n := 0
	for _, p := range ps {
		if !p.Warning {
			n++
		}
	}
	return n
}

// fileOrder ranks the files a problem may name: the manifest, the CSV
// files in the order they are read, then the JSON files checked last.
var fileOrder = []string{dataset.ManifestFile, PartiesFile, DistrictsFile, CandidatesFile}

// sort puts the problems in file and line order, keeping the order in
// which they were found within a line.
func (ps Problems) sort() {
	rank := func(file string) int {
		if i := slices.Index(fileOrder, file); i >= 0 {
			return i
		}
		return len(fileOrder)
	}
	slices.SortStableFunc(ps, func(a, b Problem) int {
		if c := rank(a.File) - rank(b.File); c != 0 {
			return c
		}
		return a.Line - b.Line
	})
}

// Options change how Import reads the CSV files.
type Options struct {
	// Delimiter is the character between the cells of every CSV file:
	// ',', ';' or '\t'. Zero guesses it for each file from its header
	// row.
	Delimiter rune
}

// Delimiters are the characters Import knows to separate cells, in the
// order a tie between them is settled.
var Delimiters = []rune{',', ';', '\t'}

// DelimiterName names a delimiter in a message: ',' and ';' quoted, a tab
// as "tabs".
func DelimiterName(d rune) string {
	if d == '\t' {
		return "tabs"
	}
	return "'" + string(d) + "'"
}

// Read says how one CSV file was read.
type Read struct {
	File      string
	Delimiter rune
	Guessed   bool // from the header row, rather than given in Options
}

// Result is what ImportWith gives: the dataset's files (nil when there
// are errors), how each CSV file was read, and every problem, warnings
// among them.
type Result struct {
	Files    map[string][]byte
	Read     []Read
	Problems Problems
}

// columns of each file: the required ones, then the optional ones.
var (
	partyColumns     = columns{required: []string{"slug", "name", "short_name"}, optional: []string{"id", "name_en", "color", "website", "leader_name", "logo_url", "wikipedia_url"}}
	districtColumns  = columns{required: []string{"number", "locality"}, optional: []string{"id", "district_name", "locality_slug", "locality_name_en", "split", "note", "source_url"}}
	candidateColumns = columns{required: []string{"given_name", "family_name", "party", "districts"}, optional: []string{"id", "name", "slug", "elected", "is_incumbent", "website", "photo_url"}}
)

type columns struct{ required, optional []string }

func (c columns) all() []string { return append(slices.Clone(c.required), c.optional...) }

// Import reads dataset.toml, parties.csv, districts.csv and candidates.csv
// from src and returns the files of the dataset they describe, keyed by
// name: the manifest as it is, and the three JSON files, indented, records
// in the order of the sheets (districts by number). The same input always
// gives the same bytes. When anything is wrong, the error is Problems.
// Warnings are part of that error when there are errors too, and
// otherwise not returned: ImportWith gives them.
func Import(src fs.FS) (map[string][]byte, error) {
	res, err := ImportWith(src, Options{})
	return res.Files, err
}

// ImportWith is Import with options, and tells how each CSV file was read
// and what warnings it gave. The error, when there is one, is the Result's
// Problems.
func ImportWith(src fs.FS, opts Options) (Result, error) {
	im := importer{opts: opts}
	files, err := im.run(src)
	im.problems.sort()
	res := Result{Read: im.reads, Problems: im.problems}
	if err != nil {
		return res, err
	}
	if im.problems.Errors() > 0 {
		return res, im.problems
	}
	res.Files = files
	return res, nil
}

func (im *importer) run(src fs.FS) (map[string][]byte, error) {
	manifest := im.manifest(src)
	parties := im.parties(src)
	districts := im.districts(src)
	candidates := im.candidates(src, parties, districts)
	if im.problems.Errors() > 0 {
		return nil, nil
	}
	out := map[string][]byte{dataset.ManifestFile: manifest}
	out[dataset.PartiesFile] = encode(parties.records)
	out[dataset.DistrictsFile] = encode(districts.records())
	out[dataset.CandidatesFile] = encode(candidates)
	candidates = nil // held no more while the output is checked
	// What is written must be what serve accepts: check it with the very
	// rules it applies (as validate does, without the answers a server
	// prepares). What fails here is the manifest's (a missing title, a URL
	// that is not http) or an id given in an id column that another record
	// uses too; those problems name the JSON file and pointer, as validate
	// would, since they are checked across files.
	if _, err := dataset.CheckFiles(out); err != nil {
		var report *dataset.Report
		if !errors.As(err, &report) {
			return nil, err
		}
		for _, p := range report.Errors {
			im.problems = append(im.problems, Problem{File: p.File, Column: p.Pointer, Message: p.Message})
		}
		return nil, nil
	}
	return out, nil
}

// encode writes records as a JSON array indented by two spaces, with a
// final newline, leaving "&", "<", ">" and non-ASCII letters as they are:
// the bytes a json.Encoder with SetIndent("", "  ") writes. It encodes
// each record twice, first to measure, so that the output is allocated
// once at its size rather than grown through copies of itself.
func encode[T any](records []T) []byte {
	if len(records) == 0 {
		return []byte("[]\n")
	}
	var rec bytes.Buffer
	enc := json.NewEncoder(&rec)
	enc.SetEscapeHTML(false)
	enc.SetIndent("  ", "  ") // a record is indented as an element of the array
	// record returns records[i] as the array's element, without its
	// newline, in rec's buffer, which the next call reuses.
	record := func(i int) []byte {
		rec.Reset()
		if err := enc.Encode(records[i]); err != nil {
			// Records hold only strings, numbers, booleans and slices of them.
			panic("sheet: encoding JSON: " + err.Error())
		}
		return bytes.TrimSuffix(rec.Bytes(), []byte("\n"))
	}
	// Each record is two spaces, the record, and ",\n" or, after the
	// last, "\n".
	size := len("[\n]\n") + len(records)*len("  ,\n") - 1
	for i := range records {
		size += len(record(i))
	}
	out := make([]byte, 0, size)
	out = append(out, "[\n"...)
	for i := range records {
		out = append(out, "  "...)
		out = append(out, record(i)...)
		if i < len(records)-1 {
			out = append(out, ',')
		}
		out = append(out, '\n')
	}
	return append(out, "]\n"...)
}

// importer gathers the problems of one import.
type importer struct {
	opts      Options
	reads     []Read
	problems  Problems
	namespace uuid.UUID
	keyPrefix string
	hasNS     bool
}

func (im *importer) add(file string, line int, column, format string, args ...any) {
	im.problems = append(im.problems, Problem{File: file, Line: line, Column: column, Message: fmt.Sprintf(format, args...)})
}

func (im *importer) warn(file string, line int, column, format string, args ...any) {
	im.problems = append(im.problems, Problem{File: file, Line: line, Column: column, Message: fmt.Sprintf(format, args...), Warning: true})
}

// id returns the id a row gives, or the one derived from its natural key.
func (im *importer) id(t *table, r row, key string) string {
	if given := t.get(r, "id"); given != "" {
		u, err := uuid.Parse(given)
		if err != nil || len(given) != 36 {
			im.add(t.file, r.line, "id", "%q is not a UUID (8-4-4-4-12 hex digits)", given)
			return ""
		}
		return u.String()
	}
	return im.derived(key)
}

// derived returns the id derived from a natural key.
func (im *importer) derived(key string) string {
	if !im.hasNS {
		return "" // reported once, by manifest
	}
	return uuid.NewSHA1(im.namespace, []byte(im.keyPrefix+key)).String()
}

// manifest reads dataset.toml for the id namespace; the rest of it is
// checked with the dataset's own rules once the records are built.
func (im *importer) manifest(src fs.FS) []byte {
	b, ok := im.read(src, dataset.ManifestFile)
	if !ok {
		return nil
	}
	m, problems := dataset.CheckManifest(b)
	for _, p := range problems {
		im.problems = append(im.problems, Problem{File: p.File, Line: p.Line, Char: p.Column, Column: p.Pointer, Message: p.Message})
	}
	if len(problems) > 0 {
		return b
	}
	switch ns, err := uuid.Parse(m.IDs.Namespace); {
	case m.IDs.Namespace == "":
		im.add(dataset.ManifestFile, 0, "ids.namespace", "missing: ids are derived from it; add [ids] with namespace = a UUID of your own (uuidgen makes one) and never change it")
	case err == nil:
		im.namespace, im.keyPrefix, im.hasNS = ns, m.IDs.KeyPrefix, true
	}
	return b
}

// read reads a file whole, without the byte-order mark a spreadsheet may
// write, and checks that it is UTF-8, naming the first line that is not.
func (im *importer) read(src fs.FS, name string) ([]byte, bool) {
	b, err := fs.ReadFile(src, name)
	if err != nil {
		im.unreadable(name, err)
		return nil, false
	}
	b = bytes.TrimPrefix(b, []byte("\uFEFF"))
	if at := invalidUTF8(b); at >= 0 {
		line := bytes.Count(b[:at], []byte("\n")) + 1
		char := utf8.RuneCount(b[bytes.LastIndexByte(b[:at], '\n')+1:at]) + 1
		im.notUTF8(name, line, char, b[at])
		return nil, false
	}
	return b, true
}

// unreadable reports a file that could not be opened or read.
func (im *importer) unreadable(name string, err error) {
	if errors.Is(err, fs.ErrNotExist) {
		im.add(name, 0, "", "file is missing")
		return
	}
	// The path is the problem's file already: name only why.
	var perr *fs.PathError
	if errors.As(err, &perr) {
		err = perr.Err
	}
	im.add(name, 0, "", "cannot be read: %v", err)
}

// notUTF8 reports the byte c, at line and char, that is not UTF-8.
func (im *importer) notUTF8(name string, line, char int, c byte) {
	how := saveAsUTF8
	if name == dataset.ManifestFile { // TOML, written in a text editor
		how = `save it again as UTF-8 (in a text editor's Save As, the encoding "UTF-8")`
	}
	im.problems = append(im.problems, Problem{File: name, Line: line, Char: char, Message: fmt.Sprintf("is not UTF-8 text: byte 0x%02X is not UTF-8, so the file was saved in another encoding (such as Windows-1252, Latin-1 or Latin-3); %s", c, how)})
}

// saveAsUTF8 tells how to save a sheet as UTF-8 text.
const saveAsUTF8 = `save it again as "CSV UTF-8": in Excel, File > Save As > "CSV UTF-8 (Comma delimited)"; in LibreOffice Calc, File > Save As > "Text CSV" with "Edit filter settings" and the character set "Unicode (UTF-8)"`

// invalidUTF8 returns the offset of the first byte of b that is not part
// of UTF-8 text, or -1 when b is UTF-8.
func invalidUTF8(b []byte) int {
	for i := 0; i < len(b); {
		r, size := utf8.DecodeRune(b[i:])
		if r == utf8.RuneError && size == 1 {
			return i
		}
		i += size
	}
	return -1
}

// nameColumns are the columns that hold names, which a file saved in an
// encoding without Maltese letters shows with "?" in their place.
var nameColumns = []string{"name", "short_name", "name_en", "leader_name", "locality", "district_name", "locality_name_en", "given_name", "family_name"}

// lostLetter reports whether s holds a "?" next to a letter: a letter the
// export could not write, as in "?or? Bor?" for "Ġorġ Borġ".
func lostLetter(s string) bool {
	rs := []rune(s)
	for i, r := range rs {
		if r != '?' {
			continue
		}
		if i > 0 && unicode.IsLetter(rs[i-1]) || i+1 < len(rs) && unicode.IsLetter(rs[i+1]) {
			return true
		}
	}
	return false
}

// table is a CSV file's columns, found by header name, and its rows,
// unless they were given to a function as they were read (see readCSV).
// A row holds its cells as the CSV reader gives them: slices of one string
// of the row's text.
type table struct {
	file string
	cols map[string]int
	rows []row
}

type row struct {
	line   int
	fields []string
}

// get returns a cell with the white space around it removed, or "" when
// the file has no such column.
func (t *table) get(r row, col string) string {
	i, ok := t.cols[col]
	if !ok || i >= len(r.fields) {
		return ""
	}
	return strings.TrimSpace(r.fields[i])
}

func (t *table) has(col string) bool { _, ok := t.cols[col]; return ok }

// readCSV reads one CSV file with a header row, as a stream: row by row,
// never holding the file. Header names are matched without regard to case
// or surrounding space; unknown, repeated and missing columns, rows of the
// wrong length and malformed quoting are problems. Rows whose cells are
// all empty, as spreadsheets export below the data, are skipped. It
// returns nil when the file cannot be used.
//
// With each nil, the table holds the rows. Otherwise each is given every
// row as it is read, and the table holds none: what each reports is
// returned apart, to be added once the file is known to be usable (until
// then a row may still make it unusable, and what each said would be
// reported of rows that are not used).
//
// A file that is not UTF-8, or cannot be read to its end, is reported as
// that alone, wherever in the file it shows: the problems and the read its
// rows gave until then are dropped.
func (im *importer) readCSV(src fs.FS, name string, want columns, each func(*table, row)) (*table, Problems) {
	f, err := src.Open(name)
	if err != nil {
		im.unreadable(name, err)
		return nil, nil
	}
	defer f.Close()
	problems, reads := len(im.problems), len(im.reads)
	in := newStream(f)
	t, rowProblems, csvErr := im.parseCSV(in, name, want, each)
	// The rest of the file is read for what only its end tells: whether
	// it is all UTF-8, and where a quote never closed opened.
	_, _ = io.Copy(io.Discard, in)
	switch {
	case in.bad.line > 0:
		im.problems, im.reads = im.problems[:problems], im.reads[:reads]
		im.notUTF8(name, in.bad.line, in.bad.char, in.bad.c)
		return nil, nil
	case in.err != nil:
		im.problems, im.reads = im.problems[:problems], im.reads[:reads]
		im.unreadable(name, in.err)
		return nil, nil
	case csvErr != nil:
		im.csvError(name, csvErr, in.quotes)
		return nil, nil
	}
	return t, rowProblems
}

// parseCSV reads the header and the rows of a CSV file from in (see
// readCSV). It returns the table, or nil when the file cannot be used,
// what each reported, and the error of the CSV reader, which readCSV
// reports once in has been
// read to its end.
func (im *importer) parseCSV(in *stream, name string, want columns, each func(*table, row)) (t *table, rowProblems Problems, err error) {
	guess, seen := guessDelimiter(in.head())
	delim := guess
	if im.opts.Delimiter != 0 {
		delim = im.opts.Delimiter
	}
	in.quotes.delim = delim
	im.reads = append(im.reads, Read{File: name, Delimiter: delim, Guessed: im.opts.Delimiter == 0})
	cr := csv.NewReader(in)
	cr.Comma = delim
	cr.FieldsPerRecord = -1 // lengths are checked here, to name the line
	header, err := cr.Read()
	if errors.Is(err, io.EOF) {
		im.add(name, 0, "", "is empty: it needs a header row")
		return nil, nil, nil
	}
	if err != nil {
		return nil, nil, err
	}
	t = &table{file: name, cols: map[string]int{}}
	known := want.all()
	usable := true
	// A header row read with the wrong delimiter is said so once, rather
	// than as a column unknown and every required one missing.
	if delim != guess && seen {
		im.add(name, 1, "", "the cells are read as separated by %s (--delimiter), but the header row is separated by %s: give --delimiter %s, or leave it out to have it guessed", DelimiterName(delim), DelimiterName(guess), flagValue(guess))
		return nil, nil, nil
	}
	if len(header) == 1 && !slices.Contains(known, strings.ToLower(strings.TrimSpace(header[0]))) {
		im.add(name, 1, "", "the header row %q is a single column: separate the cells by ',', ';' or tabs", strings.TrimSpace(header[0]))
		return nil, nil, nil
	}
	misspelt := map[string]bool{} // columns an unknown header misspells, reported once as such
	for i, h := range header {
		h = strings.ToLower(strings.TrimSpace(h))
		switch {
		case h == "":
			im.add(name, 1, "", "column %d has no name", i+1)
		case !slices.Contains(known, h):
			msg := "unknown column"
			if near := dataset.Nearest(h, known); near != "" {
				msg += fmt.Sprintf(" (did you mean %q?)", near)
				misspelt[near] = true
			}
			im.add(name, 1, h, "%s", msg)
		case t.has(h):
			im.add(name, 1, h, "column appears twice")
		default:
			t.cols[h] = i
		}
	}
	// Rows are still checked past an unknown column, which they do not
	// use, but not without a required one.
	for _, w := range want.required {
		if t.has(w) {
			continue
		}
		usable = false
		if !misspelt[w] {
			im.add(name, 1, w, "required column is missing")
		}
	}
	for {
		fields, err := cr.Read()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return nil, nil, err
		}
		line, _ := cr.FieldPos(0)
		if strings.TrimSpace(strings.Join(fields, "")) == "" {
			continue
		}
		if len(fields) != len(header) {
			im.add(name, line, "", "has %d cells, but the header has %d columns (cells separated by %s)", len(fields), len(header), DelimiterName(delim))
			usable = false
			continue
		}
		switch {
		case each == nil:
			t.rows = append(t.rows, row{line: line, fields: fields})
		case usable:
			// What each reports goes apart (see readCSV).
			im.problems, rowProblems = rowProblems, im.problems
			each(t, row{line: line, fields: fields})
			im.problems, rowProblems = rowProblems, im.problems
		}
		// Text a dataset file refuses is named here, at its cell, rather
		// than in the JSON written from it.
		for i, f := range fields {
			col := strings.ToLower(strings.TrimSpace(header[i]))
			at, _ := cr.FieldPos(i)
			if rule, msg := dataset.CheckText(f, col == "note"); rule != "" {
				im.add(name, at, col, "%s", msg)
			}
			if slices.Contains(nameColumns, col) && t.has(col) && lostLetter(f) {
				im.warn(name, at, col, "%q has \"?\" where a letter should stand: a sheet saved in an encoding without the Maltese letters (such as Windows-1252) has \"?\" in place of each ċ, ġ, ħ and ż; write the letters back and %s", strings.TrimSpace(f), saveAsUTF8)
			}
		}
	}
	if !usable {
		return nil, nil, nil
	}
	return t, rowProblems, nil
}

// quoteScan finds the quote that opens a cell and is not closed when the
// file ends, as the CSV reader reads the file with cells separated by
// delim: it is given the file's characters one by one, as they are read.
type quoteScan struct {
	delim      rune
	l, c       int // where the last character given is: line, and character on it
	start      bool
	quoted     bool
	closing    bool // the last character was a quote in a quoted cell
	failed     bool // another quoting error comes first
	line, char int  // where the open quote is
	begun      bool
}

// next takes the file's next character.
func (q *quoteScan) next(r rune) {
	if !q.begun {
		q.l, q.start, q.begun = 1, true, true
	}
	if q.failed {
		return
	}
	q.c++
	if q.closing {
		q.closing = false
		switch {
		case r == '"': // a quote written twice, inside the cell
			return
		case r != q.delim && r != '\r' && r != '\n':
			q.failed = true // text after the closing quote
			return
		}
		q.quoted = false
	}
	switch {
	case r == '\n':
		q.l, q.c = q.l+1, 0
		if !q.quoted {
			q.start = true
		}
	case q.quoted:
		if r == '"' {
			q.closing = true
		}
	case r == '\r':
	case r == q.delim:
		q.start = true
	case r == '"' && q.start:
		q.quoted, q.line, q.char = true, q.l, q.c
		q.start = false
	case r == '"':
		q.failed = true // a quote inside a cell not quoted
	default:
		q.start = false
	}
}

// unclosed returns the line and character of the quote never closed once
// the whole file has been given; ok is false when the file's quotes are
// all closed, or when another quoting error comes first.
func (q *quoteScan) unclosed() (line, char int, ok bool) {
	if q.failed || q.closing || !q.quoted {
		return 0, 0, false
	}
	return q.line, q.char, true
}

// stream reads a CSV file, without the byte-order mark a spreadsheet may
// write, for the CSV reader: it checks that the file is UTF-8 as it
// passes, stopping at the first byte that is not, and gives each
// character to the quote scan.
type stream struct {
	br      *bufio.Reader
	quotes  quoteScan
	line    int    // the line of the next character, from 1
	char    int    // characters before it on its line
	partial []byte // the start of a character the last read cut
	bad     struct {
		line, char int // 0 when every byte so far is UTF-8
		c          byte
	}
	err error // a read error of the file, or errNotUTF8
}

var errNotUTF8 = errors.New("not UTF-8")

// headSize is the most of a file read to guess its delimiter from its
// header row; a header row is far shorter.
const headSize = 64 << 10

func newStream(f io.Reader) *stream {
	in := &stream{br: bufio.NewReaderSize(f, headSize), line: 1}
	bom, err := in.br.Peek(3)
	in.peeked(err)
	if string(bom) == "\uFEFF" {
		_, _ = in.br.Discard(3)
	}
	return in
}

// peeked keeps an error of a read ahead, which the bufio.Reader gives
// only once, for Read to return.
func (in *stream) peeked(err error) {
	if err != nil && err != io.EOF && err != bufio.ErrBufferFull && in.err == nil {
		in.err = err
	}
}

// head returns the start of the file, up to the end of its header row or
// headSize bytes, reading no more than has to be read for that, so that a
// file whose rows arrive slowly is not waited on.
func (in *stream) head() []byte {
	for {
		b, err := in.br.Peek(in.br.Buffered())
		if err != nil || len(b) >= headSize || headerEnds(b) {
			return b
		}
		if _, err := in.br.Peek(len(b) + 1); err != nil {
			in.peeked(err)
			b, _ = in.br.Peek(in.br.Buffered())
			return b
		}
	}
}

// headerEnds reports whether b holds the end of the header row: a newline
// outside quotes after a line that is not empty.
func headerEnds(b []byte) bool {
	b = bytes.TrimLeft(b, "\r\n")
	quoted := false
	for _, c := range b {
		switch {
		case c == '"':
			quoted = !quoted
		case c == '\n' && !quoted:
			return true
		}
	}
	return false
}

func (in *stream) Read(p []byte) (int, error) {
	if in.err != nil {
		return 0, in.err
	}
	n, err := in.br.Read(p)
	if !in.check(p[:n], err == io.EOF) {
		in.err = errNotUTF8
		return 0, in.err
	}
	if err != nil && err != io.EOF {
		in.err = err
	}
	return n, err
}

// check takes the bytes b, the next of the file, and reports whether they
// are UTF-8 so far; at the end of the file (eof) a character cut short is
// not.
func (in *stream) check(b []byte, eof bool) bool {
	if len(in.partial) > 0 {
		// Complete the character the last read cut, from b's first bytes.
		joined := append(in.partial[:len(in.partial):len(in.partial)], b[:min(len(b), utf8.UTFMax)]...)
		if !utf8.FullRune(joined) && !eof {
			in.partial = joined
			return true
		}
		r, size := utf8.DecodeRune(joined)
		if !in.next(r, size, joined[0]) {
			return false
		}
		b = b[size-len(in.partial):]
		in.partial = nil
	}
	for len(b) > 0 {
		if !utf8.FullRune(b) && !eof {
			in.partial = append([]byte(nil), b...)
			return true
		}
		r, size := utf8.DecodeRune(b)
		if !in.next(r, size, b[0]) {
			return false
		}
		b = b[size:]
	}
	return true
}

// next takes a character of size bytes whose first byte is c, and reports
// whether it is UTF-8; if not, it records where.
func (in *stream) next(r rune, size int, c byte) bool {
	if r == utf8.RuneError && size == 1 {
		in.bad.line, in.bad.char, in.bad.c = in.line, in.char+1, c
		return false
	}
	in.quotes.next(r)
	if r == '\n' {
		in.line, in.char = in.line+1, 0
	} else {
		in.char++
	}
	return true
}

// guessDelimiter returns the delimiter of a CSV file: the one of
// Delimiters found most often outside quotes in its header row (its first
// line that is not empty), the earlier in Delimiters on a tie; a comma,
// with seen false, when the header row has none of them.
func guessDelimiter(b []byte) (delim rune, seen bool) {
	b = bytes.TrimLeft(b, "\r\n")
	counts := map[rune]int{}
	quoted := false
	for _, c := range string(b) {
		if c == '"' {
			quoted = !quoted
			continue
		}
		if quoted {
			continue
		}
		if c == '\n' {
			break
		}
		if slices.Contains(Delimiters, c) {
			counts[c]++
		}
	}
	delim = Delimiters[0]
	for _, d := range Delimiters {
		if counts[d] > counts[delim] {
			delim = d
		}
	}
	return delim, counts[delim] > 0
}

// flagValue is the --delimiter value that selects d.
func flagValue(d rune) string {
	switch d {
	case '\t':
		return "tab"
	case ';':
		return "';'"
	}
	return "','"
}

// csvError reports an error of the CSV reader for a file whose every
// character quotes has scanned. A quote never closed is reported where it
// opened: the reader finds it missing only at the end of the file.
func (im *importer) csvError(name string, err error, quotes quoteScan) {
	var perr *csv.ParseError
	if errors.As(err, &perr) && errors.Is(perr.Err, csv.ErrQuote) {
		if line, char, ok := quotes.unclosed(); ok && line >= perr.StartLine {
			im.problems = append(im.problems, Problem{File: name, Line: line, Char: char, Message: `the quote that starts this cell is never closed, so the rest of the file was read into it: end the cell with ", and write a " inside a cell as ""`})
			return
		}
	}
	if errors.As(err, &perr) {
		im.add(name, perr.Line, "", "%v", perr.Err)
		return
	}
	im.add(name, 0, "", "%v", err)
}

// optional returns nil for an empty cell.
func optional(s string) *string {
	if s == "" {
		return nil
	}
	return &s
}

// boolean reads a yes/no cell; an empty cell is null. Only the words the
// README lists are taken: a tick mark such as "x" is refused, since the
// empty cells beside it would read as unknown, not as no.
func (im *importer) boolean(t *table, r row, col string) *bool {
	var v bool
	switch strings.ToLower(t.get(r, col)) {
	case "":
		return nil
	case "yes", "true", "1", "y", "iva":
		v = true
	case "no", "false", "0", "n", "le":
		v = false
	default:
		im.add(t.file, r.line, col, "%q is not yes or no: write yes/no, true/false, 1/0, y/n or iva/le (in any letter case), or leave it empty for unknown", t.get(r, col))
		return nil
	}
	return &v
}

// url reads a cell that must be empty or an absolute http(s) URL.
func (im *importer) url(t *table, r row, col string) *string {
	s := optional(t.get(r, col))
	if s == nil {
		return nil
	}
	if why := dataset.URLProblem(*s); why != "" {
		im.add(t.file, r.line, col, "%q is not an absolute http or https URL: %s", *s, why)
	}
	return s
}

// required reads a cell that must not be empty.
func (im *importer) required(t *table, r row, col string) string {
	s := t.get(r, col)
	if s == "" {
		im.add(t.file, r.line, col, "must not be empty")
	}
	return s
}

// slug reads a cell that must be a slug, or derives one from a name when
// the cell is empty (or the file has no such column).
func (im *importer) slug(t *table, r row, col, name string) (slug string, derived bool) {
	if s := t.get(r, col); s != "" {
		if dataset.Slugify(s) != s {
			im.add(t.file, r.line, col, "%s", notSlug(s))
		}
		return s, false
	}
	return dataset.Slugify(name), true
}

// notSlug says that s is not a slug, and which would do when s makes one.
func notSlug(s string) string {
	if slug := dataset.Slugify(s); slug != "" {
		return fmt.Sprintf("%q is not a slug (lower-case ASCII letters and digits joined by single hyphens; %q would do)", s, slug)
	}
	return fmt.Sprintf("%q is not a slug (lower-case ASCII letters and digits joined by single hyphens)", s)
}

// parties is what parties.csv gives: the records and how candidates.csv
// may name each party.
type parties struct {
	records []dataset.Party
	lines   []int            // the line of each record
	byCode  map[string]int   // key of a slug or short name -> record
	byName  map[string][]int // key of a name or English name -> records
	read    bool             // parties.csv was read, so a party it lacks is an error
}

// key is what a name is matched by: its slug, so that letter case,
// accents and punctuation do not count, or, when it makes none, the name
// folded.
func key(s string) string {
	if k := dataset.Slugify(s); k != "" {
		return k
	}
	return dataset.Fold(strings.TrimSpace(s))
}

// find returns the record a candidate's party cell names: by slug or short
// name first, then by name or English name when one party alone has it.
// Otherwise it returns -1 and what to say.
func (ps *parties) find(cell string) (int, string) {
	k := key(cell)
	if i, ok := ps.byCode[k]; ok {
		return i, ""
	}
	switch found := ps.byName[k]; len(found) {
	case 1:
		return found[0], ""
	case 0:
	default:
		var names []string
		for _, i := range found {
			names = append(names, fmt.Sprintf("%q (line %d)", ps.records[i].Slug, ps.lines[i]))
		}
		return -1, fmt.Sprintf("%q is the name of %d parties in %s, %s: write the slug of the one meant", cell, len(found), PartiesFile, orList(names, "and"))
	}
	var keys []nameKey
	for i, p := range ps.records {
		for _, n := range []string{p.Slug, p.ShortName, p.Name, deref(p.NameEN)} {
			if n != "" {
				keys = append(keys, nameKey{key(n), i})
			}
		}
	}
	msg := fmt.Sprintf("no party in %s has the slug, short name, name or English name %q", PartiesFile, cell)
	var near []string
	for _, i := range nearest(k, keys) {
		near = append(near, fmt.Sprintf("%q for %s", ps.records[i].Slug, ps.records[i].Name))
	}
	if len(near) > 0 {
		msg += " (did you mean " + orList(near, "or") + "?)"
	}
	return -1, msg + "; leave it empty for an independent"
}

func deref(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}

// orList joins items as "a", "a or b", "a, b or c".
func orList(items []string, conj string) string {
	if len(items) <= 1 {
		return strings.Join(items, "")
	}
	return strings.Join(items[:len(items)-1], ", ") + " " + conj + " " + items[len(items)-1]
}

// nameKey is a key a record may be named by, for suggestions.
type nameKey struct {
	key    string
	record int
}

// nearest returns up to three records named by a key close to k: a few
// edits away (one for a short key, up to three for a long one), or
// holding k's words whole, or held whole in them; the closest first, then
// in file order.
func nearest(k string, keys []nameKey) []int {
	limit := 1
	switch n := len([]rune(k)); {
	case n > 8:
		limit = 3
	case n > 4:
		limit = 2
	}
	best := map[int]int{} // record -> its closest distance
	for _, nk := range keys {
		d := dataset.EditDistance(k, nk.key)
		if d > limit && k != "" && nk.key != "" && (strings.Contains("-"+nk.key+"-", "-"+k+"-") || strings.Contains("-"+k+"-", "-"+nk.key+"-")) {
			d = limit
		}
		if d > limit {
			continue
		}
		if old, ok := best[nk.record]; !ok || d < old {
			best[nk.record] = d
		}
	}
	records := slices.Sorted(maps.Keys(best))
	slices.SortStableFunc(records, func(a, b int) int { return best[a] - best[b] })
	if len(records) > 3 {
		records = records[:3]
	}
	return records
}

func (im *importer) parties(src fs.FS) parties {
	ps := parties{records: []dataset.Party{}, byCode: map[string]int{}, byName: map[string][]int{}}
	t, _ := im.readCSV(src, PartiesFile, partyColumns, nil)
	if t == nil {
		return ps
	}
	ps.read = true
	seen := map[string]int{} // slug -> line
	for _, r := range t.rows {
		p := dataset.Party{
			Name:         im.required(t, r, "name"),
			ShortName:    im.required(t, r, "short_name"),
			NameEN:       optional(t.get(r, "name_en")),
			Color:        optional(strings.ToLower(t.get(r, "color"))),
			Website:      im.url(t, r, "website"),
			LeaderName:   optional(t.get(r, "leader_name")),
			LogoURL:      im.url(t, r, "logo_url"),
			WikipediaURL: im.url(t, r, "wikipedia_url"),
		}
		if p.Color != nil && !validColor(*p.Color) {
			im.add(t.file, r.line, "color", "%q is not a colour of the form #rrggbb", t.get(r, "color"))
		}
		p.Slug = im.required(t, r, "slug")
		if p.Slug != "" {
			if dataset.Slugify(p.Slug) != p.Slug {
				im.add(t.file, r.line, "slug", "%s", notSlug(p.Slug))
			}
			if first, dup := seen[p.Slug]; dup {
				im.add(t.file, r.line, "slug", "%q is already used on line %d", p.Slug, first)
			}
			seen[p.Slug] = r.line
		}
		p.ID = im.id(t, r, "party/"+p.Slug)
		i := len(ps.records)
		for _, c := range [...]struct{ col, n string }{{"slug", p.Slug}, {"short_name", p.ShortName}} {
			col, n := c.col, c.n
			if n == "" {
				continue
			}
			if other, dup := ps.byCode[key(n)]; dup && other != i {
				// A row given twice is reported once, at its slug.
				if ps.records[other].Slug != p.Slug {
					im.add(t.file, r.line, col, "%q also names the party on line %d, so candidates.csv could not tell them apart", n, ps.lines[other])
				}
				continue
			}
			ps.byCode[key(n)] = i
		}
		for _, n := range []string{p.Name, deref(p.NameEN)} {
			if k := key(n); n != "" && !slices.Contains(ps.byName[k], i) {
				ps.byName[k] = append(ps.byName[k], i)
			}
		}
		ps.records = append(ps.records, p)
		ps.lines = append(ps.lines, r.line)
	}
	return ps
}

func validColor(s string) bool {
	if len(s) != 7 || s[0] != '#' {
		return false
	}
	for _, c := range s[1:] {
		if !strings.ContainsRune("0123456789abcdef", c) {
			return false
		}
	}
	return true
}

// districts is what districts.csv gives, indexed by number, and the names
// candidates.csv may give a district by.
type districts struct {
	byNumber [dataset.DistrictCount + 1]*dataset.District
	names    []districtName
	read     bool // districts.csv was read, so a name it lacks is an error
}

// districtName is a name of a district, or of one of its localities.
type districtName struct {
	name, key string
	number    int
}

// find returns the number of the district a part of a candidate's
// districts cell gives: the number, or a name of the district or of a
// locality in it (districts.csv's district_name, "District N", locality,
// locality_name_en or locality_slug, matched as party names are) when
// that name is of one district alone. Otherwise it returns 0 and what to
// say, or "" when districts.csv could not be read (which is reported).
func (ds *districts) find(part string) (int, string) {
	if n, err := strconv.Atoi(part); err == nil {
		if n >= 1 && n <= dataset.DistrictCount {
			return n, ""
		}
		return 0, fmt.Sprintf("district %q is not a number from 1 to %d", part, dataset.DistrictCount)
	}
	if !ds.read {
		return 0, ""
	}
	k := key(part)
	var numbers []int
	var keys []nameKey
	for i, dn := range ds.names {
		if dn.key == k && !slices.Contains(numbers, dn.number) {
			numbers = append(numbers, dn.number)
		}
		keys = append(keys, nameKey{dn.key, i})
	}
	switch len(numbers) {
	case 1:
		return numbers[0], ""
	case 0:
	default:
		slices.Sort(numbers)
		var list []string
		for _, n := range numbers {
			list = append(list, strconv.Itoa(n))
		}
		return 0, fmt.Sprintf("%q is in %d districts in %s, %s: write the number of the one meant", part, len(numbers), DistrictsFile, orList(list, "and"))
	}
	msg := fmt.Sprintf("district %q is not a number from 1 to %d, nor the name of a district or locality in %s", part, dataset.DistrictCount, DistrictsFile)
	var near []string
	for _, i := range nearest(k, keys) {
		near = append(near, fmt.Sprintf("%d for %s", ds.names[i].number, ds.names[i].name))
	}
	if len(near) > 0 {
		msg += " (did you mean " + orList(near, "or") + "?)"
	}
	return 0, msg
}

// name records a name of district n, unless it has one that matches it.
func (ds *districts) name(s string, n int) {
	k := key(s)
	if s == "" || slices.ContainsFunc(ds.names, func(dn districtName) bool { return dn.number == n && dn.key == k }) {
		return
	}
	ds.names = append(ds.names, districtName{s, k, n})
}

func (ds *districts) records() []dataset.District {
	out := []dataset.District{}
	for _, d := range ds.byNumber[1:] {
		if d != nil {
			out = append(out, *d)
		}
	}
	return out
}

func (im *importer) districts(src fs.FS) *districts {
	ds := &districts{}
	t, _ := im.readCSV(src, DistrictsFile, districtColumns, nil)
	if t == nil {
		return ds
	}
	ds.read = true
	type given struct {
		value string
		line  int
	}
	type perDistrict struct {
		names, slugs map[string]int   // folded name, slug -> line
		own          map[string]given // district_name, source_url, id
	}
	seen := [dataset.DistrictCount + 1]perDistrict{}
	// Slugs written in the sheet are reserved first, in each district, so
	// a derived slug never takes one a later row gives.
	var written [dataset.DistrictCount + 1]map[string]int // slug -> line
	for _, r := range t.rows {
		n, err := strconv.Atoi(t.get(r, "number"))
		slug := t.get(r, "locality_slug")
		if err != nil || n < 1 || n > dataset.DistrictCount || slug == "" || t.get(r, "locality") == "" {
			continue // reported below
		}
		if written[n] == nil {
			written[n] = map[string]int{}
		}
		if first, dup := written[n][slug]; dup {
			im.add(t.file, r.line, "locality_slug", "%q is already used in district %d on line %d", slug, n, first)
			continue
		}
		written[n][slug] = r.line
	}
	for _, r := range t.rows {
		n, ok := im.districtNumber(t, r, "number", t.get(r, "number"))
		if !ok {
			continue
		}
		d := ds.byNumber[n]
		if d == nil {
			d = &dataset.District{Number: n, Name: fmt.Sprintf("District %d", n), Localities: []dataset.Locality{}}
			// An id given on this row or another is read below, once.
			d.ID = im.derived("district/" + strconv.Itoa(n))
			ds.byNumber[n] = d
			seen[n] = perDistrict{names: map[string]int{}, slugs: maps.Clone(written[n]), own: map[string]given{}}
			if seen[n].slugs == nil {
				seen[n].slugs = map[string]int{}
			}
		}
		s := &seen[n]
		// A district's own columns may be given on any one of its rows,
		// or repeated alike on several.
		for _, col := range []string{"district_name", "source_url", "id"} {
			v := t.get(r, col)
			if v == "" {
				continue
			}
			if g, ok := s.own[col]; ok {
				if g.value != v {
					im.add(t.file, r.line, col, "district %d is given %q here but %q on line %d", n, v, g.value, g.line)
				}
				continue
			}
			s.own[col] = given{v, r.line}
			switch col {
			case "district_name":
				d.Name = v
			case "source_url":
				d.SourceURL = im.url(t, r, col)
			case "id":
				d.ID = im.id(t, r, "")
			}
		}

		name := im.required(t, r, "locality")
		if name == "" {
			continue
		}
		loc := dataset.Locality{Name: name, NameEN: optional(t.get(r, "locality_name_en")), Note: optional(t.get(r, "note"))}
		if split := im.boolean(t, r, "split"); split != nil {
			loc.Split = *split
		}
		if first, dup := s.names[dataset.Fold(name)]; dup {
			im.add(t.file, r.line, "locality", "%q is already listed in district %d on line %d", name, n, first)
			continue
		}
		s.names[dataset.Fold(name)] = r.line
		slug, derived := im.slug(t, r, "locality_slug", name)
		if derived {
			slug = numbered(slug, s.slugs)
			s.slugs[slug] = r.line
		}
		if slug == "" {
			im.add(t.file, r.line, "locality", "%q makes no slug: give one in locality_slug", name)
		}
		loc.Slug = slug
		d.Localities = append(d.Localities, loc)
	}
	for n := 1; n <= dataset.DistrictCount; n++ {
		if d := ds.byNumber[n]; d != nil {
			ds.name(d.Name, n)
			ds.name(fmt.Sprintf("District %d", n), n)
			for _, l := range d.Localities {
				ds.name(l.Name, n)
				ds.name(deref(l.NameEN), n)
				ds.name(l.Slug, n)
			}
		}
	}
	for n := 1; n <= dataset.DistrictCount; n++ {
		if ds.byNumber[n] == nil {
			im.add(t.file, 0, "number", "district %d has no rows: each of the %d districts needs at least one locality", n, dataset.DistrictCount)
		}
	}
	return ds
}

// numbered returns slug, or slug-2, slug-3, … : the first not yet in
// used. Rows are taken in file order, so the first row keeps the plain
// slug and a later namesake gets the next free number.
func numbered(slug string, used map[string]int) string {
	if _, dup := used[slug]; !dup || slug == "" {
		return slug
	}
	for i := 2; ; i++ {
		s := slug + "-" + strconv.Itoa(i)
		if _, dup := used[s]; !dup {
			return s
		}
	}
}

// districtNumber reads a district number from 1 to 13.
func (im *importer) districtNumber(t *table, r row, col, s string) (int, bool) {
	n, err := strconv.Atoi(s)
	if err != nil || n < 1 || n > dataset.DistrictCount {
		if s == "" {
			im.add(t.file, r.line, col, "must not be empty")
		} else {
			im.add(t.file, r.line, col, "district %q is not a number from 1 to %d", s, dataset.DistrictCount)
		}
		return 0, false
	}
	return n, true
}

func (im *importer) candidates(src fs.FS, ps parties, ds *districts) []dataset.Candidate {
	out := []dataset.Candidate{}
	// Records are built as the rows are read. Slugs written in the sheet
	// are reserved as they come; a slug derived from a name waits for the
	// end of the file, so that it never takes one a later row gives.
	used := map[string]int{}
	type pending struct {
		record int    // in out
		slug   string // the one the name makes
		line   int
		at     int  // where, among the rows' problems, one about it goes
		id     bool // the row gives its id, which is not derived
	}
	var derived []pending
	rowsSeen := map[string]int{} // name, party and districts -> line
	t, problems := im.readCSV(src, CandidatesFile, candidateColumns, func(t *table, r row) {
		if s := t.get(r, "slug"); s != "" {
			if first, dup := used[s]; dup {
				im.add(t.file, r.line, "slug", "%q is already used on line %d", s, first)
			} else {
				used[s] = r.line
			}
		}
		c := dataset.Candidate{
			GivenName:   im.required(t, r, "given_name"),
			FamilyName:  im.required(t, r, "family_name"),
			Name:        t.get(r, "name"),
			Elected:     im.boolean(t, r, "elected"),
			IsIncumbent: im.boolean(t, r, "is_incumbent"),
			Website:     im.url(t, r, "website"),
			PhotoURL:    im.url(t, r, "photo_url"),
		}
		if c.Name == "" {
			c.Name = strings.TrimSpace(c.GivenName + " " + c.FamilyName)
		}
		if slug, isDerived := im.slug(t, r, "slug", c.Name); isDerived {
			derived = append(derived, pending{record: len(out), slug: slug, line: r.line, at: len(im.problems), id: t.get(r, "id") != ""})
			if t.get(r, "id") != "" {
				c.ID = im.id(t, r, "")
			}
		} else {
			c.Slug = slug
			c.ID = im.id(t, r, "candidate/"+slug)
		}

		// party is the party's slug, to tell a repeated row; a party
		// when parties.csv could not be read is not checked: that file
		// is reported.
		party := ""
		if p := t.get(r, "party"); p != "" && ps.read {
			if i, msg := ps.find(p); i < 0 {
				im.add(t.file, r.line, "party", "%s", msg)
			} else {
				id := ps.records[i].ID
				c.PartyID = &id
				party = ps.records[i].Slug
			}
		}

		list := t.get(r, "districts")
		if list == "" {
			im.add(t.file, r.line, "districts", "must not be empty: give the district numbers separated by ;, the primary first")
		}
		c.DistrictIDs = []string{}
		var numbers []int
		for part := range strings.SplitSeq(list, ";") {
			if list == "" {
				break
			}
			part = strings.TrimSpace(part)
			if part == "" {
				im.add(t.file, r.line, "districts", "must not be empty")
				continue
			}
			n, msg := ds.find(part)
			if n == 0 {
				if msg != "" {
					im.add(t.file, r.line, "districts", "%s", msg)
				}
				continue
			}
			if slices.Contains(numbers, n) {
				im.add(t.file, r.line, "districts", "district %d is listed twice", n)
				continue
			}
			numbers = append(numbers, n)
			if d := ds.byNumber[n]; d != nil { // else reported by districts.csv
				c.DistrictIDs = append(c.DistrictIDs, d.ID)
			}
		}
		if len(c.DistrictIDs) > 0 {
			c.PrimaryDistrictID = c.DistrictIDs[0]
		}
		// The same candidate twice: the same name, party and districts,
		// neither row pinned apart by a slug or an id.
		if t.get(r, "slug") == "" && t.get(r, "id") == "" && c.Name != "" && (party != "" || t.get(r, "party") == "") {
			set := slices.Sorted(slices.Values(numbers))
			k := fmt.Sprint(key(c.Name), "|", party, "|", set)
			if first, dup := rowsSeen[k]; dup {
				what := "an independent"
				if party != "" {
					what = "of " + t.get(r, "party")
				}
				in := "district"
				if len(set) > 1 {
					in += "s"
				}
				im.add(t.file, r.line, "", "repeats line %d: %s, %s, in %s %s; delete one of the two rows, or, for two people of the same name, give each a slug", first, c.Name, what, in, orList(strings.Fields(strings.Trim(fmt.Sprint(set), "[]")), "and"))
			} else {
				rowsSeen[k] = r.line
			}
		}
		out = append(out, c)
	})
	if t == nil {
		return []dataset.Candidate{}
	}
	// The derived slugs, in the order of the rows, now that every written
	// one is known; a name that makes none is said where the row's other
	// problems put it, after those of its cells before the slug.
	var merged Problems
	next := 0
	for _, p := range derived {
		c := &out[p.record]
		c.Slug = numbered(p.slug, used)
		used[c.Slug] = p.line
		if !p.id {
			c.ID = im.derived("candidate/" + c.Slug)
		}
		if c.Slug == "" {
			merged = append(merged, problems[next:p.at]...)
			merged = append(merged, Problem{File: CandidatesFile, Line: p.line, Column: "name", Message: fmt.Sprintf("%q makes no slug: give one in a slug column", c.Name)})
			next = p.at
		}
	}
	im.problems = append(append(im.problems, merged...), problems[next:]...)
	return out
}
