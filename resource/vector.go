package resource

import (
	"math"

	"github.com/schedkit/schedkit/internal/drf"
)

// Vector is an ordered tuple of amounts, one per kind of a Space (paper 004
// formula (9)). It is a plain slice so hosts can build and read it without
// ceremony; element i is an amount of the Space's Kind(i).
//
// Arithmetic methods work in place on the receiver and never allocate; a
// length mismatch or a non-finite factor returns an error and leaves the
// receiver unchanged. Intermediate vectors (for example capacity minus
// usage) may hold negative amounts; Validate rejects them where a vector is
// taken as input.
type Vector []float64

// Validate reports the first element that is NaN, infinite or negative.
func (v Vector) Validate() error {
	for i, x := range v {
		if math.IsNaN(x) || math.IsInf(x, 0) {
			return errAt("Vector.Validate", i, x, ErrNotFinite)
		}
		if x < 0 {
			return errAt("Vector.Validate", i, x, ErrNegative)
		}
	}
	return nil
}

// Clone returns a copy of v (nil for nil).
func (v Vector) Clone() Vector {
	if v == nil {
		return nil
	}
	return append(Vector(make([]float64, 0, len(v))), v...)
}

// Add sets v to v + w (formula (10)).
func (v Vector) Add(w Vector) error {
	if len(v) != len(w) {
		return errLen("Vector.Add", len(w), len(v))
	}
	for i := range v {
		v[i] += w[i]
	}
	return nil
}

// Sub sets v to v − w.
func (v Vector) Sub(w Vector) error {
	if len(v) != len(w) {
		return errLen("Vector.Sub", len(w), len(v))
	}
	for i := range v {
		v[i] -= w[i]
	}
	return nil
}

// AddScaled sets v to v + c × w, the fused form of (10) and (12): a
// weighted sum of vectors built one term at a time.
func (v Vector) AddScaled(c float64, w Vector) error {
	if math.IsNaN(c) || math.IsInf(c, 0) {
		return errVal("Vector.AddScaled", c, ErrNotFinite)
	}
	if len(v) != len(w) {
		return errLen("Vector.AddScaled", len(w), len(v))
	}
	for i := range v {
		v[i] += c * w[i]
	}
	return nil
}

// Max sets each element of v to the larger of v[i] and w[i].
func (v Vector) Max(w Vector) error {
	if len(v) != len(w) {
		return errLen("Vector.Max", len(w), len(v))
	}
	for i := range v {
		if w[i] > v[i] {
			v[i] = w[i]
		}
	}
	return nil
}

// Fits reports whether v ≤ capacity in every element: a demand v fits in
// capacity. A NaN in either vector is an error (ErrNotFinite), never a
// fit: NaN compares false both ways, so it would otherwise fit anywhere.
func (v Vector) Fits(capacity Vector) (bool, error) {
	const op = "Vector.Fits"
	if len(v) != len(capacity) {
		return false, errLen(op, len(capacity), len(v))
	}
	for i := range v {
		switch {
		case math.IsNaN(v[i]):
			return false, errAt(op, i, v[i], ErrNotFinite)
		case math.IsNaN(capacity[i]):
			return false, errAt(op, i, capacity[i], ErrNotFinite)
		}
	}
	for i := range v {
		if v[i] > capacity[i] {
			return false, nil
		}
	}
	return true, nil
}

// Equal reports whether v and w have the same length and elements.
func (v Vector) Equal(w Vector) bool {
	if len(v) != len(w) {
		return false
	}
	for i := range v {
		if v[i] != w[i] {
			return false
		}
	}
	return true
}

// IsZero reports whether every element of v is zero.
func (v Vector) IsZero() bool {
	for _, x := range v {
		if x != 0 {
			return false
		}
	}
	return true
}

// DominantShare returns max_i v[i]/total[i], the dominant share of a demand
// or allocation v in a cluster of the given total (Ghodsi et al., DRF).
// Kinds whose total is zero are skipped when v is zero there too; a
// positive demand on a zero total returns ErrZeroCapacity naming the
// element. Negative or non-finite elements return errors.
func DominantShare(v, total Vector) (float64, error) {
	if len(v) != len(total) {
		return 0, errLen("DominantShare", len(total), len(v))
	}
	for i := range v {
		x, t := v[i], total[i]
		if math.IsNaN(x) || math.IsInf(x, 0) {
			return 0, errAt("DominantShare", i, x, ErrNotFinite)
		}
		if math.IsNaN(t) || math.IsInf(t, 0) {
			return 0, errAt("DominantShare", i, t, ErrNotFinite)
		}
		if x < 0 {
			return 0, errAt("DominantShare", i, x, ErrNegative)
		}
		if t < 0 {
			return 0, errAt("DominantShare", i, t, ErrNegative)
		}
		if t == 0 {
			if x > 0 {
				return 0, errAt("DominantShare", i, x, ErrZeroCapacity)
			}
			continue
		}
		if s := x / t; math.IsInf(s, 0) {
			return 0, errAt("DominantShare", i, s, ErrOverflow)
		}
	}
	return drf.Share(v, total), nil
}
