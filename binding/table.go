package binding

import (
	"fmt"
	"math"
	"time"

	"github.com/schedkit/schedkit"
	"github.com/schedkit/schedkit/internal/clock"
)

const none int32 = -1

type unitState uint8

const (
	unitDetached unitState = iota // in no list, bound nowhere (mid-operation)
	unitWaiting                   // in its rack's waiting list
	unitBound                     // on an ANode's stack
	unitSelf                      // an ANode's own unit, served by itself
	unitFree                      // slot unused
)

// unit is one bindable unit: a node, or one container of a node.
type unit struct {
	node      int32
	container int32
	anode     int32 // the stack it is on (unitBound) or its own node (unitSelf)
	prev      int32 // toward the bottom of the stack / the head of the waiting list
	next      int32 // toward the top / the tail
	state     unitState
	mvEpoch   uint64 // operation in which mv is valid
	mv        int32  // index of its entry in Table.scratch
	born      uint64 // operation that created it
}

// nodeRec is one live node; as an ANode it also holds its stack.
type nodeRec struct {
	id       schedkit.NodeID
	rack     int32
	used     bool
	anode    bool
	queued   bool // in its rack's push (and, if non-empty, donor) heap
	last     time.Time
	accels   []schedkit.AcceleratorInfo
	units    []int32 // unit slots, index = container
	capacity float64 // > 0 for an ANode (set whatever the role)
	head     int32   // bottom of the stack
	tail     int32   // top of the stack
	n        int32   // stack size
	own      float64 // own work counted in the load (Weighted only)
	keyLoad  float64 // (own + n) / capacity
	keyPush  float64 // (own + n + 1) / capacity
	pushPos  int32
	donorPos int32
	deadPos  int32
}

// rackRec is one rack: its queue of stacks (two heaps) and the units that
// wait while it has no ANode.
type rackRec struct {
	id       schedkit.RackID
	used     bool
	push     []int32
	donor    []int32
	waitHead int32
	waitTail int32
	waiting  int
	nodes    int
	units    int // NNode units (bound or waiting)
	touched  uint64
}

// Table is the binding table and accelerator status registry: the
// single-threaded core. It is not safe for concurrent use; SyncTable wraps
// it with a lock. Create one with New.
type Table struct {
	cfg     Config
	kindAll bool
	clock   clock.Clock // range only: staleness is per node (nodeRec.last)

	index map[schedkit.NodeID]int32
	nodes []nodeRec
	units []unit
	racks []rackRec

	freeNodes []int32
	freeUnits []int32
	freeRacks []int32
	rackIndex map[schedkit.RackID]int32
	dead      []int32

	// per-operation scratch
	epoch   uint64
	scratch []Move
	life    []uint8 // per scratch entry: unitCreated, unitFreed
	pending []int32
	touched []int32
}

// New returns an empty table for cfg.
func New(cfg Config) (*Table, error) {
	if err := cfg.validate(); err != nil {
		return nil, err
	}
	c := cfg.clone()
	return &Table{
		cfg:       c,
		kindAll:   len(c.Kinds) == 0,
		index:     make(map[schedkit.NodeID]int32),
		rackIndex: make(map[schedkit.RackID]int32),
	}, nil
}

// Config returns the table's configuration (Timeout filled in).
func (t *Table) Config() Config { return t.cfg.clone() }

// Add registers a node that has just joined (its first heartbeat, at now)
// and binds it: an NNode's units go onto the smallest stacks of its rack
// (or wait if the rack has no ANode); an ANode gets a new stack and takes
// NNodes from the largest stacks (paper §2.3, Figure 3). It returns the
// moves for the host to carry out. Adding a node the table holds is
// ErrDuplicateNode.
func (t *Table) Add(now time.Time, s NodeStatus) ([]Move, error) {
	capacity, err := t.check("Add", s)
	if err != nil {
		return nil, err
	}
	if _, ok := t.index[s.ID]; ok {
		return nil, &Error{Op: "Add", Node: s.ID, Err: ErrDuplicateNode}
	}
	r, err := t.checkTime("Add", s.ID, now)
	if err != nil {
		return nil, err
	}
	t.clock.Commit(r)
	t.begin()
	ni := t.allocNode(s.ID)
	n := &t.nodes[ni]
	n.last = now
	n.accels = append(n.accels[:0], s.Accelerators...)
	n.capacity = capacity
	n.rack = t.rackFor(s.Rack)
	t.racks[n.rack].nodes++
	t.hpush(&t.dead, deadHeap, ni)
	t.resizeDetached(ni, t.unitCount(s))
	t.join(ni)
	return t.finish(), nil
}

// Heartbeat records a heartbeat of a known node at now: its liveness and
// accelerator status. If the status changes the node's role (its last
// usable accelerator failed, or one recovered), its rack, its capacity
// (Weighted) or its container count (Containers), the binding follows: a
// role or rack change is a removal plus an add. A heartbeat from a node the
// table does not hold is ErrUnknownNode (the host should Add it); one
// dated before the node's previous heartbeat is ErrStaleTime.
func (t *Table) Heartbeat(now time.Time, s NodeStatus) ([]Move, error) {
	ni, ok := t.index[s.ID]
	if !ok {
		return nil, &Error{Op: "Heartbeat", Node: s.ID, Err: ErrUnknownNode}
	}
	capacity, err := t.check("Heartbeat", s)
	if err != nil {
		return nil, err
	}
	r, err := t.checkTime("Heartbeat", s.ID, now)
	if err != nil {
		return nil, err
	}
	if last := t.nodes[ni].last; now.Before(last) {
		return nil, &Error{Op: "Heartbeat", Node: s.ID, Err: ErrStaleTime,
			Reason: fmt.Sprintf("now %v is before %v, the node's previous heartbeat", now, last)}
	}
	t.clock.Commit(r)
	t.begin()
	n := &t.nodes[ni]
	n.last = now
	t.hfix(t.dead, deadHeap, int(n.deadPos))
	n.accels = append(n.accels[:0], s.Accelerators...)
	want := t.unitCount(s)
	if (capacity > 0) != n.anode || s.Rack != t.racks[n.rack].id {
		t.leave(ni)
		n = &t.nodes[ni]
		if s.Rack != t.racks[n.rack].id {
			t.touch(n.rack)
			t.releaseRack(n.rack)
			n.rack = t.rackFor(s.Rack)
			t.racks[n.rack].nodes++
		}
		n.capacity = capacity
		t.resizeDetached(ni, want)
		t.join(ni)
		return t.finish(), nil
	}
	if n.anode {
		t.resizeANode(ni, want)
		n = &t.nodes[ni]
		own := t.ownLoad(len(n.units))
		if capacity != n.capacity || own != n.own {
			n.capacity, n.own = capacity, own
			t.rekey(ni)
			t.touch(n.rack)
		}
	} else {
		n.capacity = 0
		t.resizeNNode(ni, want)
	}
	return t.finish(), nil
}

// Remove takes a node out of the table (decommissioned, or declared dead by
// the host): an NNode's units leave their stacks; an ANode's stack is
// dissolved and each of its NNodes is added again, bottom (oldest) first.
// Removing a node the table does not hold is ErrUnknownNode.
func (t *Table) Remove(id schedkit.NodeID) ([]Move, error) {
	ni, ok := t.index[id]
	if !ok {
		return nil, &Error{Op: "Remove", Node: id, Err: ErrUnknownNode}
	}
	t.begin()
	t.leave(ni)
	t.freeNode(ni)
	return t.finish(), nil
}

// Expire removes every node whose last heartbeat is at or before
// now − Timeout and returns them, oldest heartbeat first (ties by ID),
// with the moves. Within one call the dead NNodes leave first and the dead
// ANodes' stacks are dissolved after, so no NNode that died is rebound.
func (t *Table) Expire(now time.Time) (dead []schedkit.NodeID, moves []Move) {
	cut := now.Add(-t.cfg.Timeout)
	var idx []int32
	for len(t.dead) > 0 {
		ni := t.dead[0]
		if t.nodes[ni].last.After(cut) {
			break
		}
		t.hremove(&t.dead, deadHeap, 0)
		idx = append(idx, ni)
	}
	if len(idx) == 0 {
		return nil, nil
	}
	t.begin()
	dead = make([]schedkit.NodeID, len(idx))
	for i, ni := range idx {
		dead[i] = t.nodes[ni].id
	}
	for pass := 0; pass < 2; pass++ {
		for _, ni := range idx {
			if t.nodes[ni].anode == (pass == 1) {
				t.leave(ni)
				t.freeNode(ni)
			}
		}
	}
	return dead, t.finish()
}

// checkTime checks now against the table's time range (the shared rule
// of internal/clock; staleness is per node, checked by the caller) and
// returns the reading to commit once the call succeeds.
func (t *Table) checkTime(op string, id schedkit.NodeID, now time.Time) (clock.Reading, error) {
	r, f := t.clock.Peek(now)
	if f != clock.OK {
		return r, &Error{Op: op, Node: id, Err: ErrTimeRange, Reason: t.clock.Reason(f, now)}
	}
	return r, nil
}

// check validates a status for op and returns the node's capacity (0:
// NNode).
func (t *Table) check(op string, s NodeStatus) (float64, error) {
	bad := func(reason string, cause error) (float64, error) {
		return 0, &Error{Op: op, Node: s.ID, Reason: reason, Err: ErrInvalidNode, Cause: cause}
	}
	switch {
	case s.ID == "":
		return bad("empty node ID", nil)
	case s.Rack == "":
		return bad("empty rack", nil)
	case s.Containers < 0 || s.Containers > MaxContainers:
		return bad(fmt.Sprintf("container count %d outside [0, %d]", s.Containers, MaxContainers), nil)
	case len(s.Accelerators) > MaxAccelerators:
		return bad(fmt.Sprintf("%d accelerators, more than %d", len(s.Accelerators), MaxAccelerators), nil)
	}
	capacity := 0.0
	for i, a := range s.Accelerators {
		if err := a.Validate(); err != nil {
			return bad("", err)
		}
		for _, b := range s.Accelerators[:i] {
			if b.ID == a.ID {
				return bad(fmt.Sprintf("duplicate accelerator %q", a.ID), nil)
			}
		}
		if !a.Healthy || !t.selected(a.Kind) {
			continue
		}
		if !t.cfg.Weighted {
			capacity = 1
			continue
		}
		capacity += t.cfg.Weights.Weight(a)
	}
	if math.IsInf(capacity, 0) {
		return bad("summed accelerator weight overflows", nil)
	}
	return capacity, nil
}

func (t *Table) selected(k schedkit.AcceleratorKind) bool {
	if t.kindAll {
		return true
	}
	for _, s := range t.cfg.Kinds {
		if s == k {
			return true
		}
	}
	return false
}

func (t *Table) unitCount(s NodeStatus) int {
	if !t.cfg.Containers || s.Containers == 0 {
		return 1
	}
	return s.Containers
}

// ownLoad is the own work an ANode with u units counts in its load.
func (t *Table) ownLoad(u int) float64 {
	if !t.cfg.Weighted {
		return 0
	}
	return float64(u)
}
