package policy_test

import (
	"math"
	"testing"

	"github.com/schedkit/schedkit/internal/policy"
	"github.com/schedkit/schedkit/internal/sim"
)

func TestWorldPenalty(t *testing.T) {
	cases := []struct {
		name    string
		penalty float64
		c       sim.Contention
		limit   float64
		want    float64
	}{
		{"flat world", 0, sim.Contention{}, 0, 0},
		{"step", 0.5, sim.Contention{}, 0, 0.5},
		{"knee at the limit", 0, sim.Contention{Knee: 0.1, Slope: 8}, 0, 0},
		{"limit beyond the knee", 0, sim.Contention{Knee: 0.1, Slope: 8}, 0.2, 0.8},
		{"knee below the limit", 0.1, sim.Contention{Knee: 0.05, Slope: 4}, 0.1, 0.3},
	}
	for _, tc := range cases {
		cfg := sim.Config{Penalty: tc.penalty, Contention: tc.c}
		if got := policy.WorldPenalty(&cfg, tc.limit); math.Abs(got-tc.want) > 1e-12 {
			t.Errorf("%s: WorldPenalty = %v, want %v", tc.name, got, tc.want)
		}
	}
}
