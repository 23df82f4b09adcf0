package baseline_test

import (
	"errors"
	"math"
	"testing"
	"time"

	"github.com/schedkit/schedkit/internal/baseline"
	"github.com/schedkit/schedkit/internal/sim"
	"github.com/schedkit/schedkit/internal/workload"
	"github.com/schedkit/schedkit/resource"
)

// Capacity (3 queues) charges each job its queue's price from its
// start: base × (1 − spread), base, base × (1 + spread) for low, mid and
// high; a class without a queue's name pays the simulator's default.
// Worked numbers: base 1 per map-slot-second, spread 0.25; each job
// runs one 10 s map task, so it costs 7.5, 10, 12.5 and 10 (default).
func TestCapacity3Prices(t *testing.T) {
	p, err := baseline.NewCapacity3(resource.Vector{1, 2}, [3]float64{0.2, 0.3, 0.5}, 0.25)
	if err != nil {
		t.Fatal(err)
	}
	if p.Name() != "Capacity (3 queues)" {
		t.Errorf("name %q", p.Name())
	}
	cfg := sim.DefaultConfig(slotSpace, nodes(resource.Vector{4, 0}))
	cfg.Prices = resource.Vector{1, 2}
	cfg.AfterEvent = (*sim.Sim).CheckInvariants
	w := &workload.Workload{Jobs: []workload.JobSpec{
		job("a", "low", 0, 0, resource.Vector{1, 0}, 10),
		job("b", "mid", 0, 0, resource.Vector{1, 0}, 10),
		job("c", "high", 0, 0, resource.Vector{1, 0}, 10),
		job("d", "other", 0, 0, resource.Vector{1, 0}, 10),
	}}
	sm, err := sim.New(cfg, w, p)
	if err != nil {
		t.Fatal(err)
	}
	run, err := sm.Run()
	if err != nil {
		t.Fatal(err)
	}
	for i, want := range []float64{7.5, 10, 12.5, 10} {
		if got := run.Jobs[i].Cost; math.Abs(got-want) > 1e-9 || run.Jobs[i].Finish != 10*time.Second {
			t.Errorf("job %s: cost %v, finish %v; want %v at 10s", run.Jobs[i].ID, got, run.Jobs[i].Finish, want)
		}
	}
}

func TestCapacity3Config(t *testing.T) {
	for _, tc := range []struct {
		base   resource.Vector
		shares [3]float64
		spread float64
	}{
		{nil, [3]float64{1, 1, 1}, 0.25},
		{resource.Vector{-1}, [3]float64{1, 1, 1}, 0.25},
		{resource.Vector{1}, [3]float64{1, 1, 1}, 1},
		{resource.Vector{1}, [3]float64{1, 0, 1}, 0.25},
	} {
		if _, err := baseline.NewCapacity3(tc.base, tc.shares, tc.spread); !errors.Is(err, baseline.ErrConfig) {
			t.Errorf("%+v: err = %v", tc, err)
		}
	}
}
