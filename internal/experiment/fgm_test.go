package experiment_test

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/schedkit/schedkit/internal/experiment"
	"github.com/schedkit/schedkit/internal/sim"
)

// runSmall runs experiment name with the default parameters at scale,
// returning the experiment, the parameters and the result.
func runSmall(t *testing.T, name string, scale float64) (experiment.Experiment, experiment.Params, experiment.Result) {
	t.Helper()
	e, err := experiment.Lookup(name)
	if err != nil {
		t.Fatal(err)
	}
	p := experiment.Defaults()
	p.Scale = scale
	res, err := e.Run(p)
	if err != nil {
		t.Fatal(err)
	}
	return e, p, res
}

func TestFGMExperimentSmall(t *testing.T) {
	e, p, res := runSmall(t, "fgm", 0.05)
	var titles []string
	for _, tb := range res.Tables {
		titles = append(titles, tb.Title)
		for _, r := range tb.Rows {
			if len(r.Cells) != len(tb.Columns) {
				t.Errorf("%s: row %q has %d cells for %d columns", tb.Title, r.Name, len(r.Cells), len(tb.Columns))
			}
		}
	}
	want := []string{"offline", "against each baseline", "ablation", "estimator error", "online, dedicated: workload", "online, cloud", "by contention model and foreign load", "compression-bound", "Jain's index, all active jobs | jobs with unmet demand"}
	all := strings.Join(titles, "\n")
	for _, w := range want {
		if !strings.Contains(all, w) {
			t.Errorf("no table titled like %q in\n%s", w, all)
		}
	}
	if got := fmt.Sprint(res.Tables[0].Columns); got != "[FIFO Capacity Fair DRF fgm]" {
		t.Errorf("main columns %s", got)
	}
	if len(res.Runs) != 5 {
		t.Errorf("%d runs", len(res.Runs))
	}
	for _, run := range res.Runs {
		if err := run.Validate(); err != nil {
			t.Error(err)
		}
	}
	// Same seed, same tables.
	again, err := e.Run(p)
	if err != nil {
		t.Fatal(err)
	}
	if fmt.Sprint(again.Tables) != fmt.Sprint(res.Tables) {
		t.Error("two runs with the same seed differ")
	}
	p.Policies = []string{"drf"}
	if _, err := e.Run(p); !errors.Is(err, experiment.ErrParams) {
		t.Errorf("-policies: %v", err)
	}
}

// TestFGMTraceSmall runs fgm's regression table on the leading 5% of
// each day's jobs: two tables (FB-2009, the synthetic day) with fgm
// beside the slot baselines, every job ended, runs valid.
func TestFGMTraceSmall(t *testing.T) {
	e, p, res := runSmall(t, "fgm-trace", 0.05)
	if len(res.Tables) != 2 || len(res.Runs) != 10 {
		t.Fatalf("%d tables, %d runs; want 2, 10", len(res.Tables), len(res.Runs))
	}
	for i, want := range []string{"FB-2009 day", "synthetic 1/20 day"} {
		tb := res.Tables[i]
		if !strings.HasPrefix(tb.Title, want) || !strings.Contains(tb.Title, "80% offered load") {
			t.Errorf("table %d: %q", i, tb.Title)
		}
		if got := fmt.Sprint(tb.Columns); got != "[FIFO Fair Capacity EDF fgm]" {
			t.Errorf("%s: columns %s", want, got)
		}
	}
	for _, run := range res.Runs {
		if err := run.Validate(); err != nil {
			t.Error(err)
		}
		for _, j := range run.Jobs {
			if j.Outcome != sim.Completed {
				t.Fatalf("%s: job %s %v", run.Policy, j.ID, j.Outcome)
			}
		}
	}
	p.Policies = []string{"drf"}
	if _, err := e.Run(p); !errors.Is(err, experiment.ErrParams) {
		t.Errorf("-policies: %v", err)
	}
}
