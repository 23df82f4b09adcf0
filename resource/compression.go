package resource

import (
	"errors"
	"math"
	"time"
)

// DefaultCompressionLimit is paper 004's measured maximum compression rate
// for compressible kinds: 10%.
const DefaultCompressionLimit = 0.10

func finite(x float64) bool { return !math.IsNaN(x) && !math.IsInf(x, 0) }

// CompressionRate returns the compression rate rc of paper 004 formula (1)
// for a demand and an allocation of one kind over some period:
//
//	rc = (demand − allocated) / demand   if demand > allocated
//	rc = 0                               otherwise
//
// For an incompressible kind rc is always 0 (a shortfall there is a
// failure, not a slowdown); pass compressible=false. Both amounts must be
// finite and non-negative.
func CompressionRate(compressible bool, demand, allocated float64) (float64, error) {
	if !finite(demand) {
		return 0, errVal("CompressionRate", demand, ErrNotFinite)
	}
	if !finite(allocated) {
		return 0, errVal("CompressionRate", allocated, ErrNotFinite)
	}
	if demand < 0 {
		return 0, errVal("CompressionRate", demand, ErrNegative)
	}
	if allocated < 0 {
		return 0, errVal("CompressionRate", allocated, ErrNegative)
	}
	if !compressible || demand <= allocated {
		return 0, nil
	}
	return (demand - allocated) / demand, nil
}

// CompressedDuration returns T / (1 − rc), paper 004 formula (4): the time
// a task that needs t uncompressed takes when its compressible demand is
// compressed by rc ∈ [0, 1).
func CompressedDuration(t time.Duration, rc float64) (time.Duration, error) {
	return ContendedDuration(t, rc, 0)
}

// ContendedDuration returns (1 + p) · T / (1 − rc), paper 004 formula (5):
// formula (4) with the extra slowdown p ≥ 0 that contention between the
// compressed tasks causes.
func ContendedDuration(t time.Duration, rc, p float64) (time.Duration, error) {
	const op = "ContendedDuration"
	if t < 0 {
		return 0, errVal(op, float64(t), ErrNegative)
	}
	if !finite(rc) {
		return 0, errVal(op, rc, ErrNotFinite)
	}
	if rc < 0 || rc >= 1 {
		return 0, errVal(op, rc, ErrLimit)
	}
	if !finite(p) {
		return 0, errVal(op, p, ErrNotFinite)
	}
	if p < 0 {
		return 0, errVal(op, p, ErrNegative)
	}
	d := (1 + p) * float64(t) / (1 - rc)
	if d >= math.MaxInt64 {
		return 0, errVal(op, d, ErrOverflow)
	}
	return time.Duration(math.Round(d)), nil
}

// CompressionBound returns the largest compression rate a server may apply
// to one kind when it admits one more task, paper 004 formulas (6) and (7):
//
//	rc = clamp((w_{n+1} − p·Σ_{i≤n} w_i) / Σ_{i≤n+1} w_i, 0, limit)
//
// existing is Σ_{i≤n} w_i, the work of the n tasks already there over the
// period; added is w_{n+1}, the newcomer's; p the contention penalty of
// (5). Admitting the task with compression below this bound completes more
// work per unit of time than leaving it out (inequality (2)).
//
// The printed (7) reads min(max(limitation, x), 10%), which would never go
// below the limit; the text says the rate is non-negative and below the
// limit, so we implement the text: the bound is clamped to [0, limit].
// With no work at all (existing + added = 0) the bound is 0. limit must be
// in [0, 1); amounts finite and non-negative.
func CompressionBound(existing, added, p, limit float64) (float64, error) {
	const op = "CompressionBound"
	for _, x := range [...]float64{existing, added, p} {
		if !finite(x) {
			return 0, errVal(op, x, ErrNotFinite)
		}
		if x < 0 {
			return 0, errVal(op, x, ErrNegative)
		}
	}
	if !finite(limit) {
		return 0, errVal(op, limit, ErrNotFinite)
	}
	if limit < 0 || limit >= 1 {
		return 0, errVal(op, limit, ErrLimit)
	}
	total := existing + added
	if total == 0 || math.IsInf(total, 0) {
		return 0, nil
	}
	rc := (added - p*existing) / total
	switch {
	case !(rc > 0): // also catches NaN from overflowed products
		return 0, nil
	case rc > limit:
		return limit, nil
	}
	return rc, nil
}

// StagedDuration returns Σ dᵢ / (1 − rcᵢ), paper 004 formula (15): the
// duration of a task whose i-th stage takes dᵢ uncompressed and runs at
// compression rate rcᵢ (the largest over its compressible kinds). The two
// slices must have equal lengths.
func StagedDuration(stages []time.Duration, rates []float64) (time.Duration, error) {
	const op = "StagedDuration"
	if len(stages) != len(rates) {
		return 0, errLen(op, len(rates), len(stages))
	}
	total := 0.0
	for i, d := range stages {
		c, err := CompressedDuration(d, rates[i])
		if err != nil {
			if e := (*Error)(nil); errors.As(err, &e) {
				e.Op, e.Index = op, i
			}
			return 0, err
		}
		total += float64(c)
	}
	if total >= math.MaxInt64 {
		return 0, errVal(op, total, ErrOverflow)
	}
	return time.Duration(total), nil
}

// Sample is one observation of an amount held for a duration, the input of
// the time-weighted average (14).
type Sample struct {
	Value    float64
	Duration time.Duration
}

// TimeWeightedAverage returns Σ rᵢ·tᵢ / T with T = Σ tᵢ, paper 004 formula
// (14): the mean of samples weighted by how long each held. Zero total
// duration returns 0. Values must be finite, durations non-negative.
func TimeWeightedAverage(samples []Sample) (float64, error) {
	const op = "TimeWeightedAverage"
	var sum, total float64
	for i, s := range samples {
		if !finite(s.Value) {
			return 0, errAt(op, i, s.Value, ErrNotFinite)
		}
		if s.Duration < 0 {
			return 0, errAt(op, i, float64(s.Duration), ErrNegative)
		}
		t := s.Duration.Seconds()
		sum += s.Value * t
		total += t
	}
	if total == 0 {
		return 0, nil
	}
	avg := sum / total
	if !finite(avg) {
		return 0, errVal(op, avg, ErrOverflow)
	}
	return avg, nil
}
