package policy_test

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/schedkit/schedkit"
	"github.com/schedkit/schedkit/estimate"
	"github.com/schedkit/schedkit/fgm"
	"github.com/schedkit/schedkit/internal/metrics"
	"github.com/schedkit/schedkit/internal/policy"
	"github.com/schedkit/schedkit/internal/sim"
	"github.com/schedkit/schedkit/internal/workload"
)

func paper004(t *testing.T, workers int) sim.Config {
	t.Helper()
	cs, err := workload.Paper004Cluster(workers)
	if err != nil {
		t.Fatal(err)
	}
	nodes := make([]sim.NodeSpec, workers)
	for i := range nodes {
		nodes[i] = sim.NodeSpec{ID: schedkit.NodeID(fmt.Sprintf("n%02d", i)), Rack: "r", Capacity: cs.Capacity.Clone()}
	}
	cfg := sim.DefaultConfig(cs.Space, nodes)
	cfg.HeartbeatInterval = time.Second
	cfg.TickInterval = 10 * time.Second
	cfg.RecordTasks = true
	cfg.AfterEvent = (*sim.Sim).CheckInvariants
	return cfg
}

func newFGM(t *testing.T, cfg *sim.Config, opt policy.FGMConfig) *policy.FGM {
	t.Helper()
	p, err := policy.NewFGM(cfg, opt)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// NewFGM refuses what it cannot run with.
func TestFGMPolicyConfig(t *testing.T) {
	if _, err := policy.NewFGM(nil, policy.FGMConfig{}); !errors.Is(err, policy.ErrConfig) {
		t.Errorf("nil config: %v", err)
	}
	cfg := paper004(t, 2)
	for _, opt := range []policy.FGMConfig{
		{Scheduler: fgm.Config{IdleThreshold: 2}},
		{History: estimate.HistoryConfig{Smoothing: -1}},
	} {
		if _, err := policy.NewFGM(&cfg, opt); !errors.Is(err, policy.ErrConfig) {
			t.Errorf("%+v: %v", opt, err)
		}
	}
}

// runFGM runs w under p to the end (run: a policy error fails the test).
func runFGM(t *testing.T, cfg sim.Config, w *workload.Workload, p *policy.FGM) sim.Run {
	t.Helper()
	return runPolicy(t, cfg, w, p)
}

// runPolicy is runFGM with sp (an FGM adapter or a wrapper of one) as
// the simulator's policy.
func runPolicy(t *testing.T, cfg sim.Config, w *workload.Workload, sp sim.Policy) sim.Run {
	t.Helper()
	s, err := sim.New(cfg, w, sp)
	if err != nil {
		t.Fatal(err)
	}
	return run(t, s)
}

// fgm runs the paper-004 offline mix to completion on a small cluster
// with the simulator's invariants checked after every event: every job
// completes, no decision is invalid, and after the first similar tasks
// finish the rest are matched fine-grained from learned estimates.
func TestFGMPolicyOffline(t *testing.T) {
	w, err := workload.Paper004Offline(0.03, rand.New(rand.NewPCG(1, 4)))
	if err != nil {
		t.Fatal(err)
	}
	cfg := paper004(t, 4)
	p := newFGM(t, &cfg, policy.FGMConfig{Scheduler: fgm.Config{CapAtRequest: true}})
	rec := runFGM(t, cfg, &w, p)
	sum := metrics.Summarize(rec)
	if sum.Completed != sum.Jobs {
		t.Errorf("completed %d of %d", sum.Completed, sum.Jobs)
	}
	if p.Modes[fgm.FineGrained] == 0 || p.Modes[fgm.Requested] == 0 {
		t.Errorf("modes %v: want both learned and requested placements", p.Modes)
	}
	if len(p.Predictions()) != p.Modes[fgm.FineGrained]+p.Modes[fgm.CoarseGrained] {
		t.Errorf("%d predictions for %v", len(p.Predictions()), p.Modes)
	}
}

// With oracle estimates every task is predictable from the start.
func TestFGMPolicyOracle(t *testing.T) {
	w, err := workload.Paper004Offline(0.03, rand.New(rand.NewPCG(1, 4)))
	if err != nil {
		t.Fatal(err)
	}
	cfg := paper004(t, 4)
	p := newFGM(t, &cfg, policy.FGMConfig{Scheduler: fgm.Config{CapAtRequest: true}, Oracle: &w})
	rec := runFGM(t, cfg, &w, p)
	if p.Modes[fgm.Requested] != 0 {
		t.Errorf("oracle left tasks unpredictable: %v", p.Modes)
	}
	if s := metrics.Summarize(rec); s.Completed != s.Jobs {
		t.Errorf("completed %d of %d", s.Completed, s.Jobs)
	}
}

// Under foreign background load (the cloud setup) the run completes and
// the invariants hold; reclaimed tasks (if any) are preempted and rerun.
func TestFGMPolicyCloud(t *testing.T) {
	w, steps, err := workload.Paper004Cloud(12, 4, rand.New(rand.NewPCG(2, 4)))
	if err != nil {
		t.Fatal(err)
	}
	cfg := paper004(t, 4)
	for _, s := range steps {
		cfg.Background = append(cfg.Background, sim.BackgroundStep{At: s.At, Node: s.Node, Demand: s.Demand})
	}
	p := newFGM(t, &cfg, policy.FGMConfig{Scheduler: fgm.Config{CapAtRequest: true}})
	rec := runFGM(t, cfg, &w, p)
	if s := metrics.Summarize(rec); s.Completed+s.Failed != s.Jobs {
		t.Errorf("%d completed, %d failed of %d", s.Completed, s.Failed, s.Jobs)
	}
}
