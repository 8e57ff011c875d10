package sheet

import (
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
