package estimate

import (
	"fmt"
	"math/bits"
	"time"

	"github.com/schedkit/schedkit"
)

// TaskTime is the average task time of paper 000 formula (2):
// T_AvgTask = Σ T_FinishedTask / N_FinishedTask.
type TaskTime struct {
	// Avg is the mean run time of the finished tasks, rounded down to a
	// whole nanosecond. It is zero when Known is false.
	Avg time.Duration
	// Known reports whether at least one task has finished. Until one has,
	// formula (2) is undefined and spare time falls back to formula (5).
	Known bool
}

// AverageTaskTime returns formula (2) for finished tasks whose run times
// add up to finishedSum: finishedSum / finished, rounded down. With no
// finished task it returns the zero TaskTime (Known false). A negative
// count or sum, or a positive sum over zero tasks, is an error.
func AverageTaskTime(finishedSum time.Duration, finished int) (TaskTime, error) {
	if reason := checkFinished(finishedSum, finished); reason != "" {
		return TaskTime{}, invalid("AverageTaskTime", -1, "%s", reason)
	}
	if finished == 0 {
		return TaskTime{}, nil
	}
	return TaskTime{Avg: finishedSum / time.Duration(finished), Known: true}, nil
}

// checkFinished says what is wrong with a finished count and duration sum,
// or returns "".
func checkFinished(finishedSum time.Duration, finished int) string {
	switch {
	case finished < 0:
		return fmt.Sprintf("negative finished count %d", finished)
	case finishedSum < 0:
		return fmt.Sprintf("negative finished duration sum %v", finishedSum)
	case finished == 0 && finishedSum != 0:
		return fmt.Sprintf("duration sum %v without finished tasks", finishedSum)
	}
	return ""
}

// PooledTaskTime returns formula (2) over the finished tasks of every
// phase together, the paper's choice ("the reduce task time is taken to be
// the map task time"): Σ over phases of FinishedDurationSum divided by Σ of
// Finished, rounded down. The sums are taken in 128 bits, so they never
// overflow. It checks the counters it reads (no negative count or sum, no
// duration sum without finished tasks).
func PooledTaskTime(phases []schedkit.PhaseProgress) (TaskTime, error) {
	const op = "PooledTaskTime"
	for p, pr := range phases {
		switch {
		case pr.Finished < 0:
			return TaskTime{}, invalid(op, p, "negative finished count %d", pr.Finished)
		case pr.FinishedDurationSum < 0:
			return TaskTime{}, invalid(op, p, "negative finished duration sum %v", pr.FinishedDurationSum)
		case pr.Finished == 0 && pr.FinishedDurationSum != 0:
			return TaskTime{}, invalid(op, p, "duration sum %v without finished tasks", pr.FinishedDurationSum)
		}
	}
	return pooledTaskTime(phases), nil
}

// pooledTaskTime is PooledTaskTime on counters known to be valid.
func pooledTaskTime(phases []schedkit.PhaseProgress) TaskTime {
	var hi, lo, n uint64
	for p := range phases {
		pr := &phases[p]
		var c uint64
		lo, c = bits.Add64(lo, uint64(pr.FinishedDurationSum), 0)
		hi += c
		n += uint64(pr.Finished)
	}
	if n == 0 {
		return TaskTime{}
	}
	// Every phase's sum is at most MaxInt64 times its count, so the
	// quotient fits in 63 bits and hi < n.
	q, _ := bits.Div64(hi, lo, n)
	return TaskTime{Avg: time.Duration(q), Known: true}
}

// PhaseTaskTime returns formula (2) over the finished tasks of one phase
// only (the per-phase option). A phase with no finished task yet takes
// pooled, the job's pooled average (see PooledTaskTime), which may itself
// be unknown.
func PhaseTaskTime(p schedkit.PhaseProgress, pooled TaskTime) (TaskTime, error) {
	if reason := checkFinished(p.FinishedDurationSum, p.Finished); reason != "" {
		return TaskTime{}, invalid("PhaseTaskTime", -1, "%s", reason)
	}
	return phaseTaskTime(&p, pooled), nil
}

// phaseTaskTime is PhaseTaskTime on valid counters.
func phaseTaskTime(p *schedkit.PhaseProgress, pooled TaskTime) TaskTime {
	if p.Finished == 0 {
		return pooled
	}
	return TaskTime{Avg: p.FinishedDurationSum / time.Duration(p.Finished), Known: true}
}

// PriorTaskTime returns the task time formula (3) uses for phase p under
// the per-phase prior option: an a-priori task time for the phase (a
// host's figure from earlier runs of the same job) stands in until the
// phase has finished tasks of its own.
//
//   - p has a finished task: the observed figure, p's own average with
//     perPhase (PhaseTaskTime), else pooled — exactly as without a prior;
//   - otherwise, prior if it is positive;
//   - otherwise (no prior: zero) pooled, as without a prior.
//
// With a pooled average of 13 s, a reduce phase with nothing finished and
// a prior of 70 s takes 70 s; once one reduce finished in 64 s it takes 64
// s (perPhase) or the pooled average (not perPhase). A negative prior or
// one beyond Horizon is an error, as are inconsistent counters.
func PriorTaskTime(p schedkit.PhaseProgress, pooled TaskTime, prior time.Duration, perPhase bool) (TaskTime, error) {
	const op = "PriorTaskTime"
	if prior < 0 || prior > Horizon {
		return TaskTime{}, invalid(op, -1, "prior task time %v outside [0, 2^60 ns]", prior)
	}
	if reason := checkFinished(p.FinishedDurationSum, p.Finished); reason != "" {
		return TaskTime{}, invalid(op, -1, "%s", reason)
	}
	return priorTaskTime(&p, pooled, prior, perPhase), nil
}

// priorTaskTime is PriorTaskTime on valid counters and prior.
func priorTaskTime(p *schedkit.PhaseProgress, pooled TaskTime, prior time.Duration, perPhase bool) TaskTime {
	switch {
	case p.Finished > 0 && perPhase:
		return phaseTaskTime(p, pooled)
	case p.Finished > 0:
		return pooled
	case prior > 0:
		return TaskTime{Avg: prior, Known: true}
	}
	return pooled
}
