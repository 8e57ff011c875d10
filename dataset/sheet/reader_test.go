package sheet_test

import (
	"strings"
	"testing"

	"ballot/dataset/sheet"
)

// TestCountCells: a sheet's rows, and their cells that are not blank, are
// counted as Import reads them: below the header, without blank rows,
// with the delimiter given or the one the header shows, up to what Import
// would refuse.
func TestCountCells(t *testing.T) {
	for _, tt := range []struct {
		name  string
		csv   string
		delim rune
		rows  int64 // -1: not checked
		cells int64 // the cells not blank, when rows is checked
		err   bool
	}{
		{"empty", "", 0, 0, 0, false},
		{"header only", "a,b\n", 0, 0, 0, false},
		{"rows", "a,b\n1,2\n3,4\n", 0, 2, 4, false},
		{"blank rows skipped", "a,b\n1,2\n,\n \t, \n\n3,4\n,,\n", 0, 2, 4, false},
		{"blank cells not counted", "a,b,c\n1,,\n , 3,\t\n", 0, 2, 2, false},
		{"blank rows of a guessed delimiter", "a;b\n1;2\n;\n;;\n", 0, 1, 2, false},
		{"a delimiter given", "a;b\n1;2\n;\n", ',', 2, 2, false},
		{"a byte-order mark", "\uFEFFa,b\n1,2\n", 0, 1, 2, false},
		{"a quoted newline", "a,b\n\"1\n\n2\",3\n", 0, 1, 2, false},
		{"lines ended by CR alone", "a,b\r1,2\r\r3,\"4\r5\"\r", 0, 2, 4, false},
		// What Import refuses stops the count: how far it went is not
		// said.
		{"not UTF-8", "a,b\n1,2\n\xe9,3\n4,5\n", 0, -1, 0, true},
		{"a quote never closed", "a,b\n1,2\n\"3,4\n5,6\n", 0, -1, 0, true},
	} {
		t.Run(tt.name, func(t *testing.T) {
			opts := sheet.Options{Delimiter: tt.delim}
			rows, cells, err := sheet.CountCells(strings.NewReader(tt.csv), opts)
			if tt.rows >= 0 && (rows != tt.rows || cells != tt.cells) || (err != nil) != tt.err {
				t.Errorf("CountCells = %d, %d, %v; want %d, %d, error %t", rows, cells, err, tt.rows, tt.cells, tt.err)
			}
		})
	}
}

// TestParseDelimiter: the values --delimiter takes, and no other.
func TestParseDelimiter(t *testing.T) {
	cases := []struct {
		value string
		want  rune
		ok    bool
	}{
		{",", ',', true},
		{";", ';', true},
		{"tab", '\t', true},
		{"\t", '\t', true},
		{`\t`, '\t', true},
		{"", 0, false},
		{"','", 0, false}, // the quotes are the shell's
		{"|", 0, false},
		{"TAB", 0, false},
		{", ", 0, false},
	}
	for _, c := range cases {
		if got, ok := sheet.ParseDelimiter(c.value); got != c.want || ok != c.ok {
			t.Errorf("ParseDelimiter(%q) = %q, %v; want %q, %v", c.value, got, ok, c.want, c.ok)
		}
	}
}
