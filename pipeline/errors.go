package pipeline

import (
	"errors"
	"fmt"
)

// Sentinel errors. Every error Run returns, other than the context's own,
// wraps exactly one of them, so callers can test with errors.Is and read
// the details with errors.As on *ConfigError or *StageError.
var (
	// ErrInvalidConfig is wrapped by every *ConfigError: a Config or
	// Stages value that Run rejects before starting any goroutine.
	ErrInvalidConfig = errors.New("pipeline: invalid config")
	// ErrStageFailed is wrapped by every *StageError: the reader or the
	// writer failed and the pipeline stopped.
	ErrStageFailed = errors.New("pipeline: stage failed")
	// ErrUndeliverable is returned (possibly wrapped) by a Write function
	// to say that this one result cannot be delivered, typically because
	// its requester has gone, while the writer itself still works. The
	// result is reported to Stages.Drop and the pipeline goes on. Any
	// other Write error is fatal.
	ErrUndeliverable = errors.New("pipeline: result undeliverable")
)

// ConfigError reports a Config field or a Stages function that Run
// rejects. It wraps ErrInvalidConfig.
type ConfigError struct {
	Field  string // e.g. "ProcessQueue", "Accelerators[1]", "Stages.Read"
	Reason string // e.g. "must be at least 1, got 0"
}

// Error returns "pipeline: invalid config: <field>: <reason>".
func (e *ConfigError) Error() string {
	return fmt.Sprintf("pipeline: invalid config: %s: %s", e.Field, e.Reason)
}

// Unwrap returns ErrInvalidConfig.
func (e *ConfigError) Unwrap() error { return ErrInvalidConfig }

// StageError reports the stage whose failure stopped the pipeline and the
// error that stage's function returned. errors.Is matches both
// ErrStageFailed and the stage's own error.
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
