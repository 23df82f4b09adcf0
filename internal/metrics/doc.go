// Package metrics turns a simulation's record, a sim.Run (one policy on
// one workload), into a Summary of every metric schedkit's experiments
// report, and lays summaries side by side in comparison Tables (policies
// as columns, metrics as rows) as plain data for schedsim to render.
//
// # Usage
//
//	sums := []metrics.Summary{metrics.Summarize(fifoRun), metrics.Summarize(lssRun)}
//	t := metrics.Compare("paper000-heavy", sums, metrics.StandardMetrics(sums))
//	per := metrics.ClassTable("per workflow", sums)
//
// # Definitions
//
//   - Deadline success ratio: among jobs with a deadline, those that
//     completed with Finish − Submit ≤ Deadline; killed, rejected and
//     unfinished jobs are misses. Overall and per Class.
//   - Response time: Finish − Submit of completed jobs (paper 000's
//     response time; paper 004 calls the same span the job completion
//     time, and its completion-time CDF is Summary.Response.CDF). Wait is
//     Start − Submit and Run is Finish − Start, also over completed jobs.
//     Each is a Dist: mean and sample standard deviation
//     (x/exp/stats.MeanAndStdDev), p50 and p95 (stats.Quantiles, R-7
//     interpolation), min, max, and the empirical CDF.
//   - Makespan: last end of a completed, killed or rejected job minus the
//     first submission (paper 004's workload completion time); n/a if any
//     job is unfinished.
//   - Cost: total and mean of sim.JobRecord.Cost. Budget success: among jobs
//     with a budget, those that completed with Cost ≤ Budget.
//   - φ success (paper 003's rule, its Job4 example): a φ = 1 job succeeds
//     if it meets its deadline, a φ = 0 job if it stays within budget, any
//     other φ (0.5) if either holds; a job without the constraint its φ
//     asks for succeeds if it completed; a job that did not complete never
//     succeeds. Overall and per φ value.
//   - Fairness: Jain's index (Σx)²/(n·Σx²) of each sim.Sample's Shares (or of
//     the sums in its Jain field, which give the same index), averaged
//     over samples; samples with no shares or all-zero shares are skipped
//     (the index is undefined there). UnmetFairness is the same mean over
//     the jobs with unmet demand only (sim.Sample.Unmet: ready tasks waiting
//     for a place), the jobs a DRF allocator is still filling; a job
//     holding nothing and wanting nothing counts in the first, not here.
//   - Utilisation: per kind, the mean over samples.
//   - Task records (sim.Run.Tasks, when the simulator recorded them): task
//     completion time is End − Start of a succeeded attempt.
//     CompletionBySize splits task and job completion times into small
//     and large (paper 004 figs. 12 and 15): a task is small if its
//     isolated work is ≤ 30 s, a job if it has ≤ 10 tasks (defaults;
//     stated in DefaultSmallTaskWork and DefaultSmallJobTasks).
//     HeldSeries is what each class (workflow) holds over time (paper 000
//     fig. 2), as the mean over windows of a fixed width (so a coarse
//     window still accounts for every slot-second): the slots held in a
//     slot space. HeldOverTime lays one run out as a table, HeldTable
//     several runs side by side.
//     CostMetrics adds mean cost, budget and per-φ success rows.
//   - Failed and retried tasks, decision wall time (total and per
//     decision), kills, rejections, and kills that could have made it (of
//     the killed or rejected jobs the simulator checked).
//
// # Tables
//
// A Table's Cells are for people ("64.7s", "0.947 (6288/6638)"); for
// machines each Row has a Key in snake_case ending in its unit
// ("response_mean_completed_s", "deadline_success_ratio", "jobs_count")
// and numeric Values (Row.Numbers also parses the cells of rows built
// from strings). Response and wait figures count completed jobs only, and
// their rows say so ("response mean (completed)"); the row "not
// completed" beside them counts the jobs they leave out, and a note says
// it whenever a policy left some.
//
// Undefined values (no jobs, no deadlines, no samples, no decisions) are
// never NaN: they are Numbers, Spans, Ratios and Dists that report
// invalid and print "n/a". Records that sim.Run.Validate rejects are left out
// of the metrics they would corrupt and listed in Summary.Warnings.
package metrics
