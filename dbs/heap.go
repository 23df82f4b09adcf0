package dbs

import "math/bits"

// qheap is an intrusive binary heap of the entries of one queue that have
// ready tasks of one slot kind, ordered by less (head first). Each entry
// records its position in pos[slot], so re-keying and removal are
// O(log n) without allocation.
//
// It is specialised, like lss's jheap, rather than the repository's
// shared internal/indexheap: with the shared heap (order and position
// through function values) a heartbeat at 10,000 queued jobs measured
// 1.9× slower (BenchmarkHeartbeat, 420 → 805 ns of CPU, medians of three
// interleaved runs of both builds).
type qheap struct {
	items []*entry
	slot  int // q*2 + kind
	kind  int
	order order
}

// order is how a queue orders its jobs for one slot kind (the
// configuration's switches).
type order struct {
	noMin        bool // Ablations.NoMinimumSlots
	unknownFirst bool // not Ablations.UnknownByWeight
	lostLast     bool // not Ablations.LostByWeight
}

// less orders a queue for one kind: jobs below their minimum of the kind
// first (unless noMin), among them those without a task time first
// (unknownFirst); then the queue's order (entry.ahead).
func (h *qheap) less(a, b *entry) bool {
	if !h.order.noMin {
		ab, bb := a.below(h.kind), b.below(h.kind)
		if ab != bb {
			return ab
		}
		if ab && h.order.unknownFirst && a.ttKnown != b.ttKnown {
			return !a.ttKnown
		}
	}
	return a.ahead(b, h.order.lostLast)
}

func (h *qheap) len() int { return len(h.items) }

func (h *qheap) top() *entry { return h.items[0] }

// upsert inserts e, or restores the heap order around it if present.
func (h *qheap) upsert(e *entry) {
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
func (h *qheap) remove(e *entry) {
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
func (h *qheap) reset() {
	for i, e := range h.items {
		e.pos[h.slot] = -1
		h.items[i] = nil
	}
	h.items = h.items[:0]
}

// push appends e without restoring order (call heapify after).
func (h *qheap) push(e *entry) {
	e.pos[h.slot] = int32(len(h.items))
	h.items = append(h.items, e)
}

// heapify restores the heap order of all items in O(n).
func (h *qheap) heapify() {
	for i := len(h.items)/2 - 1; i >= 0; i-- {
		h.down(i)
	}
}

func (h *qheap) swap(i, j int) {
	h.items[i], h.items[j] = h.items[j], h.items[i]
	h.items[i].pos[h.slot] = int32(i)
	h.items[j].pos[h.slot] = int32(j)
}

func (h *qheap) up(i int) {
	for i > 0 {
		p := (i - 1) / 2
		if !h.less(h.items[i], h.items[p]) {
			return
		}
		h.swap(i, p)
		i = p
	}
}

// down sifts item i down and reports whether it moved.
func (h *qheap) down(i int) bool {
	start, n := i, len(h.items)
	for {
		l := 2*i + 1
		if l >= n {
			break
		}
		c := l
		if r := l + 1; r < n && h.less(h.items[r], h.items[l]) {
			c = r
		}
		if !h.less(h.items[c], h.items[i]) {
			break
		}
		h.swap(i, c)
		i = c
	}
	return i > start
}

// fixScratch is fixAt's reusable state, shared by a scheduler's heaps.
type fixScratch struct {
	stamp []uint32    // stamp[i] == gen: position i is listed
	gen   uint32      // this fix's number
	depth [32][]int32 // listed positions by depth in the tree
}

// fixAt restores the heap order after the keys of the items at
// positions marks changed, every other item's key being as it was when
// the heap was last in order: Floyd's heapify (sift down every position,
// deepest first) restricted to the marked positions and their
// ancestors. A position neither marked nor an ancestor of one roots a
// subtree of unchanged items in heap order, which Floyd's pass would
// leave as it is. It falls back to heapify when the marks would cover
// most of the heap anyway.
func (h *qheap) fixAt(marks []int32, sc *fixScratch) {
	n := len(h.items)
	if n < 2 || len(marks) == 0 {
		return
	}
	if len(marks)*bits.Len(uint(n)) >= n {
		h.heapify()
		return
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
