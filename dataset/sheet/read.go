package sheet

import (
	"errors"
	"io"
	"io/fs"
	"slices"
	"strings"
	"unicode"

	"ballot/dataset"
	"ballot/suggest"
)

// read reads a file whole, through the stream that reads a sheet: without
// the byte-order mark a spreadsheet may write, and checked to be UTF-8,
// naming the first line that is not.
func (im *importer) read(src fs.FS, name string) ([]byte, bool) {
	f, err := src.Open(name)
	if err != nil {
		im.unreadable(name, err)
		return nil, false
	}
	defer f.Close()
	in := newStream(f)
	b, _ := io.ReadAll(in)
	switch {
	case in.bad.line > 0:
		im.notUTF8(name, in)
		return nil, false
	case in.err != nil:
		im.unreadable(name, in.err)
		return nil, false
	}
	return b, true
}

// nameColumns are the columns that hold names, which a file saved in an
// encoding without Maltese letters shows with "?" in their place.
var nameColumns = []string{"name", "short_name", "name_en", "leader_name", "locality", "district_name", "locality_name_en", "given_name", "family_name", "candidate", "audited_name"}

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
	rd := newReader(f, im.opts.Delimiter)
	t, rowProblems, csvErr := im.parseCSV(rd, name, want, each)
	rd.drain()
	in := rd.in
	switch {
	case in.bad.line > 0:
		im.problems, im.reads = im.problems[:problems], im.reads[:reads]
		im.notUTF8(name, in)
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

// parseCSV reads the header and the rows of a CSV file from rd (see
// readCSV). It returns the table, or nil when the file cannot be used,
// what each reported, and the error of the CSV reader, which readCSV
// reports once the file has been read to its end.
func (im *importer) parseCSV(rd *reader, name string, want columns, each func(*table, row)) (t *table, rowProblems Problems, err error) {
	im.reads = append(im.reads, Read{File: name, Delimiter: rd.delim, Guessed: im.opts.Delimiter == 0})
	header, err := rd.header()
	if errors.Is(err, io.EOF) {
		im.add(name, 0, "", "is empty: it needs a header row")
		return nil, nil, nil
	}
	if err != nil {
		return nil, nil, err
	}
	t, usable := im.findColumns(rd, name, header, want)
	if t == nil {
		return nil, nil, nil
	}
	for {
		line, fields, err := rd.row()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return nil, nil, err
		}
		if len(fields) != len(header) {
			im.add(name, line, "", "has %d cells, but the header has %d columns (cells separated by %s)", len(fields), len(header), DelimiterName(rd.delim))
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
		im.checkCells(rd, t, header, fields)
	}
	if !usable {
		return nil, nil, nil
	}
	return t, rowProblems, nil
}

// findColumns finds the columns of a CSV file in its header row, reporting
// the unknown, repeated and missing ones. It returns the table, without
// rows, and whether its rows can be used: not without a required column.
// The table is nil when the header row says the file was read wrong: with
// another delimiter than its own, or as a single column.
func (im *importer) findColumns(rd *reader, name string, header []string, want columns) (t *table, usable bool) {
	known := want.all()
	// A header row read with the wrong delimiter is said so once, rather
	// than as a column unknown and every required one missing.
	if rd.delim != rd.guess && rd.seen {
		im.add(name, 1, "", "the cells are read as separated by %s (--delimiter), but the header row is separated by %s: give --delimiter %s, or leave it out to have it guessed", DelimiterName(rd.delim), DelimiterName(rd.guess), flagValue(rd.guess))
		return nil, false
	}
	if len(header) == 1 && !want.knows(strings.ToLower(strings.TrimSpace(header[0]))) {
		im.add(name, 1, "", "the header row %s is a single column: separate the cells by ',', ';' or tabs", echo(strings.TrimSpace(header[0])))
		return nil, false
	}
	t = &table{file: name, cols: map[string]int{}}
	misspelt := map[string]bool{} // columns an unknown header misspells, reported once as such
	for i, h := range header {
		h = strings.ToLower(strings.TrimSpace(h))
		switch {
		case h == "":
			im.add(name, 1, "", "column %d has no name", i+1)
		case !want.knows(h):
			near := suggest.Best(h, slices.Values(known), 1)
			if near != "" {
				misspelt[near] = true
			}
			im.add(name, 1, h, "unknown column%s", suggest.Offer(suggest.Quoted(near)...))
		case t.has(h):
			im.add(name, 1, h, "column appears twice")
		default:
			t.cols[h] = i
		}
	}
	// Rows are still checked past an unknown column, which they do not
	// use, but not without a required one.
	usable = true
	for _, w := range want.required {
		if t.has(w) {
			continue
		}
		usable = false
		if !misspelt[w] {
			im.add(name, 1, w, "required column is missing")
		}
	}
	return t, usable
}

// checkCells names, at its cell, text of a row that a dataset file
// refuses, rather than in the JSON written from it, and warns of a name
// with a letter lost to an encoding without it.
func (im *importer) checkCells(rd *reader, t *table, header, fields []string) {
	for i, f := range fields {
		col := strings.ToLower(strings.TrimSpace(header[i]))
		at := rd.line(i)
		if rule, msg := dataset.CheckText(f, col == "note"); rule != "" {
			im.add(t.file, at, col, "%s", msg)
		}
		if slices.Contains(nameColumns, col) && t.has(col) && lostLetter(f) {
			im.warn(t.file, at, col, "%s has \"?\" where a letter should stand: a sheet saved in an encoding without the Maltese letters (such as Windows-1252) has \"?\" in place of each ċ, ġ, ħ and ż; write the letters back and %s", echo(strings.TrimSpace(f)), saveAsUTF8)
		}
	}
}
