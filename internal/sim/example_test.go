package sim_test

import (
	"fmt"
	"time"

	"github.com/schedkit/schedkit"
	"github.com/schedkit/schedkit/internal/sim"
	"github.com/schedkit/schedkit/internal/workload"
	"github.com/schedkit/schedkit/resource"
)

// firstFit places the first ready map task of the oldest job on every
// node with a free map slot.
type firstFit struct{ buf []*sim.Task }

func (f *firstFit) Name() string                     { return "first-fit" }
func (f *firstFit) Submit(time.Time, *sim.Job) error { return nil }
func (f *firstFit) Heartbeat(now time.Time, n *sim.Node, c *sim.Cluster, dst []sim.Decision) ([]sim.Decision, error) {
	free := int(n.Available()[0])
	for _, j := range c.Jobs() {
		f.buf = j.ReadyTasks(schedkit.PhaseMap, n, f.buf[:0], free)
		for _, t := range f.buf {
			dst = append(dst, sim.AssignTask(t, nil))
			free--
		}
	}
	return dst, nil
}

// Two single-phase jobs on one worker with two map slots.
func Example() {
	space, _ := resource.NewSpace(resource.MapSlot)
	nodes := []sim.NodeSpec{{ID: "w1", Rack: "r1", Capacity: resource.Vector{2}}}
	mapTask := func(d time.Duration) workload.TaskSpec {
		return workload.TaskSpec{Requested: resource.Vector{1}, Profile: []workload.Stage{{Duration: d, Demand: resource.Vector{1}}}}
	}
	w := workload.Workload{Name: "example", Jobs: []workload.JobSpec{
		{ID: "a", Phases: []workload.PhaseSpec{{Tasks: []workload.TaskSpec{mapTask(10 * time.Second), mapTask(10 * time.Second), mapTask(5 * time.Second)}}}},
		{ID: "b", Submit: time.Second, Phases: []workload.PhaseSpec{{Tasks: []workload.TaskSpec{mapTask(3 * time.Second)}}}},
	}}
	s, err := sim.New(sim.DefaultConfig(space, nodes), &w, &firstFit{})
	if err != nil {
		fmt.Println(err)
		return
	}
	run, err := s.Run()
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, j := range run.Jobs {
		fmt.Printf("%s: submitted %v, started %v, finished %v\n", j.ID, j.Submit, j.Start, j.Finish)
	}
	fmt.Println("events:", run.Events)
	// Output:
	// a: submitted 0s, started 0s, finished 15s
	// b: submitted 1s, started 10s, finished 13s
	// events: 14
}
