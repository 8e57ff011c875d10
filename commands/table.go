package commands

import (
	"bytes"
	"io"
	"os"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"golang.org/x/term"

	"ballot/dataset"
)

// defaultTableWidth is the width a table fits when stdout is not a terminal
// and COLUMNS is not set.
const defaultTableWidth = 100

// tableGap is the spaces between two columns of a table.
const tableGap = 2

// minCutWidth is the narrowest a column is cut to: below it, a line is
// wider than asked rather than unreadable.
const minCutWidth = 4

// tableHidden are the columns a table leaves out: the ids, unless --ids
// asks for them, and the parts of a candidate's name, which name holds.
var tableHidden = map[string]bool{"id": true, "party_id": true, "primary_district_id": true, "district_ids": true, "district_id": true, "person_id": true, "given_name": true, "family_name": true}

// tableIDs are the hidden columns --ids brings back, shown whole.
var tableIDs = map[string]bool{"id": true, "party_id": true, "primary_district_id": true, "district_ids": true, "district_id": true, "person_id": true}

// tableHeads renames, in a table, the columns of names and numbers that
// stand for ids.
var tableHeads = map[string]string{"party_short_name": "party", "primary_district_number": "district", "district_numbers": "districts", "district_number": "district"}

// tableWidth is the width a table fits: COLUMNS when it is set to a
// positive number, else the terminal's width when w is one, else 100.
func tableWidth(w io.Writer) int {
	if n, err := strconv.Atoi(os.Getenv("COLUMNS")); err == nil && n > 0 {
		return n
	}
	if f, ok := w.(*os.File); ok && term.IsTerminal(int(f.Fd())) {
		if n, _, err := term.GetSize(int(f.Fd())); err == nil && n > 0 {
			return n
		}
	}
	return defaultTableWidth
}

// writeTable writes the records as an aligned table for people, at most
// width runes a line: names and numbers instead of ids (ids too, whole,
// with ids), no column that is empty in every row, the longest values cut
// with "…" until the line fits.
func writeTable(w io.Writer, ds *dataset.Dataset, c dataset.Collection, res dataset.Result, ids bool, width int) error {
	rows := columnRows(ds, c, res)
	var keep []int
	var whole []bool // never cut: the ids
	for j, col := range rows[0] {
		if tableHidden[col] && !(ids && tableIDs[col]) {
			continue
		}
		keep = append(keep, j)
		whole = append(whole, tableIDs[col])
	}
	table := make([][]string, len(rows))
	natural := make([]int, len(keep))
	for i, row := range rows {
		table[i] = make([]string, len(keep))
		for k, j := range keep {
			v := row[j]
			if i == 0 {
				if h, ok := tableHeads[v]; ok {
					v = h
				}
			}
			v = strings.Map(func(r rune) rune {
				if unicode.IsControl(r) {
					return ' '
				}
				return r
			}, v)
			table[i][k] = v
			natural[k] = max(natural[k], utf8.RuneCountInString(v))
		}
	}
	// A column empty in every row says nothing to a person: it is left
	// out, and its header with it.
	filled := make([]bool, len(keep))
	for _, row := range table[1:] {
		for k, v := range row {
			filled[k] = filled[k] || strings.TrimSpace(v) != ""
		}
	}
	shown := 0
	for k := range keep {
		if filled[k] {
			for i := range table {
				table[i][shown] = table[i][k]
			}
			natural[shown], whole[shown] = natural[k], whole[k]
			shown++
		}
	}
	if shown > 0 { // with no record, the header alone, whole
		for i := range table {
			table[i] = table[i][:shown]
		}
		natural, whole = natural[:shown], whole[:shown]
	}
	widths := fitWidths(natural, whole, width)
	var b strings.Builder
	for _, row := range table {
		line := make([]byte, 0, width)
		for k, v := range row {
			v = cut(v, widths[k])
			line = append(line, v...)
			if k < len(row)-1 {
				pad := widths[k] - utf8.RuneCountInString(v) + tableGap
				line = append(line, strings.Repeat(" ", pad)...)
			}
		}
		b.Write(bytes.TrimRight(line, " "))
		b.WriteByte('\n')
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// fitWidths returns the columns' widths so that the columns not marked
// whole fit width runes a line: each as wide as its widest value, or, when
// they would be too wide, the widest cut to one width, the largest that fits
// (and not below minCutWidth). Columns marked whole (the ids of --ids) are
// never cut and are left out of the count: they widen the same table.
func fitWidths(natural []int, whole []bool, width int) []int {
	widths := append([]int(nil), natural...)
	total, longest, cuttable := 0, 0, 0
	for k, n := range natural {
		if !whole[k] {
			total += n
			longest = max(longest, n)
			cuttable++
		}
	}
	budget := width - tableGap*(cuttable-1)
	if total <= budget {
		return widths
	}
	// The cut width is the largest level whose cut columns fit the budget.
	sum := func(level int) int {
		s := 0
		for k, n := range natural {
			if !whole[k] {
				s += min(n, level)
			}
		}
		return s
	}
	level := minCutWidth
	for l := longest; l > minCutWidth; l-- {
		if sum(l) <= budget {
			level = l
			break
		}
	}
	spare := budget - sum(level)
	for k, n := range natural {
		if whole[k] || n <= level {
			continue
		}
		widths[k] = level
		if spare > 0 {
			widths[k]++
			spare--
		}
	}
	return widths
}

// cut shortens s to n runes, its last one "…", when it is longer.
func cut(s string, n int) string {
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	if n < 1 {
		return ""
	}
	r := []rune(s)
	return string(r[:n-1]) + "…"
}
