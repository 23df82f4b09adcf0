package dbs

import (
	"fmt"
	"time"

	"github.com/schedkit/schedkit"
	"github.com/schedkit/schedkit/internal/clock"
	"github.com/schedkit/schedkit/internal/errtext"
)

// Sentinel errors. Every error the package returns is an *Error wrapping
// exactly one of them (and, for inconsistent job counters,
// schedkit.ErrInvalidProgress too), so errors.Is works; errors.As on
// *Error gives the details. A call that returns an error changes
// nothing: no job is added, dropped, moved or re-weighted, no decision
// is taken and the clock does not advance.
var (
	// ErrConfig reports an invalid Config given to New.
	ErrConfig = errtext.Sentinel("dbs", errtext.Config)
	// ErrInvalidJob reports a job that cannot be queued or updated: nil
	// (also a typed nil pointer), empty ID, more than two phases,
	// inconsistent counters, 2^31 or more tasks in a phase, φ outside
	// {0, 0.5, 1}, a NaN, infinite or negative budget or cost, a missing
	// budget with φ < 1, a missing deadline with φ > 0, a zero
	// submission time, a submission after now, a deadline before the
	// submission, negative data sizes, a task time hint beyond 2^60 ns.
	ErrInvalidJob = errtext.Sentinel("dbs", errtext.InvalidJob)
	// ErrDuplicateJob reports a Submit of an ID already queued.
	ErrDuplicateJob = errtext.Sentinel("dbs", errtext.DuplicateJob)
	// ErrUnknownJob reports an Update, Remove or Status of an ID not
	// queued.
	ErrUnknownJob = errtext.Sentinel("dbs", errtext.UnknownJob)
	// ErrInvalidNode reports a nil node (also a typed nil pointer), a
	// node or cluster whose vectors do not fit the Space, hold NaN,
	// negative or fractional slot counts, or report more free slots than
	// the node's capacity, or a node value whose capacity differs from
	// that of the cluster's node of its ID (a stale node value).
	ErrInvalidNode = errtext.Sentinel("dbs", errtext.InvalidNode)
	// ErrUnknownNode reports a Heartbeat from a node that is not among
	// the cluster's nodes (Cluster.Node): the host must not hand out the
	// slots of a node the cluster's capacity does not count.
	ErrUnknownNode = errtext.Sentinel("dbs", errtext.UnknownNode)
	// ErrStaleTime reports a now before the latest now given to Submit,
	// Tick or Heartbeat.
	ErrStaleTime = errtext.Sentinel("dbs", errtext.StaleTime)
	// ErrTimeRange reports a now, or a job's submission or deadline, more
	// than 2^60 ns (about 36 years) from the first now a call succeeded
	// with, the range its integer arithmetic covers.
	ErrTimeRange = errtext.Sentinel("dbs", errtext.TimeRange)
)

// Error is the error type of the package. It wraps one sentinel (Err)
// and, where a host's counters were inconsistent, the
// *schedkit.ProgressError (Cause).
type Error struct {
	Op     string          // the method: "New", "Submit", "Update", "Remove", "Status", "Tick", "Heartbeat", "Queue", "Save", "Resume", "ResumeUpdates"
	Job    schedkit.JobID  // the job concerned, if any
	Node   schedkit.NodeID // the node concerned, if any
	Reason string          // what is wrong
	Err    error           // one of the sentinels above
	Cause  error           // underlying error, or nil
}

// Error describes the failure: "dbs: Op: job "j": node "n": sentinel:
// reason: cause", each part after Op left out when empty.
func (e *Error) Error() string {
	return errtext.Format(errtext.Parts{Pkg: "dbs", Op: e.Op, Job: string(e.Job), Node: string(e.Node),
		Sentinel: e.Err, Reason: e.Reason, Cause: e.Cause})
}

// Unwrap returns the sentinel and the cause, if any.
func (e *Error) Unwrap() []error { return errtext.Unwrap(e.Err, e.Cause) }

func errf(op string, sentinel error, id schedkit.JobID, format string, args ...any) error {
	return &Error{Op: op, Job: id, Err: sentinel, Reason: fmt.Sprintf(format, args...)}
}

// timeErr returns the error of a clock fault f (clock.Stale or
// clock.Range) for now.
func (s *Scheduler) timeErr(op string, id schedkit.JobID, node schedkit.NodeID, f clock.Fault, now time.Time) error {
	sentinel := ErrStaleTime
	if f == clock.Range {
		sentinel = ErrTimeRange
	}
	return &Error{Op: op, Job: id, Node: node, Err: sentinel, Reason: s.clk.Reason(f, now)}
}
