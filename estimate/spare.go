package estimate

import (
	"math"
	"time"
)

// Spare is a job's spare time (laxity): how long it may still wait and
// meet its deadline, formula (1) T_Spare = T_DeadLine − T_Now −
// T_Remaining.
type Spare struct {
	// Time is the spare time. It is math.MinInt64 (minus infinity) when
	// CannotFinish is set; otherwise Deadline − Now − Remaining, saturated
	// at the int64 bounds.
	Time time.Duration
	// Initial reports that formula (5) was used: no task has finished,
	// T_AvgTask is unknown, and Time is simply Deadline − Now.
	Initial bool
	// CannotFinish reports that the remaining time was CannotFinish (a
	// phase with unfinished work has no capacity): the spare time is minus
	// infinity.
	CannotFinish bool
}

// String returns the spare time for display: "cannot finish" when
// CannotFinish is set (rather than the minus-infinity sentinel, which
// prints as -2562047h47m16.854775808s), otherwise the duration, followed
// by " (initial)" when formula (5) gave it.
func (s Spare) String() string {
	switch {
	case s.CannotFinish:
		return "cannot finish"
	case s.Initial:
		return s.Time.String() + " (initial)"
	}
	return s.Time.String()
}

// SpareTime returns formula (4): deadline − now − r.Time. A CannotFinish
// remaining time gives a CannotFinish spare time.
func SpareTime(deadline, now time.Time, r Remaining) Spare {
	return SpareLeft(deadline.Sub(now), r)
}

// SpareLeft is SpareTime given left = deadline − now.
func SpareLeft(left time.Duration, r Remaining) Spare {
	if r.CannotFinish {
		return Spare{Time: math.MinInt64, CannotFinish: true}
	}
	return Spare{Time: subSat(left, r.Time)}
}

// InitialSpareTime returns formula (5), used before any task of the job
// has finished: deadline − now.
func InitialSpareTime(deadline, now time.Time) Spare {
	return Spare{Time: deadline.Sub(now), Initial: true}
}

// subSat returns a − b saturated at the int64 bounds.
func subSat(a, b time.Duration) time.Duration {
	d := a - b
	if (b > 0 && d > a) || (b < 0 && d < a) {
		if b > 0 {
			return math.MinInt64
		}
		return math.MaxInt64
	}
	return d
}
