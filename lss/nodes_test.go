package lss_test

import (
	"errors"
	"fmt"
	"testing"

	"github.com/schedkit/schedkit"
	"github.com/schedkit/schedkit/lss"
	"github.com/schedkit/schedkit/resource"
)

// scanOnly hides a Cluster's schedkit.NodeLookup: lss then finds nodes by
// their remembered index and rescans the cluster for an ID not there, the
// reference the NodeLookup path is measured against.
type scanOnly struct{ schedkit.Cluster }

// TestStaleNodeValueRefused: a node value with a cluster node's ID but a
// capacity the cluster's node does not have (a value taken before the
// node was resized) is refused with ErrInvalidNode, and the scheduler
// decides afterwards as a twin that never saw it.
func TestStaleNodeValueRefused(t *testing.T) {
	both(t, func(t *testing.T, lit bool) {
		cl := newCluster(2, 2, 1, 0)
		s := mustNew(t, lss.Config{Cluster: cl, Literal: lit})
		twin := mustNew(t, lss.Config{Cluster: cl, Literal: lit})
		j := func() *hostJob { return newJob("j", t0, t0.Add(600*sec), 30, 1) }
		mustSubmit(t, s, t0, j())
		mustSubmit(t, twin, t0, j())
		stale := &hostNode{Key: "n00", RackName: "rack0", Cap: resource.Vector{8, 20, 1, 0}, Free: resource.Vector{8, 20, 1, 0}}
		ds, err := s.Heartbeat(t0.Add(sec), stale, nil)
		const want = `lss: Heartbeat: node "n00": invalid node: capacity of "map-slot" is 20, the cluster's node of this ID has 2 (a stale node value?)`
		if !errors.Is(err, lss.ErrInvalidNode) || err.Error() != want || len(ds) != 0 {
			t.Fatalf("stale node value: %v, %v\nwant %s", ds, err, want)
		}
		n := cl.NodeList[0]
		expect(t, heartbeat(t, s, t0.Add(sec), n), lines(heartbeat(t, twin, t0.Add(sec), n)))
	})
}

// TestUnknownNodeNoRescan: heartbeats of a node the cluster does not
// hold are refused with ErrUnknownNode without a rescan of the cluster
// when the Cluster implements schedkit.NodeLookup (schedkittest's does);
// with NodeLookup hidden, each one rescans (the reference path), and
// both refuse alike.
func TestUnknownNodeNoRescan(t *testing.T) {
	cl := newCluster(50, 2, 1, 0)
	stranger := &hostNode{Key: "stranger", RackName: "rack0", Cap: cl.NodeList[0].Cap.Clone(), Free: cl.NodeList[0].Free.Clone()}
	const want = `lss: Heartbeat: node "stranger": unknown node ID: none of the cluster's 50 nodes has this ID`
	for name, c := range map[string]schedkit.Cluster{"lookup": cl, "scan": scanOnly{cl}} {
		s := mustNew(t, lss.Config{Cluster: c})
		for i := range 10 {
			if _, err := s.Heartbeat(t0.Add(sec), cl.NodeList[i], nil); err != nil {
				t.Fatal(err)
			}
			if _, err := s.Heartbeat(t0.Add(sec), stranger, nil); !errors.Is(err, lss.ErrUnknownNode) || err.Error() != want {
				t.Fatalf("%s: %v\nwant %s", name, err, want)
			}
		}
		switch scans := lss.MembershipScans(s); {
		case name == "lookup" && scans != 0:
			t.Errorf("with NodeLookup: %d rescans of the cluster, want 0", scans)
		case name == "scan" && scans < 10:
			t.Errorf("with NodeLookup hidden: %d rescans, want one per unknown heartbeat at least", scans)
		}
	}
}

// BenchmarkHeartbeatUnknownNode measures the refusal of a heartbeat from
// a node the cluster does not hold, at 10,000 nodes: O(1) through the
// cluster's NodeLookup, against the reference that rescans the cluster
// (NodeLookup hidden).
func BenchmarkHeartbeatUnknownNode(b *testing.B) {
	cl := newCluster(10000, 2, 1, 0)
	stranger := &hostNode{Key: "stranger", RackName: "rack0", Cap: cl.NodeList[0].Cap.Clone(), Free: cl.NodeList[0].Free.Clone()}
	for name, c := range map[string]schedkit.Cluster{"lookup": cl, "scan": scanOnly{cl}} {
		b.Run(fmt.Sprintf("%s/nodes=%d", name, cl.Nodes()), func(b *testing.B) {
			s, err := lss.New(lss.Config{Cluster: c})
			if err != nil {
				b.Fatal(err)
			}
			if _, err := s.Heartbeat(t0, cl.NodeList[0], nil); err != nil {
				b.Fatal(err)
			}
			b.ReportAllocs()
			for b.Loop() {
				if _, err := s.Heartbeat(t0, stranger, nil); !errors.Is(err, lss.ErrUnknownNode) {
					b.Fatal(err)
				}
			}
		})
	}
}
