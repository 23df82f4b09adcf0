package dbs

import (
	"math"

	"github.com/schedkit/schedkit/internal/indexheap"
)

// qheap is the heap of the entries of one queue that have ready tasks
// of one slot kind, in queue order (head first): jobs below their
// minimum of the kind first (unless the NoMinimumSlots ablation), among
// them those without a task time first (unless UnknownByWeight); jobs
// that can still reach a minimum before those that cannot (unless
// LostByWeight); then weight descending, submission, ID. It is an
// indexheap.Heap whose key is queueKey and whose entries record their
// positions in pos[slot]. BenchmarkQueueHeap measures it against the
// hand-written heap it replaced (kept in heap_internal_test.go).
type qheap struct {
	h    indexheap.Heap[uint64, *entry]
	slot int // q*2 + kind
}

// order is how a queue orders its jobs for one slot kind (the
// configuration's switches).
type order struct {
	noMin        bool // Ablations.NoMinimumSlots
	unknownFirst bool // not Ablations.UnknownByWeight
	lostLast     bool // not Ablations.LostByWeight
}

func newQheap(slot, kind int, o order) qheap {
	return qheap{slot: slot, h: indexheap.Heap[uint64, *entry]{
		Key:  func(e *entry) uint64 { return queueKey(e, kind, o) },
		Less: (*entry).before, // equal keys: equal flags, so weight, submission, ID
	}}
}

// queueKey is the queue order for kind k up to the weight's last two
// bits, for the heap to compare inline: bit 63 clear for a job below
// its minimum of the kind (unless o.noMin); bit 62 set for one below its
// minimum with a task time (o.unknownFirst: those without one first);
// bit 61 set for a job that cannot reach any minimum (o.lostLast); then
// the weight, descending, in the remaining 61 bits. Weights are finite
// and ≥ 0 (models 1 and 3 keep them so), and the IEEE bits of such
// floats order as their values do, so where two keys differ their order
// is the queue order's; equal keys have equal flags and weights within
// four units in the last place, which before orders exactly.
func queueKey(e *entry, k int, o order) uint64 {
	key := (uint64(math.MaxInt64) - math.Float64bits(e.w+0)) >> 2 // +0: −0 is 0
	below := !o.noMin && e.below(k)
	if !below {
		key |= 1 << 63
	}
	if below && o.unknownFirst && e.ttKnown {
		key |= 1 << 62
	}
	if o.lostLast && e.lost {
		key |= 1 << 61
	}
	return key
}

func (h *qheap) len() int { return h.h.Len() }

func (h *qheap) top() *entry { return h.h.Top() }

// upsert inserts e, or restores the heap order around it if present.
func (h *qheap) upsert(e *entry) { h.h.Upsert(e, &e.pos[h.slot]) }

// remove deletes e if present.
func (h *qheap) remove(e *entry) { h.h.Remove(&e.pos[h.slot]) }

// reset empties the heap.
func (h *qheap) reset() { h.h.Reset() }

// push appends e without restoring order (call heapify after).
func (h *qheap) push(e *entry) { h.h.Add(e, &e.pos[h.slot]) }

// heapify restores the heap order of all items in O(n).
func (h *qheap) heapify() { h.h.Init() }

// fixAt restores the heap order after the keys of the entries at
// positions marks changed (indexheap.Heap.FixPositions).
func (h *qheap) fixAt(marks []int32, sc *indexheap.Scratch) { h.h.FixPositions(marks, sc) }

// appendTo appends the heap's entries, in heap order, to dst.
func (h *qheap) appendTo(dst []*entry) []*entry {
	for i := range h.h.Len() {
		dst = append(dst, h.h.At(i))
	}
	return dst
}
