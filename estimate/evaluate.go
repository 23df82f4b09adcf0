package estimate

import (
	"math"
	"math/bits"
	"time"

	"github.com/schedkit/schedkit"
)

// Counters are one job's figures at one instant, as Evaluate reads them:
// its per-phase counters (already validated), the capacity of each
// phase's slots, and its times relative to now.
type Counters struct {
	// Phases are the job's counters, one per phase. Evaluate assumes they
	// pass schedkit.PhaseProgress.Validate and carry no finished duration
	// sum without finished tasks.
	Phases []schedkit.PhaseProgress
	// Capacity[p] is the capacity of phase p's slots (see Capacity); at
	// least len(Phases) entries, none negative.
	Capacity []Capacity
	// SinceSubmit is now − the job's submission: the running tasks of a
	// phase have run Running·SinceSubmit − RunningStartSum in total (see
	// RunningElapsed).
	SinceSubmit time.Duration
	// Left is deadline − now; ignored when NoDeadline is set.
	Left time.Duration
	// NoDeadline reports that the job has no deadline: no spare time.
	NoDeadline bool
	// Fallback, if positive, is the task time to assume while no task of
	// the job has finished (an admission controller's a-priori figure):
	// formula (4) then applies with it instead of formula (5). Zero: none.
	Fallback time.Duration
}

// Evaluate computes formulas (2)–(5) for c under opt. It cannot fail: it
// is the evaluator for callers that validated the counters once when they
// read them (lss at Submit and Update) and then evaluate them many times;
// EstimateJob validates and then calls it. Inputs that break the
// assumptions documented on Counters and Options (negative counts,
// capacities or priors, fewer capacities than phases) give meaningless
// figures or a panic, never an error.
//
// Every figure is exact integer arithmetic (see the package doc), so two
// evaluations of the same counters agree to the nanosecond.
func Evaluate(c Counters, opt Options) JobEstimate {
	est := JobEstimate{TaskTime: pooledTaskTime(c.Phases), NoDeadline: c.NoDeadline}
	pooled := est.TaskTime
	if !pooled.Known && c.Fallback > 0 {
		pooled = TaskTime{Avg: c.Fallback, Known: true}
		est.TaskTime = pooled
	}
	if !pooled.Known {
		if !c.NoDeadline {
			est.Spare = Spare{Time: c.Left, Initial: true} // (5)
		}
		return est
	}
	var acc remainingSum
	for p := range c.Phases {
		pr := &c.Phases[p]
		t := pooled
		switch {
		case p < len(opt.Priors):
			t = priorTaskTime(pr, pooled, opt.Priors[p], opt.PerPhase)
		case opt.PerPhase:
			t = phaseTaskTime(pr, pooled)
		}
		acc.add(pr.Total-pr.Finished, RunningElapsed(pr, c.SinceSubmit), t.Avg, c.Capacity[p])
	}
	est.Remaining = acc.result()
	if !c.NoDeadline {
		est.Spare = SpareLeft(c.Left, est.Remaining)
	}
	return est
}

// RunningElapsed returns ΣR of formula (3) for one phase: the summed
// elapsed time of its running tasks, Running·sinceSubmit −
// RunningStartSum, where sinceSubmit is now − the job's submission. The
// product saturates at math.MaxInt64 and the result is clamped at zero (a
// task "started" after now counts nothing), so it never overflows. It is
// schedkit.PhaseProgress.RunningElapsed made total.
func RunningElapsed(p *schedkit.PhaseProgress, sinceSubmit time.Duration) time.Duration {
	if p.Running <= 0 || sinceSubmit <= 0 {
		return 0
	}
	hi, lo := bits.Mul64(uint64(p.Running), uint64(sinceSubmit))
	r := int64(math.MaxInt64)
	if hi == 0 && lo <= math.MaxInt64 {
		r = int64(lo)
	}
	r -= int64(p.RunningStartSum)
	return time.Duration(max(r, 0))
}

// remainingSum accumulates formula (3) phase by phase: the one
// implementation behind RemainingTime and Evaluate.
type remainingSum struct{ r Remaining }

// add adds one phase; its inputs must not be negative.
func (a *remainingSum) add(unfinished int, elapsed, taskTime time.Duration, c Capacity) {
	r := &a.r
	w, ok := Waves(unfinished, c)
	if !ok {
		r.CannotFinish, r.NoCapacity = true, true
		return
	}
	if r.CannotFinish {
		return // keep looking for NoCapacity
	}
	if w > 0 && taskTime > 0 {
		if w > int64(Horizon/taskTime) {
			r.CannotFinish = true
			return
		}
		r.Work += time.Duration(w) * taskTime
		if r.Work > Horizon {
			r.CannotFinish = true
			return
		}
	}
	r.Credit = addCredit(r.Credit, elapsed, c)
}

// addCredit adds one phase's ⌊ΣR/S⌋ to credit, capped at Horizon.
func addCredit(credit, elapsed time.Duration, c Capacity) time.Duration {
	credit += ElapsedShare(elapsed, c)
	if credit > Horizon {
		credit = Horizon
	}
	return credit
}

// result returns the accumulated Remaining.
func (a *remainingSum) result() Remaining {
	r := a.r
	if r.CannotFinish {
		r.Work, r.Time, r.Credit = Horizon, Horizon, 0
		return r
	}
	r.Time = r.Work - r.Credit
	return r
}
