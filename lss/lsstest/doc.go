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
//   - RandomEvent and Step, a seeded random event generator (arrivals,
//     heartbeats, task ends, withdrawals, node failures and joins, bad
//     input), also driven from fuzz input.
//
// # Usage
//
// A property test of a configuration against the paper's:
//
//	rng := rand.New(rand.NewPCG(seed, 0))
//	h := lsstest.NewHost(rng, lsstest.NewCluster(4, 2, 1), 2,
//		[]lss.Config{myConfig, {Literal: true}}, t.Fatalf)
//	for range 1000 {
//		h.Step(lsstest.RandomEvent(rng))
//	}
//
// A host's own integration:
//
//	check, _ := lsstest.NewChecker(cfg)
//	// beside every Submit, Update, Remove: check.Submitted(id), ...
//	ds, err := sched.Heartbeat(now, node, ds[:0])
//	if err := check.Heartbeat(node, host.job, ds); err != nil { t.Fatal(err) }
package lsstest
