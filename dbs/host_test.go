package dbs_test

import (
	"time"

	"github.com/schedkit/schedkit"
	"github.com/schedkit/schedkit/dbs/dbstest"
	"github.com/schedkit/schedkit/schedkittest"
)

// The tests' host is the one dbstest gives hosts: its jobs over
// schedkittest's nodes and cluster.

type (
	hJob     = dbstest.Job
	hNode    = schedkittest.Node
	hCluster = schedkittest.Cluster
)

// newCluster returns n nodes ("n00", …) of (maps, reduces) slots each,
// all free.
func newCluster(n, maps, reduces int) *hCluster { return dbstest.NewCluster(n, maps, reduces) }

var t0 = dbstest.T0

// mrJob returns a map-reduce job submitted at t0 with every map ready.
func mrJob(id string, phi float64, maps, reduces int, deadline time.Duration, budget float64) *hJob {
	return &hJob{Job: schedkittest.NewJob(schedkit.JobID(id), t0, t0.Add(deadline), maps, reduces), PhiValue: phi, Money: budget}
}
