// Package lsstest gives hosts of package lss what lss's own tests use, the
// way net/http/httptest serves net/http:
//
//   - Host, a reference in-memory host (schedkittest's jobs, nodes and
//     cluster) that drives one or several lss.Schedulers in lockstep,
//     applies their decisions as a host must, and checks every invariant
//     after every operation;
//   - Checker, the invariant checker a host runs beside its own
//     scheduler in its own integration tests: no slot handed out twice,
//     no task started twice, nothing for a job that is not queued;
//   - RandomEvent, a seeded random event generator (arrivals,
//     heartbeats, task ends, withdrawals, node failures and joins, bad
//     input), and Drive, which performs an event on an Integration: Host
//     is one, and a host's own integration can be another.
//
// # Usage
//
// A property test of a configuration: Host requires every scheduler it
// drives to make the same decisions, so it compares the indexed and the
// literal implementation of one configuration (lss.Config.Literal); it
// does not compare two configurations, whose decisions differ.
//
//	rng := rand.New(rand.NewPCG(seed, 0))
//	lit := myConfig
//	lit.Literal = true
//	h := lsstest.NewHost(rng, lsstest.NewCluster(4, 2, 1), 2,
//		[]lss.Config{myConfig, lit}, t.Fatalf)
//	for range 1000 {
//		h.Step(lsstest.RandomEvent(rng))
//	}
//
// A host's own integration: the Checker beside its scheduler, and the
// seeded events driving it through an Integration the host's test
// implements over its own loop (OnArrival submits one of its jobs,
// OnHeartbeat lets time pass and heartbeats one of its nodes, …):
//
//	check, _ := lsstest.NewChecker(cfg)
//	// beside every Submit, Update, Remove: check.Submitted(id), ...
//	// and after every Heartbeat:
//	ds, err := sched.Heartbeat(now, node, ds[:0])
//	if err := check.Heartbeat(node, host.job, ds); err != nil { t.Fatal(err) }
//
//	for range 1000 {
//		lsstest.Drive(myIntegration, lsstest.RandomEvent(rng))
//	}
package lsstest
