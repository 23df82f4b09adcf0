package sim

import (
	"github.com/schedkit/schedkit"
	"github.com/schedkit/schedkit/resource"
)

var _ schedkit.Node = (*Node)(nil)

// Node is the simulator's view of one server. It implements schedkit.Node.
type Node struct {
	idx       int32
	id        schedkit.NodeID
	rack      schedkit.RackID
	capacity  resource.Vector
	fullAt    resource.Vector // capacity + slack(capacity): usage beyond fails a task (victim)
	alloc     resource.Vector
	avail     resource.Vector
	used      resource.Vector // true demand of running tasks (capped at allocation under Limits) + background
	bg        resource.Vector
	rc        []float64 // compression rate per kind, formula (1)
	speed     float64
	accels    []schedkit.AcceleratorInfo
	up        bool
	bound     *Node
	offloaded []bool // per kind: served by the bound node
	offload   bool   // some kind is offloaded
	running   []*Task
	guests    []*Task // tasks elsewhere whose offloaded demand is served here
	hbOffset  int64
	// incAlloc and incLoad are the sums of the running attempts' exact
	// terms (allocation, load), kept as they start, change and end, and
	// inexact the number of running attempts with a term that is not
	// (sums.go); resync says the sums must be rebuilt by a full
	// recompute. changed are the running tasks whose terms changed since
	// the last settle (their rates are due for an update).
	incAlloc resource.Vector
	incLoad  resource.Vector
	inexact  int32
	resync   bool
	rateAll  bool // a recompute in this settle changed the node's rc
	changed  []*Task
	hbOn     bool // a periodic heartbeat is scheduled
	oob      bool // an out-of-band heartbeat is scheduled
	dirty    bool
}

// ID implements schedkit.Node.
func (n *Node) ID() schedkit.NodeID { return n.id }

// Rack implements schedkit.Node.
func (n *Node) Rack() schedkit.RackID { return n.rack }

// Capacity implements schedkit.Node.
func (n *Node) Capacity() resource.Vector { return n.capacity }

// Available implements schedkit.Node: capacity minus allocations. A
// compressible kind a policy over-subscribed shows a negative amount.
func (n *Node) Available() resource.Vector { return n.avail }

// Accelerators implements schedkit.Node.
func (n *Node) Accelerators() []schedkit.AcceleratorInfo { return n.accels }

// Index is the node's position in Config.Nodes.
func (n *Node) Index() int { return int(n.idx) }

// Speed is the node's progress-rate factor (heterogeneous nodes).
func (n *Node) Speed() float64 { return n.speed }

// Up reports whether the node is live.
func (n *Node) Up() bool { return n.up }

// Bound returns the node n is bound to for offload kinds, or nil.
func (n *Node) Bound() *Node { return n.bound }

// Allocated is the sum of the allocations held on the node (including
// offloaded allocations of guests).
func (n *Node) Allocated() resource.Vector { return n.alloc }

// Running returns the tasks running on the node. The slice belongs to the
// simulator and changes as tasks start and end.
func (n *Node) Running() []*Task { return n.running }

// nodeHot is what a quiet heartbeat reads of a node, kept apart from
// the Node in world.hot (by node index) so that it stays in cache.
type nodeHot struct {
	// free has bit k set for each kind k < maxSupportKinds the node has
	// a positive amount of available, and someFree if it has of any
	// kind (freeMask of Node.avail, as recompute last set it).
	free uint64
	up   bool // Node.up
}

// someFree is nodeHot.free's bit for "some kind available".
const someFree = 1 << 63

// freeMask returns nodeHot.free for available amounts avail.
func freeMask(avail resource.Vector) uint64 {
	var free uint64
	for k, x := range avail {
		if x > 0 {
			free |= someFree
			if k < maxSupportKinds { // supports name no other kind
				free |= 1 << k
			}
		}
	}
	return free
}

// maxSupportKinds bounds the kinds a free mask names (nodeHot.free) and
// a phase's support (jobPhase.support; the book's ready.by has 2^k
// counters).
const maxSupportKinds = 6
