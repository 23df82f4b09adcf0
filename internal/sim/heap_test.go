package sim

import (
	"container/heap"
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"
)

// The heap pops in (time, sequence) order, against a sorted oracle, over
// random interleavings of pushes and pops with many equal times.
func TestEventHeapOrder(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for round := 0; round < 200; round++ {
		var h eventHeap
		var oracle []event
		for op := 0; op < 500; op++ {
			if len(oracle) == 0 || rng.IntN(3) > 0 {
				at := int64(rng.IntN(20))
				h.push(at, evStage, int32(op), 0)
				oracle = append(oracle, event{at: at, seq: h.seq, a: int32(op), kind: evStage})
				continue
			}
			slices.SortFunc(oracle, func(a, b event) int {
				if a.before(&b) {
					return -1
				}
				return 1
			})
			want := oracle[0]
			oracle = oracle[1:]
			if got := h.pop(); got != want {
				t.Fatalf("round %d: pop %+v, want %+v", round, got, want)
			}
		}
		if h.len() != len(oracle) {
			t.Fatalf("len %d, want %d", h.len(), len(oracle))
		}
	}
}

// boxedHeap is the naive reference: container/heap over pointers, one
// allocation per event.
type boxedHeap []*event

func (h boxedHeap) Len() int           { return len(h) }
func (h boxedHeap) Less(i, j int) bool { return h[i].before(h[j]) }
func (h boxedHeap) Swap(i, j int)      { h[i], h[j] = h[j], h[i] }
func (h *boxedHeap) Push(x any)        { *h = append(*h, x.(*event)) }
func (h *boxedHeap) Pop() any {
	old := *h
	e := old[len(old)-1]
	*h = old[:len(old)-1]
	return e
}

// BenchmarkEventHeap: one pop and one push at a steady size, the
// simulator's heap against container/heap with boxed events.
func BenchmarkEventHeap(b *testing.B) {
	for _, size := range []int{1000, 100000} {
		rng := rand.New(rand.NewPCG(1, 1))
		b.Run(fmt.Sprintf("impl=slice/size=%d", size), func(b *testing.B) {
			var h eventHeap
			for i := 0; i < size; i++ {
				h.push(rng.Int64N(1e9), evStage, 0, 0)
			}
			b.ReportAllocs()
			for b.Loop() {
				e := h.pop()
				h.push(e.at+rng.Int64N(1e9), evStage, 0, 0)
			}
		})
		b.Run(fmt.Sprintf("impl=container-heap/size=%d", size), func(b *testing.B) {
			h := &boxedHeap{}
			var seq uint64
			for i := 0; i < size; i++ {
				seq++
				heap.Push(h, &event{at: rng.Int64N(1e9), seq: seq})
			}
			b.ReportAllocs()
			for b.Loop() {
				e := heap.Pop(h).(*event)
				seq++
				heap.Push(h, &event{at: e.at + rng.Int64N(1e9), seq: seq})
			}
		})
	}
}

// The simulator's three event sources (submission cursor, heartbeat
// heap, main heap) pop in exactly the order one heap of every event
// would: the submissions first-pushed, then random pushes of periodic
// heartbeats, out-of-band heartbeats and other events, many at equal
// times, interleaved with pops.
func TestEventsMergeOrder(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	for round := 0; round < 100; round++ {
		var q events
		var one eventHeap
		subAt := make([]int64, rng.IntN(30))
		for i := range subAt {
			if i > 0 {
				subAt[i] = subAt[i-1] + int64(rng.IntN(3))
			}
			one.push(subAt[i], evSubmit, int32(i), 0)
		}
		q.reset(subAt, 0, rng.IntN(3))
		// now is the time of the last event popped: periodic heartbeats
		// are re-armed at now + interval, as the simulator does, and
		// now and then earlier (the ring must hand those to the heap).
		now, interval := int64(0), int64(1+rng.IntN(12))
		for op := 0; op < 400; op++ {
			if q.len() != one.len() {
				t.Fatalf("round %d: len %d, want %d", round, q.len(), one.len())
			}
			if one.len() == 0 || rng.IntN(3) > 0 {
				at := now + int64(rng.IntN(40))
				kind, ver := evStage, uint32(0)
				switch rng.IntN(5) {
				case 0:
					kind = evHeartbeat
				case 1:
					kind, ver = evHeartbeat, 1
				case 3:
					// out of band: now, as the simulator pushes them, and
					// now and then later (the ring must take those in
					// order or hand them to the heap).
					if rng.IntN(10) > 0 {
						at = now
					}
					q.pushOOB(at, int32(op))
					one.push(at, evHeartbeat, int32(op), 1)
					continue
				case 2:
					at = now + interval
					if rng.IntN(20) == 0 {
						at = now + int64(rng.IntN(int(interval)))
					}
					q.pushPeriodic(at, int32(op))
					one.push(at, evHeartbeat, int32(op), 0)
					continue
				}
				q.push(at, kind, int32(op), ver)
				one.push(at, kind, int32(op), ver)
				continue
			}
			src, got := q.first()
			q.drop(src)
			want := one.pop()
			if got != want {
				t.Fatalf("round %d: pop %+v, want %+v", round, got, want)
			}
			now = got.at
		}
	}
}

// BenchmarkEventsHeartbeats runs the event mix of an overloaded slot
// cluster (every node heartbeating each interval, four running tasks per
// node, each task end followed by an out-of-band heartbeat at once and a
// new task) through the simulator's queue (impl=events: rings for the
// periodic and out-of-band heartbeats) and, as the naive reference, one
// heap of every event (impl=heap), at 100 to 10,000 nodes; one op is one
// event.
func BenchmarkEventsHeartbeats(b *testing.B) {
	const interval = int64(3e9)
	for _, nodes := range []int{100, 1000, 10000} {
		for _, impl := range []string{"events", "heap"} {
			b.Run(fmt.Sprintf("nodes=%d/impl=%s", nodes, impl), func(b *testing.B) {
				rng := rand.New(rand.NewPCG(uint64(nodes), 5))
				var q events
				var one eventHeap
				q.reset(nil, 4*nodes, nodes)
				push := func(at int64, kind evKind, a int32, ver uint32) {
					if impl == "heap" {
						one.push(at, kind, a, ver)
						return
					}
					switch {
					case kind == evHeartbeat && ver == 1:
						q.pushOOB(at, a)
					case kind == evHeartbeat:
						q.pushPeriodic(at, a)
					default:
						q.push(at, kind, a, ver)
					}
				}
				pop := func() event {
					if impl == "heap" {
						return one.pop()
					}
					src, e := q.first()
					q.drop(src)
					return e
				}
				for n := range nodes {
					push(int64(n)*interval/int64(nodes), evHeartbeat, int32(n), 0)
					for range 4 {
						push(rng.Int64N(100*interval), evStage, int32(n), 0)
					}
				}
				b.ReportAllocs()
				for b.Loop() {
					e := pop()
					switch e.kind {
					case evHeartbeat:
						if e.ver == 0 {
							push(e.at+interval, evHeartbeat, e.a, 0)
						}
					case evStage:
						push(e.at, evHeartbeat, e.a, 1)
						push(e.at+1+rng.Int64N(100*interval), evStage, e.a, 0)
					}
				}
			})
		}
	}
}
