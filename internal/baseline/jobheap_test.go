package baseline

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/schedkit/schedkit/internal/sim"
)

// specJobHeap is the hand-written heap jobHeap replaced (the same items,
// its own sifting and positions), kept as the reference
// TestJobHeapMatchesSpecialised checks jobHeap against and
// BenchmarkJobHeap measures it against. Its positions live in the
// entries' phase 1 slot, jobHeap's (in the tests) in phase 0's.
type specJobHeap struct {
	order func(a, b *sim.Job) bool
	items []specItem
}

type specItem struct {
	key  float64
	rank int64
	e    *entry
}

func (h *specJobHeap) less(a, b *specItem) bool {
	if a.key != b.key {
		return a.key < b.key
	}
	if a.rank != b.rank {
		return a.rank < b.rank
	}
	return h.order(a.e.j, b.e.j)
}

func (h *specJobHeap) Len() int                   { return len(h.items) }
func (h *specJobHeap) Top() *entry                { return h.items[0].e }
func (h *specJobHeap) setPos(it *specItem, i int) { it.e.ph[1].pos = int32(i) }

func (h *specJobHeap) Push(e *entry) {
	h.items = append(h.items, specItem{key: e.ph[0].key, rank: e.rank, e: e})
	n := len(h.items) - 1
	e.ph[1].pos = int32(n)
	h.up(n)
}

func (h *specJobHeap) Remove(e *entry) {
	i := int(e.ph[1].pos)
	if i < 0 {
		return
	}
	n := len(h.items) - 1
	if i != n {
		h.items[i], h.items[n] = h.items[n], h.items[i]
		h.setPos(&h.items[i], i)
	}
	h.items[n] = specItem{}
	h.items = h.items[:n]
	e.ph[1].pos = -1
	if i != n {
		h.fixAt(i)
	}
}

func (h *specJobHeap) Fix(e *entry) {
	if i := int(e.ph[1].pos); i >= 0 {
		h.items[i].key = e.ph[0].key
		h.fixAt(i)
	}
}

func (h *specJobHeap) fixAt(i int) {
	if !h.down(i) {
		h.up(i)
	}
}

func (h *specJobHeap) up(j int) {
	items := h.items
	x := items[j]
	for j > 0 {
		i := (j - 1) / 2
		if !h.less(&x, &items[i]) {
			break
		}
		items[j] = items[i]
		h.setPos(&items[j], j)
		j = i
	}
	items[j] = x
	h.setPos(&items[j], j)
}

func (h *specJobHeap) down(i0 int) bool {
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
		h.setPos(&items[i], i)
		i = j
	}
	if i > i0 {
		items[i] = x
		h.setPos(&items[i], i)
	}
	return i > i0
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

// TestJobHeapMatchesSpecialised runs random pushes, removes, key
// changes (incl. NaN and ±0) and checks after every operation that
// jobHeap holds the same entries in the same layout as the heap it
// replaced, with the right positions; and the same without keys (every
// key 0, ranks as the heap's keys).
func TestJobHeapMatchesSpecialised(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 9))
	for round := range 80 {
		keyed := round%2 == 0
		es, idOf := heapEntries(rng, 1+rng.IntN(200))
		if !keyed {
			for _, e := range es {
				e.ph[0].key = 0
			}
		}
		order := func(a, b *sim.Job) bool { return idOf[a] < idOf[b] }
		h := newJobHeap(0, order, keyed)
		ref := specJobHeap{order: order}
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
				switch x := rng.IntN(10); {
				case !keyed: // keys stay 0
				case x == 0:
					e.ph[0].key = math.NaN()
				case x == 1:
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
				it := h.h.At(i)
				if it.e != ref.items[i].e {
					t.Fatalf("round %d op %d: item %d is job %d, want %d", round, op, i, idOf[it.e.j], idOf[ref.items[i].e.j])
				}
				if int(it.e.ph[0].pos) != i || int(it.e.ph[1].pos) != i || it.rank != it.e.rank {
					t.Fatalf("round %d op %d: item %d has positions %d, %d, rank %d of %d", round, op, i, it.e.ph[0].pos, it.e.ph[1].pos, it.rank, it.e.rank)
				}
			}
			if h.Len() > 0 && math.Float64bits(h.topKey()) != math.Float64bits(ref.items[0].key) {
				t.Fatalf("round %d op %d: top key %v, want %v", round, op, h.topKey(), ref.items[0].key)
			}
		}
	}
}

// jobHeapOps is what BenchmarkJobHeap asks of a job heap.
type jobHeapOps interface {
	Top() *entry
	Push(e *entry)
	Remove(e *entry)
	Fix(e *entry)
}

// BenchmarkJobHeap measures the index's heap operations for jobHeap
// (impl=indexheap) and the hand-written heap it replaced
// (impl=specialised), at 100 to 100,000 jobs whose entries are
// allocated apart, as a day's are. With keys (a share policy's
// heartbeat: the top job's key rises after a choice, another's falls
// when its task ends: Fix, then Top), distinct (keys=shares) or half of
// them 0 (keys=half-zero: jobs holding nothing tie, and their ranks
// order them); without (keys=none, an ordered policy: the top job
// leaves the heap, a job that left eight choices earlier comes back).
// Compare with benchstat over interleaved runs.
func BenchmarkJobHeap(b *testing.B) {
	for _, keys := range []string{"shares", "half-zero", "none"} {
		for _, n := range []int{100, 10000, 100000} {
			for _, impl := range []string{"indexheap", "specialised"} {
				b.Run(fmt.Sprintf("keys=%s/jobs=%d/impl=%s", keys, n, impl), func(b *testing.B) {
					benchJobHeap(b, keys, n, impl)
				})
			}
		}
	}
}

func benchJobHeap(b *testing.B, keys string, n int, impl string) {
	rng := rand.New(rand.NewPCG(uint64(n), 3))
	es, idOf := heapEntries(rng, n)
	zero := func(i int) bool { return keys == "none" || keys == "half-zero" && i%2 == 0 }
	for i, e := range es {
		e.rank = int64(i)
		if e.ph[0].key = rng.Float64(); zero(i) {
			e.ph[0].key = 0
		}
	}
	rng.Shuffle(len(es), func(i, j int) { es[i], es[j] = es[j], es[i] })
	order := func(a, b *sim.Job) bool { return idOf[a] < idOf[b] }
	var h jobHeapOps = &specJobHeap{order: order}
	if impl == "indexheap" {
		x := newJobHeap(0, order, keys != "none")
		h = &x
	}
	for _, e := range es {
		h.Push(e)
	}
	shares := make([]float64, 1<<12)
	for i := range shares {
		shares[i] = rng.Float64()
	}
	var out [8]*entry // keys=none: the jobs that left, back after eight choices
	b.ReportAllocs()
	i := 0
	for b.Loop() {
		e := h.Top()
		if keys == "none" {
			h.Remove(e)
			if back := out[i%len(out)]; back != nil {
				h.Push(back)
			}
			out[i%len(out)] = e
			i++
			continue
		}
		e.ph[0].key += shares[i&(len(shares)-1)]
		h.Fix(e)
		o := es[(i*7919)%n]
		if o.ph[0].key = shares[(i+1)&(len(shares)-1)]; zero(i) {
			o.ph[0].key = 0
		}
		h.Fix(o)
		i++
	}
}
