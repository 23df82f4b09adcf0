package sim_test

import (
	"errors"
	"testing"

	"github.com/schedkit/schedkit/internal/sim"
)

// FuzzSim drives random clusters and workloads (including background
// load, node failures, offload) with a policy making random valid and
// invalid decisions; the conservation invariants must hold after every
// event, the run must end, and every invalid decision must be reported.
func FuzzSim(f *testing.F) {
	for _, seed := range []uint64{1, 2, 3, 42} {
		f.Add(seed, uint8(10), int64(0))
	}
	f.Fuzz(func(t *testing.T, seed uint64, jobs uint8, penaltyMilli int64) {
		cfg, w := randomSetup(seed, 1+int(jobs%40))
		if penaltyMilli >= 0 && penaltyMilli < 1e6 {
			cfg.Penalty = float64(penaltyMilli) / 1000
		}
		cfg.AfterEvent = (*sim.Sim).CheckInvariants
		p := newChaos(seed)
		s, err := sim.New(cfg, w, p)
		if err != nil {
			t.Fatal(err)
		}
		_, err = s.Run()
		if errors.Is(err, sim.ErrInvariant) || errors.Is(err, sim.ErrStalled) || errors.Is(err, sim.ErrPolicy) {
			t.Fatal(err)
		}
		if got := s.Stats().Invalid; got != p.invalid {
			t.Fatalf("%d invalid decisions reported, %d made", got, p.invalid)
		}
	})
}
