package pipeline

import (
	"errors"
	"fmt"
	"runtime/debug"

	"github.com/schedkit/schedkit/internal/errtext"
)

// Sentinel errors. Every error Run returns, other than the context's own,
// wraps exactly one of ErrConfig and ErrStageFailed, so callers can test
// with errors.Is and read the details with errors.As on *Error or
// *StageError.
var (
	// ErrConfig is wrapped by every *Error: a Config or Stages value that
	// Run rejects before starting any goroutine.
	ErrConfig = errtext.Sentinel("pipeline", errtext.Config)
	// ErrStageFailed is wrapped by every *StageError: a host function
	// failed. From Run, the reader or the writer failed (or a Drop
	// panicked) and the pipeline stopped; as an item's Result.Err, its
	// processing panicked or its accelerator did not run it.
	ErrStageFailed = errors.New("pipeline: stage failed")
	// ErrUndeliverable is returned (possibly wrapped) by a Write function
	// to say that this one result cannot be delivered, typically because
	// its requester has gone, while the writer itself still works. The
	// result is reported to Stages.Drop and the pipeline goes on. Any
	// other Write error is fatal.
	ErrUndeliverable = errors.New("pipeline: result undeliverable")
	// ErrWorkNotRun fails the items of a batch whose Accelerator.Run
	// returned nil without having run the work function to its end
	// (typically without calling it): those items have no result. Such
	// an item is written like any failed item, its Result.Err a
	// *StageError for StageProcess wrapping ErrWorkNotRun.
	ErrWorkNotRun = errors.New("pipeline: accelerator returned without running the work")
)

// Error reports a Config field or a Stages function that Run (or
// Config.Validate) rejects. Its Err is ErrConfig; the package deals in
// neither jobs nor nodes, so it has no Job or Node.
type Error struct {
	Op     string // the call: "Run" or "Validate"
	Field  string // the field at fault, e.g. "ProcessQueue", "Accelerators[1]", "Stages.Read"
	Reason string // what is wrong with it, e.g. "must be at least 1, got 0"
	Err    error  // ErrConfig
	Cause  error  // an underlying error, or nil
}

// Error returns "pipeline: <op>: invalid config: <field>: <reason>".
func (e *Error) Error() string {
	reason := e.Reason
	if e.Field != "" {
		reason = e.Field + ": " + reason
	}
	return errtext.Format(errtext.Parts{Pkg: "pipeline", Op: e.Op, Sentinel: e.Err, Reason: reason, Cause: e.Cause})
}

// Unwrap returns Err and Cause, those that are set.
func (e *Error) Unwrap() []error { return errtext.Unwrap(e.Err, e.Cause) }

// configError returns the *Error for a bad field.
func configError(op, field, reason string) *Error {
	return &Error{Op: op, Field: field, Reason: reason, Err: ErrConfig}
}

// StageError reports a host function's failure at run time (not bad
// input: the *Error is for that): as Run's error, the stage whose failure
// stopped the pipeline and the error its function returned, or a
// *PanicError if it panicked; as an item's Result.Err, a panic of its
// processing or ErrWorkNotRun. errors.Is matches both ErrStageFailed and
// the stage's own error.
type StageError struct {
	Stage Stage
	Err   error
}

// Error returns "pipeline: <stage> stage failed: <err>".
func (e *StageError) Error() string {
	return fmt.Sprintf("pipeline: %s stage failed: %v", e.Stage, e.Err)
}

// Unwrap returns ErrStageFailed and the stage's error.
func (e *StageError) Unwrap() []error { return []error{ErrStageFailed, e.Err} }

// PanicError is what a panic in one of the host's functions (Read,
// Process, ProcessBatch, Write, Drop, or the Accelerator's Run) becomes:
// the pipeline recovers it, as net/http recovers a handler's panic, so
// that a long-running scheduler is not taken down by one bad item. It is
// always wrapped in a *StageError naming the stage.
//
//   - Read: reading stops as for a read error; Run returns the
//     *StageError.
//   - Process, ProcessBatch, Accelerator.Run: the item (every item of the
//     batch, for ProcessBatch or Run) fails with the *StageError as its
//     Result.Err and is written as usual; the pipeline goes on. A Process
//     panic fails only its own item, and the rest of the batch is
//     processed.
//   - Write: fatal, as a write error: the item is dropped and Run returns
//     the *StageError.
//   - Drop: the report is lost; Run returns the *StageError (StageWrite)
//     unless it already has an error.
type PanicError struct {
	Value any    // the value passed to panic
	Stack []byte // the panicking goroutine's stack, from runtime/debug.Stack
}

// Error returns "panic: <value>".
func (e *PanicError) Error() string { return fmt.Sprintf("panic: %v", e.Value) }

// Unwrap returns the panic value if it is an error (panic(err)), so that
// errors.Is and errors.As see through the panic to it; otherwise nil.
func (e *PanicError) Unwrap() []error {
	if err, ok := e.Value.(error); ok {
		return []error{err}
	}
	return nil
}

// recovered turns a recovered panic value into a *StageError.
func recovered(stage Stage, v any) *StageError {
	return &StageError{Stage: stage, Err: &PanicError{Value: v, Stack: debug.Stack()}}
}

// Stage names one of the pipeline's three stages.
type Stage uint8

// The three stages, in the order an item passes them.
const (
	StageRead    Stage = iota // remote read: take the next item from a requester
	StageProcess              // process the item on an accelerator
	StageWrite                // remote write: return the result to its requester
)

var stageNames = [...]string{"read", "process", "write"}

// String returns "read", "process" or "write".
func (s Stage) String() string {
	if int(s) < len(stageNames) {
		return stageNames[s]
	}
	return fmt.Sprintf("Stage(%d)", uint8(s))
}
