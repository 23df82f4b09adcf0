package policy

import (
	"container/heap"
	"fmt"
	"testing"
	"time"

	"github.com/schedkit/schedkit/internal/baseline"
	"github.com/schedkit/schedkit/internal/sim"
)

// BenchmarkDropExpire is the wrapper's per-heartbeat deadline check with
// jobs=N queued and none due: the heap looks at its top only. The naive
// reference scans every queued deadline, as a wrapper without the heap
// would on every heartbeat.
func BenchmarkDropExpire(b *testing.B) {
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	for _, n := range []int{100, 1000, 10000} {
		d := DropAtDeadline(baseline.NewFIFO()).(*drop)
		dls := make([]time.Time, n)
		for i := range n {
			dls[i] = t0.Add(time.Hour + time.Duration(i)*time.Second)
			heap.Push(&d.due, dueJob{at: dls[i]})
		}
		now := t0.Add(time.Minute)
		b.Run(fmt.Sprintf("jobs=%d", n), func(b *testing.B) {
			b.ReportAllocs()
			var dst []sim.Decision
			for b.Loop() {
				dst, _ = d.expire(now, dst[:0])
			}
		})
		b.Run(fmt.Sprintf("naive/jobs=%d", n), func(b *testing.B) {
			b.ReportAllocs()
			due := 0
			for b.Loop() {
				for _, dl := range dls {
					if dl.Before(now) {
						due++
					}
				}
			}
			if due != 0 {
				b.Fatal(due)
			}
		})
	}
}
