package dbs

import (
	"fmt"
	"math"
	"math/bits"
	"math/rand/v2"
	"testing"

	"github.com/schedkit/schedkit"
	"github.com/schedkit/schedkit/internal/indexheap"
)

// swapQheap is the hand-written heap qheap replaced, kept as the
// reference TestQheapMatchesSwapHeap checks qheap against and
// BenchmarkQueueHeap measures it against: swaps that write both
// positions, the order as a method.
type swapQheap struct {
	items []*entry
	slot  int
	kind  int
	order order
}

func (h *swapQheap) less(a, b *entry) bool {
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

func (h *swapQheap) top() *entry { return h.items[0] }

func (h *swapQheap) upsert(e *entry) {
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

func (h *swapQheap) remove(e *entry) {
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

func (h *swapQheap) heapify() {
	for i := len(h.items)/2 - 1; i >= 0; i-- {
		h.down(i)
	}
}

func (h *swapQheap) swap(i, j int) {
	h.items[i], h.items[j] = h.items[j], h.items[i]
	h.items[i].pos[h.slot] = int32(i)
	h.items[j].pos[h.slot] = int32(j)
}

func (h *swapQheap) up(i int) {
	for i > 0 {
		p := (i - 1) / 2
		if !h.less(h.items[i], h.items[p]) {
			return
		}
		h.swap(i, p)
		i = p
	}
}

func (h *swapQheap) down(i int) bool {
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

type swapScratch struct {
	stamp []uint32
	gen   uint32
	depth [32][]int32
}

func (h *swapQheap) fixAt(marks []int32, sc *swapScratch) {
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
	if sc.gen == 0 {
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

// heapEntries returns n entries with random keys (seeded), in no heap.
func heapEntries(n int, seed uint64) []entry {
	rng := rand.New(rand.NewPCG(seed, 5))
	es := make([]entry, n)
	for i := range es {
		e := &es[i]
		for j := range e.pos {
			e.pos[j] = -1
		}
		e.id = schedkit.JobID(fmt.Sprintf("j%06d", i))
		e.sub = int64(rng.IntN(50))
		e.w = heapWeight(rng)
		e.ttKnown, e.lost = rng.IntN(4) != 0, rng.IntN(4) == 0
		e.minK = [2]int32{int32(rng.IntN(3)), int32(rng.IntN(3))}
		e.heldK = [2]int32{int32(rng.IntN(3)), int32(rng.IntN(3))}
		e.availK = [2]int32{1 + int32(rng.IntN(4)), 1 + int32(rng.IntN(4))}
	}
	return es
}

// heapWeight draws a weight among few values, some a unit or two in the
// last place apart (queueKey drops the last two bits of the weight).
func heapWeight(rng *rand.Rand) float64 {
	w := float64(rng.IntN(8)) / 3
	for range rng.IntN(3) {
		w = math.Nextafter(w, 10)
	}
	return w
}

// TestQheapMatchesSwapHeap: qheap and the heap it replaced, given the
// same operations (push and heapify, upsert after a key change, remove,
// fixAt over changed positions), hold every entry at the same position,
// so every top, and every decision, is the same; and fixAt leaves the
// heap in order, whatever the heap's size and the number of marks (down
// to one, up to the fallback to heapify).
func TestQheapMatchesSwapHeap(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 5))
	var sc indexheap.Scratch
	var rsc swapScratch
	for round := range 300 {
		n := 1 + rng.IntN(600)
		kind := rng.IntN(2)
		o := order{noMin: round%5 == 0, unknownFirst: round%3 != 0, lostLast: round%2 == 0}
		h, ref := newQheap(0, kind, o), &swapQheap{slot: 0, kind: kind, order: o}
		es, fs := heapEntries(n, uint64(round)), heapEntries(n, uint64(round))
		for i := range es {
			h.push(&es[i])
			ref.items = append(ref.items, &fs[i])
			fs[i].pos[0] = int32(i)
		}
		h.heapify()
		ref.heapify()
		same := func(what string) {
			t.Helper()
			for i := range es {
				if es[i].pos[0] != fs[i].pos[0] {
					t.Fatalf("round %d %s: entry %d at %d, reference at %d", round, what, i, es[i].pos[0], fs[i].pos[0])
				}
			}
			for i := 1; i < h.len(); i++ {
				if p := (i - 1) / 2; ref.less(h.h.At(i), h.h.At(p)) {
					t.Fatalf("round %d %s: item %d before its parent %d", round, what, i, p)
				}
			}
		}
		same("heapify")
		for range 5 {
			var marks []int32
			for range 1 + rng.IntN(1+n/max(1, rng.IntN(60))) {
				i := rng.IntN(n)
				if es[i].pos[0] < 0 {
					continue
				}
				w, m, held := heapWeight(rng), int32(rng.IntN(3)), int32(rng.IntN(3))
				what, lost, known := rng.IntN(4), rng.IntN(3) == 0, rng.IntN(3) != 0
				for _, e := range []*entry{&es[i], &fs[i]} {
					switch what {
					case 0:
						e.w = w
					case 1:
						e.minK[kind] = m
					case 2:
						e.lost, e.ttKnown = lost, known
					default:
						e.w, e.heldK[kind] = w, held
					}
				}
				marks = append(marks, es[i].pos[0])
			}
			h.fixAt(marks, &sc)
			ref.fixAt(marks, &rsc)
			same("fixAt")
			for range 20 {
				i := rng.IntN(n)
				held := int32(rng.IntN(3))
				es[i].heldK[kind], fs[i].heldK[kind] = held, held
				if rng.IntN(4) == 0 {
					h.remove(&es[i])
					ref.remove(&fs[i])
				} else {
					h.upsert(&es[i])
					ref.upsert(&fs[i])
				}
				same("upsert/remove")
			}
		}
	}
}

// queueHeap is the heartbeat's operation mix on a queue heap: take the
// head, assign it a slot (its held count and so its key change), re-key
// it or, once it has nothing ready, remove it (put back later).
type queueHeap interface {
	top() *entry
	upsert(e *entry)
	remove(e *entry)
}

// BenchmarkQueueHeap times a heartbeat's operations on qheap
// (impl=indexheap) and on the hand-written heap it replaced
// (impl=swap), at 1,000 and 10,000 queued jobs. Compare with benchstat
// over interleaved runs.
func BenchmarkQueueHeap(b *testing.B) {
	for _, n := range []int{1000, 10000} {
		for _, impl := range []string{"indexheap", "swap"} {
			b.Run(fmt.Sprintf("jobs=%d/impl=%s", n, impl), func(b *testing.B) {
				es := heapEntries(n, 1)
				var h queueHeap
				if impl == "swap" {
					h = &swapQheap{slot: 0, kind: 0, order: order{unknownFirst: true, lostLast: true}}
				} else {
					q := newQheap(0, 0, order{unknownFirst: true, lostLast: true})
					h = &q
				}
				for i := range es {
					h.upsert(&es[i])
				}
				rng := rand.New(rand.NewPCG(2, 3))
				var out []*entry
				b.ReportAllocs()
				for b.Loop() {
					e := h.top()
					e.heldK[0]++
					if e.availK[0]--; e.availK[0] == 0 {
						h.remove(e)
						out = append(out, e)
					} else {
						h.upsert(e)
					}
					if len(out) > 0 && rng.IntN(2) == 0 { // its task ends: ready again
						f := out[len(out)-1]
						out = out[:len(out)-1]
						f.heldK[0] = int32(rng.IntN(3))
						f.availK[0] = 1 + int32(rng.IntN(4))
						f.w = heapWeight(rng)
						h.upsert(f)
					}
				}
			})
		}
	}
}
