// Package lss is the least spare time scheduler of paper 000 (Yang, Teng,
// Li, Li, 2013): on every node heartbeat it decides which deadline job
// gets the node's free slots — the one with the least spare time (laxity)
// first — and which jobs to kill early because they can no longer make
// their deadline.
//
// Spare time is formula (1): Deadline − Now − Remaining, with Remaining
// from formula (3) and the average task time of formula (2), both in
// package estimate; before any task of a job has finished it is formula
// (5), Deadline − Now. On each heartbeat the Scheduler runs Algorithm 1:
// recompute, kill the jobs whose deadline has passed or whose Spare +
// Tavg < 0 (Tavg known), sort by least spare time (ties: earlier
// deadline, earlier submission, ID), then pass 1 gives one map to each
// job with no finished and no running task, pass 2 fills the map slots in
// order, pass 3 the reduce slots with ready reduces in order. Decisions
// come back as values (Decision: assignments, kills with their reason and
// figures); the host carries them out.
//
// # Usage
//
// The host implements schedkit.Job, Node and Cluster over its own state
// (see the Example) and drives the scheduler from its scheduling loop:
//
//	sched, err := lss.New(lss.Config{Cluster: cluster})
//	...
//	err = sched.Submit(now, job)          // a job arrives
//	err = sched.Update(job.ID())          // its counters changed
//	err = sched.Remove(job.ID())          // it finished or was withdrawn
//	decisions, err = sched.Heartbeat(now, node, decisions[:0])
//	for _, d := range decisions {
//		switch d.Action {
//		case lss.Assign: // start d.Count ready tasks of d.Phase of d.Job on d.Node, then Update
//		case lss.Kill:   // kill d.Job; d.Reason and d.Figures say why
//		}
//	}
//
// The scheduler reads a job's counters only in Submit and Update, and
// counts its own assignments as started until the job's next Update, so
// no task or slot is handed out twice even if several nodes heartbeat
// before the host applies anything. A killed job leaves the queue with
// its Kill decision. Example_hostLoop is a complete host loop.
//
// # Host duties
//
// The host owns the state and the clock; the scheduler trusts what it is
// told only as far as it can check (every breach it can detect is a
// typed error that changes nothing). The host must:
//
//  1. Implement schedkit.Job, Node and Cluster over its own state; the
//     Cluster lists the live nodes and its Capacity is the sum of theirs
//     (check with schedkit.CheckCluster in tests).
//  2. On a job's arrival call Submit(now, job), with a non-zero
//     job.Submitted() ≤ now. A refused job (any error) is not queued.
//  3. Give times that never run backwards: each Submit and Heartbeat at
//     or after the latest one before it (else ErrStaleTime).
//  4. Keep each job's counters with PhaseProgress.Start, Finish, Stop and
//     MakeReady (they keep RunningStartSum right), and call Update(id)
//     after every change to a queued job's counters: a task started,
//     ended, failed, was lost with its node, or became ready.
//  5. On each node's heartbeat call Heartbeat(now, node, ds[:0]) with a
//     node of the Cluster (else ErrUnknownNode) whose Available excludes
//     the slots of assignments it was given and has not started yet, and
//     never exceeds its Capacity (else ErrInvalidNode). The node value
//     must be the Cluster's node of its ID, or agree with it: a value
//     whose Capacity differs from that node's (a stale value, taken
//     before the node was resized) is refused with ErrInvalidNode, never
//     used. A Cluster that implements schedkit.NodeLookup lets the
//     membership check take O(1) for any ID; without it, a heartbeat of
//     an ID the scheduler has not seen in the cluster rescans it.
//  6. Carry out every decision, in order: Kill — kill the job's running
//     tasks and free their slots; Assign — start Count ready tasks of
//     Phase on Node, taking the slots, then Update the job; Infeasible
//     (SoftDeadlines) — the job stays queued: tell its owner.
//  7. Call Remove(id) when a job completes or is withdrawn; never Remove
//     or Update a killed job: its Kill already dropped it (ErrUnknownJob).
//  8. Call the Scheduler from one goroutine (the scheduling loop).
//  9. In its tests, run lsstest.Checker beside the Scheduler, or drive
//     its configuration through lsstest.Host.
//
// # Options
//
// Every option is off by default (the paper's algorithm); see Config:
// SoftDeadlines (report Infeasible instead of killing), PerPhaseTaskTime
// (formula (2) per phase), Heterogeneous with NodeSpeeds (slots weighted
// by node speed in formula (3) — the paper's future work; speeds in
// [0.001, 1000], counted in thousandths), PhaseKinds
// with more than two phases (sequential stages, one slot kind each),
// Admission (refuse at Submit a job that could not make its deadline
// even alone on the whole cluster, judged by its observed task time, its
// TaskTimeHint, or Config.AdmissionTaskTime, in that order),
// PhaseTaskTimeHints (per-phase task time priors, below), WaveRemaining,
// OptimisticKill and NoFirstMapPass (below), and Literal. Recommended returns the
// configuration this package recommends over the paper's.
//
// # Wrong early kills and the recommended configuration
//
// The early kill (Spare + Tavg < 0) is what makes lss better than FIFO
// under load, and a wrong one (a job killed that would have met its
// deadline) is the worst thing it can do to a user. Replaying the
// FB-2009 trace day (5,894 jobs on 600 workers × (2 map + 2 reduce),
// deadlines k × the job's time alone, k ~ U[1.5, 4]) with a record of
// every kill, 10 of the paper's 12 early kills are wrong: the job met its
// deadline when left to run, and 10 of its 67 kills (15%) could have made
// it. Every wrong kill has the same shape: the maps are in their last
// wave (all unfinished maps running, far fewer than the cluster's 1,200
// map slots), the single reduce has not finished (often it started early,
// by slow-start, and waits for the maps), and about one Tavg is left to
// the deadline. Formula (3) then estimates about 2·Tavg, from two errors:
//
//  1. The running tasks are credited ΣR/S, their elapsed time spread over
//     the whole cluster's slots: 47 running maps earn under a second on
//     1,200 slots, so their last wave still counts almost a whole Tavg
//     however far along its tasks are.
//  2. A phase that has finished no task is priced at the pooled average,
//     a map's time (23 s), while those reduces take 2–5 s.
//
// The Tavg tolerance of the kill rule does not cover 2·Tavg. Two options
// remove these errors; both keep formula (5), the deadline rule and the
// two implementations' agreement (waves.go describes the models):
//
//   - WaveRemaining replaces formula (3), for order and kills, by a wave
//     model: each phase's running tasks end after the task time minus
//     their mean elapsed time, its pending ones follow in
//     ⌈pending/slots⌉ waves. It removes error 1 (3 early kills, all
//     wrong, on the day) but not error 2.
//   - OptimisticKill keeps the order of formula (3) and kills early only
//     when even an optimistic bound misses the deadline: the wave model
//     with pending tasks beside the running ones, each phase priced at
//     most at its own observed task time and at zero before it has one,
//     and no Tavg tolerance. It removes both errors: no early kill is
//     wrong on the day at 600 workers, 2 of 248 kills on 100 workers.
//
// A third option removes a loss that is not a wrong kill. Algorithm 1's
// first pass gives one map to every job with no finished and no running
// task before any job gets a second; under load it spreads the map slots
// over every job that arrives, so many start and few finish by their
// deadline. NoFirstMapPass drops it: a fresh job takes its turn in
// least-spare-time order (by formula (5) after the started jobs closer to
// their deadline). On paper 000's workflows at 100% load it raises
// deadline success from 0.435 to 0.658 (light) and from 0.394 to 0.532
// (heavy), and at the paper's heavy load from 0.935 to 0.981.
//
// Recommended is the paper's algorithm with OptimisticKill and
// NoFirstMapPass. In the lss experiment (schedsim -experiment lss, seed 1:
// paper 000's workflows from 40% to 120% load, light and heavy deadlines,
// and the FB-2009 day on 600 and 100 workers) its deadline success is at
// least that of FIFO, Fair, Capacity, DRF, EDF and FIFO and EDF ending
// jobs at their deadline at every load of the paper's workflows (0.981
// against EDF's 0.981 at the paper's heavy load, 0.529 against
// EDF-drop's 0.519 at 100% heavy, 0.400 against 0.390 at 120% heavy),
// and within 4 jobs of the best of them on the FB-2009 day (5,842 of
// 5,894 against EDF's 5,846 on 600 workers; 5,648 against EDF-drop's
// 5,649 on 100). None of its early kills on the FB-2009 day could have
// made it (0 of 52 kills on 600 workers, 0 of 246 on 100). WaveRemaining
// is not part of it: OptimisticKill removes the wrong kills without it,
// and the two together met fewer deadlines in overload than
// OptimisticKill alone (0.342 against 0.374 at 100% heavy load, both
// with the first pass). The heartbeat cost stays within the
// indexed implementation's bounds, with no allocation
// (BenchmarkHeartbeatRecommended).
//
// What none of them removes: formula (3) prices a phase with nothing
// finished at the pooled average, a map's time. On paper 000's own
// workflows the WordCount model gives W1/W4's single reduce about 5.7
// maps' time, so W4 looks laxer than it is near its end; with a reduce
// that takes a map's time — the paper's own assumption — the paper's rule
// reaches 0.987 at the paper's heavy load and the recommended
// configuration 0.994 (EDF 0.990).
//
// # Per-phase task time priors
//
// The paper prices every unfinished task in formula (3) at the pooled
// average, which for MapReduce is a map's time: a job whose single reduce
// takes five maps' time looks laxer than it is until the very end, and
// the per-phase option cannot help while the reduce phase has no finished
// task. With PhaseTaskTimeHints, a job implementing PhaseTaskTimeHinter
// declares an a-priori task time per phase (a host's mean from earlier
// runs of the same job), and the rule for phase p in (3) is:
//
//   - p has finished tasks of its own: the observed figure, exactly as
//     without the option (p's own average with PerPhaseTaskTime, else the
//     pooled one);
//   - otherwise p's hint, if the job gives a positive one;
//   - otherwise the pooled average, as without the option.
//
// Only (3) changes: before any task of the job has finished formula (5)
// applies as in the paper (there is no observed figure to trust the
// hints against), and the kill threshold stays the pooled Tavg. Hints
// are read with the counters, at Submit and Update, so both
// implementations see the same snapshot. A missing hint (ok false) or a
// zero one is none; a negative hint or one beyond estimate.Horizon is an
// ErrInvalidJob at Submit or Update (nothing changes). A legal but huge
// hint is trusted: a job whose hinted work exceeds its deadline is killed
// early like any other (SpareExhausted). See estimate.PriorTaskTime.
//
// # Two implementations
//
// Literal is Algorithm 1 as printed: every heartbeat recomputes and sorts
// the whole queue, O(n log n). The default is indexed: a
// job's spare time is constant minus now until its counters change,
// unless it has running tasks and a known Tavg; the first kind of job is
// kept in heaps whose order never changes and whose kill times are
// known in advance, the second (no more than the cluster's running
// tasks) is evaluated per heartbeat. A heartbeat touches only the kills
// due, the dynamic jobs and the heads of the heaps. Both use the same
// integer arithmetic (package estimate: whole nanoseconds, exact ceilings,
// ΣR/S rounded down per phase) and the same tie-breaks, and are required
// to make identical decisions by a property test and a fuzz target.
//
// # Reconstructions and choices
//
//   - Kill rules apply on every heartbeat, also of a node with no free
//     slot. "Deadline passed" is Now after Deadline. The Tavg of the kill
//     threshold is the pooled average in every mode.
//   - A phase with unfinished work and no slots makes Remaining "cannot
//     finish" and the spare time −∞ (estimate.Remaining.CannotFinish with
//     NoCapacity). The paper never meets this; a host does, during a
//     rolling restart that momentarily takes every slot of a kind away.
//     Killing every job with work of that kind for it would be wrong (the
//     slots come back), so by default no job is killed early, nor
//     reported infeasible, on a spare time of −∞ due to missing
//     capacity: it is reported instead, in Figures.Remaining.NoCapacity
//     (Order, decisions), the job sorts first, and the deadline rule
//     still applies. Admission admits such a job (nothing to judge by).
//     Work beyond estimate.Horizon on existing slots is still
//     SpareExhausted.
//   - Which reduce tasks are ready is the host's knowledge
//     (PhaseProgress.Ready); lss assigns only ready tasks, in every pass.
//   - Jobs without a deadline (zero Deadline) are never killed and come
//     after every deadline job, by submission then ID.
//   - Pass 1 counts tasks assigned since the job's last Update as running,
//     so a job gets at most one first map, even across heartbeats.
//   - Kills are listed in queue order at the heartbeat; a job meeting
//     both rules is reported as DeadlinePassed.
//   - Times are held as nanosecond offsets from the first now a Submit or
//     Heartbeat succeeded with, and must stay within 2⁶⁰ ns (about 36
//     years) of it (ErrTimeRange), which keeps all arithmetic exact in
//     int64: every now, and a job's submission and deadline (a Submit
//     whose job gives one out of range is refused, also on the first
//     call); Order and Queue, which change nothing, check range only.
//
// # Concurrency
//
// A Scheduler is not safe for concurrent use; call it from one scheduling
// loop, as a Hadoop JobTracker does.
package lss
