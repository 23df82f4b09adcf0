package sim_test

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/schedkit/schedkit/internal/sim"
	"github.com/schedkit/schedkit/internal/workload"
)

// computingOnly is greedy that skips idle nodes and declares it assigns
// only computing phases; early breaks that word (it assigns reduces as
// soon as slow-start makes them ready).
type computingOnly struct {
	greedy
	early bool
}

func (c *computingOnly) SkipFullNodes() bool              { return true }
func (c *computingOnly) AssignsComputingPhasesOnly() bool { return true }

func (c *computingOnly) Heartbeat(now time.Time, n *sim.Node, cl *sim.Cluster, dst []sim.Decision) ([]sim.Decision, error) {
	if c.early {
		return c.greedy.Heartbeat(now, n, cl, dst)
	}
	// greedy's choices less the tasks of waiting phases (reduces ask
	// reduce slots only, so dropping them frees nothing a map could use).
	out, err := c.greedy.Heartbeat(now, n, cl, dst)
	kept := out[:len(dst)]
	for _, d := range out[len(dst):] {
		if d.Task.Owner().PhaseComputes(d.Task.Phase()) {
			kept = append(kept, d)
		}
	}
	return kept, err
}

// TestComputingPhaseAssigner: with the declaration, the idle test
// counts only computing phases' ready tasks: more heartbeats are
// skipped, the run is identical to delivering every heartbeat, and the
// simulator's counters hold after every event; a policy that assigns a
// waiting phase's task after declaring is refused.
func TestComputingPhaseAssigner(t *testing.T) {
	quiet := 0
	for seed := uint64(1); seed <= 6; seed++ {
		rng := rand.New(rand.NewPCG(seed, 5))
		var w workload.Workload
		submit := time.Duration(0)
		for i := range 12 {
			maps := make([]float64, 1+rng.IntN(6))
			reduces := make([]float64, 1+rng.IntN(3))
			for k := range maps {
				maps[k] = float64(1 + rng.IntN(30))
			}
			for k := range reduces {
				reduces[k] = float64(1 + rng.IntN(20))
			}
			submit += time.Duration(rng.IntN(8)) * time.Second
			w.Jobs = append(w.Jobs, mrJob(fmt.Sprint("j", i), submit, durs(maps...), durs(reduces...)))
		}
		cfg := sim.DefaultConfig(slotSpace, slotNodes(1+rng.IntN(3), 2, 2))
		cfg.Seed = seed
		cfg.RecordTasks = true
		run := func(deliver bool) (sim.Run, sim.Stats) {
			t.Helper()
			cfg := cfg
			cfg.DeliverFullHeartbeats = deliver
			cfg.AfterEvent = func(s *sim.Sim) error { return s.CheckInvariants() }
			s, err := sim.New(cfg, &w, &computingOnly{})
			if err != nil {
				t.Fatal(err)
			}
			r, err := s.Run()
			if err != nil {
				t.Fatalf("seed %d: %v", seed, err)
			}
			return r, s.Stats()
		}
		rq, sq := run(false)
		rd, sd := run(true)
		quiet += int(sq.QuietHeartbeats)
		if got := sq.Delivered(); got != sd {
			t.Fatalf("seed %d: stats %+v quiet, %+v delivered", seed, got, sd)
		}
		rq.DecisionTime, rd.DecisionTime, rq.Decisions, rd.Decisions, rq.TimedCalls, rd.TimedCalls = 0, 0, 0, 0, 0, 0
		if d := cmp.Diff(rd, rq); d != "" {
			t.Fatalf("seed %d: runs differ (-delivered +quiet):\n%s", seed, d)
		}
	}
	if quiet == 0 {
		t.Fatal("no heartbeat skipped: the test tests nothing")
	}

	w := &workload.Workload{Jobs: []workload.JobSpec{mrJob("a", 0, durs(10, 10, 10, 10), durs(5))}}
	s, err := sim.New(sim.DefaultConfig(slotSpace, slotNodes(1, 1, 1)), w, &computingOnly{early: true})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.Run(); !errors.Is(err, sim.ErrInvalidDecision) {
		t.Fatalf("early reduce under the declaration: err %v, want ErrInvalidDecision", err)
	}
}
