package binding_test

import (
	"math/rand/v2"
	"testing"
	"time"

	"github.com/schedkit/schedkit"
	"github.com/schedkit/schedkit/binding"
	"github.com/schedkit/schedkit/binding/bindingtest"
)

// TestFleet runs bindingtest's fleet, with its public invariant checker,
// in every option combination: what a host's own property test does. (The
// internal harness adds the checks only the package can make: its own
// consistency, the naive paper table, the minimal-move oracle.)
func TestFleet(t *testing.T) {
	for i, cfg := range []binding.Config{
		{}, {Rebalance: true}, {Weighted: true, Weights: binding.WeightTable{"V100": 4, "dead-model": 0}},
		{Weighted: true, Rebalance: true}, {Containers: true}, {Containers: true, Rebalance: true},
		{Kinds: []schedkit.AcceleratorKind{schedkit.AcceleratorGPU}},
	} {
		cfg.Timeout = 10 * time.Second
		f, err := bindingtest.NewFleet(rand.New(rand.NewPCG(uint64(i), 7)), cfg, 30, 3, t.Fatalf)
		if err != nil {
			t.Fatal(err)
		}
		for range 2000 {
			f.Step()
		}
		if f.Refused == 0 || f.Moves == 0 {
			t.Fatalf("config %d: %d refused, %d moves: exercises too little", i, f.Refused, f.Moves)
		}
	}
}
