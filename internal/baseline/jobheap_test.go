package baseline

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/schedkit/schedkit/internal/indexheap"
	"github.com/schedkit/schedkit/internal/sim"
)

// refHeap is the reference jobHeap stands for: indexheap.Heap with the
// Less the index used, reading keys and ranks through the entries. Its
// positions live in phase 1's slot, jobHeap's (in the tests) in phase 0's.
func refHeap(order func(a, b *entry) bool) indexheap.Heap[*entry] {
	return indexheap.Heap[*entry]{
		Pos: func(e *entry) *int32 { return &e.ph[1].pos },
		Less: func(a, b *entry) bool {
			if ka, kb := a.ph[0].key, b.ph[0].key; ka != kb {
				return ka < kb
			}
			if a.rank != b.rank {
				return a.rank < b.rank
			}
			return order(a, b)
		},
	}
}

// heapEntries makes n entries with ranks in [0, n/4) (ties), keys in a
// small range (more ties), and jobs ordered by index through idOf.
func heapEntries(rng *rand.Rand, n int) ([]*entry, map[*sim.Job]int) {
	es := make([]*entry, n)
	idOf := make(map[*sim.Job]int, n)
	for i := range es {
		e := &entry{j: new(sim.Job), rank: int64(rng.IntN(max(1, n/4)))}
		e.ph[0] = phaseEntry{pos: -1, key: float64(rng.IntN(8))}
		e.ph[1] = phaseEntry{pos: -1}
		idOf[e.j] = i
		es[i] = e
	}
	return es, idOf
}

// TestJobHeapMatchesIndexheap runs random pushes, removes, key changes
// (incl. NaN and ±0) and checks after every operation that jobHeap holds
// the same entries in the same layout as the reference, with the right
// positions and copied keys.
func TestJobHeapMatchesIndexheap(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 9))
	for round := range 40 {
		es, idOf := heapEntries(rng, 1+rng.IntN(200))
		order := func(a, b *sim.Job) bool { return idOf[a] < idOf[b] }
		h := jobHeap{p: 0, order: order}
		ref := refHeap(func(a, b *entry) bool { return order(a.j, b.j) })
		for op := range 2000 {
			e := es[rng.IntN(len(es))]
			switch in := e.ph[0].pos >= 0; {
			case !in:
				h.Push(e)
				ref.Push(e)
			case rng.IntN(4) == 0:
				h.Remove(e)
				ref.Remove(e)
			default:
				switch rng.IntN(10) {
				case 0:
					e.ph[0].key = math.NaN()
				case 1:
					e.ph[0].key = math.Copysign(0, -1)
				default:
					e.ph[0].key = float64(rng.IntN(8))
				}
				h.Fix(e)
				ref.Fix(e)
			}
			if h.Len() != ref.Len() {
				t.Fatalf("round %d op %d: len %d, want %d", round, op, h.Len(), ref.Len())
			}
			for i := range h.Len() {
				it := &h.items[i]
				if it.e != ref.At(i) {
					t.Fatalf("round %d op %d: item %d is job %d, want %d", round, op, i, idOf[it.e.j], idOf[ref.At(i).j])
				}
				if int(it.e.ph[0].pos) != i || int(it.e.ph[1].pos) != i {
					t.Fatalf("round %d op %d: item %d has positions %d, %d", round, op, i, it.e.ph[0].pos, it.e.ph[1].pos)
				}
				if k := it.e.ph[0].key; math.Float64bits(it.key) != math.Float64bits(k) || it.rank != it.e.rank {
					t.Fatalf("round %d op %d: item %d has key %v rank %d, entry %v %d", round, op, i, it.key, it.rank, k, it.e.rank)
				}
			}
		}
	}
}

// BenchmarkJobHeap measures the index's heap operation on a share
// policy's heartbeat (the top job's key rises after a choice, another's
// falls when its task ends: Fix, then Top) for jobHeap and, as the naive
// reference, indexheap.Heap with the Less it replaced, at 100 to 100,000
// jobs. The entries are allocated apart and shuffled, as a day's are.
func BenchmarkJobHeap(b *testing.B) {
	for _, n := range []int{100, 10000, 100000} {
		rng := rand.New(rand.NewPCG(uint64(n), 3))
		es, idOf := heapEntries(rng, n)
		for _, e := range es {
			e.ph[0].key = rng.Float64()
		}
		order := func(a, b *sim.Job) bool { return idOf[a] < idOf[b] }
		keys := make([]float64, 1<<12)
		for i := range keys {
			keys[i] = rng.Float64()
		}
		b.Run(fmt.Sprintf("jobs=%d/impl=jobheap", n), func(b *testing.B) {
			h := jobHeap{p: 0, order: order}
			for _, e := range es {
				e.ph[0].pos = -1
				h.Push(e)
			}
			b.ReportAllocs()
			i := 0
			for b.Loop() {
				e := h.Top()
				e.ph[0].key += keys[i&(len(keys)-1)]
				h.Fix(e)
				o := es[(i*7919)%n]
				o.ph[0].key = keys[(i+1)&(len(keys)-1)]
				h.Fix(o)
				i++
			}
		})
		b.Run(fmt.Sprintf("jobs=%d/impl=indexheap", n), func(b *testing.B) {
			h := refHeap(func(a, b *entry) bool { return order(a.j, b.j) })
			for _, e := range es {
				e.ph[1].pos = -1
				h.Push(e)
			}
			b.ReportAllocs()
			i := 0
			for b.Loop() {
				e := h.Top()
				e.ph[0].key += keys[i&(len(keys)-1)]
				h.Fix(e)
				o := es[(i*7919)%n]
				o.ph[0].key = keys[(i+1)&(len(keys)-1)]
				h.Fix(o)
				i++
			}
		})
	}
}
