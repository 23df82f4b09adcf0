package baseline_test

import (
	"fmt"
	"time"

	"github.com/schedkit/schedkit/internal/baseline"
	"github.com/schedkit/schedkit/internal/sim"
	"github.com/schedkit/schedkit/internal/workload"
	"github.com/schedkit/schedkit/resource"
)

// FIFO and Fair on one node with four map slots: a long job A, then a
// job B submitted a second later. Fair lets B in as A's first tasks end.
func Example() {
	slot := resource.Vector{1, 0}
	w := &workload.Workload{Jobs: []workload.JobSpec{
		job("A", "", 0, 0, slot, 10, 20, 30, 40, 100, 100, 100, 100),
		job("B", "", 1, 0, slot, 100, 100, 100, 100, 100, 100, 100, 100),
	}}
	space, _ := resource.NewSpace(resource.MapSlot, resource.ReduceSlot)
	for _, p := range []sim.Policy{baseline.NewFIFO(), baseline.NewFair(baseline.FairConfig{})} {
		cfg := sim.DefaultConfig(space, nodes(resource.Vector{4, 0}))
		cfg.HeartbeatInterval = time.Minute
		s, err := sim.New(cfg, w, p)
		if err != nil {
			fmt.Println(err)
			return
		}
		run, err := s.Run()
		if err != nil {
			fmt.Println(err)
			return
		}
		fmt.Printf("%-4s A done at %v, B done at %v\n", p.Name(), run.Jobs[0].Finish, run.Jobs[1].Finish)
	}
	// Output:
	// FIFO A done at 2m20s, B done at 5m40s
	// Fair A done at 4m0s, B done at 5m40s
}
