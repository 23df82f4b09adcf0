package policy

import (
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/schedkit/schedkit"
	"github.com/schedkit/schedkit/internal/sim"
	"github.com/schedkit/schedkit/internal/workload"
	"github.com/schedkit/schedkit/lss"
	"github.com/schedkit/schedkit/resource"
)

// slotCluster is n slot-model workers × (maps + reduces slots), one rack,
// heartbeats every 3 s, seed 1: the experiments' SlotCluster at test size.
func slotCluster(t *testing.T, n, maps, reduces int) sim.Config {
	t.Helper()
	space := workload.SlotSpace()
	mi, _ := space.Index(resource.MapSlot.Name)
	ri, _ := space.Index(resource.ReduceSlot.Name)
	nodes := make([]sim.NodeSpec, n)
	for i := range nodes {
		c := space.Zero()
		c[mi], c[ri] = float64(maps), float64(reduces)
		nodes[i] = sim.NodeSpec{ID: schedkit.NodeID(fmt.Sprintf("node%04d", i)), Rack: "rack00", Capacity: c}
	}
	cfg := sim.DefaultConfig(space, nodes)
	cfg.Seed = 1
	cfg.MetricsInterval = time.Minute
	return cfg
}

// slotJob builds a job of exact task durations: maps, then (if any)
// reduces, in the slot model.
func slotJob(t *testing.T, id, class string, submit, deadline time.Duration, maps, reduces []time.Duration) workload.JobSpec {
	t.Helper()
	shaper, err := workload.NewSlotShaper(workload.SlotSpace())
	if err != nil {
		t.Fatal(err)
	}
	phase := func(kind workload.TaskKind, ds []time.Duration) workload.PhaseSpec {
		var ph workload.PhaseSpec
		for _, d := range ds {
			req, prof, err := workload.ShapeTask(shaper, kind, d, 0)
			if err != nil {
				t.Fatal(err)
			}
			ph.Tasks = append(ph.Tasks, workload.TaskSpec{Requested: req, Profile: prof})
		}
		return ph
	}
	j := workload.JobSpec{ID: id, Class: class, Submit: submit, Deadline: deadline, Phases: []workload.PhaseSpec{phase(workload.MapTask, maps)}}
	if len(reduces) > 0 {
		j.Phases = append(j.Phases, phase(workload.ReduceTask, reduces))
	}
	return j
}

func secs(xs ...float64) []time.Duration {
	out := make([]time.Duration, len(xs))
	for i, x := range xs {
		out[i] = time.Duration(x * float64(time.Second))
	}
	return out
}

// oneNode is one worker × (2 map + 1 reduce), heartbeats every 3 s from
// the first submission, reduces ready only once every map finished.
func oneNode(t *testing.T) sim.Config {
	t.Helper()
	cfg := slotCluster(t, 1, 2, 1)
	cfg.SlowStart = 1
	cfg.AfterEvent = (*sim.Sim).CheckInvariants
	return cfg
}

// simulate runs pol on w and fails the test on any simulator error
// (invalid decisions included).
func simulate(t *testing.T, cfg sim.Config, w *workload.Workload, pol sim.Policy) (*sim.Sim, sim.Run) {
	t.Helper()
	s, err := sim.New(cfg, w, pol)
	if err != nil {
		t.Fatal(err)
	}
	run, err := s.Run()
	if err != nil {
		t.Fatal(err)
	}
	if st := s.Stats(); st.Invalid != 0 {
		t.Fatalf("%d invalid decisions", st.Invalid)
	}
	return s, run
}

// The hand-checked scenario, one node × (2 map + 1 reduce), heartbeats at
// 1, 4, 7, ... s and whenever a task ends:
//
//	A: submitted 1 s, deadline +200 s, 6 maps × 10 s, 1 reduce × 4 s.
//	B: submitted 2 s, deadline +20 s (22 s), maps 5, 10, 10, 10, 10, 10 s, 1 reduce × 4 s.
//
// t=1: A alone: both map slots (maps end at 11).
// t=11: B has nothing finished, spare (5) = 22 − 11 = 11 s; A's is
// 201 − 11 − (⌈4/2⌉+⌈1/1⌉)·10 = 160 s. B first: pass 1 gives it a map,
// pass 2 the other slot (its 5 s and 10 s maps).
// t=16: B's 5 s map ends: Tavg 5 s, remaining (⌈5/2⌉+⌈1/1⌉)·5 − 5/2 =
// 17.5 s, spare 22 − 16 − 17.5 = −11.5 s, −11.5 + 5 < 0: killed early
// while its 10 s map runs. The kill frees that slot at once, so A runs
// two maps 16–26, two 26–36, its reduce 36–40: A completes at 40 s.
func scenarioJobs(t *testing.T) *workload.Workload {
	return &workload.Workload{Name: "scenario", Jobs: []workload.JobSpec{
		slotJob(t, "A", "a", time.Second, 200*time.Second, secs(10, 10, 10, 10, 10, 10), secs(4)),
		slotJob(t, "B", "b", 2*time.Second, 20*time.Second, secs(5, 10, 10, 10, 10, 10), secs(4)),
	}}
}

func TestLSSScenarioKill(t *testing.T) {
	cfg := oneNode(t)
	w := scenarioJobs(t)
	pol, err := NewLSS(&cfg, LSSOptions{})
	if err != nil {
		t.Fatal(err)
	}
	s, run := simulate(t, cfg, w, pol)
	a, b := run.Jobs[0], run.Jobs[1]
	if a.Outcome != sim.Completed || a.Start != time.Second || a.Finish != 40*time.Second {
		t.Errorf("A: %v start %v finish %v, want completed 1s–40s (both freed slots taken at 16 s)", a.Outcome, a.Start, a.Finish)
	}
	if b.Outcome != sim.Killed || b.Start != 11*time.Second || b.Finish != 16*time.Second {
		t.Errorf("B: %v start %v end %v, want killed at 16 s after starting at 11 s", b.Outcome, b.Start, b.Finish)
	}
	// At 16 s B's running map has 5 s left (ends 21), its 4 pending maps
	// take 2 waves on 2 slots (36), its reduce 4 s (40) > 22: it could not
	// have made it.
	if !b.CheckedKill || b.CouldHaveMade {
		t.Errorf("B: checked %v, could have made it %v; want checked, could not", b.CheckedKill, b.CouldHaveMade)
	}
	reason := s.KillReason(1)
	for _, want := range []string{"spare+tavg<0", "spare -11.5s", "tavg 5s", "remaining 17.5s", "deadline in 6s"} {
		if !strings.Contains(reason, want) {
			t.Errorf("kill reason %q lacks %q", reason, want)
		}
	}
	st := pol.Stats()
	if len(st.KillRecords) != 1 {
		t.Fatalf("kill records %v, want one", st.KillRecords)
	}
	// The record: B at 16 s, its counters then (1 map running, 4 pending;
	// the reduce pending) and lss's figures.
	kr := st.KillRecords[0]
	if kr.Job != 1 || kr.Reason != lss.SpareExhausted || kr.Figures.Spare.Time != -11500*time.Millisecond ||
		len(kr.Progress) != 2 || kr.Progress[0].Running != 1 || kr.Progress[0].Total-kr.Progress[0].Finished != 5 {
		t.Errorf("kill record %+v", kr)
	}
	st.KillRecords = nil
	want := LSSStats{Assigned: 6 + 1 + 2, Kills: 1, SpareExhausted: 1, EarlyKilledJobs: []int{1}}
	if d := cmp.Diff(want, st); d != "" {
		t.Errorf("stats (-want +got):\n%s", d)
	}
}

// Soft deadlines: B is reported infeasible once at 16 s and keeps
// running; it misses its deadline and delays A.
func TestLSSScenarioSoft(t *testing.T) {
	cfg := oneNode(t)
	w := scenarioJobs(t)
	pol, err := NewLSS(&cfg, LSSOptions{Name: "soft", SoftDeadlines: true})
	if err != nil {
		t.Fatal(err)
	}
	_, run := simulate(t, cfg, w, pol)
	a, b := run.Jobs[0], run.Jobs[1]
	if b.Outcome != sim.Completed || b.Finish <= 22*time.Second {
		t.Errorf("B: %v at %v, want completed after its 22 s deadline", b.Outcome, b.Finish)
	}
	if a.Outcome != sim.Completed || a.Finish <= 40*time.Second {
		t.Errorf("A: %v at %v, want completed later than with the kill (40 s)", a.Outcome, a.Finish)
	}
	st := pol.Stats()
	if st.Infeasible != 1 || !cmp.Equal(st.InfeasibleJobs, []int{1}) || st.Kills != 0 {
		t.Errorf("stats %+v, want one infeasible report (B), no kill", st)
	}
	if pol.Name() != "soft" {
		t.Errorf("name %q", pol.Name())
	}
}

// Admission control judges a job by earlier jobs of its class: J1 (4 maps
// × 10 s, reduce 4 s) ends at 25 s with mean task time 44/5 = 8.8 s. J2
// (6 maps, 1 reduce, deadline 20 s) would need (⌈6/2⌉+⌈1/1⌉)·8.8 = 35.2 s
// alone: refused. J3, the same with 60 s, is admitted and completes. J1
// itself had no history and was admitted.
func TestLSSAdmission(t *testing.T) {
	cfg := oneNode(t)
	w := &workload.Workload{Name: "admission", Jobs: []workload.JobSpec{
		slotJob(t, "J1", "w", time.Second, 100*time.Second, secs(10, 10, 10, 10), secs(4)),
		slotJob(t, "J2", "w", 30*time.Second, 20*time.Second, secs(10, 10, 10, 10, 10, 10), secs(4)),
		slotJob(t, "J3", "w", 31*time.Second, 60*time.Second, secs(10, 10, 10, 10, 10, 10), secs(4)),
	}}
	pol, err := NewLSS(&cfg, LSSOptions{Admission: true})
	if err != nil {
		t.Fatal(err)
	}
	s, run := simulate(t, cfg, w, pol)
	got := []sim.Outcome{run.Jobs[0].Outcome, run.Jobs[1].Outcome, run.Jobs[2].Outcome}
	if want := []sim.Outcome{sim.Completed, sim.Rejected, sim.Completed}; !cmp.Equal(got, want) {
		t.Fatalf("outcomes %v, want %v", got, want)
	}
	if run.Jobs[0].Finish != 25*time.Second {
		t.Errorf("J1 finished at %v, want 25s", run.Jobs[0].Finish)
	}
	if r := s.KillReason(1); !strings.Contains(r, "task time 8.8s from hint") || !strings.Contains(r, "remaining 35.2s") {
		t.Errorf("refusal reason %q", r)
	}
	if st := pol.Stats(); st.Refused != 1 {
		t.Errorf("refused %d, want 1", st.Refused)
	}
}

// Heterogeneous slots: every assignment stays within the slots
// (invariants after every event) on nodes of speeds 2 and 0.5. (The
// speed-1 task times the adapter reports are checked in
// lss_internal_test.go.)
func TestLSSHeterogeneous(t *testing.T) {
	cfg := slotCluster(t, 2, 2, 1)
	cfg.Nodes[0].Speed, cfg.Nodes[1].Speed = 2, 0.5
	cfg.AfterEvent = (*sim.Sim).CheckInvariants
	w := &workload.Workload{Name: "hetero", Jobs: []workload.JobSpec{
		slotJob(t, "H", "h", time.Second, 300*time.Second, secs(10, 10, 10, 10, 10, 10, 10, 10), secs(10)),
	}}
	pol, err := NewLSS(&cfg, LSSOptions{Heterogeneous: true})
	if err != nil {
		t.Fatal(err)
	}
	_, run := simulate(t, cfg, w, pol)
	if run.Jobs[0].Outcome != sim.Completed {
		t.Fatalf("H: %v", run.Jobs[0].Outcome)
	}
	if st := pol.Stats(); st.Assigned != 9 || st.Kills != 0 {
		t.Errorf("stats %+v", st)
	}
}

// An lss error that is not an admission refusal (here a job with more
// phases than configured) stops the run at once, at that Submit,
// instead of dropping the job.
func TestLSSSubmitError(t *testing.T) {
	cfg := oneNode(t)
	j := slotJob(t, "X", "x", time.Second, 100*time.Second, secs(10), secs(4))
	j.Phases = append(j.Phases, j.Phases[1])
	w := &workload.Workload{Name: "bad", Jobs: []workload.JobSpec{j, slotJob(t, "Y", "y", 2*time.Second, 100*time.Second, secs(10), nil)}}
	pol, err := NewLSS(&cfg, LSSOptions{})
	if err != nil {
		t.Fatal(err)
	}
	s, err := sim.New(cfg, w, pol)
	if err != nil {
		t.Fatal(err)
	}
	run, err := s.Run()
	if !errors.Is(err, sim.ErrPolicy) || !errors.Is(err, lss.ErrInvalidJob) || !strings.Contains(err.Error(), "Submit of X") {
		t.Fatalf("err = %v, want a policy error wrapping lss.ErrInvalidJob at the Submit of X", err)
	}
	if run.End != time.Second {
		t.Errorf("the run ended at %v, not at X's submission", run.End)
	}
	if _, err := NewLSS(&cfg, LSSOptions{PhaseKinds: []string{"gpu"}}); !errors.Is(err, lss.ErrConfig) {
		t.Errorf("bad PhaseKinds: err = %v", err)
	}
	if _, err := NewLSS(nil, LSSOptions{}); !errors.Is(err, ErrConfig) {
		t.Errorf("nil config: err = %v", err)
	}
}
