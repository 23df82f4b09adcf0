package lsstest_test

import (
	"fmt"
	"math/rand/v2"
	"time"

	"github.com/schedkit/schedkit"
	"github.com/schedkit/schedkit/lss"
	"github.com/schedkit/schedkit/lss/lsstest"
	"github.com/schedkit/schedkit/schedkittest"
)

// A property test of a configuration: the indexed and the literal
// scheduler in lockstep through 2,000 seeded random events, every
// invariant checked after each.
func ExampleHost() {
	rng := rand.New(rand.NewPCG(1, 2))
	cfgs := []lss.Config{{}, {Literal: true}}
	failed := false
	h := lsstest.NewHost(rng, lsstest.NewCluster(4, 2, 1), 2, cfgs, func(format string, args ...any) {
		if !failed {
			fmt.Printf(format+"\n", args...)
		}
		failed = true
	})
	for range 2000 {
		h.Step(lsstest.RandomEvent(rng))
	}
	fmt.Println("broken invariants:", failed)
	fmt.Println("work done:", h.Assigned > 0, h.Completed > 0, h.Kills > 0)
	// Output:
	// broken invariants: false
	// work done: true true true
}

// A host's own integration test: the Checker sees each heartbeat's
// decisions with the node and the jobs as the host had them. This host
// reuses its decision slice but forgets to pass ds[:0], so the second
// heartbeat's slice still holds the first one's assignments, which the
// host would apply twice.
func ExampleChecker() {
	cl := lsstest.NewCluster(2, 2, 1)
	cfg := lss.Config{Cluster: cl}
	s, _ := lss.New(cfg)
	check, _ := lsstest.NewChecker(cfg)
	job := schedkittest.NewJob("j1", lsstest.T0, lsstest.T0.Add(time.Hour), 6, 1)
	_ = s.Submit(lsstest.T0, job)
	check.Submitted(job.ID())
	lookup := func(schedkit.JobID) schedkit.Job { return job }

	var ds []lss.Decision
	for _, node := range cl.NodeList {
		ds, _ = s.Heartbeat(lsstest.T0, node, ds) // bug: ds, not ds[:0]
		if err := check.Heartbeat(node, lookup, ds); err != nil {
			fmt.Println(err)
		}
		for _, d := range ds { // the host applies the decisions
			if d.Action == lss.Assign {
				_ = node.Take(1, float64(d.Count))
				for range d.Count {
					_ = job.Start(d.Phase, lsstest.T0)
				}
			}
		}
		_ = s.Update(job.ID())
		check.Updated(job.ID())
	}
	// Output:
	// lsstest: assign j1 map×1 on n00 (pass 1): heartbeat was from node "n01"
}
