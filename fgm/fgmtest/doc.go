// Package fgmtest gives hosts of package fgm what fgm's own tests use,
// the way net/http/httptest serves net/http:
//
//   - Checker, the invariant checker a host runs beside its own
//     fgm.Scheduler in its integration tests, told what the host tells
//     the scheduler: every Allocate leaves each incompressible kind of
//     its server reserved within capacity, and each compressible kind
//     within the compression bound (6)/(7), at every instant the new
//     task reserves anything; decisions name only tasks the host
//     submitted and servers it registered; and the scheduler holds
//     exactly the tasks the host still runs (a host that forgets to
//     Release an ended task is caught).
//   - Host, a reference in-memory host: schedkittest's cluster and
//     nodes, tasks with staged true usage (Task), noisy usage samples
//     clamped at capacity, every decision applied as the package doc's
//     host duties say, and the Checker run after every operation.
//   - Oracle, an fgm.Estimator that predicts each Task's true usage.
//   - RandomEvent, seeded random events (arrivals, heartbeats, samples,
//     task ends and failures, Ticks, node joins and removals), and
//     Drive, which performs an event on an Integration: Host is one
//     (Host.Step), and a host's own integration can be another.
//
// # Usage
//
// A property test of a configuration:
//
//	rng := rand.New(rand.NewPCG(seed, 0))
//	space, _ := resource.NewSpace(resource.CPU, resource.Memory)
//	h, _ := fgmtest.NewHost(rng, space, fgm.Config{}, 4, resource.Vector{16, 64})
//	for range 2000 {
//		if err := h.Step(fgmtest.RandomEvent(rng)); err != nil {
//			t.Fatal(err)
//		}
//	}
//
// A host's own integration: the Checker beside its scheduler, and the
// seeded events driving it through an Integration the host's test
// implements over its own loop (OnSubmit submits one of its tasks,
// OnSchedule schedules one of its servers and starts what is placed, …):
//
//	check, _ := fgmtest.NewChecker(cfg)
//	// beside every Submit, Release, AddNode, RemoveNode:
//	// check.Submitted(id), check.Ended(id), ...
//	ds, err := sched.Schedule(now, node, ds[:0])
//	if err := check.Decided(now, ds); err != nil { t.Fatal(err) }
//	if err := check.Check(sched); err != nil { t.Fatal(err) }
//
//	for range 2000 {
//		if err := fgmtest.Drive(myIntegration, fgmtest.RandomEvent(rng)); err != nil {
//			t.Fatal(err)
//		}
//	}
package fgmtest
