package dataset

import (
	"slices"
	"strings"
	"testing"
)

// appendJSONString writes what the encoder writes, for the slugs and UUIDs
// it passes as they are and for anything else.
func TestAppendJSONString(t *testing.T) {
	for _, s := range []string{
		"", "pn", "alternattiva-demokratika", "0f8fad5b-d9cb-469f-a165-70867728950e",
		`a"b`, `a\b`, "tab\there", "ħamrun", "<&>", "line\u2028sep", "\x7f",
	} {
		want := string(encodeRecord(s))
		if got := string(appendJSONString([]byte("x"), s)); got != "x"+want {
			t.Errorf("appendJSONString(%q) = %s, want x%s", s, got, want)
		}
	}
}

// sortNames orders by folded form, keeps names that fold alike in the order
// given, and drops a name given again, in a group small or large.
func TestSortNames(t *testing.T) {
	var many, manyWant []string
	for i := range 40 { // one folded form in 40 letter cases, each twice
		n := []byte("abcdef")
		for b := range n {
			if i&(1<<b) != 0 {
				n[b] -= 'a' - 'A'
			}
		}
		many = append(many, string(n), string(n))
		manyWant = append(manyWant, string(n))
	}
	for _, tc := range []struct{ in, want []string }{
		{nil, []string{}},
		{[]string{"Żejtun", "Attard", "Mosta", "Attard", "Żejtun"}, []string{"Attard", "Mosta", "Żejtun"}},
		{[]string{"Ħamrun", "Hamrun", "Ħamrun", "hamrun", "Gżira"}, []string{"Gżira", "Ħamrun", "Hamrun", "hamrun"}},
		{append([]string{"zz"}, many...), append(manyWant, "zz")},
	} {
		got := sortNames(append([]string(nil), tc.in...))
		if !slices.Equal(got, tc.want) {
			t.Errorf("sortNames(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

// A list sized from its first records reserves no more than it is allowed
// when those records are large and the rest small, and holds every record.
func TestNewListReservesAtMost(t *testing.T) {
	records := make([]string, 100_000)
	for i := range records {
		records[i] = "x"
		if i < 256 {
			records[i] = strings.Repeat("x", 1000)
		}
	}
	const most = 1 << 20
	l := newList("t", records, most)
	if c := cap(l.data); c > 2*most {
		t.Errorf("the list reserved %d bytes, want at most about %d", c, most)
	}
	if got, want := len(l.data), len(envelopeStart)+256*1003+(len(records)-256)*4-1; got != want {
		t.Errorf("the list holds %d bytes, want %d", got, want)
	}
	if got := string(l.record(len(records) - 1)); got != `"x"` {
		t.Errorf("the last record is %s, want \"x\"", got)
	}
}
