package schedkit

import (
	"errors"
	"fmt"
)

// ErrInvalidProgress is wrapped by every *ProgressError.
var ErrInvalidProgress = errors.New("schedkit: inconsistent phase progress")

// ProgressError reports inconsistent PhaseProgress counters from a host.
type ProgressError struct {
	Progress PhaseProgress
	Reason   string
}

// Error names the counters and what is inconsistent about them.
func (e *ProgressError) Error() string {
	return fmt.Sprintf("schedkit: inconsistent phase progress %+v: %s", e.Progress, e.Reason)
}

// Unwrap returns ErrInvalidProgress.
func (e *ProgressError) Unwrap() error { return ErrInvalidProgress }
