package estimate_test

import (
	"fmt"
	"time"

	"github.com/schedkit/schedkit"
	"github.com/schedkit/schedkit/estimate"
	"github.com/schedkit/schedkit/resource"
)

// Two similar tasks (same logic, same input size) finished: each read for
// 10 s (2 cores, 1 GiB) then computed for 20 s (4 cores, 3 GiB); the
// second ran its first 10 s of work compressed by 20% and took 12.5 s for
// it. The History normalises that back and predicts two stages.
func ExampleHistory() {
	space, _ := resource.NewSpace(resource.CPU, resource.Memory)
	// 30 slices of 1 s each: stage boundaries fall on slice boundaries.
	h, _ := estimate.NewHistory(estimate.HistoryConfig{Space: space, Bins: 30})
	key := schedkit.SimilarityKey{Logic: "sort/map", DataSize: 64 << 20}
	const gib = 1 << 30
	run := func(rc float64) []estimate.UsageSample {
		var s []estimate.UsageSample
		wall := time.Duration(float64(10*time.Second) / (1 - rc))
		for at := time.Duration(0); at < wall; at += 2500 * time.Millisecond {
			s = append(s, estimate.UsageSample{Duration: min(2500*time.Millisecond, wall-at), Used: resource.Vector{2 * (1 - rc), gib}, Compression: rc})
		}
		for range 4 {
			s = append(s, estimate.UsageSample{Duration: 5 * time.Second, Used: resource.Vector{4, 3 * gib}})
		}
		return s
	}
	h.Observe(key, run(0))
	h.Observe(key, run(0.2))
	p, ok := h.Predict(key)
	fmt.Println("predictable:", ok, "from", p.Observations, "tasks")
	for _, st := range p.Stages {
		fmt.Printf("%v: %.2g cores, %.2g GiB\n", st.Duration.Round(time.Millisecond), st.Demand[0], st.Demand[1]/gib)
	}
	// Output:
	// predictable: true from 2 tasks
	// 10s: 2 cores, 1 GiB
	// 20s: 4 cores, 3 GiB
}
