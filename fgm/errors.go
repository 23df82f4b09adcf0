package fgm

import (
	"errors"
	"fmt"

	"github.com/schedkit/schedkit"
)

// Sentinel errors. Every error the package returns is an *Error wrapping
// exactly one of them, so errors.Is works and errors.As gives the details.
// A call that returns an error changes nothing: no task is queued,
// dropped or placed, no reservation or policy changes, and no decision is
// returned.
var (
	// ErrConfig reports an invalid Config given to New.
	ErrConfig = errors.New("fgm: invalid config")
	// ErrInvalidTask reports a task that cannot be queued: nil, empty ID,
	// a requested vector that does not fit the Space or holds NaN,
	// infinite or negative amounts.
	ErrInvalidTask = errors.New("fgm: invalid task")
	// ErrDuplicateTask reports a Submit of a task already pending or
	// running.
	ErrDuplicateTask = errors.New("fgm: duplicate task ID")
	// ErrUnknownTask reports a Withdraw, Release or SampleTask of a task
	// the scheduler does not hold in the state the call needs.
	ErrUnknownTask = errors.New("fgm: unknown task ID")
	// ErrInvalidNode reports a nil node, a node the cluster does not
	// know (or a duplicate AddNode), or a node whose capacity does not
	// fit the Space or holds NaN, infinite or negative amounts.
	ErrInvalidNode = errors.New("fgm: invalid or unknown node")
	// ErrInvalidSample reports a usage sample of the wrong length or
	// holding NaN, infinite or negative amounts.
	ErrInvalidSample = errors.New("fgm: invalid usage sample")
	// ErrInvalidEstimate reports a prediction from the Estimator with no
	// stages, a stage of negative length, a demand that does not fit the Space or
	// holds NaN, infinite or negative amounts, or more than MaxStages
	// stages.
	ErrInvalidEstimate = errors.New("fgm: invalid estimate")
	// ErrTimeBackwards reports a now earlier than the latest time the
	// scheduler was given.
	ErrTimeBackwards = errors.New("fgm: time went backwards")
)

// Error is the error type of the package: the method, the task or node
// concerned, the sentinel and what is wrong.
type Error struct {
	Op     string          // the method, e.g. "Submit" or "Schedule"
	Task   schedkit.TaskID // the task concerned, if any
	Node   schedkit.NodeID // the node concerned, if any
	Reason string          // what is wrong
	Err    error           // one of the sentinels above
}

// Error describes the failure: operation, task or node, sentinel, reason.
func (e *Error) Error() string {
	msg := "fgm: " + e.Op
	if e.Task != "" {
		msg += fmt.Sprintf(": task %q", e.Task)
	}
	if e.Node != "" {
		msg += fmt.Sprintf(": node %q", e.Node)
	}
	// The sentinel's text without its own "fgm: " prefix.
	msg += ": " + e.Err.Error()[len("fgm: "):]
	if e.Reason != "" {
		msg += ": " + e.Reason
	}
	return msg
}

// Unwrap returns the sentinel.
func (e *Error) Unwrap() error { return e.Err }
