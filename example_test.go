package schedkit_test

import (
	"context"
	"fmt"
	"time"

	"github.com/schedkit/schedkit"
	"github.com/schedkit/schedkit/resource"
	"github.com/schedkit/schedkit/schedkittest"
)

// cpuDevice runs work on the calling goroutine.
type cpuDevice struct{ info schedkit.AcceleratorInfo }

var _ schedkit.Accelerator = (*cpuDevice)(nil)

func (d *cpuDevice) Info() schedkit.AcceleratorInfo { return d.info }
func (d *cpuDevice) Run(ctx context.Context, work func(context.Context) error) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	return work(ctx)
}

// Example builds a two-node in-memory host (package schedkittest), keeps
// a job's counters with PhaseProgress's transitions, runs the self-checks
// a host runs in its tests, and reads it the way the algorithms do: slot totals from the cluster, counters from a job, a
// task's request against a node's free resources, and work run on a
// device.
func Example() {
	space, _ := resource.NewSpace(resource.MapSlot, resource.ReduceSlot)
	mapSlot, _ := space.Index(resource.MapSlot.Name)
	c := schedkittest.NewCluster(space)
	for range 2 {
		c.AddNode("", "r1", resource.Vector{2, 1})
	}

	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	j := schedkittest.NewJob("job-1", t0, t0.Add(10*time.Minute), 3, 1)
	m := &j.Counters[schedkit.PhaseMap]
	_ = m.Start(j.Submitted(), t0.Add(10*time.Second)) // the host's counters,
	_ = m.Start(j.Submitted(), t0.Add(20*time.Second)) // RunningStartSum included
	_ = m.Finish(j.Submitted(), t0.Add(10*time.Second), t0.Add(70*time.Second))
	fmt.Println("self-checks:", schedkit.CheckCluster(c), schedkit.CheckJob(j))

	now := t0.Add(80 * time.Second)
	p := j.Progress(schedkit.PhaseMap)
	fmt.Printf("cluster map slots: %v\n", c.Capacity()[mapSlot])
	fmt.Printf("maps: unfinished %d, running %d, elapsed of running %v, finished sum %v\n",
		p.Unfinished(), p.Running, p.RunningElapsed(j.Submitted(), now), p.FinishedDurationSum)

	task := &schedkittest.Task{Key: "job-1/m2", JobKey: j.ID(), Request: resource.Vector{1, 0}}
	fits, _ := task.Requested().Fits(c.Node(0).Available())
	fmt.Printf("%s fits on %s: %v\n", task.ID(), c.Node(0).ID(), fits)

	dev := &cpuDevice{info: schedkit.AcceleratorInfo{ID: "cpu0", Kind: schedkit.AcceleratorCPU, Healthy: true}}
	_ = dev.Run(context.Background(), func(context.Context) error {
		fmt.Println("ran on", dev.Info().Kind)
		return nil
	})
	// Output:
	// self-checks: <nil> <nil>
	// cluster map slots: 4
	// maps: unfinished 2, running 1, elapsed of running 1m0s, finished sum 1m0s
	// job-1/m2 fits on n00: true
	// ran on cpu
}
