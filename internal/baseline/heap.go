package baseline

// iheap is an indexed binary min-heap: every item records its position
// (through pos), so removing or re-keying an item is O(log n) without a
// search, and nothing allocates once the slice has grown. The lss and
// binding packages keep their own heaps over their own records; this one
// serves the baselines' job index.
type iheap[T any] struct {
	items []T
	less  func(a, b T) bool
	pos   func(x T) *int32 // the item's position slot; -1 when absent
}

func (h *iheap[T]) len() int { return len(h.items) }

func (h *iheap[T]) top() T { return h.items[0] }

// push inserts x, which must be absent.
func (h *iheap[T]) push(x T) {
	*h.pos(x) = int32(len(h.items))
	h.items = append(h.items, x)
	h.up(len(h.items) - 1)
}

// remove deletes x if present.
func (h *iheap[T]) remove(x T) {
	p := h.pos(x)
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

// fix restores the order around x after its key changed; absent x is
// left alone.
func (h *iheap[T]) fix(x T) {
	if i := int(*h.pos(x)); i >= 0 {
		h.fixAt(i)
	}
}

func (h *iheap[T]) fixAt(i int) {
	if !h.down(i) {
		h.up(i)
	}
}

func (h *iheap[T]) swap(i, j int) {
	h.items[i], h.items[j] = h.items[j], h.items[i]
	*h.pos(h.items[i]) = int32(i)
	*h.pos(h.items[j]) = int32(j)
}

func (h *iheap[T]) up(j int) {
	for j > 0 {
		i := (j - 1) / 2
		if !h.less(h.items[j], h.items[i]) {
			break
		}
		h.swap(i, j)
		j = i
	}
}

// down sifts item i0 down and reports whether it moved.
func (h *iheap[T]) down(i0 int) bool {
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
