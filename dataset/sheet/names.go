package sheet

import (
	"maps"
	"slices"
	"strings"

	"ballot/dataset"
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

func deref(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}

// orList joins items as "a", "a or b", "a, b or c".
func orList(items []string, conj string) string {
	if len(items) <= 1 {
		return strings.Join(items, "")
	}
	return strings.Join(items[:len(items)-1], ", ") + " " + conj + " " + items[len(items)-1]
}

// nameKey is a key a record may be named by, for suggestions.
type nameKey struct {
	key    string
	record int
}

// nearest returns up to three records named by a key close to k: a few
// edits away (one for a short key, up to three for a long one), or
// holding k's words whole, or held whole in them; the closest first, then
// in file order.
func nearest(k string, keys []nameKey) []int {
	limit := 1
	switch n := len([]rune(k)); {
	case n > 8:
		limit = 3
	case n > 4:
		limit = 2
	}
	best := map[int]int{} // record -> its closest distance
	for _, nk := range keys {
		d := dataset.EditDistance(k, nk.key)
		if d > limit && k != "" && nk.key != "" && (strings.Contains("-"+nk.key+"-", "-"+k+"-") || strings.Contains("-"+k+"-", "-"+nk.key+"-")) {
			d = limit
		}
		if d > limit {
			continue
		}
		if old, ok := best[nk.record]; !ok || d < old {
			best[nk.record] = d
		}
	}
	records := slices.Sorted(maps.Keys(best))
	slices.SortStableFunc(records, func(a, b int) int { return best[a] - best[b] })
	if len(records) > 3 {
		records = records[:3]
	}
	return records
}
