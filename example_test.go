package schedkit_test

import (
	"context"
	"fmt"
	"time"

	"github.com/schedkit/schedkit"
	"github.com/schedkit/schedkit/resource"
)

// memJob is a tiny in-memory host job: it keeps the counters of
// PhaseProgress as tasks start and finish, the way a host does.
type memJob struct {
	id        schedkit.JobID
	submitted time.Time
	deadline  time.Time
	phases    [2]schedkit.PhaseProgress
}

var _ schedkit.Job = (*memJob)(nil)

func (j *memJob) ID() schedkit.JobID                               { return j.id }
func (j *memJob) Submitted() time.Time                             { return j.submitted }
func (j *memJob) Deadline() time.Time                              { return j.deadline }
func (j *memJob) Phases() int                                      { return len(j.phases) }
func (j *memJob) Progress(p schedkit.Phase) schedkit.PhaseProgress { return j.phases[p] }

func (j *memJob) start(p schedkit.Phase, at time.Time) {
	ph := &j.phases[p]
	ph.Running++
	ph.Ready--
	ph.RunningStartSum += at.Sub(j.submitted)
}

func (j *memJob) finish(p schedkit.Phase, started, at time.Time) {
	ph := &j.phases[p]
	ph.Running--
	ph.Finished++
	ph.RunningStartSum -= started.Sub(j.submitted)
	ph.FinishedDurationSum += at.Sub(started)
}

type memTask struct {
	id  schedkit.TaskID
	job schedkit.JobID
	req resource.Vector
}

var _ schedkit.Task = (*memTask)(nil)

func (t *memTask) ID() schedkit.TaskID   { return t.id }
func (t *memTask) Job() schedkit.JobID   { return t.job }
func (t *memTask) Phase() schedkit.Phase { return schedkit.PhaseMap }
func (t *memTask) Similarity() schedkit.SimilarityKey {
	return schedkit.SimilarityKey{Logic: "wordcount", DataSize: 64 << 20}
}
func (t *memTask) Requested() resource.Vector       { return t.req }
func (t *memTask) Deadline() time.Time              { return time.Time{} }
func (t *memTask) DataLocations() []schedkit.NodeID { return nil }

type memNode struct {
	id        schedkit.NodeID
	rack      schedkit.RackID
	capacity  resource.Vector
	available resource.Vector
	accels    []schedkit.AcceleratorInfo
}

var _ schedkit.Node = (*memNode)(nil)

func (n *memNode) ID() schedkit.NodeID                      { return n.id }
func (n *memNode) Rack() schedkit.RackID                    { return n.rack }
func (n *memNode) Capacity() resource.Vector                { return n.capacity }
func (n *memNode) Available() resource.Vector               { return n.available }
func (n *memNode) Accelerators() []schedkit.AcceleratorInfo { return n.accels }

type memCluster struct {
	space    *resource.Space
	nodes    []*memNode
	capacity resource.Vector
}

var _ schedkit.Cluster = (*memCluster)(nil)

func (c *memCluster) Space() *resource.Space    { return c.space }
func (c *memCluster) Nodes() int                { return len(c.nodes) }
func (c *memCluster) Node(i int) schedkit.Node  { return c.nodes[i] }
func (c *memCluster) Capacity() resource.Vector { return c.capacity }

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

// Example builds a two-node in-memory host and reads it the way the
// algorithms do: slot totals from the cluster, counters from a job, a
// task's request against a node's free resources, and work run on a
// device.
func Example() {
	space, _ := resource.NewSpace(resource.MapSlot, resource.ReduceSlot)
	mapSlot, _ := space.Index(resource.MapSlot.Name)
	c := &memCluster{space: space, capacity: resource.Vector{4, 2}}
	for i := range 2 {
		c.nodes = append(c.nodes, &memNode{
			id: schedkit.NodeID(fmt.Sprintf("node-%d", i)), rack: "r1",
			capacity: resource.Vector{2, 1}, available: resource.Vector{2, 1},
		})
	}

	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	j := &memJob{id: "job-1", submitted: t0, deadline: t0.Add(10 * time.Minute)}
	j.phases[schedkit.PhaseMap] = schedkit.PhaseProgress{Total: 3, Ready: 3}
	j.phases[schedkit.PhaseReduce] = schedkit.PhaseProgress{Total: 1}
	j.start(schedkit.PhaseMap, t0.Add(10*time.Second))
	j.start(schedkit.PhaseMap, t0.Add(20*time.Second))
	j.finish(schedkit.PhaseMap, t0.Add(10*time.Second), t0.Add(70*time.Second))

	now := t0.Add(80 * time.Second)
	m := j.Progress(schedkit.PhaseMap)
	fmt.Printf("cluster map slots: %v\n", c.Capacity()[mapSlot])
	fmt.Printf("maps: unfinished %d, running %d, elapsed of running %v, finished sum %v\n",
		m.Unfinished(), m.Running, m.RunningElapsed(j.Submitted(), now), m.FinishedDurationSum)

	task := &memTask{id: "job-1/m2", job: j.ID(), req: resource.Vector{1, 0}}
	fits, _ := task.Requested().Fits(c.Node(0).Available())
	fmt.Printf("%s fits on %s: %v\n", task.ID(), c.Node(0).ID(), fits)

	dev := &cpuDevice{info: schedkit.AcceleratorInfo{ID: "cpu0", Kind: schedkit.AcceleratorCPU, Healthy: true}}
	_ = dev.Run(context.Background(), func(context.Context) error {
		fmt.Println("ran on", dev.Info().Kind)
		return nil
	})
	// Output:
	// cluster map slots: 4
	// maps: unfinished 2, running 1, elapsed of running 1m0s, finished sum 1m0s
	// job-1/m2 fits on node-0: true
	// ran on cpu
}
