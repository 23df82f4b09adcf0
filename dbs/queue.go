package dbs

import (
	"slices"
	"time"

	"github.com/schedkit/schedkit"
	"github.com/schedkit/schedkit/internal/clock"
)

// Pick is one entry of Queue: Count ready tasks of Job's Phase (= slot
// kind: map or reduce), handed out to the job in queue Queue, as an
// Assign decision of Heartbeat would say. BelowMinimum reports that the
// job held fewer slots of the kind than its model-2 minimum when the
// first of these slots was handed out (and for all of them: a run of
// slots that takes the job to its minimum ends there).
type Pick struct {
	Job          schedkit.JobID
	Phase        schedkit.Phase
	Count        int
	Queue        Queue
	BelowMinimum bool
}

// queueScratch is Queue's reusable memory: one list per queue of the
// jobs with a ready task of the kind being listed, and a cursor into it.
type queueScratch struct {
	lists [numQueues][]*entry
	curs  [numQueues]qcursor
}

// qcursor walks the order in which one queue hands out slots of one
// kind. Heartbeat serves a queue from its heap: the first job holding
// fewer slots than its minimum (those without a task time first, then
// by the queue's order: entry.ahead), until it reaches it or runs out of
// ready tasks, then the next such job; once none is below its minimum,
// the first job in the queue's order until it runs out, then the next.
// So the queue's sequence is fixed — stage A, each job below its minimum
// in that order, for what it lacks; stage B, each job in the queue's
// order, for its ready tasks left — and only the interleaving of the
// queues depends on what they hold.
type qcursor struct {
	list  []*entry // the queue's jobs with a ready task of the kind, in the queue's order
	i     int      // next index into list
	stage stage
	e     *entry // current segment's job, nil when the queue has no more
	left  int    // slots left in the current segment
	below bool   // the segment is e's part below its minimum (stage A)
}

// stage is a qcursor's stage: stage A in two passes (jobs without a
// task time, then the others; one pass without order.unknownFirst),
// then stage B.
type stage uint8

const (
	stageUnknown stage = iota // A: jobs below their minimum without a task time
	stageKnown                // A: the other jobs below their minimum
	stageB                    // every job, for its ready tasks left
)

// reset starts the cursor on list.
func (c *qcursor) reset(list []*entry, k int, o order) {
	*c = qcursor{list: list}
	switch {
	case o.noMin:
		c.stage = stageB
	case !o.unknownFirst:
		c.stage = stageKnown
	}
	c.next(k, o)
}

// next moves to the next segment (nil e when none is left).
func (c *qcursor) next(k int, o order) {
	c.e = nil
	for {
		if c.i >= len(c.list) {
			if c.stage == stageB {
				return
			}
			c.stage, c.i = c.stage+1, 0
			continue
		}
		e := c.list[c.i]
		c.i++
		lack := 0 // what stage A gives e
		if !o.noMin && e.below(k) {
			lack = min(e.minOf(k)-e.held(k), e.avail(k))
		}
		switch c.stage {
		case stageUnknown, stageKnown:
			if lack > 0 && (c.stage == stageUnknown) == (o.unknownFirst && !e.ttKnown) {
				c.e, c.left, c.below = e, lack, true
				return
			}
		default:
			if n := e.avail(k) - lack; n > 0 {
				c.e, c.left, c.below = e, n, false
				return
			}
		}
	}
}

// cmpBefore orders entries by before: weight descending, submission, ID.
func cmpBefore(a, b *entry) int {
	switch {
	case a.before(b):
		return -1
	case b.before(a):
		return 1
	}
	return 0
}

// cmpLostLast orders entries by ahead with lostLast.
func cmpLostLast(a, b *entry) int {
	switch {
	case a.ahead(b, true):
		return -1
	case b.ahead(a, true):
		return 1
	}
	return 0
}

// Queue appends to dst the order in which Heartbeat hands out the queued
// jobs' ready tasks at now: the assignments one heartbeat would make if
// the node had unlimited free slots of both kinds — all map picks, then
// all reduce picks, consecutive slots to the same job (and the same
// BelowMinimum) merged into one Pick. It is the entry point for hosts
// that place one task at a time (a Kubernetes scheduling queue pops one
// pod per cycle): give a task of kind k a slot in the order of the picks
// of kind k, skipping those that do not fit, and the tasks that get
// slots are exactly those heartbeats would assign.
//
// Precisely: for each kind, the assignments of any sequence of
// Heartbeat calls at now, on any nodes with any free slots, are a prefix
// of Queue's picks of that kind (expanded slot by slot), provided no
// call that changes the scheduler's state comes between Queue and those
// heartbeats — no Submit, Remove, Tick that updates weights, or Update
// other than the ones that report exactly the heartbeats' assignments as
// started (TestQueueIsHeartbeatPrefix) — and, with PrioritySharing and
// floors, the cluster's capacity does not change. Unlike lss.Queue there is no
// further caveat: the two kinds are handed out independently (a map
// assignment changes nothing that orders reduce slots), and within a
// kind Heartbeat's choice depends only on the slots each queue and job
// holds, which Queue tracks slot by slot. After such heartbeats, Queue at
// now returns the rest of its earlier answer.
//
// Queues interleave as in Heartbeat (floors, then by queue; with
// CapacitySharing each slot to the queue using the least fraction of
// its share; with MinimumFirst every queue's minimums first); the run of
// slots a queue keeps is computed in
// exact integer arithmetic rather than slot by slot, so the cost is
// O(n log n) for n jobs with ready tasks plus one step per Pick.
//
// Tasks already assigned since a job's last Update count as held and are
// not listed again. Queue reads the cluster's capacity (for the floors
// of PrioritySharing) and changes nothing, not even the clock (a read-only
// call: a now before an earlier one is answered as at that now): on a
// now out of range (ErrTimeRange) or a capacity it cannot read
// (ErrInvalidNode) it returns dst unchanged. It allocates only to grow
// dst and its own scratch lists, so in steady state, with dst of enough
// capacity, it does not allocate.
func (s *Scheduler) Queue(now time.Time, dst []Pick) ([]Pick, error) {
	const op = "Queue"
	if _, f := s.clk.Peek(now); f != clock.OK {
		return dst, s.timeErr(op, "", "", f, now)
	}
	capK, guar := s.capK, s.guar
	err := s.readCapacity(op, "")
	readCap := s.capK
	s.capK, s.guar = capK, guar
	if err != nil {
		return dst, err
	}
	o := s.r.order
	cmp := cmpBefore
	if o.lostLast {
		cmp = cmpLostLast
	}
	sc := &s.qs
	for k := range 2 {
		start := len(dst)
		used := [numQueues]int64{}
		for q := range numQueues {
			used[q] = int64(s.used[q][k])
			l := s.heaps[int(q)*2+k].appendTo(sc.lists[q][:0])
			slices.SortFunc(l, cmp)
			sc.lists[q] = l
			sc.curs[q].reset(l, k, o)
		}
		for {
			q := s.queueNext(&sc.curs, &used, int64(readCap[k]))
			if q < 0 {
				break
			}
			c := &sc.curs[q]
			n := min(int64(c.left), s.queueRun(q, &sc.curs, &used, int64(readCap[k])))
			if m := len(dst); m > start && dst[m-1].Job == c.e.id && dst[m-1].BelowMinimum == c.below {
				dst[m-1].Count += int(n)
			} else {
				dst = append(dst, Pick{Job: c.e.id, Phase: schedkit.Phase(k), Count: int(n), Queue: Queue(q), BelowMinimum: c.below})
			}
			used[q] += n
			c.left -= int(n)
			if c.left == 0 {
				c.next(k, o)
			}
		}
	}
	for q := range sc.lists { // drop the references to entries
		clear(sc.lists[q])
	}
	return dst, nil
}

// queueNext is pickQueue on Queue's cursors: the queue that gets the
// next slot of a kind with usage used (capacity capk), -1 if none has a
// ready task left.
func (s *Scheduler) queueNext(curs *[numQueues]qcursor, used *[numQueues]int64, capk int64) int {
	if s.r.minFirst {
		for q := int(High); q >= int(Low); q-- {
			if c := &curs[q]; c.e != nil && c.below {
				return q
			}
		}
	}
	if s.r.priority {
		first := -1
		for q := int(High); q >= int(Low); q-- {
			if curs[q].e == nil {
				continue
			}
			if used[q]*1e6 < s.r.micro[q]*capk {
				return q
			}
			if first < 0 {
				first = q
			}
		}
		return first
	}
	best := -1
	for q := int(High); q >= int(Low); q-- {
		if curs[q].e == nil {
			continue
		}
		if best < 0 || shareLess(used[q], used[best], s.r.micro[q], s.r.micro[best]) {
			best = q
		}
	}
	return best
}

// unlimited is a run longer than any segment.
const unlimited = int64(1) << 62

// queueRun returns how many consecutive slots queue q, just chosen by
// queueNext, keeps getting while only its own usage grows (at least 1).
func (s *Scheduler) queueRun(q int, curs *[numQueues]qcursor, used *[numQueues]int64, capk int64) int64 {
	if s.r.minFirst && curs[q].below {
		// The highest queue with a job below its minimum: nothing else
		// changes while it serves that job.
		return unlimited
	}
	if s.r.priority {
		if m := s.r.micro[q] * capk; used[q]*1e6 < m {
			// Below its guarantee: until used reaches it, u·1e6 < m.
			return ceilDiv(m, 1e6) - used[q]
		}
		// No queue with work is below its guarantee, and q is the
		// highest with work: so it stays while only q's usage grows.
		return unlimited
	}
	run := unlimited
	for b := range int(numQueues) {
		if b == q || curs[b].e == nil {
			continue
		}
		// q beats a higher queue strictly and a lower one or ties.
		run = min(run, winRun(used[q], used[b], s.r.micro[q], s.r.micro[b], b < q))
	}
	return max(run, 1)
}

// winRun is the number of x ≥ 0, from 0 up, for which a queue using
// uq+x slots with share sq still compares before one using ub with share
// sb under shareLess: strictly (orEqual false) or allowing a tie.
func winRun(uq, ub, sq, sb int64, orEqual bool) int64 {
	switch {
	case sq == 0 && sb == 0: // by usage
		if orEqual {
			return ub - uq + 1
		}
		return ub - uq
	case sq == 0:
		return 0
	case sb == 0:
		return unlimited
	}
	// (uq+x)·sb < ub·sq, or ≤.
	n := ub * sq
	if orEqual {
		return n/sb - uq + 1
	}
	return ceilDiv(n, sb) - uq
}

// ceilDiv returns ⌈a/b⌉ for a ≥ 0, b > 0.
func ceilDiv(a, b int64) int64 { return (a + b - 1) / b }
