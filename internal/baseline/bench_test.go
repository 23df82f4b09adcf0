package baseline

import (
	"fmt"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/schedkit/schedkit"
	"github.com/schedkit/schedkit/internal/sim"
	"github.com/schedkit/schedkit/internal/workload"
	"github.com/schedkit/schedkit/resource"
)

var benchSlots = func() *resource.Space {
	s, err := resource.NewSpace(resource.MapSlot, resource.ReduceSlot)
	if err != nil {
		panic(err)
	}
	return s
}()

// queuedSetup is jobs MapReduce jobs (max(3, 300,000/jobs) maps of
// 20–200 s, 1 reduce)
// submitted at once to 10 nodes × (2 map + 2 reduce slots): the queue
// stays long for the whole measurement, and reduce slots are free while
// maps wait, the shape on which a scan visits every job.
func queuedSetup(jobs int) (sim.Config, *workload.Workload) {
	rng := rand.New(rand.NewPCG(uint64(jobs), 7))
	ns := make([]sim.NodeSpec, 10)
	for i := range ns {
		ns[i] = sim.NodeSpec{ID: schedkit.NodeID(fmt.Sprintf("n%d", i)), Rack: "r", Capacity: resource.Vector{2, 2}}
	}
	cfg := sim.DefaultConfig(benchSlots, ns)
	cfg.SampleInterval = 1000 * time.Hour
	w := &workload.Workload{}
	m, r := resource.Vector{1, 0}, resource.Vector{0, 1}
	for j := 0; j < jobs; j++ {
		js := workload.JobSpec{ID: fmt.Sprintf("j%06d", j), Class: fmt.Sprintf("c%d", j%3)}
		var maps, reds workload.PhaseSpec
		for x := 0; x < max(3, 300000/jobs); x++ {
			d := time.Duration(20+rng.IntN(180)) * time.Second
			maps.Tasks = append(maps.Tasks, workload.TaskSpec{Requested: m, Profile: []workload.Stage{{Duration: d, Demand: m}}})
		}
		reds.Tasks = []workload.TaskSpec{{Requested: r, Profile: []workload.Stage{{Duration: 30 * time.Second, Demand: r}}}}
		js.Phases = []workload.PhaseSpec{maps, reds}
		w.Jobs = append(w.Jobs, js)
	}
	return cfg, w
}

func benchPolicies() []func() sim.Policy {
	return []func() sim.Policy{
		func() sim.Policy { return NewFIFO() },
		func() sim.Policy { return NewEDF() },
		func() sim.Policy { return NewFair(FairConfig{}) },
		func() sim.Policy { return NewDRF(DRFConfig{}) },
		func() sim.Policy { return NewDRF(DRFConfig{Pools: true}) },
		func() sim.Policy {
			c, err := NewCapacity(CapacityConfig{})
			if err != nil {
				panic(err)
			}
			return c
		},
	}
}

// BenchmarkQueued measures one simulator event (heartbeats, task ends and
// the policy's decisions on them) with 100 to 100,000 jobs queued, for
// each baseline (index) and its naive full scan (scan) in the same run:
// the index's cost per event stays flat as the queue grows, the scan's
// grows with it (linearly for FIFO and EDF, quadratically for the share
// policies, whose scans stop at 1,000 jobs).
//
//	go test -run '^$' -bench Queued -benchtime 200ms ./internal/baseline
func BenchmarkQueued(b *testing.B) {
	queued := map[string]*sim.Sim{}
	for _, mk := range benchPolicies() {
		name := mk().Name()
		_, ordered := mk().(*FIFO)
		if _, edf := mk().(*EDF); edf {
			ordered = true
		}
		for _, jobs := range []int{100, 1000, 10000, 100000} {
			for _, impl := range []string{"index", "scan"} {
				// A share policy's scan is quadratic per heartbeat (each job
				// found blocked costs a rescan): past 1,000 jobs it runs for
				// hours.
				if impl == "scan" && !ordered && jobs > 1000 {
					continue
				}
				key := fmt.Sprintf("%s/jobs=%d/%s", name, jobs, impl)
				b.Run(key, func(b *testing.B) {
					// Built once per sub-benchmark, not per b.N round:
					// the run goes on from where the last round stopped.
					build := func() *sim.Sim {
						cfg, w := queuedSetup(jobs)
						p := mk()
						if impl == "scan" {
							p = newNaive(p)
						}
						s, err := sim.New(cfg, w, p)
						if err != nil {
							b.Fatal(err)
						}
						// Submit everything and fill the cluster first.
						for s.Elapsed() < time.Minute {
							if _, err := s.Step(); err != nil {
								b.Fatal(err)
							}
						}
						return s
					}
					s := queued[key]
					if s == nil {
						s = build()
						queued[key] = s
					}
					b.ReportAllocs()
					b.ResetTimer()
					for i := 0; i < b.N; i++ {
						more, err := s.Step()
						if err != nil {
							b.Fatal(err)
						}
						if !more { // the queue drained: start again, untimed
							b.StopTimer()
							s = build()
							queued[key] = s
							b.StartTimer()
						}
					}
					b.StopTimer()
					b.ReportMetric(float64(len(s.Cluster().Jobs())), "queued")
				})
				delete(queued, key)
			}
		}
	}
}
