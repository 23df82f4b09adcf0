package dbs_test

import (
	"errors"
	"fmt"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/schedkit/schedkit"
	"github.com/schedkit/schedkit/dbs"
	"github.com/schedkit/schedkit/resource"
)

// scanOnly hides a Cluster's schedkit.NodeLookup: dbs then finds nodes by
// their remembered index and rescans the cluster for an ID not there, the
// reference the NodeLookup path is measured against.
type scanOnly struct{ schedkit.Cluster }

// TestStaleNodeValueRefused: a node value with a cluster node's ID but a
// capacity the cluster's node does not have (a value taken before the
// node was resized) is refused with ErrInvalidNode, and the scheduler
// decides afterwards as a twin that never saw it.
func TestStaleNodeValueRefused(t *testing.T) {
	c := newCluster(2, 2, 1)
	var twins [2]*dbs.Scheduler
	for i := range twins {
		s, err := dbs.New(dbs.Config{Cluster: c, DefaultTaskTime: 20 * sec})
		if err != nil {
			t.Fatal(err)
		}
		if err := s.Submit(t0, mrJob("j", 1, 30, 2, 600*sec, 0)); err != nil {
			t.Fatal(err)
		}
		twins[i] = s
	}
	stale := &hNode{Key: "n00", RackName: "rack0", Cap: resource.Vector{20, 1}, Free: resource.Vector{20, 1}}
	ds, err := twins[0].Heartbeat(t0.Add(sec), stale, nil)
	const want = `dbs: Heartbeat: node "n00": invalid node: capacity of "map-slot" is 20, the cluster's node of this ID has 2 (a stale node value?)`
	if !errors.Is(err, dbs.ErrInvalidNode) || err.Error() != want || len(ds) != 0 {
		t.Fatalf("stale node value: %v, %v\nwant %s", ds, err, want)
	}
	var got [2][]dbs.Decision
	for i, s := range twins {
		if got[i], err = s.Heartbeat(t0.Add(sec), c.NodeList[0], nil); err != nil {
			t.Fatal(err)
		}
	}
	if d := cmp.Diff(got[1], got[0]); d != "" || len(got[0]) == 0 {
		t.Errorf("after the refused heartbeat (-twin +refused):\n%s", d)
	}
}

// TestUnknownNodeNoRescan: heartbeats of a node the cluster does not
// hold are refused with ErrUnknownNode without a rescan of the cluster
// when the Cluster implements schedkit.NodeLookup (schedkittest's does);
// with NodeLookup hidden, each one rescans (the reference path), and
// both refuse alike.
func TestUnknownNodeNoRescan(t *testing.T) {
	c := newCluster(50, 2, 1)
	stranger := &hNode{Key: "stranger", RackName: "rack0", Cap: resource.Vector{2, 1}, Free: resource.Vector{2, 1}}
	const want = `dbs: Heartbeat: node "stranger": unknown node ID: none of the cluster's 50 nodes has this ID`
	for name, cl := range map[string]schedkit.Cluster{"lookup": c, "scan": scanOnly{c}} {
		s, err := dbs.New(dbs.Config{Cluster: cl})
		if err != nil {
			t.Fatal(err)
		}
		for i := range 10 {
			if _, err := s.Heartbeat(t0, c.NodeList[i], nil); err != nil {
				t.Fatal(err)
			}
			if _, err := s.Heartbeat(t0, stranger, nil); !errors.Is(err, dbs.ErrUnknownNode) || err.Error() != want {
				t.Fatalf("%s: %v\nwant %s", name, err, want)
			}
		}
		switch scans := dbs.MembershipScans(s); {
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
	c := newCluster(10000, 2, 1)
	stranger := &hNode{Key: "stranger", RackName: "rack0", Cap: resource.Vector{2, 1}, Free: resource.Vector{2, 1}}
	for name, cl := range map[string]schedkit.Cluster{"lookup": c, "scan": scanOnly{c}} {
		b.Run(fmt.Sprintf("%s/nodes=%d", name, c.Nodes()), func(b *testing.B) {
			s, err := dbs.New(dbs.Config{Cluster: cl})
			if err != nil {
				b.Fatal(err)
			}
			if _, err := s.Heartbeat(t0, c.NodeList[0], nil); err != nil {
				b.Fatal(err)
			}
			b.ReportAllocs()
			for b.Loop() {
				if _, err := s.Heartbeat(t0, stranger, nil); !errors.Is(err, dbs.ErrUnknownNode) {
					b.Fatal(err)
				}
			}
		})
	}
}
