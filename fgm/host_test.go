package fgm_test

import (
	"fmt"
	"time"

	"github.com/schedkit/schedkit"
	"github.com/schedkit/schedkit/estimate"
	"github.com/schedkit/schedkit/fgm"
	"github.com/schedkit/schedkit/resource"
)

// A minimal in-memory host for the tests.

var t0 = time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)

type node struct {
	id   schedkit.NodeID
	rack schedkit.RackID
	cap  resource.Vector
}

func (n *node) ID() schedkit.NodeID                      { return n.id }
func (n *node) Rack() schedkit.RackID                    { return n.rack }
func (n *node) Capacity() resource.Vector                { return n.cap }
func (n *node) Available() resource.Vector               { return n.cap }
func (n *node) Accelerators() []schedkit.AcceleratorInfo { return nil }

type cluster struct {
	space *resource.Space
	nodes []*node
}

func (c *cluster) Space() *resource.Space   { return c.space }
func (c *cluster) Nodes() int               { return len(c.nodes) }
func (c *cluster) Node(i int) schedkit.Node { return c.nodes[i] }
func (c *cluster) Capacity() resource.Vector {
	v := c.space.Zero()
	for _, n := range c.nodes {
		_ = v.Add(n.cap)
	}
	return v
}

// nodeOf returns the node of ID id in the cluster s was made with (fgm
// refuses a node value whose capacity is not the one registered), or a
// node with that ID alone if the cluster has none.
func nodeOf(s *fgm.Scheduler, id schedkit.NodeID) schedkit.Node {
	if c, ok := s.Config().Cluster.(*cluster); ok {
		for _, n := range c.nodes {
			if n.id == id {
				return n
			}
		}
	}
	return &node{id: id}
}

func newCluster(space *resource.Space, n int, capacity resource.Vector) *cluster {
	c := &cluster{space: space}
	for i := range n {
		c.nodes = append(c.nodes, &node{id: schedkit.NodeID(fmt.Sprintf("n%02d", i)), rack: "r0", cap: capacity})
	}
	return c
}

type task struct {
	id       schedkit.TaskID
	job      schedkit.JobID
	key      schedkit.SimilarityKey
	req      resource.Vector
	deadline time.Time
	locs     []schedkit.NodeID
	stages   []estimate.Stage // the oracle's prediction, if any
}

func (t *task) ID() schedkit.TaskID                { return t.id }
func (t *task) Job() schedkit.JobID                { return t.job }
func (t *task) Phase() schedkit.Phase              { return 0 }
func (t *task) Similarity() schedkit.SimilarityKey { return t.key }
func (t *task) Requested() resource.Vector         { return t.req }
func (t *task) Deadline() time.Time                { return t.deadline }
func (t *task) DataLocations() []schedkit.NodeID   { return t.locs }

// oracleEstimator predicts each task's own stages (nil: unpredictable).
type oracleEstimator struct{}

func (oracleEstimator) Predict(t schedkit.Task) (estimate.Profile, bool) {
	tk, ok := t.(interface{ stagesOf() []estimate.Stage })
	if !ok || tk.stagesOf() == nil {
		return estimate.Profile{}, false
	}
	return estimate.Profile{Stages: tk.stagesOf(), Observations: 1}, true
}

func (t *task) stagesOf() []estimate.Stage { return t.stages }
