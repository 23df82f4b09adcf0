package lss

import (
	"errors"
	"fmt"
	"time"

	"github.com/schedkit/schedkit"
	"github.com/schedkit/schedkit/estimate"
	"github.com/schedkit/schedkit/internal/errtext"
)

// Sentinel errors. Every error the package returns is an *Error or a
// *RefusedError, whose text names the package once ("lss: Submit: job
// "j1": invalid job: ..."), and wraps exactly one of them (and, for inconsistent job counters, schedkit.ErrInvalidProgress
// too), so errors.Is works; errors.As on *Error or *RefusedError gives the
// details. A call that returns an error changes nothing: no job is added,
// dropped or altered and no decision is taken.
var (
	// ErrConfig reports an invalid Config given to New, or an invalid
	// speed given to SetNodeSpeed (outside [0.001, 1000]).
	ErrConfig = errtext.Sentinel("lss", errtext.Config)
	// ErrInvalidJob reports a job that cannot be queued or updated: nil,
	// empty ID, too many phases, inconsistent counters, a deadline before
	// its submission or already passed.
	ErrInvalidJob = errtext.Sentinel("lss", errtext.InvalidJob)
	// ErrDuplicateJob reports a Submit of an ID already queued.
	ErrDuplicateJob = errtext.Sentinel("lss", errtext.DuplicateJob)
	// ErrUnknownJob reports an Update or Remove of an ID not queued
	// (never submitted, already removed, or killed by a decision).
	ErrUnknownJob = errtext.Sentinel("lss", errtext.UnknownJob)
	// ErrInvalidNode reports a nil node, a node or cluster whose vectors
	// do not fit the Space, hold NaN, negative or fractional slot counts,
	// or report more free slots than the node's capacity, or a node value
	// whose capacity differs from that of the cluster's node of its ID
	// (a stale node value).
	ErrInvalidNode = errtext.Sentinel("lss", errtext.InvalidNode)
	// ErrUnknownNode reports a Heartbeat from a node that is not among
	// the cluster's live nodes (Cluster.Node). The host must not hand out
	// slots of a node it no longer counts in the cluster's capacity.
	ErrUnknownNode = errtext.Sentinel("lss", errtext.UnknownNode)
	// ErrStaleTime reports a Submit or Heartbeat dated before the latest
	// time given to an earlier Submit or Heartbeat: the scheduler's
	// decisions (kills in particular) are not reversible, so time must
	// not run backwards.
	ErrStaleTime = errtext.Sentinel("lss", errtext.StaleTime)
	// ErrTimeRange reports a now, or a job's submission or deadline,
	// more than 2⁶⁰ ns (about 36 years) away from the first now a Submit
	// or Heartbeat succeeded with, the range its exact integer arithmetic
	// covers.
	ErrTimeRange = errtext.Sentinel("lss", errtext.TimeRange)
	// ErrNotAdmitted is wrapped by *RefusedError: admission control found
	// that the job could not meet its deadline even alone on the cluster.
	ErrNotAdmitted = errors.New("lss: job refused by admission control")
)

// Error is the error type of the package. It wraps one sentinel (Err) and,
// where a host's counters were inconsistent, the *schedkit.ProgressError
// (Cause).
type Error struct {
	Op     string          // the method: "New", "Submit", "Update", "Remove", "Heartbeat", "Order", "Queue", "SetNodeSpeed"
	Job    schedkit.JobID  // the job concerned, if any
	Node   schedkit.NodeID // the node concerned, if any
	Reason string          // what is wrong
	Err    error           // one of the sentinels above
	Cause  error           // underlying error, or nil
}

// Error describes the failure: operation, job or node, sentinel, reason
// and cause, naming the package once.
func (e *Error) Error() string {
	return errtext.Format(errtext.Parts{Pkg: "lss", Op: e.Op, Job: string(e.Job), Node: string(e.Node),
		Sentinel: e.Err, Reason: e.Reason, Cause: e.Cause})
}

// Unwrap returns the sentinel and the cause, if any.
func (e *Error) Unwrap() []error { return errtext.Unwrap(e.Err, e.Cause) }

// RefusedError is returned by Submit when admission control refuses a
// job. It wraps ErrNotAdmitted and carries the figures of the decision.
type RefusedError struct {
	Job      schedkit.JobID
	Now      time.Time
	Deadline time.Time
	// TaskTime is the task time the estimate assumed, and Source where it
	// came from: "observed", "hint" or "config".
	TaskTime time.Duration
	Source   string
	// Remaining is formula (3) for the job alone on the whole cluster,
	// nothing of it running; Spare is Deadline − Now − Remaining (< 0, or
	// CannotFinish).
	Remaining estimate.Remaining
	Spare     estimate.Spare
}

// Error describes the refusal and its figures.
func (e *RefusedError) Error() string {
	if e.Spare.CannotFinish {
		return fmt.Sprintf("lss: Submit: job %q: %s: it cannot finish on the cluster's slots", e.Job, errtext.Bare(ErrNotAdmitted))
	}
	return fmt.Sprintf("lss: Submit: job %q: %s: needs %v alone with %s task time %v, deadline in %v",
		e.Job, errtext.Bare(ErrNotAdmitted), e.Remaining.Time, e.Source, e.TaskTime, e.Deadline.Sub(e.Now))
}

// Unwrap returns ErrNotAdmitted.
func (e *RefusedError) Unwrap() error { return ErrNotAdmitted }

func errf(op string, sentinel error, id schedkit.JobID, format string, args ...any) error {
	return &Error{Op: op, Job: id, Err: sentinel, Reason: fmt.Sprintf(format, args...)}
}
