package baseline

import (
	"github.com/schedkit/schedkit/internal/indexheap"
	"github.com/schedkit/schedkit/internal/sim"
)

// jobHeap is a slot's heap of the jobs with ready tasks in one phase,
// ordered by (key, rank, order): an indexheap.Heap of items that carry
// their entry's rank, whose heap key is a copy of the entry's key
// e.ph[p].key, so a comparison reads the heap's own array instead of
// following two entry pointers into memory that is rarely in cache (a
// trace day's heaps hold thousands of jobs); only equal keys reach the
// ranks, and equal ranks order. A policy without keys (every key 0,
// index.keyOf nil) has its ranks as heap keys instead, compared inline
// likewise. An entry's position is e.ph[p].pos.
//
// The copy is kept exact by the index: an entry's key e.ph[p].key
// changes only before Push or Fix of the entry (refresh, rekey), and
// both copy it.
type jobHeap struct {
	p int // the phase
	h indexheap.Heap[float64, jobItem]
}

type jobItem struct {
	rank int64
	e    *entry
}

// newJobHeap returns phase p's heap for jobs ordered by order among
// equal ranks; keyed says whether the policy keys its jobs
// (index.keyOf).
func newJobHeap(p int, order func(a, b *sim.Job) bool, keyed bool) jobHeap {
	h := jobHeap{p: p}
	h.h.Key = func(it jobItem) float64 { return it.e.ph[p].key }
	if !keyed {
		// Every key is 0, so the rank is the first component: as a
		// float it is monotone in the rank (equal floats are left to
		// Less, which compares the ranks exactly).
		h.h.Key = func(it jobItem) float64 { return float64(it.rank) }
	}
	h.h.Less = func(a, b jobItem) bool {
		if a.rank != b.rank {
			return a.rank < b.rank
		}
		return order(a.e.j, b.e.j)
	}
	return h
}

// Len returns the number of entries.
func (h *jobHeap) Len() int { return h.h.Len() }

// Top returns the least entry; the heap must not be empty.
func (h *jobHeap) Top() *entry { return h.h.Top().e }

// topKey returns the least entry's key; the heap must not be empty.
func (h *jobHeap) topKey() float64 { return h.h.Top().e.ph[h.p].key }

// Push inserts e, which must not be in the heap.
func (h *jobHeap) Push(e *entry) { h.h.Push(jobItem{rank: e.rank, e: e}, &e.ph[h.p].pos) }

// Remove deletes e if it is in the heap.
func (h *jobHeap) Remove(e *entry) { h.h.Remove(&e.ph[h.p].pos) }

// Fix restores the order around e after its key changed (copying the
// new key); an e not in the heap is left alone.
func (h *jobHeap) Fix(e *entry) { h.h.Fix(jobItem{rank: e.rank, e: e}, &e.ph[h.p].pos) }
