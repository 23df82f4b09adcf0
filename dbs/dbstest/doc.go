// Package dbstest gives hosts of package dbs what dbs's own tests use:
// an invariant Checker to run beside a scheduler after every operation
// of a host's own integration, a reference in-memory Host that keeps
// every host duty of package dbs (its jobs, Job, and NewCluster's
// cluster are the fixtures of dbs's own tests), and seeded random events
// (RandomEvent) with Drive, which performs an event on an Integration:
// Host is one, and a host's own integration can be another.
//
// A property test of a configuration: the Host runs a scheduler through
// seeded random events, its Checker after each:
//
//	rng := rand.New(rand.NewPCG(1, 2))
//	h, err := dbstest.NewHost(rng, dbstest.NewCluster(4, 2, 1), dbs.Config{})
//	for range 2000 {
//		if err := h.Step(dbstest.RandomEvent(rng)); err != nil {
//			t.Fatal(err) // an invariant broken, or a scheduler error
//		}
//	}
//
// A host's own integration: implement Integration over the host's own
// loop (OnArrival submits one of its jobs, OnHeartbeat heartbeats one of
// its nodes and starts what is assigned, …) and drive it with the same
// seeded events:
//
//	for range 2000 {
//		if err := dbstest.Drive(myIntegration, dbstest.RandomEvent(rng)); err != nil {
//			t.Fatal(err)
//		}
//	}
//
// and, inside it, tell the Checker what the host tells the scheduler
// (Submitted, Updated, Removed), what the scheduler decided (Heartbeat,
// Tick) and when tasks start and end (Started, Ended); ask it to check
// each job's cost (Cost). Each method returns an error for a broken
// invariant:
//
//   - a slot handed out twice (more tasks of a kind on a node than it had
//     free), a task started twice (more than the job had ready and not
//     yet assigned since its last Update), a decision for a job not
//     queued (never submitted, or removed), for another node, or with a
//     count below 1;
//   - a move that skips a queue, starts from a queue the job is not in,
//     or is not priced at its queue's price;
//   - a job's CostSoFar other than Σ price × slot-seconds at the price in
//     force when each slot-second was used (host duties 3 and 4).
package dbstest
