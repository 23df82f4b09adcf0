package indexheap_test

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/schedkit/schedkit/internal/indexheap"
)

type item struct {
	id, key int
	pos     int32
}

// before is the order the test heaps keep: key, then id.
func before(a, b *item) bool { return a.key < b.key || a.key == b.key && a.id < b.id }

// newHeap returns a heap in the order before: keyed by key with id
// breaking ties, or, keyless, with before as its whole order.
func newHeap(keyed bool) *indexheap.Heap[int, *item] {
	if !keyed {
		return &indexheap.Heap[int, *item]{Less: before}
	}
	return &indexheap.Heap[int, *item]{
		Key:  func(x *item) int { return x.key },
		Less: func(a, b *item) bool { return a.id < b.id },
	}
}

// check verifies the heap order, every item's position and that the heap
// holds exactly the items of the naive set in.
func check(t *testing.T, h *indexheap.Heap[int, *item], in map[*item]bool, step int) {
	t.Helper()
	if h.Len() != len(in) {
		t.Fatalf("step %d: %d items, want %d", step, h.Len(), len(in))
	}
	for i := 0; i < h.Len(); i++ {
		x := h.At(i)
		if !in[x] || int(x.pos) != i {
			t.Fatalf("step %d: item %d at %d records %d (in set %v)", step, x.id, i, x.pos, in[x])
		}
		if i > 0 && before(x, h.At((i-1)/2)) {
			t.Fatalf("step %d: item %d at %d is less than its parent", step, x.id, i)
		}
	}
	for x := range in {
		if x.pos < 0 {
			t.Fatalf("step %d: item %d missing", step, x.id)
		}
	}
}

// TestAgainstSortedSet runs random operations against a naive set and
// checks the heap after every one, keyed and keyless.
func TestAgainstSortedSet(t *testing.T) {
	for seed := range uint64(20) {
		rng := rand.New(rand.NewPCG(seed, 1))
		items := make([]*item, 64)
		for i := range items {
			items[i] = &item{id: i, key: rng.IntN(32), pos: -1}
		}
		h := newHeap(seed%2 == 0)
		in := map[*item]bool{}
		for step := range 2000 {
			x := items[rng.IntN(len(items))]
			switch op := rng.IntN(8); {
			case op == 0 && !in[x]:
				h.Push(x, &x.pos)
				in[x] = true
			case op == 1:
				h.Remove(&x.pos)
				delete(in, x)
			case op == 2:
				x.key = rng.IntN(32)
				h.Fix(x, &x.pos)
				if !in[x] && x.pos != -1 {
					t.Fatalf("step %d: Fix of an absent item set its position", step)
				}
			case op == 3:
				x.key = rng.IntN(32)
				h.Upsert(x, &x.pos)
				in[x] = true
			case op == 4 && h.Len() > 0:
				least := slices.MinFunc(mapKeys(in), func(a, b *item) int {
					if before(a, b) {
						return -1
					}
					return 1
				})
				if got := h.Pop(); got != least {
					t.Fatalf("seed %d step %d: popped %d, want %d", seed, step, got.id, least.id)
				}
				delete(in, least)
			case op == 5 && rng.IntN(20) == 0:
				h.Reset()
				for y := range in {
					if y.pos != -1 {
						t.Fatalf("reset left item %d at %d", y.id, y.pos)
					}
				}
				clear(in)
			case op == 6:
				for _, y := range items {
					if !in[y] && rng.IntN(4) == 0 {
						h.Add(y, &y.pos)
						in[y] = true
					}
					if in[y] && rng.IntN(8) == 0 {
						y.key = rng.IntN(32) // Init copies every key again
					}
				}
				h.Init()
			}
			check(t, h, in, step)
		}
	}
}

// TestFixPositions: after the keys of a random subset of a heap's items
// change, FixPositions over their positions leaves every item in heap
// order at its recorded position, whatever the heap's size and the
// subset's (down to one item, up to the fallback to Init), and the
// heap's copies of the keys are the new ones.
func TestFixPositions(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 5))
	var sc indexheap.Scratch
	for round := range 400 {
		n := 1 + rng.IntN(600)
		if round%4 == 0 {
			n = 1 + rng.IntN(3) // tiny heaps: FixPositions copies the keys there too
		}
		h := newHeap(round%2 == 0)
		items := make([]*item, n)
		in := map[*item]bool{}
		for i := range items {
			items[i] = &item{id: i, key: rng.IntN(50), pos: -1}
			h.Add(items[i], &items[i].pos)
			in[items[i]] = true
		}
		h.Init()
		for range 5 {
			var marks []int32
			for range 1 + rng.IntN(1+n/max(1, rng.IntN(60))) {
				x := items[rng.IntN(n)]
				x.key = rng.IntN(50)
				marks = append(marks, x.pos)
			}
			h.FixPositions(marks, &sc)
			check(t, h, in, round)
			// The copies are the new keys: an item pushed now finds its
			// place among them.
			x := &item{id: len(items), key: rng.IntN(50), pos: -1}
			h.Push(x, &x.pos)
			in[x] = true
			check(t, h, in, round)
			h.Remove(&x.pos)
			delete(in, x)
		}
	}
}

func mapKeys(m map[*item]bool) []*item {
	out := make([]*item, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	return out
}

func Example() {
	type job struct {
		name     string
		deadline int64
		pos      int32
	}
	h := indexheap.Heap[int64, *job]{
		Key:  func(j *job) int64 { return j.deadline },
		Less: func(a, b *job) bool { return a.name < b.name }, // equal deadlines
	}
	a, b, c := &job{"a", 3, -1}, &job{"b", 1, -1}, &job{"c", 3, -1}
	h.Push(a, &a.pos)
	h.Push(b, &b.pos)
	h.Push(c, &c.pos)
	fmt.Println("top:", h.Top().name)
	b.deadline = 9 // b's key changed: restore the order around it
	h.Fix(b, &b.pos)
	h.Remove(&c.pos)
	for h.Len() > 0 {
		j := h.Pop()
		fmt.Println(j.name, j.deadline, j.pos)
	}
	// Output:
	// top: b
	// a 3 -1
	// b 9 -1
}

// BenchmarkOps times the mix a scheduler's index makes (re-key in place,
// remove and re-insert, pop the top and push it back) on the heap, keyed
// and keyless, and on a naive reference, a slice kept sorted by
// insertion, in the same run.
func BenchmarkOps(b *testing.B) {
	for _, n := range []int{100, 10_000, 100_000} {
		rng := rand.New(rand.NewPCG(1, 2))
		items := make([]*item, n)
		for i := range items {
			items[i] = &item{id: i, key: rng.IntN(n), pos: -1}
		}
		for _, keyed := range []bool{true, false} {
			b.Run(fmt.Sprintf("items=%d/heap/keyed=%v", n, keyed), func(b *testing.B) {
				h := newHeap(keyed)
				for _, x := range items {
					x.pos = -1
					h.Push(x, &x.pos)
				}
				b.ReportAllocs()
				for i := 0; b.Loop(); i++ {
					x := items[i%n]
					switch i % 3 {
					case 0:
						x.key = (x.key + 7919) % n
						h.Fix(x, &x.pos)
					case 1:
						h.Remove(&x.pos)
						h.Push(x, &x.pos)
					default:
						top := h.Pop()
						h.Push(top, &top.pos)
					}
				}
			})
		}
		if n > 10_000 {
			continue // the naive reference is O(n) per operation
		}
		b.Run(fmt.Sprintf("items=%d/sorted-slice", n), func(b *testing.B) {
			cmp := func(a, b *item) int {
				if before(a, b) {
					return -1
				}
				if before(b, a) {
					return 1
				}
				return 0
			}
			s := slices.Clone(items)
			slices.SortFunc(s, cmp)
			insert := func(x *item) {
				i, _ := slices.BinarySearchFunc(s, x, cmp)
				s = slices.Insert(s, i, x)
			}
			remove := func(x *item) {
				i, _ := slices.BinarySearchFunc(s, x, cmp)
				s = slices.Delete(s, i, i+1)
			}
			b.ReportAllocs()
			for i := 0; b.Loop(); i++ {
				x := items[i%n]
				switch i % 3 {
				case 0:
					remove(x)
					x.key = (x.key + 7919) % n
					insert(x)
				case 1:
					remove(x)
					insert(x)
				default:
					top := s[0]
					s = s[1:]
					insert(top)
				}
			}
		})
	}
}
