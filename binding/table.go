package binding

import (
	"fmt"
	"math"
	"time"

	"github.com/schedkit/schedkit"
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
	pending []int32
	touched []int32
}

// New returns an empty table for cfg.
func New(cfg Config) (*Table, error) {
	if err := cfg.validate(); err != nil {
		return nil, newErr("New", "", err)
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
	capacity, err := t.check(s)
	if err != nil {
		return nil, newErr("Add", s.ID, err)
	}
	if _, ok := t.index[s.ID]; ok {
		return nil, newErr("Add", s.ID, ErrDuplicateNode)
	}
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
// dated before the node's previous heartbeat is ErrStaleHeartbeat.
func (t *Table) Heartbeat(now time.Time, s NodeStatus) ([]Move, error) {
	ni, ok := t.index[s.ID]
	if !ok {
		return nil, newErr("Heartbeat", s.ID, ErrUnknownNode)
	}
	capacity, err := t.check(s)
	if err != nil {
		return nil, newErr("Heartbeat", s.ID, err)
	}
	if now.Before(t.nodes[ni].last) {
		return nil, newErr("Heartbeat", s.ID, fmt.Errorf("%w: %v before %v", ErrStaleHeartbeat, now, t.nodes[ni].last))
	}
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
		return nil, newErr("Remove", id, ErrUnknownNode)
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

// check validates a status and returns the node's capacity (0: NNode).
func (t *Table) check(s NodeStatus) (float64, error) {
	switch {
	case s.ID == "":
		return 0, fmt.Errorf("%w: empty node ID", ErrInvalidNode)
	case s.Rack == "":
		return 0, ErrEmptyRack
	case s.Containers < 0 || s.Containers > MaxContainers:
		return 0, fmt.Errorf("%w: container count %d outside [0, %d]", ErrInvalidNode, s.Containers, MaxContainers)
	case len(s.Accelerators) > MaxAccelerators:
		return 0, fmt.Errorf("%w: %d accelerators, more than %d", ErrInvalidNode, len(s.Accelerators), MaxAccelerators)
	}
	capacity := 0.0
	for i, a := range s.Accelerators {
		if err := a.Validate(); err != nil {
			if !validWeight(a.Weight) {
				return 0, fmt.Errorf("%w: %w", ErrInvalidWeight, err)
			}
			return 0, fmt.Errorf("%w: %w", ErrInvalidNode, err)
		}
		for _, b := range s.Accelerators[:i] {
			if b.ID == a.ID {
				return 0, fmt.Errorf("%w: duplicate accelerator %q", ErrInvalidNode, a.ID)
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
		return 0, fmt.Errorf("%w: summed weight overflows", ErrInvalidWeight)
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

// ---- operation framing ----

func (t *Table) begin() {
	t.epoch++
	t.scratch = t.scratch[:0]
	t.pending = t.pending[:0]
	t.touched = t.touched[:0]
}

// finish binds the pending units, rebalances the touched racks if asked,
// and returns the net moves.
func (t *Table) finish() []Move {
	for _, ui := range t.pending {
		t.pushUnit(ui)
	}
	if t.cfg.Rebalance {
		for _, r := range t.touched {
			if t.racks[r].used {
				t.rebalance(r)
			}
		}
	}
	k := 0
	for i := range t.scratch {
		if t.scratch[i].From != t.scratch[i].To {
			k++
		}
	}
	if k == 0 {
		return nil
	}
	out := make([]Move, 0, k)
	for _, m := range t.scratch {
		if m.From != m.To {
			out = append(out, m)
		}
	}
	return out
}

func (t *Table) touch(r int32) {
	rk := &t.racks[r]
	if rk.touched != t.epoch {
		rk.touched = t.epoch
		t.touched = append(t.touched, r)
	}
}

// record notes that unit ui's binding changes from → to.
func (t *Table) record(ui int32, from, to schedkit.NodeID) {
	u := &t.units[ui]
	if u.mvEpoch == t.epoch {
		t.scratch[u.mv].To = to
		return
	}
	if from == to {
		return
	}
	u.mvEpoch = t.epoch
	u.mv = int32(len(t.scratch))
	t.scratch = append(t.scratch, Move{
		Unit: Unit{Node: t.nodes[u.node].id, Container: int(u.container)},
		From: from, To: to,
	})
}

// ---- slots ----

// takeSlot returns the index of a record to reuse: the last one on the
// free list, or a new zero record appended to recs. The caller
// initialises it; the old contents are there so it can keep slices'
// storage.
func takeSlot[T any](recs *[]T, free *[]int32) int32 {
	if k := len(*free); k > 0 {
		i := (*free)[k-1]
		*free = (*free)[:k-1]
		return i
	}
	var zero T
	*recs = append(*recs, zero)
	return int32(len(*recs) - 1)
}

func (t *Table) allocNode(id schedkit.NodeID) int32 {
	ni := takeSlot(&t.nodes, &t.freeNodes)
	n := &t.nodes[ni]
	*n = nodeRec{
		id: id, used: true, rack: none,
		accels: n.accels[:0], units: n.units[:0],
		head: none, tail: none, pushPos: -1, donorPos: -1, deadPos: -1,
	}
	t.index[id] = ni
	return ni
}

// freeNode releases a node that has left (its units already detached).
func (t *Table) freeNode(ni int32) {
	n := &t.nodes[ni]
	if n.deadPos >= 0 {
		t.hremove(&t.dead, deadHeap, int(n.deadPos))
	}
	for _, ui := range n.units {
		t.freeUnit(ui)
	}
	n.units = n.units[:0]
	t.releaseRack(n.rack)
	delete(t.index, n.id)
	n.used = false
	n.id = ""
	clear(n.accels)
	n.accels = n.accels[:0]
	t.freeNodes = append(t.freeNodes, ni)
}

func (t *Table) allocUnit(ni int32, c int) int32 {
	ui := takeSlot(&t.units, &t.freeUnits)
	t.units[ui] = unit{node: ni, container: int32(c), anode: none, prev: none, next: none, state: unitDetached}
	return ui
}

func (t *Table) freeUnit(ui int32) {
	t.units[ui] = unit{state: unitFree, anode: none, prev: none, next: none}
	t.freeUnits = append(t.freeUnits, ui)
}

func (t *Table) rackFor(id schedkit.RackID) int32 {
	if r, ok := t.rackIndex[id]; ok {
		return r
	}
	r := takeSlot(&t.racks, &t.freeRacks)
	rk := &t.racks[r]
	*rk = rackRec{id: id, used: true, push: rk.push[:0], donor: rk.donor[:0], waitHead: none, waitTail: none}
	t.rackIndex[id] = r
	return r
}

// releaseRack drops one node from rack r and frees the rack when empty.
func (t *Table) releaseRack(r int32) {
	rk := &t.racks[r]
	rk.nodes--
	if rk.nodes > 0 {
		return
	}
	delete(t.rackIndex, rk.id)
	rk.used = false
	rk.id = ""
	t.freeRacks = append(t.freeRacks, r)
}

// ---- lists (stacks and waiting lists are doubly linked through units) ----

func (t *Table) linkTail(head, tail *int32, ui int32) {
	u := &t.units[ui]
	u.prev, u.next = *tail, none
	if *tail != none {
		t.units[*tail].next = ui
	} else {
		*head = ui
	}
	*tail = ui
}

func (t *Table) unlink(head, tail *int32, ui int32) {
	u := &t.units[ui]
	if u.prev != none {
		t.units[u.prev].next = u.next
	} else {
		*head = u.next
	}
	if u.next != none {
		t.units[u.next].prev = u.prev
	} else {
		*tail = u.prev
	}
	u.prev, u.next = none, none
}

// ---- binding primitives ----

// binding returns the ANode unit ui is bound to, or "".
func (t *Table) binding(ui int32) schedkit.NodeID {
	u := &t.units[ui]
	if u.state == unitBound || u.state == unitSelf {
		return t.nodes[u.anode].id
	}
	return ""
}

// detach takes unit ui out of wherever it is and records the change.
func (t *Table) detach(ui int32) {
	u := &t.units[ui]
	switch u.state {
	case unitBound:
		a := u.anode
		n := &t.nodes[a]
		t.unlink(&n.head, &n.tail, ui)
		n.n--
		t.record(ui, n.id, "")
		t.rekey(a)
		t.rackUnits(n.rack, -1)
	case unitWaiting:
		r := t.nodes[u.node].rack
		rk := &t.racks[r]
		t.unlink(&rk.waitHead, &rk.waitTail, ui)
		rk.waiting--
		t.rackUnits(r, -1)
	case unitSelf:
		t.record(ui, t.nodes[u.anode].id, "")
	}
	u = &t.units[ui]
	u.state = unitDetached
	u.anode = none
}

func (t *Table) rackUnits(r int32, d int) {
	t.racks[r].units += d
	t.touch(r)
}

// attach pushes detached unit ui onto the top of ANode a's stack.
func (t *Table) attach(ui int32, a int32) {
	n := &t.nodes[a]
	t.linkTail(&n.head, &n.tail, ui)
	n.n++
	u := &t.units[ui]
	u.state = unitBound
	u.anode = a
	t.record(ui, "", n.id)
	t.rekey(a)
	t.rackUnits(n.rack, 1)
}

// popTop detaches the top unit of ANode a's stack (its most recent binding).
func (t *Table) popTop(a int32) int32 {
	ui := t.nodes[a].tail
	t.detach(ui)
	return ui
}

// pushUnit is the paper's NNode add: detached unit ui goes onto the
// smallest stack of its node's rack, or waits if the rack has no ANode.
func (t *Table) pushUnit(ui int32) {
	r := t.nodes[t.units[ui].node].rack
	rk := &t.racks[r]
	if len(rk.push) > 0 {
		t.attach(ui, rk.push[0])
		return
	}
	t.linkTail(&rk.waitHead, &rk.waitTail, ui)
	rk.waiting++
	u := &t.units[ui]
	u.state = unitWaiting
	u.anode = none
	t.rackUnits(r, 1)
}

// rekey recomputes ANode a's keys after its stack size, own load or
// capacity changed, and repairs its heaps.
func (t *Table) rekey(a int32) {
	n := &t.nodes[a]
	w := n.own + float64(n.n)
	n.keyLoad = w / n.capacity
	n.keyPush = (w + 1) / n.capacity
	if !n.queued {
		return
	}
	rk := &t.racks[n.rack]
	t.hfix(rk.push, pushHeap, int(n.pushPos))
	switch {
	case n.n > 0 && n.donorPos < 0:
		t.hpush(&rk.donor, donorHeap, a)
	case n.n > 0:
		t.hfix(rk.donor, donorHeap, int(n.donorPos))
	case n.donorPos >= 0:
		t.hremove(&rk.donor, donorHeap, int(n.donorPos))
	}
}

func (t *Table) enqueue(a int32) {
	n := &t.nodes[a]
	n.queued = true
	rk := &t.racks[n.rack]
	t.hpush(&rk.push, pushHeap, a)
	if n.n > 0 {
		t.hpush(&rk.donor, donorHeap, a)
	}
}

func (t *Table) dequeue(a int32) {
	n := &t.nodes[a]
	if !n.queued {
		return
	}
	rk := &t.racks[n.rack]
	t.hremove(&rk.push, pushHeap, int(n.pushPos))
	if n.donorPos >= 0 {
		t.hremove(&rk.donor, donorHeap, int(n.donorPos))
	}
	n.queued = false
}

// ---- node-level steps ----

// leave takes node ni out of the binding: an ANode leaves its rack's queue,
// its stack's units (bottom first) are queued for re-adding, and its own
// units are detached; an NNode's units are detached.
func (t *Table) leave(ni int32) {
	n := &t.nodes[ni]
	t.touch(n.rack)
	if n.anode {
		t.dequeue(ni)
		for n.head != none {
			ui := n.head
			t.detach(ui)
			t.pending = append(t.pending, ui)
			n = &t.nodes[ni]
		}
		n.anode = false
	}
	for _, ui := range n.units {
		t.detach(ui)
	}
}

// join binds node ni, whose units are all detached, according to its
// capacity: as a new ANode (paper's ANode add) or by queueing its units for
// the paper's NNode add.
func (t *Table) join(ni int32) {
	n := &t.nodes[ni]
	t.touch(n.rack)
	if n.capacity <= 0 {
		t.pending = append(t.pending, n.units...)
		return
	}
	n.anode = true
	for _, ui := range n.units {
		u := &t.units[ui]
		u.state = unitSelf
		u.anode = ni
		t.record(ui, "", n.id)
	}
	t.addANode(ni)
}

// addANode is the paper's ANode add (§2.3, Figure 3): a new, empty stack;
// while it is smaller than the smallest stack of the queue, the top unit of
// the largest stack moves onto it; then it joins the queue. The first
// ANode of a rack takes every waiting unit, oldest first. With Rebalance
// the stack joins the queue at once and the rebalancing at the end of the
// operation moves only what balance needs.
func (t *Table) addANode(a int32) {
	n := &t.nodes[a]
	n.head, n.tail, n.n = none, none, 0
	n.own = t.ownLoad(len(n.units))
	t.rekey(a)
	r := n.rack
	rk := &t.racks[r]
	if len(rk.push) == 0 {
		for rk.waitHead != none {
			ui := rk.waitHead
			t.detach(ui)
			t.attach(ui, a)
			rk = &t.racks[r]
		}
	} else if !t.cfg.Rebalance {
		for len(rk.donor) > 0 && t.nodes[a].keyPush < t.nodes[rk.push[0]].keyPush {
			ui := t.popTop(rk.donor[0])
			t.attach(ui, a)
			rk = &t.racks[r]
		}
	}
	t.enqueue(a)
}

// rebalance moves the top unit of the most loaded stack onto the stack
// that would be least loaded after receiving it, while that lowers the
// pair's maximum: without weights, while max − min ≥ 2. The guard bounds
// the loop should rounding ever keep extreme weights from settling.
func (t *Table) rebalance(r int32) {
	guard := 4*t.racks[r].units + 4*len(t.racks[r].push) + 16
	for ; guard > 0; guard-- {
		rk := &t.racks[r]
		if len(rk.push) == 0 || len(rk.donor) == 0 {
			return
		}
		to, from := rk.push[0], rk.donor[0]
		if to == from || !(t.nodes[to].keyPush < t.nodes[from].keyLoad) {
			return
		}
		ui := t.popTop(from)
		t.attach(ui, to)
	}
}

// resizeDetached sets node ni's unit count while all its units are
// detached.
func (t *Table) resizeDetached(ni int32, want int) {
	t.shrinkUnits(ni, want, false)
	t.growUnits(ni, want, func(int32) {})
}

// resizeNNode changes a bound NNode's container count: containers past
// the new count leave their stacks, new ones are added.
func (t *Table) resizeNNode(ni int32, want int) {
	t.shrinkUnits(ni, want, true)
	t.growUnits(ni, want, func(ui int32) { t.pending = append(t.pending, ui) })
}

// resizeANode changes an ANode's own container count.
func (t *Table) resizeANode(ni int32, want int) {
	t.shrinkUnits(ni, want, true)
	t.growUnits(ni, want, func(ui int32) {
		u := &t.units[ui]
		u.state = unitSelf
		u.anode = ni
		t.record(ui, "", t.nodes[ni].id)
	})
}

// shrinkUnits frees node ni's highest-numbered units until it has want,
// detaching each from its stack first if detach is set.
func (t *Table) shrinkUnits(ni int32, want int, detach bool) {
	for len(t.nodes[ni].units) > want {
		n := &t.nodes[ni]
		ui := n.units[len(n.units)-1]
		if detach {
			t.detach(ui)
			n = &t.nodes[ni]
		}
		n.units = n.units[:len(n.units)-1]
		t.freeUnit(ui)
	}
}

// growUnits allocates units for node ni up to want and hands each new
// one to place.
func (t *Table) growUnits(ni int32, want int, place func(ui int32)) {
	for c := len(t.nodes[ni].units); c < want; c++ {
		ui := t.allocUnit(ni, c)
		n := &t.nodes[ni]
		n.units = append(n.units, ui)
		place(ui)
	}
}
