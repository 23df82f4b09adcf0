package fgm

import (
	"fmt"
	"math"
	"time"
)

// Segment is one period of a server's samples of one resource kind: its
// Duration, the measured Used, the Predicted usage (reservations plus
// the foreign-load estimate) and the measured Idle amount.
type Segment struct {
	Duration              time.Duration
	Used, Predicted, Idle float64
}

// Conformity is formula (16), the estimate conformity of one resource of
// a server over segments, normalised by the server's capacity N of that
// resource so that thresholds do not depend on units:
//
//	F = Σ ((μᵢ − αᵢ)/N)² · tᵢ / T   if μ > α and I < Th·N
//	F = 0                          otherwise
//
// where μ, α and I are the time-weighted means (formula (14)) of Used,
// Predicted and Idle, T = Σ tᵢ, and Th the idle threshold. Only an
// under-estimate on a busy server counts: while the prediction is high or
// the server has room, the estimator is left to correct itself (the
// paper's reasoning). N must be positive, Th in [0, 1), amounts finite,
// durations non-negative; zero total duration gives 0.
func Conformity(segments []Segment, capacity, threshold float64) (float64, error) {
	if !(capacity > 0) || math.IsInf(capacity, 0) {
		return 0, &Error{Op: "Conformity", Err: ErrInvalidSample, Reason: fmt.Sprintf("capacity %v is not finite and > 0", capacity)}
	}
	if !(threshold >= 0 && threshold < 1) {
		return 0, &Error{Op: "Conformity", Err: ErrInvalidSample, Reason: fmt.Sprintf("threshold %v outside [0, 1)", threshold)}
	}
	var c kindSums
	for i, g := range segments {
		for _, x := range [...]float64{g.Used, g.Predicted, g.Idle} {
			if math.IsNaN(x) || math.IsInf(x, 0) {
				return 0, &Error{Op: "Conformity", Err: ErrInvalidSample, Reason: fmt.Sprintf("segment %d holds %v", i, x)}
			}
		}
		if g.Duration < 0 {
			return 0, &Error{Op: "Conformity", Err: ErrInvalidSample, Reason: fmt.Sprintf("segment %d has negative duration %v", i, g.Duration)}
		}
		t := g.Duration.Seconds()
		d := (g.Used - g.Predicted) / capacity
		c.used.Add(g.Used, t)
		c.pred.Add(g.Predicted, t)
		c.idle.Add(g.Idle, t)
		c.sq.Add(d*d, t)
	}
	f := c.conformity(capacity, threshold)
	if math.IsNaN(f) || math.IsInf(f, 0) {
		return 0, &Error{Op: "Conformity", Err: ErrInvalidSample, Reason: "amounts overflow"}
	}
	return f, nil
}

// conformity is formula (16) on one kind's sums (capacity N, idle
// threshold Th): the mean squared deviation when the mean usage exceeds
// the mean prediction and the mean idle amount is below Th·N, else 0.
func (c *kindSums) conformity(capacity, threshold float64) float64 {
	if c.used.Total <= 0 {
		return 0
	}
	if c.used.Value() > c.pred.Value() && c.idle.Value() < threshold*capacity {
		return c.sq.Value()
	}
	return 0
}
