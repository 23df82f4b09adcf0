package lss

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"
)

// swapHeap is the hand-written heap jheap replaced, kept as the
// reference BenchmarkHeapOps measures the shared indexheap.Heap against
// (and TestJheapMatchesSwapHeap checks it moves alike): swaps that write
// both positions, order through a function.
type swapHeap struct {
	items []*entry
	slot  int
	less  func(a, b *entry) bool
}

func (h *swapHeap) top() *entry { return h.items[0] }

func (h *swapHeap) upsert(e *entry) {
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

func (h *swapHeap) remove(e *entry) {
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

func (h *swapHeap) swap(i, j int) {
	h.items[i], h.items[j] = h.items[j], h.items[i]
	h.items[i].pos[h.slot] = int32(i)
	h.items[j].pos[h.slot] = int32(j)
}

func (h *swapHeap) up(j int) {
	for j > 0 {
		i := (j - 1) / 2
		if !h.less(h.items[j], h.items[i]) {
			break
		}
		h.swap(i, j)
		j = i
	}
}

func (h *swapHeap) down(i0 int) bool {
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

// lessStatic and lessKill are the orders the hand-written heaps were
// given.
func lessStatic(a, b *entry) bool {
	return cmpOrder(a.static.class, a.static.key, a, b.static.class, b.static.key, b) < 0
}

func lessKill(a, b *entry) bool { return a.killAt < b.killAt }

// heapOps is the operation mix lss's fast path makes: re-key an entry
// in place, remove and re-insert another, look at the top.
type heapOps interface {
	upsert(e *entry)
	remove(e *entry)
	top() *entry
}

func heapEntries(n int) []*entry {
	rng := rand.New(rand.NewPCG(1, uint64(n)))
	es := make([]*entry, n)
	for i := range es {
		es[i] = &entry{id: "j", pos: []int32{-1}, static: sKey{class: classFinite, key: rng.Int64N(1 << 40)}, dl: int64(i)}
	}
	return es
}

// TestJheapMatchesSwapHeap: jheap and the heap it replaced, given the
// same operations, hold every entry at the same position (so every top,
// and every decision, is the same): the static heaps over every class
// (and finite keys at the extremes staticKey gives the other classes),
// the kill heap with equal kill times.
func TestJheapMatchesSwapHeap(t *testing.T) {
	for _, kill := range []bool{false, true} {
		es, fs := heapEntries(300), heapEntries(300)
		h, ref := newStaticHeap(0), &swapHeap{slot: 0, less: lessStatic}
		if kill {
			h, ref = newKillHeap(0), &swapHeap{slot: 0, less: lessKill}
		}
		rng := rand.New(rand.NewPCG(2, 3))
		for step := range 20000 {
			i := rng.IntN(len(es))
			key, at, class := rng.Int64N(50), rng.Int64N(50), int8(rng.IntN(3))
			if rng.IntN(10) == 0 { // a finite key at an extreme ties with a class's
				key = []int64{math.MinInt64, math.MaxInt64}[rng.IntN(2)]
			}
			es[i].static, fs[i].static = sKey{class: class, key: key}, sKey{class: class, key: key}
			es[i].killAt, fs[i].killAt = at, at
			if rng.IntN(3) == 0 {
				h.remove(es[i])
				ref.remove(fs[i])
			} else {
				h.upsert(es[i])
				ref.upsert(fs[i])
			}
			for j := range es {
				if es[j].pos[0] != fs[j].pos[0] {
					t.Fatalf("step %d: entry %d at %d, reference at %d", step, j, es[j].pos[0], fs[j].pos[0])
				}
			}
		}
	}
}

// BenchmarkHeapOps times lss's operation mix on jheap (impl=indexheap)
// and on the hand-written heap it replaced (impl=swap), at 1,000 and
// 100,000 entries. Compare with benchstat over interleaved runs.
func BenchmarkHeapOps(b *testing.B) {
	for _, n := range []int{1000, 100000} {
		for _, impl := range []string{"indexheap", "swap"} {
			b.Run(fmt.Sprintf("n=%d/impl=%s", n, impl), func(b *testing.B) {
				es := heapEntries(n)
				var h heapOps
				if impl == "swap" {
					h = &swapHeap{slot: 0, less: lessStatic}
				} else {
					j := newStaticHeap(0)
					h = &j
				}
				for _, e := range es {
					h.upsert(e)
				}
				rng := rand.New(rand.NewPCG(2, 3))
				b.ReportAllocs()
				for b.Loop() {
					e := es[rng.IntN(n)]
					e.static.key = rng.Int64N(1 << 40)
					h.upsert(e)
					f := es[rng.IntN(n)]
					h.remove(f)
					h.upsert(f)
					_ = h.top()
				}
			})
		}
	}
}
