// Package estimate holds the runtime estimators schedkit's schedulers
// share: the least-spare-time figures of paper 000 §3.1 (lss, dbs), and
// similar-task demand profiles of paper 004 §2.2 (History, for fgm; see
// "Demand profiles" below). The least-spare-time figures:
//
//	(2) T_AvgTask   = Σ T_FinishedTask / N_FinishedTask          TaskTime, PooledTaskTime, PhaseTaskTime, PriorTaskTime
//	(3) T_Remaining = (⌈U_m/S_m⌉ + ⌈U_r/S_r⌉)·T_AvgTask
//	                  − ΣR_m/S_m − ΣR_r/S_r                     Remaining, RemainingTime
//	(4) T_Spare     = T_DeadLine − T_Now − T_Remaining          Spare, SpareTime
//	(5) T_Spare     = T_DeadLine − T_Now  (no task finished)     InitialSpareTime
//
// generalised to any number of sequential phases (formula (3) sums over
// them) and to heterogeneous slots, where S is an effective capacity: each
// node's slots weighted by its speed factor (see Capacity).
//
// # Task time per phase
//
// The paper pools map and reduce tasks in T_AvgTask. Two variants choose
// each phase's T in (3) differently (Options):
//
//   - PerPhase: the phase's own average once it has a finished task,
//     the pooled one before (PhaseTaskTime).
//   - Priors: an a-priori task time per phase (e.g. the mean of earlier
//     runs of the same job) stands in for a phase until it has a finished
//     task of its own; from then on the observed figure (per-phase or
//     pooled, as PerPhase says) takes over (PriorTaskTime). Priors change
//     only formula (3): before any task of the job has finished, formula
//     (5) still applies, and the kill threshold stays the pooled average.
//     A zero prior means none; a negative one, or one beyond Horizon, is
//     an error.
//
// # Demand profiles
//
// History learns, per schedkit.SimilarityKey (paper 004 definition 3:
// same logic, same data size), what a task demands over its life from
// finished similar tasks' usage samples, normalising samples taken under
// compression by inverting formula (4), smoothing iteratively, and
// cutting the curve into stages where demand changes; it predicts a
// Profile (stages of demand and duration) for the next similar task, or
// nothing while a key has too few observations (the task is then
// "unpredictable" and gets its requested quantity). Its memory is
// bounded per key and in keys: the least recently observed key is
// evicted. Predict is a pure read — it does not count as a use — because
// a read must not change future decisions: hosts predict for
// explanations and what-ifs, possibly from several goroutines under a
// read lock, and which keys a scheduler predicts depends on its queue
// scan, so eviction by prediction would tie what is forgotten to the
// scheduling order. See History for every rule.
//
// # Cannot finish
//
// A phase with unfinished work and zero capacity never finishes. Instead
// of dividing by zero, RemainingTime reports CannotFinish (and
// NoCapacity), and the spare time computed from it is minus infinity
// (Spare.CannotFinish).
//
// # Arithmetic
//
// Every figure is an integer time.Duration, so two computations from the
// same counters agree to the nanosecond (lss relies on it to prove its
// fast path equal to the paper's literal algorithm):
//
//   - T_AvgTask is rounded down to a nanosecond; pooled sums are taken in
//     128 bits.
//   - ⌈U/S⌉ is exact. Capacities are counted in thousandths of a slot
//     (Capacity), so ⌈U/S⌉ = ⌈1000·U / S⌉ in 128-bit arithmetic; for whole
//     slots this is the plain ⌈U/S⌉.
//   - ΣR/S is rounded down to a nanosecond for each phase, so T_Remaining
//     is rounded up (by less than a nanosecond per phase): an estimate
//     that errs, if at all, on the side of less spare time.
//   - Figures are bounded by Horizon (2⁶⁰ ns, about 36.5 years): work
//     beyond it is CannotFinish, elapsed credit is capped at it.
//
// # Usage
//
//	rem, err := estimate.RemainingTime([]estimate.PhaseLoad{
//		{Unfinished: 10, Elapsed: 30 * time.Second, TaskTime: 20 * time.Second, Capacity: 4 * estimate.Slot},
//		{Unfinished: 1, TaskTime: 20 * time.Second, Capacity: 2 * estimate.Slot},
//	})
//	// rem.Time = (⌈10/4⌉ + ⌈1/2⌉)·20s − 30s/4 = 80s − 7.5s = 72.5s
//	spare := estimate.SpareTime(deadline, now, rem)
//
// or, for a schedkit.Job, EstimateJob does all of it. The least-spare-time
// functions are pure, safe for concurrent use; a History is a learner,
// not safe for concurrent use:
//
//	h, _ := estimate.NewHistory(estimate.HistoryConfig{Space: space}) // defaults for the rest
//	_, _ = h.Observe(key, samples) // a similar task finished: its usage samples
//	if p, ok := h.Predict(key); ok { /* p.Stages: demand and duration per stage */ }
//
// # Caller duties
//
//  1. Validate counters once where they enter (EstimateJob does;
//     schedkit.PhaseProgress.Validate), then evaluate them as often as
//     needed with Evaluate, which assumes them valid and cannot fail.
//  2. Count capacities in thousandths of a reference slot (Slot,
//     SlotCapacity), so heterogeneous speeds stay exact.
//  3. Treat CannotFinish as a result, not an error: NoCapacity says a
//     phase has no slots at all (a cluster state), otherwise the work is
//     beyond Horizon.
//  4. Print a Spare with its String ("cannot finish"), never its Time
//     alone (−∞ is math.MinInt64).
//  5. Feed a History only finished tasks' samples, each with the
//     compression rate the task ran under (what the host enforced), and
//     give a task with no prediction its requested quantity.
//
// Evaluate is the one implementation of formulas (2)–(5): RemainingTime,
// EstimateJob and package lss all go through it.
//
// # Errors
//
// Every error is an *Error wrapping ErrInvalid and, where another package
// found the fault (a job's inconsistent counters, a sample's bad usage
// vector), that package's error as Cause, so errors.Is finds both
// (schedkit.ErrInvalidProgress, resource.ErrNegative, …). A function
// that returns an error has changed nothing.
package estimate
