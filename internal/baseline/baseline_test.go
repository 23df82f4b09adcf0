package baseline_test

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/schedkit/schedkit"
	"github.com/schedkit/schedkit/internal/baseline"
	"github.com/schedkit/schedkit/internal/sim"
	"github.com/schedkit/schedkit/internal/workload"
	"github.com/schedkit/schedkit/resource"
)

func mustSpace(kinds ...resource.Kind) *resource.Space {
	s, err := resource.NewSpace(kinds...)
	if err != nil {
		panic(err)
	}
	return s
}

var (
	slotSpace = mustSpace(resource.MapSlot, resource.ReduceSlot)
	cpuMem    = mustSpace(resource.CPU, resource.Memory)
)

func nodes(caps ...resource.Vector) []sim.NodeSpec {
	out := make([]sim.NodeSpec, len(caps))
	for i, c := range caps {
		out[i] = sim.NodeSpec{ID: schedkit.NodeID(fmt.Sprintf("n%d", i)), Rack: "r0", Capacity: c}
	}
	return out
}

// job returns a one-phase job of tasks requesting (and using) req for
// the given durations in seconds.
func job(id, class string, submit, deadline float64, req resource.Vector, secs ...float64) workload.JobSpec {
	j := workload.JobSpec{ID: id, Class: class, Submit: s(submit), Deadline: s(deadline)}
	var ph workload.PhaseSpec
	for _, d := range secs {
		ph.Tasks = append(ph.Tasks, workload.TaskSpec{Requested: req, Profile: []workload.Stage{{Duration: s(d), Demand: req}}})
	}
	j.Phases = []workload.PhaseSpec{ph}
	return j
}

func s(sec float64) time.Duration { return time.Duration(sec * float64(time.Second)) }

func repeat(x float64, n int) []float64 {
	out := make([]float64, n)
	for i := range out {
		out[i] = x
	}
	return out
}

// run simulates p with invariants checked after every event; heartbeats
// are rare so that only out-of-band ones (on task ends) matter.
func run(t *testing.T, space *resource.Space, ns []sim.NodeSpec, p sim.Policy, jobs ...workload.JobSpec) sim.Run {
	t.Helper()
	cfg := sim.DefaultConfig(space, ns)
	cfg.HeartbeatInterval = 1000 * time.Second
	cfg.AfterEvent = (*sim.Sim).CheckInvariants
	sm, err := sim.New(cfg, &workload.Workload{Jobs: jobs}, p)
	if err != nil {
		t.Fatal(err)
	}
	r, err := sm.Run()
	if err != nil {
		t.Fatal(err)
	}
	return r
}

func finishes(r sim.Run) map[string]float64 {
	out := map[string]float64{}
	for _, j := range r.Jobs {
		out[j.ID] = j.Finish.Seconds()
	}
	return out
}

// runningAt returns, per job, how many tasks run just after the first
// heartbeat at t=0.
func runningAt0(t *testing.T, space *resource.Space, ns []sim.NodeSpec, p sim.Policy, jobs ...workload.JobSpec) map[string]int {
	t.Helper()
	cfg := sim.DefaultConfig(space, ns)
	cfg.HeartbeatInterval = 1000 * time.Second
	sm, err := sim.New(cfg, &workload.Workload{Jobs: jobs}, p)
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]int{}
	for sm.Elapsed() == 0 {
		if _, err := sm.Step(); err != nil {
			t.Fatal(err)
		}
		if err := sm.CheckInvariants(); err != nil {
			t.Fatal(err)
		}
		for _, j := range sm.Cluster().Jobs() {
			out[string(j.ID())] = j.Progress(0).Running
		}
	}
	return out
}

// DRF on Ghodsi et al.'s example (NSDI 2011 §4): 9 CPUs and 18 GB; user A
// runs tasks of ⟨1 CPU, 4 GB⟩, user B tasks of ⟨3 CPUs, 1 GB⟩. Progressive
// filling, worked by hand (dominant shares in brackets):
//
//	A 0 = B 0, A first by ID → A ⟨1,4⟩   A 4/18 = .222
//	B 0 < .222            → B ⟨3,1⟩   B 3/9  = .333
//	A .222 < .333         → A         A 8/18 = .444
//	B .333 < .444         → B         B 6/9  = .667
//	A .444 < .667         → A         A 12/18 = .667
//	CPUs 3 + 6 = 9: nothing more fits.
//
// A runs 3 tasks ⟨3 CPUs, 12 GB⟩, B 2 tasks ⟨6 CPUs, 2 GB⟩: equal dominant
// shares of 2/3, as in the paper.
func TestDRFGhodsiExample(t *testing.T) {
	got := runningAt0(t, cpuMem, nodes(resource.Vector{9, 18}), baseline.NewDRF(baseline.DRFConfig{}),
		job("A", "", 0, 0, resource.Vector{1, 4}, repeat(100, 10)...),
		job("B", "", 0, 0, resource.Vector{3, 1}, repeat(100, 10)...),
	)
	if d := cmp.Diff(map[string]int{"A": 3, "B": 2}, got); d != "" {
		t.Errorf("DRF allocation (-want +got):\n%s", d)
	}
	// FIFO on the same cluster gives A everything it can: 4 tasks use
	// 16 GB; B's ⟨3,1⟩ then fits (4+3 CPUs, 17 GB), then nothing more.
	got = runningAt0(t, cpuMem, nodes(resource.Vector{9, 18}), baseline.NewFIFO(),
		job("A", "", 0, 0, resource.Vector{1, 4}, repeat(100, 10)...),
		job("B", "", 0, 0, resource.Vector{3, 1}, repeat(100, 10)...),
	)
	if d := cmp.Diff(map[string]int{"A": 4, "B": 1}, got); d != "" {
		t.Errorf("FIFO allocation (-want +got):\n%s", d)
	}
}

// FIFO serves submission order, ties by ID, one job at a time on one slot:
// b and a are submitted together (b first in the workload), c later.
//
//	t=0  a (ID before b) starts its 10 s task
//	t=10 b starts (5 s)
//	t=15 c starts (1 s), t=16 done
func TestFIFOOrderAndTies(t *testing.T) {
	slot := resource.Vector{1, 0}
	r := run(t, slotSpace, nodes(resource.Vector{1, 0}), baseline.NewFIFO(),
		job("b", "", 0, 0, slot, 5),
		job("a", "", 0, 0, slot, 10),
		job("c", "", 1, 0, slot, 1),
	)
	if d := cmp.Diff(map[string]float64{"a": 10, "b": 15, "c": 16}, finishes(r)); d != "" {
		t.Errorf("finish times (-want +got):\n%s", d)
	}
}

// EDF: earliest deadline first, jobs without one last. One slot, 10 s
// tasks, all submitted at 0: z (deadline 50) then y (100) then x (none).
func TestEDFOrder(t *testing.T) {
	slot := resource.Vector{1, 0}
	r := run(t, slotSpace, nodes(resource.Vector{1, 0}), baseline.NewEDF(),
		job("x", "", 0, 0, slot, 10),
		job("y", "", 0, 100, slot, 10),
		job("z", "", 0, 50, slot, 10),
	)
	if d := cmp.Diff(map[string]float64{"z": 10, "y": 20, "x": 30}, finishes(r)); d != "" {
		t.Errorf("finish times (-want +got):\n%s", d)
	}
}

// Fair against FIFO on one node with 4 map slots. A (t=0) has maps of
// 10, 20, 30, 40 and 4×100 s; B (t=1) 8×100 s. Freed slots go to the job
// with fewer running maps:
//
//	t=10 A 3 running, B 0 → B    t=20 A 2, B 1 → B
//	t=30 A 1, B 2 → A (to 130)   t=40 → A (to 140)
//	t=110, 120 → B; t=130, 140 → A (to 230, 240): A ends at 240
//	B's last four start at 210, 220, 230, 240: B ends at 340.
//
// FIFO gives A every freed slot until its maps run out: A ends at 140, B
// at 340.
func TestFairAgainstFIFO(t *testing.T) {
	slot := resource.Vector{1, 0}
	a := job("A", "", 0, 0, slot, 10, 20, 30, 40, 100, 100, 100, 100)
	b := job("B", "", 1, 0, slot, repeat(100, 8)...)
	n := nodes(resource.Vector{4, 0})
	if d := cmp.Diff(map[string]float64{"A": 240, "B": 340}, finishes(run(t, slotSpace, n, baseline.NewFair(baseline.FairConfig{}), a, b))); d != "" {
		t.Errorf("Fair (-want +got):\n%s", d)
	}
	if d := cmp.Diff(map[string]float64{"A": 140, "B": 340}, finishes(run(t, slotSpace, n, baseline.NewFIFO(), a, b))); d != "" {
		t.Errorf("FIFO (-want +got):\n%s", d)
	}
}

// Pools: A alone in pool x; B, C, D in pool y; 4 slots. Per job, max-min
// gives one slot each. Per pool, worked by hand (pool count, job count):
//
//	x 0 = y 0, A before B → A    x 1 > y 0 → B
//	x 1 = y 1: A has 1, C has 0 → C    x 1 < y 2 → A
//
// A 2, B 1, C 1, D 0.
func TestFairPools(t *testing.T) {
	slot := resource.Vector{1, 0}
	jobs := []workload.JobSpec{
		job("A", "x", 0, 0, slot, repeat(100, 4)...),
		job("B", "y", 0, 0, slot, repeat(100, 4)...),
		job("C", "y", 0, 0, slot, repeat(100, 4)...),
		job("D", "y", 0, 0, slot, repeat(100, 4)...),
	}
	n := nodes(resource.Vector{4, 0})
	if d := cmp.Diff(map[string]int{"A": 1, "B": 1, "C": 1, "D": 1}, runningAt0(t, slotSpace, n, baseline.NewFair(baseline.FairConfig{}), jobs...)); d != "" {
		t.Errorf("per job (-want +got):\n%s", d)
	}
	if d := cmp.Diff(map[string]int{"A": 2, "B": 1, "C": 1, "D": 0}, runningAt0(t, slotSpace, n, baseline.NewFair(baseline.FairConfig{Pools: true}), jobs...)); d != "" {
		t.Errorf("per pool (-want +got):\n%s", d)
	}
	// Sharing memory instead of task counts (YARN FairSharePolicy): A's
	// tasks take ⟨1 CPU, 4 GB⟩, B's ⟨1, 1⟩, on 8 CPUs and 16 GB. By memory
	// held: A (tie, ID) 4 GB; B ×4 up to 4 GB; A (tie, ID) 8 GB; B ×2 to
	// 6 GB; the 8 CPUs are then all taken: A 2, B 6.
	got := runningAt0(t, cpuMem, nodes(resource.Vector{8, 16}), baseline.NewFair(baseline.FairConfig{Kind: "memory"}),
		job("A", "", 0, 0, resource.Vector{1, 4}, repeat(100, 10)...),
		job("B", "", 0, 0, resource.Vector{1, 1}, repeat(100, 10)...),
	)
	if d := cmp.Diff(map[string]int{"A": 2, "B": 6}, got); d != "" {
		t.Errorf("memory share (-want +got):\n%s", d)
	}
}

// Capacity: q1 guaranteed 3 parts, q2 1 part; 4 map slots. Queue keys are
// dominant share ÷ weight:
//
//	q1 0 = q2 0, a before b → a (q1 .25/3 = .083)   q2 0 → b (q2 .25)
//	q1 .083 → a (.167)   q1 .167 → a (.25 = q2 .25, a first)
//
// a 3, b 1: the guarantees. With q2 idle, q1 borrows all 4; capped at
// half the cluster it gets 2.
func TestCapacity(t *testing.T) {
	slot := resource.Vector{1, 0}
	n := nodes(resource.Vector{4, 0})
	a := job("a", "q1", 0, 0, slot, repeat(100, 8)...)
	b := job("b", "q2", 0, 0, slot, repeat(100, 8)...)
	pol := func(cfg baseline.CapacityConfig) *baseline.Capacity {
		c, err := baseline.NewCapacity(cfg)
		if err != nil {
			t.Fatal(err)
		}
		return c
	}
	shares := map[string]float64{"q1": 3, "q2": 1}
	if d := cmp.Diff(map[string]int{"a": 3, "b": 1}, runningAt0(t, slotSpace, n, pol(baseline.CapacityConfig{Shares: shares}), a, b)); d != "" {
		t.Errorf("guarantees (-want +got):\n%s", d)
	}
	if d := cmp.Diff(map[string]int{"a": 4}, runningAt0(t, slotSpace, n, pol(baseline.CapacityConfig{Shares: shares}), a)); d != "" {
		t.Errorf("lending (-want +got):\n%s", d)
	}
	if d := cmp.Diff(map[string]int{"a": 2}, runningAt0(t, slotSpace, n, pol(baseline.CapacityConfig{Shares: shares, Max: map[string]float64{"q1": 0.5}}), a)); d != "" {
		t.Errorf("max share (-want +got):\n%s", d)
	}
}

func TestCapacityConfigErrors(t *testing.T) {
	for _, cfg := range []baseline.CapacityConfig{
		{Shares: map[string]float64{"q": 0}},
		{Shares: map[string]float64{"q": -1}},
		{Default: -1},
		{Max: map[string]float64{"q": 1.5}},
		{Max: map[string]float64{"q": 0}},
	} {
		if _, err := baseline.NewCapacity(cfg); !errors.Is(err, baseline.ErrConfig) {
			t.Errorf("%+v: err = %v, want ErrConfig", cfg, err)
		}
	}
}

// Locality: a job's second task has its data on n1. Whichever node
// heartbeats first, n1 gets that task and n0 the first.
func TestLocality(t *testing.T) {
	for _, seed := range []uint64{1, 2, 3, 4} {
		j := job("a", "", 0, 0, resource.Vector{1, 0}, 10, 10)
		j.Phases[0].Tasks[1].Locations = []int{1}
		cfg := sim.DefaultConfig(slotSpace, nodes(resource.Vector{1, 0}, resource.Vector{1, 0}))
		cfg.Seed = seed
		placed := map[string]string{}
		cfg.AfterEvent = func(sm *sim.Sim) error {
			jb := sm.Job(0)
			for i := 0; i < 2; i++ {
				if tk := jb.Task(0, i); tk.Node() != nil {
					placed[string(tk.ID())] = string(tk.Node().ID())
				}
			}
			return sm.CheckInvariants()
		}
		sm, err := sim.New(cfg, &workload.Workload{Jobs: []workload.JobSpec{j}}, baseline.NewFIFO())
		if err != nil {
			t.Fatal(err)
		}
		if _, err := sm.Run(); err != nil {
			t.Fatal(err)
		}
		if d := cmp.Diff(map[string]string{"a/0/0": "n0", "a/0/1": "n1"}, placed); d != "" {
			t.Errorf("seed %d placement (-want +got):\n%s", seed, d)
		}
	}
}

// Every baseline, on random multi-phase workloads on random clusters,
// with invariants after every event: every decision valid (the batch
// accounting is exact), every job completes.
func TestBaselinesProperty(t *testing.T) {
	seeds := 30
	if testing.Short() {
		seeds = 8
	}
	for seed := uint64(1); seed <= uint64(seeds); seed++ {
		for _, p := range allPolicies(t) {
			cfg, w := randomSetup(seed)
			cfg.AfterEvent = (*sim.Sim).CheckInvariants
			sm, err := sim.New(cfg, w, p)
			if err != nil {
				t.Fatal(err)
			}
			r, err := sm.Run()
			if err != nil {
				t.Fatalf("seed %d %s: %v", seed, p.Name(), err)
			}
			for _, j := range r.Jobs {
				if j.Outcome != sim.Completed {
					t.Fatalf("seed %d %s: job %s %v", seed, p.Name(), j.ID, j.Outcome)
				}
			}
			if err := r.Validate(); err != nil {
				t.Fatalf("seed %d %s: %v", seed, p.Name(), err)
			}
		}
	}
}

func allPolicies(t testing.TB) []sim.Policy {
	c, err := baseline.NewCapacity(baseline.CapacityConfig{Shares: map[string]float64{"c0": 2, "c1": 1}})
	if err != nil {
		t.Fatal(err)
	}
	return []sim.Policy{
		baseline.NewFIFO(), baseline.NewEDF(),
		baseline.NewFair(baseline.FairConfig{}), baseline.NewFair(baseline.FairConfig{Pools: true}),
		baseline.NewFair(baseline.FairConfig{Kind: "memory"}),
		baseline.NewDRF(baseline.DRFConfig{}), baseline.NewDRF(baseline.DRFConfig{Pools: true}),
		c,
	}
}

func randomSetup(seed uint64) (sim.Config, *workload.Workload) {
	rng := rand.New(rand.NewPCG(seed, 3))
	n := 1 + rng.IntN(5)
	ns := make([]sim.NodeSpec, n)
	for i := range ns {
		ns[i] = sim.NodeSpec{ID: schedkit.NodeID(fmt.Sprintf("n%d", i)), Rack: "r", Capacity: resource.Vector{float64(2 + rng.IntN(8)), float64(4 + rng.IntN(16))}}
	}
	cfg := sim.DefaultConfig(cpuMem, ns)
	cfg.Seed = seed
	cfg.SlowStart = rng.Float64()
	w := &workload.Workload{}
	var at time.Duration
	for j := 0; j < 15; j++ {
		at += time.Duration(rng.IntN(30)) * time.Second
		js := workload.JobSpec{ID: fmt.Sprintf("j%02d", j), Class: fmt.Sprintf("c%d", rng.IntN(3)), Submit: at}
		if rng.IntN(2) == 0 {
			js.Deadline = time.Duration(60+rng.IntN(600)) * time.Second
		}
		for p := 0; p < 1+rng.IntN(3); p++ {
			var ph workload.PhaseSpec
			req := resource.Vector{float64(1 + rng.IntN(2)), float64(1 + rng.IntN(4))}
			for x := 0; x < 1+rng.IntN(6); x++ {
				ts := workload.TaskSpec{Requested: req, Profile: []workload.Stage{{Duration: time.Duration(1+rng.IntN(60)) * time.Second, Demand: resource.Vector{req[0] * rng.Float64() * 1.5, req[1] * rng.Float64()}}}}
				if rng.IntN(2) == 0 {
					ts.Locations = []int{rng.IntN(n)}
				}
				ph.Tasks = append(ph.Tasks, ts)
			}
			js.Phases = append(js.Phases, ph)
		}
		w.Jobs = append(w.Jobs, js)
	}
	return cfg, w
}
