package pipeline

import (
	"math/rand/v2"
	"slices"
	"testing"
)

// TestReorderHeap checks the reorder buffer's heap against sorting.
func TestReorderHeap(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	for range 200 {
		r := &requester[int, int]{}
		var oracle []uint64
		for range 50 {
			if rng.IntN(3) > 0 || len(oracle) == 0 {
				s := uint64(rng.IntN(100))
				r.hold(item[int, int]{Result: Result[int, int]{Seq: s}})
				oracle = append(oracle, s)
				slices.Sort(oracle)
				continue
			}
			r.expect = oracle[0]
			if !r.ready() {
				t.Fatal("not ready for the smallest held seq")
			}
			if got := r.pop().Seq; got != oracle[0] {
				t.Fatalf("pop = %d, want %d", got, oracle[0])
			}
			oracle = oracle[1:]
		}
	}
}
