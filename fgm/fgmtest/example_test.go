package fgmtest_test

import (
	"fmt"
	"math/rand/v2"
	"time"

	"github.com/schedkit/schedkit"
	"github.com/schedkit/schedkit/fgm"
	"github.com/schedkit/schedkit/fgm/fgmtest"
	"github.com/schedkit/schedkit/resource"
	"github.com/schedkit/schedkit/schedkittest"
)

// A property test of fgm's default configuration: 3,000 seeded random
// events on the reference host, every invariant checked after each.
func ExampleHost() {
	space, _ := resource.NewSpace(resource.CPU, resource.Memory)
	rng := rand.New(rand.NewPCG(1, 2))
	h, _ := fgmtest.NewHost(rng, space, fgm.Config{}, 4, resource.Vector{16, 64})
	for range 3000 {
		if err := h.Step(fgmtest.RandomEvent(rng)); err != nil {
			fmt.Println(err)
			return
		}
	}
	fmt.Println("work done:", h.Placed > 100, h.Completed > 100, h.Failed > 0)
	// Output:
	// work done: true true true
}

// The same host making a mistake: it ends tasks without calling
// Release. The scheduler keeps their reservations, and the Checker says
// so at the first task end.
func ExampleHost_forgetRelease() {
	space, _ := resource.NewSpace(resource.CPU, resource.Memory)
	rng := rand.New(rand.NewPCG(1, 2))
	h, _ := fgmtest.NewHost(rng, space, fgm.Config{}, 4, resource.Vector{16, 64})
	h.ForgetRelease = true
	for range 3000 {
		if err := h.Step(fgmtest.RandomEvent(rng)); err != nil {
			fmt.Println(err)
			return
		}
	}
	// Output:
	// fgmtest: the scheduler holds 11 running tasks, the host runs 9 (a task ended without Release, or a Reclaim not carried out)
}

// A host's own integration test runs a Checker beside its scheduler.
// This host starts a task on the node Schedule placed it on, and when
// the task ends it forgets to Release it: the Checker catches it.
func ExampleChecker() {
	space, _ := resource.NewSpace(resource.CPU, resource.Memory)
	cl := schedkittest.NewCluster(space)
	n := cl.AddNode("n1", "r1", resource.Vector{16, 64})
	cfg := fgm.Config{Cluster: cl}
	s, _ := fgm.New(cfg)
	check, _ := fgmtest.NewChecker(cfg)
	now := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)

	t := &schedkittest.Task{Key: "t1", JobKey: "j1", Request: resource.Vector{4, 8}}
	_ = s.Submit(now, t)
	check.Submitted(t.ID())
	ds, _ := s.Schedule(now, n, nil)
	if err := check.Decided(now, ds); err != nil {
		fmt.Println(err)
	}
	fmt.Println(ds[0].Task, "runs on", ds[0].Node)

	// The task ends: the host's bookkeeping (and the checker) learn it,
	// but the host forgets s.Release(now, "t1", true).
	check.Ended(schedkit.TaskID("t1"))
	if err := check.Check(s); err != nil {
		fmt.Println(err)
	}
	// Output:
	// t1 runs on n1
	// fgmtest: the scheduler holds 1 running tasks, the host runs 0 (a task ended without Release, or a Reclaim not carried out)
}
