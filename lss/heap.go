package lss

// jheap is an intrusive binary min-heap of entries: each entry records
// its position in e.pos[slot], so removal and re-keying are O(log n)
// without allocation.
//
// It stays specialised on purpose. The repository's generic indexed heap
// (internal/indexheap: position and order through functions) could
// serve here, but BenchmarkHeapOps measures it slower on lss's operation
// mix (9–16% at 1,000 and 100,000 entries, fastest of alternating
// blocks: the position lookup becomes an indirect call on every swap),
// and binding's heaps, over int32 indices into its arenas, would pay
// the same. See heap_bench_test.go.
type jheap struct {
	items []*entry
	slot  int
	less  func(a, b *entry) bool
}

// lessStatic orders static entries by their constant key: with spare =
// key − now for every static job, comparing keys compares spare times.
func lessStatic(a, b *entry) bool {
	return cmpOrder(a.static.class, a.static.key, a, b.static.class, b.static.key, b) < 0
}

// lessKill orders entries by kill time.
func lessKill(a, b *entry) bool { return a.killAt < b.killAt }

func (h *jheap) len() int { return len(h.items) }

func (h *jheap) top() *entry { return h.items[0] }

// upsert inserts e, or restores the heap order around it if present.
func (h *jheap) upsert(e *entry) {
	if i := e.pos[h.slot]; i >= 0 {
		if !h.down(int(i)) {
			h.up(int(i))
		}
		return
	}
	e.pos[h.slot] = int32(len(h.items))
	h.items = append(h.items, e)
	h.up(len(h.items) - 1)
}

// remove deletes e if present.
func (h *jheap) remove(e *entry) {
	i := int(e.pos[h.slot])
	if i < 0 {
		return
	}
	n := len(h.items) - 1
	if i != n {
		h.swap(i, n)
	}
	h.items[n] = nil
	h.items = h.items[:n]
	e.pos[h.slot] = -1
	if i != n {
		if !h.down(i) {
			h.up(i)
		}
	}
}

// reset empties the heap.
func (h *jheap) reset() {
	for i, e := range h.items {
		e.pos[h.slot] = -1
		h.items[i] = nil
	}
	h.items = h.items[:0]
}

// add appends e without ordering; call heapify after a series of adds.
func (h *jheap) add(e *entry) {
	e.pos[h.slot] = int32(len(h.items))
	h.items = append(h.items, e)
}

// heapify establishes the heap order in O(n).
func (h *jheap) heapify() {
	for i := len(h.items)/2 - 1; i >= 0; i-- {
		h.down(i)
	}
}

func (h *jheap) swap(i, j int) {
	h.items[i], h.items[j] = h.items[j], h.items[i]
	h.items[i].pos[h.slot] = int32(i)
	h.items[j].pos[h.slot] = int32(j)
}

func (h *jheap) up(j int) {
	for j > 0 {
		i := (j - 1) / 2
		if !h.less(h.items[j], h.items[i]) {
			break
		}
		h.swap(i, j)
		j = i
	}
}

// down sifts item i down and reports whether it moved.
func (h *jheap) down(i0 int) bool {
	i, n := i0, len(h.items)
	for {
		l := 2*i + 1
		if l >= n {
			break
		}
		j := l
		if r := l + 1; r < n && h.less(h.items[r], h.items[l]) {
			j = r
		}
		if !h.less(h.items[j], h.items[i]) {
			break
		}
		h.swap(i, j)
		i = j
	}
	return i > i0
}
