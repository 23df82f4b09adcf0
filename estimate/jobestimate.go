package estimate

import (
	"reflect"
	"time"

	"github.com/schedkit/schedkit"
)

// Options selects variants of the formulas. The zero Options is the
// paper's.
type Options struct {
	// PerPhase averages task times per phase instead of pooling all
	// finished tasks (formula (2) restricted to the phase). A phase with
	// no finished task yet takes the pooled average.
	PerPhase bool
	// Priors, if not nil, holds an a-priori task time per phase (zero:
	// none), used in formula (3) for a phase until it has finished tasks
	// of its own (see PriorTaskTime). Formula (5) still applies before
	// any task of the job has finished, and the kill threshold stays the
	// pooled average. Entries beyond the job's phases are ignored; a
	// negative entry or one beyond Horizon is an error.
	Priors []time.Duration
}

// JobEstimate is formulas (2)–(5) for one job at one instant.
type JobEstimate struct {
	// TaskTime is the pooled average task time, formula (2). It is the
	// T_AvgTask of lss's kill threshold in both modes of Options.
	TaskTime TaskTime
	// Remaining is formula (3). It is the zero Remaining while TaskTime is
	// unknown: before any task has finished the paper does not estimate it.
	Remaining Remaining
	// Spare is formula (4), or (5) while TaskTime is unknown. It is the
	// zero Spare when NoDeadline is set.
	Spare Spare
	// NoDeadline reports that the job has no deadline (zero Deadline), so
	// it has no spare time.
	NoDeadline bool
}

// EstimateJob evaluates formulas (2)–(5) for j at now. capacity[p] is the
// capacity of phase p's slots (see Capacity); it needs at least
// j.Phases() entries. The job's counters are checked with
// schedkit.PhaseProgress.Validate, then evaluated by Evaluate. Running
// tasks' elapsed time is RunningElapsed (zero if the counters put it
// below zero: a task "started" after now).
func EstimateJob(j schedkit.Job, now time.Time, capacity []Capacity, opt Options) (JobEstimate, error) {
	const op = "EstimateJob"
	if j == nil {
		return JobEstimate{}, invalid(op, -1, "nil job")
	}
	if v := reflect.ValueOf(j); v.Kind() == reflect.Pointer && v.IsNil() {
		return JobEstimate{}, invalid(op, -1, "nil job (a typed nil %T)", j)
	}
	n := j.Phases()
	if n < 1 || n > schedkit.MaxPhases {
		return JobEstimate{}, invalid(op, -1, "job %q has %d phases, want 1..%d", j.ID(), n, schedkit.MaxPhases)
	}
	if len(capacity) < n {
		return JobEstimate{}, invalid(op, -1, "%d capacities for %d phases", len(capacity), n)
	}
	for p := range min(n, len(opt.Priors)) {
		if t := opt.Priors[p]; t < 0 || t > Horizon {
			return JobEstimate{}, invalid(op, p, "prior task time %v outside [0, 2^60 ns]", t)
		}
	}
	var progress [schedkit.MaxPhases]schedkit.PhaseProgress
	for p := range n {
		progress[p] = j.Progress(schedkit.Phase(p))
		if err := progress[p].Validate(); err != nil {
			return JobEstimate{}, because(op, p, err, "job %q", j.ID())
		}
	}
	for _, c := range capacity[:n] {
		if c < 0 {
			return JobEstimate{}, invalid(op, -1, "negative capacity %d", int64(c))
		}
	}
	deadline := j.Deadline()
	return Evaluate(Counters{
		Phases:      progress[:n],
		Capacity:    capacity,
		SinceSubmit: now.Sub(j.Submitted()),
		Left:        deadline.Sub(now),
		NoDeadline:  deadline.IsZero(),
	}, opt), nil
}
