package experiment_test

import (
	"errors"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/schedkit/schedkit/internal/baseline"
	"github.com/schedkit/schedkit/internal/experiment"
	"github.com/schedkit/schedkit/internal/metrics"
	"github.com/schedkit/schedkit/internal/policy"
	"github.com/schedkit/schedkit/internal/sim"
	"github.com/schedkit/schedkit/internal/workload"
)

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

// paperRuns runs LSS and FIFO on the paper-000 workload at the lss
// experiment's size (8 h of arrivals, seed 1, the WordCount model as is).
func paperRuns(t *testing.T, wc workload.PoissonConfig, opt policy.LSSOptions) (lssRun, fifoRun sim.Run) {
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
	pol, err := policy.NewLSS(&cfg, opt)
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
			l, f := paperRuns(t, c.wc, policy.LSSOptions{})
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
	for _, opt := range []policy.LSSOptions{{}, {SoftDeadlines: true}, {PerPhaseTaskTime: true, Admission: true}, {Heterogeneous: true}} {
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
	a, _ := paperRuns(t, workload.Paper000Heavy(), policy.LSSOptions{})
	b, _ := paperRuns(t, workload.Paper000Heavy(), policy.LSSOptions{Literal: true})
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
	if len(res.Tables) != 14 {
		t.Fatalf("%d tables: %q", len(res.Tables), titles)
	}
	// Slots held per workflow (paper 000 fig. 2): never more than the
	// cluster's 15 slots in any window.
	for _, tb := range res.Tables[12:] {
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
	if got := res.Tables[0].Columns; !cmp.Equal(got, []string{"LSS", "LSS soft", "LSS per-phase", "LSS admission", "LSS priors", "LSS waves", "LSS optimistic", "LSS no-first-pass", "lss-recommended",
		"FIFO", "FIFO-drop", "EDF", "EDF-drop", "Fair", "Capacity", "DRF"}) {
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
