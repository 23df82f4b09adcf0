package fgm_test

import (
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
