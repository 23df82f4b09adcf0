package binding

import (
	"fmt"
)

// checkInternal verifies every structural invariant of the table: slots,
// index, racks, stacks, waiting lists, the three heaps and their positions.
func (t *Table) checkInternal() error {
	liveNodes := 0
	unitSeen := make(map[int32]bool)
	rackNodes := make(map[int32]int)
	for i := range t.nodes {
		ni := int32(i)
		n := &t.nodes[i]
		if !n.used {
			continue
		}
		liveNodes++
		if got, ok := t.index[n.id]; !ok || got != ni {
			return fmt.Errorf("node %q slot %d: index has %d, %v", n.id, ni, got, ok)
		}
		if n.rack < 0 || int(n.rack) >= len(t.racks) || !t.racks[n.rack].used {
			return fmt.Errorf("node %q: bad rack slot %d", n.id, n.rack)
		}
		rackNodes[n.rack]++
		if n.deadPos < 0 || int(n.deadPos) >= len(t.dead) || t.dead[n.deadPos] != ni {
			return fmt.Errorf("node %q: dead heap position %d wrong", n.id, n.deadPos)
		}
		if len(n.units) == 0 {
			return fmt.Errorf("node %q: no units", n.id)
		}
		for c, ui := range n.units {
			u := &t.units[ui]
			if unitSeen[ui] {
				return fmt.Errorf("unit slot %d owned twice", ui)
			}
			unitSeen[ui] = true
			if u.node != ni || int(u.container) != c {
				return fmt.Errorf("node %q unit %d: back pointer (%d,%d)", n.id, c, u.node, u.container)
			}
			switch {
			case n.anode && (u.state != unitSelf || u.anode != ni):
				return fmt.Errorf("ANode %q unit %d: state %d anode %d, want self", n.id, c, u.state, u.anode)
			case !n.anode && u.state != unitBound && u.state != unitWaiting:
				return fmt.Errorf("NNode %q unit %d: state %d", n.id, c, u.state)
			case u.state == unitBound:
				a := &t.nodes[u.anode]
				if !a.used || !a.anode || a.rack != n.rack {
					return fmt.Errorf("NNode %q unit %d bound to %q (anode=%v, rack %d vs %d)", n.id, c, a.id, a.anode, a.rack, n.rack)
				}
			}
		}
		if n.anode {
			if !n.queued || n.pushPos < 0 {
				return fmt.Errorf("ANode %q not queued", n.id)
			}
			if !(n.capacity > 0) {
				return fmt.Errorf("ANode %q capacity %v", n.id, n.capacity)
			}
			cnt := int32(0)
			prev := none
			for ui := n.head; ui != none; ui = t.units[ui].next {
				u := &t.units[ui]
				if u.state != unitBound || u.anode != ni || u.prev != prev {
					return fmt.Errorf("ANode %q stack: unit %d state %d anode %d prev %d/%d", n.id, ui, u.state, u.anode, u.prev, prev)
				}
				prev = ui
				cnt++
				if cnt > int32(len(t.units)) {
					return fmt.Errorf("ANode %q stack: cycle", n.id)
				}
			}
			if prev != n.tail || cnt != n.n {
				return fmt.Errorf("ANode %q stack: tail %d/%d n %d/%d", n.id, prev, n.tail, cnt, n.n)
			}
			w := n.own + float64(n.n)
			if n.keyLoad != w/n.capacity || n.keyPush != (w+1)/n.capacity {
				return fmt.Errorf("ANode %q: stale keys", n.id)
			}
			if n.own != t.ownLoad(len(n.units)) {
				return fmt.Errorf("ANode %q: own %v for %d units", n.id, n.own, len(n.units))
			}
			if (n.n > 0) != (n.donorPos >= 0) {
				return fmt.Errorf("ANode %q: n=%d donorPos=%d", n.id, n.n, n.donorPos)
			}
		} else if n.queued || n.pushPos >= 0 || n.donorPos >= 0 || n.n != 0 || n.head != none {
			return fmt.Errorf("NNode %q holds a stack or queue place", n.id)
		}
	}
	if liveNodes != len(t.index) || liveNodes != len(t.dead) {
		return fmt.Errorf("live %d, index %d, dead heap %d", liveNodes, len(t.index), len(t.dead))
	}
	for i := range t.units {
		if t.units[i].state != unitFree && !unitSeen[int32(i)] {
			return fmt.Errorf("unit slot %d in state %d owned by no node", i, t.units[i].state)
		}
	}
	if len(t.rackIndex) != len(rackNodes) {
		return fmt.Errorf("rack index %d, racks with nodes %d", len(t.rackIndex), len(rackNodes))
	}
	for i := range t.racks {
		r := int32(i)
		rk := &t.racks[i]
		if !rk.used {
			continue
		}
		if got, ok := t.rackIndex[rk.id]; !ok || got != r {
			return fmt.Errorf("rack %q: index wrong", rk.id)
		}
		if rk.nodes != rackNodes[r] {
			return fmt.Errorf("rack %q: nodes %d, counted %d", rk.id, rk.nodes, rackNodes[r])
		}
		if len(rk.push) > 0 && rk.waitHead != none {
			return fmt.Errorf("rack %q: units wait although it has an ANode", rk.id)
		}
		units, anodes, donors := 0, 0, 0
		for j := range t.nodes {
			n := &t.nodes[j]
			if !n.used || n.rack != r {
				continue
			}
			if n.anode {
				anodes++
				units += int(n.n)
				if n.n > 0 {
					donors++
				}
			}
		}
		w := 0
		prev := none
		for ui := rk.waitHead; ui != none; ui = t.units[ui].next {
			u := &t.units[ui]
			if u.state != unitWaiting || t.nodes[u.node].rack != r || u.prev != prev {
				return fmt.Errorf("rack %q waiting list broken at unit %d", rk.id, ui)
			}
			prev = ui
			w++
		}
		if prev != rk.waitTail || w != rk.waiting {
			return fmt.Errorf("rack %q: waiting %d/%d", rk.id, w, rk.waiting)
		}
		if units+w != rk.units {
			return fmt.Errorf("rack %q: units %d, counted %d", rk.id, rk.units, units+w)
		}
		if len(rk.push) != anodes || len(rk.donor) != donors {
			return fmt.Errorf("rack %q: push %d/%d donor %d/%d", rk.id, len(rk.push), anodes, len(rk.donor), donors)
		}
		if err := t.checkHeap(rk.push, pushHeap, r); err != nil {
			return fmt.Errorf("rack %q push heap: %v", rk.id, err)
		}
		if err := t.checkHeap(rk.donor, donorHeap, r); err != nil {
			return fmt.Errorf("rack %q donor heap: %v", rk.id, err)
		}
	}
	return t.checkHeap(t.dead, deadHeap, -1)
}

func (t *Table) checkHeap(h []int32, k heapKind, rack int32) error {
	for i, x := range h {
		if !t.nodes[x].used {
			return fmt.Errorf("position %d: free node slot %d", i, x)
		}
		if rack >= 0 && t.nodes[x].rack != rack {
			return fmt.Errorf("position %d: node %q of another rack", i, t.nodes[x].id)
		}
		if int(*t.hpos(k, x)) != i {
			return fmt.Errorf("position %d: node %q records %d", i, t.nodes[x].id, *t.hpos(k, x))
		}
		if i > 0 && t.hless(k, x, h[(i-1)/2]) {
			return fmt.Errorf("position %d: heap order broken", i)
		}
	}
	return nil
}
