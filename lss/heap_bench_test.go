package lss

import (
	"fmt"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/schedkit/schedkit/internal/indexheap"
)

// The consolidation question of issue 12: could the repository's one
// generic indexed heap (internal/indexheap: items of any type, order and
// position given as functions) serve lss instead of its hand-written
// jheap? BenchmarkHeapOps times the operations lss's fast path makes
// (re-key in place, remove, insert, pop the top) on both, in one run.
// The result decides: see jheap's doc.

// heapOps is the operation mix: per op, re-key one entry in place, remove
// and re-insert another, and look at the top.
type heapOps interface {
	upsert(e *entry)
	remove(e *entry)
	top() *entry
}

type genAdapter struct{ h *indexheap.Heap[*entry] }

func (g genAdapter) upsert(e *entry) { g.h.Upsert(e) }
func (g genAdapter) remove(e *entry) { g.h.Remove(e) }
func (g genAdapter) top() *entry     { return g.h.Top() }

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
				genAdapter{&indexheap.Heap[*entry]{Less: lessStatic, Pos: func(e *entry) *int32 { return &e.pos[0] }}}}
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
