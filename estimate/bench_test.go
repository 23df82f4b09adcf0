package estimate_test

import (
	"fmt"
	"testing"
	"time"

	"github.com/schedkit/schedkit"
	"github.com/schedkit/schedkit/estimate"
)

// BenchmarkEstimateJob times formulas (2)–(5) for one job of p phases
// from its counters, validation included: the host-facing entry point.
// BenchmarkRemainingTime times formula (3) alone on ready loads.
func BenchmarkEstimateJob(b *testing.B) {
	for _, p := range []int{2, 8} {
		b.Run(fmt.Sprintf("phases=%d", p), func(b *testing.B) {
			sub := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
			j := &job{id: "j", submitted: sub, deadline: sub.Add(time.Hour)}
			caps := make([]estimate.Capacity, p)
			for i := range p {
				j.phases = append(j.phases, schedkit.PhaseProgress{Total: 40, Finished: 10, Running: 4, Ready: 26,
					RunningStartSum: 400 * time.Second, FinishedDurationSum: 300 * time.Second})
				caps[i] = estimate.Capacity(8+i) * estimate.Slot
			}
			now := sub.Add(10 * time.Minute)
			opt := estimate.Options{PerPhase: true}
			b.ReportAllocs()
			for b.Loop() {
				if _, err := estimate.EstimateJob(j, now, caps, opt); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

func BenchmarkRemainingTime(b *testing.B) {
	loads := []estimate.PhaseLoad{
		{Unfinished: 30, Elapsed: 2000 * time.Second, TaskTime: 30 * time.Second, Capacity: 8 * estimate.Slot},
		{Unfinished: 4, Elapsed: 100 * time.Second, TaskTime: 30 * time.Second, Capacity: 2500},
	}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := estimate.RemainingTime(loads); err != nil {
			b.Fatal(err)
		}
	}
}
