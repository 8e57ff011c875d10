package sheet

import (
	"regexp"
	"strings"

	"ballot/dataset"
	"ballot/suggest"
)

// key is what a name is matched by: its slug, so that letter case,
// accents and punctuation do not count, or, when it makes none, the name
// folded.
func key(s string) string {
	if k := dataset.Slugify(s); k != "" {
		return k
	}
	return dataset.Fold(strings.TrimSpace(s))
}

// nameKey is a key a record may be named by, for suggestions.
type nameKey struct {
	key    string
	record int
}

// nearest returns up to three records named by a key close to k, as the
// one suggester ranks them (suggest.Near): the closest first, then in file
// order.
func nearest(k string, keys []nameKey) []int {
	r := suggest.Near(k)
	for _, nk := range keys {
		r.Add(nk.record, nk.key)
	}
	return r.Nearest(3)
}

// nickname is a nickname in brackets after the name it stands for.
var nickname = regexp.MustCompile(`(\S+)\s*\[([^\]]*)\]`)

// nameForms returns name without its nicknames in brackets, and with each
// in place of the name before it.
func nameForms(name string) []string {
	forms := []string{nickname.ReplaceAllString(name, "$1")}
	if nickname.MatchString(name) {
		forms = append(forms, nickname.ReplaceAllString(name, "$2"))
	}
	return forms
}

// holdsName reports whether the words of a name, long, hold those of
// short in order, with the same first and last words: short is long
// without some of its given or middle names.
func holdsName(short, long []string) bool {
	if len(short) < 2 || len(short) > len(long) || short[0] != long[0] || short[len(short)-1] != long[len(long)-1] {
		return false
	}
	j := 0
	for _, w := range long {
		if j < len(short) && w == short[j] {
			j++
		}
	}
	return j == len(short)
}
