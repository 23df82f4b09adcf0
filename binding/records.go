// Records: node, unit and rack slots reused through free lists, and the
// doubly linked lists (stacks and waiting lists) threaded through units.

package binding

import (
	"github.com/schedkit/schedkit"
)

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
	t.units[ui] = unit{node: ni, container: int32(c), anode: none, prev: none, next: none, state: unitDetached, born: t.epoch}
	return ui
}

func (t *Table) freeUnit(ui int32) {
	if u := &t.units[ui]; u.mvEpoch == t.epoch {
		t.life[u.mv] |= unitFreed
	}
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
