package sim

import (
	"time"

	"github.com/schedkit/schedkit"
	"github.com/schedkit/schedkit/resource"
)

var _ schedkit.Cluster = (*Cluster)(nil)

// Cluster is the simulator's view of the cluster. It implements
// schedkit.Cluster.
type Cluster struct {
	w *world
	b *book
}

// Space implements schedkit.Cluster.
func (c *Cluster) Space() *resource.Space { return c.w.space }

// Nodes implements schedkit.Cluster: the number of live nodes.
func (c *Cluster) Nodes() int { return len(c.w.live) }

// Node implements schedkit.Cluster: the i-th live node, in Config order.
func (c *Cluster) Node(i int) schedkit.Node {
	if i < 0 || i >= len(c.w.live) {
		return nil
	}
	return c.w.live[i]
}

// LiveNode is Node returning the concrete type.
func (c *Cluster) LiveNode(i int) *Node {
	if i < 0 || i >= len(c.w.live) {
		return nil
	}
	return c.w.live[i]
}

// AllNodes returns the number of configured nodes, live or not.
func (c *Cluster) AllNodes() int { return len(c.w.nodes) }

// NodeByIndex returns the node at position i of Config.Nodes, or nil.
func (c *Cluster) NodeByIndex(i int) *Node {
	if i < 0 || i >= len(c.w.nodes) {
		return nil
	}
	return &c.w.nodes[i]
}

// Capacity implements schedkit.Cluster: the sum of live capacities.
func (c *Cluster) Capacity() resource.Vector { return c.w.capacity }

// Jobs returns the active jobs (submitted, not ended) in submission
// order. The slice belongs to the simulator.
func (c *Cluster) Jobs() []*Job { return c.b.activeList() }

// Job returns the job with the given ID (active or not), or nil.
func (c *Cluster) Job(id schedkit.JobID) *Job { return c.b.byID[id] }

// Now returns the current virtual time.
func (c *Cluster) Now() time.Time { return c.w.eng.Now() }

// Ready returns the number of ready tasks over all active jobs.
func (c *Cluster) Ready() int { return c.b.ready.n }

// ReadyIn returns the number of ready tasks of phase p over all active
// jobs.
func (c *Cluster) ReadyIn(p schedkit.Phase) int {
	if int(p) >= len(c.b.ready.in) {
		return 0
	}
	return c.b.ready.in[p]
}

// Running returns the number of running tasks.
func (c *Cluster) Running() int { return c.w.running }
