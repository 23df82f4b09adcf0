package fgm_test

import (
	"fmt"
	"strings"

	"github.com/schedkit/schedkit"
	"github.com/schedkit/schedkit/fgm"
	"github.com/schedkit/schedkit/fgm/fgmtest"
	"github.com/schedkit/schedkit/resource"
	"github.com/schedkit/schedkit/schedkittest"
)

// The tests' host is fgmtest's: schedkittest's cluster and nodes,
// fgmtest.Task (its Usage the oracle's prediction, if any) and
// fgmtest.Oracle, the oracle estimator.

var t0 = fgmtest.T0

// newCluster returns a cluster of n nodes of capacity over space, named
// n00, n01, … in rack r0.
func newCluster(space *resource.Space, n int, capacity resource.Vector) *schedkittest.Cluster {
	c := schedkittest.NewCluster(space)
	for range n {
		c.AddNode("", "r0", capacity)
	}
	return c
}

// nodeOf returns the node of ID id in the cluster s was made with (fgm
// refuses a node value whose capacity is not the one registered), or a
// node with that ID alone if the cluster has none.
func nodeOf(s *fgm.Scheduler, id schedkit.NodeID) schedkit.Node {
	if c, ok := s.Config().Cluster.(*schedkittest.Cluster); ok {
		if n := c.Lookup(id); n != nil {
			return n
		}
	}
	return &schedkittest.Node{Key: id}
}

// showDecisions prints a call's decisions and error, for the
// equivalence tests to compare.
func showDecisions(ds []fgm.Decision, err error) string {
	var sb strings.Builder
	for _, d := range ds {
		fmt.Fprintf(&sb, "%s %s %s %v %v|", d.Task, d.Node, d.Mode, d.Plan, d.Action)
	}
	if err != nil {
		sb.WriteString(err.Error())
	}
	return sb.String()
}
