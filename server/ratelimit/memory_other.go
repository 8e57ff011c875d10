//go:build !unix

package ratelimit

// mappings is empty where anonymous memory mappings are not available: the
// fixed arrays come from the Go heap.
type mappings struct{}

func newMappings(*Limiter) *mappings { return &mappings{} }

func (l *Limiter) fixedArrays(ring, index int) ([]item, []uint64) {
	return make([]item, ring), make([]uint64, index)
}
