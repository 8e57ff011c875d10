//go:build unix && !race

package ratelimit

import (
	"runtime"
	"sync"
	"syscall"
	"unsafe"
)

// mappings holds the memory a Limiter's fixed arrays live in. It is mapped
// from the operating system rather than allocated on the Go heap for two
// reasons: the collector's pacing sets the heap's next goal at twice what is
// live, so counters on the heap would let request garbage grow as large as
// the counters themselves (a million counters cost twice their 48 MiB); and
// an anonymous mapping is backed by memory only where it is written, so a
// cap of a million reserves address space until counters arrive. The items
// hold no pointers, so the collector has nothing to find there. Under the
// race detector, which watches only Go's own memory, the arrays come from
// the heap instead (memory_heap.go), so that races on them are reported.
type mappings struct {
	mu      sync.Mutex
	regions [][]byte
}

func newMappings(l *Limiter) *mappings {
	m := &mappings{}
	// When the Limiter is unreachable (a server in tests, say), its
	// mappings go back to the system, at the next collection: they do not
	// count toward the heap, so they do not bring one on.
	runtime.AddCleanup(l, (*mappings).unmap, m)
	return m
}

// alloc returns size zeroed bytes, or nil if the system refuses them.
func (m *mappings) alloc(size int) []byte {
	b, err := syscall.Mmap(-1, 0, size, syscall.PROT_READ|syscall.PROT_WRITE, syscall.MAP_ANON|syscall.MAP_PRIVATE)
	if err != nil {
		return nil
	}
	m.mu.Lock()
	m.regions = append(m.regions, b)
	m.mu.Unlock()
	return b
}

func (m *mappings) unmap() {
	m.mu.Lock()
	defer m.mu.Unlock()
	for _, b := range m.regions {
		_ = syscall.Munmap(b)
	}
	m.regions = nil
}

// fixedArrays returns a shard's ring and index of the given lengths from
// the Limiter's mappings, or nil slices if the system refuses them.
func (l *Limiter) fixedArrays(ring, index int) ([]item, []uint64) {
	const itemSize, slotSize = int(unsafe.Sizeof(item{})), int(unsafe.Sizeof(uint64(0)))
	b := l.mem.alloc(ring*itemSize + index*slotSize)
	if b == nil {
		return nil, nil
	}
	// The mapping is page-aligned and the index follows whole items, so
	// both arrays are aligned for their types.
	return unsafe.Slice((*item)(unsafe.Pointer(&b[0])), ring),
		unsafe.Slice((*uint64)(unsafe.Pointer(&b[ring*itemSize])), index)
}
