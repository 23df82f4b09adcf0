package policy

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
	"time"

	"github.com/schedkit/schedkit/internal/baseline"
	"github.com/schedkit/schedkit/internal/sim"
	"github.com/schedkit/schedkit/internal/workload"
	"github.com/schedkit/schedkit/resource"
)

// On one worker × (2 map + 1 reduce), heartbeats at 1, 4, 7, ... s and
// whenever a task ends: A (submitted 1 s, deadline +15 s, six 10 s maps)
// holds both map slots under FIFO; B (2 s, deadline +200 s, two 10 s
// maps) waits. A's deadline is 16 s; the first heartbeat after it is at
// 19 s, when A's second wave (started at 11 s) still runs: A is dropped
// at 19 s and B takes both slots then, finishing at 29 s. Plain FIFO runs
// A to 31 s and B to 41 s.
func TestDropAtDeadlineScenario(t *testing.T) {
	jobs := func() *workload.Workload {
		return &workload.Workload{Name: "drop", Jobs: []workload.JobSpec{
			slotJob(t, "A", "a", time.Second, 15*time.Second, secs(10, 10, 10, 10, 10, 10), nil),
			slotJob(t, "B", "b", 2*time.Second, 200*time.Second, secs(10, 10), nil),
		}}
	}
	pol := DropAtDeadline(baseline.NewFIFO())
	if pol.Name() != "FIFO-drop" {
		t.Errorf("name %q", pol.Name())
	}
	s, run := simulate(t, oneNode(t), jobs(), pol)
	a, b := run.Jobs[0], run.Jobs[1]
	if a.Outcome != sim.Killed || a.Finish != 19*time.Second {
		t.Errorf("A: %v at %v, want killed at 19s", a.Outcome, a.Finish)
	}
	if r := s.KillReason(0); !strings.Contains(r, "FIFO-drop: deadline passed 3s ago") {
		t.Errorf("reason %q", r)
	}
	if b.Outcome != sim.Completed || b.Finish != 29*time.Second {
		t.Errorf("B: %v at %v, want completed at 29s", b.Outcome, b.Finish)
	}
	_, plain := simulate(t, oneNode(t), jobs(), baseline.NewFIFO())
	if a, b := plain.Jobs[0], plain.Jobs[1]; a.Outcome != sim.Completed || a.Finish != 31*time.Second || b.Finish != 41*time.Second {
		t.Errorf("plain FIFO: A %v at %v, B at %v; want A completed at 31s, B at 41s", a.Outcome, a.Finish, b.Finish)
	}
}

// Property: on random workloads, with the simulator's invariants checked
// after every event and no invalid decision, no job stays active past
// its deadline plus one heartbeat interval, no job is ended before its
// deadline or without one, and no job completes later than one heartbeat
// interval past its deadline.
func TestDropAtDeadlineProperty(t *testing.T) {
	kills, completed := 0, 0
	for seed := range uint64(8) {
		for _, inner := range []func() sim.Policy{
			func() sim.Policy { return baseline.NewFIFO() },
			func() sim.Policy { return baseline.NewEDF() },
			func() sim.Policy { return baseline.NewFair(baseline.FairConfig{}) },
		} {
			rng := rand.New(rand.NewPCG(seed, 7))
			w := &workload.Workload{Name: "random"}
			for i := range 12 {
				maps := make([]float64, 1+rng.IntN(6))
				for k := range maps {
					maps[k] = float64(1 + rng.IntN(20))
				}
				var reds []float64
				if rng.IntN(2) == 0 {
					reds = []float64{float64(1 + rng.IntN(10))}
				}
				dl := time.Duration(5+rng.IntN(60)) * time.Second
				if rng.IntN(5) == 0 {
					dl = 0 // no deadline
				}
				w.Jobs = append(w.Jobs, slotJob(t, fmt.Sprintf("J%02d", i), "c", time.Duration(1+3*i)*time.Second, dl, secs(maps...), secs(reds...)))
			}
			cfg := slotCluster(t, 2, 2, 1)
			hb := cfg.HeartbeatInterval
			check := cfg.AfterEvent
			cfg.AfterEvent = func(s *sim.Sim) error {
				if err := (*sim.Sim).CheckInvariants(s); err != nil {
					return err
				}
				now := s.Now()
				for i := range s.Jobs() {
					j := s.Job(i)
					if dl := j.Deadline(); j.Active() && !dl.IsZero() && now.Sub(dl) > hb {
						return fmt.Errorf("job %s active at %v, deadline %v", j.ID(), now, dl)
					}
				}
				if check != nil {
					return check(s)
				}
				return nil
			}
			pol := DropAtDeadline(inner())
			_, run := simulate(t, cfg, w, pol)
			for _, j := range run.Jobs {
				switch j.Outcome {
				case sim.Killed:
					kills++
				case sim.Completed:
					completed++
				}
				switch {
				case j.Outcome == sim.Killed && (j.Deadline == 0 || j.Finish-j.Submit <= j.Deadline):
					t.Errorf("seed %d %s: %s killed at %v, deadline %v after submit %v", seed, pol.Name(), j.ID, j.Finish, j.Deadline, j.Submit)
				case j.Outcome == sim.Completed && j.Deadline > 0 && j.Finish-j.Submit > j.Deadline+hb:
					t.Errorf("seed %d %s: %s completed %v after its deadline", seed, pol.Name(), j.ID, j.Finish-j.Submit-j.Deadline)
				}
			}
		}
	}
	if kills == 0 || completed == 0 {
		t.Errorf("%d kills, %d completions: the workloads test nothing", kills, completed)
	}
	t.Logf("%d kills, %d completions", kills, completed)
}

// The wrapper shows the simulator exactly the optional interfaces the
// inner policy has among Ticker and UsageWatcher.
func TestDropAtDeadlineInterfaces(t *testing.T) {
	for _, c := range []struct {
		inner       sim.Policy
		tick, usage bool
	}{
		{baseline.NewFIFO(), false, false},
		{tickPolicy{baseline.NewFIFO()}, true, false},
		{usagePolicy{baseline.NewFIFO()}, false, true},
		{tickUsagePolicy{}, true, true},
	} {
		p := DropAtDeadline(c.inner)
		_, tick := p.(sim.Ticker)
		_, usage := p.(sim.UsageWatcher)
		_, jw := p.(sim.JobWatcher)
		if tick != c.tick || usage != c.usage || !jw {
			t.Errorf("%T: ticker %v usage %v job watcher %v", c.inner, tick, usage, jw)
		}
	}
}

type tickPolicy struct{ *baseline.FIFO }

func (tickPolicy) Tick(_ time.Time, _ *sim.Cluster, dst []sim.Decision) ([]sim.Decision, error) {
	return dst, nil
}

type usagePolicy struct{ *baseline.FIFO }

func (usagePolicy) TaskSampled(time.Time, *sim.Task, resource.Vector) error { return nil }
func (usagePolicy) NodeSampled(time.Time, *sim.Node, resource.Vector) error { return nil }

var _ sim.UsageWatcher = usagePolicy{}

type tickUsagePolicy struct {
	tickPolicy
	usagePolicy
}

func (tickUsagePolicy) Name() string { return "tick+usage" }
func (tickUsagePolicy) Submit(time.Time, *sim.Job) error {
	return nil
}
func (tickUsagePolicy) Heartbeat(_ time.Time, _ *sim.Node, _ *sim.Cluster, dst []sim.Decision) ([]sim.Decision, error) {
	return dst, nil
}
