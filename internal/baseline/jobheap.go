package baseline

import "github.com/schedkit/schedkit/internal/sim"

// jobHeap is a slot's heap of the jobs with ready tasks in one phase,
// ordered by (key, rank, order): internal/indexheap's indexed binary
// min-heap specialised to the index's entries. Each item carries a copy
// of its entry's key and rank, so a comparison reads the heap's own
// array instead of following a closure and two entry pointers into
// memory that is rarely in cache (a trace day's heaps hold thousands of
// jobs); only equal keys and ranks reach order. It makes the same
// comparisons, moves and positions as indexheap.Heap with the equivalent
// Less (BenchmarkJobHeap measures both), so the layout, and every Top,
// is the same.
//
// The copy is kept exact by the index: an entry's key e.ph[p].key
// changes only before Push or Fix of the entry (refresh, rekey), and
// both copy it.
type jobHeap struct {
	p     int // the phase: an entry's position is e.ph[p].pos
	order func(a, b *sim.Job) bool
	items []jobItem
}

type jobItem struct {
	key  float64
	rank int64
	e    *entry
}

func (h *jobHeap) less(a, b *jobItem) bool {
	if a.key != b.key {
		return a.key < b.key
	}
	if a.rank != b.rank {
		return a.rank < b.rank
	}
	return h.order(a.e.j, b.e.j)
}

// Len returns the number of entries.
func (h *jobHeap) Len() int { return len(h.items) }

// Top returns the least entry; the heap must not be empty.
func (h *jobHeap) Top() *entry { return h.items[0].e }

// topKey returns the least entry's key; the heap must not be empty.
func (h *jobHeap) topKey() float64 { return h.items[0].key }

func (h *jobHeap) setPos(it *jobItem, i int) { it.e.ph[h.p].pos = int32(i) }

// Push inserts e, which must not be in the heap.
func (h *jobHeap) Push(e *entry) {
	h.items = append(h.items, jobItem{key: e.ph[h.p].key, rank: e.rank, e: e})
	n := len(h.items) - 1
	e.ph[h.p].pos = int32(n)
	h.up(n)
}

// Remove deletes e if it is in the heap.
func (h *jobHeap) Remove(e *entry) {
	i := int(e.ph[h.p].pos)
	if i < 0 {
		return
	}
	n := len(h.items) - 1
	if i != n {
		h.items[i], h.items[n] = h.items[n], h.items[i]
		h.setPos(&h.items[i], i)
	}
	h.items[n] = jobItem{}
	h.items = h.items[:n]
	e.ph[h.p].pos = -1
	if i != n {
		h.fixAt(i)
	}
}

// Fix restores the order around e after its key changed (copying the
// new key); an e not in the heap is left alone.
func (h *jobHeap) Fix(e *entry) {
	if i := int(e.ph[h.p].pos); i >= 0 {
		h.items[i].key = e.ph[h.p].key
		h.fixAt(i)
	}
}

func (h *jobHeap) fixAt(i int) {
	if !h.down(i) {
		h.up(i)
	}
}

func (h *jobHeap) up(j int) {
	items := h.items
	x := items[j]
	for j > 0 {
		i := (j - 1) / 2
		if !h.less(&x, &items[i]) {
			break
		}
		items[j] = items[i]
		h.setPos(&items[j], j)
		j = i
	}
	items[j] = x
	h.setPos(&items[j], j)
}

func (h *jobHeap) down(i0 int) bool {
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
		h.setPos(&items[i], i)
		i = j
	}
	if i > i0 {
		items[i] = x
		h.setPos(&items[i], i)
	}
	return i > i0
}
