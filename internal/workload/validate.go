package workload

import (
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/schedkit/schedkit"
	"github.com/schedkit/schedkit/resource"
)

// SpecError reports a Workload that breaks an invariant checked by
// Validate. It wraps ErrInconsistent (or ErrDuplicate, ErrRange), or a
// *resource.Error for a bad vector.
type SpecError struct {
	Job   string // job ID ("" for the workload as a whole)
	Phase int    // phase index, -1 if not about a phase
	Task  int    // task index within the phase, -1 if not about a task
	Err   error
}

// Error names the job, phase and task.
func (e *SpecError) Error() string {
	switch {
	case e.Task >= 0:
		return fmt.Sprintf("workload: job %q phase %d task %d: %v", e.Job, e.Phase, e.Task, e.Err)
	case e.Phase >= 0:
		return fmt.Sprintf("workload: job %q phase %d: %v", e.Job, e.Phase, e.Err)
	}
	return fmt.Sprintf("workload: job %q: %v", e.Job, e.Err)
}

// Unwrap returns the wrapped error.
func (e *SpecError) Unwrap() error { return e.Err }

// Validate checks what every generator and reader of this package
// guarantees, so that a host can trust a Workload from elsewhere too: job
// IDs non-empty and unique; Submit ≥ 0 and non-decreasing; Deadline ≥ 0;
// Budget finite and ≥ 0; Phi in [0, 1]; 1 to schedkit.MaxPhases phases,
// each with at least one task; every task's Requested valid in space,
// Profile non-empty with stage durations ≥ 0 summing to a positive
// duration and demands valid in space. A nil space skips the vector
// checks.
func (w *Workload) Validate(space *resource.Space) error {
	ids := make(map[string]struct{}, len(w.Jobs))
	for i := range w.Jobs {
		j := &w.Jobs[i]
		bad := func(phase, task int, sentinel error, format string, args ...any) error {
			return &SpecError{Job: j.ID, Phase: phase, Task: task, Err: because(sentinel, format, args...)}
		}
		if j.ID == "" {
			return bad(-1, -1, ErrInconsistent, "empty ID (job %d)", i)
		}
		if _, dup := ids[j.ID]; dup {
			return bad(-1, -1, ErrDuplicate, "ID repeated")
		}
		ids[j.ID] = struct{}{}
		switch {
		case j.Submit < 0:
			return bad(-1, -1, ErrRange, "negative submit %v", j.Submit)
		case i > 0 && j.Submit < w.Jobs[i-1].Submit:
			return bad(-1, -1, ErrInconsistent, "submit %v before the previous job's %v", j.Submit, w.Jobs[i-1].Submit)
		case j.Deadline < 0:
			return bad(-1, -1, ErrRange, "negative deadline %v", j.Deadline)
		case !(j.Budget >= 0 && !math.IsInf(j.Budget, 0)):
			return bad(-1, -1, ErrRange, "budget %v", j.Budget)
		case !(j.Phi >= 0 && j.Phi <= 1):
			return bad(-1, -1, ErrRange, "φ %v outside [0, 1]", j.Phi)
		case len(j.Phases) == 0 || len(j.Phases) > schedkit.MaxPhases:
			return bad(-1, -1, ErrRange, "%d phases, want 1 to %d", len(j.Phases), schedkit.MaxPhases)
		}
		for p, ph := range j.Phases {
			if len(ph.Tasks) == 0 {
				return bad(p, -1, ErrInconsistent, "no tasks")
			}
			for t := range ph.Tasks {
				ts := &ph.Tasks[t]
				if ts.DataSize < 0 {
					return bad(p, t, ErrRange, "negative data size %d", ts.DataSize)
				}
				if space != nil {
					if err := space.Validate(ts.Requested); err != nil {
						return &SpecError{Job: j.ID, Phase: p, Task: t, Err: err}
					}
				}
				if len(ts.Profile) == 0 {
					return bad(p, t, ErrInconsistent, "empty profile")
				}
				var total float64
				for s, st := range ts.Profile {
					if st.Duration < 0 {
						return bad(p, t, ErrRange, "stage %d duration %v", s, st.Duration)
					}
					total += float64(st.Duration)
					if space != nil {
						if err := space.Validate(st.Demand); err != nil {
							return &SpecError{Job: j.ID, Phase: p, Task: t, Err: err}
						}
					}
				}
				if total <= 0 || total > math.MaxInt64 {
					return bad(p, t, ErrRange, "profile lasts %v ns", total)
				}
			}
		}
	}
	return nil
}

// MaxTraceBytes bounds every byte count a trace states (SWIM's map input,
// shuffle and reduce output; a CSV row's data size): 10^15 bytes, one
// petabyte. The largest fields of SWIM's FB-2009 day are 7.6 TB of map
// input and 8.8 TB of shuffle, and a Facebook day four times its size
// stays within ten times that; a value a hundred times beyond is a
// corrupt or synthetic line whose tasks would last years (durations are
// linear in bytes), so readers refuse it with this limit named.
const MaxTraceBytes = 1e15

// checkBytes refuses a byte count above MaxTraceBytes.
func checkBytes(file string, line int, field string, v int64) error {
	if v > MaxTraceBytes {
		return parseErr(file, line, field, ErrRange, "%s bytes exceeds the limit %s", shortE(float64(v)), shortE(MaxTraceBytes))
	}
	return nil
}

// shortE formats x as "1e18" or "1.000000000000001e15": the shortest
// exact form, exponent without "+".
func shortE(x float64) string {
	return strings.Replace(strconv.FormatFloat(x, 'g', -1, 64), "e+", "e", 1)
}

// Tasks returns the number of tasks in the workload.
func (w *Workload) Tasks() int {
	n := 0
	for i := range w.Jobs {
		for _, ph := range w.Jobs[i].Phases {
			n += len(ph.Tasks)
		}
	}
	return n
}
