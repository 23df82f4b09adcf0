package dbs

import (
	"errors"
	"fmt"

	"github.com/schedkit/schedkit"
)

// Sentinel errors. Every error the package returns wraps exactly one of
// them (and, for inconsistent job counters, schedkit.ErrInvalidProgress
// too), so errors.Is works; errors.As on *Error gives the details. A call
// that returns an error changes nothing: no job is added, dropped, moved
// or re-weighted, no decision is taken and the clock does not advance.
var (
	// ErrConfig reports an invalid Config given to New.
	ErrConfig = errors.New("dbs: invalid config")
	// ErrInvalidJob reports a job that cannot be queued or updated: nil,
	// empty ID, more than two phases, inconsistent counters, φ outside
	// {0, 0.5, 1}, a NaN, infinite or negative budget or cost, a missing
	// budget with φ < 1, a missing deadline with φ > 0, a deadline before
	// the submission, negative data sizes or task time hint.
	ErrInvalidJob = errors.New("dbs: invalid job")
	// ErrDuplicateJob reports a Submit of an ID already queued.
	ErrDuplicateJob = errors.New("dbs: duplicate job ID")
	// ErrUnknownJob reports an Update, Remove or Status of an ID not
	// queued.
	ErrUnknownJob = errors.New("dbs: unknown job ID")
	// ErrInvalidNode reports a nil node, or a node or cluster whose
	// vectors do not fit the Space or hold NaN, negative or fractional
	// slot counts.
	ErrInvalidNode = errors.New("dbs: invalid node or cluster")
	// ErrTimeBackwards reports a now earlier than a now the scheduler was
	// already given.
	ErrTimeBackwards = errors.New("dbs: time went backwards")
)

// Error is the error type of the package. It wraps one sentinel (Err)
// and, where a host's counters were inconsistent, the
// *schedkit.ProgressError (Cause).
type Error struct {
	Op     string          // the method: "New", "Submit", "Update", "Remove", "Status", "Tick", "Heartbeat", "Queue"
	Job    schedkit.JobID  // the job concerned, if any
	Node   schedkit.NodeID // the node concerned, if any
	Reason string          // what is wrong
	Err    error           // one of the sentinels above
	Cause  error           // underlying error, or nil
}

// Error describes the failure: operation, job or node, sentinel, reason.
func (e *Error) Error() string {
	msg := "dbs: " + e.Op
	if e.Job != "" {
		msg += fmt.Sprintf(": job %q", e.Job)
	}
	if e.Node != "" {
		msg += fmt.Sprintf(": node %q", e.Node)
	}
	// The sentinel's text without its "dbs: " prefix: one prefix per message.
	msg += ": " + e.Err.Error()[len("dbs: "):]
	if e.Reason != "" {
		msg += ": " + e.Reason
	}
	if e.Cause != nil {
		msg += ": " + e.Cause.Error()
	}
	return msg
}

// Unwrap returns the sentinel and the cause, if any.
func (e *Error) Unwrap() []error {
	if e.Cause != nil {
		return []error{e.Err, e.Cause}
	}
	return []error{e.Err}
}

func errf(op string, sentinel error, id schedkit.JobID, format string, args ...any) error {
	return &Error{Op: op, Job: id, Err: sentinel, Reason: fmt.Sprintf(format, args...)}
}
