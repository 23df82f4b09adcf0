package bindingtest_test

import (
	"fmt"
	"math/rand/v2"
	"time"

	"github.com/schedkit/schedkit"
	"github.com/schedkit/schedkit/binding"
	"github.com/schedkit/schedkit/binding/bindingtest"
)

// A property test of a configuration: 3,000 seeded random operations on a
// fleet of 20 nodes in 3 racks, every invariant checked after each.
func ExampleFleet() {
	cfg := binding.Config{Rebalance: true, Timeout: 10 * time.Second}
	broken := 0
	f, _ := bindingtest.NewFleet(rand.New(rand.NewPCG(1, 2)), cfg, 20, 3, func(string, ...any) { broken++ })
	for range 3000 {
		f.Step()
	}
	fmt.Println("broken invariants:", broken)
	fmt.Println("exercised:", f.Refused > 0, f.Moves > 0)
	// Output:
	// broken invariants: 0
	// exercised: true true
}

// A host's own use: check the table after every operation. Here the
// host corrupts nothing, so the checks pass; they would report a unit
// bound twice or across racks, a move that does not match the binding,
// or (with Rebalance) an unbalanced rack.
func ExampleChecker() {
	t, _ := binding.New(binding.Config{})
	check := bindingtest.NewChecker(t, t.Config())
	now := time.Unix(0, 0)
	gpu := []schedkit.AcceleratorInfo{{ID: "gpu0", Kind: schedkit.AcceleratorGPU, Healthy: true}}
	for _, st := range []binding.NodeStatus{
		{ID: "a1", Rack: "r1", Accelerators: gpu},
		{ID: "n1", Rack: "r1"},
		{ID: "n2", Rack: "r1"},
		{ID: "a2", Rack: "r1", Accelerators: gpu},
	} {
		moves, _ := t.Add(now, st)
		fmt.Println(st.ID, moves, check.Check(moves))
	}
	// Output:
	// a1 [] <nil>
	// n1 [n1: - -> a1] <nil>
	// n2 [n2: - -> a1] <nil>
	// a2 [n2: a1 -> a2] <nil>
}
