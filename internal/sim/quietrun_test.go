package sim_test

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/schedkit/schedkit"
	"github.com/schedkit/schedkit/internal/sim"
	"github.com/schedkit/schedkit/internal/workload"
	"github.com/schedkit/schedkit/resource"
)

// skipper is greedy skipping the heartbeats of nodes that can take
// nothing; with hoard set it assigns only the tasks of jobs' last
// phases (reduces), which wait for the maps it never assigns: the nodes
// fill up with waiting tasks and the run stalls on quiet heartbeats.
type skipper struct {
	greedy
	hoard bool
}

func (*skipper) SkipFullNodes() bool { return true }

func (k *skipper) Heartbeat(now time.Time, n *sim.Node, c *sim.Cluster, dst []sim.Decision) ([]sim.Decision, error) {
	if !k.hoard {
		return k.greedy.Heartbeat(now, n, c, dst)
	}
	free := append(resource.Vector(nil), n.Available()...)
	for _, j := range c.Jobs() {
		p := schedkit.Phase(j.Phases() - 1)
		for _, t := range j.ReadyTasks(p, n, nil, j.Progress(p).Ready) {
			if ok, _ := t.Requested().Fits(free); ok {
				_ = free.Sub(t.Requested())
				dst = append(dst, sim.AssignTask(t, nil))
			}
		}
	}
	return dst, nil
}

// TestQuietRunMatchesStep: Run, which takes runs of quiet heartbeats
// without Step's dispatch, gives exactly what calling Step event by
// event gives (the record, every counter, the error), on random slot
// workloads, with and without a horizon that cuts the run and a stall
// limit that ends it, and on workloads that stall during quiet
// heartbeats; and quiet heartbeats and those stalls do occur.
func TestQuietRunMatchesStep(t *testing.T) {
	quiet, stalls := 0, 0
	for seed := uint64(1); seed <= 40; seed++ {
		hoard := seed > 30
		rng := rand.New(rand.NewPCG(seed, 17))
		var w workload.Workload
		submit := time.Duration(0)
		for i := range 4 + rng.IntN(12) {
			maps := make([]float64, 1+rng.IntN(8))
			reduces := make([]float64, rng.IntN(3))
			for k := range maps {
				maps[k] = float64(1 + rng.IntN(30))
			}
			for k := range reduces {
				reduces[k] = float64(1 + rng.IntN(20))
			}
			submit += time.Duration(rng.IntN(40)) * time.Second
			w.Jobs = append(w.Jobs, mrJob(fmt.Sprint("j", i), submit, durs(maps...), durs(reduces...)))
		}
		cfg := sim.DefaultConfig(slotSpace, slotNodes(1+rng.IntN(4), 1+rng.IntN(2), 1+rng.IntN(2)))
		if hoard {
			// reduces asking CPU and memory fill the nodes; the maps
			// would fit, but the policy never assigns them
			for i := range w.Jobs {
				for p := range w.Jobs[i].Phases {
					for x := range w.Jobs[i].Phases[p].Tasks {
						ts := &w.Jobs[i].Phases[p].Tasks[x]
						ts.Requested = resource.Vector{1, 2}
						ts.Profile[0].Demand = resource.Vector{1, 2}
					}
				}
			}
			cfg = sim.DefaultConfig(cpuMem, nodesOf(resource.Vector{2, 4}, resource.Vector{1, 2}))
			cfg.SlowStart = 0
			cfg.StallAfter = time.Duration(5+rng.IntN(60)) * time.Second
		}
		cfg.Seed = seed
		cfg.HeartbeatInterval = time.Duration(1+rng.IntN(3)) * time.Second
		cfg.MetricsInterval = cfg.HeartbeatInterval * time.Duration(1+rng.IntN(3))
		switch seed % 3 {
		case 1:
			cfg.Horizon = time.Duration(20+rng.IntN(200)) * time.Second
		case 2:
			cfg.StallAfter = time.Duration(1+rng.IntN(20)) * time.Second
		}
		type result struct {
			run   sim.Run
			stats sim.Stats
			err   string
		}
		play := func(step bool) result {
			s, err := sim.New(cfg, &w, &skipper{hoard: hoard})
			if err != nil {
				t.Fatal(err)
			}
			var r sim.Run
			if step {
				for {
					more, err := s.Step()
					if err != nil || !more {
						break
					}
				}
				r, err = s.Record(), s.Err()
			} else {
				r, err = s.Run()
			}
			if err != nil && !errors.Is(err, sim.ErrStalled) {
				t.Fatalf("seed %d: %v", seed, err)
			}
			r.DecisionTime = 0
			return result{r, s.Stats(), fmt.Sprint(err)}
		}
		byRun, byStep := play(false), play(true)
		quiet += byRun.stats.QuietHeartbeats
		if hoard && strings.Contains(byRun.err, "stall") {
			stalls++
		}
		if byRun.stats != byStep.stats || byRun.err != byStep.err {
			t.Fatalf("seed %d: Run %+v %s, Step %+v %s", seed, byRun.stats, byRun.err, byStep.stats, byStep.err)
		}
		if d := cmp.Diff(byStep.run, byRun.run); d != "" {
			t.Fatalf("seed %d: records differ (-Step +Run):\n%s", seed, d)
		}
	}
	if quiet == 0 || stalls == 0 {
		t.Fatalf("%d quiet heartbeats, %d stalls while quiet: the test tests too little", quiet, stalls)
	}
}
