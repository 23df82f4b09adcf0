package sim_test

import (
	"errors"
	"math"
	"testing"

	"github.com/schedkit/schedkit/internal/sim"
)

// TestSumsUnderChaos: with the nodes' incremental sums in use (no
// offload kinds), CheckInvariants after every event finds each node's
// allocation and usage bit for bit those of adding up its running
// tasks, its sums those of their recorded terms, and every rate
// current; on chaos workloads with integral amounts (the sums are used)
// and fractional ones (full recomputes, sums rebuilt when exact again).
func TestSumsUnderChaos(t *testing.T) {
	for seed := uint64(1); seed <= 80; seed++ {
		cfg, w := randomSetup(seed, 20)
		cfg.OffloadKinds = nil
		round := func(v []float64) {
			for k := range v {
				v[k] = math.Round(v[k])
			}
		}
		if seed%4 != 0 { // integral amounts; every fourth seed keeps fractions
			for i := range w.Jobs {
				for p := range w.Jobs[i].Phases {
					for x := range w.Jobs[i].Phases[p].Tasks {
						ts := &w.Jobs[i].Phases[p].Tasks[x]
						round(ts.Requested)
						for st := range ts.Profile {
							round(ts.Profile[st].Demand)
						}
					}
				}
			}
			for i := range cfg.Background {
				round(cfg.Background[i].Demand)
			}
		}
		cfg.AfterEvent = (*sim.Sim).CheckInvariants
		s, err := sim.New(cfg, w, newChaos(seed))
		if err != nil {
			t.Fatalf("seed %d: %v", seed, err)
		}
		if _, err := s.Run(); errors.Is(err, sim.ErrInvariant) {
			t.Fatalf("seed %d: %v", seed, err)
		}
	}
}
