package resource

import (
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
// compressed by rc ∈ [0, 1), rounded to the nanosecond.
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

// StagedDuration returns Σ Dᵢ/(1 − rcᵢ), paper 004 formula (15): the
// duration of a task whose i-th stage takes Dᵢ uncompressed and runs at
// compression rate rcᵢ (the largest over its compressible kinds), each
// stage by formula (4). The sum is taken exactly and rounded to the
// nanosecond once. The two slices must have equal lengths; every Dᵢ must
// be non-negative and every rcᵢ in [0, 1).
func StagedDuration(stages []time.Duration, rates []float64) (time.Duration, error) {
	const op = "StagedDuration"
	if len(stages) != len(rates) {
		return 0, errLen(op, len(rates), len(stages))
	}
	total := 0.0
	for i, d := range stages {
		rc := rates[i]
		switch {
		case d < 0:
			return 0, errAt(op, i, float64(d), ErrNegative)
		case !finite(rc):
			return 0, errAt(op, i, rc, ErrNotFinite)
		case rc < 0 || rc >= 1:
			return 0, errAt(op, i, rc, ErrLimit)
		}
		total += float64(d) / (1 - rc)
	}
	total = math.Round(total)
	if total >= math.MaxInt64 {
		return 0, errVal(op, total, ErrOverflow)
	}
	return time.Duration(total), nil
}

// Mean is paper 004's formula (14), the time-weighted mean
//
//	r̄ = Σ rᵢ·tᵢ / T,  T = Σ tᵢ
//
// of amounts rᵢ each held for tᵢ, kept as its two sums so that samples
// are averaged as they arrive and none is stored. The times may be in
// any unit, the same for every sample (seconds, say: a
// time.Duration's Seconds). The zero Mean holds no sample. Add does not
// check its arguments (it sits on hot paths): with finite amounts and
// non-negative times Value is finite unless the sums overflow.
type Mean struct {
	Sum   float64 // Σ rᵢ·tᵢ
	Total float64 // T = Σ tᵢ
}

// Add adds amount r held for time t.
func (m *Mean) Add(r, t float64) {
	m.Sum += r * t
	m.Total += t
}

// Value returns Σ rᵢ·tᵢ / T, 0 when T is 0.
func (m Mean) Value() float64 {
	if m.Total == 0 {
		return 0
	}
	return m.Sum / m.Total
}
