package estimate

import (
	"math"
	"math/bits"
	"time"
)

// Horizon bounds every time figure of this package: 2⁶⁰ ns, about 36.5
// years. Work beyond it is reported as CannotFinish and elapsed credit is
// capped at it, which keeps every sum and difference of figures inside
// int64 without saturation.
const Horizon = time.Duration(1 << 60)

// PhaseLoad is what formula (3) reads about one phase of a job.
type PhaseLoad struct {
	// Unfinished is N_unFinished: the phase's pending plus running tasks.
	Unfinished int
	// Elapsed is Σ T_Running: the summed elapsed time of the phase's
	// running tasks (schedkit.PhaseProgress.RunningElapsed).
	Elapsed time.Duration
	// TaskTime is T_AvgTask for the phase: the pooled average (paper) or
	// the phase's own (per-phase option).
	TaskTime time.Duration
	// Capacity is N_Slot: the cluster's slots for the phase's kind, or
	// their effective capacity on heterogeneous nodes.
	Capacity Capacity
}

// Remaining is the result of formula (3):
//
//	T_Remaining = Σ_p ⌈U_p / S_p⌉ · T_p − Σ_p ΣR_p / S_p
//
// over the phases p of a job (two for MapReduce: map and reduce).
type Remaining struct {
	// Time is Work − Credit: the time the job still needs if it ran alone
	// on the cluster. It may be negative when running tasks have already
	// run longer than the average. When CannotFinish is set, Time and Work
	// are Horizon and Credit is zero.
	Time time.Duration
	// Work is Σ ⌈U_p/S_p⌉ · T_p: whole waves of tasks at the average time.
	Work time.Duration
	// Credit is Σ ⌊ΣR_p/S_p⌋: the running tasks' elapsed time spread over
	// the phase's slots, rounded down to a nanosecond per phase (so
	// Remaining rounds up), capped at Horizon.
	Credit time.Duration
	// CannotFinish reports that the job cannot finish in any time this
	// package represents: a phase has unfinished work and zero capacity
	// (NoCapacity), or Work exceeds Horizon.
	CannotFinish bool
	// NoCapacity reports that some phase has unfinished work and no
	// capacity at all — the "cannot finish" result that replaces a
	// division by zero.
	NoCapacity bool
}

// Waves returns ⌈unfinished / c⌉, the number of waves the phase needs on
// capacity c (c in thousandths of a slot, so ⌈unfinished × 1000 / c⌉).
// ok is false when there is unfinished work and c is zero. Huge results
// saturate at math.MaxInt64. Negative inputs give ok false.
func Waves(unfinished int, c Capacity) (waves int64, ok bool) {
	switch {
	case unfinished < 0 || c < 0:
		return 0, false
	case unfinished == 0:
		return 0, true
	case c == 0:
		return 0, false
	}
	u := uint64(unfinished)
	if c%Slot == 0 {
		s := uint64(c / Slot)
		q := u / s
		if u%s != 0 {
			q++
		}
		return int64(q), true
	}
	hi, lo := bits.Mul64(u, uint64(Slot))
	if hi >= uint64(c) {
		return math.MaxInt64, true
	}
	q, r := bits.Div64(hi, lo, uint64(c))
	if r != 0 {
		q++
	}
	if q > math.MaxInt64 {
		return math.MaxInt64, true
	}
	return int64(q), true
}

// ElapsedShare returns ⌊elapsed / c⌋ (c in thousandths of a slot, so
// ⌊elapsed × 1000 / c⌋), capped at Horizon: the second term of formula
// (3) for one phase. It is zero when elapsed ≤ 0 or c ≤ 0.
func ElapsedShare(elapsed time.Duration, c Capacity) time.Duration {
	if elapsed <= 0 || c <= 0 {
		return 0
	}
	var q uint64
	if c%Slot == 0 {
		q = uint64(elapsed) / uint64(c/Slot)
	} else {
		hi, lo := bits.Mul64(uint64(elapsed), uint64(Slot))
		if hi >= uint64(c) {
			return Horizon
		}
		q, _ = bits.Div64(hi, lo, uint64(c))
	}
	if q > uint64(Horizon) {
		return Horizon
	}
	return time.Duration(q)
}

// RemainingTime evaluates formula (3) over a job's phases. Negative
// counts, elapsed times, task times or capacities are errors. A phase
// with unfinished work and zero capacity makes the result CannotFinish
// (with NoCapacity), never a division by zero; so does Work beyond
// Horizon.
//
// Rounding: ⌈U/S⌉ is exact; each phase's ΣR/S is rounded down to a
// nanosecond. With heterogeneous capacities S is in thousandths of a slot
// (see Capacity).
func RemainingTime(phases []PhaseLoad) (Remaining, error) {
	const op = "RemainingTime"
	var acc remainingSum
	for p, ph := range phases {
		switch {
		case ph.Unfinished < 0:
			return Remaining{}, invalid(op, p, "negative unfinished count %d", ph.Unfinished)
		case ph.Elapsed < 0:
			return Remaining{}, invalid(op, p, "negative elapsed time %v", ph.Elapsed)
		case ph.TaskTime < 0:
			return Remaining{}, invalid(op, p, "negative task time %v", ph.TaskTime)
		case ph.Capacity < 0:
			return Remaining{}, invalid(op, p, "negative capacity %d", int64(ph.Capacity))
		}
		acc.add(ph.Unfinished, ph.Elapsed, ph.TaskTime, ph.Capacity)
	}
	return acc.result(), nil
}

// WithElapsed returns formula (3) for the phases r was computed for by
// RemainingTime with every Elapsed zero, with elapsed[p] (≥ 0) as the
// Elapsed of phase p and caps[p] its Capacity as given to RemainingTime:
// the same Remaining RemainingTime returns for those phases with these
// elapsed times. Only the credit Σ ⌊ΣR_p/S_p⌋ depends on the elapsed
// times, so a caller whose jobs' running tasks age while their counts
// and capacities stay the same computes the waves once and this per
// instant. A CannotFinish r is returned as it is (its credit is zero).
func (r Remaining) WithElapsed(elapsed []time.Duration, caps []Capacity) Remaining {
	if r.CannotFinish {
		return r
	}
	var credit time.Duration
	for p, el := range elapsed {
		credit = addCredit(credit, el, caps[p])
	}
	r.Credit = credit
	r.Time = r.Work - credit
	return r
}
