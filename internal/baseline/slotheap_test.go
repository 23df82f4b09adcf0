package baseline

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/schedkit/schedkit/internal/sim"
)

// specSlotHeap is the hand-written heap slotHeap replaced (the same
// items, its own sifting and positions, the same early return), kept as
// the reference TestSlotHeapMatchesSpecialised checks slotHeap against
// and BenchmarkSlotHeap measures it against.
type specSlotHeap struct {
	order func(a, b *sim.Job) bool
	items []slotItem
	nan   bool
}

func (h *specSlotHeap) less(a, b *slotItem) bool {
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

func (h *specSlotHeap) Len() int   { return len(h.items) }
func (h *specSlotHeap) Top() *slot { return h.items[0].s }

func (h *specSlotHeap) Push(s *slot) {
	it := itemOf(s)
	h.nan = h.nan || it.key != it.key || it.topKey != it.topKey
	h.items = append(h.items, it)
	n := len(h.items) - 1
	s.pos = int32(n)
	h.up(n)
}

func (h *specSlotHeap) Remove(s *slot) {
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

func (h *specSlotHeap) Fix(s *slot) {
	i := int(s.pos)
	if i < 0 {
		return
	}
	it := &h.items[i]
	top := s.jobs.Top()
	k, tk := s.key, s.jobs.topKey()
	if it.key == k && it.topKey == tk && it.top == top && !h.nan {
		return
	}
	h.nan = h.nan || k != k || tk != tk
	it.key, it.topKey, it.top = k, tk, top
	h.fixAt(i)
}

func (h *specSlotHeap) fixAt(i int) {
	if !h.down(i) {
		h.up(i)
	}
}

func (h *specSlotHeap) up(j int) {
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

func (h *specSlotHeap) down(i0 int) bool {
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

// slotWorld builds n slots over 3n entries (seeded), each slot's job
// heap holding one to three of them, and adds the entries' jobs to idOf
// (by index).
func slotWorld(seed uint64, n int, nan bool, idOf map[*sim.Job]int) []*slot {
	rng := rand.New(rand.NewPCG(seed, 3))
	es, ids := heapEntries(rng, 3*n)
	for j, i := range ids {
		idOf[j] = i
	}
	order := func(a, b *sim.Job) bool { return idOf[a] < idOf[b] }
	slots := make([]*slot, n)
	for i := range slots {
		s := &slot{pos: -1, key: slotKey(rng, nan), jobs: newJobHeap(0, order, true)}
		for _, e := range es[3*i : 3*i+1+rng.IntN(3)] {
			s.jobs.Push(e)
		}
		slots[i] = s
	}
	return slots
}

// TestSlotHeapMatchesSpecialised runs random pushes and removes of
// slots, changes of their keys and of their first jobs' keys (through
// their job heaps), on slotHeap and on the heap it replaced, each over
// its own copy of the slots, and checks after every operation that they
// hold the same slots in the same layout, at the right positions, with
// copies equal to the live values. Rounds without NaN keys exercise
// Fix's early return (in rounds with NaN it is off).
func TestSlotHeapMatchesSpecialised(t *testing.T) {
	rng := rand.New(rand.NewPCG(11, 3))
	for round := range 80 {
		nan := round%2 == 1 // half the rounds keep the early return live
		n := 1 + rng.IntN(12)
		idOf := map[*sim.Job]int{} // both copies' jobs, each by its index
		slots, refSlots := slotWorld(uint64(round), n, nan, idOf), slotWorld(uint64(round), n, nan, idOf)
		idx := map[*slot]int{}
		for i, s := range refSlots {
			idx[s] = i
		}
		order := func(a, b *sim.Job) bool { return idOf[a] < idOf[b] }
		h := newSlotHeap(order)
		ref := specSlotHeap{order: order}
		for op := range 1000 {
			x := rng.IntN(n)
			s, r := slots[x], refSlots[x]
			switch in := s.pos >= 0; {
			case !in:
				h.Push(s)
				ref.Push(r)
			case rng.IntN(4) == 0:
				h.Remove(s)
				ref.Remove(r)
			case rng.IntN(2) == 0:
				s.key = slotKey(rng, nan)
				r.key = s.key
				h.Fix(s)
				ref.Fix(r)
			default:
				// a job's key changes inside the slot (maybe a new first
				// job, maybe none: the slot's order unchanged)
				y := rng.IntN(s.jobs.Len())
				e, f := s.jobs.h.At(y).e, r.jobs.h.At(y).e
				e.ph[0].key = slotKey(rng, nan)
				f.ph[0].key = e.ph[0].key
				s.jobs.Fix(e)
				r.jobs.Fix(f)
				h.Fix(s)
				ref.Fix(r)
			}
			if h.Len() != ref.Len() {
				t.Fatalf("round %d op %d: len %d, want %d", round, op, h.Len(), ref.Len())
			}
			for i := range h.Len() {
				it, rt := h.h.At(i), ref.items[i]
				if idx[rt.s] != slices.Index(slots, it.s) {
					t.Fatalf("round %d op %d: item %d is slot %d, the reference's %d", round, op, i, slices.Index(slots, it.s), idx[rt.s])
				}
				if int(it.s.pos) != i || int(rt.s.pos) != i {
					t.Fatalf("round %d op %d: item %d has positions %d, %d", round, op, i, it.s.pos, rt.s.pos)
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
// Top) for slotHeap (impl=indexheap) and the hand-written heap it
// replaced (impl=specialised), at 3 to 1,000 groups (a trace day has 3
// pools). Compare with benchstat over interleaved runs.
func BenchmarkSlotHeap(b *testing.B) {
	for _, n := range []int{3, 30, 1000} {
		for _, impl := range []string{"indexheap", "specialised"} {
			b.Run(fmt.Sprintf("groups=%d/impl=%s", n, impl), func(b *testing.B) {
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
				slots := make([]*slot, n)
				for i := range slots {
					s := &slot{pos: -1, key: rng.Float64(), jobs: newJobHeap(0, order, true)}
					for _, e := range es[4*i : 4*i+4] {
						s.jobs.Push(e)
					}
					slots[i] = s
				}
				h, ref := newSlotHeap(order), specSlotHeap{order: order}
				top, fix := h.Top, h.Fix
				if impl == "specialised" {
					top, fix = ref.Top, ref.Fix
				}
				for _, s := range slots {
					if impl == "specialised" {
						ref.Push(s)
					} else {
						h.Push(s)
					}
				}
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
			})
		}
	}
}
