package resource

import (
	"errors"
	"fmt"

	"github.com/schedkit/schedkit/internal/errtext"
)

// Sentinel errors. Every error returned by this package wraps exactly one of
// them, so callers can test with errors.Is and read details with errors.As
// on *Error.
var (
	// ErrLength reports vectors of different lengths, or a vector whose
	// length does not match its Space.
	ErrLength = errors.New("resource: vector length mismatch")
	// ErrNotFinite reports a NaN or infinite amount, factor or rate.
	ErrNotFinite = errors.New("resource: value is NaN or infinite")
	// ErrNegative reports a negative amount, duration, weight or penalty.
	ErrNegative = errors.New("resource: negative value")
	// ErrNotIntegral reports a fractional amount of an integral kind.
	ErrNotIntegral = errors.New("resource: fractional amount of an integral kind")
	// ErrLimit reports a compression rate or limit outside [0, 1).
	ErrLimit = errors.New("resource: rate or limit outside [0, 1)")
	// ErrKind reports an invalid or duplicate resource kind.
	ErrKind = errors.New("resource: invalid kind")
	// ErrZeroCapacity reports a share asked of a kind whose total is zero
	// while the demand for it is positive.
	ErrZeroCapacity = errors.New("resource: positive demand on a zero total")
	// ErrInterval reports an empty or reversed time interval, or stages that
	// overlap or are out of order.
	ErrInterval = errors.New("resource: invalid interval")
	// ErrOverflow reports a duration that would not fit in time.Duration.
	ErrOverflow = errors.New("resource: duration overflows")
)

// Error is the error type returned by this package, in the error shape
// every schedkit package shares. It names the operation, the vector
// element (or -1 when not element-specific) and the offending value, and
// wraps one of the sentinel errors above.
type Error struct {
	Op    string  // operation, e.g. "Vector.Add" or "CompressionBound"
	Index int     // element index, -1 if not applicable
	Value float64 // offending value, if any (see HasValue)
	// HasValue reports whether Value is meaningful; when it is not (a
	// missing kind, an empty vector), the message leaves it out.
	HasValue bool
	Reason   string // what is wrong, if more than the sentinel says
	Err      error  // one of the package's sentinel errors
}

// Error returns "resource: <Op>: [element <i> = <value>: ]<sentinel>[:
// <reason>]", naming the package once.
func (e *Error) Error() string {
	msg := "resource: " + e.Op
	switch {
	case e.Index >= 0 && e.HasValue:
		msg += fmt.Sprintf(": element %d = %v", e.Index, e.Value)
	case e.Index >= 0:
		msg += fmt.Sprintf(": element %d", e.Index)
	case e.HasValue:
		msg += fmt.Sprintf(": value %v", e.Value)
	}
	if e.Err != nil {
		msg += ": " + errtext.Bare(e.Err)
	}
	if e.Reason != "" {
		msg += ": " + e.Reason
	}
	return msg
}

// Unwrap returns the sentinel error.
func (e *Error) Unwrap() []error { return errtext.Unwrap(e.Err, nil) }

func errAt(op string, i int, v float64, err error) error {
	return &Error{Op: op, Index: i, Value: v, Err: err, HasValue: true}
}

func errVal(op string, v float64, err error) error {
	return &Error{Op: op, Index: -1, Value: v, Err: err, HasValue: true}
}

func errLen(op string, got, want int) error {
	return &Error{Op: op, Index: -1, Value: float64(got), Err: ErrLength, Reason: fmt.Sprintf("got %d elements, want %d", got, want)}
}

// errWhy is an error that is not about one element or value.
func errWhy(op string, err error, format string, args ...any) error {
	return &Error{Op: op, Index: -1, Err: err, Reason: fmt.Sprintf(format, args...)}
}
