package sim_test

import (
	"errors"
	"math"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	"github.com/schedkit/schedkit"
	"github.com/schedkit/schedkit/internal/sim"
	"github.com/schedkit/schedkit/internal/workload"
	"github.com/schedkit/schedkit/resource"
)

func oneTask(id string, submit time.Duration, req resource.Vector, stages ...workload.Stage) workload.JobSpec {
	return workload.JobSpec{ID: id, Submit: submit, Phases: []workload.PhaseSpec{{Tasks: []workload.TaskSpec{task(req, stages...)}}}}
}

// Background load contends like a task: 4 CPUs, background demand 2 from
// t=0, a task demanding 4 for 10 s: total 6 > 4, rc = 1/3, rate 2/3 (p =
// 0): 15 s. When the background stops at t=6 (4 s of work done), the
// remaining 6 s run at full speed: done at 12.
func TestBackgroundLoad(t *testing.T) {
	for _, tc := range []struct {
		steps  []sim.BackgroundStep
		finish float64
	}{
		{[]sim.BackgroundStep{{At: 0, Node: 0, Demand: resource.Vector{2, 0}}}, 15},
		{[]sim.BackgroundStep{{At: 0, Node: 0, Demand: resource.Vector{2, 0}}, {At: 6 * time.Second, Node: 0, Demand: resource.Vector{0, 0}}}, 12},
	} {
		cfg := sim.DefaultConfig(cpuMem, nodesOf(resource.Vector{4, 8}))
		cfg.Background = tc.steps
		w := &workload.Workload{Jobs: []workload.JobSpec{oneTask("a", 0, resource.Vector{4, 1}, st(10*time.Second, 4, 1))}}
		run, _ := runChecked(t, cfg, w, &greedy{})
		if got := math.Round(run.Jobs[0].Finish.Seconds()*1e6) / 1e6; got != tc.finish {
			t.Errorf("finish %v, want %v", got, tc.finish)
		}
	}
	// Background memory over-commits: a task using 6 of 8 GB fails when
	// the background takes 4 GB at t=2, and runs again once it leaves.
	cfg := sim.DefaultConfig(cpuMem, nodesOf(resource.Vector{4, 8}))
	cfg.HeartbeatInterval = time.Second
	cfg.Background = []sim.BackgroundStep{{At: 2 * time.Second, Node: 0, Demand: resource.Vector{0, 4}}, {At: 5 * time.Second, Node: 0, Demand: resource.Vector{0, 0}}}
	w := &workload.Workload{Jobs: []workload.JobSpec{oneTask("a", 0, resource.Vector{1, 6}, st(10*time.Second, 1, 6))}}
	p := &watch{Policy: &greedy{}}
	run, _ := runChecked(t, cfg, w, p)
	// t=2 fails; the greedy policy re-places it at each heartbeat (t=2
	// out of band, 3, 4) and it fails at once while the background holds
	// 4 GB: that is 4 failures, the job's last attempt.
	if run.Jobs[0].Outcome != sim.Failed || run.FailedTasks != 4 {
		t.Errorf("outcome %v, failed %d; ended %v", run.Jobs[0].Outcome, run.FailedTasks, p.ended)
	}
}

// A plan changes the node's allocation over time: 8 GB node, a task
// planned at 6 GB for 5 s then 2 GB. A second task asking 4 GB does not
// fit before t=5 and fits after.
func TestAllocationPlan(t *testing.T) {
	w := &workload.Workload{Jobs: []workload.JobSpec{
		oneTask("a", 0, resource.Vector{1, 6}, st(20*time.Second, 1, 2)),
		oneTask("b", 0, resource.Vector{1, 4}, st(10*time.Second, 1, 4)),
	}}
	cfg := sim.DefaultConfig(cpuMem, nodesOf(resource.Vector{4, 8}))
	cfg.HeartbeatInterval = time.Second
	var avail []float64
	cfg.AfterEvent = func(s *sim.Sim) error {
		if s.Elapsed() == 5*time.Second || s.Elapsed() == 4*time.Second {
			avail = append(avail, s.Cluster().LiveNode(0).Available()[1])
		}
		return s.CheckInvariants()
	}
	p := &scripted{steps: []step{
		{at: 0, do: func(c *sim.Cluster, n *sim.Node) []sim.Decision {
			return []sim.Decision{{Kind: sim.Assign, Task: c.Job("a").Task(0, 0), Plan: []sim.AllocStep{
				{Duration: 5 * time.Second, Alloc: resource.Vector{1, 6}}, {Alloc: resource.Vector{1, 2}}}}}
		}},
		{at: 5 * time.Second, do: func(c *sim.Cluster, n *sim.Node) []sim.Decision {
			return []sim.Decision{sim.AssignTask(c.Job("b").Task(0, 0), nil)}
		}},
	}}
	s, err := sim.New(cfg, w, p)
	if err != nil {
		t.Fatal(err)
	}
	run, err := s.Run()
	if err != nil {
		t.Fatal(err)
	}
	if avail[0] != 2 || avail[len(avail)-1] != 2 { // 8−6 at t=4; at t=5 after b: 8−2−4
		t.Errorf("available memory at t=4, t=5: %v", avail)
	}
	if run.Jobs[1].Start != 5*time.Second || run.Jobs[1].Finish != 15*time.Second {
		t.Errorf("b %+v", run.Jobs[1])
	}
}

// Offload: n1 has no accelerator kind and is bound to n0, which has one
// unit. A task on n1 demanding 1 unit for 10 s shares n0's accelerator
// with a task on n0 demanding 1: rc = 1/2 on n0, both run at 1/2: 20 s.
// Unbound, the n1 task makes no progress; the run stalls until bound.
func TestOffloadBinding(t *testing.T) {
	space := mustSpace(resource.CPU, resource.Kind{Name: "acc", Compressible: true})
	mk := func() *workload.Workload {
		return &workload.Workload{Jobs: []workload.JobSpec{
			oneTask("a", 0, resource.Vector{1, 1}, st(10*time.Second, 1, 1)),
			oneTask("b", 0, resource.Vector{1, 1}, st(10*time.Second, 1, 1)),
		}}
	}
	cfg := sim.DefaultConfig(space, nodesOf(resource.Vector{2, 1}, resource.Vector{2, 0}))
	cfg.OffloadKinds = []string{"acc"}
	cfg.HeartbeatInterval = time.Hour
	place := func(bind bool) func(c *sim.Cluster, n *sim.Node) []sim.Decision {
		return func(c *sim.Cluster, n *sim.Node) []sim.Decision {
			n0, n1 := c.NodeByIndex(0), c.NodeByIndex(1)
			d := []sim.Decision{sim.AssignTask(c.Job("a").Task(0, 0), n0), sim.AssignTask(c.Job("b").Task(0, 0), n1)}
			if bind {
				d = append([]sim.Decision{sim.BindNode(n1, n0)}, d...)
			}
			return d
		}
	}
	run, _ := runChecked(t, cfg, mk(), &scripted{steps: []step{{at: 0, do: place(true)}}})
	if d := cmp.Diff([]float64{20, 20}, []float64{run.Jobs[0].Finish.Seconds(), run.Jobs[1].Finish.Seconds()}); d != "" {
		t.Errorf("bound (-want +got):\n%s", d)
	}
	cfg.StallAfter = time.Minute
	s, err := sim.New(cfg, mk(), &scripted{steps: []step{{at: 0, do: place(false)}}})
	if err != nil {
		t.Fatal(err)
	}
	run, err = s.Run()
	if !errors.Is(err, sim.ErrStalled) || run.Jobs[1].Outcome != sim.Unfinished || run.Jobs[0].Finish != 10*time.Second {
		t.Errorf("unbound: err %v, jobs %+v", err, run.Jobs)
	}
}

// NodeWatcher hears every node at t=0 and each change; a node going down
// fails its tasks (retried elsewhere) and unbinds the nodes bound to it.
func TestNodeEvents(t *testing.T) {
	w := &workload.Workload{Jobs: []workload.JobSpec{mrJob("a", 0, durs(10, 10), nil)}}
	cfg := sim.DefaultConfig(slotSpace, slotNodes(2, 1, 0))
	cfg.HeartbeatInterval = time.Second
	cfg.NodeEvents = []sim.NodeEvent{{At: 4 * time.Second, Node: 1}, {At: 30 * time.Second, Node: 1, Up: true}}
	p := &nodeWatch{greedy: &greedy{}}
	run, s := runChecked(t, cfg, w, p)
	// The maps start at the nodes' first heartbeats, t=0 and t=0.5 (the
	// stagger; which node goes first depends on the seed). n01 dies at 4:
	// its map is lost and restarts on n00 when n00's map ends, 10 s after
	// it started: done at 20 or 20.5.
	if f := run.Jobs[0].Finish; (f != 20*time.Second && f != 20500*time.Millisecond) || s.Stats().Lost != 1 || run.RetriedTasks != 1 {
		t.Errorf("finish %v, stats %+v", run.Jobs[0].Finish, s.Stats())
	}
	want := []string{"n00 up", "n01 up", "n01 down"}
	if d := cmp.Diff(want, p.events); d != "" {
		t.Errorf("node events (-want +got):\n%s", d)
	}
}

type nodeWatch struct {
	*greedy
	events []string
}

func (w *nodeWatch) NodeChanged(now time.Time, n *sim.Node, up bool, c *sim.Cluster, dst []sim.Decision) ([]sim.Decision, error) {
	s := " down"
	if up {
		s = " up"
	}
	w.events = append(w.events, string(n.ID())+s)
	return dst, nil
}

// Horizon: jobs not ended by it are Unfinished.
func TestHorizon(t *testing.T) {
	w := &workload.Workload{Jobs: []workload.JobSpec{mrJob("a", 0, durs(10), nil), mrJob("b", 0, durs(100), nil), mrJob("c", 50*time.Second, durs(1), nil)}}
	cfg := sim.DefaultConfig(slotSpace, slotNodes(1, 2, 0))
	cfg.Horizon = 30 * time.Second
	run, _ := runChecked(t, cfg, w, &greedy{})
	got := []sim.Outcome{run.Jobs[0].Outcome, run.Jobs[1].Outcome, run.Jobs[2].Outcome}
	if d := cmp.Diff([]sim.Outcome{sim.Completed, sim.Unfinished, sim.Unfinished}, got); d != "" || run.End != 30*time.Second {
		t.Errorf("outcomes (-want +got):\n%s end %v", d, run.End)
	}
	if err := run.Validate(); err != nil {
		t.Error(err)
	}
}

// A policy that never assigns stalls the run; the error says so.
func TestStall(t *testing.T) {
	w := &workload.Workload{Jobs: []workload.JobSpec{mrJob("a", 0, durs(10), nil)}}
	cfg := sim.DefaultConfig(slotSpace, slotNodes(1, 1, 0))
	s, err := sim.New(cfg, w, &scripted{})
	if err != nil {
		t.Fatal(err)
	}
	run, err := s.Run()
	if !errors.Is(err, sim.ErrStalled) || run.Jobs[0].Outcome != sim.Unfinished {
		t.Fatalf("err %v, job %+v", err, run.Jobs[0])
	}
	if _, err := s.Run(); !errors.Is(err, sim.ErrDone) {
		t.Errorf("second Run: %v", err)
	}
}

type rejectAll struct{ greedy }

func (rejectAll) Submit(time.Time, *sim.Job) error { return sim.Reject("full") }

// Rejection at submission: outcome Rejected, checked against the
// deadline by the optimistic rule (alone: 10 s from t=0 on 1 slot).
func TestReject(t *testing.T) {
	a := mrJob("a", 0, durs(10), nil)
	a.Deadline = 20 * time.Second
	b := mrJob("b", 0, durs(10, 10, 10), nil)
	b.Deadline = 20 * time.Second // three 10 s waves on one slot: 30 s
	run, s := runChecked(t, sim.DefaultConfig(slotSpace, slotNodes(1, 1, 0)), &workload.Workload{Jobs: []workload.JobSpec{a, b}}, &rejectAll{})
	want := []span{{ID: "a", Outcome: sim.Rejected, Could: true, Checked: true}, {ID: "b", Outcome: sim.Rejected, Checked: true}}
	if d := cmp.Diff(want, spans(run)); d != "" {
		t.Errorf("(-want +got):\n%s", d)
	}
	if s.KillReason(0) != "full" || s.Stats().RejectedJobs != 2 {
		t.Errorf("reason %q stats %+v", s.KillReason(0), s.Stats())
	}
}

func TestConfigErrors(t *testing.T) {
	good := func() sim.Config { return sim.DefaultConfig(slotSpace, slotNodes(2, 1, 1)) }
	w := &workload.Workload{Jobs: []workload.JobSpec{mrJob("a", 0, durs(1), nil)}}
	for name, mut := range map[string]func(*sim.Config){
		"nil space":       func(c *sim.Config) { c.Space = nil },
		"no nodes":        func(c *sim.Config) { c.Nodes = nil },
		"empty node ID":   func(c *sim.Config) { c.Nodes[0].ID = "" },
		"duplicate node":  func(c *sim.Config) { c.Nodes[1].ID = c.Nodes[0].ID },
		"empty rack":      func(c *sim.Config) { c.Nodes[0].Rack = "" },
		"short capacity":  func(c *sim.Config) { c.Nodes[0].Capacity = resource.Vector{1} },
		"NaN capacity":    func(c *sim.Config) { c.Nodes[0].Capacity = resource.Vector{math.NaN(), 1} },
		"half slot":       func(c *sim.Config) { c.Nodes[0].Capacity = resource.Vector{1.5, 1} },
		"negative speed":  func(c *sim.Config) { c.Nodes[0].Speed = -1 },
		"bad accelerator": func(c *sim.Config) { c.Nodes[0].Accelerators = []schedkit.AcceleratorInfo{{}} },
		"slow-start > 1":  func(c *sim.Config) { c.SlowStart = 1.5 },
		"NaN penalty":     func(c *sim.Config) { c.Penalty = math.NaN() },
		"negative hb":     func(c *sim.Config) { c.HeartbeatInterval = -1 },
		"hb overflow":     func(c *sim.Config) { c.HeartbeatInterval = math.MaxInt64 / 2 }, // stagger node·interval
		"negative horiz":  func(c *sim.Config) { c.Horizon = -1 },
		"bg node":         func(c *sim.Config) { c.Background = []sim.BackgroundStep{{Node: 5, Demand: resource.Vector{0, 0}}} },
		"bg demand":       func(c *sim.Config) { c.Background = []sim.BackgroundStep{{Demand: resource.Vector{-1, 0}}} },
		"node event":      func(c *sim.Config) { c.NodeEvents = []sim.NodeEvent{{Node: -1}} },
		"offload kind":    func(c *sim.Config) { c.OffloadKinds = []string{"nope"} },
		"offload incomp":  func(c *sim.Config) { c.OffloadKinds = []string{"map-slot"} },
		"prices":          func(c *sim.Config) { c.Prices = resource.Vector{1} },
		"max attempts":    func(c *sim.Config) { c.MaxAttempts = -1 },
	} {
		c := good()
		c.Nodes = append([]sim.NodeSpec(nil), c.Nodes...)
		mut(&c)
		_, err := sim.New(c, w, &greedy{})
		var ce *sim.ConfigError
		if !errors.Is(err, sim.ErrConfig) || !errors.As(err, &ce) {
			t.Errorf("%s: err = %v", name, err)
		}
	}
	if _, err := sim.New(good(), w, nil); !errors.Is(err, sim.ErrConfig) {
		t.Errorf("nil policy: %v", err)
	}
}

func TestWorkloadErrors(t *testing.T) {
	cfg := sim.DefaultConfig(slotSpace, slotNodes(2, 1, 1))
	bad := func(mut func(*workload.Workload)) *workload.Workload {
		w := &workload.Workload{Jobs: []workload.JobSpec{mrJob("a", 0, durs(1), durs(1)), mrJob("b", time.Second, durs(1), nil)}}
		mut(w)
		return w
	}
	for name, w := range map[string]*workload.Workload{
		"nil":           nil,
		"empty ID":      bad(func(w *workload.Workload) { w.Jobs[0].ID = "" }),
		"duplicate ID":  bad(func(w *workload.Workload) { w.Jobs[1].ID = "a" }),
		"out of order":  bad(func(w *workload.Workload) { w.Jobs[0].Submit = time.Hour }),
		"neg deadline":  bad(func(w *workload.Workload) { w.Jobs[0].Deadline = -1 }),
		"no phases":     bad(func(w *workload.Workload) { w.Jobs[0].Phases = nil }),
		"no tasks":      bad(func(w *workload.Workload) { w.Jobs[1].Phases[0].Tasks = nil }),
		"short request": bad(func(w *workload.Workload) { w.Jobs[0].Phases[0].Tasks[0].Requested = resource.Vector{1} }),
		"too big":       bad(func(w *workload.Workload) { w.Jobs[0].Phases[0].Tasks[0].Requested = resource.Vector{2, 0} }),
		"neg stage":     bad(func(w *workload.Workload) { w.Jobs[0].Phases[0].Tasks[0].Profile[0].Duration = -1 }),
		"short demand":  bad(func(w *workload.Workload) { w.Jobs[0].Phases[0].Tasks[0].Profile[0].Demand = resource.Vector{} }),
		"NaN demand": bad(func(w *workload.Workload) {
			w.Jobs[0].Phases[0].Tasks[0].Profile[0].Demand = resource.Vector{math.NaN(), 0}
		}),
		"location range": bad(func(w *workload.Workload) { w.Jobs[0].Phases[0].Tasks[0].Locations = []int{7} }),
	} {
		_, err := sim.New(cfg, w, &greedy{})
		if !errors.Is(err, sim.ErrWorkload) {
			t.Errorf("%s: err = %v", name, err)
		}
	}
}

// A policy error stops the run with ErrPolicy wrapping the policy's.
func TestPolicyError(t *testing.T) {
	boom := errors.New("boom")
	w := &workload.Workload{Jobs: []workload.JobSpec{mrJob("a", 0, durs(1), nil)}}
	s, err := sim.New(sim.DefaultConfig(slotSpace, slotNodes(1, 1, 0)), w, errPolicy{boom})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.Run(); !errors.Is(err, sim.ErrPolicy) || !errors.Is(err, boom) {
		t.Errorf("err = %v", err)
	}
}

type errPolicy struct{ err error }

func (errPolicy) Name() string                     { return "err" }
func (errPolicy) Submit(time.Time, *sim.Job) error { return nil }
func (p errPolicy) Heartbeat(time.Time, *sim.Node, *sim.Cluster, []sim.Decision) ([]sim.Decision, error) {
	return nil, p.err
}

// Cost: price per slot-second × allocation × time.
func TestCost(t *testing.T) {
	cfg := sim.DefaultConfig(slotSpace, slotNodes(1, 2, 1))
	cfg.Prices = resource.Vector{0.5, 2}
	w := &workload.Workload{Jobs: []workload.JobSpec{mrJob("a", 0, durs(10, 4), durs(3))}}
	cfg.SlowStart = 1
	run, _ := runChecked(t, cfg, w, &greedy{})
	// maps 10 + 4 slot-s × 0.5 = 7; reduce 3 s × 2 = 6.
	if run.Jobs[0].Cost != 13 {
		t.Errorf("cost %v, want 13", run.Jobs[0].Cost)
	}
}

// Task records: duration with contention, time-weighted allocation,
// actual usage and true demand, in both enforcement modes (the same
// timings here: under Limits each task's quota of 1 CPU halves it, under
// Shares the node's 4 CPUs of demand on 2 do).
func TestTaskRecords(t *testing.T) {
	for _, e := range []sim.Enforcement{sim.Limits, sim.Shares} {
		t.Run(e.String(), func(t *testing.T) {
			cfg := sim.DefaultConfig(cpuMem, nodesOf(resource.Vector{2, 8}))
			cfg.Enforcement = e
			cfg.RecordTasks = true
			cfg.Prices = resource.Vector{1, 0}
			w := &workload.Workload{Jobs: []workload.JobSpec{
				oneTask("a", 0, resource.Vector{1, 1}, st(4*time.Second, 2, 1), st(2*time.Second, 1, 1)),
				oneTask("b", 0, resource.Vector{1, 1}, st(4*time.Second, 2, 1)),
			}}
			run, _ := runChecked(t, cfg, w, &greedy{})
			if len(run.Tasks) != 2 {
				t.Fatalf("%d records, want 2", len(run.Tasks))
			}
			var a sim.TaskRecord
			for _, r := range run.Tasks {
				if r.Job == "a" {
					a = r
				}
			}
			// Stage 1 at half speed: 8 s; stage 2 alone: 2 s.
			want := sim.TaskRecord{
				Job: "a", Task: "a/0/0", Attempt: 1, Start: 0, End: 10 * time.Second,
				Outcome: sim.TaskSucceeded,
				Alloc:   resource.Vector{1, 1},
				Used:    resource.Vector{1, 1},                  // 2 CPUs at half pace, then 1 at full
				Demand:  resource.Vector{(2*8 + 1*2) / 10.0, 1}, // 1.8 CPUs
				Cost:    10,
				Work:    6 * time.Second,
			}
			if d := cmp.Diff(want, a, cmpopts.EquateApprox(0, 1e-9)); d != "" {
				t.Errorf("record (-want +got):\n%s", d)
			}
		})
	}
}
