package schedkit

import (
	"math"
	"time"
)

// The methods below keep a phase's counters right as a host's tasks
// change state, so that a host does not hand-roll the bookkeeping of
// RunningStartSum. Each checks the transition and, if it is not possible
// (no ready task to start, a start before the job's submission...),
// returns a *ProgressError and leaves the counters unchanged.
//
// A task's life in the counters:
//
//	ready ──Start──▶ running ──Finish──▶ finished
//	  ▲                 │
//	  └──Stop(ready)────┘   (failed, killed or lost; retried)
//
// Tasks that are pending but not ready (reduces before slow-start) become
// ready with MakeReady.

// Start records that one ready task started at, for a job submitted at
// submitted: Ready−1, Running+1, RunningStartSum + (at − submitted).
// A zero submission time, a span at − submitted that a time.Duration
// cannot hold (about 292 years), or a RunningStartSum that would overflow
// is refused like any other impossible transition.
func (p *PhaseProgress) Start(submitted, at time.Time) error {
	switch {
	case p.Ready < 1:
		return &ProgressError{Progress: *p, Reason: "Start: no ready task"}
	case submitted.IsZero():
		return &ProgressError{Progress: *p, Reason: "Start: the job's submission time is the zero time"}
	case at.Before(submitted):
		return &ProgressError{Progress: *p, Reason: "Start: start " + at.String() + " before the job's submission " + submitted.String()}
	}
	d, ok := span(submitted, at)
	if !ok {
		return &ProgressError{Progress: *p, Reason: "Start: start " + at.String() + " is too far from the job's submission " + submitted.String() + " for a time.Duration"}
	}
	if p.RunningStartSum > math.MaxInt64-d {
		return &ProgressError{Progress: *p, Reason: "Start: RunningStartSum would overflow"}
	}
	p.Ready--
	p.Running++
	p.RunningStartSum += d
	return nil
}

// span returns to − from, not negative, and whether a time.Duration holds
// it exactly (time.Time.Sub saturates instead).
func span(from, to time.Time) (time.Duration, bool) {
	d := to.Sub(from)
	return d, d >= 0 && from.Add(d).Equal(to)
}

// Finish records that a running task that started at started succeeded at
// at: Running−1, Finished+1, RunningStartSum − (started − submitted),
// FinishedDurationSum + (at − started).
func (p *PhaseProgress) Finish(submitted, started, at time.Time) error {
	if err := p.checkStop("Finish", submitted, started); err != nil {
		return err
	}
	if at.Before(started) {
		return &ProgressError{Progress: *p, Reason: "Finish: end " + at.String() + " before the task's start " + started.String()}
	}
	d, ok := span(started, at)
	switch {
	case !ok:
		return &ProgressError{Progress: *p, Reason: "Finish: end " + at.String() + " is too far from the task's start " + started.String() + " for a time.Duration"}
	case p.FinishedDurationSum > math.MaxInt64-d:
		return &ProgressError{Progress: *p, Reason: "Finish: FinishedDurationSum would overflow"}
	}
	p.Running--
	p.Finished++
	p.RunningStartSum -= started.Sub(submitted)
	p.FinishedDurationSum += d
	return nil
}

// Stop records that a running task that started at started ended without
// success (failed, killed, or lost with its node) and will run again:
// Running−1, RunningStartSum − (started − submitted), and Ready+1 if
// ready is true (it may be retried at once), else it stays pending. Its
// run time does not count in FinishedDurationSum.
func (p *PhaseProgress) Stop(submitted, started time.Time, ready bool) error {
	if err := p.checkStop("Stop", submitted, started); err != nil {
		return err
	}
	p.Running--
	p.RunningStartSum -= started.Sub(submitted)
	if ready {
		p.Ready++
	}
	return nil
}

func (p *PhaseProgress) checkStop(op string, submitted, started time.Time) error {
	switch {
	case p.Running < 1:
		return &ProgressError{Progress: *p, Reason: op + ": no running task"}
	case started.Before(submitted):
		return &ProgressError{Progress: *p, Reason: op + ": start " + started.String() + " before the job's submission " + submitted.String()}
	}
	if d, ok := span(submitted, started); !ok || d > p.RunningStartSum {
		return &ProgressError{Progress: *p, Reason: op + ": the task's start offset exceeds RunningStartSum (was it started with Start?)"}
	}
	return nil
}

// MakeReady records that n pending tasks became ready (a reduce phase
// after slow-start, the next stage of a DAG): Ready+n, at most up to
// Pending.
func (p *PhaseProgress) MakeReady(n int) error {
	if n < 0 || n > p.Pending()-p.Ready {
		return &ProgressError{Progress: *p, Reason: "MakeReady: n outside [0, pending − ready]"}
	}
	p.Ready += n
	return nil
}

// Done reports whether every task of the phase has finished.
func (p PhaseProgress) Done() bool { return p.Finished == p.Total }
