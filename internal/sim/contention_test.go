package sim_test

import (
	"math"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/schedkit/schedkit/internal/sim"
	"github.com/schedkit/schedkit/internal/workload"
	"github.com/schedkit/schedkit/resource"
)

func TestContentionPenalty(t *testing.T) {
	c := sim.Contention{Knee: 0.1, Slope: 8}
	cases := []struct{ rc, want float64 }{
		{0, 0},
		{0.05, 0},
		{0.1, 0},    // the knee itself costs nothing
		{0.2, 0.8},  // 8·(0.2 − 0.1)
		{0.5, 3.2},  // 8·0.4
		{0.75, 5.2}, // 8·0.65
	}
	for _, tc := range cases {
		if got := c.Penalty(tc.rc); math.Abs(got-tc.want) > 1e-12 {
			t.Errorf("Penalty(%v) = %v, want %v", tc.rc, got, tc.want)
		}
	}
	if (sim.Contention{}).Penalty(0.9) != 0 || !(sim.Contention{Knee: 0.3}).Zero() {
		t.Error("the zero slope charges a penalty")
	}
	if got := c.String(); got != "p = 8·max(0, rc − 0.1)" {
		t.Errorf("String = %q", got)
	}
}

func TestContentionConfigRejected(t *testing.T) {
	for name, c := range map[string]sim.Contention{
		"knee 1":         {Knee: 1, Slope: 1},
		"negative knee":  {Knee: -0.1, Slope: 1},
		"NaN knee":       {Knee: math.NaN()},
		"negative slope": {Slope: -1},
		"infinite slope": {Slope: math.Inf(1)},
		"NaN slope":      {Slope: math.NaN()},
	} {
		cfg := sim.DefaultConfig(cpuMem, nodesOf(resource.Vector{4, 16}))
		cfg.Contention = c
		w := &workload.Workload{Jobs: []workload.JobSpec{oneTask("a", 0, resource.Vector{1, 1}, st(time.Second, 1, 1))}}
		if _, err := sim.New(cfg, w, &greedy{}); err == nil {
			t.Errorf("%s: New accepted %+v", name, c)
		}
	}
}

// The contention penalty by over-commit, worked numbers: a node with 4
// CPUs, Shares, two tasks each demanding dA and dB CPUs for 10 s from
// t = 0. Their load dA + dB over 4 gives rc = 1 − 4/(dA + dB), the
// penalty p = 2·max(0, rc − 0.1), and each task takes
// (1 + p)·10/(1 − rc) while both run.
//
//   - 2.2 + 2.2 = 4.4: rc = 1/11 ≈ 0.0909 < knee, p = 0: 11 s each.
//   - 3 + 3 = 6: rc = 1/3, p = 2·(1/3 − 0.1) = 0.4667: 22 s each.
func TestScenarioContentionKnee(t *testing.T) {
	cases := []struct {
		name   string
		demand float64
		want   float64
	}{
		{"below the knee", 2.2, 11},
		{"beyond the knee", 3, 22},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			mk := func(id string) workload.JobSpec {
				return workload.JobSpec{ID: id, Phases: []workload.PhaseSpec{{Tasks: []workload.TaskSpec{
					task(resource.Vector{2, 1}, st(10*time.Second, tc.demand, 1)),
				}}}}
			}
			w := &workload.Workload{Jobs: []workload.JobSpec{mk("a"), mk("b")}}
			cfg := sim.DefaultConfig(cpuMem, nodesOf(resource.Vector{4, 16}))
			cfg.Enforcement = sim.Shares
			cfg.Contention = sim.Contention{Knee: 0.1, Slope: 2}
			cfg.HeartbeatInterval = 5 * time.Second
			run, _ := runChecked(t, cfg, w, &greedy{})
			got := spans(run)
			for i := range got {
				got[i].Finish = math.Round(got[i].Finish*1e6) / 1e6
			}
			want := []span{{ID: "a", Finish: tc.want}, {ID: "b", Finish: tc.want}}
			if d := cmp.Diff(want, got); d != "" {
				t.Errorf("timeline (-want +got):\n%s", d)
			}
		})
	}
}
