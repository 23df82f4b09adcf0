// Operation framing: every public change runs between begin and finish,
// which binds what is pending, rebalances, and returns the net moves.

package binding

import (
	"github.com/schedkit/schedkit"
)

func (t *Table) begin() {
	t.epoch++
	t.scratch = t.scratch[:0]
	t.life = t.life[:0]
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
		if t.reported(i) {
			k++
		}
	}
	if k == 0 {
		return nil
	}
	out := make([]Move, 0, k)
	for i, m := range t.scratch {
		if t.reported(i) {
			out = append(out, m)
		}
	}
	return out
}

// Flags of Table.life.
const (
	unitCreated uint8 = 1 << iota // the unit was created by the operation
	unitFreed                     // the unit was freed by the operation
)

// reported reports whether scratch entry i is a move for the host: not a
// no-op, and not an ANode's own unit created bound to itself (an ANode,
// or one of its containers, added) or freed from itself (removed).
func (t *Table) reported(i int) bool {
	m, life := &t.scratch[i], t.life[i]
	switch {
	case m.From == m.To:
		return false
	case life&unitCreated != 0 && m.From == "" && m.To == m.Node:
		return false
	case life&unitFreed != 0 && m.To == "" && m.From == m.Node:
		return false
	}
	return true
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
	var life uint8
	if u.born == t.epoch {
		life = unitCreated
	}
	t.life = append(t.life, life)
}
