package lss

import (
	"fmt"
	"math/rand/v2"
	"testing"
	"time"
)

// The consolidation question of issue 12: could one generic indexed heap
// serve lss (and binding) instead of their hand-written ones? genHeap is
// that generic heap — items of any type, order and position given as
// functions — and BenchmarkHeapOps times the operations lss's fast path
// makes (re-key in place, remove, insert, pop the top) on both, in one
// run. The result decides: see jheap's doc.

type genHeap[T any] struct {
	items []T
	less  func(a, b T) bool
	pos   func(x T) *int32
}

func (h *genHeap[T]) swap(i, j int) {
	h.items[i], h.items[j] = h.items[j], h.items[i]
	*h.pos(h.items[i]) = int32(i)
	*h.pos(h.items[j]) = int32(j)
}

func (h *genHeap[T]) up(j int) {
	for j > 0 {
		i := (j - 1) / 2
		if !h.less(h.items[j], h.items[i]) {
			break
		}
		h.swap(i, j)
		j = i
	}
}

func (h *genHeap[T]) down(i0 int) bool {
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

func (h *genHeap[T]) upsert(x T) {
	if i := *h.pos(x); i >= 0 {
		if !h.down(int(i)) {
			h.up(int(i))
		}
		return
	}
	*h.pos(x) = int32(len(h.items))
	h.items = append(h.items, x)
	h.up(len(h.items) - 1)
}

func (h *genHeap[T]) remove(x T) {
	i := int(*h.pos(x))
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
	*h.pos(x) = -1
	if i != n && !h.down(i) {
		h.up(i)
	}
}

// heapOps is the operation mix: per op, re-key one entry in place, remove
// and re-insert another, and look at the top.
type heapOps interface {
	upsert(e *entry)
	remove(e *entry)
	top() *entry
}

type genAdapter struct{ h *genHeap[*entry] }

func (g genAdapter) upsert(e *entry) { g.h.upsert(e) }
func (g genAdapter) remove(e *entry) { g.h.remove(e) }
func (g genAdapter) top() *entry     { return g.h.items[0] }

// BenchmarkHeapOps alternates the two heaps in blocks of 1,000
// operations inside each iteration, so a loaded machine slows both alike,
// and reports each one's fastest block per operation and their ratio
// (generic over jheap).
func BenchmarkHeapOps(b *testing.B) {
	for _, n := range []int{1000, 100000} {
		b.Run(fmt.Sprintf("n=%d", n), func(b *testing.B) {
			mk := func() []*entry {
				rng := rand.New(rand.NewPCG(1, uint64(n)))
				es := make([]*entry, n)
				for i := range es {
					es[i] = &entry{id: "j", pos: []int32{-1}, static: sKey{class: classFinite, key: rng.Int64N(1 << 40)}, dl: int64(i)}
				}
				return es
			}
			heaps := []heapOps{&jheap{slot: 0, less: lessStatic},
				genAdapter{&genHeap[*entry]{less: lessStatic, pos: func(e *entry) *int32 { return &e.pos[0] }}}}
			sets := [][]*entry{mk(), mk()}
			rngs := []*rand.Rand{rand.New(rand.NewPCG(2, 3)), rand.New(rand.NewPCG(2, 3))}
			for k, h := range heaps {
				for _, e := range sets[k] {
					h.upsert(e)
				}
			}
			best := []time.Duration{1 << 62, 1 << 62}
			b.ReportAllocs()
			for b.Loop() {
				for k, h := range heaps {
					es, rng := sets[k], rngs[k]
					t0 := time.Now()
					for range 1000 {
						e := es[rng.IntN(n)]
						e.static.key = rng.Int64N(1 << 40)
						h.upsert(e)
						f := es[rng.IntN(n)]
						h.remove(f)
						h.upsert(f)
						_ = h.top()
					}
					best[k] = min(best[k], time.Since(t0))
				}
			}
			b.ReportMetric(float64(best[0])/1000, "jheap-ns/op")
			b.ReportMetric(float64(best[1])/1000, "generic-ns/op")
			b.ReportMetric(float64(best[1])/float64(best[0]), "ratio")
		})
	}
}
