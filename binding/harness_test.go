package binding

import (
	"errors"
	"fmt"
	"math"
	"math/bits"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/schedkit/schedkit"
)

// harness drives a Table and checks it after every operation against an
// independent model of liveness and roles, the invariants of the binding,
// the exactness of the returned moves, and (per mode) the naive paper
// reference or the minimal-move oracle.
type harness struct {
	tb    testing.TB
	cfg   Config
	tab   *Table
	model map[schedkit.NodeID]*mnode
	naive *naiveTable // paper mode only: node-level, unweighted, no rebalance
	ops   int
	buf   []Binding
	epoch *time.Time // the first accepted Add or Heartbeat time
}

// timeRange reports ErrTimeRange for a time more than 2⁶⁰ ns from the
// first accepted one.
func (h *harness) timeRange(now time.Time) error {
	if h.epoch == nil {
		return nil
	}
	if d := now.Sub(*h.epoch); d > 1<<60 || d < -(1<<60) {
		return ErrTimeRange
	}
	return nil
}

// accepted records the first accepted time.
func (h *harness) accepted(now time.Time) {
	if h.epoch == nil {
		h.epoch = &now
	}
}

type mnode struct {
	st   NodeStatus
	last time.Time
}

func newHarness(tb testing.TB, cfg Config) *harness {
	tb.Helper()
	tab, err := New(cfg)
	if err != nil {
		tb.Fatal(err)
	}
	h := &harness{tb: tb, cfg: tab.Config(), tab: tab, model: make(map[schedkit.NodeID]*mnode)}
	if !cfg.Rebalance && !cfg.Weighted && !cfg.Containers {
		h.naive = newNaive()
	}
	return h
}

func (h *harness) fail(format string, args ...any) {
	h.tb.Helper()
	h.tb.Fatalf("op %d: %s", h.ops, fmt.Sprintf(format, args...))
}

// modelCapacity computes a node's capacity independently of the table.
func (h *harness) modelCapacity(st NodeStatus) float64 {
	c := 0.0
	for _, a := range st.Accelerators {
		if !a.Healthy || (len(h.cfg.Kinds) > 0 && !slices.Contains(h.cfg.Kinds, a.Kind)) {
			continue
		}
		if !h.cfg.Weighted {
			return 1
		}
		w, ok := h.cfg.Weights[a.Model]
		if !ok {
			w = a.Weight
			if w == 0 {
				w = 1
			}
		}
		c += w
	}
	return c
}

func (h *harness) modelUnits(st NodeStatus) int {
	if !h.cfg.Containers || st.Containers == 0 {
		return 1
	}
	return st.Containers
}

// invalid reports whether the table must reject st, and with what.
func invalid(st NodeStatus) error {
	if st.ID == "" || st.Rack == "" || st.Containers < 0 || st.Containers > MaxContainers {
		return ErrInvalidNode
	}
	for i, a := range st.Accelerators {
		if math.IsNaN(a.Weight) || math.IsInf(a.Weight, 0) || a.Weight < 0 {
			return schedkit.ErrInvalidAccelerator
		}
		if a.Validate() != nil {
			return ErrInvalidNode
		}
		for _, b := range st.Accelerators[:i] {
			if a.ID == b.ID {
				return ErrInvalidNode
			}
		}
	}
	return nil
}

type snapshot struct {
	bind map[Unit]schedkit.NodeID
	dump string
}

// snap records the binding and, when dump is set, a full text dump of the
// table's observable state (for checking that a failed call changed
// nothing).
func (h *harness) snap(dump bool) snapshot {
	bs := h.tab.Bindings(h.buf[:0])
	h.buf = bs
	m := make(map[Unit]schedkit.NodeID, len(bs))
	for _, b := range bs {
		m[b.Unit] = b.ANode
	}
	if !dump {
		return snapshot{bind: m}
	}
	var sb strings.Builder
	for _, b := range bs {
		sb.WriteString(string(b.Node))
		sb.WriteByte('/')
		sb.WriteString(strconv.Itoa(b.Container))
		sb.WriteByte('>')
		sb.WriteString(string(b.ANode))
		sb.WriteByte(' ')
	}
	sb.WriteByte('\n')
	for _, r := range h.tab.Racks(nil) {
		sb.WriteString(string(r))
		for _, l := range h.tab.Loads(r, nil) {
			sb.WriteString(" " + string(l.ANode) + ":")
			sb.WriteString(strconv.FormatFloat(l.Load, 'g', -1, 64))
			for _, u := range h.tab.Stack(l.ANode, nil) {
				sb.WriteString(" " + u.String())
			}
		}
		sb.WriteString(" waiting:")
		for _, u := range h.tab.Waiting(r, nil) {
			sb.WriteString(" " + u.String())
		}
		sb.WriteByte('\n')
	}
	ids := make([]schedkit.NodeID, 0, len(h.model))
	for id := range h.model {
		ids = append(ids, id)
	}
	slices.Sort(ids)
	for _, id := range ids {
		s, _ := h.tab.Node(id)
		sb.WriteString(string(s.ID) + " " + string(s.Rack) + " " + s.Role.String() + " ")
		sb.WriteString(strconv.FormatInt(s.LastHeartbeat.UnixNano(), 10) + " ")
		sb.WriteString(strconv.Itoa(s.Units) + " " + strconv.Itoa(s.Bound) + " ")
		sb.WriteString(strconv.FormatFloat(s.Capacity, 'g', -1, 64))
		for _, a := range s.Accelerators {
			sb.WriteString(" " + string(a.ID) + string(a.Kind) + a.Model + strconv.FormatBool(a.Healthy) + strconv.FormatFloat(a.Weight, 'g', -1, 64))
		}
		sb.WriteByte('\n')
	}
	return snapshot{bind: m, dump: sb.String()}
}

// expectErr checks err against want and, on error, that nothing changed.
func (h *harness) expectErr(op string, err, want error, before snapshot) bool {
	h.tb.Helper()
	if want == nil {
		if err != nil {
			h.fail("%s: unexpected error %v", op, err)
		}
		return false
	}
	if !errors.Is(err, want) {
		h.fail("%s: error %v, want %v", op, err, want)
	}
	var be *Error
	if !errors.As(err, &be) {
		h.fail("%s: error %T is not *binding.Error", op, err)
	}
	if after := h.snap(true); after.dump != before.dump {
		h.fail("%s failed with %v but changed the table:\n%s", op, err, cmp.Diff(before.dump, after.dump))
	}
	if err := h.tab.checkInternal(); err != nil {
		h.fail("%s (failed): internal: %v", op, err)
	}
	return true
}

func (h *harness) add(now time.Time, st NodeStatus) {
	h.tb.Helper()
	h.ops++
	want := invalid(st)
	if want == nil && h.model[st.ID] != nil {
		want = ErrDuplicateNode
	}
	if want == nil {
		want = h.timeRange(now)
	}
	before := h.snap(want != nil)
	moves, err := h.tab.Add(now, st)
	if h.expectErr("Add", err, want, before) {
		return
	}
	h.accepted(now)
	st.Accelerators = slices.Clone(st.Accelerators)
	h.model[st.ID] = &mnode{st: st, last: now}
	if h.naive != nil {
		h.naiveAdd(st)
	}
	h.verify("Add "+string(st.ID), before, moves)
}

func (h *harness) naiveAdd(st NodeStatus) {
	if h.modelCapacity(st) > 0 {
		h.naive.addANode(st.ID, st.Rack)
	} else {
		h.naive.addNNode(st.ID, st.Rack)
	}
}

func (h *harness) heartbeat(now time.Time, st NodeStatus) {
	h.tb.Helper()
	h.ops++
	m := h.model[st.ID]
	var want error
	switch {
	case m == nil:
		want = ErrUnknownNode
	case invalid(st) != nil:
		want = invalid(st)
	case h.timeRange(now) != nil:
		want = ErrTimeRange
	case now.Before(m.last):
		want = ErrStaleTime
	}
	before := h.snap(want != nil)
	moves, err := h.tab.Heartbeat(now, st)
	if h.expectErr("Heartbeat", err, want, before) {
		return
	}
	h.accepted(now)
	old := m.st
	st.Accelerators = slices.Clone(st.Accelerators)
	m.st, m.last = st, now
	if h.naive != nil && (old.Rack != st.Rack || (h.modelCapacity(old) > 0) != (h.modelCapacity(st) > 0)) {
		h.naive.removeBatch(st.ID)
		h.naiveAdd(st)
	}
	h.verify("Heartbeat "+string(st.ID), before, moves)
}

func (h *harness) remove(id schedkit.NodeID) {
	h.tb.Helper()
	h.ops++
	var want error
	if h.model[id] == nil {
		want = ErrUnknownNode
	}
	before := h.snap(want != nil)
	moves, err := h.tab.Remove(id)
	if h.expectErr("Remove", err, want, before) {
		return
	}
	delete(h.model, id)
	if h.naive != nil {
		h.naive.removeBatch(id)
	}
	h.verify("Remove "+string(id), before, moves)
}

func (h *harness) expire(now time.Time) {
	h.tb.Helper()
	h.ops++
	before := h.snap(false)
	type d struct {
		id   schedkit.NodeID
		last time.Time
	}
	var want []d
	cut := now.Add(-h.cfg.Timeout)
	for id, m := range h.model {
		if !m.last.After(cut) {
			want = append(want, d{id, m.last})
		}
	}
	slices.SortFunc(want, func(a, b d) int {
		if c := a.last.Compare(b.last); c != 0 {
			return c
		}
		return strings.Compare(string(a.id), string(b.id))
	})
	wantIDs := make([]schedkit.NodeID, len(want))
	for i, x := range want {
		wantIDs[i] = x.id
		delete(h.model, x.id)
	}
	dead, moves := h.tab.Expire(now)
	if !slices.Equal(dead, wantIDs) {
		h.fail("Expire(%v): dead %v, want %v", now, dead, wantIDs)
	}
	if h.naive != nil && len(dead) > 0 {
		h.naive.removeBatch(dead...)
	}
	h.verify("Expire", before, moves)
}

// verify runs every check after a successful operation.
func (h *harness) verify(op string, before snapshot, moves []Move) {
	h.tb.Helper()
	if err := h.tab.checkInternal(); err != nil {
		h.fail("%s: internal: %v", op, err)
	}
	after := h.snap(false)
	h.checkMoves(op, before, after, moves)
	h.checkBinding(op, after)
	if h.naive != nil {
		h.checkNaive(op)
	}
	if h.cfg.Rebalance {
		h.checkBalance(op, before, after, moves)
	}
}

// checkMoves: the moves turn the old binding into the new one exactly.
func (h *harness) checkMoves(op string, before, after snapshot, moves []Move) {
	h.tb.Helper()
	seen := make(map[Unit]bool, len(moves))
	for _, m := range moves {
		if seen[m.Unit] {
			h.fail("%s: unit %v moved twice in %v", op, m.Unit, moves)
		}
		seen[m.Unit] = true
		if m.From == m.To {
			h.fail("%s: no-op move %v", op, m)
		}
		if before.bind[m.Unit] != m.From {
			h.fail("%s: move %v, but it was bound to %q", op, m, before.bind[m.Unit])
		}
		if after.bind[m.Unit] != m.To {
			h.fail("%s: move %v, but it is bound to %q", op, m, after.bind[m.Unit])
		}
	}
	// Unreported: only an ANode's own unit created bound to itself or
	// freed from itself.
	self := func(u Unit, from, to schedkit.NodeID) bool {
		_, was := before.bind[u]
		_, is := after.bind[u]
		return (!was && from == "" && to == u.Node) || (!is && to == "" && from == u.Node)
	}
	for u, a := range before.bind {
		if b := after.bind[u]; b != a && !seen[u] && !self(u, a, b) {
			h.fail("%s: unit %v went %q -> %q without a move", op, u, a, b)
		}
	}
	for u, a := range after.bind {
		if _, ok := before.bind[u]; !ok && a != "" && !seen[u] && !self(u, "", a) {
			h.fail("%s: new unit %v bound to %q without a move", op, u, a)
		}
	}
	for _, m := range moves {
		if self(m.Unit, m.From, m.To) {
			h.fail("%s: move %v of an ANode's own unit to or from nowhere", op, m)
		}
	}
}

// checkBinding: the live set, roles and racks match the model; every unit
// of a live NNode in a rack with an ANode is on exactly one stack, of an
// ANode of its rack; waiting units only in racks without ANodes; no dead
// node is known, bound, or on a stack.
func (h *harness) checkBinding(op string, after snapshot) {
	h.tb.Helper()
	if h.tab.Len() != len(h.model) {
		h.fail("%s: table holds %d nodes, model %d", op, h.tab.Len(), len(h.model))
	}
	hasANode := map[schedkit.RackID]bool{}
	for id, m := range h.model {
		if h.modelCapacity(m.st) > 0 {
			hasANode[m.st.Rack] = true
		}
		s, ok := h.tab.Node(id)
		if !ok {
			h.fail("%s: live node %q unknown to the table", op, id)
		}
		wantRole := NNode
		if h.modelCapacity(m.st) > 0 {
			wantRole = ANode
		}
		if s.Role != wantRole || s.Rack != m.st.Rack || !s.LastHeartbeat.Equal(m.last) || s.Units != h.modelUnits(m.st) {
			h.fail("%s: node %q state %+v, model %+v role %v", op, id, s, m.st, wantRole)
		}
		if wantRole == ANode && s.Capacity != h.modelCapacity(m.st) {
			h.fail("%s: node %q capacity %v, model %v", op, id, s.Capacity, h.modelCapacity(m.st))
		}
		if !slices.Equal(s.Accelerators, m.st.Accelerators) {
			h.fail("%s: node %q accelerators differ", op, id)
		}
	}
	onStack := map[Unit]schedkit.NodeID{}
	for _, r := range h.tab.Racks(nil) {
		for _, l := range h.tab.Loads(r, nil) {
			for _, u := range h.tab.Stack(l.ANode, nil) {
				if prev, dup := onStack[u]; dup {
					h.fail("%s: unit %v on stacks %q and %q", op, u, prev, l.ANode)
				}
				onStack[u] = l.ANode
			}
		}
		for _, u := range h.tab.Waiting(r, nil) {
			if hasANode[r] {
				h.fail("%s: unit %v waits in rack %q which has an ANode", op, u, r)
			}
			if _, dup := onStack[u]; dup {
				h.fail("%s: unit %v both waiting and on a stack", op, u)
			}
			onStack[u] = ""
		}
	}
	for u, a := range after.bind {
		m := h.model[u.Node]
		if m == nil {
			h.fail("%s: dead node's unit %v bound to %q", op, u, a)
		}
		if got, ok := h.tab.LookupContainer(u.Node, u.Container); got != a || ok != (a != "") {
			h.fail("%s: LookupContainer(%v) = %q,%v, binding %q", op, u, got, ok, a)
		}
		if h.modelCapacity(m.st) > 0 {
			if a != u.Node {
				h.fail("%s: ANode unit %v bound to %q", op, u, a)
			}
			continue
		}
		if where, ok := onStack[u]; !ok || where != a {
			h.fail("%s: unit %v bound to %q but found on %q (%v)", op, u, a, where, ok)
		}
		if hasANode[m.st.Rack] != (a != "") {
			h.fail("%s: unit %v bound to %q, rack %q has ANode: %v", op, u, a, m.st.Rack, hasANode[m.st.Rack])
		}
		if a != "" {
			am := h.model[a]
			if am == nil || am.st.Rack != m.st.Rack || h.modelCapacity(am.st) <= 0 {
				h.fail("%s: unit %v bound to %q, not a live ANode of rack %q", op, u, a, m.st.Rack)
			}
		}
	}
	for u := range onStack {
		if _, ok := after.bind[u]; !ok {
			h.fail("%s: stack holds unit %v of no live node", op, u)
		}
	}
	for id := range h.model {
		if _, ok := h.tab.Lookup(id + "-gone"); ok {
			h.fail("%s: lookup of an unknown node succeeded", op)
		}
	}
}

// checkNaive compares every stack and waiting list with the naive paper
// reference.
func (h *harness) checkNaive(op string) {
	h.tb.Helper()
	for rid, r := range h.naive.racks {
		for _, s := range r.queue {
			got := h.tab.Stack(s.id, nil)
			want := make([]Unit, len(s.nodes))
			for i, id := range s.nodes {
				want[i] = Unit{Node: id}
			}
			if !slices.Equal(got, want) {
				h.fail("%s: stack of %q = %v, paper reference %v", op, s.id, got, want)
			}
		}
		got := h.tab.Waiting(rid, nil)
		if len(got) != len(r.waiting) {
			h.fail("%s: rack %q waiting %v, paper reference %v", op, rid, got, r.waiting)
		}
		for i := range got {
			if got[i].Node != r.waiting[i] {
				h.fail("%s: rack %q waiting %v, paper reference %v", op, rid, got, r.waiting)
			}
		}
	}
	for id := range h.model {
		a, ok := h.tab.Lookup(id)
		na, nok := h.naive.lookup(id)
		if a != na || ok != nok {
			h.fail("%s: Lookup(%q) = %q, paper reference %q", op, id, a, na)
		}
	}
}

// checkBalance: with Rebalance, every rack is balanced after every change
// (without weights max − min ≤ 1; with weights no single move of a top
// unit would lower the pair's maximum), and, without weights, the number
// of moves equals the brute-force minimum.
func (h *harness) checkBalance(op string, before, after snapshot, moves []Move) {
	h.tb.Helper()
	for _, r := range h.tab.Racks(nil) {
		ls := h.tab.Loads(r, nil)
		if len(ls) == 0 {
			continue
		}
		if !h.cfg.Weighted {
			lo, hi := ls[0].Bound, ls[0].Bound
			for _, l := range ls {
				lo, hi = min(lo, l.Bound), max(hi, l.Bound)
			}
			if hi-lo > 1 {
				h.fail("%s: rack %q unbalanced: %+v", op, r, ls)
			}
			continue
		}
		for _, d := range ls {
			if d.Bound == 0 {
				continue
			}
			for _, to := range ls {
				if to.ANode != d.ANode && (float64(to.Own)+float64(to.Bound)+1)/to.Capacity < d.Load {
					h.fail("%s: rack %q: moving a unit from %q to %q would improve: %+v", op, r, d.ANode, to.ANode, ls)
				}
			}
		}
	}
	if !h.cfg.Weighted {
		h.checkMinimal(op, before, after, moves)
	}
}

// checkMinimal compares, per rack, the number of moves of the rack's NNode
// units with a brute-force minimum: over every balanced final shape (which
// r of the k stacks hold q+1 units), the most units that can stay where
// they were is Σ_j min(o_j, size_j), o_j being the units still bound to
// stack j; every other unit must move.
func (h *harness) checkMinimal(op string, before, after snapshot, moves []Move) {
	h.tb.Helper()
	moved := map[Unit]bool{}
	for _, m := range moves {
		moved[m.Unit] = true
	}
	for _, r := range h.tab.Racks(nil) {
		ls := h.tab.Loads(r, nil)
		k := len(ls)
		if k > 12 {
			continue
		}
		idx := map[schedkit.NodeID]int{}
		for i, l := range ls {
			idx[l.ANode] = i
		}
		o := make([]int, k)
		units, got := 0, 0
		for u, a := range after.bind {
			m := h.model[u.Node]
			if m.st.Rack != r || a == u.Node {
				continue // another rack, or an ANode's own unit
			}
			units++
			if moved[u] {
				got++
			}
			if j, ok := idx[before.bind[u]]; ok {
				o[j]++
			}
		}
		want := units
		if k > 0 {
			q, rem := units/k, units%k
			best := 0
			for mask := 0; mask < 1<<k; mask++ {
				if bits.OnesCount(uint(mask)) != rem {
					continue
				}
				kept := 0
				for j := 0; j < k; j++ {
					size := q
					if mask&(1<<j) != 0 {
						size++
					}
					kept += min(o[j], size)
				}
				best = max(best, kept)
			}
			want = units - best
		} else {
			want = 0
			for u, a := range after.bind {
				if h.model[u.Node].st.Rack == r && a != u.Node && before.bind[u] != "" {
					want++
				}
			}
		}
		if got != want {
			h.fail("%s: rack %q: %d moves of its NNode units, minimum is %d (moves %v, loads %+v)", op, r, got, want, moves, ls)
		}
	}
}
