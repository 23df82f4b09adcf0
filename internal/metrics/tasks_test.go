package metrics

import (
	"math"
	"slices"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/schedkit/schedkit/internal/sim"
	"github.com/schedkit/schedkit/resource"
)

func sec(x float64) time.Duration { return time.Duration(x * float64(time.Second)) }

// Worked numbers: job a (2 tasks, small) and b (20 tasks, large); task
// attempts of 10 s and 40 s of work, one failed (not a completion).
func TestCompletionBySize(t *testing.T) {
	run := sim.Run{
		Jobs: []sim.JobRecord{
			{ID: "a", Class: "w1", Submit: 0, Finish: sec(30), Tasks: 2},
			{ID: "b", Class: "w2", Submit: sec(5), Finish: sec(105), Tasks: 20},
			{ID: "c", Class: "w2", Submit: sec(5), Finish: sec(6), Tasks: 1, Outcome: sim.Killed},
		},
		Tasks: []sim.TaskRecord{
			{Job: "a", Start: 0, End: sec(12), Outcome: sim.TaskSucceeded, Work: sec(10)},
			{Job: "a", Start: 0, End: sec(20), Outcome: sim.TaskSucceeded, Work: sec(10)},
			{Job: "b", Start: sec(5), End: sec(55), Outcome: sim.TaskSucceeded, Work: sec(40)},
			{Job: "b", Start: sec(5), End: sec(9), Outcome: sim.TaskFailed, Work: sec(40)},
		},
	}
	c := CompletionBySize(run, 0, 0)
	got := []time.Duration{c.SmallTasks.Mean, c.LargeTasks.Mean, c.AllTasks.Mean, c.SmallJobs.Mean, c.LargeJobs.Mean, c.AllJobs.Mean}
	want := []time.Duration{sec(16), sec(50), sec(82.0 / 3), sec(30), sec(100), sec(65)}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("means (-want +got):\n%s", d)
	}
	tb := SizeTable("sizes", []string{"p"}, []SizeCompletion{c})
	if tb.Rows[0].Cells[0] != "16.0s (2)" || len(tb.Rows) != 6 {
		t.Errorf("table %+v", tb)
	}
	if key, unit, v := tb.Rows[1].Numbers(); key != "large_tasks_mean_s" || unit != UnitSeconds || v[0] != (Number{V: 50, Valid: true}) {
		t.Errorf("row numbers: %q %q %v", key, unit, v)
	}
	if empty := CompletionBySize(sim.Run{}, 0, 0); empty.AllTasks.Valid() || empty.AllJobs.Valid() {
		t.Error("empty run has figures")
	}
}

// Slots held per class over time, as means over 10 s windows: w1 holds 2
// slots 0–12 s then 1 until 20 s (window 10–20 s: (2·2 + 1·8)/10 = 1.2);
// w2 holds 1 slot 5–55 s plus a failed attempt 5–9 s (window 0–10 s:
// (5 + 4)/10 = 0.9; window 50–60 s: 0.5).
func TestHeldOverTime(t *testing.T) {
	run := sim.Run{
		End: sec(60),
		Jobs: []sim.JobRecord{
			{ID: "a", Class: "w1"}, {ID: "b", Class: "w2"},
		},
		Tasks: []sim.TaskRecord{
			{Job: "b", Start: sec(5), End: sec(55), Alloc: resource.Vector{1, 0}},
			{Job: "b", Start: sec(5), End: sec(9), Alloc: resource.Vector{1, 0}},
			{Job: "a", Start: 0, End: sec(12), Alloc: resource.Vector{1, 2}},
			{Job: "a", Start: 0, End: sec(20), Alloc: resource.Vector{1, 2}},
		},
	}
	tb := HeldOverTime("held", run, 10*time.Second, nil)
	want := [][]string{{"2", "0.9"}, {"1.2", "1"}, {"0", "1"}, {"0", "1"}, {"0", "1"}, {"0", "0.5"}, {"0", "0"}}
	if d := cmp.Diff([]string{"w1", "w2"}, tb.Columns); d != "" {
		t.Fatalf("columns: %s", d)
	}
	var got [][]string
	for _, r := range tb.Rows {
		got = append(got, r.Cells)
	}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("held (-want +got):\n%s", d)
	}
	if tb.Rows[1].Name != "10.0s" {
		t.Errorf("row name %q", tb.Rows[1].Name)
	}
	// By kind 1: w1's tasks hold 2 each.
	if c := HeldOverTime("held", run, 10*time.Second, []int{1}).Rows[0].Cells; c[0] != "4" {
		t.Errorf("kind 1 at 0: %v", c)
	}
	if len(HeldOverTime("x", run, 0, nil).Rows) != 0 {
		t.Error("step 0 gave rows")
	}
	// Side by side: a second run without w1's tasks.
	other := run
	other.Tasks = run.Tasks[:2]
	cmpT := HeldTable("held", []string{"p", "q"}, []sim.Run{run, other}, []string{"w1", "w2"}, 30*time.Second, nil)
	if got, want := cmpT.Rows[0].Cells, []string{"1.07/0.97", "0/0.97"}; !slices.Equal(got, want) {
		t.Errorf("HeldTable row 0 = %v, want %v", got, want)
	}
	if len(cmpT.Rows) != 3 {
		t.Errorf("HeldTable has %d rows, want 3 (0, 30, 60 s)", len(cmpT.Rows))
	}
}

// Held amounts are conserved: Σ over windows of amount × step equals Σ
// over attempts of amount × duration.
func TestHeldSeriesConserves(t *testing.T) {
	run := sim.Run{End: sec(100), Jobs: []sim.JobRecord{{ID: "a", Class: "x"}}}
	total := 0.0
	for i := 0; i < 50; i++ {
		s := time.Duration(i*37%97) * time.Second / 2
		e := s + time.Duration(i*13%29+1)*time.Second
		run.Tasks = append(run.Tasks, sim.TaskRecord{Job: "a", Start: s, End: e})
		total += (e - s).Seconds()
	}
	for _, step := range []time.Duration{time.Second, 7 * time.Second, 300 * time.Millisecond} {
		h := HeldSeries(run, step, nil)
		got := 0.0
		for _, a := range h.Amount {
			got += a[0] * step.Seconds()
		}
		if math.Abs(got-total) > 1e-6*total {
			t.Errorf("step %v: Σ held = %g, want %g", step, got, total)
		}
	}
}

func TestCostMetrics(t *testing.T) {
	run := sim.Run{Jobs: []sim.JobRecord{
		{ID: "a", Phi: 1, Deadline: sec(10), Finish: sec(5), Cost: 4},
		{ID: "b", Phi: 0, Budget: 3, Finish: sec(5), Cost: 4},
		{ID: "c", Phi: 0.5, Budget: 3, Deadline: sec(1), Finish: sec(5), Cost: 1},
	}}
	sums := []Summary{Summarize(run)}
	tb := Compare("cost", sums, CostMetrics(sums))
	got := map[string]string{}
	for _, r := range tb.Rows {
		got[r.Name] = r.Cells[0]
	}
	want := map[string]string{
		"mean cost":             "3",
		"budget success":        "0.500 (1/2)",
		"φ success (paper 003)": "0.667 (2/3)",
		"φ=0 success":           "0.000 (0/1)",
		"φ=0 mean cost":         "4",
		"φ=0.5 success":         "1.000 (1/1)",
		"φ=0.5 mean cost":       "1",
		"φ=1 success":           "1.000 (1/1)",
		"φ=1 mean cost":         "4",
	}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("rows (-want +got):\n%s", d)
	}
}
