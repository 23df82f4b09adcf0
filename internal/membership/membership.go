// Package membership answers, for the schedulers that take heartbeats
// (lss, dbs), whether a node is one of the host cluster's nodes, in O(1)
// while the cluster's membership is unchanged: it remembers each node's
// index and rescans the cluster, O(nodes), only when that index no
// longer holds the node.
package membership

import (
	"github.com/schedkit/schedkit"
	"github.com/schedkit/schedkit/internal/nilvalue"
)

// Index is the remembered position of each node in the cluster. The zero
// value is ready to use.
type Index struct {
	at map[schedkit.NodeID]int
}

// Has reports whether id is the ID of one of c's nodes.
func (x *Index) Has(c schedkit.Cluster, id schedkit.NodeID) bool {
	if x.holds(c, id) {
		return true
	}
	if x.at == nil {
		x.at = make(map[schedkit.NodeID]int)
	}
	clear(x.at)
	for i := range c.Nodes() {
		if n := c.Node(i); !nilvalue.Is(n) {
			x.at[n.ID()] = i
		}
	}
	return x.holds(c, id)
}

// holds reports whether the remembered index of id still holds it.
func (x *Index) holds(c schedkit.Cluster, id schedkit.NodeID) bool {
	i, ok := x.at[id]
	if !ok || i >= c.Nodes() {
		return false
	}
	n := c.Node(i)
	return !nilvalue.Is(n) && n.ID() == id
}
