package dbs_test

import (
	"time"

	"github.com/schedkit/schedkit"
	"github.com/schedkit/schedkit/dbs"
	"github.com/schedkit/schedkit/resource"
)

// A minimal host for the tests: jobs, nodes and a cluster whose state the
// tests set directly.

type hJob struct {
	id           schedkit.JobID
	sub, dl      time.Time
	phi          float64
	budget, cost float64
	input, red   int64
	hint         time.Duration
	nph          int
	ph           [2]schedkit.PhaseProgress
}

func (j *hJob) ID() schedkit.JobID                               { return j.id }
func (j *hJob) Submitted() time.Time                             { return j.sub }
func (j *hJob) Deadline() time.Time                              { return j.dl }
func (j *hJob) Phases() int                                      { return j.nph }
func (j *hJob) Progress(p schedkit.Phase) schedkit.PhaseProgress { return j.ph[p] }
func (j *hJob) Budget() float64                                  { return j.budget }
func (j *hJob) Phi() float64                                     { return j.phi }
func (j *hJob) CostSoFar() float64                               { return j.cost }
func (j *hJob) DataSizes() (int64, int64)                        { return j.input, j.red }
func (j *hJob) TaskTimeHint() time.Duration                      { return j.hint }

type hNode struct {
	id   schedkit.NodeID
	capv resource.Vector
	free resource.Vector
}

func (n *hNode) ID() schedkit.NodeID                      { return n.id }
func (n *hNode) Rack() schedkit.RackID                    { return "r" }
func (n *hNode) Capacity() resource.Vector                { return n.capv }
func (n *hNode) Available() resource.Vector               { return n.free }
func (n *hNode) Accelerators() []schedkit.AcceleratorInfo { return nil }

type hCluster struct {
	space *resource.Space
	nodes []*hNode
	capv  resource.Vector
}

func (c *hCluster) Space() *resource.Space    { return c.space }
func (c *hCluster) Nodes() int                { return len(c.nodes) }
func (c *hCluster) Node(i int) schedkit.Node  { return c.nodes[i] }
func (c *hCluster) Capacity() resource.Vector { return c.capv }

var (
	_ dbs.Job            = (*hJob)(nil)
	_ dbs.TaskTimeHinter = (*hJob)(nil)
	_ schedkit.Node      = (*hNode)(nil)
	_ schedkit.Cluster   = (*hCluster)(nil)
)

// newCluster returns n nodes of (maps, reduces) slots each, all free.
func newCluster(n, maps, reduces int) *hCluster {
	space, err := resource.NewSpace(resource.MapSlot, resource.ReduceSlot)
	if err != nil {
		panic(err)
	}
	c := &hCluster{space: space, capv: resource.Vector{float64(n * maps), float64(n * reduces)}}
	for i := range n {
		c.nodes = append(c.nodes, &hNode{
			id:   schedkit.NodeID("n" + string(rune('a'+i%26)) + string(rune('0'+i/26))),
			capv: resource.Vector{float64(maps), float64(reduces)},
			free: resource.Vector{float64(maps), float64(reduces)},
		})
	}
	return c
}

var t0 = time.Date(2014, 3, 1, 8, 0, 0, 0, time.UTC)

// mrJob returns a map-reduce job with every map ready.
func mrJob(id string, phi float64, maps, reduces int, deadline time.Duration, budget float64) *hJob {
	return &hJob{
		id: schedkit.JobID(id), sub: t0, dl: t0.Add(deadline), phi: phi, budget: budget, nph: 2,
		ph: [2]schedkit.PhaseProgress{{Total: maps, Ready: maps}, {Total: reduces}},
	}
}
