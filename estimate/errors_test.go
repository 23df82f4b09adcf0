package estimate_test

import (
	"errors"
	"testing"
	"time"

	"github.com/schedkit/schedkit"
	"github.com/schedkit/schedkit/estimate"
)

// Every error is an *Error wrapping ErrInvalid and, where another
// package found the fault, that package's error as its Cause.
func TestErrorShape(t *testing.T) {
	pooled := estimate.TaskTime{Avg: time.Second, Known: true}
	bad := schedkit.PhaseProgress{Finished: -2}
	_, e1 := estimate.PhaseTaskTime(bad, pooled)
	_, e2 := estimate.PriorTaskTime(bad, pooled, 0, true)
	_, e3 := estimate.AverageTaskTime(0, -2)
	for i, err := range []error{e1, e2, e3} {
		var e *estimate.Error
		if !errors.As(err, &e) || !errors.Is(err, estimate.ErrInvalid) || e.Reason != "negative finished count -2" || e.Phase != -1 {
			t.Errorf("error %d: %#v", i, err)
		}
	}
	if got, want := e1.Error(), "estimate: PhaseTaskTime: invalid input: negative finished count -2"; got != want {
		t.Errorf("text %q, want %q", got, want)
	}
	// An Error built by hand (no Err) still wraps ErrInvalid.
	hand := &estimate.Error{Op: "X", Phase: 1, Reason: "r"}
	if !errors.Is(hand, estimate.ErrInvalid) || hand.Error() != "estimate: X: invalid input: phase 1: r" {
		t.Errorf("hand-built: %q", hand)
	}
	cause := &schedkit.ProgressError{Reason: "x"}
	withCause := &estimate.Error{Op: "X", Phase: -1, Reason: "r", Err: estimate.ErrInvalid, Cause: cause}
	if !errors.Is(withCause, schedkit.ErrInvalidProgress) || !errors.Is(withCause, estimate.ErrInvalid) {
		t.Errorf("cause not unwrapped: %v", withCause)
	}
}
