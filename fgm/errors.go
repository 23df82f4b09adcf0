package fgm

import (
	"errors"

	"github.com/schedkit/schedkit"
	"github.com/schedkit/schedkit/internal/errtext"
)

// Sentinel errors. Every error the package returns is an *Error wrapping
// exactly one of them, so errors.Is works and errors.As gives the details.
// A call that returns an error changes nothing: no task is queued,
// dropped or placed, no reservation, sample or policy changes, the clock
// does not move, and no decision is returned.
var (
	// ErrConfig reports an invalid Config given to New (or FitConfig to
	// NewFitter, or arguments to NewMatcher).
	ErrConfig = errtext.Sentinel("fgm", errtext.Config)
	// ErrInvalidTask reports a task that cannot be queued: nil (or a
	// typed nil), empty ID, empty job ID, a requested vector that does
	// not fit the Space or holds NaN, infinite or negative amounts; or a
	// run (SubmitRun) of fewer than 1 or more than 2³¹−1 tasks.
	ErrInvalidTask = errtext.Sentinel("fgm", errtext.InvalidTask)
	// ErrDuplicateTask reports a Submit of a task already pending or
	// running.
	ErrDuplicateTask = errtext.Sentinel("fgm", errtext.DuplicateTask)
	// ErrUnknownTask reports a Withdraw, Release or SampleTask of a task
	// the scheduler does not hold in the state the call needs.
	ErrUnknownTask = errtext.Sentinel("fgm", errtext.UnknownTask)
	// ErrInvalidNode reports a node that cannot be used: nil (or a typed
	// nil), an empty ID, a capacity (or Available vector, or server
	// state given to Fit) that does not fit the Space or holds NaN,
	// infinite or negative amounts; or a query vector of the wrong
	// length or a non-positive interval.
	ErrInvalidNode = errtext.Sentinel("fgm", errtext.InvalidNode)
	// ErrDuplicateNode reports an AddNode of a node already registered.
	ErrDuplicateNode = errtext.Sentinel("fgm", errtext.DuplicateNode)
	// ErrUnknownNode reports a node the scheduler has not registered
	// (Schedule, SampleNode, RemoveNode, Free, MinFree).
	ErrUnknownNode = errtext.Sentinel("fgm", errtext.UnknownNode)
	// ErrInvalidSample reports a usage sample that cannot be true: of the
	// wrong length, holding NaN, infinite or negative amounts, or an
	// amount above the capacity of the node it was measured on.
	ErrInvalidSample = errors.New("fgm: invalid usage sample")
	// ErrInvalidEstimate reports a prediction from the Estimator (or
	// stages given to Match or Fit) with no stages, more than MaxStages
	// stages, a stage of negative length, stages whose lengths sum to 0
	// or beyond 2⁶⁰ ns, or a demand that does not fit the Space or holds
	// NaN, infinite or negative amounts.
	ErrInvalidEstimate = errors.New("fgm: invalid estimate")
	// ErrStaleTime reports a state-changing call dated before the latest
	// state-changing call. Read-only calls (Free, MinFree) may ask about
	// any time in range.
	ErrStaleTime = errtext.Sentinel("fgm", errtext.StaleTime)
	// ErrTimeRange reports a now, or a task's deadline, more than 2⁶⁰ ns
	// (about 36 years) away from the first time the scheduler was given
	// (for Fit and Match, from the Server's Epoch), the range its integer
	// arithmetic covers.
	ErrTimeRange = errtext.Sentinel("fgm", errtext.TimeRange)
)

// Error is the error type of the package: the method, the task, job and
// node concerned, the sentinel, what is wrong and an underlying cause.
type Error struct {
	Op     string          // the method, e.g. "Submit" or "Schedule"
	Job    schedkit.JobID  // the job concerned, if any
	Task   schedkit.TaskID // the task concerned, if any
	Node   schedkit.NodeID // the node concerned, if any
	Reason string          // what is wrong
	Err    error           // one of the sentinels above
	Cause  error           // an underlying error, or nil
}

// Error describes the failure: `fgm: Op: job "j": task "t": node "n":
// <sentinel>: <reason>: <cause>`, every empty part left out.
func (e *Error) Error() string {
	return errtext.Format(errtext.Parts{Pkg: "fgm", Op: e.Op, Job: string(e.Job), Task: string(e.Task),
		Node: string(e.Node), Sentinel: e.Err, Reason: e.Reason, Cause: e.Cause})
}

// Unwrap returns the sentinel and the cause, if any.
func (e *Error) Unwrap() []error { return errtext.Unwrap(e.Err, e.Cause) }
