package baseline

import (
	"github.com/schedkit/schedkit/internal/indexheap"
	"github.com/schedkit/schedkit/internal/sim"
)

// slotHeap is a class's heap of slots (one per group with jobs ready in
// the class), ordered by (group key, key of the slot's first job, that
// job's rank, order): an indexheap.Heap of items that carry copies of
// their slot's key and first job (entry, key), as jobHeap's do, so a
// comparison reads the heap's own array instead of following the slot
// to its job heap's first item; only equal keys and ranks reach order.
// A slot's position is s.pos.
//
// The copies are kept exact by the index: a slot's key changes only
// before fixSlot (rekeyGroup), and its first job only through its job
// heap, whose every change is followed by fixSlot, which calls Fix (or
// Push) and so copies them. A Fix whose copies are unchanged returns at
// once: the heap was in order around the slot, with the same values, so
// sifting would move nothing.
type slotHeap struct {
	h indexheap.Heap[float64, slotItem]
	// nan is set once a NaN key was copied in: then the heap may be out
	// of order (NaN compares false both ways) and a Fix with unchanged
	// copies may still move the slot, so Fix never returns early again.
	// Shares of finite allocations over positive capacities and weights
	// are never NaN.
	nan bool
}

type slotItem struct {
	key    float64 // slot.key
	topKey float64 // slot.jobs.topKey()
	top    *entry  // slot.jobs.Top()
	s      *slot
}

func newSlotHeap(order func(a, b *sim.Job) bool) slotHeap {
	return slotHeap{h: indexheap.Heap[float64, slotItem]{Key: func(it slotItem) float64 { return it.key }, Less: func(a, b slotItem) bool {
		if a.topKey != b.topKey {
			return a.topKey < b.topKey
		}
		if a.top.rank != b.top.rank {
			return a.top.rank < b.top.rank
		}
		return order(a.top.j, b.top.j)
	}}}
}

// itemOf returns s's item, with its current key and first job; s's job
// heap must not be empty.
func itemOf(s *slot) slotItem {
	return slotItem{key: s.key, topKey: s.jobs.topKey(), top: s.jobs.Top(), s: s}
}

// Len returns the number of slots.
func (h *slotHeap) Len() int { return h.h.Len() }

// Top returns the least slot; the heap must not be empty.
func (h *slotHeap) Top() *slot { return h.h.Top().s }

// Push inserts s, which must not be in the heap and must have jobs.
func (h *slotHeap) Push(s *slot) {
	it := itemOf(s)
	h.nan = h.nan || it.key != it.key || it.topKey != it.topKey
	h.h.Push(it, &s.pos)
}

// Remove deletes s if it is in the heap.
func (h *slotHeap) Remove(s *slot) { h.h.Remove(&s.pos) }

// Fix restores the order around s after its key or first job changed
// (copying them); an s not in the heap is left alone, and so is one
// whose key, first job and that job's key are what the heap holds.
func (h *slotHeap) Fix(s *slot) {
	i := int(s.pos)
	if i < 0 {
		return
	}
	old, it := h.h.At(i), itemOf(s)
	if old.key == it.key && old.topKey == it.topKey && old.top == it.top && !h.nan {
		return // same values, heap in order: sifting would move nothing
	}
	h.nan = h.nan || it.key != it.key || it.topKey != it.topKey
	h.h.Fix(it, &s.pos)
}
