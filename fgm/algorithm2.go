package fgm

import (
	"fmt"
	"math"
	"time"

	"github.com/schedkit/schedkit/estimate"
	"github.com/schedkit/schedkit/internal/clock"
	"github.com/schedkit/schedkit/resource"
)

// Matcher is Algorithm 2 (fine-grained matching) of paper 004: it walks a
// task's predicted stages against a server's free-resource timeline and
// accepts the task if every stage's demand fits every availability stage
// it overlaps. Incompressible kinds must fit the free amount; a
// compressible kind may dip below it by rc × N, N the server's capacity,
// rc the bound of formulas (6)/(7) for that pair of stages:
//
//	rc = clamp((s − p·(N − n)) / ((N − n) + s), 0, limit)
//
// with s the stage's demand, n the free amount (so N − n is the work of
// the tasks already there per unit of time, w_i of (6), and s is
// w_{n+1}; both are rates over the same overlap, so its length cancels).
//
// A Matcher is immutable and safe for concurrent use; Match does not
// allocate.
type Matcher struct {
	comp         []bool
	penalty, lim float64
}

// NewMatcher returns a Matcher for space with contention penalty p and
// compression limit (formula (7)); limit 0 never compresses.
func NewMatcher(space *resource.Space, p, limit float64) (*Matcher, error) {
	if space == nil {
		return nil, &Error{Op: "NewMatcher", Err: ErrConfig, Reason: "nil Space"}
	}
	if !(p >= 0) || math.IsInf(p, 0) {
		return nil, &Error{Op: "NewMatcher", Err: ErrConfig, Reason: fmt.Sprintf("penalty %v is not finite and ≥ 0", p)}
	}
	if !(limit >= 0 && limit < 1) {
		return nil, &Error{Op: "NewMatcher", Err: ErrConfig, Reason: fmt.Sprintf("limit %v outside [0, 1)", limit)}
	}
	m := &Matcher{comp: make([]bool, space.Len()), penalty: p, lim: limit}
	for k := range m.comp {
		m.comp[k] = space.Compressible(k)
	}
	return m, nil
}

// slack is the relative tolerance of a fit: rounding in sums of
// reservations must not turn an exact fit into a refusal.
const slack = 1e-9

// Match runs Algorithm 2 for a task whose stages start at now on srv's
// free timeline (srv.Free, capacity srv.Capacity; now is read on the
// timeline's clock, as an offset from srv.Epoch; Measured, Used and
// Placed are not read). compress false matches without compression
// (rc = 0: the fine-grained policy without compression). On success it
// fills rates (len(stages) × kinds, stage by stage) with the compression
// each stage would cause on the server, kind by kind: the largest over
// the stage of (s − n)/(N − n + s) where the demand s exceeds the free
// amount n (formula (1) for the server's total demand against N), 0
// elsewhere. On refusal rates is unspecified.
//
// Match checks its inputs (lengths, finite non-negative demands,
// non-negative durations summing to more than 0, now within 2⁶⁰ ns of
// srv.Epoch) and returns an ErrInvalidEstimate, ErrInvalidNode or
// ErrTimeRange error for bad ones; it never panics on them.
func (m *Matcher) Match(srv Server, stages []estimate.Stage, now time.Time, compress bool, rates []float64) (bool, error) {
	at, err := m.check("Match", srv, stages, now, rates)
	if err != nil {
		return false, err
	}
	return m.match(srv.Free, srv.Capacity, stages, at, compress, rates, nil), nil
}

// check validates Match's and Explain's arguments and returns now's
// offset on the timeline's clock.
func (m *Matcher) check(op string, srv Server, stages []estimate.Stage, now time.Time, rates []float64) (time.Duration, error) {
	dims := len(m.comp)
	if srv.Free == nil || srv.Free.Dims() != dims || len(srv.Capacity) != dims {
		return 0, &Error{Op: op, Err: ErrInvalidNode, Reason: "timeline or capacity does not fit the Space"}
	}
	if len(rates) < len(stages)*dims {
		return 0, &Error{Op: op, Err: ErrInvalidEstimate, Reason: fmt.Sprintf("rates holds %d, want %d", len(rates), len(stages)*dims)}
	}
	if err := validStages(stages, dims); err != nil {
		err.Op = op
		return 0, err
	}
	return timelineOffset(op, srv.Epoch, now)
}

// timelineOffset returns now's offset from epoch, or an ErrTimeRange
// error if it is more than 2⁶⁰ ns.
func timelineOffset(op string, epoch, now time.Time) (time.Duration, error) {
	d := now.Sub(epoch) // saturates: out of range either way
	if d < -time.Duration(clock.Limit) || d > time.Duration(clock.Limit) {
		return 0, &Error{Op: op, Err: ErrTimeRange, Reason: fmt.Sprintf("%v is more than 2^60 ns (about 36 years) from the Server's Epoch %v", now, epoch)}
	}
	return d, nil
}

// Refusal says where Algorithm 2 refused a task: the first stage, and
// the first kind within it, whose demand did not fit an availability
// stage it overlaps. A host reports it (a scheduler's "why not here").
type Refusal struct {
	Stage int           // index of the task's stage
	Kind  int           // index of the resource kind in the Space
	At    time.Duration // start of the overlap, on the timeline's clock (an offset from Server.Epoch)
	// Demand is the stage's demand of the kind, Free the free amount
	// over the availability stage, Allowance the compression allowance
	// rc × N the kind could dip by there (0 for an incompressible kind or
	// without compression).
	Demand, Free, Allowance float64
}

// Explain is Match that also says, on refusal, where the task did not
// fit. On success the Refusal is zero. It decides exactly as Match does.
func (m *Matcher) Explain(srv Server, stages []estimate.Stage, now time.Time, compress bool, rates []float64) (bool, Refusal, error) {
	at, err := m.check("Explain", srv, stages, now, rates)
	if err != nil {
		return false, Refusal{}, err
	}
	var r Refusal
	ok := m.match(srv.Free, srv.Capacity, stages, at, compress, rates, &r)
	return ok, r, nil
}

// validStages checks stages (none is valid: nothing to match): lengths
// non-negative and summing to more than 0 and at most 2⁶⁰ ns (stages
// that all last 0 s would reserve nothing while their task runs), and
// demands of dims finite non-negative amounts. The caller sets Op.
func validStages(stages []estimate.Stage, dims int) *Error {
	bad := func(format string, args ...any) *Error {
		return &Error{Err: ErrInvalidEstimate, Reason: fmt.Sprintf(format, args...)}
	}
	var total time.Duration
	for i, s := range stages {
		if s.Duration < 0 {
			return bad("stage %d has negative length %v", i, s.Duration)
		}
		if total += s.Duration; total > time.Duration(clock.Limit) {
			return bad("stages last more than 2^60 ns")
		}
		if len(s.Demand) != dims {
			return bad("stage %d demand has %d kinds, want %d", i, len(s.Demand), dims)
		}
		for _, x := range s.Demand {
			if !(x >= 0) || math.IsInf(x, 0) {
				return bad("stage %d demand %v is not finite and ≥ 0", i, s.Demand)
			}
		}
	}
	if len(stages) > 0 && total == 0 {
		return bad("%d stages lasting 0 s in all", len(stages))
	}
	return nil
}

// cursor walks the pieces of a timeline: the base before its first
// stage (index −1), its stages, the base after its last (index Len()).
type cursor struct {
	t          *resource.Timeline
	i, n       int
	start, end time.Duration
	v          resource.Vector
}

// seek positions c on the piece containing at.
func (c *cursor) seek(t *resource.Timeline, at time.Duration) {
	c.t, c.n = t, t.Len()
	if c.n == 0 {
		c.i, c.start, c.end, c.v = 0, math.MinInt64, math.MaxInt64, t.Base()
		return
	}
	first, _, _ := t.Stage(0)
	_, last, _ := t.Stage(c.n - 1)
	switch {
	case at < first:
		c.set(-1)
	case at >= last:
		c.set(c.n)
	default:
		lo, hi := 0, c.n-1 // the stage containing at
		for lo < hi {
			mid := int(uint(lo+hi+1) >> 1)
			if s, _, _ := t.Stage(mid); s <= at {
				lo = mid
			} else {
				hi = mid - 1
			}
		}
		c.set(lo)
	}
}

func (c *cursor) set(i int) {
	c.i = i
	switch {
	case c.n == 0:
		c.start, c.end, c.v = math.MinInt64, math.MaxInt64, c.t.Base()
	case i < 0:
		first, _, _ := c.t.Stage(0)
		c.start, c.end, c.v = math.MinInt64, first, c.t.Base()
	case i >= c.n:
		_, last, _ := c.t.Stage(c.n - 1)
		c.start, c.end, c.v = last, math.MaxInt64, c.t.Base()
	default:
		c.start, c.end, c.v = c.t.Stage(i)
	}
}

func (c *cursor) next() { c.set(c.i + 1) }

// match is Algorithm 2 on valid input. On refusal it fills why, if not
// nil.
func (m *Matcher) match(free *resource.Timeline, capacity resource.Vector, stages []estimate.Stage, at time.Duration, compress bool, rates []float64, why *Refusal) bool {
	dims := len(m.comp)
	var c cursor
	c.seek(free, at)
	t := at
	for si, s := range stages {
		r := rates[si*dims : (si+1)*dims]
		clear(r)
		end := t + s.Duration
		if s.Duration == 0 {
			continue
		}
		// Algorithm 2 lines 7–18: every availability stage n with
		// n.start < s.end.
		for c.start < end {
			if k := m.fits(c.v, capacity, s.Demand, compress, r); k >= 0 {
				if why != nil {
					*why = Refusal{Stage: si, Kind: k, At: max(c.start, t), Demand: s.Demand[k], Free: c.v[k]}
					if m.comp[k] && compress {
						rc, _ := resource.CompressionBound(max(0, capacity[k]-c.v[k]), s.Demand[k], m.penalty, m.lim)
						why.Allowance = rc * capacity[k]
					}
				}
				return false
			}
			if c.end <= end {
				c.next()
			} else {
				break
			}
		}
		t = end
	}
	return true
}

// fits is line 8 of Algorithm 2 for one pair of stages: free n, demand
// s. It returns the first kind that does not fit, −1 if all do.
func (m *Matcher) fits(n, capacity, s resource.Vector, compress bool, rates []float64) int {
	for k, d := range s {
		f, N := n[k], capacity[k]
		if d == 0 || f+slack*N >= d { // a kind not demanded never refuses
			continue
		}
		if !m.comp[k] || !compress {
			return k
		}
		existing := max(0, N-f)
		rc, err := resource.CompressionBound(existing, d, m.penalty, m.lim)
		if err != nil || f+rc*N+slack*N < d {
			return k
		}
		if e := (d - f) / (N - f + d); e > rates[k] {
			rates[k] = e
		}
	}
	return -1
}
