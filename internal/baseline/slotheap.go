package baseline

import "github.com/schedkit/schedkit/internal/sim"

// slotHeap is a class's heap of slots (one per group with jobs ready in
// the class), ordered by (group key, key of the slot's first job, that
// job's rank, order): internal/indexheap's indexed binary min-heap
// specialised as jobHeap is. Each item carries copies of its slot's key
// and first job (entry, key), so a comparison reads the heap's own array
// instead of calling a closure that follows the slot to its job heap's
// first item; only equal keys and ranks reach order. It makes the same
// comparisons, moves and positions as indexheap.Heap with the Less the
// index used before (TestSlotHeapMatchesIndexheap; BenchmarkSlotHeap
// measures both), so the layout, and every Top, is the same.
//
// The copies are kept exact by the index: a slot's key changes only
// before fixSlot (rekeyGroup), and its first job only through its job
// heap, whose every change is followed by fixSlot, which calls Fix (or
// Push) and so copies them. A Fix whose copies are unchanged returns at
// once: the heap was in order around the slot, with the same values, so
// sifting would move nothing.
type slotHeap struct {
	order func(a, b *sim.Job) bool
	items []slotItem
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

func (h *slotHeap) less(a, b *slotItem) bool {
	if a.key != b.key {
		return a.key < b.key
	}
	if a.topKey != b.topKey {
		return a.topKey < b.topKey
	}
	if a.top.rank != b.top.rank {
		return a.top.rank < b.top.rank
	}
	return h.order(a.top.j, b.top.j)
}

// itemOf returns s's item, with its current key and first job; s's job
// heap must not be empty.
func itemOf(s *slot) slotItem {
	return slotItem{key: s.key, topKey: s.jobs.topKey(), top: s.jobs.Top(), s: s}
}

// Len returns the number of slots.
func (h *slotHeap) Len() int { return len(h.items) }

// Top returns the least slot; the heap must not be empty.
func (h *slotHeap) Top() *slot { return h.items[0].s }

// Push inserts s, which must not be in the heap and must have jobs.
func (h *slotHeap) Push(s *slot) {
	it := itemOf(s)
	h.nan = h.nan || it.key != it.key || it.topKey != it.topKey
	h.items = append(h.items, it)
	n := len(h.items) - 1
	s.pos = int32(n)
	h.up(n)
}

// Remove deletes s if it is in the heap.
func (h *slotHeap) Remove(s *slot) {
	i := int(s.pos)
	if i < 0 {
		return
	}
	n := len(h.items) - 1
	if i != n {
		h.items[i], h.items[n] = h.items[n], h.items[i]
		h.items[i].s.pos = int32(i)
	}
	h.items[n] = slotItem{}
	h.items = h.items[:n]
	s.pos = -1
	if i != n {
		h.fixAt(i)
	}
}

// Fix restores the order around s after its key or first job changed
// (copying them); an s not in the heap is left alone, and so is one
// whose key, first job and that job's key are what the heap holds.
func (h *slotHeap) Fix(s *slot) {
	i := int(s.pos)
	if i < 0 {
		return
	}
	it := &h.items[i]
	top := s.jobs.Top()
	k, tk := s.key, s.jobs.topKey()
	if it.key == k && it.topKey == tk && it.top == top && !h.nan {
		return // same values, heap in order: sifting would move nothing
	}
	h.nan = h.nan || k != k || tk != tk
	it.key, it.topKey, it.top = k, tk, top
	h.fixAt(i)
}

func (h *slotHeap) fixAt(i int) {
	if !h.down(i) {
		h.up(i)
	}
}

func (h *slotHeap) up(j int) {
	items := h.items
	x := items[j]
	for j > 0 {
		i := (j - 1) / 2
		if !h.less(&x, &items[i]) {
			break
		}
		items[j] = items[i]
		items[j].s.pos = int32(j)
		j = i
	}
	items[j] = x
	x.s.pos = int32(j)
}

func (h *slotHeap) down(i0 int) bool {
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
		items[i].s.pos = int32(i)
		i = j
	}
	if i > i0 {
		items[i] = x
		x.s.pos = int32(i)
	}
	return i > i0
}
