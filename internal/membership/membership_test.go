package membership

import (
	"math/rand/v2"
	"testing"

	"github.com/schedkit/schedkit"
	"github.com/schedkit/schedkit/resource"
	"github.com/schedkit/schedkit/schedkittest"
)

// scanOnly hides a Cluster's NodeLookup: the Index falls back to its
// remembered positions and rescans.
type scanOnly struct{ schedkit.Cluster }

// naiveNode is the reference: a scan of the cluster for id.
func naiveNode(c schedkit.Cluster, id schedkit.NodeID) (schedkit.Node, bool) {
	for i := range c.Nodes() {
		if n := c.Node(i); n.ID() == id {
			return n, true
		}
	}
	return nil, false
}

// TestIndexFollowsTheCluster checks Node against a direct scan after
// every change to the cluster — nodes added, removed (the indices shift)
// and re-added, at random — both through the cluster's NodeLookup and,
// with it hidden, through the remembered positions; and that the first
// never rescans (the counter the fast path is proved by).
func TestIndexFollowsTheCluster(t *testing.T) {
	space, err := resource.NewSpace(resource.Kind{Name: "slot", Integral: true})
	if err != nil {
		t.Fatal(err)
	}
	c := schedkittest.NewCluster(space)
	var fast, slow Index
	ids := []schedkit.NodeID{"a", "b", "c", "d", "e", "f"}
	check := func(step int) {
		t.Helper()
		for _, id := range append(ids, "stray") {
			want, wok := naiveNode(c, id)
			for name, got := range map[string]func() (schedkit.Node, bool){
				"lookup": func() (schedkit.Node, bool) { return fast.Node(c, id) },
				"scan":   func() (schedkit.Node, bool) { return slow.Node(scanOnly{c}, id) },
			} {
				n, ok := got()
				if ok != wok || n != want {
					t.Fatalf("step %d, %s: Node(%q) = %v, %v; want %v, %v", step, name, id, n, ok, want, wok)
				}
			}
		}
	}
	rng := rand.New(rand.NewPCG(1, 2))
	for step := range 400 {
		id := ids[rng.IntN(len(ids))]
		if c.Lookup(id) != nil {
			c.RemoveNode(id)
		} else {
			c.AddNode(id, "r", resource.Vector{2})
		}
		check(step)
	}
	if fast.Scans() != 0 || fast.Lookups() == 0 {
		t.Errorf("through NodeLookup: %d scans, %d lookups; want 0 scans", fast.Scans(), fast.Lookups())
	}
	if slow.Scans() == 0 {
		t.Error("with NodeLookup hidden: no scan")
	}
}

func TestCapacityDiffers(t *testing.T) {
	space, err := resource.NewSpace(resource.MapSlot, resource.ReduceSlot)
	if err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		got, want resource.Vector
		why       string
	}{
		{resource.Vector{2, 1}, resource.Vector{2, 1}, ""},
		{resource.Vector{20, 1}, resource.Vector{2, 1}, `capacity of "map-slot" is 20, the cluster's node of this ID has 2 (a stale node value?)`},
		{resource.Vector{2}, resource.Vector{2, 1}, "capacity has 1 elements, the cluster's node of this ID 2"},
	} {
		if got := CapacityDiffers(space, tt.got, tt.want); got != tt.why {
			t.Errorf("CapacityDiffers(%v, %v) = %q, want %q", tt.got, tt.want, got, tt.why)
		}
	}
}
