package dbs

import (
	"fmt"
	"time"

	"github.com/schedkit/schedkit"
	"github.com/schedkit/schedkit/internal/membership"
	"github.com/schedkit/schedkit/internal/nilvalue"
)

// Heartbeat assigns node's free slots at now and appends the assignments
// to dst, returning the extended slice (pass dst[:0] of a reused slice
// for no allocation). Map slots first, then reduce slots, as a Hadoop-1
// JobTracker does; each free slot goes to
//
//  1. a queue, among those with a ready task of the slot's kind: with
//     PrioritySharing (the default), the highest queue holding less than
//     its floor (QueueConfig.Share) of the kind, else the highest queue;
//     with CapacitySharing, the queue that uses the smallest fraction of
//     its guaranteed share of the kind (a queue below its share is
//     served first, an idle share is lent to the others, and lent slots
//     come back to their queue as tasks end, without preemption; ties
//     go to the higher queue); with Config.MinimumFirst, before either,
//     the highest queue whose first job is below its model-2 minimum;
//  2. within the queue, the first job holding fewer slots of the kind
//     than its model-2 minimum (those without a task time first), else
//     the first job; jobs that can still reach a minimum before those
//     that cannot (MinResult.Unmeetable), then by weight descending,
//     submission, ID.
//
// A job competes for reduce slots only once none of its maps is
// unfinished (unless Ablations.EarlyReduces), whatever the host reports
// ready.
//
// A job gets at most its ready tasks; consecutive slots to the same job
// and phase are merged into one Assign with Count. The host starts the
// tasks and calls Update for each job. On an error nothing is decided
// and dst is returned unchanged: a nil node (also a typed nil pointer),
// a node that is not among the cluster's nodes (ErrUnknownNode), vectors
// that do not fit the Space or hold NaN, negative or fractional slots,
// free slots above the node's capacity, a capacity other than that of
// the cluster's node of its ID (ErrInvalidNode: a stale node value), a
// now before
// the latest now given (ErrStaleTime) or out of range (ErrTimeRange).
func (s *Scheduler) Heartbeat(now time.Time, node schedkit.Node, dst []Decision) ([]Decision, error) {
	const op = "Heartbeat"
	if nilvalue.Is(node) {
		return dst, &Error{Op: op, Err: ErrInvalidNode, Reason: nilvalue.Text("node", node)}
	}
	id := node.ID()
	clk, err := s.checkTime(op, "", id, now)
	if err != nil {
		return dst, err
	}
	if err := s.readFree(op, node); err != nil {
		return dst, err
	}
	if err := s.checkNode(op, node); err != nil {
		return dst, err
	}
	if err := s.readCapacity(op, id); err != nil {
		return dst, err
	}
	s.advance(clk)
	start := len(dst)
	for k := range 2 {
		for s.free[k] > 0 {
			q := s.pickQueue(k)
			if q < 0 {
				break
			}
			h := &s.heaps[q*2+k]
			e := h.top()
			below := !s.cfg.Ablations.NoMinimumSlots && e.below(k)
			e.heldK[k]++
			e.availK[k]--
			s.settle[e.allPos].ok = false // a frozen job's slots held changed
			s.watchCost(e)                // its cost grows once the task starts
			s.used[q][k]++
			s.free[k]--
			if e.avail(k) == 0 {
				h.remove(e)
			} else {
				h.upsert(e)
			}
			if n := len(dst); n > start {
				if d := &dst[n-1]; d.Job == e.id && int(d.Phase) == k && d.BelowMinimum == below {
					d.Count++
					d.Figures.Held++
					continue
				}
			}
			reason := ReasonWeight
			if below {
				reason = ReasonBelowMinimum
			}
			dst = append(dst, Decision{
				Action: Assign, Reason: reason, Job: e.id, Phase: schedkit.Phase(k), Node: id, Count: 1,
				BelowMinimum: below, From: e.queue, To: e.queue, Price: s.r.queues[e.queue].Price,
				Figures: Figures{Now: now, Held: e.held(k), Needed: e.minOf(k), Weight: e.w},
			})
		}
	}
	return dst, nil
}

// pickQueue returns the queue that gets the next slot of kind k, -1 if
// none has a ready task of the kind: with MinimumFirst, the highest
// queue whose first job is below its minimum, if any; then with
// PrioritySharing, pickPriority; with CapacitySharing, among queues
// with a ready task of the kind, the least used relative to its
// guarantee (a queue with no guarantee only gets what others leave),
// ties to the higher queue.
//
// used/guarantee is compared as used/share, the kind's capacity being
// common to all queues, in exact integer arithmetic with shares in
// millionths, so equal ratios tie exactly.
func (s *Scheduler) pickQueue(k int) int {
	if s.r.minFirst {
		for q := int(High); q >= int(Low); q-- {
			if h := &s.heaps[q*2+k]; h.len() > 0 && h.top().below(k) {
				return q
			}
		}
	}
	if s.r.priority {
		return s.pickPriority(k)
	}
	best := -1
	for q := int(High); q >= int(Low); q-- {
		if s.heaps[q*2+k].len() == 0 {
			continue
		}
		if best < 0 || s.lessRatio(q, best, k) {
			best = q
		}
	}
	return best
}

// lessRatio reports whether queue a uses less of its share of kind k
// than queue b; a zero share counts as an infinite ratio (and two of
// them compare by usage).
func (s *Scheduler) lessRatio(a, b, k int) bool {
	return shareLess(int64(s.used[a][k]), int64(s.used[b][k]), s.r.micro[a], s.r.micro[b])
}

// shareLess reports whether a queue using ua slots of a kind with share
// sa (millionths) uses less of its share than one using ub with share
// sb: ua/sa < ub/sb exactly, a zero share counting as an infinite ratio
// (two of them compare by usage).
func shareLess(ua, ub, sa, sb int64) bool {
	switch {
	case sa == 0 && sb == 0:
		return ua < ub
	case sa == 0:
		return false
	case sb == 0:
		return true
	}
	return ua*sb < ub*sa
}

// pickPriority is pickQueue with PrioritySharing (after MinimumFirst's
// minimums): the highest queue with a ready task of kind k that holds
// less than its floor of the kind (used/capacity < share, exact in
// millionths), else the highest queue with a ready task; -1 if none has
// one.
func (s *Scheduler) pickPriority(k int) int {
	capk := int64(s.capK[k])
	first := -1
	for q := int(High); q >= int(Low); q-- {
		if s.heaps[q*2+k].len() == 0 {
			continue
		}
		if int64(s.used[q][k])*1e6 < s.r.micro[q]*capk {
			return q
		}
		if first < 0 {
			first = q
		}
	}
	return first
}

// eligible reports whether e competes for slots of kind k: it has a
// ready task of the kind, and for reduce slots (unless EarlyReduces) no
// map left unfinished.
func (s *Scheduler) eligible(e *entry, k int) bool {
	return e.avail(k) > 0 && (k == 0 || s.reducesOpen(e))
}

// reducesOpen reports whether e may be given reduce slots: with
// Ablations.EarlyReduces whenever the host reports reduces ready,
// otherwise once none of its maps is unfinished (model 2's reduces start
// after the maps; a reduce slot held during the map phase is paid for
// and idle).
func (s *Scheduler) reducesOpen(e *entry) bool {
	return s.cfg.Ablations.EarlyReduces || e.prog[0].Unfinished() == 0
}

// readFree sets s.free to node's free map and reduce slots, checking
// them against its capacity.
func (s *Scheduler) readFree(op string, node schedkit.Node) error {
	bad := func(format string, args ...any) error {
		return &Error{Op: op, Node: node.ID(), Err: ErrInvalidNode, Reason: fmt.Sprintf(format, args...)}
	}
	v, c := node.Available(), node.Capacity()
	if len(v) != s.r.space.Len() {
		return bad("available vector has %d elements, the Space %d", len(v), s.r.space.Len())
	}
	if len(c) != s.r.space.Len() {
		return bad("capacity vector has %d elements, the Space %d", len(c), s.r.space.Len())
	}
	var free [2]int
	for k, i := range s.r.kind {
		n, ok := slotCount(v[i])
		if !ok {
			return bad("free %q slots: %v", s.r.space.Kind(i).Name, v[i])
		}
		total, ok := slotCount(c[i])
		if !ok {
			return bad("capacity of %q: %v", s.r.space.Kind(i).Name, c[i])
		}
		if n > total {
			return bad("%v free %q slots, more than its capacity %v", v[i], s.r.space.Kind(i).Name, c[i])
		}
		free[k] = n
	}
	s.free = free
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
	f, why := s.members.Check(s.cluster, s.r.space, node)
	sentinel := ErrUnknownNode
	switch f {
	case membership.OK:
		return nil
	case membership.Disagrees:
		sentinel = ErrInvalidNode
	}
	return &Error{Op: op, Node: node.ID(), Err: sentinel, Reason: why}
}
