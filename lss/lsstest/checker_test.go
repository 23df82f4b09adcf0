package lsstest_test

import (
	"strings"
	"testing"
	"time"

	"github.com/schedkit/schedkit"
	"github.com/schedkit/schedkit/lss"
	"github.com/schedkit/schedkit/lss/lsstest"
	"github.com/schedkit/schedkit/schedkittest"
)

// Each broken invariant is reported.
func TestCheckerCatches(t *testing.T) {
	cl := lsstest.NewCluster(2, 2, 1)
	n := cl.NodeList[0]
	j := schedkittest.NewJob("j", lsstest.T0, lsstest.T0.Add(time.Hour), 3, 1)
	lookup := func(id schedkit.JobID) schedkit.Job {
		if id == "j" {
			return j
		}
		return nil
	}
	as := func(count int, node schedkit.NodeID) lss.Decision {
		return lss.Decision{Action: lss.Assign, Job: "j", Node: node, Count: count, Pass: 2}
	}
	kill := lss.Decision{Action: lss.Kill, Job: "j"}
	for _, c := range []struct {
		name string
		ds   []lss.Decision
		want string
	}{
		{"fine", []lss.Decision{as(2, "n00")}, ""},
		{"slot twice", []lss.Decision{as(2, "n00"), as(1, "n00")}, "slot handed out twice"},
		{"task twice", []lss.Decision{as(2, "n00")}, "task started twice"}, // after the first "fine": 2+2 > 3 ready
		{"other node", []lss.Decision{as(1, "n01")}, "heartbeat was from node"},
		{"zero count", []lss.Decision{as(0, "n00")}, "count below 1"},
		{"assign after kill", []lss.Decision{kill, as(1, "n00")}, "killed in the same heartbeat"},
		{"kill of unqueued", []lss.Decision{kill}, "not queued"},
	} {
		check, err := lsstest.NewChecker(lss.Config{Cluster: cl})
		if err != nil {
			t.Fatal(err)
		}
		check.Submitted("j")
		if c.name == "task twice" {
			_ = check.Heartbeat(n, lookup, []lss.Decision{as(2, "n00")})
		}
		if c.name == "kill of unqueued" {
			check.Removed("j")
		}
		err = check.Heartbeat(n, lookup, c.ds)
		if (c.want == "") != (err == nil) || (err != nil && !strings.Contains(err.Error(), c.want)) {
			t.Errorf("%s: %v, want %q", c.name, err, c.want)
		}
	}
}
