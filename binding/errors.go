package binding

import (
	"errors"
	"fmt"
	"strings"

	"github.com/schedkit/schedkit"
)

// Sentinel errors. Every error the package returns is an *Error wrapping
// one of them (and, for a bad accelerator, schedkit.ErrInvalidAccelerator
// as well), so callers test with errors.Is and read details with errors.As.
// A call that returns an error has changed nothing.
var (
	// ErrInvalidConfig reports a negative timeout, an empty accelerator
	// kind, or a weight table given without Weighted.
	ErrInvalidConfig = errors.New("binding: invalid config")
	// ErrInvalidNode reports a node status with an empty ID, a negative or
	// too large container count, too many accelerators, or an invalid or
	// duplicated accelerator.
	ErrInvalidNode = errors.New("binding: invalid node status")
	// ErrEmptyRack reports a node status without a rack.
	ErrEmptyRack = errors.New("binding: empty rack")
	// ErrInvalidWeight reports a NaN, infinite or negative accelerator
	// weight (in a status or in the weight table), or a node whose summed
	// weights overflow.
	ErrInvalidWeight = errors.New("binding: invalid accelerator weight")
	// ErrUnknownNode reports a heartbeat from, or the removal of, a node the
	// table does not hold (never added, removed, or expired).
	ErrUnknownNode = errors.New("binding: unknown node")
	// ErrDuplicateNode reports Add of a node the table already holds.
	ErrDuplicateNode = errors.New("binding: duplicate node")
	// ErrStaleHeartbeat reports a heartbeat whose time is before the
	// node's previous heartbeat.
	ErrStaleHeartbeat = errors.New("binding: heartbeat from the past")
)

// Error is the error type returned by this package: the operation, the node
// it concerned (empty for configuration errors) and the cause, which wraps
// one of the sentinel errors above.
type Error struct {
	Op   string          // "New", "Add", "Heartbeat" or "Remove"
	Node schedkit.NodeID // the node concerned, if any
	Err  error           // wraps a sentinel error
}

// Error returns "binding: <Op>: [node "<id>": ]<what is wrong>", naming
// the package once (wrapped sentinels' and schedkit's prefixes are left
// out).
func (e *Error) Error() string {
	msg := strings.ReplaceAll(e.Err.Error(), "binding: ", "")
	msg = strings.ReplaceAll(msg, "schedkit: ", "")
	if e.Node == "" {
		return fmt.Sprintf("binding: %s: %s", e.Op, msg)
	}
	return fmt.Sprintf("binding: %s: node %q: %s", e.Op, e.Node, msg)
}

// Unwrap returns the cause.
func (e *Error) Unwrap() error { return e.Err }

func newErr(op string, node schedkit.NodeID, err error) error {
	return &Error{Op: op, Node: node, Err: err}
}
