package podjob

import (
	"math"
	"slices"
	"strings"

	v1 "k8s.io/api/core/v1"

	"github.com/schedkit/schedkit"
	"github.com/schedkit/schedkit/resource"
)

// space is the slot space of every Cluster: map slots, reduce slots.
var space = func() *resource.Space {
	s, err := resource.NewSpace(resource.MapSlot, resource.ReduceSlot)
	if err != nil {
		panic(err) // two distinct constant kinds: cannot fail
	}
	return s
}()

// Space returns the resource space of Cluster vectors: map-slot then
// reduce-slot.
func Space() *resource.Space { return space }

// Node is one schedulable node's slot view.
type Node struct {
	id        schedkit.NodeID
	rack      schedkit.RackID
	cap, free resource.Vector
}

var _ schedkit.Node = (*Node)(nil)

// ID is the node's name.
func (n *Node) ID() schedkit.NodeID { return n.id }

// Rack is the node's LabelRack label, "default" without it.
func (n *Node) Rack() schedkit.RackID { return n.rack }

// Capacity is the node's allocatable map and reduce slots.
func (n *Node) Capacity() resource.Vector { return n.cap }

// Available is Capacity minus the slots requested by the non-finished
// pods bound to the node (never below zero).
func (n *Node) Available() resource.Vector { return n.free }

// Accelerators returns nil: accelerators are not translated.
func (n *Node) Accelerators() []schedkit.AcceleratorInfo { return nil }

// Cluster is the schedulable nodes' slot view (schedkit.Cluster).
type Cluster struct {
	nodes []*Node
	cap   resource.Vector
}

var _ schedkit.Cluster = (*Cluster)(nil)

// Space returns Space().
func (c *Cluster) Space() *resource.Space { return space }

// Nodes returns the number of schedulable nodes.
func (c *Cluster) Nodes() int { return len(c.nodes) }

// Node returns the i-th node, by name.
func (c *Cluster) Node(i int) schedkit.Node { return c.nodes[i] }

// Capacity is the sum of the nodes' slots: lss's N_MapSlot, N_ReduceSlot.
func (c *Cluster) Capacity() resource.Vector { return c.cap }

// Bounds on the slots a node advertises: a node with more of a kind than
// MaxNodeSlots, or one that would bring the cluster's total of a kind
// past MaxClusterSlots, is refused (Snapshot.Refused) and its slots are
// left out. Far above any real node (kube-scheduler's default is 110
// pods a node), they keep the totals in the range lss (2^32 a kind) and
// dbs (2^31 − 1) count, so one node's absurd figure costs that node
// alone, not every job's evaluation.
const (
	MaxNodeSlots    = 1 << 16
	MaxClusterSlots = math.MaxInt32
)

// slots reads a node's allocatable slots of one kind.
func slots(rl v1.ResourceList, name v1.ResourceName) float64 {
	q, ok := rl[name]
	if !ok {
		return 0
	}
	return float64(max(q.Value(), 0))
}

// SlotRequests is the map and reduce slots the pod's containers request,
// what it takes from its node's Available.
func SlotRequests(p *v1.Pod) [2]float64 {
	var r [2]float64
	for _, ctr := range p.Spec.Containers {
		r[0] += slots(ctr.Resources.Requests, ResourceMapSlot)
		r[1] += slots(ctr.Resources.Requests, ResourceReduceSlot)
	}
	return r
}

// newCluster builds the slot view of the nodes that are not cordoned,
// leaving out (with the reason in refused) those whose figures are out
// of bounds.
func newCluster(nodes []*v1.Node, pods []*v1.Pod, refused map[string]error) *Cluster {
	c := &Cluster{cap: space.Zero()}
	byName := map[string]*Node{}
	nodes = slices.DeleteFunc(slices.Clone(nodes), func(n *v1.Node) bool { return n == nil || n.Spec.Unschedulable })
	slices.SortFunc(nodes, func(a, b *v1.Node) int { return strings.Compare(a.Name, b.Name) })
	for _, n := range nodes {
		rack := n.Labels[LabelRack]
		if rack == "" {
			rack = "default"
		}
		nd := &Node{id: schedkit.NodeID(n.Name), rack: schedkit.RackID(rack), cap: space.Zero()}
		nd.cap[0] = slots(n.Status.Allocatable, ResourceMapSlot)
		nd.cap[1] = slots(n.Status.Allocatable, ResourceReduceSlot)
		if err := checkSlots(n.Name, nd.cap, c.cap); err != nil {
			refused[n.Name] = err
			continue
		}
		nd.free = nd.cap.Clone()
		c.cap[0] += nd.cap[0]
		c.cap[1] += nd.cap[1]
		c.nodes = append(c.nodes, nd)
		byName[n.Name] = nd
	}
	for _, p := range pods {
		if p == nil || p.Spec.NodeName == "" || p.Status.Phase == v1.PodSucceeded || p.Status.Phase == v1.PodFailed {
			continue
		}
		nd := byName[p.Spec.NodeName]
		if nd == nil {
			continue
		}
		req := SlotRequests(p)
		nd.free[0] -= req[0]
		nd.free[1] -= req[1]
	}
	for _, nd := range c.nodes {
		nd.free[0] = max(nd.free[0], 0)
		nd.free[1] = max(nd.free[1], 0)
	}
	return c
}

// checkSlots refuses node name's slots cap when a kind is above
// MaxNodeSlots or would bring the cluster's total (total so far) past
// MaxClusterSlots.
func checkSlots(name string, cap, total resource.Vector) *Error {
	for k, res := range [2]v1.ResourceName{ResourceMapSlot, ResourceReduceSlot} {
		switch {
		case cap[k] > MaxNodeSlots:
			return invalid("node "+name, string(res), "allocatable %.0f is more than %d slots a node: its slots are left out", cap[k], MaxNodeSlots)
		case total[k]+cap[k] > MaxClusterSlots:
			return invalid("node "+name, string(res), "allocatable %.0f would bring the cluster past %d slots of the kind: its slots are left out", cap[k], MaxClusterSlots)
		}
	}
	return nil
}
