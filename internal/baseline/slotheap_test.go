package baseline

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/schedkit/schedkit/internal/indexheap"
	"github.com/schedkit/schedkit/internal/sim"
)

// refSlotHeap is the reference slotHeap stands for: indexheap.Heap with
// the Less the index used, reading each slot's key and first job live.
// Its positions are kept beside the slots (pos), slotHeap's in them.
func refSlotHeap(order func(a, b *sim.Job) bool, pos map[*slot]*int32) indexheap.Heap[*slot] {
	return indexheap.Heap[*slot]{
		Pos: func(s *slot) *int32 { return pos[s] },
		Less: func(a, b *slot) bool {
			if a.key != b.key {
				return a.key < b.key
			}
			if ka, kb := a.jobs.topKey(), b.jobs.topKey(); ka != kb {
				return ka < kb
			}
			ea, eb := a.jobs.Top(), b.jobs.Top()
			if ea.rank != eb.rank {
				return ea.rank < eb.rank
			}
			return order(ea.j, eb.j)
		},
	}
}

// slotKey draws a key from a small range (ties), sometimes -0, and with
// nan sometimes NaN.
func slotKey(rng *rand.Rand, nan bool) float64 {
	switch rng.IntN(12) {
	case 0:
		if nan {
			return math.NaN()
		}
	case 1:
		return math.Copysign(0, -1)
	}
	return float64(rng.IntN(4))
}

// TestSlotHeapMatchesIndexheap runs random pushes and removes of slots,
// changes of their keys and of their first jobs' keys (through their job
// heaps), and checks after every operation that slotHeap holds the same
// slots in the same layout as the reference, at the right positions,
// with copies equal to the live values. Rounds without NaN keys
// exercise Fix's early return (in rounds with NaN it is off).
func TestSlotHeapMatchesIndexheap(t *testing.T) {
	rng := rand.New(rand.NewPCG(11, 3))
	for round := range 80 {
		nan := round%2 == 1 // half the rounds keep the early return live
		n := 1 + rng.IntN(12)
		es, idOf := heapEntries(rng, 3*n)
		order := func(a, b *sim.Job) bool { return idOf[a] < idOf[b] }
		pos := map[*slot]*int32{}
		slots := make([]*slot, n)
		for i := range slots {
			s := &slot{pos: -1, key: slotKey(rng, nan), jobs: jobHeap{p: 0, order: order}}
			for _, e := range es[3*i : 3*i+1+rng.IntN(3)] {
				s.jobs.Push(e)
			}
			slots[i] = s
			pos[s] = new(int32)
			*pos[s] = -1
		}
		h := slotHeap{order: order}
		ref := refSlotHeap(order, pos)
		for op := range 1000 {
			s := slots[rng.IntN(n)]
			switch in := s.pos >= 0; {
			case !in:
				h.Push(s)
				ref.Push(s)
			case rng.IntN(4) == 0:
				h.Remove(s)
				ref.Remove(s)
			case rng.IntN(2) == 0:
				s.key = slotKey(rng, nan)
				h.Fix(s)
				ref.Fix(s)
			default:
				// a job's key changes inside the slot (maybe a new first
				// job, maybe none: the slot's order unchanged)
				e := s.jobs.items[rng.IntN(s.jobs.Len())].e
				e.ph[0].key = slotKey(rng, nan)
				s.jobs.Fix(e)
				h.Fix(s)
				ref.Fix(s)
			}
			if h.Len() != ref.Len() {
				t.Fatalf("round %d op %d: len %d, want %d", round, op, h.Len(), ref.Len())
			}
			for i := range h.Len() {
				it := &h.items[i]
				if it.s != ref.At(i) {
					t.Fatalf("round %d op %d: item %d differs from the reference", round, op, i)
				}
				if int(it.s.pos) != i || int(*pos[it.s]) != i {
					t.Fatalf("round %d op %d: item %d has positions %d, %d", round, op, i, it.s.pos, *pos[it.s])
				}
				live := itemOf(it.s)
				if math.Float64bits(it.key) != math.Float64bits(live.key) && !(it.key == live.key) ||
					math.Float64bits(it.topKey) != math.Float64bits(live.topKey) && !(it.topKey == live.topKey) || it.top != live.top {
					t.Fatalf("round %d op %d: item %d holds %v %v, slot has %v %v", round, op, i, it.key, it.topKey, live.key, live.topKey)
				}
			}
		}
	}
}

// BenchmarkSlotHeap measures a pooled share policy's class-heap work per
// choice (the chosen group's key rises, its first job changes: Fix; then
// Top) for slotHeap and, as the naive reference, indexheap.Heap with the
// Less it replaced, at 3 to 1,000 groups (a trace day has 3 pools).
func BenchmarkSlotHeap(b *testing.B) {
	for _, n := range []int{3, 30, 1000} {
		rng := rand.New(rand.NewPCG(uint64(n), 5))
		es, idOf := heapEntries(rng, 4*n)
		for _, e := range es {
			e.ph[0].key = rng.Float64()
		}
		order := func(a, b *sim.Job) bool { return idOf[a] < idOf[b] }
		keys := make([]float64, 1<<12)
		for i := range keys {
			keys[i] = rng.Float64()
		}
		mk := func() []*slot {
			slots := make([]*slot, n)
			for i := range slots {
				s := &slot{pos: -1, key: rng.Float64(), jobs: jobHeap{p: 0, order: order}}
				for _, e := range es[4*i : 4*i+4] {
					e.ph[0].pos = -1
					s.jobs.Push(e)
				}
				slots[i] = s
			}
			return slots
		}
		work := func(top func() *slot, fix func(*slot)) func(b *testing.B) {
			return func(b *testing.B) {
				b.ReportAllocs()
				i := 0
				for b.Loop() {
					s := top()
					s.key += keys[i&(len(keys)-1)]
					e := s.jobs.Top()
					e.ph[0].key += keys[(i+1)&(len(keys)-1)]
					s.jobs.Fix(e)
					fix(s)
					i++
				}
			}
		}
		slots := mk()
		h := slotHeap{order: order}
		for _, s := range slots {
			h.Push(s)
		}
		b.Run(fmt.Sprintf("groups=%d/impl=slotheap", n), work(h.Top, h.Fix))
		slots = mk()
		pos := map[*slot]*int32{}
		for _, s := range slots {
			pos[s] = &s.pos
		}
		ref := refSlotHeap(order, pos)
		for _, s := range slots {
			ref.Push(s)
		}
		b.Run(fmt.Sprintf("groups=%d/impl=indexheap", n), work(ref.Top, ref.Fix))
	}
}
