package estimate

import (
	"errors"
	"fmt"
)

// ErrInvalid is wrapped by every error this package returns: a negative
// count, duration or capacity, a NaN or infinite speed, or more phases than
// capacities. Test with errors.Is; read the details with errors.As on
// *Error.
var ErrInvalid = errors.New("estimate: invalid input")

// Error reports one invalid input. It wraps ErrInvalid.
type Error struct {
	Op     string // the function, e.g. "RemainingTime"
	Phase  int    // the phase concerned, or -1
	Reason string // what is wrong, with the offending value
}

// Error describes the invalid input.
func (e *Error) Error() string {
	if e.Phase >= 0 {
		return fmt.Sprintf("estimate: %s: phase %d: %s", e.Op, e.Phase, e.Reason)
	}
	return fmt.Sprintf("estimate: %s: %s", e.Op, e.Reason)
}

// Unwrap returns ErrInvalid.
func (e *Error) Unwrap() error { return ErrInvalid }

func invalid(op string, phase int, format string, args ...any) error {
	return &Error{Op: op, Phase: phase, Reason: fmt.Sprintf(format, args...)}
}
