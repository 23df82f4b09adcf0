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
