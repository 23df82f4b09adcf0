package experiment_test

import (
	"bytes"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/schedkit/schedkit/internal/experiment"
	"github.com/schedkit/schedkit/internal/sim"
	"github.com/schedkit/schedkit/internal/workload"
)

func TestRegistry(t *testing.T) {
	seen := map[string]bool{}
	for _, e := range experiment.List() {
		if e.Name == "" || e.Summary == "" || e.Run == nil || seen[e.Name] {
			t.Errorf("bad or repeated experiment %+v", e)
		}
		seen[e.Name] = true
		if got, err := experiment.Lookup(e.Name); err != nil || got.Name != e.Name {
			t.Errorf("Lookup(%q) = %v, %v", e.Name, got.Name, err)
		}
	}
	for _, n := range experiment.Default() {
		if !seen[n] {
			t.Errorf("default experiment %q not registered", n)
		}
	}
	if _, err := experiment.Lookup("nope"); !errors.Is(err, experiment.ErrUnknown) {
		t.Errorf("Lookup(nope) err = %v", err)
	}
	if _, err := experiment.LookupPolicies([]string{"FIFO", "drf"}); err != nil {
		t.Error(err)
	}
	if _, err := experiment.LookupPolicies([]string{"lifo"}); !errors.Is(err, experiment.ErrUnknown) {
		t.Errorf("LookupPolicies(lifo) err = %v", err)
	}
}

// smallScale is each experiment's size in tests.
func smallScale(name string) float64 {
	if name == "fb2009" {
		return 0.02
	}
	return 0.1
}

func TestExperimentsRunSmall(t *testing.T) {
	for _, e := range experiment.List() {
		switch e.Name {
		case "trace", "lss", "accel", // own tests: TestLSSExperimentSmall, TestAccelDeterministic
			"paper004-online", "paper004-cloud", "paper003-exp1", "paper003-exp2", // TestPaper004OnlineSmall, TestPaper003FIFO
			"fgm", "dbs", "fgm-trace", // TestFGMExperimentSmall, TestDBSExperiment, TestFGMTraceSmall
			"paper004-contention": // TestPaper004ContentionCalibration
			continue
		}
		t.Run(e.Name, func(t *testing.T) {
			p := experiment.Defaults()
			p.Scale = smallScale(e.Name)
			var progress bytes.Buffer
			p.Progress = &progress
			res, err := e.Run(p)
			if err != nil {
				t.Fatal(err)
			}
			// Each paper's experiment shows the paper's algorithm beside
			// the baselines.
			cols := []string{"FIFO", "Fair", "Capacity", "DRF", "EDF"}
			switch {
			case strings.HasPrefix(e.Name, "paper000"):
				cols = append(cols, "LSS")
			case strings.HasPrefix(e.Name, "paper004"):
				cols = append(cols, "fgm", "fgm-cap")
			}
			if res.Experiment != e.Name || len(res.Tables) == 0 || len(res.Assumptions) == 0 || len(res.Runs) != len(cols) {
				t.Fatalf("result %q: %d tables, %d assumptions, %d runs", res.Experiment, len(res.Tables), len(res.Assumptions), len(res.Runs))
			}
			main := res.Tables[0]
			if strings.HasPrefix(e.Name, "paper004") {
				cols = append(cols, "critical-path bound") // beside the policies
			}
			if d := cmp.Diff(cols, main.Columns); d != "" {
				t.Errorf("columns (-want +got):\n%s", d)
			}
			for _, r := range main.Rows {
				if r.Name == "decision time" {
					t.Error("wall-clock row in a reproducible table")
				}
				if len(r.Cells) != len(main.Columns) {
					t.Errorf("row %q has %d cells", r.Name, len(r.Cells))
				}
			}
			for _, run := range res.Runs {
				if err := run.Validate(); err != nil {
					t.Error(err)
				}
			}
		})
	}
}

func TestParamsErrors(t *testing.T) {
	e, _ := experiment.Lookup("paper000-light")
	for _, p := range []experiment.Params{{Scale: -1}, {Scale: 0.1, Policies: []string{"nope"}}, {Scale: 0.1, Nodes: -3}} {
		if _, err := e.Run(p); err == nil {
			t.Errorf("%+v: no error", p)
		}
	}
	tr, _ := experiment.Lookup("trace")
	if _, err := tr.Run(experiment.Params{}); !errors.Is(err, experiment.ErrParams) {
		t.Errorf("trace without file: %v", err)
	}
	if _, err := tr.Run(experiment.Params{Trace: "/nonexistent/x.tsv"}); !errors.Is(err, experiment.ErrInput) {
		t.Errorf("missing trace: %v", err)
	}
	fb, _ := experiment.Lookup("fb2009")
	for _, p := range []experiment.Params{
		{Nodes: experiment.MaxNodes + 1}, {Load: -1}, {Load: experiment.MaxLoad + 1}, {Load: 0.5, Nodes: 10},
	} {
		if _, err := fb.Run(p); !errors.Is(err, experiment.ErrParams) {
			t.Errorf("%+v: err = %v", p, err)
		}
	}
}

// Check refuses every optional parameter an experiment does not read,
// with the flag's name, and accepts the ones it does.
func TestCheckUnusedParams(t *testing.T) {
	for _, tc := range []struct {
		exp  string
		p    experiment.Params
		want string // "" for no error
	}{
		{"paper000-light", experiment.Params{Policies: []string{"fifo"}, Timing: true}, ""},
		{"paper000-light", experiment.Params{Nodes: 3}, "experiment paper000-light does not use -nodes"},
		{"paper000-heavy", experiment.Params{Trace: "x"}, "experiment paper000-heavy does not use -trace"},
		{"fb2009", experiment.Params{Nodes: 3, Policies: []string{"fifo"}}, ""},
		{"fb2009", experiment.Params{Load: 0.5}, ""},
		{"fb2009", experiment.Params{Trace: "x"}, "experiment fb2009 does not use -trace"},
		{"fb2009", experiment.Params{Format: "swim"}, "experiment fb2009 does not use -trace"},
		{"trace", experiment.Params{Trace: "x", Format: "swim", Nodes: 3, Timing: true}, ""},
		{"lss", experiment.Params{Nodes: 3}, ""},
		{"lss", experiment.Params{Trace: "x"}, "experiment lss does not use -trace"},
		{"lss", experiment.Params{Load: 1}, "experiment lss does not use -load"},
		{"accel", experiment.Params{Policies: []string{"fifo"}}, "experiment accel does not use -policies"},
	} {
		e, err := experiment.Lookup(tc.exp)
		if err != nil {
			t.Fatal(err)
		}
		err = e.Check(tc.p)
		switch {
		case tc.want == "" && err != nil:
			t.Errorf("%s %+v: %v", tc.exp, tc.p, err)
		case tc.want != "" && (err == nil || err.Error() != tc.want || !errors.Is(err, experiment.ErrParams)):
			t.Errorf("%s %+v: err = %v, want %q", tc.exp, tc.p, err, tc.want)
		}
	}
}

// Results do not depend on how many simulations run at once.
func TestDeterministicAcrossParallelism(t *testing.T) {
	e, _ := experiment.Lookup("paper000-heavy")
	p := experiment.Defaults()
	p.Scale = 0.2
	p.Parallel = 1
	a, err := e.Run(p)
	if err != nil {
		t.Fatal(err)
	}
	p.Parallel = 3
	b, err := e.Run(p)
	if err != nil {
		t.Fatal(err)
	}
	if d := cmp.Diff(a.Tables, b.Tables); d != "" {
		t.Fatalf("tables differ (-1 +3):\n%s", d)
	}
}

type failing struct{}

func (failing) Name() string                     { return "failing" }
func (failing) Submit(time.Time, *sim.Job) error { return nil }
func (failing) Heartbeat(time.Time, *sim.Node, *sim.Cluster, []sim.Decision) ([]sim.Decision, error) {
	return nil, errors.New("boom")
}

// A policy error fails the comparison, naming the case.
func TestRunCasesError(t *testing.T) {
	w, _, err := experiment.Paper000Workload(workload.Paper000Light(), experiment.Params{Scale: 0.05, Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	cfg, _, err := experiment.SlotCluster(workload.SlotSpace(), 5, 2, 1, 1)
	if err != nil {
		t.Fatal(err)
	}
	pol := experiment.Policy{Name: "failing", New: func(experiment.Env) (sim.Policy, error) { return failing{}, nil }}
	_, err = experiment.RunCases(experiment.Params{}, []experiment.Case{{Label: "x/failing", Config: cfg, Workload: w, Policy: pol}})
	if !errors.Is(err, experiment.ErrRun) || !errors.Is(err, sim.ErrPolicy) {
		t.Fatalf("err = %v", err)
	}
}

// BenchmarkFB2009 replays the whole FB-2009 day (5,894 jobs) on 600
// workers under each policy, trace parsing included; ns/op is the wall
// time, cpu-s/op the process CPU time (steadier on a busy machine).
func BenchmarkFB2009(b *testing.B) {
	fb, _ := experiment.Lookup("fb2009")
	for _, pol := range []string{"fifo", "drf"} {
		b.Run("policy="+pol, func(b *testing.B) {
			p := experiment.Defaults()
			p.Policies = []string{pol}
			b.ReportAllocs()
			var cpu time.Duration
			for b.Loop() {
				c0 := cpuTime()
				res, err := fb.Run(p)
				if err != nil {
					b.Fatal(err)
				}
				cpu += cpuTime() - c0
				b.ReportMetric(float64(res.Runs[0].Events), "events/op")
			}
			if cpu > 0 {
				b.ReportMetric(cpu.Seconds()/float64(b.N), "cpu-s/op")
			}
		})
	}
}

// Each policy name builds the baseline it names (Capacity and DRF with
// pools print identical numbers with equal queue shares because the
// baseline orders a queue's jobs by dominant share, not because of the
// wiring here).
func TestPolicyWiring(t *testing.T) {
	want := map[string]string{
		"fifo": "FIFO", "fair": "Fair", "fair-pools": "Fair(pools)", "capacity": "Capacity",
		"drf": "DRF", "drf-pools": "DRF(pools)", "edf": "EDF",
	}
	for _, p := range experiment.Policies() {
		w, ok := want[p.Name]
		if !ok {
			continue
		}
		pol, err := p.New(experiment.Env{})
		if err != nil || pol.Name() != w {
			t.Errorf("%s builds %v (%v), want %s", p.Name, pol, err, w)
		}
	}
}
