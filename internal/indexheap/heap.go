// Package indexheap is the indexed binary min-heap that schedkit's
// packages share where one is needed and no benchmark has shown a
// specialised heap to pay: the baselines' job index uses it for its
// class heaps (its per-slot job heaps are a specialisation keeping each
// job's key inline, baseline's jobHeap, which makes the same moves:
// fewer cache misses on a trace day's heaps of thousands). lss and dbs
// keep their own, measured (lss's BenchmarkHeapOps: the function-call
// order and position cost 12–14% on its operation mix; dbs's heartbeat
// 1.9×); the simulator's event heap holds values, not indexed items.
//
// Every item records its own position through the Pos function, so
// removing or re-keying an item is O(log n) without a search, and nothing
// allocates once the slice has grown. A Heap is not safe for concurrent
// use.
//
// # Usage
//
//	type job struct {
//		key int
//		pos int32 // -1 while not in the heap
//	}
//	h := indexheap.Heap[*job]{
//		Less: func(a, b *job) bool { return a.key < b.key },
//		Pos:  func(j *job) *int32 { return &j.pos },
//	}
//	h.Push(j)
//	j.key = 7
//	h.Fix(j)
//	first := h.Top()
package indexheap

// Heap is an indexed binary min-heap of items ordered by Less (the least
// first). Pos returns a pointer to an item's position slot, which the
// heap keeps up to date: -1 while the item is not in the heap. Set Less
// and Pos before use; the zero Heap with them set is empty.
type Heap[T any] struct {
	Less  func(a, b T) bool
	Pos   func(x T) *int32
	items []T
}

// Len returns the number of items.
func (h *Heap[T]) Len() int { return len(h.items) }

// Top returns the least item; the heap must not be empty.
func (h *Heap[T]) Top() T { return h.items[0] }

// At returns the i-th item in heap order (0 ≤ i < Len()); At(0) is Top.
// Items past 0 are in no particular order, for iteration.
func (h *Heap[T]) At(i int) T { return h.items[i] }

// Contains reports whether x is in the heap.
func (h *Heap[T]) Contains(x T) bool { return *h.Pos(x) >= 0 }

// Push inserts x, which must not be in the heap.
func (h *Heap[T]) Push(x T) {
	*h.Pos(x) = int32(len(h.items))
	h.items = append(h.items, x)
	h.up(len(h.items) - 1)
}

// Upsert inserts x, or restores the order around it if it is in the heap
// already (its key changed).
func (h *Heap[T]) Upsert(x T) {
	if *h.Pos(x) >= 0 {
		h.Fix(x)
		return
	}
	h.Push(x)
}

// Pop removes and returns the least item; the heap must not be empty.
func (h *Heap[T]) Pop() T {
	x := h.items[0]
	h.Remove(x)
	return x
}

// Remove deletes x if it is in the heap.
func (h *Heap[T]) Remove(x T) {
	p := h.Pos(x)
	i := int(*p)
	if i < 0 {
		return
	}
	n := len(h.items) - 1
	if i != n {
		h.swap(i, n)
	}
	var zero T
	h.items[n] = zero
	h.items = h.items[:n]
	*p = -1
	if i != n {
		h.fixAt(i)
	}
}

// Fix restores the order around x after its key changed; an x not in
// the heap is left alone.
func (h *Heap[T]) Fix(x T) {
	if i := int(*h.Pos(x)); i >= 0 {
		h.fixAt(i)
	}
}

// Reset empties the heap, marking every item absent, and keeps the
// slice's capacity.
func (h *Heap[T]) Reset() {
	var zero T
	for i, x := range h.items {
		*h.Pos(x) = -1
		h.items[i] = zero
	}
	h.items = h.items[:0]
}

// Add appends x, which must not be in the heap, without restoring the
// order: call Init after a series of Adds (O(n) in all, against
// O(n log n) for as many Pushes).
func (h *Heap[T]) Add(x T) {
	*h.Pos(x) = int32(len(h.items))
	h.items = append(h.items, x)
}

// Init restores the heap order of all items in O(n).
func (h *Heap[T]) Init() {
	for i := len(h.items)/2 - 1; i >= 0; i-- {
		h.down(i)
	}
}

func (h *Heap[T]) fixAt(i int) {
	if !h.down(i) {
		h.up(i)
	}
}

func (h *Heap[T]) swap(i, j int) {
	h.items[i], h.items[j] = h.items[j], h.items[i]
	*h.Pos(h.items[i]) = int32(i)
	*h.Pos(h.items[j]) = int32(j)
}

func (h *Heap[T]) up(j int) {
	// The item rides a hole up: parents move down one write each, and
	// the item is written (and its position recorded) once. The
	// comparisons are a swap loop's, so the layout is the same.
	items := h.items
	x := items[j]
	for j > 0 {
		i := (j - 1) / 2
		if !h.Less(x, items[i]) {
			break
		}
		items[j] = items[i]
		*h.Pos(items[j]) = int32(j)
		j = i
	}
	items[j] = x
	*h.Pos(x) = int32(j)
}

// down sifts item i0 down and reports whether it moved (a hole, as up).
func (h *Heap[T]) down(i0 int) bool {
	items := h.items
	i, n := i0, len(items)
	x := items[i0]
	for {
		l := 2*i + 1
		if l >= n {
			break
		}
		j := l
		if r := l + 1; r < n && h.Less(items[r], items[l]) {
			j = r
		}
		if !h.Less(items[j], x) {
			break
		}
		items[i] = items[j]
		*h.Pos(items[i]) = int32(i)
		i = j
	}
	if i > i0 {
		items[i] = x
		*h.Pos(x) = int32(i)
	}
	return i > i0
}
