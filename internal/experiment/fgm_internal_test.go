package experiment

import (
	"testing"

	"github.com/schedkit/schedkit/internal/metrics"
	"github.com/schedkit/schedkit/internal/sim"
)

func TestBusyJain(t *testing.T) {
	ten := func(x float64) []float64 {
		s := make([]float64, fgmBusyJobs)
		for i := range s {
			s[i] = 1
		}
		s[0] = x
		return s
	}
	for _, tc := range []struct {
		name    string
		samples [][]float64
		want    metrics.Number
	}{
		{"none", nil, metrics.Number{}},
		{"only the tail", [][]float64{{1, 1}, {0.5}}, metrics.Number{}},
		// Ten equal shares: 1. One at 0 of ten: (9)²/(10·9) = 0.9. Mean 0.95.
		{"two busy, tail ignored", [][]float64{ten(1), ten(0), {1, 0}}, metrics.Number{V: 0.95, Valid: true}},
		// All zero: undefined, skipped.
		{"all zero skipped", [][]float64{make([]float64, fgmBusyJobs), ten(1)}, metrics.Number{V: 1, Valid: true}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var run sim.Run
			for _, s := range tc.samples {
				run.Samples = append(run.Samples, sim.Sample{Shares: s})
			}
			got := busyJain(run)
			if got.Valid != tc.want.Valid || got.V < tc.want.V-1e-12 || got.V > tc.want.V+1e-12 {
				t.Errorf("busyJain = %+v, want %+v", got, tc.want)
			}
		})
	}
}
