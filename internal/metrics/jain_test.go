package metrics

import (
	"math"
	"math/rand/v2"
	"testing"
)

// JainSums gives exactly Jain's index of the shares it accumulated (the
// same sums in the same order), and the same verdict on undefined and
// invalid samples, so a producer keeping only the sums changes no
// fairness figure.
func TestJainSumsMatchShares(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	for i := range 2000 {
		n := rng.IntN(40)
		shares := make([]float64, n)
		var sums JainSums
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
		a := Sample{Shares: shares}
		b := Sample{Jain: sums}
		xa, oka, bada := a.Fairness()
		xb, okb, badb := b.Fairness()
		if oka != okb || bada != badb || math.Float64bits(xa) != math.Float64bits(xb) || a.Jobs() != b.Jobs() {
			t.Fatalf("case %d %v: shares give (%v %v %v %d), sums (%v %v %v %d)", i, shares, xa, oka, bada, a.Jobs(), xb, okb, badb, b.Jobs())
		}
	}
}
