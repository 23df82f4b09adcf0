package dbs

import "time"

// MaxTerm caps each term of model 1: a constraint that can no longer be
// met (deadline passed, budget spent, no capacity) weighs MaxTerm rather
// than infinity, so weights stay finite and averages stay numbers.
const MaxTerm = 1e6

// WeightInput is what model 1 reads about one job at one instant.
type WeightInput struct {
	// Phi is the time-influence factor φ.
	Phi float64
	// Remaining is T̂, the job's remaining time at the processing rate
	// available to it (estimate.RemainingTime at the job's capacity), and
	// CannotFinish that rate is zero for a phase with work left.
	Remaining    time.Duration
	CannotFinish bool
	// DeadlineLeft is D, the deadline minus now.
	DeadlineLeft time.Duration
	// SlotSeconds is what is left of the job's work in slot-seconds:
	// Σ unfinished × task time − Σ elapsed of running tasks, at least 0.
	SlotSeconds float64
	// Price is c_q, the price per slot-second of the job's queue.
	Price float64
	// BudgetLeft is B, the budget minus the cost so far.
	BudgetLeft float64
}

// WeightFigures is model 1's result and the figures behind it.
type WeightFigures struct {
	// Cost is Ĉ = Price × SlotSeconds, the estimated cost of what is left.
	Cost float64
	// TimeTerm is T̂/D (0 when φ = 0) and CostTerm Ĉ/B (0 when φ = 1),
	// each capped at MaxTerm; a term whose constraint can no longer be
	// met (D ≤ 0 or no capacity, B ≤ 0) with work left is MaxTerm.
	TimeTerm, CostTerm float64
	// W = φ·TimeTerm + (1−φ)·CostTerm: the fraction of the remaining
	// deadline and budget the job would use. Larger is more pressing.
	W float64
}

// Weight is model 1 (reconstructed, see the package doc):
//
//	W = φ·T̂/D + (1−φ)·Ĉ/B,   Ĉ = c_q × remaining slot-seconds.
//
// The result is always finite and non-negative for finite inputs.
func Weight(in WeightInput) WeightFigures {
	f := WeightFigures{Cost: in.Price * max(in.SlotSeconds, 0)}
	if in.Phi > 0 {
		switch {
		case in.CannotFinish:
			f.TimeTerm = MaxTerm
		case in.Remaining <= 0:
			f.TimeTerm = 0
		case in.DeadlineLeft <= 0:
			f.TimeTerm = MaxTerm
		default:
			f.TimeTerm = min(float64(in.Remaining)/float64(in.DeadlineLeft), MaxTerm)
		}
	}
	if in.Phi < 1 {
		switch {
		case f.Cost <= 0:
			f.CostTerm = 0
		case in.BudgetLeft <= 0:
			f.CostTerm = MaxTerm
		default:
			f.CostTerm = min(f.Cost/in.BudgetLeft, MaxTerm)
		}
	}
	f.W = in.Phi*f.TimeTerm + (1-in.Phi)*f.CostTerm
	return f
}
