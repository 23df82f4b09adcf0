package dbs

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/schedkit/schedkit"
)

// TestFixAtRestoresOrder: after the keys (weight, minimum, slots held,
// task time known, minimum unreachable) of a random subset of a heap's
// entries change, fixAt over their positions leaves every entry in heap
// order, whatever the heap's size and the subset's (down to one entry,
// up to the fallback to heapify).
func TestFixAtRestoresOrder(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 5))
	var sc fixScratch
	for round := range 400 {
		n := 1 + rng.IntN(600)
		h := qheap{slot: 0, kind: rng.IntN(2), order: order{noMin: round%5 == 0, unknownFirst: round%3 != 0, lostLast: round%2 == 0}}
		es := make([]entry, n)
		for i := range es {
			e := &es[i]
			for j := range e.pos {
				e.pos[j] = -1
			}
			e.id = schedkit.JobID(fmt.Sprintf("j%04d", i))
			e.sub = int64(rng.IntN(50))
			e.w = float64(rng.IntN(8))
			e.minK = [2]int32{int32(rng.IntN(3)), int32(rng.IntN(3))}
			e.heldK = [2]int32{int32(rng.IntN(3)), int32(rng.IntN(3))}
			e.ttKnown, e.lost = rng.IntN(4) != 0, rng.IntN(4) == 0
			h.push(e)
		}
		h.heapify()
		for range 5 {
			var marks []int32
			for range 1 + rng.IntN(1+n/max(1, rng.IntN(60))) {
				e := h.items[rng.IntN(n)]
				switch rng.IntN(4) {
				case 0:
					e.w = float64(rng.IntN(8))
				case 3:
					e.lost, e.ttKnown = !e.lost, rng.IntN(2) == 0
				case 1:
					e.minK[h.kind] = int32(rng.IntN(3))
				default:
					e.w, e.heldK[h.kind] = float64(rng.IntN(8)), int32(rng.IntN(3))
				}
				marks = append(marks, e.pos[h.slot])
			}
			h.fixAt(marks, &sc)
			for i := 1; i < n; i++ {
				if p := (i - 1) / 2; h.less(h.items[i], h.items[p]) {
					t.Fatalf("round %d (n %d, %d marks): item %d before its parent %d", round, n, len(marks), i, p)
				}
			}
			for i, e := range h.items {
				if int(e.pos[h.slot]) != i {
					t.Fatalf("round %d: position %d records %d", round, i, e.pos[h.slot])
				}
			}
		}
	}
}
