package dbstest_test

import (
	"fmt"
	"math/rand/v2"
	"time"

	"github.com/schedkit/schedkit"
	"github.com/schedkit/schedkit/dbs"
	"github.com/schedkit/schedkit/dbs/dbstest"
	"github.com/schedkit/schedkit/resource"
	"github.com/schedkit/schedkit/schedkittest"
)

// A property test of a configuration: the reference host through 3,000
// seeded random events, every invariant checked after each.
func ExampleHost() {
	rng := rand.New(rand.NewPCG(1, 2))
	h, err := dbstest.NewHost(rng, dbstest.NewCluster(4, 2, 1), dbs.Config{})
	if err != nil {
		panic(err)
	}
	for i := range 3000 {
		if err := h.Step(dbstest.RandomEvent(rng)); err != nil {
			fmt.Printf("event %d: %v\n", i, err)
			break
		}
	}
	fmt.Println("work done:", h.Assigned > 0, h.Completed > 0, h.Moves > 0)
	// Output:
	// work done: true true true
}

// A host's own integration test, with a host that keeps charging a job
// the price of the queue it started in after model 3 moved it (host
// duty 4 says: charge the move's Price from then on). The Checker's
// cost check finds the difference at the next update.
func ExampleChecker() {
	cl := dbstest.NewCluster(1, 10, 5)
	node := cl.NodeList[0]
	cfg := dbs.Config{Cluster: cl, DefaultTaskTime: 30 * time.Second}
	s, _ := dbs.New(cfg)
	check, _ := dbstest.NewChecker(cfg)
	t0 := dbstest.T0
	job := &dbstest.Job{Job: schedkittest.NewJob("both", t0, t0.Add(400*time.Second), 20, 2), PhiValue: 0.5, Money: 40}
	_ = s.Submit(t0, job)
	check.Submitted(t0, job)
	lookup := func(schedkit.JobID) dbs.Job { return job }

	// One free map slot: the job gets it and starts a task.
	node.Free = resource.Vector{1, 0}
	ds, _ := s.Heartbeat(t0, node, nil)
	if err := check.Heartbeat(node, lookup, ds); err != nil {
		fmt.Println(err)
	}
	_ = job.Start(schedkit.PhaseMap, t0)
	_ = check.Started(job.ID(), t0)
	_ = s.Update(job.ID())
	check.Updated(job.ID())

	price := s.Queues()[dbs.Mid].Price // bug: never changed
	for i := 1; i <= 4; i++ {
		now := t0.Add(time.Duration(i) * dbs.DefaultInterval)
		job.Paid += price * dbs.DefaultInterval.Seconds()
		moves, _ := s.Tick(now, nil)
		if err := check.Tick(now, moves); err != nil {
			fmt.Println(err)
		}
		for _, m := range moves {
			fmt.Println(m)
		}
		if err := check.Cost(now, job); err != nil {
			fmt.Println(err)
			break
		}
	}
	// Output:
	// promote both mid→high (held 1 needed 2, W 0.54 avg 0.36)
	// dbstest: job "both" costs 0.045 at 2014-03-01 08:00:01.5 +0000 UTC; its slot-seconds at the prices in force make 0.055
}
