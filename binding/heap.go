package binding

// Indexed binary heaps over node slots. Each node records its position in
// each heap it can be in, so that a key change or a removal is O(log n)
// without a search.
//
//	pushHeap  per rack, every queued ANode; min by (push key, ID): the
//	          stack that receives the next unit ("the smallest stack").
//	donorHeap per rack, queued ANodes with a non-empty stack; max by
//	          (load key, then smallest ID): the stack whose top unit moves
//	          ("the largest stack").
//	deadHeap  all nodes; min by (last heartbeat, ID): the next to expire.

type heapKind uint8

const (
	pushHeap heapKind = iota
	donorHeap
	deadHeap
)

func (t *Table) hless(k heapKind, a, b int32) bool {
	na, nb := &t.nodes[a], &t.nodes[b]
	switch k {
	case pushHeap:
		if na.keyPush != nb.keyPush {
			return na.keyPush < nb.keyPush
		}
	case donorHeap:
		if na.keyLoad != nb.keyLoad {
			return na.keyLoad > nb.keyLoad
		}
	default:
		if c := na.last.Compare(nb.last); c != 0 {
			return c < 0
		}
	}
	return na.id < nb.id
}

func (t *Table) hpos(k heapKind, x int32) *int32 {
	n := &t.nodes[x]
	switch k {
	case pushHeap:
		return &n.pushPos
	case donorHeap:
		return &n.donorPos
	}
	return &n.deadPos
}

func (t *Table) hswap(h []int32, k heapKind, i, j int) {
	h[i], h[j] = h[j], h[i]
	*t.hpos(k, h[i]) = int32(i)
	*t.hpos(k, h[j]) = int32(j)
}

func (t *Table) hup(h []int32, k heapKind, i int) {
	for i > 0 {
		p := (i - 1) / 2
		if !t.hless(k, h[i], h[p]) {
			return
		}
		t.hswap(h, k, i, p)
		i = p
	}
}

func (t *Table) hdown(h []int32, k heapKind, i int) bool {
	start := i
	n := len(h)
	for {
		l := 2*i + 1
		if l >= n {
			break
		}
		c := l
		if r := l + 1; r < n && t.hless(k, h[r], h[l]) {
			c = r
		}
		if !t.hless(k, h[c], h[i]) {
			break
		}
		t.hswap(h, k, i, c)
		i = c
	}
	return i > start
}

func (t *Table) hpush(h *[]int32, k heapKind, x int32) {
	*h = append(*h, x)
	i := len(*h) - 1
	*t.hpos(k, x) = int32(i)
	t.hup(*h, k, i)
}

// hremove removes the element at position i.
func (t *Table) hremove(h *[]int32, k heapKind, i int) {
	s := *h
	last := len(s) - 1
	x := s[i]
	if i != last {
		t.hswap(s, k, i, last)
	}
	*h = s[:last]
	*t.hpos(k, x) = -1
	if i != last {
		t.hfix(*h, k, i)
	}
}

// hfix restores the heap after the key at position i changed.
func (t *Table) hfix(h []int32, k heapKind, i int) {
	if !t.hdown(h, k, i) {
		t.hup(h, k, i)
	}
}
