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
// One type serves three users: estimate (a task's predicted per-stage
// demand, base zero), fgm (a server's future free resources, base its
// capacity, reservations subtracted stage by stage) and the simulator. A
// Timeline owns its storage; methods never allocate once it has grown to
// its working size. Vectors returned by At and Stage are views into that
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

// Span returns the start of the first stage and the end of the last; ok is
// false when there are no stages.
func (t *Timeline) Span() (start, end time.Duration, ok bool) {
	if len(t.times) == 0 {
		return 0, 0, false
	}
	return t.times[0], t.times[len(t.times)-1], true
}

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

// Add adds v to the value on [start, end). It fails, leaving the timeline
// unchanged, if start ≥ end, v's length differs, or v is not finite.
func (t *Timeline) Add(start, end time.Duration, v Vector) error {
	return t.addScaled("Timeline.Add", start, end, 1, v)
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

// Set sets the value on [start, end) to v.
func (t *Timeline) Set(start, end time.Duration, v Vector) error {
	if err := t.checkInterval("Timeline.Set", start, end, v); err != nil {
		return err
	}
	i, j := t.cover(start, end)
	for ; i < j; i++ {
		copy(t.stage(i), v)
	}
	return nil
}

// AddTimeline adds other, shifted later by offset, to t: other's stages
// land on [start+offset, end+offset). other's base is ignored (a demand
// profile is zero outside its stages). The two must have the same Dims.
func (t *Timeline) AddTimeline(other *Timeline, offset time.Duration) error {
	return t.addTimeline("Timeline.AddTimeline", other, offset, 1)
}

// SubTimeline subtracts other, shifted by offset, from t: reserving a whole
// task profile starting at offset on a server's free-resource timeline.
func (t *Timeline) SubTimeline(other *Timeline, offset time.Duration) error {
	return t.addTimeline("Timeline.SubTimeline", other, offset, -1)
}

func (t *Timeline) addTimeline(op string, other *Timeline, offset time.Duration, c float64) error {
	if other == nil || other.dims != t.dims {
		got := 0
		if other != nil {
			got = other.dims
		}
		return errLen(op, got, t.dims)
	}
	if other == t {
		return errWhy(op, ErrInterval, "timeline added to itself")
	}
	if n := len(other.times); n > 0 {
		first, last := other.times[0], other.times[n-1]
		if (offset > 0 && last > math.MaxInt64-offset) || (offset < 0 && first < math.MinInt64-offset) {
			return errVal(op, float64(offset), ErrOverflow)
		}
	}
	for i := 0; i < other.Len(); i++ {
		s, e, v := other.Stage(i)
		if err := t.addScaled(op, s+offset, e+offset, c, v); err != nil {
			return err
		}
	}
	return nil
}

func (t *Timeline) checkRange(op string, from, to time.Duration, dst Vector) error {
	if from >= to {
		return errWhy(op, ErrInterval, "[%v, %v)", from, to)
	}
	if len(dst) != t.dims {
		return errLen(op, len(dst), t.dims)
	}
	return nil
}

// each calls f for every piece of [from, to): its length and value.
func (t *Timeline) each(from, to time.Duration, f func(d time.Duration, v Vector)) {
	n := len(t.times)
	if n == 0 || to <= t.times[0] || from >= t.times[n-1] {
		f(to-from, t.base)
		return
	}
	if from < t.times[0] {
		f(t.times[0]-from, t.base)
		from = t.times[0]
	}
	i := t.find(from)
	for ; i < n-1 && t.times[i] < to; i++ {
		s, e := max(t.times[i], from), min(t.times[i+1], to)
		f(e-s, t.stage(i))
	}
	if to > t.times[n-1] {
		f(to-t.times[n-1], t.base)
	}
}

// Min sets dst to the element-wise minimum over [from, to): for a free-
// resource timeline, the least available of each kind during the interval
// (paper 004's coarse-grained check, "A_x over [0, T]").
func (t *Timeline) Min(from, to time.Duration, dst Vector) error {
	return t.extreme("Timeline.Min", from, to, dst, true)
}

// Max sets dst to the element-wise maximum over [from, to): for a demand
// profile, the peak of each kind (paper 004's M_x).
func (t *Timeline) Max(from, to time.Duration, dst Vector) error {
	return t.extreme("Timeline.Max", from, to, dst, false)
}

func (t *Timeline) extreme(op string, from, to time.Duration, dst Vector, least bool) error {
	if err := t.checkRange(op, from, to, dst); err != nil {
		return err
	}
	first := true
	t.each(from, to, func(_ time.Duration, v Vector) {
		if first {
			copy(dst, v)
			first = false
			return
		}
		for k := range dst {
			if (v[k] < dst[k]) == least && v[k] != dst[k] {
				dst[k] = v[k]
			}
		}
	})
	return nil
}

// Average sets dst to the time-weighted average over [from, to), paper 004
// formula (14) applied to each kind.
func (t *Timeline) Average(from, to time.Duration, dst Vector) error {
	if err := t.checkRange("Timeline.Average", from, to, dst); err != nil {
		return err
	}
	clear(dst)
	total := float64(to - from)
	t.each(from, to, func(d time.Duration, v Vector) {
		w := float64(d) / total
		for k := range dst {
			dst[k] += w * v[k]
		}
	})
	return nil
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

// Compact merges neighbouring stages with equal values and drops leading
// and trailing stages equal to base. Values at every instant are unchanged.
func (t *Timeline) Compact() {
	k := t.Len()
	if k == 0 {
		return
	}
	w := 0 // stages kept so far
	for i := 0; i < k; i++ {
		if w > 0 && t.times[w] == t.times[i] && t.stage(w-1).Equal(t.stage(i)) {
			t.times[w] = t.times[i+1]
			continue
		}
		if w != i {
			copy(t.stage(w), t.stage(i))
		}
		t.times[w], t.times[w+1] = t.times[i], t.times[i+1]
		w++
	}
	lo, hi := 0, w
	for lo < hi && t.stage(lo).Equal(t.base) {
		lo++
	}
	for hi > lo && t.stage(hi-1).Equal(t.base) {
		hi--
	}
	if lo == hi {
		t.times, t.vals = t.times[:0], t.vals[:0]
		return
	}
	t.times = append(t.times[:0], t.times[lo:hi+1]...)
	t.vals = append(t.vals[:0], t.vals[lo*t.dims:hi*t.dims]...)
}

// Clone returns an independent copy.
func (t *Timeline) Clone() *Timeline {
	return &Timeline{
		dims:  t.dims,
		base:  t.base.Clone(),
		times: slices.Clone(t.times),
		vals:  slices.Clone(t.vals),
		tmp:   t.tmp.Clone(),
	}
}
