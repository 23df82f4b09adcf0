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

func newHeap() *indexheap.Heap[*item] {
	return &indexheap.Heap[*item]{
		Less: func(a, b *item) bool { return a.key < b.key || a.key == b.key && a.id < b.id },
		Pos:  func(x *item) *int32 { return &x.pos },
	}
}

// check verifies the heap order, every item's position and that the heap
// holds exactly the items of the naive set in.
func check(t *testing.T, h *indexheap.Heap[*item], in map[*item]bool, step int) {
	t.Helper()
	if h.Len() != len(in) {
		t.Fatalf("step %d: %d items, want %d", step, h.Len(), len(in))
	}
	for i := 0; i < h.Len(); i++ {
		x := h.At(i)
		if !in[x] || int(x.pos) != i {
			t.Fatalf("step %d: item %d at %d records %d (in set %v)", step, x.id, i, x.pos, in[x])
		}
		if i > 0 && h.Less(x, h.At((i-1)/2)) {
			t.Fatalf("step %d: item %d at %d is less than its parent", step, x.id, i)
		}
	}
	for x := range in {
		if !h.Contains(x) {
			t.Fatalf("step %d: item %d missing", step, x.id)
		}
	}
}

// TestAgainstSortedSet runs random operations against a naive set and
// checks the heap after every one.
func TestAgainstSortedSet(t *testing.T) {
	for seed := range uint64(20) {
		rng := rand.New(rand.NewPCG(seed, 1))
		items := make([]*item, 64)
		for i := range items {
			items[i] = &item{id: i, key: rng.IntN(32), pos: -1}
		}
		h := newHeap()
		in := map[*item]bool{}
		for step := range 2000 {
			x := items[rng.IntN(len(items))]
			switch op := rng.IntN(8); {
			case op == 0 && !in[x]:
				h.Push(x)
				in[x] = true
			case op == 1:
				h.Remove(x)
				delete(in, x)
			case op == 2:
				x.key = rng.IntN(32)
				h.Fix(x)
			case op == 3:
				x.key = rng.IntN(32)
				h.Upsert(x)
				in[x] = true
			case op == 4 && h.Len() > 0:
				least := slices.MinFunc(mapKeys(in), func(a, b *item) int {
					if h.Less(a, b) {
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
						h.Add(y)
						in[y] = true
					}
				}
				h.Init()
			}
			check(t, h, in, step)
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
		name string
		key  int
		pos  int32
	}
	h := indexheap.Heap[*job]{
		Less: func(a, b *job) bool { return a.key < b.key },
		Pos:  func(j *job) *int32 { return &j.pos },
	}
	a, b, c := &job{"a", 3, -1}, &job{"b", 1, -1}, &job{"c", 2, -1}
	h.Push(a)
	h.Push(b)
	h.Push(c)
	fmt.Println("top:", h.Top().name)
	b.key = 9 // b's key changed: restore the order around it
	h.Fix(b)
	h.Remove(c)
	for h.Len() > 0 {
		j := h.Pop()
		fmt.Println(j.name, j.key, j.pos)
	}
	// Output:
	// top: b
	// a 3 -1
	// b 9 -1
}

// BenchmarkOps times the mix a scheduler's index makes (re-key in place,
// remove and re-insert, pop the top and push it back) on the heap and on
// a naive reference, a slice kept sorted by insertion, in the same run.
func BenchmarkOps(b *testing.B) {
	for _, n := range []int{100, 10_000, 100_000} {
		rng := rand.New(rand.NewPCG(1, 2))
		items := make([]*item, n)
		for i := range items {
			items[i] = &item{id: i, key: rng.IntN(n), pos: -1}
		}
		b.Run(fmt.Sprintf("items=%d/heap", n), func(b *testing.B) {
			h := newHeap()
			for _, x := range items {
				if x.pos < 0 {
					h.Push(x)
				}
			}
			b.ReportAllocs()
			b.ResetTimer()
			for i := 0; b.Loop(); i++ {
				x := items[i%n]
				switch i % 3 {
				case 0:
					x.key = (x.key + 7919) % n
					h.Fix(x)
				case 1:
					h.Remove(x)
					h.Push(x)
				default:
					h.Push(h.Pop())
				}
			}
		})
		if n > 10_000 {
			continue // the naive reference is O(n) per operation
		}
		b.Run(fmt.Sprintf("items=%d/sorted-slice", n), func(b *testing.B) {
			less := newHeap().Less
			cmp := func(a, b *item) int {
				if less(a, b) {
					return -1
				}
				if less(b, a) {
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
			b.ResetTimer()
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
