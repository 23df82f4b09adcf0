package binding

import (
	"github.com/schedkit/schedkit"
	"github.com/schedkit/schedkit/internal/errtext"
)

// Sentinel errors, named as in every schedkit package. Every error the
// package returns is an *Error wrapping one of them (and, for a bad
// accelerator, schedkit.ErrInvalidAccelerator as its Cause), so callers
// test with errors.Is and read details with errors.As. A call that
// returns an error has changed nothing.
var (
	// ErrConfig reports a bad Config: a negative timeout, an empty
	// accelerator kind, a weight table given without Weighted, or a NaN,
	// infinite or negative weight in it.
	ErrConfig = errtext.Sentinel("binding", errtext.Config)
	// ErrInvalidNode reports a node status the table cannot use: an empty
	// ID or rack, a negative or too large container count, too many
	// accelerators, an invalid (NaN, infinite or negative weight, empty
	// ID or kind) or duplicated accelerator, or summed weights that
	// overflow.
	ErrInvalidNode = errtext.Sentinel("binding", errtext.InvalidNode)
	// ErrUnknownNode reports a heartbeat from, or the removal of, a node the
	// table does not hold (never added, removed, or expired).
	ErrUnknownNode = errtext.Sentinel("binding", errtext.UnknownNode)
	// ErrDuplicateNode reports Add of a node the table already holds.
	ErrDuplicateNode = errtext.Sentinel("binding", errtext.DuplicateNode)
	// ErrStaleTime reports a heartbeat dated before the node's previous
	// heartbeat (or its Add); the error's reason says so. Time is kept per
	// node: heartbeats of different nodes may arrive in any order.
	ErrStaleTime = errtext.Sentinel("binding", errtext.StaleTime)
	// ErrTimeRange reports an Add or Heartbeat time more than 2⁶⁰ ns
	// (about 36 years) from the first time the table accepted.
	ErrTimeRange = errtext.Sentinel("binding", errtext.TimeRange)
)

// Error is the error type returned by this package.
type Error struct {
	Op     string          // "New", "Add", "Heartbeat" or "Remove"
	Node   schedkit.NodeID // the node concerned, if any
	Reason string          // what is wrong, if more than the sentinel says
	Err    error           // one of the sentinels above
	Cause  error           // underlying error (schedkit.ErrInvalidAccelerator), or nil
}

// Error returns "binding: <Op>: [node "<id>": ]<sentinel>[: <reason>][:
// <cause>]", naming the package once.
func (e *Error) Error() string {
	return errtext.Format(errtext.Parts{Pkg: "binding", Op: e.Op, Node: string(e.Node), Sentinel: e.Err, Reason: e.Reason, Cause: e.Cause})
}

// Unwrap returns the sentinel and the cause, if any.
func (e *Error) Unwrap() []error { return errtext.Unwrap(e.Err, e.Cause) }
