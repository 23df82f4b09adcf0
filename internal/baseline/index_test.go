package baseline

import (
	"fmt"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/schedkit/schedkit"
	"github.com/schedkit/schedkit/internal/sim"
	"github.com/schedkit/schedkit/internal/workload"
	"github.com/schedkit/schedkit/resource"
)

var cpuMemSpace = func() *resource.Space {
	s, err := resource.NewSpace(resource.CPU, resource.Memory)
	if err != nil {
		panic(err)
	}
	return s
}()

func indexPolicies(t testing.TB) []sim.Policy {
	c, err := NewCapacity(CapacityConfig{Shares: map[string]float64{"c0": 2, "c1": 1}, Max: map[string]float64{"c2": 0.5}})
	if err != nil {
		t.Fatal(err)
	}
	c2, err := NewCapacity(CapacityConfig{})
	if err != nil {
		t.Fatal(err)
	}
	return []sim.Policy{
		NewFIFO(), NewEDF(),
		NewFair(FairConfig{}), NewFair(FairConfig{Pools: true}), NewFair(FairConfig{Kind: "memory"}),
		NewFair(FairConfig{Kind: "memory", Pools: true}),
		NewDRF(DRFConfig{}), NewDRF(DRFConfig{Pools: true}), c, c2,
	}
}

// indexSetup is a random multi-phase workload on a random cluster; with
// mixed set, some phases' tasks ask differently (scanned, not indexed),
// and nodes go down and up.
func indexSetup(seed uint64, mixed bool) (sim.Config, *workload.Workload) {
	rng := rand.New(rand.NewPCG(seed, 9))
	n := 1 + rng.IntN(6)
	ns := make([]sim.NodeSpec, n)
	for i := range ns {
		ns[i] = sim.NodeSpec{ID: schedkit.NodeID(fmt.Sprintf("n%d", i)), Rack: "r", Capacity: resource.Vector{float64(2 + rng.IntN(8)), float64(4 + rng.IntN(16))}}
	}
	cfg := sim.DefaultConfig(cpuMemSpace, ns)
	cfg.Seed = seed
	cfg.SlowStart = rng.Float64()
	if mixed && n > 1 {
		cfg.NodeEvents = []sim.NodeEvent{{At: 40 * time.Second, Node: 0, Up: false}, {At: 200 * time.Second, Node: 0, Up: true}}
	}
	w := &workload.Workload{}
	var at time.Duration
	for j := 0; j < 40; j++ {
		at += time.Duration(rng.IntN(20)) * time.Second
		js := workload.JobSpec{ID: fmt.Sprintf("j%02d", j), Class: fmt.Sprintf("c%d", rng.IntN(3)), Submit: at}
		if rng.IntN(2) == 0 {
			js.Deadline = time.Duration(60+rng.IntN(600)) * time.Second
		}
		for p := 0; p < 1+rng.IntN(3); p++ {
			var ph workload.PhaseSpec
			req := resource.Vector{float64(1 + rng.IntN(2)), float64(1 + rng.IntN(4))}
			odd := mixed && rng.IntN(4) == 0
			for x := 0; x < 1+rng.IntN(8); x++ {
				r := req
				if odd {
					r = resource.Vector{float64(1 + rng.IntN(2)), float64(1 + rng.IntN(4))}
				}
				ts := workload.TaskSpec{Requested: r, Profile: []workload.Stage{{Duration: time.Duration(1+rng.IntN(60)) * time.Second, Demand: resource.Vector{r[0] * rng.Float64(), r[1] * rng.Float64()}}}}
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

func runPolicy(t *testing.T, cfg sim.Config, w *workload.Workload, p sim.Policy) (sim.Run, sim.Stats) {
	t.Helper()
	s, err := sim.New(cfg, w, p)
	if err != nil {
		t.Fatal(err)
	}
	r, err := s.Run()
	if err != nil {
		t.Fatalf("%s: %v", p.Name(), err)
	}
	return r, s.Stats()
}

// TestIndexMatchesScan: every indexed baseline makes exactly the
// decisions of its naive full-scan reference, on random workloads with
// uniform and mixed phases and node churn.
func TestIndexMatchesScan(t *testing.T) {
	for seed := uint64(1); seed <= 20; seed++ {
		mixed := seed%2 == 0
		for i := range indexPolicies(t) {
			cfg, w := indexSetup(seed, mixed)
			fast := indexPolicies(t)[i]
			naive := newNaive(indexPolicies(t)[i])
			rf, sf, ef := runBoth(cfg, w, fast)
			rn, sn, en := runBoth(cfg, w, naive)
			if fmt.Sprint(ef) != fmt.Sprint(en) {
				t.Fatalf("seed %d %s: error %v, scan %v", seed, fast.Name(), ef, en)
			}
			if d := cmp.Diff(rn.Jobs, rf.Jobs); d != "" {
				t.Fatalf("seed %d %s: jobs differ from the scan (-scan +index):\n%s", seed, fast.Name(), d)
			}
			if sf.Delivered() != sn {
				t.Fatalf("seed %d %s: stats %+v, scan %+v", seed, fast.Name(), sf, sn)
			}
		}
	}
}

func TestGroupSums(t *testing.T) {
	checkHook = func(s *sharer, c *sim.Cluster) {
		type sum struct {
			n [schedkit.MaxPhases]int
		}
		want := map[*group]*sum{}
		for _, j := range c.Jobs() {
			e := s.idx.entry(j)
			if e == nil || e.g == nil {
				continue
			}
			w := want[e.g]
			if w == nil {
				w = &sum{}
				want[e.g] = w
			}
			for p := 0; p < j.Phases(); p++ {
				w.n[p] += j.Progress(schedkit.Phase(p)).Running
			}
		}
		for g, w := range want {
			if g.count != w.n {
				t.Fatalf("group counts %v, want %v", g.count, w.n)
			}
		}
	}
	defer func() { checkHook = nil }()
	cfg, w := indexSetup(1, false)
	runPolicy(t, cfg, w, NewFair(FairConfig{Pools: true}))
}

// runBoth runs p; a stall (a workload whose reduces, started early, hold
// what its maps need) is an outcome to compare, not a failure.
func runBoth(cfg sim.Config, w *workload.Workload, p sim.Policy) (sim.Run, sim.Stats, error) {
	s, err := sim.New(cfg, w, p)
	if err != nil {
		return sim.Run{}, sim.Stats{}, err
	}
	r, err := s.Run()
	return r, s.Stats(), err
}
