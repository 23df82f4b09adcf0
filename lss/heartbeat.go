package lss

import (
	"slices"
	"time"

	"github.com/schedkit/schedkit"
	"github.com/schedkit/schedkit/internal/clock"
	"github.com/schedkit/schedkit/internal/nilvalue"
)

// Heartbeat runs Algorithm 1 for node at now and appends the decisions to
// dst, returning the extended slice (pass dst[:0] of a reused slice for
// no allocation). It reads the cluster's capacity and the node's free
// slots of every configured kind, then:
//
//  1. recomputes every job's average task time and spare time;
//  2. kills (or, with SoftDeadlines, reports Infeasible) the jobs whose
//     deadline has passed or whose Spare + Tavg < 0 (Tavg known);
//  3. orders the rest by least spare time (ties: earlier deadline,
//     earlier submission, ID);
//  4. pass 1: one phase-0 (map) task to each job, in order, that has no
//     finished, running or assigned task;
//  5. pass 2: the free slots of phase 0's kind to ready tasks in order;
//  6. pass 3: the free slots of the next kind (reduce) to ready tasks in
//     order — and so on for further kinds with more phases.
//
// Kills come first in dst, in queue order; then assignments in the order
// made. The host carries them out and calls Update for each job whose
// counters change. Kills run on every heartbeat, also of a node with no
// free slot. On an error nothing is decided and dst is returned
// unchanged: a nil node (also a typed nil pointer), a node that is not
// among the cluster's nodes (ErrUnknownNode), vectors that do not fit the
// Space or hold NaN, negative or fractional slots, free slots above the
// node's capacity, a capacity other than that of the cluster's node of
// its ID (ErrInvalidNode: a stale node value), a now before the latest
// time given to Submit or Heartbeat (ErrStaleTime), or a now out of range
// (ErrTimeRange).
func (s *Scheduler) Heartbeat(now time.Time, node schedkit.Node, dst []Decision) ([]Decision, error) {
	const op = "Heartbeat"
	if nilvalue.Is(node) {
		return dst, &Error{Op: op, Err: ErrInvalidNode, Reason: nilvalue.Text("node", node)}
	}
	id := node.ID()
	r, f := s.clock.Check(now)
	if f != clock.OK {
		return dst, s.timeErr(op, "", id, f, now)
	}
	if err := s.readFree(op, node); err != nil {
		return dst, err
	}
	if err := s.checkNode(op, node); err != nil {
		return dst, err
	}
	if err := s.readCapacity(op, s.capsNew); err != nil {
		return dst, err
	}
	s.clock.Commit(r)
	s.seq++
	hb := beat{now: r.Now, nowT: now, node: id}
	if s.cfg.Literal {
		return s.heartbeatLiteral(&hb, dst), nil
	}
	return s.heartbeatFast(&hb, dst), nil
}

// beat is one heartbeat's fixed inputs.
type beat struct {
	now  int64
	nowT time.Time
	node schedkit.NodeID
}

// current returns e's evaluation at this heartbeat, computing it once.
func (s *Scheduler) current(e *entry, hb *beat) *eval {
	if e.evalSeq != s.seq {
		e.cur = s.evaluate(e, hb.now, s.caps)
		e.evalSeq = s.seq
	}
	return &e.cur
}

// sortByCurrent sorts entries by the queue order of their current
// evaluations.
func sortByCurrent(es []*entry) {
	slices.SortFunc(es, func(a, b *entry) int {
		return cmpOrder(a.cur.class, a.cur.value, a, b.cur.class, b.cur.value, b)
	})
}

// emitKills sorts the jobs found to meet a kill condition into queue
// order and appends their Kill (or Infeasible) decisions. Killed jobs
// leave the queue; infeasible ones are marked reported.
func (s *Scheduler) emitKills(dst []Decision, kills []*entry, hb *beat) []Decision {
	sortByCurrent(kills)
	act := Kill
	if s.cfg.SoftDeadlines {
		act = Infeasible
	}
	for _, e := range kills {
		dst = append(dst, Decision{
			Action:  act,
			Job:     e.id,
			Reason:  killReason(e, &e.cur, hb.now),
			Figures: s.figures(e, &e.cur, hb.nowT),
		})
		if s.cfg.SoftDeadlines {
			e.reported = true
		} else {
			s.drop(e)
		}
	}
	return dst
}

// assign appends an assignment of n tasks of phase p of e and books it.
func (s *Scheduler) assign(dst []Decision, e *entry, p, n, pass int, hb *beat) []Decision {
	e.out[p] += n
	s.free[s.lay.phaseKind[p]] -= n
	if !e.touched {
		e.touched = true
		s.touched = append(s.touched, e)
	}
	ev := s.current(e, hb)
	return append(dst, Decision{
		Action:  Assign,
		Job:     e.id,
		Phase:   schedkit.Phase(p),
		Node:    hb.node,
		Count:   n,
		Pass:    pass,
		Figures: s.figures(e, ev, hb.nowT),
	})
}

// fill gives e as many ready tasks of kind k's phases as the free slots
// of kind k allow, earlier phases first (one step of passes 2 and 3).
func (s *Scheduler) fill(dst []Decision, e *entry, k int, hb *beat) []Decision {
	for _, p := range s.lay.kindPhases[k] {
		if s.free[k] == 0 {
			break
		}
		if n := min(s.free[k], e.avail(p)); n > 0 {
			dst = s.assign(dst, e, p, n, 2+k, hb)
		}
	}
	return dst
}

// availKind returns e's unassigned ready tasks of kind k's phases.
func (s *Scheduler) availKind(e *entry, k int) int {
	n := 0
	for _, p := range s.lay.kindPhases[k] {
		n += e.avail(p)
	}
	return n
}

// endBeat clears the per-heartbeat marks; with replace, it re-places in
// the index each job that was assigned tasks (its ready and first-map
// status changed, its spare time did not).
func (s *Scheduler) endBeat(replace bool) {
	for i, e := range s.touched {
		e.touched = false
		if replace && e.alive {
			s.place(e)
		}
		s.touched[i] = nil
	}
	s.touched = s.touched[:0]
}
