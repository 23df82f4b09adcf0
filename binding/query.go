package binding

import (
	"cmp"
	"slices"

	"github.com/schedkit/schedkit"
)

// Lookup returns the ANode that node id's accelerator work goes to: the
// ANode its unit is bound to (container 0 with Config.Containers), or id
// itself if id is an ANode. It reports false for an unknown node and for
// an NNode waiting in a rack without an ANode. O(1), no allocation.
func (t *Table) Lookup(id schedkit.NodeID) (schedkit.NodeID, bool) {
	return t.LookupContainer(id, 0)
}

// LookupContainer is Lookup for container c of node id (0 ≤ c < the
// node's unit count).
func (t *Table) LookupContainer(id schedkit.NodeID, c int) (schedkit.NodeID, bool) {
	ni, ok := t.index[id]
	if !ok {
		return "", false
	}
	n := &t.nodes[ni]
	if c < 0 || c >= len(n.units) {
		return "", false
	}
	a := t.binding(n.units[c])
	return a, a != ""
}

// Role returns node id's role, and false if the table does not hold it.
func (t *Table) Role(id schedkit.NodeID) (Role, bool) {
	ni, ok := t.index[id]
	if !ok {
		return NNode, false
	}
	if t.nodes[ni].anode {
		return ANode, true
	}
	return NNode, true
}

// Len returns the number of live nodes.
func (t *Table) Len() int { return len(t.index) }

// Node returns the registry's state of node id (with a copy of its
// accelerators), and false if the table does not hold it.
func (t *Table) Node(id schedkit.NodeID) (NodeState, bool) {
	ni, ok := t.index[id]
	if !ok {
		return NodeState{}, false
	}
	n := &t.nodes[ni]
	s := NodeState{
		ID:            n.id,
		Rack:          t.racks[n.rack].id,
		LastHeartbeat: n.last,
		Units:         len(n.units),
		Accelerators:  append([]schedkit.AcceleratorInfo(nil), n.accels...),
	}
	if n.anode {
		s.Role = ANode
		s.Capacity = n.capacity
		s.Bound = int(n.n)
	}
	return s, true
}

// Racks appends the racks that hold at least one node to dst, sorted, and
// returns it.
func (t *Table) Racks(dst []schedkit.RackID) []schedkit.RackID {
	start := len(dst)
	for id := range t.rackIndex {
		dst = append(dst, id)
	}
	slices.Sort(dst[start:])
	return dst
}

// Loads appends the load of every ANode in rack to dst, sorted by ANode
// ID, and returns it. An unknown rack appends nothing.
func (t *Table) Loads(rack schedkit.RackID, dst []Load) []Load {
	r, ok := t.rackIndex[rack]
	if !ok {
		return dst
	}
	start := len(dst)
	for _, a := range t.racks[r].push {
		n := &t.nodes[a]
		dst = append(dst, Load{
			ANode:    n.id,
			Bound:    int(n.n),
			Own:      int(n.own),
			Capacity: n.capacity,
			Load:     n.keyLoad,
		})
	}
	slices.SortFunc(dst[start:], func(a, b Load) int { return cmp.Compare(a.ANode, b.ANode) })
	return dst
}

// Stack appends the units on ANode anode's stack to dst, bottom (oldest
// binding) first, and returns it. A node that is not an ANode appends
// nothing.
func (t *Table) Stack(anode schedkit.NodeID, dst []Unit) []Unit {
	ni, ok := t.index[anode]
	if !ok || !t.nodes[ni].anode {
		return dst
	}
	for ui := t.nodes[ni].head; ui != none; ui = t.units[ui].next {
		dst = append(dst, t.unitOf(ui))
	}
	return dst
}

// Waiting appends the units waiting unbound in rack (a rack without an
// ANode) to dst, oldest first, and returns it.
func (t *Table) Waiting(rack schedkit.RackID, dst []Unit) []Unit {
	r, ok := t.rackIndex[rack]
	if !ok {
		return dst
	}
	for ui := t.racks[r].waitHead; ui != none; ui = t.units[ui].next {
		dst = append(dst, t.unitOf(ui))
	}
	return dst
}

// Bindings appends the binding of every unit of every live node to dst,
// sorted by node ID then container, and returns it. Waiting units have an
// empty ANode; an ANode's own units are bound to itself.
func (t *Table) Bindings(dst []Binding) []Binding {
	start := len(dst)
	for i := range t.nodes {
		n := &t.nodes[i]
		if !n.used {
			continue
		}
		for _, ui := range n.units {
			dst = append(dst, Binding{Unit: t.unitOf(ui), ANode: t.binding(ui)})
		}
	}
	slices.SortFunc(dst[start:], func(a, b Binding) int {
		if c := cmp.Compare(a.Node, b.Node); c != 0 {
			return c
		}
		return cmp.Compare(a.Container, b.Container)
	})
	return dst
}

func (t *Table) unitOf(ui int32) Unit {
	u := &t.units[ui]
	return Unit{Node: t.nodes[u.node].id, Container: int(u.container)}
}
