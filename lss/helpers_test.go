package lss_test

import (
	"time"

	"github.com/schedkit/schedkit"
	"github.com/schedkit/schedkit/lss/lsstest"
	"github.com/schedkit/schedkit/schedkittest"
)

// The in-memory host of these tests is schedkittest's, driven by lsstest.

type (
	hostJob     = schedkittest.Job
	hostNode    = schedkittest.Node
	hostCluster = schedkittest.Cluster
)

var t0 = lsstest.T0

const sec = time.Second

// newJob returns a job submitted at sub with the given deadline (zero:
// none) and task counts per phase; phase 0 is ready, later phases not.
func newJob(id string, sub, deadline time.Time, tasks ...int) *hostJob {
	return schedkittest.NewJob(schedkit.JobID(id), sub, deadline, tasks...)
}

// newCluster returns nodes nodes of 8 CPUs and the given map, reduce and
// merge slots.
func newCluster(nodes int, slots ...float64) *hostCluster { return lsstest.NewCluster(nodes, slots...) }

var diffDecisions = lsstest.DiffDecisions
