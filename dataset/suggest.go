package dataset

import (
	"slices"

	"ballot/suggest"
)

// Nearest is suggest.Best within one edit, for the callers in
// dataset/sheet that do not call suggest yet.
func Nearest(s string, names []string) string {
	return suggest.Best(s, slices.Values(names), 1)
}

// EditDistance is suggest.Distance, for the callers in dataset/sheet that
// do not call suggest yet.
func EditDistance(a, b string) int {
	return suggest.Distance(a, b)
}
