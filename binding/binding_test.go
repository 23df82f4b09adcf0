package binding

import (
	"errors"
	"fmt"
	"math"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/schedkit/schedkit"
	"github.com/schedkit/schedkit/resource"
)

var t0 = time.Unix(1_000_000, 0)

func gpus(weights ...float64) []schedkit.AcceleratorInfo {
	as := make([]schedkit.AcceleratorInfo, len(weights))
	for i, w := range weights {
		as[i] = schedkit.AcceleratorInfo{ID: schedkit.AcceleratorID("gpu" + string(rune('0'+i))), Kind: schedkit.AcceleratorGPU, Weight: w, Healthy: true}
	}
	return as
}

func nnode(id schedkit.NodeID, rack schedkit.RackID) NodeStatus {
	return NodeStatus{ID: id, Rack: rack}
}

func anode(id schedkit.NodeID, rack schedkit.RackID) NodeStatus {
	return NodeStatus{ID: id, Rack: rack, Accelerators: gpus(0)}
}

func mustNew(t *testing.T, cfg Config) *Table {
	t.Helper()
	tab, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return tab
}

func mustAdd(t *testing.T, tab *Table, st NodeStatus) []Move {
	t.Helper()
	m, err := tab.Add(t0, st)
	if err != nil {
		t.Fatal(err)
	}
	return m
}

func mv(node schedkit.NodeID, c int, from, to schedkit.NodeID) Move {
	return Move{Unit: Unit{Node: node, Container: c}, From: from, To: to}
}

func units(ids ...schedkit.NodeID) []Unit {
	us := make([]Unit, len(ids))
	for i, id := range ids {
		us[i] = Unit{Node: id}
	}
	return us
}

func checkStacks(t *testing.T, tab *Table, want map[schedkit.NodeID][]Unit) {
	t.Helper()
	for a, w := range want {
		if got := tab.Stack(a, nil); !cmp.Equal(got, w) {
			t.Errorf("stack of %s = %v, want %v", a, got, w)
		}
	}
	if err := tab.checkInternal(); err != nil {
		t.Fatal(err)
	}
}

// TestFigure3 works the paper's Figure 3 by hand: a new ANode takes NNodes
// from the largest stacks, the most recent binding first, until it is as
// large as the smallest stack.
func TestFigure3(t *testing.T) {
	tab := mustNew(t, Config{})
	// Two ANodes, then seven NNodes: each NNode goes onto the smallest
	// stack, ties to the smaller ID, so a1 gets n1 n3 n5 n7, a2 n2 n4 n6.
	if got, want := mustAdd(t, tab, anode("a1", "r1")), []Move(nil); !cmp.Equal(got, want) {
		t.Fatalf("add a1: %v, want %v", got, want)
	}
	mustAdd(t, tab, anode("a2", "r1"))
	for _, id := range []schedkit.NodeID{"n1", "n2", "n3", "n4", "n5", "n6", "n7"} {
		mustAdd(t, tab, nnode(id, "r1"))
	}
	checkStacks(t, tab, map[schedkit.NodeID][]Unit{
		"a1": units("n1", "n3", "n5", "n7"),
		"a2": units("n2", "n4", "n6"),
	})
	// a3 joins: sizes 4, 3 and 0. 0 < 3: the largest is a1 (4), its top n7
	// moves. Sizes 3, 3, 1. 1 < 3: the largest are a1 and a2 (3), a1 by ID,
	// its top n5 moves. Sizes 2, 3, 2: a3 is as large as the smallest, done.
	got := mustAdd(t, tab, anode("a3", "r1"))
	want := []Move{mv("n7", 0, "a1", "a3"), mv("n5", 0, "a1", "a3")}
	if !cmp.Equal(got, want) {
		t.Fatalf("add a3: moves %v, want %v", got, want)
	}
	checkStacks(t, tab, map[schedkit.NodeID][]Unit{
		"a1": units("n1", "n3"),
		"a2": units("n2", "n4", "n6"),
		"a3": units("n7", "n5"),
	})
	if a, ok := tab.Lookup("n5"); a != "a3" || !ok {
		t.Errorf("Lookup(n5) = %q, %v", a, ok)
	}
	if a, ok := tab.Lookup("a2"); a != "a2" || !ok {
		t.Errorf("Lookup(a2) = %q, %v (an ANode serves itself)", a, ok)
	}
	// a1 dies: its stack is dissolved bottom first. n1 goes to the smallest
	// (a3, 2), then n3 to the smallest of 3, 3 (a2 by ID).
	got, err := tab.Remove("a1")
	if err != nil {
		t.Fatal(err)
	}
	want = []Move{mv("n1", 0, "a1", "a3"), mv("n3", 0, "a1", "a2")}
	if !cmp.Equal(got, want, cmpMoveSet) {
		t.Fatalf("remove a1: moves %v, want %v", got, want)
	}
	checkStacks(t, tab, map[schedkit.NodeID][]Unit{
		"a2": units("n2", "n4", "n6", "n3"),
		"a3": units("n7", "n5", "n1"),
	})
	// An NNode leaving is deleted from the middle of its stack; the paper
	// only re-sorts, no move.
	if got, _ := tab.Remove("n4"); !cmp.Equal(got, []Move{mv("n4", 0, "a2", "")}) {
		t.Fatalf("remove n4: %v", got)
	}
	checkStacks(t, tab, map[schedkit.NodeID][]Unit{"a2": units("n2", "n6", "n3")})
}

// cmpMoveSet compares move lists as sets (order is first-change order).
var cmpMoveSet = cmp.Transformer("set", func(ms []Move) map[Unit]Move {
	m := make(map[Unit]Move, len(ms))
	for _, x := range ms {
		m[x.Unit] = x
	}
	return m
})

// TestPaperClusters reproduces the bindings behind the paper's §3 result:
// on Cluster4-2 each GPU serves two nodes; on Cluster4-3 one GPU serves
// two nodes and the others one, so the slowest GPU is as loaded as on
// Cluster4-2.
func TestPaperClusters(t *testing.T) {
	for _, tc := range []struct {
		name    string
		anodes  int
		wantMax int // largest number of nodes one GPU serves (own + bound)
	}{
		{"Cluster4-2", 2, 2},
		{"Cluster4-3", 3, 2},
		{"Cluster4-4", 4, 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tab := mustNew(t, Config{})
			for i := 0; i < 4; i++ {
				id := schedkit.NodeID("node" + string(rune('1'+i)))
				if i < tc.anodes {
					mustAdd(t, tab, anode(id, "rack"))
				} else {
					mustAdd(t, tab, nnode(id, "rack"))
				}
			}
			hi := 0
			for _, l := range tab.Loads("rack", nil) {
				hi = max(hi, 1+l.Bound)
			}
			if hi != tc.wantMax {
				t.Errorf("busiest GPU serves %d nodes, want %d (%+v)", hi, tc.wantMax, tab.Loads("rack", nil))
			}
		})
	}
}

// TestWaitingRack: NNodes in a rack without an ANode wait, oldest first,
// and are all bound when an ANode joins; when the last ANode leaves they
// wait again. Racks never bind across.
func TestWaitingRack(t *testing.T) {
	tab := mustNew(t, Config{})
	mustAdd(t, tab, anode("a1", "r1"))
	mustAdd(t, tab, nnode("n1", "r2"))
	mustAdd(t, tab, nnode("n2", "r2"))
	if a, ok := tab.Lookup("n1"); ok {
		t.Fatalf("n1 bound to %q across racks", a)
	}
	if got := tab.Waiting("r2", nil); !cmp.Equal(got, units("n1", "n2")) {
		t.Fatalf("waiting %v", got)
	}
	got := mustAdd(t, tab, anode("a2", "r2"))
	want := []Move{mv("n1", 0, "", "a2"), mv("n2", 0, "", "a2")}
	if !cmp.Equal(got, want) {
		t.Fatalf("add a2: %v, want %v", got, want)
	}
	got, _ = tab.Remove("a2")
	want = []Move{mv("n1", 0, "a2", ""), mv("n2", 0, "a2", "")}
	if !cmp.Equal(got, want, cmpMoveSet) {
		t.Fatalf("remove a2: %v, want %v", got, want)
	}
	if got := tab.Waiting("r2", nil); !cmp.Equal(got, units("n1", "n2")) {
		t.Fatalf("waiting after removal %v", got)
	}
}

// TestHealthAndRack: an ANode whose GPUs all fail becomes an NNode (its
// NNodes rebound, itself bound elsewhere) and returns when one recovers; a
// rack change is a removal plus an add.
func TestHealthAndRack(t *testing.T) {
	tab := mustNew(t, Config{})
	mustAdd(t, tab, anode("a1", "r1"))
	mustAdd(t, tab, anode("a2", "r1"))
	mustAdd(t, tab, nnode("n1", "r1")) // a1
	mustAdd(t, tab, nnode("n2", "r1")) // a2
	sick := anode("a1", "r1")
	sick.Accelerators[0].Healthy = false
	got, err := tab.Heartbeat(t0.Add(time.Second), sick)
	if err != nil {
		t.Fatal(err)
	}
	// n1 re-added onto a2, then a1 itself as an NNode onto a2.
	want := []Move{mv("n1", 0, "a1", "a2"), mv("a1", 0, "a1", "a2")}
	if !cmp.Equal(got, want, cmpMoveSet) {
		t.Fatalf("a1 sick: %v, want %v", got, want)
	}
	if r, _ := tab.Role("a1"); r != NNode {
		t.Fatalf("a1 role %v", r)
	}
	checkStacks(t, tab, map[schedkit.NodeID][]Unit{"a2": units("n2", "n1", "a1")})
	// Recovery: a1 leaves a2's stack and joins as an ANode: sizes 2 and 0,
	// it takes the top of a2 (n1).
	got, _ = tab.Heartbeat(t0.Add(2*time.Second), anode("a1", "r1"))
	want = []Move{mv("a1", 0, "a2", "a1"), mv("n1", 0, "a2", "a1")}
	if !cmp.Equal(got, want, cmpMoveSet) {
		t.Fatalf("a1 healthy: %v, want %v", got, want)
	}
	// Rack change of n2: removal from r1, add to r3 (no ANode: waits).
	got, _ = tab.Heartbeat(t0.Add(3*time.Second), nnode("n2", "r3"))
	if want := []Move{mv("n2", 0, "a2", "")}; !cmp.Equal(got, want) {
		t.Fatalf("n2 to r3: %v, want %v", got, want)
	}
	if s, _ := tab.Node("n2"); s.Rack != "r3" {
		t.Fatalf("n2 rack %q", s.Rack)
	}
	checkStacks(t, tab, nil)
}

// TestExpire: nodes whose last heartbeat is Timeout old are removed, oldest
// first; dead NNodes are never rebound.
func TestExpire(t *testing.T) {
	tab := mustNew(t, Config{Timeout: 10 * time.Second})
	mustAdd(t, tab, anode("a1", "r1"))
	mustAdd(t, tab, anode("a2", "r1"))
	for _, id := range []schedkit.NodeID{"n1", "n2", "n3", "n4"} {
		mustAdd(t, tab, nnode(id, "r1"))
	} // a1: n1 n3, a2: n2 n4
	for _, id := range []schedkit.NodeID{"a2", "n1", "n2"} {
		st := nnode(id, "r1")
		if id == "a2" {
			st = anode(id, "r1")
		}
		if _, err := tab.Heartbeat(t0.Add(5*time.Second), st); err != nil {
			t.Fatal(err)
		}
	}
	if dead, moves := tab.Expire(t0.Add(9 * time.Second)); dead != nil || moves != nil {
		t.Fatalf("early expire: %v %v", dead, moves)
	}
	// At t0+10s a1, n3, n4 (last seen t0) are dead. n3 and n4 leave first,
	// then a1's stack (now only n1) is dissolved onto a2.
	dead, moves := tab.Expire(t0.Add(10 * time.Second))
	if want := []schedkit.NodeID{"a1", "n3", "n4"}; !cmp.Equal(dead, want) {
		t.Fatalf("dead %v, want %v", dead, want)
	}
	want := []Move{mv("n3", 0, "a1", ""), mv("n4", 0, "a2", ""), mv("n1", 0, "a1", "a2")}
	if !cmp.Equal(moves, want, cmpMoveSet) {
		t.Fatalf("moves %v, want %v", moves, want)
	}
	checkStacks(t, tab, map[schedkit.NodeID][]Unit{"a2": units("n2", "n1")})
	if _, err := tab.Heartbeat(t0.Add(11*time.Second), nnode("n3", "r1")); !errors.Is(err, ErrUnknownNode) {
		t.Fatalf("heartbeat of an expired node: %v", err)
	}
}

// TestRebalance: the paper leaves a rack unbalanced after removals;
// Rebalance moves the top of the largest stack onto the smallest.
func TestRebalance(t *testing.T) {
	build := func(cfg Config) *Table {
		tab := mustNew(t, cfg)
		mustAdd(t, tab, anode("a1", "r1"))
		mustAdd(t, tab, anode("a2", "r1"))
		for _, id := range []schedkit.NodeID{"n1", "n2", "n3", "n4", "n5", "n6"} {
			mustAdd(t, tab, nnode(id, "r1"))
		} // a1: n1 n3 n5, a2: n2 n4 n6
		return tab
	}
	paper := build(Config{})
	paper.Remove("n2")
	paper.Remove("n4")
	checkStacks(t, paper, map[schedkit.NodeID][]Unit{"a1": units("n1", "n3", "n5"), "a2": units("n6")})

	reb := build(Config{Rebalance: true})
	if got, _ := reb.Remove("n2"); len(got) != 1 { // 3 vs 2: balanced
		t.Fatalf("remove n2: %v", got)
	}
	got, _ := reb.Remove("n4") // 3 vs 1: n5, a1's most recent, moves
	if want := []Move{mv("n4", 0, "a2", ""), mv("n5", 0, "a1", "a2")}; !cmp.Equal(got, want) {
		t.Fatalf("remove n4: %v, want %v", got, want)
	}
	checkStacks(t, reb, map[schedkit.NodeID][]Unit{"a1": units("n1", "n3"), "a2": units("n6", "n5")})

	// With two stacks of one the rack {1, 1, 0} is already balanced, yet
	// the paper's ANode add moves one NNode (TestPaperAddLoopMoves says
	// when); Rebalance does not.
	p2 := mustNew(t, Config{})
	r2 := mustNew(t, Config{Rebalance: true})
	for _, tab := range []*Table{p2, r2} {
		mustAdd(t, tab, anode("a1", "r1"))
		mustAdd(t, tab, anode("a2", "r1"))
		mustAdd(t, tab, nnode("n1", "r1"))
		mustAdd(t, tab, nnode("n2", "r1"))
	}
	if got := mustAdd(t, p2, anode("a3", "r1")); len(got) != 1 {
		t.Errorf("paper: add a3 into 1,1: %v, want one move", got)
	}
	if got := mustAdd(t, r2, anode("a3", "r1")); len(got) != 0 {
		t.Errorf("rebalance: add a3 into 1,1: %v, want none", got)
	}
}

// TestWeighted: a V100 weighing 4 and a K20 weighing 1 in one rack. Each
// ANode's own node counts as one unit of load. A new NNode goes where
// (own + bound + 1) / capacity is least: the V100 takes the first four,
// (1+4)/4 = 1.25; the fifth sees V100 (1+4+1)/4 = 1.5 vs K20 (1+0+1)/1 = 2
// and still goes to the V100; the eighth ties at 2 and goes to the smaller
// ID.
func TestWeighted(t *testing.T) {
	tab := mustNew(t, Config{Weighted: true, Weights: WeightTable{"V100": 4, "K20m": 1}})
	fast := NodeStatus{ID: "fast", Rack: "r", Accelerators: []schedkit.AcceleratorInfo{{ID: "g", Kind: "gpu", Model: "V100", Healthy: true}}}
	slow := NodeStatus{ID: "slow", Rack: "r", Accelerators: []schedkit.AcceleratorInfo{{ID: "g", Kind: "gpu", Model: "K20m", Healthy: true}}}
	mustAdd(t, tab, fast)
	mustAdd(t, tab, slow)
	for _, id := range []schedkit.NodeID{"n1", "n2", "n3", "n4", "n5", "n6", "n7", "n8"} {
		mustAdd(t, tab, nnode(id, "r"))
	}
	want := []Load{
		{ANode: "fast", Bound: 7, Own: 1, Capacity: 4, Load: 2},
		{ANode: "slow", Bound: 1, Own: 1, Capacity: 1, Load: 2},
	}
	if got := tab.Loads("r", nil); !cmp.Equal(got, want) {
		t.Fatalf("loads %+v, want %+v", got, want)
	}
	// The V100 fails: its node becomes an NNode and the K20 serves all nine.
	sick := fast
	sick.Accelerators = []schedkit.AcceleratorInfo{{ID: "g", Kind: "gpu", Model: "V100"}}
	if _, err := tab.Heartbeat(t0, sick); err != nil {
		t.Fatal(err)
	}
	if got := tab.Loads("r", nil); len(got) != 1 || got[0].Bound != 9 {
		t.Fatalf("after V100 failure: %+v", got)
	}
}

// TestContainers: Cluster4-3 with four containers per node. The NNode's
// containers spread over the three GPUs instead of one GPU taking the
// whole node.
func TestContainers(t *testing.T) {
	tab := mustNew(t, Config{Containers: true})
	for _, id := range []schedkit.NodeID{"a1", "a2", "a3"} {
		st := anode(id, "r")
		st.Containers = 4
		mustAdd(t, tab, st)
	}
	got := mustAdd(t, tab, NodeStatus{ID: "n1", Rack: "r", Containers: 4})
	want := []Move{mv("n1", 0, "", "a1"), mv("n1", 1, "", "a2"), mv("n1", 2, "", "a3"), mv("n1", 3, "", "a1")}
	if !cmp.Equal(got, want) {
		t.Fatalf("add n1: %v, want %v", got, want)
	}
	if a, ok := tab.LookupContainer("n1", 2); a != "a3" || !ok {
		t.Fatalf("LookupContainer(n1, 2) = %q, %v", a, ok)
	}
	// Shrinking to two containers removes containers 2 and 3.
	got, _ = tab.Heartbeat(t0, NodeStatus{ID: "n1", Rack: "r", Containers: 2})
	want = []Move{mv("n1", 3, "a1", ""), mv("n1", 2, "a3", "")}
	if !cmp.Equal(got, want) {
		t.Fatalf("shrink: %v, want %v", got, want)
	}
	if err := tab.checkInternal(); err != nil {
		t.Fatal(err)
	}
}

// TestBadInput: every bad call returns a typed error wrapping the right
// sentinel and leaves the table exactly as it was.
func TestBadInput(t *testing.T) {
	nan := gpus(0)
	nan[0].Weight = math.NaN()
	neg := gpus(-1)
	inf := gpus(0)
	inf[0].Weight = math.Inf(1)
	badUtil := gpus(0)
	badUtil[0].Utilisation = 2
	dup := append(gpus(0), gpus(0)...)
	huge := gpus(math.MaxFloat64, math.MaxFloat64)

	for _, tc := range []struct {
		name string
		cfg  Config
		call func(*Table) error
		want error
	}{
		{"remove unknown node", Config{}, func(t *Table) error { _, err := t.Remove("nope"); return err }, ErrUnknownNode},
		{"duplicate add", Config{}, func(t *Table) error { _, err := t.Add(t0, nnode("n1", "r1")); return err }, ErrDuplicateNode},
		{"duplicate add as ANode in another rack", Config{}, func(t *Table) error { _, err := t.Add(t0, anode("n1", "r9")); return err }, ErrDuplicateNode},
		{"add with empty rack", Config{}, func(t *Table) error { _, err := t.Add(t0, nnode("n9", "")); return err }, ErrInvalidNode},
		{"add with empty ID", Config{}, func(t *Table) error { _, err := t.Add(t0, nnode("", "r1")); return err }, ErrInvalidNode},
		{"NaN weight", Config{}, func(t *Table) error {
			_, err := t.Add(t0, NodeStatus{ID: "n9", Rack: "r1", Accelerators: nan})
			return err
		}, ErrInvalidNode},
		{"negative weight", Config{}, func(t *Table) error {
			_, err := t.Add(t0, NodeStatus{ID: "n9", Rack: "r1", Accelerators: neg})
			return err
		}, ErrInvalidNode},
		{"infinite weight", Config{}, func(t *Table) error {
			_, err := t.Add(t0, NodeStatus{ID: "n9", Rack: "r1", Accelerators: inf})
			return err
		}, ErrInvalidNode},
		{"summed weight overflows", Config{Weighted: true}, func(t *Table) error {
			_, err := t.Add(t0, NodeStatus{ID: "n9", Rack: "r1", Accelerators: huge})
			return err
		}, ErrInvalidNode},
		{"utilisation above 1", Config{}, func(t *Table) error {
			_, err := t.Add(t0, NodeStatus{ID: "n9", Rack: "r1", Accelerators: badUtil})
			return err
		}, schedkit.ErrInvalidAccelerator},
		{"duplicate accelerator ID", Config{}, func(t *Table) error {
			_, err := t.Add(t0, NodeStatus{ID: "n9", Rack: "r1", Accelerators: dup})
			return err
		}, ErrInvalidNode},
		{"negative containers", Config{Containers: true}, func(t *Table) error {
			_, err := t.Add(t0, NodeStatus{ID: "n9", Rack: "r1", Containers: -1})
			return err
		}, ErrInvalidNode},
		{"too many containers", Config{Containers: true}, func(t *Table) error {
			_, err := t.Add(t0, NodeStatus{ID: "n9", Rack: "r1", Containers: MaxContainers + 1})
			return err
		}, ErrInvalidNode},
		{"heartbeat of unknown node", Config{}, func(t *Table) error { _, err := t.Heartbeat(t0, nnode("n9", "r1")); return err }, ErrUnknownNode},
		{"heartbeat from the past", Config{}, func(t *Table) error { _, err := t.Heartbeat(t0.Add(-time.Nanosecond), nnode("n1", "r1")); return err }, ErrStaleTime},
		{"heartbeat from the past changing rack", Config{}, func(t *Table) error { _, err := t.Heartbeat(t0.Add(-time.Hour), anode("n1", "r2")); return err }, ErrStaleTime},
		{"heartbeat with empty rack", Config{}, func(t *Table) error { _, err := t.Heartbeat(t0, nnode("a1", "")); return err }, ErrInvalidNode},
		{"heartbeat with NaN weight", Config{Weighted: true}, func(t *Table) error {
			_, err := t.Heartbeat(t0, NodeStatus{ID: "a1", Rack: "r1", Accelerators: nan})
			return err
		}, ErrInvalidNode},
	} {
		t.Run(tc.name, func(t *testing.T) {
			h := newHarness(t, tc.cfg)
			h.add(t0, anode("a1", "r1"))
			h.add(t0, nnode("n1", "r1"))
			h.add(t0, nnode("n2", "r2"))
			before := h.snap(true)
			err := tc.call(h.tab)
			if !errors.Is(err, tc.want) {
				t.Fatalf("error %v, want %v", err, tc.want)
			}
			var be *Error
			if !errors.As(err, &be) || be.Err == nil {
				t.Fatalf("error %T is not a *binding.Error", err)
			}
			if after := h.snap(true); after.dump != before.dump {
				t.Fatalf("state changed:\n%s", cmp.Diff(before.dump, after.dump))
			}
			if err := h.tab.checkInternal(); err != nil {
				t.Fatal(err)
			}
		})
	}
}

func TestBadConfig(t *testing.T) {
	for _, tc := range []struct {
		name string
		cfg  Config
	}{
		{"negative timeout", Config{Timeout: -time.Second}},
		{"empty kind", Config{Kinds: []schedkit.AcceleratorKind{""}}},
		{"weights without Weighted", Config{Weights: WeightTable{"V100": 2}}},
		{"NaN table weight", Config{Weighted: true, Weights: WeightTable{"V100": math.NaN()}}},
		{"negative table weight", Config{Weighted: true, Weights: WeightTable{"V100": -2}}},
		{"infinite table weight", Config{Weighted: true, Weights: WeightTable{"V100": math.Inf(1)}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tab, err := New(tc.cfg)
			if tab != nil || !errors.Is(err, ErrConfig) {
				t.Fatalf("New = %v, %v; want ErrConfig", tab, err)
			}
			if _, err := NewSyncTable(tc.cfg); !errors.Is(err, ErrConfig) {
				t.Fatalf("NewSyncTable: %v", err)
			}
		})
	}
	tab := mustNew(t, Config{})
	if got := tab.Config().Timeout; got != DefaultTimeout {
		t.Errorf("default timeout %v", got)
	}
}

// TestKinds: with Kinds = GPU only, a node with only a MIC is an NNode.
func TestKinds(t *testing.T) {
	tab := mustNew(t, Config{Kinds: []schedkit.AcceleratorKind{schedkit.AcceleratorGPU}})
	mustAdd(t, tab, anode("a1", "r"))
	mustAdd(t, tab, NodeStatus{ID: "m1", Rack: "r", Accelerators: []schedkit.AcceleratorInfo{{ID: "mic0", Kind: schedkit.AcceleratorMIC, Healthy: true}}})
	if r, _ := tab.Role("m1"); r != NNode {
		t.Fatalf("MIC-only node is %v", r)
	}
	if s, _ := tab.Node("m1"); len(s.Accelerators) != 1 || s.Accelerators[0].Kind != schedkit.AcceleratorMIC {
		t.Fatalf("registry lost the MIC: %+v", s)
	}
}

type hostNode struct{ acc []schedkit.AcceleratorInfo }

var _ schedkit.Node = (*hostNode)(nil)

func (*hostNode) ID() schedkit.NodeID                        { return "h1" }
func (*hostNode) Rack() schedkit.RackID                      { return "r1" }
func (*hostNode) Capacity() resource.Vector                  { return nil }
func (*hostNode) Available() resource.Vector                 { return nil }
func (h *hostNode) Accelerators() []schedkit.AcceleratorInfo { return h.acc }

func TestStatusOf(t *testing.T) {
	st := StatusOf(&hostNode{acc: gpus(2)})
	if st.ID != "h1" || st.Rack != "r1" || len(st.Accelerators) != 1 {
		t.Fatalf("StatusOf = %+v", st)
	}
}

// Removing and re-adding an ANode moves its NNodes away and back; a host
// that applies both calls' moves at once nets them with Coalesce and
// moves nothing. New ANodes' own units never show as moves.
func TestCoalesceRemoveReAdd(t *testing.T) {
	tab := mustNew(t, Config{})
	mustAdd(t, tab, anode("a1", "r1"))
	mustAdd(t, tab, anode("a2", "r1"))
	for _, n := range []schedkit.NodeID{"n1", "n2", "n3", "n4"} {
		mustAdd(t, tab, nnode(n, "r1"))
	}
	removed, err := tab.Remove("a2")
	if err != nil {
		t.Fatal(err)
	}
	added := mustAdd(t, tab, anode("a2", "r1"))
	if len(removed) != 2 || len(added) != 2 {
		t.Fatalf("remove %v, re-add %v: want two moves each", removed, added)
	}
	if got := Coalesce(removed, added); got != nil {
		t.Fatalf("Coalesce = %v, want nothing", got)
	}
	// A chain nets to its ends, in first-move order.
	a := []Move{mv("n1", 0, "a1", "a2"), mv("n2", 0, "", "a1")}
	b := []Move{mv("n2", 0, "a1", "a3"), mv("n1", 0, "a2", "a3")}
	if got, want := Coalesce(a, b), []Move{mv("n1", 0, "a1", "a3"), mv("n2", 0, "", "a3")}; !cmp.Equal(got, want) {
		t.Fatalf("Coalesce = %v, want %v", got, want)
	}
}

func TestErrorTexts(t *testing.T) {
	tab := mustNew(t, Config{})
	_, err1 := tab.Add(t0, NodeStatus{ID: "x"})
	_, err2 := tab.Add(t0, NodeStatus{ID: "g", Rack: "r", Accelerators: []schedkit.AcceleratorInfo{{ID: "gpu0", Kind: schedkit.AcceleratorGPU, Weight: -1}}})
	_, err3 := New(Config{Weights: WeightTable{"K20": 1}})
	for err, want := range map[error]string{
		err1: `binding: Add: node "x": invalid node: empty rack`,
		err2: `binding: Add: node "g": invalid node: invalid accelerator info: gpu0: weight -1`,
		err3: `binding: New: invalid config: weight table without Weighted`,
	} {
		if err == nil || err.Error() != want {
			t.Errorf("error %v\nwant  %s", err, want)
		}
	}
}

// Time: staleness is per node (heartbeats of different nodes arrive in
// any order), range is the shared 2⁶⁰ ns from the first accepted time.
// Refused times change nothing.
func TestTimeRule(t *testing.T) {
	h := newHarness(t, Config{})
	tab := h.tab
	h.add(t0, anode("a1", "r1"))
	h.heartbeat(t0.Add(time.Minute), anode("a1", "r1"))
	// Another node may be added and heartbeat at an earlier time.
	h.add(t0.Add(time.Second), nnode("n1", "r1"))
	h.heartbeat(t0.Add(2*time.Second), nnode("n1", "r1"))
	far := t0.Add(1<<60 + time.Hour)
	for name, tc := range map[string]struct {
		call func() ([]Move, error)
		want error
		text string
	}{
		"stale": {func() ([]Move, error) { return tab.Heartbeat(t0, anode("a1", "r1")) }, ErrStaleTime,
			fmt.Sprintf(`binding: Heartbeat: node "a1": time before an earlier call: now %v is before %v, the node's previous heartbeat`, t0, t0.Add(time.Minute))},
		"add far":       {func() ([]Move, error) { return tab.Add(far, nnode("n2", "r1")) }, ErrTimeRange, ""},
		"heartbeat far": {func() ([]Move, error) { return tab.Heartbeat(far, nnode("n1", "r1")) }, ErrTimeRange, ""},
		"zero time":     {func() ([]Move, error) { return tab.Add(time.Time{}, nnode("n2", "r1")) }, ErrTimeRange, ""},
	} {
		before := h.snap(true).dump
		moves, err := tc.call()
		var be *Error
		if !errors.Is(err, tc.want) || !errors.As(err, &be) || moves != nil {
			t.Errorf("%s: %v, %v; want %v", name, moves, err, tc.want)
		}
		if tc.text != "" && err.Error() != tc.text {
			t.Errorf("%s: text %q\nwant %q", name, err, tc.text)
		}
		if after := h.snap(true).dump; after != before {
			t.Errorf("%s: state changed:\n%s", name, cmp.Diff(before, after))
		}
	}
}

func TestStatusOfTypedNil(t *testing.T) {
	var n *nilNode
	tab := mustNew(t, Config{})
	if _, err := tab.Add(t0, StatusOf(n)); !errors.Is(err, ErrInvalidNode) {
		t.Fatalf("typed nil node: %v", err)
	}
}

type nilNode struct{ schedkit.Node }
