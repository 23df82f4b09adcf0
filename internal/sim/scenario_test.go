package sim_test

import (
	"errors"
	"math"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/schedkit/schedkit"
	"github.com/schedkit/schedkit/internal/sim"
	"github.com/schedkit/schedkit/internal/workload"
	"github.com/schedkit/schedkit/resource"
)

// runChecked runs p on w with invariants checked after every event.
func runChecked(t *testing.T, cfg sim.Config, w *workload.Workload, p sim.Policy) (sim.Run, *sim.Sim) {
	t.Helper()
	cfg.AfterEvent = (*sim.Sim).CheckInvariants
	s, err := sim.New(cfg, w, p)
	if err != nil {
		t.Fatal(err)
	}
	run, err := s.Run()
	if err != nil {
		t.Fatal(err)
	}
	return run, s
}

type span struct {
	ID             string
	Start, Finish  float64 // seconds
	Outcome        sim.Outcome
	Could, Checked bool
}

func spans(run sim.Run) []span {
	out := make([]span, len(run.Jobs))
	for i, j := range run.Jobs {
		out[i] = span{j.ID, sec(j.Start), sec(j.Finish), j.Outcome, j.CouldHaveMade, j.CheckedKill}
	}
	return out
}

// FIFO order on one node with one map slot. Heartbeats every 100 s (one
// node: the first at submission), so only out-of-band heartbeats matter:
//
//	t=0  a submitted, heartbeat: a/0/0 starts (5 s)
//	t=1  b submitted (slot busy)
//	t=2  c submitted (slot busy)
//	t=5  a/0/0 ends; heartbeat: a/0/1 starts (a is first)
//	t=10 a/0/1 ends, a done; heartbeat: b/0/0 starts (3 s)
//	t=13 b done; c/0/0 starts (1 s)
//	t=14 c done
func TestScenarioFIFOOrder(t *testing.T) {
	w := &workload.Workload{Jobs: []workload.JobSpec{
		mrJob("a", 0, durs(5, 5), nil),
		mrJob("b", 1*time.Second, durs(3), nil),
		mrJob("c", 2*time.Second, durs(1), nil),
	}}
	cfg := sim.DefaultConfig(slotSpace, slotNodes(1, 1, 0))
	cfg.HeartbeatInterval = 100 * time.Second
	p := &watch{Policy: &greedy{}}
	run, _ := runChecked(t, cfg, w, p)
	want := []span{{ID: "a", Start: 0, Finish: 10}, {ID: "b", Start: 10, Finish: 13}, {ID: "c", Start: 13, Finish: 14}}
	if d := cmp.Diff(want, spans(run)); d != "" {
		t.Errorf("timeline (-want +got):\n%s", d)
	}
	wantEnded := []string{"t=5 a/0/0 succeeded", "t=10 a/0/1 succeeded", "t=13 b/0/0 succeeded", "t=14 c/0/0 succeeded"}
	if d := cmp.Diff(wantEnded, p.ended); d != "" {
		t.Errorf("task ends (-want +got):\n%s", d)
	}
	if run.End != 14*time.Second {
		t.Errorf("End = %v, want 14s", run.End)
	}
}

// Compression slowdown per paper 004 formula (5): node with 4 CPUs, two
// tasks each demanding 3 CPUs for 10 s (requesting 2, so both are placed),
// penalty p = 0.1. Under Shares, together they demand 6 > 4:
// rc = (6−4)/6 = 1/3, each runs at rate (1 − 1/3)/1.1 = 0.6061 and takes
// T' = 1.1·10/(2/3) = 16.5 s. Under Limits each is capped at its 2 CPUs
// (formula (4), rc = 1 − 2/3): 15 s alone or together, as the node's
// capped load, 4, does not exceed its capacity (no penalty).
func TestScenarioCompressionFormula5(t *testing.T) {
	mk := func(id string, submit time.Duration) workload.JobSpec {
		return workload.JobSpec{ID: id, Submit: submit, Phases: []workload.PhaseSpec{{Tasks: []workload.TaskSpec{
			task(resource.Vector{2, 1}, st(10*time.Second, 3, 1)),
		}}}}
	}
	cases := []struct {
		name    string
		mode    sim.Enforcement
		submitB time.Duration
		want    []span
	}{
		// Both from t=0: 16.5 s each.
		{"shares/together", sim.Shares, 0, []span{{ID: "a", Finish: 16.5}, {ID: "b", Finish: 16.5}}},
		// b from t=5: a alone 0–5 (5 s of work), both at 0.6061 until a's
		// last 5 s are done at 5 + 5/0.6061 = 13.25; b has then done
		// 8.25·0.6061 = 5 s and finishes alone at 18.25.
		{"shares/staggered", sim.Shares, 5 * time.Second, []span{{ID: "a", Finish: 13.25}, {ID: "b", Start: 5, Finish: 18.25}}},
		{"limits/together", sim.Limits, 0, []span{{ID: "a", Finish: 15}, {ID: "b", Finish: 15}}},
		{"limits/staggered", sim.Limits, 5 * time.Second, []span{{ID: "a", Finish: 15}, {ID: "b", Start: 5, Finish: 20}}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			w := &workload.Workload{Jobs: []workload.JobSpec{mk("a", 0), mk("b", tc.submitB)}}
			cfg := sim.DefaultConfig(cpuMem, nodesOf(resource.Vector{4, 16}))
			cfg.Enforcement = tc.mode
			cfg.Penalty = 0.1
			cfg.HeartbeatInterval = 5 * time.Second
			run, _ := runChecked(t, cfg, w, &greedy{})
			got := spans(run)
			for i := range got { // ns rounding of event times
				got[i].Finish = math.Round(got[i].Finish*1e6) / 1e6
			}
			if d := cmp.Diff(tc.want, got); d != "" {
				t.Errorf("timeline (-want +got):\n%s", d)
			}
		})
	}
	// The same figure from the resource package's formula.
	want, err := resource.ContendedDuration(10*time.Second, 1.0/3, 0.1)
	if err != nil || want != 16500*time.Millisecond {
		t.Errorf("ContendedDuration = %v, %v; want 16.5s", want, err)
	}
}

// Incompressible over-commit: node with 10 GB memory. a requests 4 and
// truly uses 2 for 5 s then 7 for 5 s; b requests 4 and uses 4 for 20 s.
// Both placed at t=0 (8 ≤ 10 allocated). At t=5 a's second stage brings
// usage to 11 > 10: the most recently started task using memory, b,
// fails (work lost) and is pending again. The script re-assigns it at
// t=12, when a has finished: b runs 12–32.
func TestScenarioIncompressibleOvercommit(t *testing.T) {
	w := &workload.Workload{Jobs: []workload.JobSpec{
		{ID: "a", Phases: []workload.PhaseSpec{{Tasks: []workload.TaskSpec{
			task(resource.Vector{1, 4}, st(5*time.Second, 1, 2), st(5*time.Second, 1, 7))}}}},
		{ID: "b", Phases: []workload.PhaseSpec{{Tasks: []workload.TaskSpec{
			task(resource.Vector{1, 4}, st(20*time.Second, 1, 4))}}}},
	}}
	cfg := sim.DefaultConfig(cpuMem, nodesOf(resource.Vector{4, 10}))
	cfg.HeartbeatInterval = time.Second
	p := &scripted{steps: []step{
		{at: 0, do: func(c *sim.Cluster, n *sim.Node) []sim.Decision {
			return []sim.Decision{sim.AssignTask(c.Job("a").Task(0, 0), nil), sim.AssignTask(c.Job("b").Task(0, 0), nil)}
		}},
		{at: 12 * time.Second, do: func(c *sim.Cluster, n *sim.Node) []sim.Decision {
			return []sim.Decision{sim.AssignTask(c.Job("b").Task(0, 0), nil)}
		}},
	}}
	run, s := runChecked(t, cfg, w, p)
	want := []span{{ID: "a", Finish: 10}, {ID: "b", Start: 0, Finish: 32}}
	if d := cmp.Diff(want, spans(run)); d != "" {
		t.Errorf("timeline (-want +got):\n%s", d)
	}
	wantEnded := []string{"t=5 b/0/0 failed", "t=10 a/0/0 succeeded", "t=32 b/0/0 succeeded"}
	if d := cmp.Diff(wantEnded, p.ended); d != "" {
		t.Errorf("task ends (-want +got):\n%s", d)
	}
	if run.FailedTasks != 1 || run.RetriedTasks != 1 {
		t.Errorf("failed %d retried %d, want 1 and 1", run.FailedTasks, run.RetriedTasks)
	}
	if st := s.Stats(); st.Failed != 1 || st.Assigned != 3 {
		t.Errorf("stats %+v", st)
	}
}

// A task failing MaxAttempts times fails its job: a greedy policy keeps
// re-placing b into the over-committed node at the same instant.
func TestScenarioMaxAttemptsFailsJob(t *testing.T) {
	w := &workload.Workload{Jobs: []workload.JobSpec{
		{ID: "a", Phases: []workload.PhaseSpec{{Tasks: []workload.TaskSpec{
			task(resource.Vector{1, 4}, st(5*time.Second, 1, 2), st(5*time.Second, 1, 7))}}}},
		{ID: "b", Phases: []workload.PhaseSpec{{Tasks: []workload.TaskSpec{
			task(resource.Vector{1, 4}, st(20*time.Second, 1, 4))}}}},
	}}
	cfg := sim.DefaultConfig(cpuMem, nodesOf(resource.Vector{4, 10}))
	run, s := runChecked(t, cfg, w, &greedy{})
	want := []span{{ID: "a", Finish: 10}, {ID: "b", Finish: 5, Outcome: sim.Failed}}
	if d := cmp.Diff(want, spans(run)); d != "" {
		t.Errorf("timeline (-want +got):\n%s", d)
	}
	if st := s.Stats(); st.Failed != 4 || st.FailedJobs != 1 || st.Retried != 3 {
		t.Errorf("stats %+v; want 4 failed attempts, 3 retries, 1 failed job", st)
	}
}

// Reduce slow-start: one node with 2 map slots and 1 reduce slot; a job
// of 4 maps (10 s) and 1 reduce (5 s of compute).
//
// SlowStart 0.25: the reduce is ready once ⌈0.25·4⌉ = 1 map finished.
//
//	t=0  maps 0,1 start
//	t=10 maps 0,1 end; reduce ready; heartbeat: maps 2,3 and the reduce
//	     start; the reduce holds its slot and waits
//	t=20 maps 2,3 end: the reduce computes from now
//	t=25 reduce ends: measured duration 15 s
//
// SlowStart 1: the reduce starts at t=20 and ends at 25: duration 5 s.
func TestScenarioSlowStart(t *testing.T) {
	for _, tc := range []struct {
		slowStart   float64
		reduceStart float64
		reduceDur   time.Duration
	}{{0.25, 10, 15 * time.Second}, {1, 20, 5 * time.Second}} {
		w := &workload.Workload{Jobs: []workload.JobSpec{mrJob("a", 0, durs(10, 10, 10, 10), durs(5))}}
		cfg := sim.DefaultConfig(slotSpace, slotNodes(1, 2, 1))
		cfg.SlowStart = tc.slowStart
		cfg.HeartbeatInterval = 100 * time.Second
		var reduceStarted time.Time
		var prog schedkit.PhaseProgress
		cfg.AfterEvent = func(s *sim.Sim) error {
			j := s.Job(0)
			if r := j.Task(1, 0); r.State() == schedkit.TaskRunning && reduceStarted.IsZero() {
				reduceStarted = r.Started()
			}
			prog = j.Progress(1)
			return s.CheckInvariants()
		}
		s, err := sim.New(cfg, w, &greedy{})
		if err != nil {
			t.Fatal(err)
		}
		run, err := s.Run()
		if err != nil {
			t.Fatal(err)
		}
		if got := reduceStarted.Sub(sim.Epoch).Seconds(); got != tc.reduceStart {
			t.Errorf("slow-start %v: reduce started at %v, want %v", tc.slowStart, got, tc.reduceStart)
		}
		if run.Jobs[0].Finish != 25*time.Second {
			t.Errorf("slow-start %v: job finished at %v, want 25s", tc.slowStart, run.Jobs[0].Finish)
		}
		if prog.FinishedDurationSum != tc.reduceDur {
			t.Errorf("slow-start %v: reduce duration %v, want %v", tc.slowStart, prog.FinishedDurationSum, tc.reduceDur)
		}
	}
}

// A kill frees resources at once: a holds the only slot with a 100 s
// task; b waits. At t=10 the policy kills a; b starts at once (the
// freed node heartbeats out of band) and ends at 15. a is checked
// against its deadline by the optimistic rule: 90 s left from t=10 ends
// at 100, within a 200 s deadline (could have made it) but not a 50 s one.
func TestScenarioKillFreesResources(t *testing.T) {
	for _, tc := range []struct {
		deadline time.Duration
		could    bool
	}{{200 * time.Second, true}, {50 * time.Second, false}} {
		a := mrJob("a", 0, durs(100), nil)
		a.Deadline = tc.deadline
		w := &workload.Workload{Jobs: []workload.JobSpec{a, mrJob("b", time.Second, durs(5), nil)}}
		cfg := sim.DefaultConfig(slotSpace, slotNodes(1, 1, 0))
		cfg.HeartbeatInterval = 10 * time.Second
		g := &greedy{}
		p := &killAt{greedy: g, at: 10 * time.Second, job: "a"}
		run, s := runChecked(t, cfg, w, p)
		want := []span{
			{ID: "a", Start: 0, Finish: 10, Outcome: sim.Killed, Could: tc.could, Checked: true},
			{ID: "b", Start: 10, Finish: 15},
		}
		if d := cmp.Diff(want, spans(run)); d != "" {
			t.Errorf("deadline %v: timeline (-want +got):\n%s", tc.deadline, d)
		}
		if got := s.KillReason(0); got != "test kill" {
			t.Errorf("kill reason %q", got)
		}
	}
}

// killAt kills one job at the first heartbeat at or after a time, then
// behaves as greedy.
type killAt struct {
	*greedy
	at   time.Duration
	job  string
	done bool
}

func (k *killAt) Heartbeat(now time.Time, n *sim.Node, c *sim.Cluster, dst []sim.Decision) ([]sim.Decision, error) {
	if !k.done && now.Sub(sim.Epoch) >= k.at {
		k.done = true
		return append(dst, sim.Kill(c.Job(schedkit.JobID(k.job)), "test kill")), nil
	}
	return k.greedy.Heartbeat(now, n, c, dst)
}

// Invalid decisions are counted and reported, never applied; the valid
// ones in the same batch are, and the run goes on.
func TestInvalidDecisionsReported(t *testing.T) {
	w := &workload.Workload{Jobs: []workload.JobSpec{mrJob("a", 0, durs(5, 5), durs(1)), mrJob("b", 0, durs(5), nil)}}
	cfg := sim.DefaultConfig(slotSpace, slotNodes(1, 1, 1))
	cfg.HeartbeatInterval = 100 * time.Second
	cfg.AfterEvent = (*sim.Sim).CheckInvariants
	p := &firstThen{then: &greedy{}, first: func(c *sim.Cluster, n *sim.Node) []sim.Decision {
		a, b := c.Job("a"), c.Job("b")
		return []sim.Decision{
			sim.AssignTask(a.Task(0, 0), nil),
			sim.AssignTask(a.Task(0, 1), nil), // no map slot left
			sim.AssignTask(a.Task(1, 0), nil), // reduce not ready
			sim.AssignTasks(b, 0, 2, nil),     // only 1 ready
			sim.AssignTask(a.Task(0, 0), nil), // already running
			{Kind: sim.Assign},                // nil task
			{},                                // zero kind
			sim.Kill(nil, "x"),                // nil job
			{Kind: sim.Assign, Task: b.Task(0, 0), Alloc: resource.Vector{0.5, 0}}, // fractional slot
			sim.PreemptTask(b.Task(0, 0), "not running"),
		}
	}}
	s, err := sim.New(cfg, w, p)
	if err != nil {
		t.Fatal(err)
	}
	run, err := s.Run()
	var de *sim.DecisionError
	if !errors.As(err, &de) || !errors.Is(err, sim.ErrInvalidDecision) {
		t.Fatalf("err = %v, want a *DecisionError", err)
	}
	if errors.Is(err, sim.ErrStalled) {
		t.Fatalf("err = %v: the run should have completed", err)
	}
	if de.Count != 9 || s.Stats().Invalid != 9 || len(de.First) != 8 {
		t.Errorf("count %d (stats %d), first %d: %v", de.Count, s.Stats().Invalid, len(de.First), de.First)
	}
	// a/0/0 ran from 0 to 5 (the valid decision was applied); then greedy
	// ran a/0/1 (5-10), b (10-15) and a's reduce (10-11).
	want := []span{{ID: "a", Finish: 11}, {ID: "b", Start: 10, Finish: 15}}
	if d := cmp.Diff(want, spans(run)); d != "" {
		t.Errorf("timeline (-want +got):\n%s", d)
	}
}

// firstThen answers its first heartbeat with first, then delegates.
type firstThen struct {
	first func(c *sim.Cluster, n *sim.Node) []sim.Decision
	then  sim.Policy
	done  bool
}

func (f *firstThen) Name() string                           { return "first-then" }
func (f *firstThen) Submit(now time.Time, j *sim.Job) error { return f.then.Submit(now, j) }
func (f *firstThen) Heartbeat(now time.Time, n *sim.Node, c *sim.Cluster, dst []sim.Decision) ([]sim.Decision, error) {
	if !f.done {
		f.done = true
		return append(dst, f.first(c, n)...), nil
	}
	return f.then.Heartbeat(now, n, c, dst)
}
