// Package experiment is the registry of schedsim's experiments: each one
// builds a workload and a cluster, runs a set of policies on them in the
// simulator (internal/sim) and returns comparison tables (policies as
// columns, metrics as rows, metrics.Table) with every assumption behind
// them.
//
// The registry is an explicit list (registry.go), as are the named
// policies (policies.go): adding an experiment is one file that defines an
// Experiment value and one line in the list. Building blocks for such a
// file: SlotCluster, Paper000Workload, TraceWorkload, RunCases (parallel,
// deterministic, with progress on long runs), Compare and Rows.
//
// Results depend only on Params (scale, seed, policies): runs are
// deterministic and independent of how many run in parallel. The policies'
// wall-clock decision time is left out of the tables unless Params.Timing
// is set, because it is not.
//
// # Usage
//
//	e, err := experiment.Lookup("paper000-light")
//	if err != nil { ... }
//	p := experiment.Defaults()
//	p.Scale = 0.5
//	res, err := e.Run(p)
//	for _, t := range res.Tables { ... } // render as text, CSV or JSON
package experiment
