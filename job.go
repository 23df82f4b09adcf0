package schedkit

import (
	"math"
	"math/bits"
	"time"
)

// Job is the host's read-only view of one job, as deadline-aware schedulers
// (lss, dbs) read it. The scheduler never mutates a job; it returns
// decisions and the host applies them and updates what these methods
// report.
//
// Everything here is a count or a sum the host already keeps as tasks start
// and end, so a scheduler can read a job in O(phases) without walking its
// tasks. Methods must be cheap and must not allocate.
type Job interface {
	// ID identifies the job; it breaks ties after deadline and submit time.
	ID() JobID
	// Submitted is when the job entered the system.
	Submitted() time.Time
	// Deadline is the time by which the job must finish. The zero Time
	// means the job has no deadline.
	Deadline() time.Time
	// Phases returns the number of sequential phases (2 for MapReduce,
	// at most MaxPhases).
	Phases() int
	// Progress returns the counters of phase p, 0 ≤ p < Phases().
	Progress(p Phase) PhaseProgress
}

// PhaseProgress holds the counters a host keeps for one phase of a job.
// The host updates them as tasks start and end; schedulers read them.
//
// Elapsed time of running tasks is given as a sum of start offsets so that
// it is a counter, not a function of the clock: with k running tasks
// started at offsets s₁…s_k after the job's submission, RunningStartSum is
// Σ sᵢ and the summed elapsed time at now is k·(now − Submitted) − Σ sᵢ
// (see RunningElapsed). This lets a scheduler know how a job's remaining
// time moves between events without asking again.
type PhaseProgress struct {
	// Total is the number of tasks in the phase.
	Total int
	// Running is the number of tasks currently running.
	Running int
	// Finished is the number of tasks that have succeeded. Unfinished
	// work is Total − Finished (pending plus running).
	Finished int
	// Ready is the number of pending tasks that may start now. For map
	// phases it is usually Total − Running − Finished; reduce tasks are
	// ready only after slow-start (the host's knowledge).
	Ready int
	// RunningStartSum is Σ (start − job submission) over running tasks.
	RunningStartSum time.Duration
	// FinishedDurationSum is the summed run time of finished tasks.
	FinishedDurationSum time.Duration
}

// Unfinished returns Total − Finished: the pending and running tasks.
func (p PhaseProgress) Unfinished() int { return p.Total - p.Finished }

// Pending returns Total − Running − Finished.
func (p PhaseProgress) Pending() int { return p.Total - p.Running - p.Finished }

// RunningElapsed returns the summed elapsed time of the running tasks at
// now, for a job submitted at submitted: Running·(now − submitted) −
// RunningStartSum. It is zero when nothing runs. It never overflows: the
// sum is computed exactly in 128 bits, saturates at math.MaxInt64 when it
// does not fit (a thousand tasks running for about 107 days), and is
// clamped at zero (now before the tasks' starts counts nothing).
func (p PhaseProgress) RunningElapsed(submitted, now time.Time) time.Duration {
	since := now.Sub(submitted) // saturates, like the result
	if p.Running <= 0 || since <= 0 {
		return 0
	}
	hi, lo := bits.Mul64(uint64(p.Running), uint64(since))
	lo, borrow := bits.Sub64(lo, uint64(max(p.RunningStartSum, 0)), 0)
	switch {
	case hi < borrow:
		return 0
	case hi-borrow != 0 || lo > math.MaxInt64:
		return math.MaxInt64
	}
	return time.Duration(lo)
}

// Validate reports whether the counters are consistent: no negative
// counts or sums, Running + Finished ≤ Total, Ready ≤ Total − Running −
// Finished, a zero start sum when nothing runs and a zero duration sum
// when nothing has finished.
func (p PhaseProgress) Validate() error {
	switch {
	case p.Total < 0, p.Running < 0, p.Finished < 0, p.Ready < 0:
		return &ProgressError{Progress: p, Reason: "negative count"}
	case p.Running+p.Finished > p.Total:
		return &ProgressError{Progress: p, Reason: "running + finished exceeds total"}
	case p.Ready > p.Total-p.Running-p.Finished:
		return &ProgressError{Progress: p, Reason: "ready exceeds pending"}
	case p.RunningStartSum < 0:
		return &ProgressError{Progress: p, Reason: "negative running start sum"}
	case p.FinishedDurationSum < 0:
		return &ProgressError{Progress: p, Reason: "negative finished duration sum"}
	case p.Running == 0 && p.RunningStartSum != 0:
		return &ProgressError{Progress: p, Reason: "running start sum without running tasks"}
	case p.Finished == 0 && p.FinishedDurationSum != 0:
		return &ProgressError{Progress: p, Reason: "finished duration sum without finished tasks"}
	}
	return nil
}
