// Command schedsim runs schedkit's simulator experiments (package
// internal/experiment) and prints comparison tables: policies as columns,
// metrics as rows, then the assumptions behind each workload.
//
// With no flags it runs the default suite: the baselines (FIFO, Fair,
// Capacity, DRF, EDF) on paper 000's light and heavy workflows (with
// lss, the paper's algorithm) and on the FB-2009 day from the SWIM
// project, then every paper's other experiments, each with the paper's
// algorithm beside the baselines, and ends with a reproduction
// scorecard: for each paper's headline claim, the paper's figure, the
// paper's algorithm here, the best baseline here and whether the claim
// holds, judged from the same runs (experiment.Scorecard). Results are
// deterministic for a seed; the results files
// (internal/experiment/results) are generated from its runs and a test
// keeps them current.
//
// Every experiment runs at its compact size (a fraction of its full size
// for lss, dbs, fgm, accel and paper004-online/cloud, which -list states),
// whether the default suite runs it or -experiment names it, so naming
// one experiment never takes longer than the suite's share of it. -full
// runs the full size, which the results files use where they say so and
// which can take minutes per experiment.
//
// # Usage
//
//	go run ./internal/cmd/schedsim                      # default suite
//	go run ./internal/cmd/schedsim -list                # experiments, policies
//	go run ./internal/cmd/schedsim -experiment paper000-heavy -policies fifo,edf
//	go run ./internal/cmd/schedsim -experiment dbs -full     # full size: minutes
//	go run ./internal/cmd/schedsim -trace jobs.swf -nodes 128 -out csv
//	go run ./internal/cmd/schedsim -trace day.tsv -load 0.8  # size the cluster for 80% load
//	go run ./internal/cmd/schedsim -svg plots           # also write SVG plots
//
// -h explains every flag. Bad flags or input files exit with status 2
// and one line on stderr, "schedsim: " and then what is wrong, e.g.
//
//	schedsim: -nodes 0: want 1 to 100000
//	schedsim: experiment lss does not use -trace
//	schedsim: x.tsv:4: reduce_output_bytes: 1e18 bytes exceeds the limit 1e15
//
// A flag an experiment does not use is an error, never silently ignored
// (experiment.Experiment.Uses); a failed run exits with status 1.
//
// # Trace replays
//
// A replay (-trace) runs every policy of -list unless -policies names
// some. It states its offered load — per slot kind, the task time it
// asks for at isolated speed over the capacity times the span of
// submissions — in its assumptions, and warns on stderr and in a table
// note when a kind is offered more than 100%: queues then grow for the
// whole trace. -load L picks the fewest workers that keep the busiest
// kind at or below L. Readers' warnings (SWIM gaps contradicting submit
// times) are echoed the same way.
//
// # Output
//
// Text output is for people. -out csv and -out json carry numbers:
// every metric has a snake_case key ending in its unit
// ("response_mean_completed_s", "deadline_success_ratio", "jobs_count"),
// its values in that unit (empty or null where undefined), the display
// text beside them, and the tables' notes and the assumptions. Response
// and wait figures count completed jobs only: their rows say
// "(completed)", the row "not completed" beside them counts the jobs they
// leave out, and -svg's response-time CDFs end at each policy's completed
// share. Plots are named after the experiment, or for -trace after the
// trace file (trace-NAME-response-cdf.svg). Experiments that record task
// attempts (paper000-light/heavy; lss at the paper's load) also get, per
// policy, the slots each workflow held over time (paper 000 fig. 2,
// NAME-held-POLICY.svg), as means over round windows.
//
// Runs longer than a few seconds report progress on stderr every 3 s of
// wall-clock time.
package main
