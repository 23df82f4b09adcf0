package experiment_test

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/schedkit/schedkit/internal/baseline"
	"github.com/schedkit/schedkit/internal/experiment"
	"github.com/schedkit/schedkit/internal/metrics"
	"github.com/schedkit/schedkit/internal/sim"
	"github.com/schedkit/schedkit/internal/workload"
	"github.com/schedkit/schedkit/lss"
)

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
	cfg, _, err := experiment.SlotCluster(workload.SlotSpace(), 1, 2, 1, 1)
	if err != nil {
		t.Fatal(err)
	}
	cfg.SlowStart = 1
	cfg.AfterEvent = (*sim.Sim).CheckInvariants
	return cfg
}

// simulate runs pol on w and fails the test on any simulator error
// (invalid decisions included).
func simulate(t *testing.T, cfg sim.Config, w *workload.Workload, pol sim.Policy) (*sim.Sim, metrics.Run) {
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

func TestLSSPolicyScenarioKill(t *testing.T) {
	cfg := oneNode(t)
	w := scenarioJobs(t)
	pol, err := experiment.NewLSSPolicy(&cfg, experiment.LSSOptions{})
	if err != nil {
		t.Fatal(err)
	}
	s, run := simulate(t, cfg, w, pol)
	a, b := run.Jobs[0], run.Jobs[1]
	if a.Outcome != metrics.Completed || a.Start != time.Second || a.Finish != 40*time.Second {
		t.Errorf("A: %v start %v finish %v, want completed 1s–40s (both freed slots taken at 16 s)", a.Outcome, a.Start, a.Finish)
	}
	if b.Outcome != metrics.Killed || b.Start != 11*time.Second || b.Finish != 16*time.Second {
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
	want := experiment.LSSStats{Assigned: 6 + 1 + 2, Kills: 1, SpareExhausted: 1, EarlyKilledJobs: []int{1}}
	if d := cmp.Diff(want, st); d != "" {
		t.Errorf("stats (-want +got):\n%s", d)
	}
}

// Soft deadlines: B is reported infeasible once at 16 s and keeps
// running; it misses its deadline and delays A.
func TestLSSPolicyScenarioSoft(t *testing.T) {
	cfg := oneNode(t)
	w := scenarioJobs(t)
	pol, err := experiment.NewLSSPolicy(&cfg, experiment.LSSOptions{Name: "soft", SoftDeadlines: true})
	if err != nil {
		t.Fatal(err)
	}
	_, run := simulate(t, cfg, w, pol)
	a, b := run.Jobs[0], run.Jobs[1]
	if b.Outcome != metrics.Completed || b.Finish <= 22*time.Second {
		t.Errorf("B: %v at %v, want completed after its 22 s deadline", b.Outcome, b.Finish)
	}
	if a.Outcome != metrics.Completed || a.Finish <= 40*time.Second {
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
func TestLSSPolicyAdmission(t *testing.T) {
	cfg := oneNode(t)
	w := &workload.Workload{Name: "admission", Jobs: []workload.JobSpec{
		slotJob(t, "J1", "w", time.Second, 100*time.Second, secs(10, 10, 10, 10), secs(4)),
		slotJob(t, "J2", "w", 30*time.Second, 20*time.Second, secs(10, 10, 10, 10, 10, 10), secs(4)),
		slotJob(t, "J3", "w", 31*time.Second, 60*time.Second, secs(10, 10, 10, 10, 10, 10), secs(4)),
	}}
	pol, err := experiment.NewLSSPolicy(&cfg, experiment.LSSOptions{Admission: true})
	if err != nil {
		t.Fatal(err)
	}
	s, run := simulate(t, cfg, w, pol)
	got := []metrics.Outcome{run.Jobs[0].Outcome, run.Jobs[1].Outcome, run.Jobs[2].Outcome}
	if want := []metrics.Outcome{metrics.Completed, metrics.Rejected, metrics.Completed}; !cmp.Equal(got, want) {
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
// lsspolicy_internal_test.go.)
func TestLSSPolicyHeterogeneous(t *testing.T) {
	cfg, _, err := experiment.SlotCluster(workload.SlotSpace(), 2, 2, 1, 1)
	if err != nil {
		t.Fatal(err)
	}
	cfg.Nodes[0].Speed, cfg.Nodes[1].Speed = 2, 0.5
	cfg.AfterEvent = (*sim.Sim).CheckInvariants
	w := &workload.Workload{Name: "hetero", Jobs: []workload.JobSpec{
		slotJob(t, "H", "h", time.Second, 300*time.Second, secs(10, 10, 10, 10, 10, 10, 10, 10), secs(10)),
	}}
	pol, err := experiment.NewLSSPolicy(&cfg, experiment.LSSOptions{Heterogeneous: true})
	if err != nil {
		t.Fatal(err)
	}
	_, run := simulate(t, cfg, w, pol)
	if run.Jobs[0].Outcome != metrics.Completed {
		t.Fatalf("H: %v", run.Jobs[0].Outcome)
	}
	if st := pol.Stats(); st.Assigned != 9 || st.Kills != 0 {
		t.Errorf("stats %+v", st)
	}
}

// An lss error that is not an admission refusal (here a job with more
// phases than configured) stops the run instead of dropping the job.
func TestLSSPolicySubmitError(t *testing.T) {
	cfg := oneNode(t)
	j := slotJob(t, "X", "x", time.Second, 100*time.Second, secs(10), secs(4))
	j.Phases = append(j.Phases, j.Phases[1])
	w := &workload.Workload{Name: "bad", Jobs: []workload.JobSpec{j, slotJob(t, "Y", "y", 2*time.Second, 100*time.Second, secs(10), nil)}}
	pol, err := experiment.NewLSSPolicy(&cfg, experiment.LSSOptions{})
	if err != nil {
		t.Fatal(err)
	}
	s, err := sim.New(cfg, w, pol)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.Run(); !errors.Is(err, sim.ErrPolicy) || !errors.Is(err, lss.ErrInvalidJob) {
		t.Fatalf("err = %v, want a policy error wrapping lss.ErrInvalidJob", err)
	}
	if _, err := experiment.NewLSSPolicy(&cfg, experiment.LSSOptions{PhaseKinds: []string{"gpu"}}); !errors.Is(err, experiment.ErrParams) || !errors.Is(err, lss.ErrConfig) {
		t.Errorf("bad PhaseKinds: err = %v", err)
	}
	if _, err := experiment.NewLSSPolicy(nil, experiment.LSSOptions{}); !errors.Is(err, experiment.ErrParams) {
		t.Errorf("nil config: err = %v", err)
	}
}

// paperRuns runs LSS and FIFO on the paper-000 workload at the lss
// experiment's size (8 h of arrivals, seed 1, the WordCount model as is).
func paperRuns(t *testing.T, wc workload.PoissonConfig, opt experiment.LSSOptions) (lssRun, fifoRun metrics.Run) {
	t.Helper()
	p := experiment.Params{Scale: 4, Seed: 1} // 4 × 2 h
	w, _, err := experiment.Paper000Workload(wc, p)
	if err != nil {
		t.Fatal(err)
	}
	cfg, _, err := experiment.SlotCluster(workload.SlotSpace(), 5, 2, 1, p.Seed)
	if err != nil {
		t.Fatal(err)
	}
	pol, err := experiment.NewLSSPolicy(&cfg, opt)
	if err != nil {
		t.Fatal(err)
	}
	_, lssRun = simulate(t, cfg, w, pol)
	_, fifoRun = simulate(t, cfg, w, baseline.NewFIFO())
	return lssRun, fifoRun
}

// The paper's findings at its default load: LSS meets more deadlines than
// FIFO at both loads, and the loosest workflow (W1, W4) responds slower
// under LSS.
func TestLSSPaperFindings(t *testing.T) {
	for _, c := range []struct {
		wc    workload.PoissonConfig
		loose string
	}{{workload.Paper000Light(), "W1"}, {workload.Paper000Heavy(), "W4"}} {
		t.Run(c.wc.Name, func(t *testing.T) {
			l, f := paperRuns(t, c.wc, experiment.LSSOptions{})
			ls, fs := metrics.Summarize(l), metrics.Summarize(f)
			lv, fv := ls.DeadlineSuccess.Value().V, fs.DeadlineSuccess.Value().V
			if !(lv > fv) {
				t.Errorf("deadline success LSS %v ≤ FIFO %v", ls.DeadlineSuccess, fs.DeadlineSuccess)
			}
			resp := func(s metrics.Summary) time.Duration {
				for _, cl := range s.Classes {
					if cl.Class == c.loose {
						return cl.Response.Mean
					}
				}
				t.Fatalf("no class %s", c.loose)
				return 0
			}
			if lr, fr := resp(ls), resp(fs); !(lr > fr) {
				t.Errorf("%s mean response LSS %v ≤ FIFO %v", c.loose, lr, fr)
			}
			t.Logf("success LSS %v, FIFO %v; %s response LSS %v, FIFO %v", ls.DeadlineSuccess, fs.DeadlineSuccess, c.loose, resp(ls), resp(fs))
		})
	}
}

// Same seed, same run: the adapter adds no nondeterminism, in any
// option.
func TestLSSDeterministic(t *testing.T) {
	for _, opt := range []experiment.LSSOptions{{}, {SoftDeadlines: true}, {PerPhaseTaskTime: true, Admission: true}, {Heterogeneous: true}} {
		a, _ := paperRuns(t, workload.Paper000Heavy(), opt)
		b, _ := paperRuns(t, workload.Paper000Heavy(), opt)
		a.DecisionTime, b.DecisionTime = 0, 0 // wall clock
		if d := cmp.Diff(a, b); d != "" {
			t.Fatalf("%+v: runs differ:\n%s", opt, d)
		}
	}
}

// The literal implementation of Algorithm 1 makes the same decisions as
// the indexed one, so the runs are identical.
func TestLSSLiteralSameRun(t *testing.T) {
	a, _ := paperRuns(t, workload.Paper000Heavy(), experiment.LSSOptions{})
	b, _ := paperRuns(t, workload.Paper000Heavy(), experiment.LSSOptions{Literal: true})
	a.DecisionTime, b.DecisionTime = 0, 0
	if d := cmp.Diff(a, b); d != "" {
		t.Fatalf("literal and indexed runs differ:\n%s", d)
	}
}

// The registered experiment runs at a small size and gives its tables
// with one cell per column.
func TestLSSExperimentSmall(t *testing.T) {
	e, err := experiment.Lookup("lss")
	if err != nil {
		t.Fatal(err)
	}
	p := experiment.Defaults()
	p.Scale = 0.02 // the paper tables at 2 h, 118 FB-2009 jobs
	p.Nodes = 60
	res, err := e.Run(p)
	if err != nil {
		t.Fatal(err)
	}
	var titles []string
	for _, tb := range res.Tables {
		titles = append(titles, tb.Title)
		if len(tb.Columns) == 0 || len(tb.Rows) == 0 {
			t.Errorf("empty table %q", tb.Title)
		}
		for _, r := range tb.Rows {
			if len(r.Cells) != len(tb.Columns) {
				t.Errorf("%q row %q: %d cells, %d columns", tb.Title, r.Name, len(r.Cells), len(tb.Columns))
			}
		}
	}
	if len(res.Tables) != 10 {
		t.Fatalf("%d tables: %q", len(res.Tables), titles)
	}
	// Slots held per workflow (paper 000 fig. 2): never more than the
	// cluster's 15 slots in any window.
	for _, tb := range res.Tables[8:] {
		for _, r := range tb.Rows {
			for _, c := range r.Cells {
				sum := 0.0
				for _, part := range strings.Split(c, "/") {
					v, err := strconv.ParseFloat(part, 64)
					if err != nil {
						t.Fatalf("%q: cell %q", tb.Title, c)
					}
					sum += v
				}
				if sum > 15+0.05 {
					t.Errorf("%q at %s: %q holds %g > 15 slots", tb.Title, r.Name, c, sum)
				}
			}
		}
	}
	if got := res.Tables[0].Columns; !cmp.Equal(got, []string{"LSS", "LSS soft", "LSS per-phase", "LSS admission", "LSS priors", "FIFO", "EDF", "Fair"}) {
		t.Errorf("columns %q", got)
	}
	if !strings.Contains(res.Tables[7].Title, "on 60 workers") {
		t.Errorf("-nodes not applied: %q", res.Tables[7].Title)
	}
	for _, run := range res.Runs {
		if err := run.Validate(); err != nil {
			t.Error(err)
		}
	}
	if _, err := e.Run(experiment.Params{Scale: -1}); !errors.Is(err, experiment.ErrParams) {
		t.Errorf("negative scale: %v", err)
	}
}

// Run lss in the simulator on one worker × (2 map + 1 reduce): job B
// cannot make its deadline and is killed early, with the figures that
// decided it; A then gets every slot.
func ExampleNewLSSPolicy() {
	shaper, _ := workload.NewSlotShaper(workload.SlotSpace())
	job := func(id string, submit, deadline time.Duration, maps ...time.Duration) workload.JobSpec {
		var ph workload.PhaseSpec
		for _, d := range maps {
			req, prof, _ := workload.ShapeTask(shaper, workload.MapTask, d, 0)
			ph.Tasks = append(ph.Tasks, workload.TaskSpec{Requested: req, Profile: prof})
		}
		return workload.JobSpec{ID: id, Submit: submit, Deadline: deadline, Phases: []workload.PhaseSpec{ph}}
	}
	s10, s5 := 10*time.Second, 5*time.Second
	w := &workload.Workload{Name: "example", Jobs: []workload.JobSpec{
		job("A", time.Second, 200*time.Second, s10, s10, s10, s10, s10, s10),
		job("B", 2*time.Second, 20*time.Second, s5, s10, s10, s10, s10, s10),
	}}
	cfg, _, _ := experiment.SlotCluster(workload.SlotSpace(), 1, 2, 1, 1)
	pol, err := experiment.NewLSSPolicy(&cfg, experiment.LSSOptions{})
	if err != nil {
		fmt.Println(err)
		return
	}
	s, _ := sim.New(cfg, w, pol)
	run, err := s.Run()
	if err != nil {
		fmt.Println(err)
		return
	}
	outcome := map[metrics.Outcome]string{metrics.Completed: "completed", metrics.Killed: "killed"}
	for i, j := range run.Jobs {
		fmt.Println(strings.TrimSpace(fmt.Sprintf("%s: %s at %v %s", j.ID, outcome[j.Outcome], j.Finish, s.KillReason(i))))
	}
	st := pol.Stats()
	fmt.Printf("assigned %d tasks, %d early kill(s)\n", st.Assigned, st.SpareExhausted)
	// Output:
	// A: completed at 36s
	// B: killed at 16s lss: kill B: spare+tavg<0 (spare -6.5s, tavg 5s); remaining 12.5s; deadline in 6s
	// assigned 8 tasks, 1 early kill(s)
}
