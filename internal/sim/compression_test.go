package sim_test

import (
	"fmt"
	"math"
	"testing"
	"time"

	"github.com/schedkit/schedkit/internal/sim"
	"github.com/schedkit/schedkit/internal/workload"
	"github.com/schedkit/schedkit/resource"
)

// The worked example of the package doc: a task with 10 s of CPU work
// (demanding 2 CPUs) given half its CPU demand (1 CPU) on an idle node
// with 4 CPUs takes 20 s under Limits (formula (4), rc = 1 − 1/2) and
// 10 s under Shares (it uses the idle CPU beyond its allocation).
func ExampleEnforcement() {
	space, _ := resource.NewSpace(resource.CPU, resource.Memory)
	nodes := []sim.NodeSpec{{ID: "w1", Rack: "r1", Capacity: resource.Vector{4, 8}}}
	w := workload.Workload{Jobs: []workload.JobSpec{{ID: "a", Phases: []workload.PhaseSpec{{Tasks: []workload.TaskSpec{{
		Requested: resource.Vector{1, 1}, // half its CPU demand
		Profile:   []workload.Stage{{Duration: 10 * time.Second, Demand: resource.Vector{2, 1}}},
	}}}}}}}
	for _, e := range []sim.Enforcement{sim.Limits, sim.Shares} {
		cfg := sim.DefaultConfig(space, nodes)
		cfg.Enforcement = e
		s, _ := sim.New(cfg, &w, &firstFitAll{})
		run, err := s.Run()
		if err != nil {
			fmt.Println(err)
			return
		}
		fmt.Printf("%s: %v\n", e, run.Jobs[0].Finish-run.Jobs[0].Start)
	}
	// Output:
	// limits: 20s
	// shares: 10s
}

// firstFitAll assigns every ready task of every job at its request on
// the heartbeating node while its request fits.
type firstFitAll struct{ greedy }

// A lone task on an idle node: under Limits it runs at the slowest
// min(1, a/d) over the compressible kinds it demands (formula (4), no
// penalty: the node is not contended); under Shares at full speed.
func TestCompressionLoneTask(t *testing.T) {
	space := mustSpace(resource.CPU, resource.DiskBandwidth, resource.Memory)
	cases := []struct {
		alloc, demand resource.Vector
		limits        time.Duration // Shares is always 10 s
	}{
		{resource.Vector{2, 2, 1}, resource.Vector{2, 2, 1}, 10 * time.Second},
		{resource.Vector{4, 4, 1}, resource.Vector{2, 2, 1}, 10 * time.Second},   // over-allocated: no faster
		{resource.Vector{1, 2, 1}, resource.Vector{2, 2, 1}, 20 * time.Second},   // CPU halved
		{resource.Vector{1, 0.5, 1}, resource.Vector{2, 2, 1}, 40 * time.Second}, // disk at 1/4 sets the pace
		{resource.Vector{1, 0, 1}, resource.Vector{2, 0, 1}, 20 * time.Second},   // no disk demand: unaffected
	}
	for _, tc := range cases {
		for _, e := range []sim.Enforcement{sim.Limits, sim.Shares} {
			t.Run(fmt.Sprintf("%v/%v", tc.alloc, e), func(t *testing.T) {
				cfg := sim.DefaultConfig(space, nodesOf(resource.Vector{8, 8, 8}))
				cfg.Enforcement = e
				cfg.Penalty = 0.5 // must not apply: nothing is contended
				w := &workload.Workload{Jobs: []workload.JobSpec{oneTask("a", 0, tc.alloc, st(10*time.Second, tc.demand...))}}
				run, _ := runChecked(t, cfg, w, &greedy{})
				want := tc.limits
				if e == sim.Shares {
					want = 10 * time.Second
				}
				if got := run.Jobs[0].Finish - run.Jobs[0].Start; got != want {
					t.Errorf("took %v, want %v", got, want)
				}
			})
		}
	}
}

// Under Limits a task's capped load is what contends: a greedy task
// (demand 10 CPUs, given 1) does not slow a well-behaved neighbour
// (demand 3, given 3) on a 4-CPU node; under Shares it does, by formula
// (5) over the whole true demand 13: rc = 9/13.
func TestCompressionNeighbour(t *testing.T) {
	for _, tc := range []struct {
		mode sim.Enforcement
		want float64 // seconds for the well-behaved task
	}{
		{sim.Limits, 10},
		{sim.Shares, 10 * 13.0 / 4},
	} {
		t.Run(tc.mode.String(), func(t *testing.T) {
			cfg := sim.DefaultConfig(cpuMem, nodesOf(resource.Vector{4, 8}))
			cfg.Enforcement = tc.mode
			w := &workload.Workload{Jobs: []workload.JobSpec{
				oneTask("good", 0, resource.Vector{3, 1}, st(10*time.Second, 3, 1)),
				oneTask("greedy", 0, resource.Vector{1, 1}, st(100*time.Second, 10, 1)),
			}}
			run, _ := runChecked(t, cfg, w, &greedy{})
			got := (run.Jobs[0].Finish - run.Jobs[0].Start).Seconds()
			if math.Abs(got-tc.want) > 1e-6 {
				t.Errorf("good task took %vs, want %vs", got, tc.want)
			}
		})
	}
}
