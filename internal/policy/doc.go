// Package policy adapts schedkit's algorithm packages to the simulator's
// host interface (sim.Policy): each file here is one host integration, the
// code a scheduler author would write to embed a schedkit package, run
// under the simulator so it can be judged against the baselines.
//
//   - lss.go: LSS runs an lss.Scheduler (NewLSS, LSSOptions, LSSStats):
//     Submit on arrival, Update after every counter change, Remove on job
//     end, decisions turned into assignments and kills.
//   - accel.go: Accel keeps a binding.Table fed with node joins, failures
//     and heartbeats and carries out its moves (NewAccel, AccelConfig).
//   - dbs.go: DBS runs a dbs.Scheduler (NewDBS, DBSOptions, DBSStats):
//     each job priced at its φ queue's price, Tick's promotions and
//     demotions turned into SetPrice decisions, heartbeats into
//     assignments; the ablations and options of dbs.Config.
//   - drop.go: DropAtDeadline wraps any policy so that a job still active
//     after its deadline is ended, the baselines' counterpart of lss's
//     kill at the deadline, for fair comparisons.
//
// Constructors return ErrConfig for an unusable configuration and the
// wrapped package's own typed errors as they are.
//
// # Usage
//
//	pol, err := policy.NewLSS(&cfg, policy.LSSOptions{SoftDeadlines: true})
//	if err != nil { ... }
//	s, err := sim.New(cfg, w, pol)
//	run, err := s.Run()
//	st := pol.Stats() // assignments, kills by reason, refusals
//
//	fifoDrop := policy.DropAtDeadline(baseline.NewFIFO())
package policy
