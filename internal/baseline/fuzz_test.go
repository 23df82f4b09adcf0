package baseline_test

import (
	"errors"
	"math"
	"testing"

	"github.com/schedkit/schedkit/internal/baseline"
)

// FuzzNewCapacity: any weights and caps either build a policy or fail
// with ErrConfig; never a panic, never a policy with a NaN weight.
func FuzzNewCapacity(f *testing.F) {
	f.Add(1.0, 3.0, 0.0, 0.5)
	f.Add(-1.0, math.NaN(), math.Inf(1), 2.0)
	f.Fuzz(func(t *testing.T, w1, w2, def, max float64) {
		c, err := baseline.NewCapacity(baseline.CapacityConfig{
			Shares:  map[string]float64{"a": w1, "b": w2},
			Default: def,
			Max:     map[string]float64{"a": max},
		})
		if err != nil {
			if !errors.Is(err, baseline.ErrConfig) {
				t.Fatalf("error %v does not wrap ErrConfig", err)
			}
			return
		}
		for _, w := range []float64{w1, w2} {
			if !(w > 0) || math.IsInf(w, 0) {
				t.Fatalf("accepted weight %v", w)
			}
		}
		if !(max > 0 && max <= 1) {
			t.Fatalf("accepted cap %v", max)
		}
		if c.Name() == "" {
			t.Fatal("empty name")
		}
	})
}
