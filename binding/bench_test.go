package binding

import (
	"cmp"
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"
	"time"

	"github.com/schedkit/schedkit"
)

// naiveTable is the paper's binding done the obvious way: per rack a slice
// of stacks (slices), re-sorted by (size, ID) on every change; node-level,
// unweighted, no rebalancing. It is the speed reference for the benchmarks
// and the oracle the property test compares stacks with in paper mode.
type naiveTable struct {
	racks   map[schedkit.RackID]*naiveRack
	rackOf  map[schedkit.NodeID]schedkit.RackID
	stackOf map[schedkit.NodeID]*naiveStack // NNode → its stack (nil: waiting)
	anodes  map[schedkit.NodeID]*naiveStack
}

type naiveRack struct {
	queue   []*naiveStack
	waiting []schedkit.NodeID
}

type naiveStack struct {
	id    schedkit.NodeID
	nodes []schedkit.NodeID // bottom first
}

func newNaive() *naiveTable {
	return &naiveTable{
		racks:   make(map[schedkit.RackID]*naiveRack),
		rackOf:  make(map[schedkit.NodeID]schedkit.RackID),
		stackOf: make(map[schedkit.NodeID]*naiveStack),
		anodes:  make(map[schedkit.NodeID]*naiveStack),
	}
}

func (r *naiveRack) sort() {
	slices.SortFunc(r.queue, func(a, b *naiveStack) int {
		if c := cmp.Compare(len(a.nodes), len(b.nodes)); c != 0 {
			return c
		}
		return cmp.Compare(a.id, b.id)
	})
}

// largest returns the first stack of the biggest size in the sorted queue.
func (r *naiveRack) largest() *naiveStack {
	i := len(r.queue) - 1
	for i > 0 && len(r.queue[i-1].nodes) == len(r.queue[i].nodes) {
		i--
	}
	return r.queue[i]
}

func (nt *naiveTable) rack(id schedkit.RackID) *naiveRack {
	r := nt.racks[id]
	if r == nil {
		r = &naiveRack{}
		nt.racks[id] = r
	}
	return r
}

func (nt *naiveTable) addNNode(id schedkit.NodeID, rack schedkit.RackID) {
	nt.rackOf[id] = rack
	nt.push(id)
}

func (nt *naiveTable) push(id schedkit.NodeID) {
	r := nt.rack(nt.rackOf[id])
	r.sort()
	if len(r.queue) == 0 {
		r.waiting = append(r.waiting, id)
		nt.stackOf[id] = nil
		return
	}
	s := r.queue[0]
	s.nodes = append(s.nodes, id)
	nt.stackOf[id] = s
	r.sort()
}

func (nt *naiveTable) addANode(id schedkit.NodeID, rack schedkit.RackID) {
	nt.rackOf[id] = rack
	r := nt.rack(rack)
	s := &naiveStack{id: id}
	nt.anodes[id] = s
	if len(r.queue) == 0 {
		for _, w := range r.waiting {
			s.nodes = append(s.nodes, w)
			nt.stackOf[w] = s
		}
		r.waiting = nil
	} else {
		for {
			r.sort()
			if len(s.nodes) >= len(r.queue[0].nodes) {
				break
			}
			l := r.largest()
			if len(l.nodes) == 0 {
				break
			}
			top := l.nodes[len(l.nodes)-1]
			l.nodes = l.nodes[:len(l.nodes)-1]
			s.nodes = append(s.nodes, top)
			nt.stackOf[top] = s
		}
	}
	r.queue = append(r.queue, s)
	r.sort()
}

// removeBatch removes nodes as one Table call does: NNodes first, then the
// ANodes' stacks are dissolved and their NNodes added again in order.
func (nt *naiveTable) removeBatch(ids ...schedkit.NodeID) {
	var readd []schedkit.NodeID
	for pass := 0; pass < 2; pass++ {
		for _, id := range ids {
			s, isA := nt.anodes[id]
			if isA != (pass == 1) {
				continue
			}
			r := nt.racks[nt.rackOf[id]]
			if isA {
				r.queue = slices.DeleteFunc(r.queue, func(x *naiveStack) bool { return x == s })
				readd = append(readd, s.nodes...)
				delete(nt.anodes, id)
			} else if st := nt.stackOf[id]; st != nil {
				st.nodes = slices.DeleteFunc(st.nodes, func(x schedkit.NodeID) bool { return x == id })
				delete(nt.stackOf, id)
			} else {
				r.waiting = slices.DeleteFunc(r.waiting, func(x schedkit.NodeID) bool { return x == id })
				delete(nt.stackOf, id)
			}
			r.sort()
			delete(nt.rackOf, id)
		}
	}
	for _, id := range readd {
		nt.push(id)
	}
}

func (nt *naiveTable) lookup(id schedkit.NodeID) (schedkit.NodeID, bool) {
	if _, ok := nt.anodes[id]; ok {
		return id, true
	}
	if s := nt.stackOf[id]; s != nil {
		return s.id, true
	}
	return "", false
}

// benchCluster is n nodes, one in four an ANode with one GPU, spread over
// racks of perRack nodes (perRack 0: one rack).
func benchCluster(n, perRack int) []NodeStatus {
	gpu := []schedkit.AcceleratorInfo{{ID: "gpu0", Kind: schedkit.AcceleratorGPU, Model: "K20m", Healthy: true}}
	st := make([]NodeStatus, n)
	for i := range st {
		rack := schedkit.RackID("r0")
		if perRack > 0 {
			rack = schedkit.RackID(fmt.Sprintf("r%03d", i/perRack))
		}
		st[i] = NodeStatus{ID: schedkit.NodeID(fmt.Sprintf("n%05d", i)), Rack: rack}
		if i%4 == 0 {
			st[i].Accelerators = gpu
		}
	}
	return st
}

var benchLayouts = []struct {
	name    string
	perRack int
}{{"rack=all", 0}, {"rack=40", 40}}

// BenchmarkAddRemove measures one change (alternately the removal of a
// random node and its return), for the Table and the naive re-sorting
// reference, on one rack holding every node and on racks of 40.
func BenchmarkAddRemove(b *testing.B) {
	now := time.Unix(0, 0)
	for _, n := range []int{100, 1000, 10000} {
		for _, l := range benchLayouts {
			st := benchCluster(n, l.perRack)
			order := rand.New(rand.NewPCG(1, 2)).Perm(n)
			b.Run(fmt.Sprintf("nodes=%d/%s/impl=table", n, l.name), func(b *testing.B) {
				t, _ := New(Config{})
				for _, s := range st {
					if _, err := t.Add(now, s); err != nil {
						b.Fatal(err)
					}
				}
				b.ReportAllocs()
				i := 0
				for b.Loop() {
					s := st[order[(i/2)%n]]
					var err error
					if i%2 == 0 {
						_, err = t.Remove(s.ID)
					} else {
						_, err = t.Add(now, s)
					}
					if err != nil {
						b.Fatal(err)
					}
					i++
				}
			})
			b.Run(fmt.Sprintf("nodes=%d/%s/impl=naive", n, l.name), func(b *testing.B) {
				nt := newNaive()
				add := func(s NodeStatus) {
					if len(s.Accelerators) > 0 {
						nt.addANode(s.ID, s.Rack)
					} else {
						nt.addNNode(s.ID, s.Rack)
					}
				}
				for _, s := range st {
					add(s)
				}
				b.ReportAllocs()
				i := 0
				for b.Loop() {
					s := st[order[(i/2)%n]]
					if i%2 == 0 {
						nt.removeBatch(s.ID)
					} else {
						add(s)
					}
					i++
				}
			})
		}
	}
}

// BenchmarkLookup measures Lookup of a random node at each size.
func BenchmarkLookup(b *testing.B) {
	now := time.Unix(0, 0)
	for _, n := range []int{100, 1000, 10000} {
		st := benchCluster(n, 40)
		ids := make([]schedkit.NodeID, 4096)
		r := rand.New(rand.NewPCG(3, 4))
		for i := range ids {
			ids[i] = st[r.IntN(n)].ID
		}
		b.Run(fmt.Sprintf("nodes=%d/impl=table", n), func(b *testing.B) {
			t, _ := New(Config{})
			for _, s := range st {
				if _, err := t.Add(now, s); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportAllocs()
			i := 0
			for b.Loop() {
				if _, ok := t.Lookup(ids[i&4095]); !ok {
					b.Fatal("lookup failed")
				}
				i++
			}
		})
		b.Run(fmt.Sprintf("nodes=%d/impl=sync", n), func(b *testing.B) {
			t, _ := NewSyncTable(Config{})
			for _, s := range st {
				if _, err := t.Add(now, s); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportAllocs()
			i := 0
			for b.Loop() {
				if _, ok := t.Lookup(ids[i&4095]); !ok {
					b.Fatal("lookup failed")
				}
				i++
			}
		})
	}
}

// BenchmarkHeartbeat measures a heartbeat that changes nothing but
// liveness (the common case) at 10,000 nodes.
func BenchmarkHeartbeat(b *testing.B) {
	st := benchCluster(10000, 40)
	t, _ := New(Config{})
	now := time.Unix(0, 0)
	for _, s := range st {
		if _, err := t.Add(now, s); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportAllocs()
	i := 0
	for b.Loop() {
		now = now.Add(time.Millisecond)
		if _, err := t.Heartbeat(now, st[i%len(st)]); err != nil {
			b.Fatal(err)
		}
		i++
	}
}
