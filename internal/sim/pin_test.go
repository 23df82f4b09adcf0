package sim_test

import (
	"errors"
	"math"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/schedkit/schedkit/internal/sim"
	"github.com/schedkit/schedkit/internal/workload"
	"github.com/schedkit/schedkit/resource"
)

// pinSetup: a0 and a1 have one unit of the offload kind "acc" each, n2
// has none. Jobs a, b, c have one task each demanding 1 acc for 10 s.
func pinSetup() (sim.Config, *workload.Workload) {
	space := mustSpace(resource.CPU, resource.Kind{Name: "acc", Compressible: true})
	cfg := sim.DefaultConfig(space, nodesOf(resource.Vector{2, 1}, resource.Vector{2, 1}, resource.Vector{2, 0}))
	cfg.OffloadKinds = []string{"acc"}
	cfg.HeartbeatInterval = time.Second
	w := &workload.Workload{Jobs: []workload.JobSpec{
		oneTask("a", 0, resource.Vector{1, 1}, st(10*time.Second, 1, 1)),
		oneTask("b", 0, resource.Vector{1, 1}, st(10*time.Second, 1, 1)),
		oneTask("c", 0, resource.Vector{1, 1}, st(10*time.Second, 1, 1)),
	}}
	return cfg, w
}

// finishSec is each job's finish time in seconds (rounded to µs).
func finishSec(s *sim.Sim) []float64 {
	var out []float64
	for _, j := range s.Record().Jobs {
		out = append(out, math.Round(j.Finish.Seconds()*1e6)/1e6)
	}
	return out
}

// A pinned task stays on its target when its node is rebound. t=0: n2
// bound to a1; a on a0, b on n2 (follows the binding: a1), c on n2 pinned
// to a0. a and c share a0 at rate 1/2; b runs alone on a1. t=4: n2 is
// unbound: b (4 s done) stalls, c does not notice. t=6: n2 bound to a1
// again: b's remaining 6 s end at 12. a and c: 10 s at rate 1/2, done at 20.
// Task.Host, read from Config.Profile, names the serving node at start.
func TestPinnedSurvivesRebind(t *testing.T) {
	cfg, w := pinSetup()
	hosts := map[string]string{}
	cfg.Profile = func(tk *sim.Task, n *sim.Node) []workload.Stage {
		h := "-"
		if tk.Host() != nil {
			h = string(tk.Host().ID())
		}
		hosts[string(tk.ID())] = h
		return w.Jobs[0].Phases[0].Tasks[0].Profile
	}
	p := &scripted{steps: []step{
		{at: 0, do: func(c *sim.Cluster, _ *sim.Node) []sim.Decision {
			a0, a1, n2 := c.NodeByIndex(0), c.NodeByIndex(1), c.NodeByIndex(2)
			pinned := sim.AssignTask(c.Job("c").Task(0, 0), n2)
			pinned.Target = a0
			return []sim.Decision{sim.BindNode(n2, a1), sim.AssignTask(c.Job("a").Task(0, 0), a0),
				sim.AssignTask(c.Job("b").Task(0, 0), n2), pinned}
		}},
		{at: 4 * time.Second, do: func(c *sim.Cluster, _ *sim.Node) []sim.Decision {
			return []sim.Decision{sim.BindNode(c.NodeByIndex(2), nil)}
		}},
		{at: 6 * time.Second, do: func(c *sim.Cluster, _ *sim.Node) []sim.Decision {
			return []sim.Decision{sim.BindNode(c.NodeByIndex(2), c.NodeByIndex(1))}
		}},
	}}
	_, s := runChecked(t, cfg, w, p)
	if d := cmp.Diff([]float64{20, 12, 20}, finishSec(s)); d != "" {
		t.Errorf("finish (-want +got):\n%s", d)
	}
	if d := cmp.Diff(map[string]string{"a/0/0": "-", "b/0/0": "n01", "c/0/0": "n00"}, hosts); d != "" {
		t.Errorf("hosts at start (-want +got):\n%s", d)
	}
}

// A pinned task's target going down fails it (Stats.Lost) and it is
// pending again. t=0: n2 bound to a0; a on a0, b on n2 (a0), c on n2
// pinned to a1. a and b share a0 at 1/2; c alone on a1. t=5: a1 goes down,
// c (5 s done) is lost. t=6: c again, pinned to a0: a and b have 3 s done,
// 7 left; three tasks at 1/3: a and b end at 6 + 21 = 27, c has 7 s done
// then and its last 3 s run alone: 30.
func TestPinnedTargetDown(t *testing.T) {
	cfg, w := pinSetup()
	cfg.NodeEvents = []sim.NodeEvent{{At: 5 * time.Second, Node: 1}}
	p := &scripted{steps: []step{
		{at: 0, do: func(c *sim.Cluster, _ *sim.Node) []sim.Decision {
			a0, a1, n2 := c.NodeByIndex(0), c.NodeByIndex(1), c.NodeByIndex(2)
			pinned := sim.AssignTask(c.Job("c").Task(0, 0), n2)
			pinned.Target = a1
			return []sim.Decision{sim.BindNode(n2, a0), sim.AssignTask(c.Job("a").Task(0, 0), a0),
				sim.AssignTask(c.Job("b").Task(0, 0), n2), pinned}
		}},
		{at: 6 * time.Second, do: func(c *sim.Cluster, _ *sim.Node) []sim.Decision {
			d := sim.AssignTask(c.Job("c").Task(0, 0), c.NodeByIndex(2))
			d.Target = c.NodeByIndex(0)
			return []sim.Decision{d}
		}},
	}}
	_, s := runChecked(t, cfg, w, p)
	if d := cmp.Diff([]float64{27, 27, 30}, finishSec(s)); d != "" {
		t.Errorf("finish (-want +got):\n%s", d)
	}
	if st := s.Stats(); st.Lost != 1 || st.Retried != 1 {
		t.Errorf("stats %+v, want 1 lost, 1 retried", st)
	}
	if d := cmp.Diff([]string{"t=5 c/0/0 failed", "t=27 a/0/0 succeeded", "t=27 b/0/0 succeeded", "t=30 c/0/0 succeeded"}, p.ended); d != "" {
		t.Errorf("task ends (-want +got):\n%s", d)
	}
}

// A Target that is down, or the node itself, is an invalid decision.
func TestPinInvalid(t *testing.T) {
	cfg, w := pinSetup()
	cfg.NodeEvents = []sim.NodeEvent{{At: 0, Node: 1}}
	cfg.StallAfter = 10 * time.Second
	p := &scripted{steps: []step{
		{at: time.Second, do: func(c *sim.Cluster, _ *sim.Node) []sim.Decision {
			a0, a1, n2 := c.NodeByIndex(0), c.NodeByIndex(1), c.NodeByIndex(2)
			self := sim.AssignTask(c.Job("a").Task(0, 0), n2)
			self.Target = n2
			down := sim.AssignTask(c.Job("b").Task(0, 0), n2)
			down.Target = a1
			ok := sim.AssignTask(c.Job("c").Task(0, 0), n2)
			ok.Target = a0
			return []sim.Decision{self, down, ok}
		}},
	}}
	s, err := sim.New(cfg, w, p)
	if err != nil {
		t.Fatal(err)
	}
	_, err = s.Run()
	var de *sim.DecisionError
	if !errors.As(err, &de) || de.Count != 2 {
		t.Fatalf("err = %v, want 2 invalid decisions", err)
	}
	if f := finishSec(s); f[2] != 11 {
		t.Errorf("pinned c finished at %vs, want 11", f[2])
	}
}
