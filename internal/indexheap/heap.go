// Package indexheap is schedkit's one indexed binary min-heap: lss's
// per-kind and kill heaps, dbs's queue heaps and the baselines' job and
// slot heaps are all a Heap.
//
// Items are ordered by a key of an ordered type, compared inline from a
// copy the heap keeps beside each item (taken when the item is pushed,
// added or fixed), and, among equal keys, by a Less function. A comparison of
// different keys reads only the heap's own array: no call (Go calls a
// generic type's functions and methods indirectly, so an order given
// only as a function costs a call per comparison), and no pointer
// followed into the items' memory, which on a trace day's heaps of
// thousands is rarely in cache. A user whose order has no natural first
// component leaves Key nil and orders everything with Less; one whose
// order has several chooses a key whose order agrees with it wherever
// two keys differ (lss's staticKey, dbs's queueKey, the baselines'
// shares or ranks): every comparison then has the outcome a comparison
// by the whole order would, and the heap lays its items out as a heap
// ordered by that would (the equivalence tests of lss, dbs and the
// baselines check it against the heaps it replaced, kept there).
//
// The simulator's event queue is not a Heap: its events are values
// without a home to record a position in, and it never removes or
// re-keys one (internal/sim, eventHeap).
//
// Every item comes with the address of its position slot, an int32 the
// heap keeps up to date (-1 while the item is not in the heap), so
// re-keying or removing an item is O(log n) without a search, and
// nothing allocates once the slice has grown; a move is recorded with
// one store, not a call. Sifting moves a hole rather than swapping, one
// write per level; the comparisons, and so the layout, are a swap
// loop's.
//
// A Heap is not safe for concurrent use.
//
// # Usage
//
//	type job struct {
//		deadline int64
//		name     string
//		pos      int32 // -1 while not in the heap
//	}
//	h := indexheap.Heap[int64, *job]{
//		Key:  func(j *job) int64 { return j.deadline },
//		Less: func(a, b *job) bool { return a.name < b.name }, // equal deadlines
//	}
//	h.Push(j, &j.pos)
//	j.deadline = 7
//	h.Fix(j, &j.pos)
//	first := h.Top()
package indexheap

import (
	"cmp"
	"math/bits"
)

// Heap is an indexed binary min-heap of items of type T ordered by their
// keys (the least first) and, among equal keys, by Less. A key is
// compared with != and <, so a NaN key is neither before nor after any
// other. Set Key (or leave it nil) and Less before use; the zero Heap
// with them set is empty.
type Heap[K cmp.Ordered, T any] struct {
	// Key returns x's key. The heap keeps a copy, taken when x is
	// pushed or added and again by Fix, FixPositions and Init: change
	// an item's key only before one of those restores the order around
	// it. Nil: every key is K's zero value, and Less orders every item.
	Key func(x T) K
	// Less reports whether a goes before b among items of equal keys
	// (required: a heap whose items of equal keys are equivalent says
	// so with a Less that returns false).
	Less  func(a, b T) bool
	items []entry[K, T]
}

// entry is an item with its key's copy and the address of its position
// slot.
type entry[K cmp.Ordered, T any] struct {
	key K
	x   T
	pos *int32
}

func (h *Heap[K, T]) key(x T) K {
	if h.Key == nil {
		var zero K
		return zero
	}
	return h.Key(x)
}

// less is the heap's order over its entries, small enough to be
// inlined in the sifting loops: they call only to break ties.
func (h *Heap[K, T]) less(a, b *entry[K, T]) bool {
	if a.key != b.key {
		return a.key < b.key
	}
	return h.Less(a.x, b.x)
}

// Len returns the number of items.
func (h *Heap[K, T]) Len() int { return len(h.items) }

// Top returns the least item; the heap must not be empty.
func (h *Heap[K, T]) Top() T { return h.items[0].x }

// At returns the item at position i (0 ≤ i < Len()); At(0) is Top.
// Items past 0 are in no particular order, for iteration.
func (h *Heap[K, T]) At(i int) T { return h.items[i].x }

// Push inserts x, whose position slot is *pos; x must not be in the
// heap (*pos < 0).
func (h *Heap[K, T]) Push(x T, pos *int32) {
	h.Add(x, pos)
	h.up(len(h.items) - 1)
}

// Fix stores x at the position *pos records and restores the order
// around it (its key changed, or x is a new copy of the item carrying
// its new key); with *pos < 0 (not in the heap) it does nothing.
func (h *Heap[K, T]) Fix(x T, pos *int32) {
	if i := int(*pos); i >= 0 {
		h.items[i].key, h.items[i].x = h.key(x), x
		h.fixAt(i)
	}
}

// Upsert is Fix if x is in the heap (*pos ≥ 0), else Push.
func (h *Heap[K, T]) Upsert(x T, pos *int32) {
	if *pos >= 0 {
		h.Fix(x, pos)
		return
	}
	h.Push(x, pos)
}

// Pop removes and returns the least item; the heap must not be empty.
func (h *Heap[K, T]) Pop() T {
	x := h.items[0].x
	h.Remove(h.items[0].pos)
	return x
}

// Remove deletes the item whose position slot is *pos, if it is in the
// heap (*pos ≥ 0), and sets *pos to -1.
func (h *Heap[K, T]) Remove(pos *int32) {
	i := int(*pos)
	if i < 0 {
		return
	}
	n := len(h.items) - 1
	if i != n {
		h.items[i], h.items[n] = h.items[n], h.items[i]
		*h.items[i].pos = int32(i)
	}
	h.items[n] = entry[K, T]{}
	h.items = h.items[:n]
	*pos = -1
	if i != n {
		h.fixAt(i)
	}
}

// Reset empties the heap, setting every item's position to -1, and
// keeps the slice's capacity.
func (h *Heap[K, T]) Reset() {
	for i := range h.items {
		*h.items[i].pos = -1
		h.items[i] = entry[K, T]{}
	}
	h.items = h.items[:0]
}

// Add appends x, which must not be in the heap, without restoring the
// order: call Init after a series of Adds (O(n) in all, against
// O(n log n) for as many Pushes).
func (h *Heap[K, T]) Add(x T, pos *int32) {
	*pos = int32(len(h.items))
	h.items = append(h.items, entry[K, T]{key: h.key(x), x: x, pos: pos})
}

// Init copies every item's key again and restores the heap order of
// all items in O(n).
func (h *Heap[K, T]) Init() {
	for i := range h.items {
		h.items[i].key = h.key(h.items[i].x)
	}
	for i := len(h.items)/2 - 1; i >= 0; i-- {
		h.down(i)
	}
}

func (h *Heap[K, T]) fixAt(i int) {
	if !h.down(i) {
		h.up(i)
	}
}

// up sifts item j up: the item rides a hole, parents move down one
// write each, and the item is written (and its position recorded) once.
func (h *Heap[K, T]) up(j int) {
	items := h.items
	x := items[j]
	for j > 0 {
		i := (j - 1) / 2
		if !h.less(&x, &items[i]) {
			break
		}
		items[j] = items[i]
		*items[j].pos = int32(j)
		j = i
	}
	items[j] = x
	*x.pos = int32(j)
}

// down sifts item i0 down (a hole, as up) and reports whether it moved.
func (h *Heap[K, T]) down(i0 int) bool {
	items := h.items
	i, n := i0, len(items)
	x := items[i0]
	for {
		l := 2*i + 1
		if l >= n {
			break
		}
		j := l
		if r := l + 1; r < n && h.less(&items[r], &items[l]) {
			j = r
		}
		if !h.less(&items[j], &x) {
			break
		}
		items[i] = items[j]
		*items[i].pos = int32(i)
		i = j
	}
	if i > i0 {
		items[i] = x
		*x.pos = int32(i)
	}
	return i > i0
}

// Scratch is FixPositions's reusable state; heaps may share one.
type Scratch struct {
	stamp []uint32    // stamp[i] == gen: position i is listed
	gen   uint32      // this fix's number
	depth [32][]int32 // listed positions by depth in the tree
}

// FixPositions restores the heap order after the keys of the items at
// positions marks changed (it copies their keys again), every other
// item's key being as it was when the heap was last in order: Floyd's heapify (sift down every
// position, deepest first) restricted to the marked positions and their
// ancestors. A position neither marked nor an ancestor of one roots a
// subtree of unchanged items in heap order, which Floyd's pass would
// leave as it is. It falls back to Init when the marks would cover most
// of the heap anyway.
func (h *Heap[K, T]) FixPositions(marks []int32, sc *Scratch) {
	n := len(h.items)
	if len(marks) == 0 {
		return
	}
	if len(marks)*bits.Len(uint(n)) >= n {
		h.Init()
		return
	}
	for _, i := range marks {
		h.items[i].key = h.key(h.items[i].x)
	}
	if len(sc.stamp) < n {
		sc.stamp = make([]uint32, 2*n)
		sc.gen = 0
	}
	sc.gen++
	if sc.gen == 0 { // wrapped: old stamps could match
		clear(sc.stamp)
		sc.gen = 1
	}
	deepest := 0
	for _, i := range marks {
		for j := int(i); sc.stamp[j] != sc.gen; j = (j - 1) / 2 {
			sc.stamp[j] = sc.gen
			d := bits.Len(uint(j+1)) - 1
			sc.depth[d] = append(sc.depth[d], int32(j))
			deepest = max(deepest, d)
			if j == 0 {
				break
			}
		}
	}
	for d := deepest; d >= 0; d-- {
		for _, j := range sc.depth[d] {
			h.down(int(j))
		}
		sc.depth[d] = sc.depth[d][:0]
	}
}
