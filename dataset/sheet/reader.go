package sheet

import (
	"bufio"
	"bytes"
	"encoding/csv"
	"errors"
	"io"
	"slices"
	"strings"
	"unicode/utf8"
)

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

// reader is the one reader of a sheet: import and CountCells read a sheet
// through it, each in one pass. Its stream drops the byte-order mark a
// spreadsheet may write, ends lines at a carriage return alone in a file
// whose header row ends so, checks that the file is UTF-8 as it passes and
// follows its quotes; the delimiter is given, or guessed from the header
// row; the CSV reader splits the rows, of which row skips those whose
// cells are all blank, as spreadsheets export below the data.
type reader struct {
	in    *stream
	cr    *csv.Reader
	delim rune // the delimiter the cells are read with
	guess rune // the delimiter the header row shows
	seen  bool // the header row shows one of Delimiters
}

// newReader reads a sheet from f with the cells separated by delim, or by
// the delimiter its header row shows when delim is 0.
func newReader(f io.Reader, delim rune) *reader {
	in := newStream(f)
	counts, end := scanHeader(in.head())
	guess, seen := guessDelimiter(counts)
	in.crLines = end == '\r'
	if delim == 0 {
		delim = guess
	}
	in.quotes.delim = delim
	cr := csv.NewReader(in)
	cr.Comma = delim
	cr.FieldsPerRecord = -1 // lengths are checked by the caller, to name the line
	return &reader{in: in, cr: cr, delim: delim, guess: guess, seen: seen}
}

// header returns the header row: the first row, blank or not; io.EOF
// when the file has none.
func (rd *reader) header() ([]string, error) { return rd.cr.Read() }

// row returns the next row whose cells are not all blank, and its line;
// io.EOF after the last.
func (rd *reader) row() (line int, fields []string, err error) {
	for {
		fields, err := rd.cr.Read()
		if err != nil {
			return 0, nil, err
		}
		if strings.TrimSpace(strings.Join(fields, "")) != "" {
			line, _ := rd.cr.FieldPos(0)
			return line, fields, nil
		}
	}
}

// line returns the line the cell i of the last row starts on.
func (rd *reader) line(i int) int {
	line, _ := rd.cr.FieldPos(i)
	return line
}

// drain reads the rest of the file for what only its end tells: whether
// it is all UTF-8, and where a quote never closed opened.
func (rd *reader) drain() { _, _ = io.Copy(io.Discard, rd.in) }

// CountCells reads a sheet from r as Import reads it, with the delimiter
// opts gives or the one its header row shows, and returns how many rows
// it has below its header, leaving out the blank rows Import skips, and
// how many of their cells are not blank: what a sheet makes grows with
// them. It stops at what Import would refuse (a byte that is not UTF-8,
// malformed quoting, a read error) and returns the error, with the rows
// counted until then.
func CountCells(r io.Reader, opts Options) (rows, cells int64, err error) {
	rd := newReader(r, opts.Delimiter)
	rd.cr.ReuseRecord = true // no row is kept
	if _, err := rd.header(); err != nil {
		if errors.Is(err, io.EOF) {
			return 0, 0, nil
		}
		return 0, 0, err
	}
	for {
		_, fields, err := rd.row()
		if errors.Is(err, io.EOF) {
			return rows, cells, nil
		}
		if err != nil {
			return rows, cells, err
		}
		rows++
		for _, f := range fields {
			if strings.TrimSpace(f) != "" {
				cells++
			}
		}
	}
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
	utf16 bool  // the file begins with UTF-16's byte-order mark
	err   error // a read error of the file, or errNotUTF8
	// crLines: a carriage return that no line feed follows ends a line,
	// as the header row's does: the line ends of the old spreadsheet
	// programs of the Mac, which the CSV reader would read as one row.
	crLines bool
}

var errNotUTF8 = errors.New("not UTF-8")

// headSize is the most of a file read to guess its delimiter from its
// header row; a header row is far shorter.
const headSize = 64 << 10

func newStream(f io.Reader) *stream {
	in := &stream{br: bufio.NewReaderSize(f, headSize), line: 1}
	bom, err := in.br.Peek(3)
	in.peeked(err)
	switch {
	case string(bom) == "\uFEFF":
		_, _ = in.br.Discard(3)
	case len(bom) >= 2 && (bom[0] == 0xFF && bom[1] == 0xFE || bom[0] == 0xFE && bom[1] == 0xFF):
		// Neither byte is UTF-8: the check stops at the first, and
		// the problem says what the file is (notUTF8).
		in.utf16 = true
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
		if _, end := scanHeader(b); err != nil || len(b) >= headSize || end != 0 {
			return b
		}
		if _, err := in.br.Peek(len(b) + 1); err != nil {
			in.peeked(err)
			b, _ = in.br.Peek(in.br.Buffered())
			return b
		}
	}
}

func (in *stream) Read(p []byte) (int, error) {
	if in.err != nil {
		return 0, in.err
	}
	n, err := in.br.Read(p)
	if in.crLines {
		in.endLines(p[:n])
	}
	if !in.check(p[:n], err == io.EOF) {
		in.err = errNotUTF8
		return 0, in.err
	}
	if err != nil && err != io.EOF {
		in.err = err
	}
	return n, err
}

// endLines makes each carriage return in b that no line feed follows a
// line feed, looking at the byte after b when b ends with one.
func (in *stream) endLines(b []byte) {
	for i, c := range b {
		if c != '\r' {
			continue
		}
		next := byte(0)
		if i+1 < len(b) {
			next = b[i+1]
		} else if after, err := in.br.Peek(1); len(after) == 1 {
			next = after[0]
		} else {
			in.peeked(err)
		}
		if next != '\n' {
			b[i] = '\n'
		}
	}
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
		if c := b[0]; c < utf8.RuneSelf { // most of a sheet: no decoding
			in.next(rune(c), 1, c)
			b = b[1:]
			continue
		}
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
// line that is not empty), as scanHeader counts them, the earlier in
// Delimiters on a tie; a comma, with seen false, when the header row has
// none of them.
func guessDelimiter(counts map[rune]int) (delim rune, seen bool) {
	delim = Delimiters[0]
	for _, d := range Delimiters {
		if counts[d] > counts[delim] {
			delim = d
		}
	}
	return delim, counts[delim] > 0
}

// scanHeader reads the header row at the start of b (its first line that
// is not empty): how often each of Delimiters is in it outside quotes, and
// how it ends, when b holds its end outside quotes: '\n' at a line feed
// (after a carriage return or not), '\r' at a carriage return alone; 0
// when b does not hold it. Unlike quoteScan, it runs before the delimiter
// is known, so it cannot tell a quote that opens a cell from one inside
// it: each quote opens or closes a quoted stretch.
func scanHeader(b []byte) (counts map[rune]int, end byte) {
	b = bytes.TrimLeft(b, "\r\n")
	counts = map[rune]int{}
	quoted := false
	for i, c := range b {
		switch {
		case c == '"':
			quoted = !quoted
		case quoted:
		case c == '\n':
			return counts, '\n'
		case c == '\r' && i+1 < len(b) && b[i+1] != '\n':
			return counts, '\r'
		case slices.Contains(Delimiters, rune(c)):
			counts[rune(c)]++
		}
	}
	return counts, 0
}

// DelimiterValues names the values of --delimiter, for its help and its
// refusal.
const DelimiterValues = "',', ';' or tab"

// ParseDelimiter reads a value of --delimiter: ",", ";" or "tab" (or a
// tab, as typed or as \t), as the shell hands it over: flagValue writes
// the value a message suggests, quoted for the shell.
func ParseDelimiter(v string) (rune, bool) {
	switch v {
	case ",":
		return ',', true
	case ";":
		return ';', true
	case "tab", "\t", `\t`:
		return '\t', true
	}
	return 0, false
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
