package schedkittest_test

import (
	"fmt"
	"time"

	"github.com/schedkit/schedkit"
	"github.com/schedkit/schedkit/resource"
	"github.com/schedkit/schedkit/schedkittest"
)

// An in-memory host and the self-checks: a node's capacity changed by
// hand without Recount leaves the cluster's capacity wrong, and Check
// says so.
func ExampleCheck() {
	space, _ := resource.NewSpace(resource.MapSlot, resource.ReduceSlot)
	cl := schedkittest.NewCluster(space)
	n := cl.AddNode("n1", "r1", resource.Vector{2, 1})
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	j := schedkittest.NewJob("j1", t0, t0.Add(time.Hour), 4, 1)
	_ = j.Start(schedkit.PhaseMap, t0.Add(time.Second))
	_ = n.Take(0, 1)
	fmt.Println(schedkittest.Check(cl, j))

	n.Cap[0] = 4 // the host forgets cl.Recount()
	fmt.Println(schedkittest.Check(cl, j))
	// Output:
	// <nil>
	// schedkit: inconsistent host view: cluster capacity of "map-slot" is 2, its nodes sum to 4
}
