package dbstest_test

import (
	"strings"
	"testing"
	"time"

	"github.com/schedkit/schedkit"
	"github.com/schedkit/schedkit/dbs"
	"github.com/schedkit/schedkit/dbs/dbstest"
	"github.com/schedkit/schedkit/schedkittest"
)

// TestCheckerCatches: each broken invariant is reported.
func TestCheckerCatches(t *testing.T) {
	cl := dbstest.NewCluster(2, 2, 1)
	n := cl.NodeList[0]
	t0 := dbstest.T0
	setup := func() (*dbstest.Checker, *dbstest.Job, func(schedkit.JobID) dbs.Job) {
		c, err := dbstest.NewChecker(dbs.Config{Cluster: cl})
		if err != nil {
			t.Fatal(err)
		}
		j := &dbstest.Job{Job: schedkittest.NewJob("j", t0, t0.Add(time.Hour), 3, 1), PhiValue: 1}
		c.Submitted(t0, j)
		return c, j, func(id schedkit.JobID) dbs.Job {
			if id == "j" {
				return j
			}
			return nil
		}
	}
	assign := func(job schedkit.JobID, node schedkit.NodeID, count int) dbs.Decision {
		return dbs.Decision{Action: dbs.Assign, Job: job, Node: node, Count: count, From: dbs.High, To: dbs.High}
	}
	high := dbs.DefaultQueues[dbs.High].Price
	for _, tc := range []struct {
		name, want string
		run        func(c *dbstest.Checker, j *dbstest.Job, look func(schedkit.JobID) dbs.Job) error
	}{
		{"slot twice", "slot handed out twice", func(c *dbstest.Checker, _ *dbstest.Job, look func(schedkit.JobID) dbs.Job) error {
			return c.Heartbeat(n, look, []dbs.Decision{assign("j", n.ID(), 2), assign("j", n.ID(), 1)})
		}},
		{"task twice", "task started twice", func(c *dbstest.Checker, j *dbstest.Job, look func(schedkit.JobID) dbs.Job) error {
			j.Counters[0].Ready = 1
			return c.Heartbeat(n, look, []dbs.Decision{assign("j", n.ID(), 2)})
		}},
		{"unknown job", "not queued", func(c *dbstest.Checker, _ *dbstest.Job, look func(schedkit.JobID) dbs.Job) error {
			return c.Heartbeat(n, look, []dbs.Decision{assign("x", n.ID(), 1)})
		}},
		{"other node", "heartbeat was from node", func(c *dbstest.Checker, _ *dbstest.Job, look func(schedkit.JobID) dbs.Job) error {
			return c.Heartbeat(n, look, []dbs.Decision{assign("j", "n01", 1)})
		}},
		{"skipping a queue", "adjacent", func(c *dbstest.Checker, _ *dbstest.Job, _ func(schedkit.JobID) dbs.Job) error {
			return c.Tick(t0, []dbs.Decision{{Action: dbs.Demote, Job: "j", From: dbs.High, To: dbs.Low, Price: dbs.DefaultQueues[dbs.Low].Price}})
		}},
		{"wrong price", "price", func(c *dbstest.Checker, _ *dbstest.Job, _ func(schedkit.JobID) dbs.Job) error {
			return c.Tick(t0, []dbs.Decision{{Action: dbs.Demote, Job: "j", From: dbs.High, To: dbs.Mid, Price: high}})
		}},
		{"cost", "costs", func(c *dbstest.Checker, j *dbstest.Job, _ func(schedkit.JobID) dbs.Job) error {
			if err := c.Started("j", t0); err != nil {
				return err
			}
			j.Paid = high * 9 // 10 s at High's price are due
			return c.Cost(t0.Add(10*time.Second), j)
		}},
	} {
		c, j, look := setup()
		err := tc.run(c, j, look)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: %v, want an error with %q", tc.name, err, tc.want)
		}
	}
}
