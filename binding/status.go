package binding

import (
	"fmt"
	"reflect"
	"time"

	"github.com/schedkit/schedkit"
)

// NodeStatus is what a node reports when it joins and in every heartbeat.
// The table copies what it keeps; the caller may reuse the slice.
type NodeStatus struct {
	ID   schedkit.NodeID
	Rack schedkit.RackID
	// Accelerators is the node's devices as last observed. A node is an
	// ANode while at least one device of a selected kind is healthy (and,
	// with Config.Weighted, the healthy ones weigh more than zero in
	// total); otherwise it is an NNode.
	Accelerators []schedkit.AcceleratorInfo
	// Containers is the number of containers the node runs, read only
	// with Config.Containers. Zero means 1; at most MaxContainers.
	Containers int
}

// StatusOf reads a node's status through the root schedkit.Node interface
// (ID, rack, accelerators). Containers is left zero (one unit); set it when
// binding containers. A nil node (also a typed nil pointer) gives the zero
// NodeStatus, which the table refuses (ErrInvalidNode).
func StatusOf(n schedkit.Node) NodeStatus {
	if n == nil {
		return NodeStatus{}
	}
	if v := reflect.ValueOf(n); v.Kind() == reflect.Pointer && v.IsNil() {
		return NodeStatus{}
	}
	return NodeStatus{ID: n.ID(), Rack: n.Rack(), Accelerators: n.Accelerators()}
}

// Role is what a node currently is to the binding.
type Role uint8

// Roles.
const (
	// NNode is a node without usable accelerators; its accelerator work is
	// sent to the ANode it is bound to.
	NNode Role = iota
	// ANode is a node with at least one usable accelerator; it serves its
	// own accelerator work and that of the NNodes on its stack.
	ANode
)

// String returns "NNode" or "ANode".
func (r Role) String() string {
	if r == ANode {
		return "ANode"
	}
	return "NNode"
}

// Unit is what the table binds: a whole node (Container 0) or, with
// Config.Containers, one container of a node.
type Unit struct {
	Node      schedkit.NodeID
	Container int
}

// String returns "node" for container 0 and "node/c" otherwise.
func (u Unit) String() string {
	if u.Container == 0 {
		return string(u.Node)
	}
	return fmt.Sprintf("%s/%d", u.Node, u.Container)
}

// Move is one rebinding for the host to carry out: unit's accelerator work
// went to From before the change and goes to To after it. The empty NodeID
// means "nowhere": the unit did not exist yet, was waiting unbound (a rack
// without an ANode), or has left. An ANode's own units are bound to itself
// (Lookup of an ANode returns itself), so a node that becomes an ANode
// shows moves from its old ANode to itself and one that stops being an
// ANode shows moves from itself to its new one.
//
// Moves that carry nothing for the host are left out: an ANode's own unit
// arriving bound to itself (an ANode added) or leaving from itself (an
// ANode removed). Every Move returned names a binding the host must change.
//
// The moves returned by one call are net: each unit appears at most once,
// From is its binding before the call and To its binding after, and
// From ≠ To. They are listed in the order the units first moved. A host
// that applies the moves of several calls at once (removing and re-adding
// an ANode, say) nets them with Coalesce, so no unit moves twice.
type Move struct {
	Unit
	From, To schedkit.NodeID
}

// Coalesce nets the moves of several calls, in the order they were
// returned, into the moves a host applying them all at once must carry
// out: each unit at most once, from its binding before the first call to
// its binding after the last, in the order units first moved; a unit
// that ends where it started (an ANode removed and re-added gives its
// NNodes back) does not appear. The result is fresh; the inputs are not
// modified.
func Coalesce(calls ...[]Move) []Move {
	var out []Move
	at := make(map[Unit]int)
	for _, ms := range calls {
		for _, m := range ms {
			if i, ok := at[m.Unit]; ok {
				out[i].To = m.To
				continue
			}
			at[m.Unit] = len(out)
			out = append(out, m)
		}
	}
	k := 0
	for _, m := range out {
		if m.From != m.To {
			out[k] = m
			k++
		}
	}
	if k == 0 {
		return nil
	}
	return out[:k]
}

// String returns "unit: from -> to", with "-" for nowhere.
func (m Move) String() string {
	return fmt.Sprintf("%v: %s -> %s", m.Unit, orDash(m.From), orDash(m.To))
}

func orDash(id schedkit.NodeID) string {
	if id == "" {
		return "-"
	}
	return string(id)
}

// Binding is where one unit's accelerator work goes: an ANode (itself for
// an ANode's own units), or "" while it waits in a rack without an ANode.
type Binding struct {
	Unit
	ANode schedkit.NodeID
}

// NodeState is the registry's view of one live node.
type NodeState struct {
	ID            schedkit.NodeID
	Rack          schedkit.RackID
	Role          Role
	LastHeartbeat time.Time
	// Units is the number of units the node is bound as: 1, or its
	// container count with Config.Containers.
	Units int
	// Capacity is the ANode's accelerator capacity: 1 without
	// Config.Weighted, the summed weights with it; 0 for an NNode.
	Capacity float64
	// Bound is the number of NNode units on the ANode's stack.
	Bound int
	// Accelerators is a copy of the devices last reported.
	Accelerators []schedkit.AcceleratorInfo
}

// Load is one ANode's stack as the balancing sees it.
type Load struct {
	ANode schedkit.NodeID
	// Bound is the number of NNode units on its stack.
	Bound int
	// Own is its own work counted in the load: 0 without Weighted, else 1
	// or its container count.
	Own int
	// Capacity is 1 without Weighted, else its summed device weights.
	Capacity float64
	// Load is (Own + Bound) / Capacity.
	Load float64
}
