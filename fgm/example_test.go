package fgm_test

import (
	"fmt"
	"time"

	"github.com/schedkit/schedkit"
	"github.com/schedkit/schedkit/estimate"
	"github.com/schedkit/schedkit/fgm"
	"github.com/schedkit/schedkit/resource"
)

// A 4-core, 8 GiB server; two similar tasks have run before, each 10 s
// of reading (1 core, 2 GiB) then 10 s of computing (3 cores, 6 GiB).
// The host learns them into a History, then submits two more similar
// tasks, a at once and b 10 s later. A request-based scheduler would
// reserve 3 cores and 6 GiB for a until it ends and make b wait; fgm
// starts b while a computes, because b reads while a computes and
// computes once a is gone: their peaks do not overlap.
func Example() {
	space, _ := resource.NewSpace(resource.CPU, resource.Memory)
	const gib = 1 << 30
	c := &cluster{space: space, nodes: []*node{{id: "n1", rack: "r1", cap: resource.Vector{4, 8 * gib}}}}
	h, _ := estimate.NewHistory(estimate.HistoryConfig{Space: space, Bins: 20})
	key := schedkit.SimilarityKey{Logic: "wordcount/map", DataSize: 128 << 20}
	var run []estimate.UsageSample
	for i := range 20 {
		u := resource.Vector{1, 2 * gib}
		if i >= 10 {
			u = resource.Vector{3, 6 * gib}
		}
		run = append(run, estimate.UsageSample{Duration: time.Second, Used: u})
	}
	h.Observe(key, run)
	h.Observe(key, run)

	s, _ := fgm.New(fgm.Config{Cluster: c, History: h})
	now := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	_ = s.Submit(now, &task{id: "a", job: "j1", key: key, req: resource.Vector{3, 6 * gib}})
	ds, _ := s.Schedule(now, c.nodes[0], nil)
	later := now.Add(10 * time.Second)
	_ = s.Submit(later, &task{id: "b", job: "j2", key: key, req: resource.Vector{3, 6 * gib}})
	ds, _ = s.Schedule(later, c.nodes[0], ds)
	for _, d := range ds {
		fmt.Printf("%s on %s, %s:", d.Task, d.Node, d.Mode)
		for _, p := range d.Plan {
			fmt.Printf(" %v×(%g cores, %g GiB)", p.Duration, p.Alloc[0], p.Alloc[1]/gib)
		}
		fmt.Println()
	}
	// Output:
	// a on n1, fine-grained: 10s×(1 cores, 2 GiB) 10s×(3 cores, 6 GiB)
	// b on n1, fine-grained: 10s×(1 cores, 2 GiB) 10s×(3 cores, 6 GiB)
}
