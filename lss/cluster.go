package lss

import (
	"fmt"
	"math"

	"github.com/schedkit/schedkit"
	"github.com/schedkit/schedkit/estimate"
	"github.com/schedkit/schedkit/internal/membership"
	"github.com/schedkit/schedkit/internal/nilvalue"
	"github.com/schedkit/schedkit/resource"
)

// capSaturation bounds effective capacities (in thousandths of a slot).
const capSaturation = 1 << 62

// slotCount validates one slot amount read from a host vector.
func slotCount(v resource.Vector, i int) (int64, bool) {
	x := v[i]
	if math.IsNaN(x) || x < 0 || x > maxSlots || x != math.Trunc(x) {
		return 0, false
	}
	return int64(x), true
}

// readCapacity fills dst (one entry per configured phase) with the
// cluster's capacity for each phase's kind: slot counts × Slot, or, with
// Heterogeneous, Σ over nodes of slots × speed.
func (s *Scheduler) readCapacity(op string, dst []estimate.Capacity) error {
	n := len(s.lay.kindIndex)
	perKind := s.kindCap[:n]
	clear(perKind)
	bad := func(node schedkit.NodeID, format string, args ...any) error {
		return &Error{Op: op, Node: node, Err: ErrInvalidNode, Reason: fmt.Sprintf(format, args...)}
	}
	if !s.cfg.Heterogeneous {
		v := s.cluster.Capacity()
		if len(v) != s.space.Len() {
			return bad("", "cluster capacity has %d elements, the Space %d", len(v), s.space.Len())
		}
		for k, i := range s.lay.kindIndex {
			c, ok := slotCount(v, i)
			if !ok {
				return bad("", "cluster capacity of %q is %v", s.space.Kind(i).Name, v[i])
			}
			perKind[k] = estimate.Capacity(c) * estimate.Slot
		}
	} else {
		for j := range s.cluster.Nodes() {
			node := s.cluster.Node(j)
			if nilvalue.Is(node) {
				return bad("", "cluster.Node(%d) returned a %s", j, nilvalue.Text("node", node))
			}
			v := node.Capacity()
			if len(v) != s.space.Len() {
				return bad(node.ID(), "capacity has %d elements, the Space %d", len(v), s.space.Len())
			}
			m, ok := s.speeds[node.ID()]
			if !ok {
				m = int64(estimate.Slot)
			}
			for k, i := range s.lay.kindIndex {
				c, ok := slotCount(v, i)
				if !ok {
					return bad(node.ID(), "capacity of %q is %v", s.space.Kind(i).Name, v[i])
				}
				perKind[k] = min(perKind[k]+estimate.Capacity(c*m), capSaturation)
			}
		}
	}
	for p, k := range s.lay.phaseKind {
		dst[p] = perKind[k]
	}
	return nil
}

// readFree fills s.free with the node's free slots per kind, checking
// them against the node's capacity.
func (s *Scheduler) readFree(op string, node schedkit.Node) error {
	bad := func(format string, args ...any) error {
		return &Error{Op: op, Node: node.ID(), Err: ErrInvalidNode, Reason: fmt.Sprintf(format, args...)}
	}
	v, c := node.Available(), node.Capacity()
	if len(v) != s.space.Len() {
		return bad("available vector has %d elements, the Space %d", len(v), s.space.Len())
	}
	if len(c) != s.space.Len() {
		return bad("capacity vector has %d elements, the Space %d", len(c), s.space.Len())
	}
	for k, i := range s.lay.kindIndex {
		free, ok := slotCount(v, i)
		if !ok {
			return bad("free %q slots: %v", s.space.Kind(i).Name, v[i])
		}
		total, ok := slotCount(c, i)
		if !ok {
			return bad("capacity of %q: %v", s.space.Kind(i).Name, c[i])
		}
		if free > total {
			return bad("%v free %q slots, more than its capacity %v", v[i], s.space.Kind(i).Name, c[i])
		}
		s.free[k] = int(free)
	}
	return nil
}

// checkNode refuses a node value that is not the cluster's node of its
// ID (internal/membership: O(1) with a Cluster that implements
// schedkit.NodeLookup, or while the cluster's membership is unchanged):
// ErrUnknownNode, or ErrInvalidNode for a value whose capacity differs
// from that node's (a stale value, taken before the node was resized,
// must not hand out slots the cluster does not count). node's vectors
// have been checked (readFree).
func (s *Scheduler) checkNode(op string, node schedkit.Node) error {
	f, why := s.members.Check(s.cluster, s.space, node)
	sentinel := ErrUnknownNode
	switch f {
	case membership.OK:
		return nil
	case membership.Disagrees:
		sentinel = ErrInvalidNode
	}
	return &Error{Op: op, Node: node.ID(), Err: sentinel, Reason: why}
}
