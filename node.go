package schedkit

import "github.com/schedkit/schedkit/resource"

// Node is the host's read-only view of one server. Vectors and slices it
// returns belong to the host: callers must not modify or retain them past
// the call that received them.
type Node interface {
	// ID identifies the node.
	ID() NodeID
	// Rack returns the node's rack; never empty.
	Rack() RackID
	// Capacity is the node's total resources, in the cluster's Space.
	Capacity() resource.Vector
	// Available is what is free now: capacity minus what is allocated.
	// Integral slot kinds give free slots (lss reads free map and reduce
	// slots here on a heartbeat).
	Available() resource.Vector
	// Accelerators describes the node's accelerators as last reported; a
	// node without accelerators returns an empty slice.
	Accelerators() []AcceleratorInfo
}

// Cluster is the host's read-only view of the whole cluster.
type Cluster interface {
	// Space is the resource space every vector of the cluster uses.
	Space() *resource.Space
	// Nodes returns the number of live nodes.
	Nodes() int
	// Node returns the i-th live node, 0 ≤ i < Nodes(). Order is the
	// host's and must be stable between changes of membership.
	Node(i int) Node
	// Capacity is the sum of the live nodes' capacities. lss reads the
	// cluster's map and reduce slot counts here.
	Capacity() resource.Vector
}

// NodeLookup is an optional interface of a Cluster that finds a live
// node by ID. lss and dbs check on every heartbeat that the node belongs
// to the cluster; with NodeLookup that check is O(1) whatever the ID.
// Without it they remember each node's index and rescan the cluster,
// O(nodes), for an ID they do not find there — at every heartbeat of a
// node that is not in the cluster, since Nodes and Node alone cannot
// tell such a node from one added since the last scan. A host that
// keeps its nodes in a map by ID implements it in one line.
type NodeLookup interface {
	// LookupNode returns the live node with ID id and true, or nil and
	// false if the cluster has none.
	LookupNode(id NodeID) (Node, bool)
}
