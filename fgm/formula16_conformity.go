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
	var c confSums
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
		c.used += g.Used * t
		c.pred += g.Predicted * t
		c.idle += g.Idle * t
		c.sq += d * d * t
		c.total += t
	}
	f := c.conformity(capacity, threshold)
	if math.IsNaN(f) || math.IsInf(f, 0) {
		return 0, &Error{Op: "Conformity", Err: ErrInvalidSample, Reason: "amounts overflow"}
	}
	return f, nil
}

// confSums are the time-weighted sums formula (16) needs.
type confSums struct{ used, pred, idle, sq, total float64 }

func (c confSums) conformity(capacity, threshold float64) float64 {
	if c.total <= 0 {
		return 0
	}
	mu, alpha, idle := c.used/c.total, c.pred/c.total, c.idle/c.total
	if mu > alpha && idle < threshold*capacity {
		return c.sq / c.total
	}
	return 0
}
