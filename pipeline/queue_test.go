package pipeline

import (
	"math/rand/v2"
	"slices"
	"sync"
	"testing"
	"time"
)

// TestQueueFIFO checks the queue against a slice oracle after every
// operation, single-threaded: FIFO order, take limits, capacity, the
// high-water mark, close and stop.
func TestQueueFIFO(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	var blocked time.Duration
	for run := range 200 {
		depth := 1 + rng.IntN(6)
		q := newQueue[int](depth)
		var oracle []int
		next, hw := 0, 0
		for op := range 100 {
			switch {
			case rng.IntN(2) == 0 && len(oracle) < depth:
				k := 1 + rng.IntN(depth-len(oracle))
				xs := make([]int, k)
				for i := range xs {
					xs[i] = next
					next++
				}
				if k == 1 && rng.IntN(2) == 0 {
					if !q.put(xs[0], &blocked) {
						t.Fatalf("run %d op %d: put failed", run, op)
					}
				} else if n := q.putAll(xs, &blocked); n != k {
					t.Fatalf("run %d op %d: putAll = %d, want %d", run, op, n, k)
				}
				oracle = append(oracle, xs...)
				hw = max(hw, len(oracle))
			case len(oracle) > 0:
				limit := 1 + rng.IntN(depth+1)
				got, ok := q.take(nil, limit, &blocked)
				want := oracle[:min(limit, len(oracle))]
				if !ok || !slices.Equal(got, want) {
					t.Fatalf("run %d op %d: take(%d) = %v %v, want %v", run, op, limit, got, ok, want)
				}
				oracle = oracle[len(want):]
			}
			if q.n != len(oracle) || q.highWater() != hw {
				t.Fatalf("run %d op %d: n %d hw %d, oracle %d hw %d", run, op, q.n, q.highWater(), len(oracle), hw)
			}
		}
		q.close()
		rest, ok := q.take(nil, depth, &blocked)
		if len(oracle) > 0 && (!ok || !slices.Equal(rest, oracle)) {
			t.Fatalf("run %d: after close take = %v %v, want %v", run, rest, ok, oracle)
		}
		if _, ok := q.take(nil, depth, &blocked); ok {
			t.Fatalf("run %d: take after close and drain succeeded", run)
		}
	}
	if blocked != 0 {
		t.Errorf("single-threaded use blocked for %v", blocked)
	}
}

// TestQueueConcurrent: several producers and consumers move every item
// exactly once through a small queue, each producer's items in order.
func TestQueueConcurrent(t *testing.T) {
	const producers, consumers, per = 3, 3, 2000
	q := newQueue[[2]int](2)
	var wg sync.WaitGroup
	var mu sync.Mutex
	got := make([][]int, producers)
	for c := range consumers {
		wg.Go(func() {
			var blocked time.Duration
			for {
				xs, ok := q.take(nil, 1+c, &blocked)
				if !ok {
					return
				}
				mu.Lock()
				for _, x := range xs {
					got[x[0]] = append(got[x[0]], x[1])
				}
				mu.Unlock()
			}
		})
	}
	var pwg sync.WaitGroup
	for p := range producers {
		pwg.Go(func() {
			var blocked time.Duration
			for i := 0; i < per; {
				if p == 0 {
					if !q.put([2]int{p, i}, &blocked) {
						t.Error("put failed")
					}
					i++
					continue
				}
				k := min(3, per-i)
				xs := make([][2]int, k)
				for j := range xs {
					xs[j] = [2]int{p, i + j}
				}
				if q.putAll(xs, &blocked) != k {
					t.Error("putAll short")
				}
				i += k
			}
		})
	}
	pwg.Wait()
	q.close()
	wg.Wait()
	for p, xs := range got {
		// Consumers interleave, so per-producer order is only per take;
		// every item must still arrive exactly once.
		slices.Sort(xs)
		if len(xs) != per || xs[0] != 0 || xs[per-1] != per-1 || len(slices.Compact(xs)) != per {
			t.Errorf("producer %d: %d items delivered", p, len(xs))
		}
	}
}

// TestQueueStop: stop releases a producer waiting for room and a
// consumer waiting for items, and later calls fail at once.
func TestQueueStop(t *testing.T) {
	q := newQueue[int](1)
	var blocked time.Duration
	q.put(1, &blocked)
	res := make(chan bool, 2)
	go func() { var b time.Duration; res <- q.put(2, &b) }()
	e := newQueue[int](1)
	go func() { var b time.Duration; _, ok := e.take(nil, 1, &b); res <- ok }()
	time.Sleep(10 * time.Millisecond)
	q.stop()
	e.stop()
	if r1, r2 := <-res, <-res; r1 || r2 {
		t.Fatal("a wait succeeded after stop")
	}
	if q.put(3, &blocked) || q.putAll([]int{3}, &blocked) != 0 {
		t.Fatal("put after stop succeeded")
	}
	if _, ok := q.take(nil, 1, &blocked); ok {
		t.Fatal("take after stop succeeded")
	}
	if left := q.drain(nil); !slices.Equal(left, []int{1}) {
		t.Fatalf("drain = %v, want [1]", left)
	}
}

// TestGate: acquire takes every free slot, waits at the limit until a
// release, and stop releases waiters.
func TestGate(t *testing.T) {
	g := newGate(3)
	var blocked time.Duration
	if k := g.acquire(&blocked); k != 3 {
		t.Fatalf("first acquire = %d, want all 3 slots", k)
	}
	got := make(chan int)
	go func() { var b time.Duration; got <- g.acquire(&b) }()
	select {
	case <-got:
		t.Fatal("acquire beyond the limit did not wait")
	case <-time.After(10 * time.Millisecond):
	}
	g.release(2)
	if k := <-got; k != 2 {
		t.Fatalf("acquire after releasing 2 = %d", k)
	}
	go func() { var b time.Duration; got <- g.acquire(&b) }()
	time.Sleep(5 * time.Millisecond)
	g.stop()
	if k := <-got; k != 0 {
		t.Fatalf("acquire after stop = %d, want 0", k)
	}
}

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
