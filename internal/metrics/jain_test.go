package metrics

import (
	"math"
	"testing"

	"github.com/schedkit/schedkit/internal/sim"
)

// Jain over jobs with unmet demand, worked numbers: sample 1 has three
// active jobs with shares 0.5, 0.5, 0 of which the first two want more
// (index over them 1; over all three (1)²/(3·0.5) = 2/3); sample 2 has
// wanting shares 0.2 and 0.6 ((0.8)²/(2·0.4) = 0.8); sample 3 has none
// wanting (skipped). UnmetFairness = (1 + 0.8)/2 = 0.9 over 2 samples.
func TestUnmetFairness(t *testing.T) {
	sums := func(xs ...float64) sim.JainSums {
		var j sim.JainSums
		for _, x := range xs {
			j.Add(x)
		}
		return j
	}
	run := sim.Run{Policy: "p", Kinds: []string{"cpu"}, Samples: []sim.Sample{
		{Utilisation: []float64{1}, Jain: sums(0.5, 0.5, 0), Unmet: sums(0.5, 0.5)},
		{Utilisation: []float64{1}, Jain: sums(0.2, 0.6), Unmet: sums(0.2, 0.6)},
		{Utilisation: []float64{1}, Jain: sums(0.3)},
	}}
	s := Summarize(run)
	if s.UnmetSamples != 2 || !s.UnmetFairness.Valid || math.Abs(s.UnmetFairness.V-0.9) > 1e-12 {
		t.Errorf("UnmetFairness %v over %d samples, want 0.9 over 2", s.UnmetFairness, s.UnmetSamples)
	}
	// All active jobs: (2/3 + 0.8 + 1)/3.
	if want := (2.0/3 + 0.8 + 1) / 3; math.Abs(s.Fairness.V-want) > 1e-12 {
		t.Errorf("Fairness %v, want %v", s.Fairness.V, want)
	}
	if got := UnmetFairnessMetric().Cell(&s); got != "0.9" {
		t.Errorf("row cell %q", got)
	}
}
