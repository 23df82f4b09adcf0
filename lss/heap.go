package lss

import (
	"math"

	"github.com/schedkit/schedkit/internal/indexheap"
)

// jheap is one of the scheduler's heaps of entries (per kind, fresh,
// kill): an indexheap.Heap whose entries record their positions in
// e.pos[slot]. BenchmarkHeapOps measures it against the hand-written
// heap it replaced (kept in heap_bench_test.go).
type jheap struct {
	h    indexheap.Heap[int64, *entry]
	slot int
}

// newStaticHeap returns a heap of static entries in queue order
// (cmpOrder of their static keys; with spare = key − now for every
// static job, comparing keys compares spare times). The heap's key is
// staticKey; cmpOrder orders equal ones.
func newStaticHeap(slot int) jheap {
	return jheap{slot: slot, h: indexheap.Heap[int64, *entry]{
		Key: staticKey,
		Less: func(a, b *entry) bool {
			return cmpOrder(a.static.class, a.static.key, a, b.static.class, b.static.key, b) < 0
		},
	}}
}

// staticKey is the first component of the queue order of a static
// entry, for the heap to compare inline: its key if its class is
// finite, else the least (spare −∞) or greatest (no deadline) int64. A
// different staticKey orders two entries as cmpOrder does; equal ones
// (incl. a finite key at an extreme) leave it to cmpOrder.
func staticKey(e *entry) int64 {
	switch e.static.class {
	case classNegInf:
		return math.MinInt64
	case classNoLimit:
		return math.MaxInt64
	}
	return e.static.key
}

// newKillHeap returns a heap of entries by kill time (entries of equal
// kill times are equivalent).
func newKillHeap(slot int) jheap {
	return jheap{slot: slot, h: indexheap.Heap[int64, *entry]{
		Key:  func(e *entry) int64 { return e.killAt },
		Less: func(a, b *entry) bool { return false },
	}}
}

func (h *jheap) len() int { return h.h.Len() }

func (h *jheap) top() *entry { return h.h.Top() }

// upsert inserts e, or restores the heap order around it if present.
func (h *jheap) upsert(e *entry) { h.h.Upsert(e, &e.pos[h.slot]) }

// remove deletes e if present.
func (h *jheap) remove(e *entry) { h.h.Remove(&e.pos[h.slot]) }

// reset empties the heap.
func (h *jheap) reset() { h.h.Reset() }

// add appends e without ordering; call heapify after a series of adds.
func (h *jheap) add(e *entry) { h.h.Add(e, &e.pos[h.slot]) }

// heapify establishes the heap order in O(n).
func (h *jheap) heapify() { h.h.Init() }
