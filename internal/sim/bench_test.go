package sim_test

import (
	"fmt"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/schedkit/schedkit/internal/sim"
	"github.com/schedkit/schedkit/internal/workload"
)

// loopWorkload is a steady stream of slot-model MapReduce jobs (Poisson
// arrivals, 1–40 maps of 5–60 s, 0–4 reduces) sized to keep a cluster of
// nodes×(4 map + 2 reduce) slots about 70% busy.
func loopWorkload(nodes, jobs int, seed uint64) *workload.Workload {
	rng := rand.New(rand.NewPCG(seed, 1))
	w := &workload.Workload{Name: "loop"}
	// mean map work per job ≈ 20.5 maps × 32.5 s ≈ 666 slot-s; capacity
	// 4·nodes slots; 70% load → mean gap = 666 / (0.7·4·nodes).
	gap := 666.0 / (0.7 * 4 * float64(nodes))
	var at float64
	for j := 0; j < jobs; j++ {
		at += rng.ExpFloat64() * gap
		maps := make([]float64, 1+rng.IntN(40))
		for i := range maps {
			maps[i] = 5 + 55*rng.Float64()
		}
		reds := make([]float64, rng.IntN(5))
		for i := range reds {
			reds[i] = 5 + 30*rng.Float64()
		}
		w.Jobs = append(w.Jobs, mrJob(fmt.Sprintf("j%06d", j), time.Duration(at*float64(time.Second)), durs(maps...), durs(reds...)))
	}
	return w
}

func loopConfig(nodes int) sim.Config {
	cfg := sim.DefaultConfig(slotSpace, slotNodes(nodes, 4, 2))
	cfg.MetricsInterval = 24 * time.Hour
	return cfg
}

// BenchmarkEventLoop measures the simulator's events per second on a
// slot cluster under a minimal FIFO policy (wall clock, and per second of
// process CPU time, which a busy machine disturbs less), and allocations
// per run (construction excluded; TestStepAllocs shows the steady state
// allocates nothing per event).
func BenchmarkEventLoop(b *testing.B) {
	for _, nodes := range []int{10, 100} {
		b.Run(fmt.Sprintf("nodes=%d", nodes), func(b *testing.B) {
			w := loopWorkload(nodes, 40*nodes, 1)
			cfg := loopConfig(nodes)
			b.ReportAllocs()
			events := 0
			var elapsed, cpu time.Duration
			for b.Loop() {
				b.StopTimer()
				s, err := sim.New(cfg, w, &greedy{})
				if err != nil {
					b.Fatal(err)
				}
				b.StartTimer()
				t0, c0 := time.Now(), cpuTime()
				if _, err := s.Run(); err != nil {
					b.Fatal(err)
				}
				elapsed += time.Since(t0)
				cpu += cpuTime() - c0
				events += s.Stats().Events
			}
			b.ReportMetric(float64(events)/elapsed.Seconds(), "events/s")
			if cpu > 0 {
				b.ReportMetric(float64(events)/cpu.Seconds(), "events/cpu-s")
			}
			b.ReportMetric(float64(events)/float64(b.N), "events/op")
		})
	}
}

// Steady state allocates nothing per event.
func TestStepAllocs(t *testing.T) {
	if testing.Short() {
		t.Skip("allocation counts are measured in the long run only")
	}
	w := loopWorkload(50, 4000, 1)
	s, err := sim.New(loopConfig(50), w, &greedy{})
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; i < 20000; i++ { // warm up: heap, pools and buffers grow
		if _, err := s.Step(); err != nil {
			t.Fatal(err)
		}
	}
	allocs := testing.AllocsPerRun(20000, func() {
		if more, err := s.Step(); err != nil || !more {
			t.Fatal("run ended during measurement", err)
		}
	})
	if allocs > 0.001 {
		t.Errorf("%.4f allocations per event in steady state, want 0", allocs)
	}
}
