package metrics

import (
	"errors"
	"math"
	"math/rand/v2"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/schedkit/schedkit/internal/sim"
)

const s = time.Second

func TestNewDist(t *testing.T) {
	tests := []struct {
		name string
		in   []time.Duration
		want Dist
	}{
		{"empty", nil, Dist{}},
		{"one value", []time.Duration{7 * s}, Dist{N: 1, Mean: 7 * s, Min: 7 * s, P50: 7 * s, P95: 7 * s, Max: 7 * s,
			CDF: []CDFPoint{{7 * s, 1}}}},
		// 1,2,3,4: mean 2.5, sample sd √(5/3) = 1.29099…s; R-7 p50 = 2.5,
		// p95 at h = 3·0.95 + 1 = 3.85 → 3 + 0.85·(4−3) = 3.85.
		{"1..4 unsorted", []time.Duration{4 * s, 1 * s, 3 * s, 2 * s}, Dist{N: 4, Mean: 2500 * time.Millisecond,
			StdDev: time.Duration(math.Round(math.Sqrt(5.0/3) * 1e9)), Min: s, P50: 2500 * time.Millisecond,
			P95: 3850 * time.Millisecond, Max: 4 * s,
			CDF: []CDFPoint{{s, 0.25}, {2 * s, 0.5}, {3 * s, 0.75}, {4 * s, 1}}}},
		// 10,10,20,60: mean 25; sd √((225+225+25+1225)/3); p50 = 15; p95 at h = 3.85 → 20 + 0.85·40 = 54;
		// CDF steps at 10 (0.5), 20 (0.75), 60 (1).
		{"ties", []time.Duration{10 * s, 60 * s, 10 * s, 20 * s}, Dist{N: 4, Mean: 25 * s,
			StdDev: time.Duration(math.Round(math.Sqrt(1700.0/3) * 1e9)), Min: 10 * s, P50: 15 * s, P95: 54 * s, Max: 60 * s,
			CDF: []CDFPoint{{10 * s, 0.5}, {20 * s, 0.75}, {60 * s, 1}}}},
	}
	for _, tt := range tests {
		got := NewDist(tt.in)
		if diff := cmp.Diff(tt.want, got); diff != "" {
			t.Errorf("%s (-want +got):\n%s", tt.name, diff)
		}
	}
}

// sampleRun: four jobs of two classes; worked numbers in TestSummarize.
func sampleRun() sim.Run {
	return sim.Run{
		Policy: "fifo", Workload: "w",
		Jobs: []sim.JobRecord{
			// A1: response 100 s ≤ 150 s deadline: met. Cost 10 ≤ budget 12.
			{ID: "a1", Class: "A", Submit: 0, Start: 10 * s, Finish: 100 * s, Deadline: 150 * s, Outcome: sim.Completed, Cost: 10, Budget: 12, Phi: 1},
			// A2: response 200 s > 150 s: missed. Cost 30 > 20: over budget. φ 0.5: fails both.
			{ID: "a2", Class: "A", Submit: 50 * s, Start: 50 * s, Finish: 250 * s, Deadline: 150 * s, Outcome: sim.Completed, Cost: 30, Budget: 20, Phi: 0.5},
			// B1: killed at 120 s; the simulator says it could have made it.
			{ID: "b1", Class: "B", Submit: 20 * s, Start: 30 * s, Finish: 120 * s, Deadline: 60 * s, Outcome: sim.Killed, Cost: 5, Phi: 1, CheckedKill: true, CouldHaveMade: true},
			// B2: no deadline, φ 0 and within budget 40 ≥ 15.
			{ID: "b2", Class: "B", Submit: 30 * s, Start: 40 * s, Finish: 330 * s, Outcome: sim.Completed, Cost: 15, Budget: 40, Phi: 0},
		},
		Kinds: []string{"map-slot", "reduce-slot"},
		Samples: []sim.Sample{
			{At: 0, Utilisation: []float64{0.5, 0}, Shares: []float64{1, 0}},          // Jain 0.5
			{At: 10 * s, Utilisation: []float64{1, 0.5}, Shares: []float64{0.5, 0.5}}, // Jain 1
			{At: 20 * s, Utilisation: []float64{0.75, 1}},                             // no shares: skipped
		},
		FailedTasks: 3, RetriedTasks: 2,
		DecisionTime: 6 * time.Millisecond, Decisions: 3,
		Events: 99, End: 400 * s,
	}
}

func TestSummarize(t *testing.T) {
	got := Summarize(sampleRun())
	resp := NewDist([]time.Duration{100 * s, 200 * s, 300 * s}) // a1, a2, b2
	want := Summary{
		Policy: "fifo", Workload: "w",
		Jobs: 4, Completed: 3, Killed: 1,
		DeadlineSuccess: Ratio{1, 3}, // a1 of a1, a2, b1
		Classes: []ClassSummary{
			{Class: "A", Jobs: 2, Completed: 2, DeadlineSuccess: Ratio{1, 2}, Response: NewDist([]time.Duration{100 * s, 200 * s})},
			{Class: "B", Jobs: 2, Completed: 1, DeadlineSuccess: Ratio{0, 1}, Response: NewDist([]time.Duration{300 * s})},
		},
		Response: resp,
		Wait:     NewDist([]time.Duration{10 * s, 0, 10 * s}),
		Run:      NewDist([]time.Duration{90 * s, 200 * s, 290 * s}),
		Makespan: Span{330 * s, true}, // last end 330 s − first submit 0
		// Costs 10+30+5+15 = 60, mean 15; budgets: a1 within, a2 over, b2 within.
		TotalCost: 60, MeanCost: Number{15, true}, BudgetSuccess: Ratio{2, 3},
		// φ=0: b2 ok; φ=0.5: a2 fails; φ=1: a1 ok, b1 killed.
		PhiSuccess: Ratio{2, 4},
		Phi: []PhiSummary{
			{Phi: 0, Success: Ratio{1, 1}, MeanCost: Number{15, true}},
			{Phi: 0.5, Success: Ratio{0, 1}, MeanCost: Number{30, true}},
			{Phi: 1, Success: Ratio{1, 2}, MeanCost: Number{7.5, true}},
		},
		Fairness: Number{0.75, true}, FairnessSamples: 2, // mean of 0.5 and 1
		Utilisation: []KindUtilisation{{"map-slot", Number{0.75, true}}, {"reduce-slot", Number{0.5, true}}},
		FailedTasks: 3, RetriedTasks: 2,
		DecisionTime: 6 * time.Millisecond, Decisions: 3, PerDecision: Span{2 * time.Millisecond, true},
		KillsCouldHaveMade: Ratio{1, 1},
		Events:             99, End: 400 * s,
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Fatalf("(-want +got):\n%s", diff)
	}
}

func TestPhiRule(t *testing.T) {
	tests := []struct {
		name string
		j    sim.JobRecord
		want bool
	}{
		{"φ1 deadline met", sim.JobRecord{Finish: 10 * s, Deadline: 10 * s, Phi: 1}, true},
		{"φ1 deadline missed, within budget", sim.JobRecord{Finish: 11 * s, Deadline: 10 * s, Budget: 5, Cost: 1, Phi: 1}, false},
		{"φ0 within budget, deadline missed", sim.JobRecord{Finish: 11 * s, Deadline: 10 * s, Budget: 5, Cost: 5, Phi: 0}, true},
		{"φ0 over budget", sim.JobRecord{Finish: 1 * s, Deadline: 10 * s, Budget: 5, Cost: 6, Phi: 0}, false},
		{"φ0.5 deadline only met", sim.JobRecord{Finish: 1 * s, Deadline: 10 * s, Budget: 5, Cost: 6, Phi: 0.5}, true},
		{"φ0.5 budget only met", sim.JobRecord{Finish: 11 * s, Deadline: 10 * s, Budget: 5, Cost: 4, Phi: 0.5}, true},
		{"φ0.5 neither met", sim.JobRecord{Finish: 11 * s, Deadline: 10 * s, Budget: 5, Cost: 6, Phi: 0.5}, false},
		{"φ1 no deadline, completed", sim.JobRecord{Finish: 11 * s, Phi: 1}, true},
		{"φ0 no budget, completed", sim.JobRecord{Finish: 11 * s, Cost: 99, Phi: 0}, true},
		{"φ0.5 no constraints, completed", sim.JobRecord{Finish: 11 * s, Phi: 0.5}, true},
		{"φ0 killed within budget", sim.JobRecord{Finish: 1 * s, Budget: 5, Cost: 1, Phi: 0, Outcome: sim.Killed}, false},
		{"φ1 unfinished", sim.JobRecord{Finish: 1 * s, Deadline: 10 * s, Phi: 1, Outcome: sim.Unfinished}, false},
	}
	for _, tt := range tests {
		run := sim.Run{Jobs: []sim.JobRecord{tt.j}}
		got := Summarize(run).PhiSuccess
		if (got.Hit == 1) != tt.want || got.Total != 1 {
			t.Errorf("%s: %v, want success %v", tt.name, got, tt.want)
		}
	}
}

func TestSummarizeEmpty(t *testing.T) {
	sm := Summarize(sim.Run{Policy: "p", Kinds: []string{"cpu"}})
	for name, v := range map[string]string{
		"deadline":     sm.DeadlineSuccess.String(),
		"budget":       sm.BudgetSuccess.String(),
		"phi":          sm.PhiSuccess.String(),
		"response":     sm.Response.MeanSpan().String(),
		"p95":          sm.Response.P95Span().String(),
		"makespan":     sm.Makespan.String(),
		"mean cost":    sm.MeanCost.String(),
		"fairness":     sm.Fairness.String(),
		"utilisation":  sm.Utilisation[0].Mean.String(),
		"per decision": sm.PerDecision.String(),
		"kills":        sm.KillsCouldHaveMade.String(),
	} {
		if v != NA {
			t.Errorf("%s = %q, want n/a", name, v)
		}
	}
	// Jobs without deadlines: deadline success n/a, response defined.
	sm = Summarize(sim.Run{Jobs: []sim.JobRecord{{Submit: s, Start: s, Finish: 3 * s}}})
	if sm.DeadlineSuccess.String() != NA || sm.Response.MeanSpan().String() != "2.0s" || sm.Makespan.String() != "2.0s" {
		t.Errorf("no deadlines: %v %v %v", sm.DeadlineSuccess, sm.Response.MeanSpan(), sm.Makespan)
	}
	// An unfinished job makes the makespan n/a.
	sm = Summarize(sim.Run{Jobs: []sim.JobRecord{{Finish: 3 * s, Outcome: sim.Unfinished}}})
	if sm.Makespan.Valid || sm.Unfinished != 1 {
		t.Errorf("unfinished: %+v", sm.Makespan)
	}
}

func TestSummarizeInvalidInput(t *testing.T) {
	run := sampleRun()
	run.Jobs = append(run.Jobs, sim.JobRecord{ID: "bad", Submit: 10 * s, Start: 5 * s, Finish: 1 * s, Outcome: sim.Completed, Cost: math.NaN()})
	run.Samples = append(run.Samples,
		sim.Sample{Utilisation: []float64{math.NaN(), 0.5}, Shares: []float64{math.Inf(1)}},
		sim.Sample{Utilisation: []float64{1}},
	)
	if err := run.Validate(); !errors.Is(err, sim.ErrInvalidRun) {
		t.Fatalf("Validate: %v", err)
	}
	var re *sim.RunError
	if err := run.Validate(); !errors.As(err, &re) || re.Job != 4 {
		t.Fatalf("Validate: %v", err)
	}
	got := Summarize(run)
	if got.Jobs != 5 || got.Completed != 3 || math.IsNaN(got.TotalCost) || got.TotalCost != 60 {
		t.Fatalf("bad job leaked: %+v", got)
	}
	if got.Utilisation[1].Mean.V != 0.5 || got.Utilisation[0].Mean.V != 0.75 || got.FairnessSamples != 2 {
		t.Fatalf("bad samples leaked: %+v %d", got.Utilisation, got.FairnessSamples)
	}
	if len(got.Warnings) != 4 {
		t.Fatalf("warnings: %q", got.Warnings)
	}
	if err := sampleRun().Validate(); err != nil {
		t.Fatal(err)
	}
}

// Property: on random runs, Summarize never yields NaN or ±Inf, ratios are
// within bounds, and counts add up.
func TestSummarizeProperty(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for range 500 {
		run := randomRun(rng)
		sm := Summarize(run)
		if sm.Completed+sm.Killed+sm.Rejected+sm.Unfinished > sm.Jobs {
			t.Fatalf("counts: %+v", sm)
		}
		for _, r := range []Ratio{sm.DeadlineSuccess, sm.BudgetSuccess, sm.PhiSuccess, sm.KillsCouldHaveMade} {
			if r.Hit < 0 || r.Hit > r.Total {
				t.Fatalf("ratio %v", r)
			}
		}
		for _, n := range []Number{sm.MeanCost, sm.Fairness} {
			if math.IsNaN(n.V) || math.IsInf(n.V, 0) {
				t.Fatalf("non-finite %v", n)
			}
		}
		if sm.Fairness.Valid && (sm.Fairness.V < 0 || sm.Fairness.V > 1+1e-12) {
			t.Fatalf("Jain %v", sm.Fairness.V)
		}
		if sm.Response.Valid() && (sm.Response.P50 > sm.Response.P95 || sm.Response.P95 > sm.Response.Max || sm.Response.CDF[len(sm.Response.CDF)-1].Fraction != 1) {
			t.Fatalf("dist %+v", sm.Response)
		}
		tbl := Compare("x", []Summary{sm}, StandardMetrics([]Summary{sm}))
		for _, r := range tbl.Rows {
			if strings.Contains(r.Cells[0], "NaN") || strings.Contains(r.Cells[0], "Inf") {
				t.Fatalf("row %s = %s", r.Name, r.Cells[0])
			}
		}
	}
}

func randomRun(rng *rand.Rand) sim.Run {
	run := sim.Run{Policy: "p", Kinds: []string{"cpu", "mem"}}
	for i := range rng.IntN(20) {
		sub := time.Duration(rng.IntN(100)) * s
		st := sub + time.Duration(rng.IntN(100))*s
		j := sim.JobRecord{
			ID: string(rune('a' + i)), Class: []string{"x", "y"}[rng.IntN(2)],
			Submit: sub, Start: st, Finish: st + time.Duration(rng.IntN(100))*s,
			Outcome: sim.Outcome(rng.IntN(5)), Cost: rng.Float64() * 10, Phi: []float64{0, 0.5, 1, 2}[rng.IntN(4)],
		}
		if rng.IntN(2) == 0 {
			j.Deadline = time.Duration(rng.IntN(200)) * s
		}
		if rng.IntN(2) == 0 {
			j.Budget = rng.Float64() * 10
		}
		if rng.IntN(10) == 0 {
			j.Finish = 0 // invalid
		}
		run.Jobs = append(run.Jobs, j)
	}
	for range rng.IntN(10) {
		sm := sim.Sample{Utilisation: []float64{rng.Float64(), rng.Float64()}}
		for range rng.IntN(4) {
			sm.Shares = append(sm.Shares, []float64{0, rng.Float64(), -1, math.NaN()}[rng.IntN(4)])
		}
		if rng.IntN(5) == 0 {
			sm.Utilisation = sm.Utilisation[:1]
		}
		run.Samples = append(run.Samples, sm)
	}
	return run
}

func FuzzSummarize(f *testing.F) {
	f.Add(uint64(1), uint64(2))
	f.Fuzz(func(t *testing.T, a, b uint64) {
		sm := Summarize(randomRun(rand.New(rand.NewPCG(a, b))))
		if math.IsNaN(sm.MeanCost.V) || math.IsNaN(sm.Fairness.V) || math.IsNaN(sm.TotalCost) {
			t.Fatal("NaN in summary")
		}
	})
}
