package estimate

import (
	"errors"
	"fmt"

	"github.com/schedkit/schedkit/internal/errtext"
)

// ErrInvalid is wrapped by every error this package returns: a negative
// count, duration or capacity, a NaN or infinite speed, or more phases than
// capacities. Test with errors.Is; read the details with errors.As on
// *Error.
var ErrInvalid = errors.New("estimate: invalid input")

// Error reports one invalid input, in the error shape every schedkit
// package shares.
type Error struct {
	Op     string // the function, e.g. "RemainingTime"
	Phase  int    // the phase concerned, or -1
	Reason string // what is wrong, with the offending value
	Err    error  // ErrInvalid
	Cause  error  // underlying error (a *schedkit.ProgressError, a *resource.Error), or nil
}

// Error describes the invalid input: "estimate: <Op>: invalid input:
// [phase <p>: ]<reason>[: <cause>]".
func (e *Error) Error() string {
	reason := e.Reason
	if e.Phase >= 0 {
		reason = fmt.Sprintf("phase %d: %s", e.Phase, reason)
	}
	return errtext.Format(errtext.Parts{Pkg: "estimate", Op: e.Op, Sentinel: e.sentinel(), Reason: reason, Cause: e.Cause})
}

// Unwrap returns ErrInvalid and the cause, if any.
func (e *Error) Unwrap() []error { return errtext.Unwrap(e.sentinel(), e.Cause) }

// sentinel is Err, or ErrInvalid for an Error built without it.
func (e *Error) sentinel() error {
	if e.Err == nil {
		return ErrInvalid
	}
	return e.Err
}

func invalid(op string, phase int, format string, args ...any) error {
	return &Error{Op: op, Phase: phase, Reason: fmt.Sprintf(format, args...), Err: ErrInvalid}
}

// because is invalid with an underlying error.
func because(op string, phase int, cause error, format string, args ...any) error {
	return &Error{Op: op, Phase: phase, Reason: fmt.Sprintf(format, args...), Err: ErrInvalid, Cause: cause}
}
