package sheet

import (
	"encoding/csv"
	"errors"
	"fmt"
	"io/fs"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"ballot/dataset"
)

// Problems is the error Import returns: every problem found, warnings
// among them (marked so), in file and line order. A problem of a sheet
// names its column by its header name, as bare shows it; one of
// dataset.toml names its key as the pointer; one of the JSON written,
// found by the dataset's rules, is put at the line and column of the sheet
// it comes from (place.go). Of each kind (the same message in the same
// file) the first are kept, and a note after them counts the rest
// (dataset.KeptOfAKind).
type Problems []dataset.Problem

// Error lists the problems, one a line.
func (ps Problems) Error() string {
	lines := make([]string, len(ps))
	for i, p := range ps {
		lines[i] = p.String()
	}
	return strings.Join(lines, "\n")
}

// Errors counts the problems that are not warnings, those a note counts
// among them.
func (ps Problems) Errors() int {
	n, _ := dataset.CountProblems(ps)
	return n
}

// fileOrder ranks the files a problem may name: the manifest, the CSV
// files in the order they are read, then the JSON files checked last.
var fileOrder = []string{dataset.ManifestFile, PartiesFile, DistrictsFile, CandidatesFile, CountsFile, DistrictTotalsFile, TiesFile, CorrectionsFile, DefectsFile}

// sort puts the problems in file and line order, keeping the order in
// which they were found within a line.
func (ps Problems) sort() {
	rank := func(file string) int {
		if i := slices.Index(fileOrder, file); i >= 0 {
			return i
		}
		return len(fileOrder)
	}
	slices.SortStableFunc(ps, func(a, b dataset.Problem) int {
		if c := rank(a.File) - rank(b.File); c != 0 {
			return c
		}
		return a.Line - b.Line
	})
}

// add reports a problem at a line and column of a sheet; the column, a
// header name, is shown as bare shows it.
// Its kind is the message's format: past the bound of its kind it is
// counted, its message not written.
func (im *importer) add(file string, line int, column, format string, args ...any) {
	im.problems = im.bound.Add(im.problems, dataset.Problem{File: file, Line: line, Column: bare(column)}, format, format, args...)
}

func (im *importer) warn(file string, line int, column, format string, args ...any) {
	im.problems = im.bound.Add(im.problems, dataset.Problem{File: file, Line: line, Column: bare(column), Warning: true}, format, format, args...)
}

// echoLimit is the most characters of a cell or header a message shows:
// more than any name or link, and far less than a cell that holds the rest
// of its file.
const echoLimit = 100

// echo is a cell or a header as a message shows it: quoted as Go quotes a
// string, so that a control character of the sheet (ESC, BEL, CR) shows as
// its escape (\x1b, \a, \r) and never reaches the publisher's terminal,
// and cut after echoLimit characters, with "…" after the closing quote.
// Every message that echoes what a sheet holds shows it so.
func echo(s string) string {
	if utf8.RuneCountInString(s) <= echoLimit {
		return strconv.Quote(s)
	}
	n := 0
	for i := range s {
		if n == echoLimit {
			return strconv.Quote(s[:i]) + "…"
		}
		n++
	}
	return strconv.Quote(s)
}

// bare is a name or a header as a message shows it unquoted: as it is when
// it is short and every character of it prints, else as echo shows it.
func bare(s string) string {
	if utf8.RuneCountInString(s) <= echoLimit && strings.IndexFunc(s, func(r rune) bool { return !strconv.IsPrint(r) }) < 0 {
		return s
	}
	return echo(s)
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

// notUTF8 reports the first byte of in that is not UTF-8, where it
// stands; a file that begins with UTF-16's byte-order mark is said to be
// UTF-16, as Excel's "Unicode Text" writes.
func (im *importer) notUTF8(name string, in *stream) {
	how := saveAsUTF8
	if name == dataset.ManifestFile { // TOML, written in a text editor
		how = `save it again as UTF-8 (in a text editor's Save As, the encoding "UTF-8")`
	}
	what := fmt.Sprintf("byte 0x%02X is not UTF-8, so the file was saved in another encoding (such as Windows-1252, Latin-1 or Latin-3)", in.bad.c)
	switch {
	case in.utf16 && name == dataset.ManifestFile:
		what = "the file is UTF-16 (it begins with UTF-16's byte-order mark)"
	case in.utf16:
		what = "the file is UTF-16 (it begins with UTF-16's byte-order mark, as Excel's \"Unicode Text\" writes)"
	}
	im.problems = append(im.problems, dataset.Problem{File: name, Line: in.bad.line, Char: in.bad.char, Message: "is not UTF-8 text: " + what + "; " + how})
}

// saveAsUTF8 tells how to save a sheet as UTF-8 text.
const saveAsUTF8 = `save it again as "CSV UTF-8": in Excel, File > Save As > "CSV UTF-8 (Comma delimited)"; in LibreOffice Calc, File > Save As > "Text CSV" with "Edit filter settings" and the character set "Unicode (UTF-8)"`

// csvError reports an error of the CSV reader for a file whose every
// character quotes has scanned. A quote never closed is reported where it
// opened: the reader finds it missing only at the end of the file.
func (im *importer) csvError(name string, err error, quotes quoteScan) {
	var perr *csv.ParseError
	if errors.As(err, &perr) && errors.Is(perr.Err, csv.ErrQuote) {
		if line, char, ok := quotes.unclosed(); ok && line >= perr.StartLine {
			im.problems = append(im.problems, dataset.Problem{File: name, Line: line, Char: char, Message: `the quote that starts this cell is never closed, so the rest of the file was read into it: end the cell with ", and write a " inside a cell as ""`})
			return
		}
	}
	if errors.As(err, &perr) {
		im.add(name, perr.Line, "", "%v", perr.Err)
		return
	}
	im.add(name, 0, "", "%v", err)
}
