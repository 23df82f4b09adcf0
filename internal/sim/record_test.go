package sim_test

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/schedkit/schedkit/internal/sim"
)

// Jain's index, worked numbers.
func TestJain(t *testing.T) {
	tests := []struct {
		name   string
		shares []float64
		want   float64
		ok     bool
	}{
		{"equal shares: 1", []float64{0.25, 0.25, 0.25, 0.25}, 1, true},
		{"one of four has all: 1/4", []float64{1, 0, 0, 0}, 0.25, true},
		// (1+2+3)² / (3·(1+4+9)) = 36/42 = 6/7.
		{"1,2,3: 36/42", []float64{1, 2, 3}, 36.0 / 42, true},
		// (0.5+0.3+0.2)² / (3·(0.25+0.09+0.04)) = 1/1.14.
		{"0.5,0.3,0.2: 1/1.14", []float64{0.5, 0.3, 0.2}, 1 / 1.14, true},
		{"single: 1", []float64{0.7}, 1, true},
		{"none: undefined", nil, 0, false},
		{"all zero: undefined", []float64{0, 0}, 0, false},
		{"negative: undefined", []float64{0.5, -0.1}, 0, false},
		{"NaN: undefined", []float64{0.5, math.NaN()}, 0, false},
		{"Inf: undefined", []float64{0.5, math.Inf(1)}, 0, false},
	}
	for _, tt := range tests {
		got, ok := sim.Jain(tt.shares)
		if ok != tt.ok || math.Abs(got-tt.want) > 1e-12 {
			t.Errorf("%s: Jain = %v, %v; want %v, %v", tt.name, got, ok, tt.want, tt.ok)
		}
	}
}

// JainSums gives exactly Jain's index of the shares it accumulated (the
// same sums in the same order), and the same verdict on undefined and
// invalid samples, so a producer keeping only the sums changes no
// fairness figure.
func TestJainSumsMatchShares(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	for i := range 2000 {
		n := rng.IntN(40)
		shares := make([]float64, n)
		var sums sim.JainSums
		for k := range shares {
			switch rng.IntN(20) {
			case 0:
				shares[k] = 0
			case 1:
				shares[k] = []float64{-1, math.NaN(), math.Inf(1), 1e200}[rng.IntN(4)]
			default:
				shares[k] = rng.Float64()
			}
			sums.Add(shares[k])
		}
		a := sim.Sample{Shares: shares}
		b := sim.Sample{Jain: sums}
		xa, oka, bada := a.Fairness()
		xb, okb, badb := b.Fairness()
		if oka != okb || bada != badb || math.Float64bits(xa) != math.Float64bits(xb) || a.Jobs() != b.Jobs() {
			t.Fatalf("case %d %v: shares give (%v %v %v %d), sums (%v %v %v %d)", i, shares, xa, oka, bada, a.Jobs(), xb, okb, badb, b.Jobs())
		}
	}
}
