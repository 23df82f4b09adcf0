package metrics

import (
	"errors"
	"fmt"
	"math"
)

// ErrInvalid is wrapped by every error Run.Validate returns.
var ErrInvalid = errors.New("metrics: invalid run record")

// RunError names the job record or sample of a Run that is invalid. It
// wraps ErrInvalid.
type RunError struct {
	Job    int // index into Run.Jobs, -1 if not about a job
	Sample int // index into Run.Samples, -1 if not about a sample
	Err    error
}

// Error names the record.
func (e *RunError) Error() string {
	switch {
	case e.Job >= 0:
		return fmt.Sprintf("metrics: job %d: %v", e.Job, e.Err)
	case e.Sample >= 0:
		return fmt.Sprintf("metrics: sample %d: %v", e.Sample, e.Err)
	}
	return fmt.Sprintf("metrics: %v", e.Err)
}

// Unwrap returns the wrapped error.
func (e *RunError) Unwrap() error { return e.Err }

func invalid(format string, args ...any) error {
	return fmt.Errorf("%w: "+format, append([]any{ErrInvalid}, args...)...)
}

// jobError checks one record: 0 ≤ Submit ≤ Start ≤ Finish, Deadline ≥ 0,
// Cost and Budget finite and ≥ 0, Phi in [0, 1], a known Outcome.
func jobError(j *JobRecord) error {
	switch {
	case j.Submit < 0 || j.Start < j.Submit || j.Finish < j.Start:
		return invalid("job %q: want 0 ≤ submit %v ≤ start %v ≤ finish %v", j.ID, j.Submit, j.Start, j.Finish)
	case j.Deadline < 0:
		return invalid("job %q: negative deadline %v", j.ID, j.Deadline)
	case !(j.Cost >= 0) || math.IsInf(j.Cost, 0):
		return invalid("job %q: cost %v", j.ID, j.Cost)
	case !(j.Budget >= 0) || math.IsInf(j.Budget, 0):
		return invalid("job %q: budget %v", j.ID, j.Budget)
	case !(j.Phi >= 0 && j.Phi <= 1):
		return invalid("job %q: φ %v outside [0, 1]", j.ID, j.Phi)
	case j.Outcome > Failed:
		return invalid("job %q: unknown outcome %d", j.ID, j.Outcome)
	}
	return nil
}

// Validate reports the first record Summarize would have to leave out:
// an invalid job (see JobRecord), a sample whose Utilisation does not
// match Kinds or holds a negative or non-finite value, a negative or
// non-finite share, or negative counters.
func (r Run) Validate() error {
	if r.FailedTasks < 0 || r.RetriedTasks < 0 || r.Decisions < 0 || r.DecisionTime < 0 || r.Events < 0 {
		return &RunError{Job: -1, Sample: -1, Err: invalid("negative counter")}
	}
	for i := range r.Jobs {
		if err := jobError(&r.Jobs[i]); err != nil {
			return &RunError{Job: i, Sample: -1, Err: err}
		}
	}
	for i, s := range r.Samples {
		if len(s.Utilisation) != len(r.Kinds) {
			return &RunError{Job: -1, Sample: i, Err: invalid("%d utilisation values for %d kinds", len(s.Utilisation), len(r.Kinds))}
		}
		for k, u := range s.Utilisation {
			if !(u >= 0) || math.IsInf(u, 0) {
				return &RunError{Job: -1, Sample: i, Err: invalid("utilisation of %s = %v", r.Kinds[k], u)}
			}
		}
		for k, x := range s.Shares {
			if !(x >= 0) || math.IsInf(x, 0) {
				return &RunError{Job: -1, Sample: i, Err: invalid("share %d = %v", k, x)}
			}
		}
		if s.Shares == nil && s.Jain.Bad {
			return &RunError{Job: -1, Sample: i, Err: invalid("a share is negative, NaN or infinite")}
		}
	}
	return nil
}
