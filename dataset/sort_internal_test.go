package dataset

import (
	"slices"
	"testing"
)

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
