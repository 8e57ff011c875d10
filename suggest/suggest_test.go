package suggest_test

import (
	"fmt"
	"slices"
	"strings"
	"testing"
	"unicode/utf8"

	"ballot/suggest"
)

func TestDistance(t *testing.T) {
	tests := []struct {
		name string
		a, b string
		want int
	}{
		{"both empty", "", "", 0},
		{"one empty", "abc", "", 3},
		{"equal", "name", "name", 0},
		{"a letter replaced", "colour", "colout", 1},
		{"a letter left out", "primary_distrct_id", "primary_district_id", 1},
		{"a letter added", "pnn", "pn", 1},
		{"neighbours swapped", "nmae", "name", 1},
		{"a swap is not edited again", "ca", "abc", 3},
		{"the classic", "kitten", "sitting", 3},
		{"counted in runes, not bytes", "żebbuġ", "zebbug", 2},
		{"a byte-order mark is one rune", "\ufeffslug", "slug", 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := suggest.Distance(tt.a, tt.b); got != tt.want {
				t.Errorf("Distance(%q, %q) = %d, want %d", tt.a, tt.b, got, tt.want)
			}
			if got := suggest.Distance(tt.b, tt.a); got != tt.want {
				t.Errorf("Distance(%q, %q) = %d, want %d", tt.b, tt.a, got, tt.want)
			}
		})
	}
}

func TestBest(t *testing.T) {
	fields := []string{"id", "slug", "name", "given_name", "primary_district_id", "district_ids", "color"}
	tests := []struct {
		name   string
		s      string
		names  []string
		within int
		want   string
	}{
		{"a letter left out", "primary_distrct_id", fields, 1, "primary_district_id"},
		{"neighbours swapped", "given_nmae", fields, 1, "given_name"},
		{"a letter added", "colour", fields, 1, "color"},
		{"a slug with a letter more", "pnn", []string{"ad", "pl", "pn"}, 1, "pn"},
		{"two slips are too many", "nope", []string{"pl", "pn"}, 1, ""},
		{"nothing near", "extra", fields, 1, ""},
		{"the name itself is no suggestion", "pn", []string{"pn"}, 1, ""},
		{"the first of two as near", "ab", []string{"ac", "bb"}, 1, "ac"},
		{"the nearer of two, whatever their order", "abcd", []string{"abxy", "abcx"}, 2, "abcx"},
		{"a byte-order mark before a column", "\ufeffslug", fields, 1, ""},
		{"a letter no identifier has", "nàme", fields, 1, ""},
		{"no names", "name", nil, 1, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := suggest.Best(tt.s, slices.Values(tt.names), tt.within); got != tt.want {
				t.Errorf("Best(%q, %q, %d) = %q, want %q", tt.s, tt.names, tt.within, got, tt.want)
			}
		})
	}
}

func TestNear(t *testing.T) {
	localities := []string{"birgu", "birzebbuga", "ghaxaq", "marsa", "marsaskala", "marsaxlokk", "mdina", "mosta", "tarxien", "victoria", "vittoriosa"}
	tests := []struct {
		name  string
		key   string
		names []string
		n     int
		want  []string
	}{
		{"a letter left out", "birzebuga", localities, 3, []string{"birzebbuga"}},
		{"a beginning of several", "mars", localities, 3, []string{"marsa", "marsaskala", "marsaxlokk"}},
		{"at most n", "mars", localities, 2, []string{"marsa", "marsaskala"}},
		{"three edits are too many for the shorter of two names", "vittorioza", localities, 3, []string{"vittoriosa"}},
		{"a name written in full holds the one meant", "hal-ghaxaq", localities, 3, []string{"ghaxaq"}},
		{"a name with a word more", "mosta-dam", localities, 3, []string{"mosta"}},
		{"the nearest first", "abcdefgh", []string{"abxdefgy", "zzzzzzzz", "abcdefgx"}, 3, []string{"abcdefgx", "abxdefgy"}},
		{"words split by anything but letters", "robert abella", []string{"robert abela", "abela", "robert"}, 3, []string{"robert abela", "robert"}},
		{"one edit for a short key", "pll", []string{"pl", "pn"}, 3, []string{"pl"}},
		{"a word of a longer name", "partit", []string{"pl", "partit-laburista", "pn", "partit-nazzjonalista"}, 3, []string{"partit-laburista", "partit-nazzjonalista"}},
		{"a word must be whole", "mos", []string{"almost-there"}, 3, nil},
		{"nothing near", "london", localities, 3, nil},
		{"an empty key", "", localities, 3, nil},
		{"a very long key", strings.Repeat("a", 5000), localities, 3, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := suggest.Near(tt.key)
			for i, name := range tt.names {
				r.Add(i, name)
			}
			var got []string
			for _, i := range r.Nearest(tt.n) {
				got = append(got, tt.names[i])
			}
			if !slices.Equal(got, tt.want) {
				t.Errorf("Near(%.20q).Nearest(%d) = %q, want %q", tt.key, tt.n, got, tt.want)
			}
		})
	}
}

// TestNearItems: an item is as near as the nearest of its names, and items
// as near come in the order of their numbers, whatever the order they were
// added in.
func TestNearItems(t *testing.T) {
	r := suggest.Near("abela")
	r.Add(7, "robert abela") // holds "abela": one edit
	r.Add(3, "zammit")
	r.Add(3, "abela x") // holds it too
	r.Add(5, "abelaa")
	r.Add(5, "george")
	r.Add(2, "abella")
	r.Add(2, "abela") // the key itself: nearer still
	if got, want := r.Nearest(10), []int{2, 3, 5, 7}; !slices.Equal(got, want) {
		t.Errorf("Nearest = %v, want %v", got, want)
	}
}

func TestList(t *testing.T) {
	tests := []struct {
		items []string
		conj  string
		want  string
	}{
		{nil, "or", ""},
		{[]string{"Marsa"}, "or", "Marsa"},
		{[]string{"Marsa", "Mosta"}, "or", "Marsa or Mosta"},
		{[]string{"parties", "districts", "candidates"}, "or", "parties, districts or candidates"},
		{[]string{`"pl" (line 2)`, `"pn" (line 3)`}, "and", `"pl" (line 2) and "pn" (line 3)`},
	}
	for _, tt := range tests {
		if got := suggest.List(tt.items, tt.conj); got != tt.want {
			t.Errorf("List(%q, %q) = %q, want %q", tt.items, tt.conj, got, tt.want)
		}
	}
}

// TestOffer holds the words every message offers its suggestions with:
// in brackets after what was wrong, or as the API's clause after a
// semicolon, and nothing at all when there is nothing to offer.
func TestOffer(t *testing.T) {
	tests := []struct {
		names         []string
		offer, clause string
	}{
		{nil, "", ""},
		{suggest.Quoted(""), "", ""},
		{suggest.Quoted("name"), ` (did you mean "name"?)`, `; did you mean "name"?`},
		{suggest.Quoted(`say "hi"`), ` (did you mean "say \"hi\""?)`, `; did you mean "say \"hi\""?`},
		{[]string{"Marsa", "Mosta"}, " (did you mean Marsa or Mosta?)", "; did you mean Marsa or Mosta?"},
		{[]string{"a", "b", "c"}, " (did you mean a, b or c?)", "; did you mean a, b or c?"},
	}
	for _, tt := range tests {
		if got := suggest.Offer(tt.names...); got != tt.offer {
			t.Errorf("Offer(%q) = %q, want %q", tt.names, got, tt.offer)
		}
		if got := suggest.OfferClause(tt.names...); got != tt.clause {
			t.Errorf("OfferClause(%q) = %q, want %q", tt.names, got, tt.clause)
		}
	}
}

// FuzzDistance holds Distance, and the cut-short measure Best makes, to
// the full table of the optimal string alignment distance.
func FuzzDistance(f *testing.F) {
	f.Add("nmae", "name")
	f.Add("kitten", "sitting")
	f.Add("ca", "abc")
	f.Add("żebbuġ", "zebbug")
	f.Add("", "x")
	f.Add("\xff\xfe", "\ufffd")
	f.Fuzz(func(t *testing.T, a, b string) {
		if len(a) > 200 || len(b) > 200 {
			return
		}
		want := reference([]rune(a), []rune(b))
		if got := suggest.Distance(a, b); got != want {
			t.Fatalf("Distance(%q, %q) = %d, want %d", a, b, got, want)
		}
		if got := suggest.Distance(b, a); got != want {
			t.Fatalf("Distance(%q, %q) = %d, want %d", b, a, got, want)
		}
		ascii := !strings.ContainsFunc(a, func(r rune) bool { return r >= utf8.RuneSelf })
		for within := range 4 {
			if b == "" {
				break // "" is no name to suggest
			}
			got := suggest.Best(a, slices.Values([]string{b}), within)
			if near := ascii && want > 0 && want <= within; (got == b) != near || got != "" && got != b {
				t.Fatalf("Best(%q, [%q], %d) = %q; distance %d", a, b, within, got, want)
			}
		}
	})
}

// FuzzNear: whatever a client sends, a ranking holds only the items added,
// each once, and always a name one edit from the key.
func FuzzNear(f *testing.F) {
	f.Add("birzebuga", "birzebbuga", "marsa")
	f.Add("mars", "marsa", "marsaskala")
	f.Add("hal tarxien", "tarxien", "hal-far")
	f.Add("", "", "x")
	f.Fuzz(func(t *testing.T, key, a, b string) {
		r := suggest.Near(key)
		r.Add(1, a)
		r.Add(2, b)
		r.Add(1, b)
		got := r.Nearest(5)
		if len(got) > 2 || len(got) == 2 && (got[0] == got[1]) {
			t.Fatalf("Nearest = %v", got)
		}
		for _, i := range got {
			if i != 1 && i != 2 {
				t.Fatalf("Nearest = %v, an item never added", got)
			}
		}
		if key != "" && a != "" && suggest.Distance(key, a) <= 1 && !slices.Contains(got, 1) {
			t.Fatalf("Near(%q) left out %q, one edit away", key, a)
		}
	})
}

// reference is the optimal string alignment distance, the whole table.
func reference(a, b []rune) int {
	d := make([][]int, len(a)+1)
	for i := range d {
		d[i] = make([]int, len(b)+1)
		d[i][0] = i
	}
	for j := range d[0] {
		d[0][j] = j
	}
	for i := 1; i <= len(a); i++ {
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			d[i][j] = min(d[i-1][j]+1, d[i][j-1]+1, d[i-1][j-1]+cost)
			if i > 1 && j > 1 && a[i-1] == b[j-2] && a[i-2] == b[j-1] {
				d[i][j] = min(d[i][j], d[i-2][j-2]+1)
			}
		}
	}
	return d[len(a)][len(b)]
}

func ExampleBest() {
	columns := []string{"name", "given_name", "family_name"}
	fmt.Println(suggest.Best("given_nmae", slices.Values(columns), 1))
	// Output: given_name
}

func ExampleNear() {
	localities := []string{"Marsa", "Marsaskala", "Marsaxlokk", "Mosta"}
	r := suggest.Near("mars")
	for i, name := range localities {
		r.Add(i, strings.ToLower(name))
	}
	var near []string
	for _, i := range r.Nearest(3) {
		near = append(near, localities[i])
	}
	fmt.Println("did you mean " + suggest.List(near, "or") + "?")
	// Output: did you mean Marsa, Marsaskala or Marsaxlokk?
}

// TestNearLongNames: a key as long as a long name is measured within a few
// edits of the diagonal, not over the whole table, and no further than 8.
func TestNearLongNames(t *testing.T) {
	name := strings.Repeat("abcdefghij", 10_000)
	for _, tt := range []struct {
		key  string
		near bool
	}{
		{name[:len(name)-7], true},
		{name[:len(name)-8], false},
	} {
		r := suggest.Near(tt.key)
		r.Add(0, "x"+name) // so that the key is no beginning of it
		if got := len(r.Nearest(1)) == 1; got != tt.near {
			t.Errorf("a key %d edits from the name: near %v, want %v", len(name)+1-len(tt.key), got, tt.near)
		}
	}
}
