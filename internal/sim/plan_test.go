package sim_test

import (
	"testing"
	"time"

	"github.com/schedkit/schedkit/internal/sim"
	"github.com/schedkit/schedkit/internal/workload"
	"github.com/schedkit/schedkit/resource"
)

// A plan follows the task's progress, not the wall clock: a task
// demanding 2 CPUs for 10 s, planned at 1 CPU for its first 5 s of work
// and 2 CPUs after, does those 5 s in 10 s of wall time under Limits
// (pace 1/2), then the rest at full speed: 15 s in all. Cost at 1 per
// CPU-second: 1·10 + 2·5 = 20. Under Shares the idle node lets it run at
// full speed: the step ends at 5 s, the task at 10 s; cost 1·5 + 2·5 = 15.
func TestPlanFollowsProgress(t *testing.T) {
	for _, tc := range []struct {
		mode      sim.Enforcement
		end       time.Duration
		cost      float64
		stepAfter time.Duration
	}{
		{sim.Limits, 15 * time.Second, 20, 10 * time.Second},
		{sim.Shares, 10 * time.Second, 15, 5 * time.Second},
	} {
		t.Run(tc.mode.String(), func(t *testing.T) {
			cfg := sim.DefaultConfig(cpuMem, nodesOf(resource.Vector{4, 8}))
			cfg.Enforcement = tc.mode
			cfg.Prices = resource.Vector{1, 0}
			cfg.RecordTasks = true
			w := &workload.Workload{Jobs: []workload.JobSpec{oneTask("a", 0, resource.Vector{2, 1}, st(10*time.Second, 2, 1))}}
			var cpu []float64 // allocation at each second
			cfg.AfterEvent = func(s *sim.Sim) error {
				if a := s.Job(0).Task(0, 0).Allocation(); a != nil {
					cpu = append(cpu, a[0])
				}
				return s.CheckInvariants()
			}
			p := &scripted{steps: []step{{at: 0, do: func(c *sim.Cluster, n *sim.Node) []sim.Decision {
				return []sim.Decision{{Kind: sim.Assign, Task: c.Job("a").Task(0, 0), Plan: []sim.AllocStep{
					{Duration: 5 * time.Second, Alloc: resource.Vector{1, 1}}, {Alloc: resource.Vector{2, 1}}}}}
			}}}}
			s, err := sim.New(cfg, w, p)
			if err != nil {
				t.Fatal(err)
			}
			run, err := s.Run()
			if err != nil {
				t.Fatal(err)
			}
			if got := run.Jobs[0].Finish; got != tc.end {
				t.Errorf("finished at %v, want %v", got, tc.end)
			}
			if got := run.Jobs[0].Cost; got < tc.cost-1e-9 || got > tc.cost+1e-9 {
				t.Errorf("cost %v, want %v", got, tc.cost)
			}
			r := run.Tasks[0]
			wantAlloc := tc.cost / (tc.end.Seconds()) // price 1: cost/duration is the mean CPU
			if r.Alloc[0] < wantAlloc-1e-9 || r.Alloc[0] > wantAlloc+1e-9 || r.Cost != run.Jobs[0].Cost {
				t.Errorf("record %+v, want mean CPU %v and the job's cost", r, wantAlloc)
			}
		})
	}
}

// Every step of a plan must fit the node's free capacity when assigned:
// a later step over the free memory makes the assignment invalid.
func TestPlanCheckedAtAssignment(t *testing.T) {
	cfg := sim.DefaultConfig(cpuMem, nodesOf(resource.Vector{4, 8}))
	w := &workload.Workload{Jobs: []workload.JobSpec{oneTask("a", 0, resource.Vector{1, 1}, st(10*time.Second, 1, 1))}}
	p := &scripted{steps: []step{
		{at: 0, do: func(c *sim.Cluster, n *sim.Node) []sim.Decision {
			return []sim.Decision{{Kind: sim.Assign, Task: c.Job("a").Task(0, 0), Plan: []sim.AllocStep{
				{Duration: 5 * time.Second, Alloc: resource.Vector{1, 1}}, {Alloc: resource.Vector{1, 9}}}}}
		}},
		{at: 3 * time.Second, do: func(c *sim.Cluster, n *sim.Node) []sim.Decision {
			return []sim.Decision{sim.AssignTask(c.Job("a").Task(0, 0), nil)}
		}},
	}}
	s, err := sim.New(cfg, w, p)
	if err != nil {
		t.Fatal(err)
	}
	run, err := s.Run()
	if err == nil || s.Stats().Invalid != 1 {
		t.Fatalf("err %v, %d invalid; want the plan refused", err, s.Stats().Invalid)
	}
	if run.Jobs[0].Start != 3*time.Second {
		t.Errorf("started at %v, want 3s (the plain assignment)", run.Jobs[0].Start)
	}
}

// A plan within free capacity whose true usage later over-commits
// memory is a wrong estimate, not an invalid decision: the task fails,
// is retried (counted), and the run goes on. Node: 8 GB. b holds 4 GB
// for 100 s. a is planned at 2 GB but truly uses 2 GB for 5 s, then
// 6 GB: at 5 s usage is 10 > 8 and a, the most recently started, fails.
// Its retry asks for its peak (6 GB), which fits once b ends at 100 s.
func TestPlanTrueUsageOvercommit(t *testing.T) {
	cfg := sim.DefaultConfig(cpuMem, nodesOf(resource.Vector{4, 8}))
	cfg.RecordTasks = true
	cfg.HeartbeatInterval = time.Second
	w := &workload.Workload{Jobs: []workload.JobSpec{
		oneTask("b", 0, resource.Vector{1, 4}, st(100*time.Second, 1, 4)),
		oneTask("a", time.Second, resource.Vector{1, 6}, st(5*time.Second, 1, 2), st(5*time.Second, 1, 6)),
	}}
	p := &planner{}
	run, s := runChecked(t, cfg, w, p)
	st := s.Stats()
	if st.Failed != 1 || st.Retried != 1 || st.Invalid != 0 {
		t.Errorf("stats %+v, want 1 failed, 1 retried, 0 invalid", st)
	}
	if run.FailedTasks != 1 || run.Jobs[1].Outcome != sim.Completed || run.Jobs[1].Finish != 110*time.Second {
		t.Errorf("a: %+v (failed tasks %d), want completed at 110s after one failure", run.Jobs[1], run.FailedTasks)
	}
	var outcomes []sim.TaskOutcome
	for _, r := range run.Tasks {
		if r.Job == "a" {
			outcomes = append(outcomes, r.Outcome)
		}
	}
	if len(outcomes) != 2 || outcomes[0] != sim.TaskFailed || outcomes[1] != sim.TaskSucceeded {
		t.Errorf("a's attempts ended %v, want [failed succeeded]", outcomes)
	}
}

// planner assigns first attempts with a plan at 2 GB, retries at the
// request; b at its request.
type planner struct{ greedy }

func (p *planner) Heartbeat(now time.Time, n *sim.Node, c *sim.Cluster, dst []sim.Decision) ([]sim.Decision, error) {
	for _, j := range c.Jobs() {
		for _, t := range j.ReadyTasks(0, n, nil, 1) {
			r := t.Requested()
			if j.ID() == "a" && t.Attempts() == 0 {
				r = resource.Vector{1, 2}
				dst = append(dst, sim.Decision{Kind: sim.Assign, Task: t, Plan: []sim.AllocStep{{Duration: time.Hour, Alloc: r}}})
				continue
			}
			if fitCount(r, n.Available()) > 0 {
				dst = append(dst, sim.AssignTask(t, nil))
			}
		}
	}
	return dst, nil
}
