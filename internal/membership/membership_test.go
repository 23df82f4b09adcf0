package membership

import (
	"testing"

	"github.com/schedkit/schedkit"
	"github.com/schedkit/schedkit/resource"
	"github.com/schedkit/schedkit/schedkittest"
)

// TestIndexFollowsTheCluster checks Has against a direct scan after every
// change to the cluster: nodes added, removed (the indices shift) and
// re-added.
func TestIndexFollowsTheCluster(t *testing.T) {
	space, err := resource.NewSpace(resource.Kind{Name: "slot", Integral: true})
	if err != nil {
		t.Fatal(err)
	}
	c := schedkittest.NewCluster(space)
	var x Index
	naive := func(id schedkit.NodeID) bool {
		for i := range c.Nodes() {
			if c.Node(i).ID() == id {
				return true
			}
		}
		return false
	}
	ids := []schedkit.NodeID{"a", "b", "c", "d"}
	check := func(step string) {
		t.Helper()
		for _, id := range append(ids, "stray") {
			if got, want := x.Has(c, id), naive(id); got != want {
				t.Fatalf("%s: Has(%q) = %v, want %v", step, id, got, want)
			}
		}
	}
	check("empty")
	for _, id := range ids {
		c.AddNode(id, "r", resource.Vector{2})
		check("add " + string(id))
	}
	c.RemoveNode("a")
	check("remove a (indices shift)")
	c.RemoveNode("d")
	check("remove d (the last)")
	c.AddNode("a", "r", resource.Vector{2})
	check("a back at the end")
}
