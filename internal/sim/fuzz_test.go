package sim_test

import (
	"errors"
	"math"
	"testing"

	"github.com/schedkit/schedkit/internal/sim"
)

// FuzzSim drives random clusters and workloads (including background
// load, node failures, offload) with a policy making random valid and
// invalid decisions; the conservation invariants must hold after every
// event, the run must end, and every invalid decision must be reported.
// Usage-sample noise that is not a finite σ ≥ 0 is a ConfigError.
func FuzzSim(f *testing.F) {
	for _, seed := range []uint64{1, 2, 3, 42} {
		f.Add(seed, uint8(10), int64(0), 0.05)
	}
	f.Fuzz(func(t *testing.T, seed uint64, jobs uint8, penaltyMilli int64, noise float64) {
		cfg, w := randomSetup(seed, 1+int(jobs%40))
		if penaltyMilli >= 0 && penaltyMilli < 1e6 {
			cfg.Penalty = float64(penaltyMilli) / 1000
		}
		cfg.SampleNoise = noise
		cfg.AfterEvent = (*sim.Sim).CheckInvariants
		p := newChaos(seed)
		s, err := sim.New(cfg, w, p)
		var ce *sim.ConfigError
		if !(noise >= 0) || math.IsInf(noise, 0) {
			if !errors.As(err, &ce) || ce.Field != "SampleNoise" {
				t.Fatalf("noise %v: err %v, want a SampleNoise ConfigError", noise, err)
			}
			return
		}
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
