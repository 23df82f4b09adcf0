package experiment

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/schedkit/schedkit/internal/sim"
	"github.com/schedkit/schedkit/internal/workload"
)

// contentionRatio is the calibration target of Paper004Contention: the
// geometric mean, over the baselines FIFO, Capacity, Fair and DRF, the
// loaded online totals (250–400 GB) and seeds 1–3, of their workload
// completion time in the cloud (under contention model c) over the
// dedicated one. fgm takes no part in it.
func contentionRatio(t *testing.T, c sim.Contention) float64 {
	base, err := LookupPolicies(fgmBaselines)
	if err != nil {
		t.Fatal(err)
	}
	sum, cnt := 0.0, 0
	for seed := uint64(1); seed <= 3; seed++ {
		p := Params{Scale: 1, Seed: seed}
		n, cfg, _, err := paper004Setup(p)
		if err != nil {
			t.Fatal(err)
		}
		totals := workload.Paper004OnlineTotals()
		for i := 4; i < len(totals); i++ {
			wd, err := workload.Paper004Online(totals[i], rand.New(rand.NewPCG(seed, 0x004_0000+uint64(i))))
			if err != nil {
				t.Fatal(err)
			}
			wc, steps, err := workload.Paper004Cloud(totals[i], n, rand.New(rand.NewPCG(seed, 0x004_0000+uint64(i))))
			if err != nil {
				t.Fatal(err)
			}
			cc := cfg
			cc.Contention = c
			for _, s := range steps {
				cc.Background = append(cc.Background, sim.BackgroundStep{At: s.At, Node: s.Node, Demand: s.Demand})
			}
			var cases []Case
			for _, b := range base {
				cases = append(cases, Case{Label: "dedicated/" + b.Name, Config: cfg, Workload: &wd, Policy: b})
				cases = append(cases, Case{Label: "cloud/" + b.Name, Config: cc, Workload: &wc, Policy: b})
			}
			runs, err := RunCases(p, cases)
			if err != nil {
				t.Fatal(err)
			}
			sums := Summaries(runs)
			for k := 0; k < len(sums); k += 2 {
				sum += math.Log(float64(sums[k+1].Makespan.D) / float64(sums[k].Makespan.D))
				cnt++
			}
		}
	}
	return math.Exp(sum / float64(cnt))
}

// TestPaper004ContentionCalibration reproduces the calibration stated in
// Paper004Contention's doc: the baselines' cloud/dedicated slowdown is
// about 1.1 in a world without the penalty and about 1.6 (paper 004,
// figs. 13 and 18) with it.
func TestPaper004ContentionCalibration(t *testing.T) {
	if testing.Short() || raceEnabled {
		t.Skip("48 paper-004 simulations per model")
	}
	cases := []struct {
		name     string
		c        sim.Contention
		lo, hi   float64
		reported float64
	}{
		{"flat", sim.Contention{}, 1.05, 1.2, 1.11},
		{"default", Paper004Contention, 1.5, 1.7, 1.58},
	}
	for _, tc := range cases {
		r := contentionRatio(t, tc.c)
		t.Logf("%s (%v): baselines' cloud/dedicated makespan %.3f", tc.name, tc.c, r)
		if r < tc.lo || r > tc.hi || math.Abs(r-tc.reported) > 0.005 {
			t.Errorf("%s: ratio %.3f, the doc says %.2f (want within [%g, %g])", tc.name, r, tc.reported, tc.lo, tc.hi)
		}
	}
}
