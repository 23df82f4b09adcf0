// Package bindingtest gives hosts of package binding what binding's own
// tests use, the way net/http/httptest serves net/http:
//
//   - Checker, the invariant checker a host runs after every operation on
//     its binding.Table (or SyncTable): every unit bound exactly once, to
//     an ANode of its own rack; units wait only in racks without ANodes;
//     the moves returned turn the old binding into the new one exactly,
//     each unit at most once; with Rebalance, every rack balanced;
//   - Fleet, a reference in-memory fleet of nodes that drives a Table
//     with seeded random operations (joins, heartbeats with health, rack
//     and container changes, removals, expiry, stale and invalid reports)
//     and runs the Checker after each, also checking that refused
//     operations change nothing.
//
// # Usage
//
//	check := bindingtest.NewChecker(table, cfg)
//	moves, err := table.Heartbeat(now, status)
//	host.apply(moves)
//	if err := check.Check(moves); err != nil { t.Fatal(err) }
package bindingtest

import (
	"fmt"
	"slices"

	"github.com/schedkit/schedkit"
	"github.com/schedkit/schedkit/binding"
)

// Table is what the Checker reads of a *binding.Table or
// *binding.SyncTable.
type Table interface {
	Bindings(dst []binding.Binding) []binding.Binding
	Node(id schedkit.NodeID) (binding.NodeState, bool)
	Racks(dst []schedkit.RackID) []schedkit.RackID
	Loads(rack schedkit.RackID, dst []binding.Load) []binding.Load
}

// Checker checks a table's binding after every operation. Create it on
// the table before the first operation (or at any point: it starts from
// the binding it sees).
type Checker struct {
	t    Table
	cfg  binding.Config
	prev map[binding.Unit]schedkit.NodeID
	buf  []binding.Binding
}

// NewChecker returns a Checker for t, configured with cfg.
func NewChecker(t Table, cfg binding.Config) *Checker {
	c := &Checker{t: t, cfg: cfg}
	c.prev, _ = c.snapshot()
	return c
}

func (c *Checker) snapshot() (map[binding.Unit]schedkit.NodeID, error) {
	c.buf = c.t.Bindings(c.buf[:0])
	m := make(map[binding.Unit]schedkit.NodeID, len(c.buf))
	for _, b := range c.buf {
		if _, dup := m[b.Unit]; dup {
			return nil, fmt.Errorf("bindingtest: unit %v bound twice", b.Unit)
		}
		m[b.Unit] = b.ANode
	}
	return m, nil
}

// Check checks the table after an operation that returned moves (nil for
// a refused operation, which must have changed nothing).
func (c *Checker) Check(moves []binding.Move) error {
	after, err := c.snapshot()
	if err != nil {
		return err
	}
	before := c.prev
	c.prev = after
	if err := c.checkMoves(before, after, moves); err != nil {
		return err
	}
	if err := c.checkBinding(after); err != nil {
		return err
	}
	if c.cfg.Rebalance && !c.cfg.Weighted {
		for _, r := range c.t.Racks(nil) {
			ls := c.t.Loads(r, nil)
			if len(ls) == 0 {
				continue
			}
			lo, hi := ls[0].Bound, ls[0].Bound
			for _, l := range ls {
				lo, hi = min(lo, l.Bound), max(hi, l.Bound)
			}
			if hi-lo > 1 {
				return fmt.Errorf("bindingtest: rack %q unbalanced: %+v", r, ls)
			}
		}
	}
	return nil
}

func (c *Checker) checkMoves(before, after map[binding.Unit]schedkit.NodeID, moves []binding.Move) error {
	seen := make(map[binding.Unit]bool, len(moves))
	for _, m := range moves {
		_, was := before[m.Unit]
		_, is := after[m.Unit]
		switch {
		case seen[m.Unit]:
			return fmt.Errorf("bindingtest: unit %v moved twice in %v", m.Unit, moves)
		case m.From == m.To:
			return fmt.Errorf("bindingtest: no-op move %v", m)
		case before[m.Unit] != m.From:
			return fmt.Errorf("bindingtest: move %v, but it was bound to %q", m, before[m.Unit])
		case after[m.Unit] != m.To:
			return fmt.Errorf("bindingtest: move %v, but it is bound to %q", m, after[m.Unit])
		case !was && m.From == "" && m.To == m.Node, !is && m.To == "" && m.From == m.Node:
			return fmt.Errorf("bindingtest: move %v of an ANode's own unit to or from nowhere", m)
		}
		seen[m.Unit] = true
	}
	for u, a := range before {
		b, is := after[u]
		if b != a && !seen[u] && !(!is && b == "" && a == u.Node) {
			return fmt.Errorf("bindingtest: unit %v went %q -> %q without a move", u, a, b)
		}
	}
	for u, b := range after {
		if _, was := before[u]; !was && b != "" && !seen[u] && b != u.Node {
			return fmt.Errorf("bindingtest: new unit %v bound to %q without a move", u, b)
		}
	}
	return nil
}

func (c *Checker) checkBinding(after map[binding.Unit]schedkit.NodeID) error {
	hasANode := map[schedkit.RackID]bool{}
	for _, r := range c.t.Racks(nil) {
		hasANode[r] = len(c.t.Loads(r, nil)) > 0
	}
	units := map[schedkit.NodeID]int{}
	for u, a := range after {
		units[u.Node]++
		n, ok := c.t.Node(u.Node)
		if !ok {
			return fmt.Errorf("bindingtest: unit %v of a node the table does not hold", u)
		}
		switch {
		case n.Role == binding.ANode && a != u.Node:
			return fmt.Errorf("bindingtest: ANode unit %v bound to %q, not itself", u, a)
		case n.Role == binding.ANode:
		case a == "" && hasANode[n.Rack]:
			return fmt.Errorf("bindingtest: unit %v waits in rack %q, which has an ANode", u, n.Rack)
		case a == "":
		case a == u.Node:
			return fmt.Errorf("bindingtest: NNode unit %v bound to itself", u)
		default:
			an, ok := c.t.Node(a)
			switch {
			case !ok || an.Role != binding.ANode:
				return fmt.Errorf("bindingtest: unit %v bound to %q, not a live ANode", u, a)
			case an.Rack != n.Rack:
				return fmt.Errorf("bindingtest: unit %v of rack %q bound across racks to %q of rack %q", u, n.Rack, a, an.Rack)
			}
		}
	}
	ids := make([]schedkit.NodeID, 0, len(units))
	for id := range units {
		ids = append(ids, id)
	}
	slices.Sort(ids)
	for _, id := range ids {
		if n, _ := c.t.Node(id); n.Units != units[id] {
			return fmt.Errorf("bindingtest: node %q has %d units, %d bound or waiting", id, n.Units, units[id])
		}
	}
	return nil
}
