package resource

import (
	"math"
	"slices"
	"time"
)

// Timeline is a piecewise-constant vector of amounts over time: a sequence
// of stages [start, end) each holding a Vector, and a base Vector that
// holds everywhere no stage covers (before the first stage and after the
// last). Times are time.Duration offsets from an origin the caller picks
// (the start of a task for a demand profile, "now" or a fixed epoch for a
// server's free resources).
//
// Package fgm keeps one per server: its future free resources, base its
// capacity (less foreign load), reservations subtracted stage by stage
// (Sub) and forgotten as time passes (TrimBefore). A Timeline owns its
// storage; methods never allocate once it has grown to its working
// size. Vectors returned by At and Stage are views into that
// storage, valid until the next change. A Timeline is not safe for
// concurrent use.
type Timeline struct {
	dims  int
	base  Vector
	times []time.Duration // k+1 breakpoints for k > 0 stages; empty when k = 0
	vals  []float64       // k·dims amounts, stage i at [i·dims, (i+1)·dims)
	tmp   Vector          // scratch for splitting
}

// NewTimeline returns an empty timeline whose value everywhere is base.
// base must be non-empty and finite (negative amounts are allowed: an
// over-committed server has negative free resources). base is copied.
func NewTimeline(base Vector) (*Timeline, error) {
	t := &Timeline{}
	if err := t.Reset(base); err != nil {
		return nil, err
	}
	return t, nil
}

// Reset empties the timeline and sets its base, keeping its storage.
func (t *Timeline) Reset(base Vector) error {
	if len(base) == 0 {
		return errWhy("Timeline.Reset", ErrLength, "empty base vector")
	}
	if err := checkFinite("Timeline.Reset", base); err != nil {
		return err
	}
	t.dims = len(base)
	t.base = append(t.base[:0], base...)
	t.tmp = append(t.tmp[:0], base...)
	t.times = t.times[:0]
	t.vals = t.vals[:0]
	return nil
}

func checkFinite(op string, v Vector) error {
	for i, x := range v {
		if !(x >= -math.MaxFloat64 && x <= math.MaxFloat64) { // NaN or infinite: !finite(x), one range test
			return errAt(op, i, x, ErrNotFinite)
		}
	}
	return nil
}

// Dims returns the vector length.
func (t *Timeline) Dims() int { return t.dims }

// Base returns the value outside every stage (a view; do not modify).
func (t *Timeline) Base() Vector { return t.base }

// Len returns the number of stages.
func (t *Timeline) Len() int {
	if len(t.times) == 0 {
		return 0
	}
	return len(t.times) - 1
}

// Stage returns the i-th stage, 0 ≤ i < Len(); the vector is a view.
// Out-of-range i returns a zero interval and a nil vector.
func (t *Timeline) Stage(i int) (start, end time.Duration, v Vector) {
	if i < 0 || i >= t.Len() {
		return 0, 0, nil
	}
	return t.times[i], t.times[i+1], t.stage(i)
}

func (t *Timeline) stage(i int) Vector { return Vector(t.vals[i*t.dims : (i+1)*t.dims]) }

// find returns the index of the stage containing at, or -1 if none does.
func (t *Timeline) find(at time.Duration) int {
	n := len(t.times)
	if n == 0 || at < t.times[0] || at >= t.times[n-1] {
		return -1
	}
	i, found := slices.BinarySearch(t.times, at)
	if found {
		return i
	}
	return i - 1
}

// At returns the value at instant at (a view; do not modify).
func (t *Timeline) At(at time.Duration) Vector {
	if i := t.find(at); i >= 0 {
		return t.stage(i)
	}
	return t.base
}

// cover makes sure [start, end) is covered by stages, with breakpoints at
// start and end, extending with base-valued stages where needed. It
// returns the index of the first stage of the interval and one past the
// last.
func (t *Timeline) cover(start, end time.Duration) (int, int) {
	if len(t.times) == 0 {
		t.times = append(t.times, start, end)
		t.vals = append(t.vals, t.base...)
		return 0, 1
	}
	if start < t.times[0] {
		t.times = slices.Insert(t.times, 0, start)
		t.vals = slices.Insert(t.vals, 0, t.base...)
	}
	if last := t.times[len(t.times)-1]; end > last {
		t.times = append(t.times, end)
		t.vals = append(t.vals, t.base...)
	}
	i := t.split(start, 0)
	return i, t.split(end, i+1) // end > start: after start's breakpoint
}

// split ensures a breakpoint at x (which lies within the covered span or
// at its ends, after times[from-1]) and returns its index in times.
func (t *Timeline) split(x time.Duration, from int) int {
	i, found := slices.BinarySearch(t.times[from:], x)
	i += from
	if found {
		return i
	}
	// x lies inside stage i-1: duplicate that stage's value.
	copy(t.tmp, t.stage(i-1))
	t.times = slices.Insert(t.times, i, x)
	t.vals = slices.Insert(t.vals, i*t.dims, t.tmp...)
	return i
}

func (t *Timeline) checkInterval(op string, start, end time.Duration, v Vector) error {
	if start >= end {
		return errWhy(op, ErrInterval, "[%v, %v)", start, end)
	}
	if len(v) != t.dims {
		return errLen(op, len(v), t.dims)
	}
	return checkFinite(op, v)
}

// Sub subtracts v from the value on [start, end), e.g. to reserve a task's
// stage demand on a server's free-resource timeline.
func (t *Timeline) Sub(start, end time.Duration, v Vector) error {
	return t.addScaled("Timeline.Sub", start, end, -1, v)
}

func (t *Timeline) addScaled(op string, start, end time.Duration, c float64, v Vector) error {
	if err := t.checkInterval(op, start, end, v); err != nil {
		return err
	}
	i, j := t.cover(start, end)
	for ; i < j; i++ {
		s := t.stage(i)
		for k := range s {
			s[k] += c * v[k]
		}
	}
	return nil
}

// Min sets dst to the element-wise minimum over [from, to): for a free-
// resource timeline, the least available of each kind during the interval
// (paper 004's coarse-grained check, "A_x over [0, T]").
func (t *Timeline) Min(from, to time.Duration, dst Vector) error {
	if from >= to {
		return errWhy("Timeline.Min", ErrInterval, "[%v, %v)", from, to)
	}
	if len(dst) != t.dims {
		return errLen("Timeline.Min", len(dst), t.dims)
	}
	n := len(t.times)
	if n == 0 || to <= t.times[0] || from >= t.times[n-1] {
		copy(dst, t.base)
		return nil
	}
	// The pieces in order: the base before the first stage, the stages,
	// the base after the last; the first is copied, the others lower it.
	i := 0
	if from < t.times[0] {
		copy(dst, t.base)
	} else {
		i = t.find(from)
		copy(dst, t.stage(i))
		i++
	}
	for ; i < n-1 && t.times[i] < to; i++ {
		lower(dst, t.stage(i))
	}
	if to > t.times[n-1] {
		lower(dst, t.base)
	}
	return nil
}

// lower sets each element of dst to the smaller of it and v's.
func lower(dst, v Vector) {
	for k, x := range v {
		if x < dst[k] {
			dst[k] = x
		}
	}
}

// TrimBefore forgets everything before at: stages ending at or before at
// are dropped and a stage straddling at is cut to start there. Afterwards
// the value before at reads as base. Use it as the clock advances to keep
// a long-lived timeline small.
func (t *Timeline) TrimBefore(at time.Duration) {
	n := len(t.times)
	if n == 0 || at <= t.times[0] {
		return
	}
	if at < t.times[1] { // still in the first stage: the common case
		t.times[0] = at
		return
	}
	if at >= t.times[n-1] {
		t.times, t.vals = t.times[:0], t.vals[:0]
		return
	}
	i := t.find(at) // stage containing at
	if i > 0 {
		// Shift down; unlike slices.Delete, leave the abandoned tail
		// as it is (plain values, overwritten when the timeline grows).
		t.times = t.times[:copy(t.times, t.times[i:])]
		t.vals = t.vals[:copy(t.vals, t.vals[i*t.dims:])]
	}
	t.times[0] = at
}
