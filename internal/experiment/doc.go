// Package experiment is the registry of schedsim's experiments: each one
// builds a workload and a cluster, runs a set of policies on them in the
// simulator (internal/sim) and returns comparison tables (policies as
// columns, metrics as rows, metrics.Table) with every assumption behind
// them.
//
// An experiment is data: setups (a workload on a cluster, Setup) ×
// columns (labelled policy variants, Column), grouped in grids (Grid),
// run by the one runner, RunGrids (parallel, deterministic, with progress
// on long runs), into Cells addressed by setup and column name, from
// which the experiment builds its tables. Named figures (FigureNamed),
// bounds (Bound), the papers' printed figures (PaperFigure), seed
// summaries (SeedTable) and the papers' headline claims (Claim, judged
// into the reproduction scorecard by Scorecard) read the same cells by
// name. The registry is an explicit list (registry.go), as are the named
// policies (policies.go): adding an experiment is one file that defines
// an Experiment value and one line in the list. Building blocks for such
// a file: SlotCluster, Paper000Workload, TraceWorkload, RunGrids, Compare
// and Rows.
//
// Each Experiment lists the optional Params it reads (Uses); Check
// refuses any other, so that a caller's setting is never silently
// ignored. Errors are classified for errors.Is — ErrParams, ErrUnknown,
// ErrInput (a trace file: its message names file, line and field), ErrRun
// — without adding their own text, so the caller prints one prefix.
// Trace replays state their offered load (OfferedLoad) and can size the
// cluster for a target load (Params.Load).
//
// Results depend only on Params (scale, seed, policies): runs are
// deterministic and independent of how many run in parallel. The policies'
// wall-clock decision time is left out of the tables unless Params.Timing
// is set, because it is not.
//
// Per-task figures need the simulator's task records
// (sim.Config.RecordTasks), which only small experiments turn on:
// paper000-light/heavy and lss at the paper's load print the slots each
// workflow held over time (paper 000 fig. 2; schedsim -svg plots it), the
// paper-004 experiments small vs large task and job completion (figs. 12
// and 15; records dropped once counted), and the paper-003 experiments
// add paper 003's cost rows (metrics.CostMetrics: mean cost, success and
// mean cost per φ).
//
// Capacity and DRF with pools ("capacity", "drf-pools") differ only in
// the order within a queue: Capacity serves a queue's jobs in submission
// order, as Hadoop's Capacity Scheduler does, DRF(pools) by dominant
// share (see package baseline; TestPolicyWiring checks each name builds
// its baseline). In paper003, where every job is its own class and
// queue, Capacity equals plain DRF: each queue holds one job.
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
