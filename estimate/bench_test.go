package estimate_test

import (
	"fmt"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/schedkit/schedkit"
	"github.com/schedkit/schedkit/estimate"
	"github.com/schedkit/schedkit/resource"
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

// BenchmarkEvaluate compares Evaluate with the composition of the
// exported, validating functions that lss used before Evaluate existed
// (PooledTaskTime, per-phase loads, RemainingTime, SpareLeft): the cost
// of one home for formulas (2)–(5) on lss's hot path. The two alternate
// in blocks of 1,000 calls inside each iteration, so a loaded machine
// slows both alike; the metrics are each one's fastest block (the least
// disturbed by other load) per call, and their ratio.
func BenchmarkEvaluate(b *testing.B) {
	ph := []schedkit.PhaseProgress{
		{Total: 40, Finished: 10, Running: 4, Ready: 26, RunningStartSum: 400 * time.Second, FinishedDurationSum: 300 * time.Second},
		{Total: 4, Running: 1, RunningStartSum: 900 * time.Second},
	}
	caps := []estimate.Capacity{200 * estimate.Slot, 100 * estimate.Slot}
	c := estimate.Counters{Phases: ph, Capacity: caps, SinceSubmit: 20 * time.Minute, Left: time.Hour}
	var sink time.Duration
	tEval, tComp := time.Duration(1<<62), time.Duration(1<<62)
	var loads [2]estimate.PhaseLoad
	b.ReportAllocs()
	for b.Loop() {
		t0 := time.Now()
		for range 1000 {
			sink += estimate.Evaluate(c, estimate.Options{}).Spare.Time
		}
		t1 := time.Now()
		for range 1000 {
			tavg, _ := estimate.PooledTaskTime(ph)
			for p := range ph {
				loads[p] = estimate.PhaseLoad{Unfinished: ph[p].Unfinished(), Elapsed: estimate.RunningElapsed(&ph[p], c.SinceSubmit), TaskTime: tavg.Avg, Capacity: caps[p]}
			}
			rem, _ := estimate.RemainingTime(loads[:])
			sink += estimate.SpareLeft(c.Left, rem).Time
		}
		t2 := time.Now()
		tEval, tComp = min(tEval, t1.Sub(t0)), min(tComp, t2.Sub(t1))
	}
	b.ReportMetric(float64(tEval)/1000, "evaluate-ns/call")
	b.ReportMetric(float64(tComp)/1000, "composed-ns/call")
	b.ReportMetric(float64(tEval)/float64(tComp), "ratio")
	_ = sink
}

// BenchmarkHistoryObserve times Observe as a scheduler's Release calls
// it: one finished task's samples (every 3 s, a step in the middle, a
// little noise) learned into a key observed before, so every call
// resamples, smooths and cuts the stages again. Sizes: samples per task
// and kinds (2: Hadoop slots, incompressible; 4: CPU, memory, disk and
// network, two compressible, sampled under compression).
func BenchmarkHistoryObserve(b *testing.B) {
	for _, dims := range []int{2, 4} {
		for _, n := range []int{16, 256} {
			b.Run(fmt.Sprintf("kinds=%d/samples=%d", dims, n), func(b *testing.B) {
				space, err := resource.NewSpace(slotsOrMulti(dims)...)
				if err != nil {
					b.Fatal(err)
				}
				h, err := estimate.NewHistory(estimate.HistoryConfig{Space: space})
				if err != nil {
					b.Fatal(err)
				}
				rng := rand.New(rand.NewPCG(1, uint64(n)))
				tasks := make([][]estimate.UsageSample, 16)
				for i := range tasks {
					for j := range n {
						u := make(resource.Vector, dims)
						for k := range u {
							u[k] = float64(1+k) * (1 + 0.05*rng.NormFloat64())
							if j >= n/2 {
								u[k] *= 2
							}
							u[k] = max(u[k], 0)
						}
						rc := 0.0
						if dims > 2 && j%4 == 1 {
							rc = 0.2
						}
						tasks[i] = append(tasks[i], estimate.UsageSample{Duration: 3 * time.Second, Used: u, Compression: rc})
					}
				}
				key := schedkit.SimilarityKey{Logic: "m", DataSize: 1}
				b.ReportAllocs()
				i := 0
				for b.Loop() {
					if ok, err := h.Observe(key, tasks[i%len(tasks)]); !ok || err != nil {
						b.Fatal(ok, err)
					}
					i++
				}
			})
		}
	}
}

func slotsOrMulti(dims int) []resource.Kind {
	if dims == 2 {
		return []resource.Kind{resource.MapSlot, resource.ReduceSlot}
	}
	return []resource.Kind{resource.CPU, resource.Memory, resource.DiskBandwidth, resource.NetworkBandwidth}
}
