package metrics_test

import (
	"fmt"
	"time"

	"github.com/schedkit/schedkit/internal/metrics"
	"github.com/schedkit/schedkit/internal/sim"
)

func ExampleSummarize() {
	run := sim.Run{
		Policy: "edf",
		Jobs: []sim.JobRecord{
			{ID: "1", Class: "W1", Submit: 0, Start: 5 * time.Second, Finish: 90 * time.Second, Deadline: 100 * time.Second, Phi: 1},
			{ID: "2", Class: "W2", Submit: 10 * time.Second, Start: 20 * time.Second, Finish: 130 * time.Second, Deadline: 100 * time.Second, Phi: 1},
		},
		Kinds:   []string{"map-slot"},
		Samples: []sim.Sample{{Utilisation: []float64{0.8}, Shares: []float64{0.6, 0.2}}},
	}
	s := metrics.Summarize(run)
	fmt.Println("deadline success:", s.DeadlineSuccess)
	fmt.Println("mean response:", s.Response.MeanSpan(), "p95:", s.Response.P95Span())
	fmt.Println("makespan:", s.Makespan)
	fmt.Println("Jain:", s.Fairness) // (0.8)² / (2 · 0.4) = 0.8
	fmt.Println("budget success:", s.BudgetSuccess)

	t := metrics.Compare("example", []metrics.Summary{s}, metrics.StandardMetrics([]metrics.Summary{s}))
	for _, r := range t.Rows[:3] {
		fmt.Printf("%-16s %s\n", r.Name, r.Cells[0])
	}
	// Output:
	// deadline success: 0.500 (1/2)
	// mean response: 105.0s p95: 118.5s
	// makespan: 130.0s
	// Jain: 0.8
	// budget success: n/a
	// jobs             2
	// completed        2
	// deadline success 0.500 (1/2)
}
