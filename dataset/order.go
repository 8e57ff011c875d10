package dataset

import (
	"iter"
	"maps"
	"slices"
)

// sortedKeys yields a map's keys in order, so nothing that reaches a report
// or a response depends on map iteration order.
func sortedKeys[V any](m map[string]V) iter.Seq[string] {
	return slices.Values(slices.Sorted(maps.Keys(m)))
}
