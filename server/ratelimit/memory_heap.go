//go:build !unix || race

package ratelimit

// mappings is empty where the fixed arrays come from the Go heap: systems
// without anonymous memory mappings, and race-detector builds, since the
// detector watches only Go's own memory.
type mappings struct{}

func newMappings(*Limiter) *mappings { return &mappings{} }

func (l *Limiter) fixedArrays(ring, index int) ([]item, []uint64) {
	return make([]item, ring), make([]uint64, index)
}
