package experiment

import (
	"math"
	"testing"

	"github.com/schedkit/schedkit/internal/sim"
)

// TestPaper004ContentionCalibration reproduces the calibration stated in
// Paper004Contention's doc, on the baselines alone (FIFO, Capacity, Fair
// and DRF; fgm takes no part): their cloud ÷ dedicated slowdown over the
// loaded online totals and seeds 1–3 is 1.13 without the penalty, 1.63
// at the default slope 6, whose neighbours 5 and 7 are further from the
// target Paper004CloudSlowdown (1.62), and 1.62 with the knee at 0 and
// slope 4.
func TestPaper004ContentionCalibration(t *testing.T) {
	if testing.Short() || raceEnabled {
		t.Skip("120 paper-004 simulations per model")
	}
	knee := Paper004Contention.Knee
	models := []contentionModel{
		{"flat", sim.Contention{}},
		{"default", Paper004Contention},
		{"knee 0", Paper004KneeZeroContention},
		{"slope 5", sim.Contention{Knee: knee, Slope: 5}},
		{"slope 7", sim.Contention{Knee: knee, Slope: 7}},
	}
	reported := []float64{1.13, 1.63, 1.62, 1.55, 1.74}
	p := Params{Scale: 1, Seed: 1}
	pl, err := newContentionPlan(p, models, false)
	if err != nil {
		t.Fatal(err)
	}
	cells, err := pl.run(p)
	if err != nil {
		t.Fatal(err)
	}
	got := make([]float64, len(models))
	for m, mod := range models {
		got[m] = pl.slowdown(cells, m)
		t.Logf("%s (%v): baselines' cloud ÷ dedicated makespan %.3f", mod.name, mod.c, got[m])
		if math.Abs(got[m]-reported[m]) > 0.006 { // the doc rounds to two places
			t.Errorf("%s: slowdown %.3f, the doc says %.2f", mod.name, got[m], reported[m])
		}
	}
	target := Paper004CloudSlowdown
	if d := math.Abs(got[1] - target); d > math.Abs(got[3]-target) || d > math.Abs(got[4]-target) {
		t.Errorf("slope %g (%.3f) is not the whole slope nearest %.3f: 5 gives %.3f, 7 %.3f", Paper004Contention.Slope, got[1], target, got[3], got[4])
	}
}
