// Package membership answers, for the schedulers that take a host's node
// values (lss, dbs and fgm), whether a node value is one of the host's
// nodes: is its ID one of the cluster's (Index.Node), and does it agree
// with the node the cluster holds under that ID (CapacityDiffers); lss
// and dbs ask both at once (Index.Check), fgm the second of the server
// it registered.
//
// Index finds a node by ID in O(1) whatever the ID when the Cluster
// implements schedkit.NodeLookup. Without it, it remembers each node's
// index and rescans the cluster, O(nodes), when that index no longer
// holds the node or the ID is not among those it remembers — for an ID
// that is not in the cluster, at every call: with only Nodes and Node(i)
// to read, no cheaper test can tell an unknown ID from a node added
// since the last scan.
package membership

import (
	"fmt"

	"github.com/schedkit/schedkit"
	"github.com/schedkit/schedkit/internal/nilvalue"
	"github.com/schedkit/schedkit/resource"
)

// Index finds the cluster's node of an ID. The zero value is ready to
// use.
type Index struct {
	at map[schedkit.NodeID]int
	// lookups counts the calls answered by the Cluster's NodeLookup,
	// scans the rescans of the whole cluster.
	lookups, scans uint64
}

// Node returns the cluster's node with ID id, and false if c has none.
func (x *Index) Node(c schedkit.Cluster, id schedkit.NodeID) (schedkit.Node, bool) {
	if l, ok := c.(schedkit.NodeLookup); ok {
		x.lookups++
		n, ok := l.LookupNode(id)
		if !ok || nilvalue.Is(n) || n.ID() != id {
			return nil, false
		}
		return n, true
	}
	if n := x.held(c, id); n != nil {
		return n, true
	}
	x.scans++
	if x.at == nil {
		x.at = make(map[schedkit.NodeID]int)
	}
	clear(x.at)
	for i := range c.Nodes() {
		if n := c.Node(i); !nilvalue.Is(n) {
			x.at[n.ID()] = i
		}
	}
	if n := x.held(c, id); n != nil {
		return n, true
	}
	return nil, false
}

// held returns the node at the remembered index of id if it still has
// that ID, else nil.
func (x *Index) held(c schedkit.Cluster, id schedkit.NodeID) schedkit.Node {
	i, ok := x.at[id]
	if !ok || i >= c.Nodes() {
		return nil
	}
	n := c.Node(i)
	if nilvalue.Is(n) || n.ID() != id {
		return nil
	}
	return n
}

// Fault is what is wrong with a node value, if anything.
type Fault uint8

// Faults.
const (
	OK        Fault = iota // the value is the cluster's node of its ID, or agrees with it
	Unknown                // the cluster holds no node of its ID
	Disagrees              // the cluster's node of its ID has another capacity
)

// Check reports whether node (whose vectors the caller has checked) is
// c's node of its ID, and if not, why, in the words every scheduler's
// error uses: Unknown if c holds no node of that ID, Disagrees if that
// node's capacity is not node's (CapacityDiffers). Each scheduler maps
// the Fault to its own sentinels (ErrUnknownNode, ErrInvalidNode).
func (x *Index) Check(c schedkit.Cluster, sp *resource.Space, node schedkit.Node) (Fault, string) {
	cn, ok := x.Node(c, node.ID())
	if !ok {
		return Unknown, fmt.Sprintf("none of the cluster's %d nodes has this ID", c.Nodes())
	}
	if why := CapacityDiffers(sp, node.Capacity(), cn.Capacity()); why != "" {
		return Disagrees, why
	}
	return OK, ""
}

// Lookups returns the number of calls the Cluster's NodeLookup answered.
func (x *Index) Lookups() uint64 { return x.lookups }

// Scans returns the number of rescans of the whole cluster.
func (x *Index) Scans() uint64 { return x.scans }

// CapacityDiffers returns "" if a node value's capacity got equals want,
// the capacity of the node the host's cluster (or, in fgm, the
// scheduler's registration) holds under the same ID, and otherwise what
// differs, for an ErrInvalidNode: a stale node value (taken before the
// node was resized) must not hand out slots the cluster does not count.
func CapacityDiffers(sp *resource.Space, got, want resource.Vector) string {
	if len(got) != len(want) {
		return fmt.Sprintf("capacity has %d elements, the cluster's node of this ID %d", len(got), len(want))
	}
	for k := range got {
		if got[k] != want[k] {
			name := fmt.Sprint(k)
			if sp != nil && k < sp.Len() {
				name = fmt.Sprintf("%q", sp.Kind(k).Name)
			}
			return fmt.Sprintf("capacity of %s is %v, the cluster's node of this ID has %v (a stale node value?)", name, got[k], want[k])
		}
	}
	return ""
}
