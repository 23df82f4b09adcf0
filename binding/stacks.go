// The binding itself: units detached from and attached to stacks, and the
// paper's node-level steps (leave, join, ANode add) built on them.

package binding

import (
	"github.com/schedkit/schedkit"
)

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
