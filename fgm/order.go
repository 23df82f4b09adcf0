package fgm

// Algorithm 1 line 4: the Fairness order of the jobs (DRF, FIFO) and the
// job order a Schedule call walks (jobIter), kept between calls.

import (
	"cmp"
	"slices"
	"time"

	"github.com/schedkit/schedkit"
	"github.com/schedkit/schedkit/resource"
)

// JobState is what a Fairness policy reads of a job with pending tasks.
type JobState struct {
	ID schedkit.JobID
	// Submitted is when the first of the job's tasks was submitted.
	Submitted time.Time
	// Allocated is what the scheduler charges the job now: the sum over
	// its running tasks of their peak reservation (the requested
	// quantity for unpredictable tasks). A view; do not modify or keep.
	Allocated resource.Vector
	// Share is Allocated's dominant share of the capacity of the nodes
	// the scheduler knows (DRF).
	Share float64
	// Running and Pending count the job's tasks the scheduler holds.
	Running, Pending int
}

// Fairness orders jobs for Algorithm 1 line 4: jobs whose Less is true
// come first; jobs neither less than the other keep the order of their
// IDs. Less must be a strict weak order and must not keep a or b.
type Fairness interface {
	Less(a, b *JobState) bool
}

// DRF is dominant resource fairness (Ghodsi et al.), the paper's
// default: the lower dominant share first, then earlier submission.
type DRF struct{}

// Less orders by Share, then Submitted.
func (DRF) Less(a, b *JobState) bool {
	return drfLess(a.Share, a.Submitted, b.Share, b.Submitted)
}

// drfLess is DRF's Less on the fields it reads (the Scheduler compares
// keys cached in its job sets with it, see tnode).
func drfLess(aShare float64, aSub time.Time, bShare float64, bSub time.Time) bool {
	if aShare != bShare {
		return aShare < bShare
	}
	return aSub.Before(bSub)
}

// FIFO orders jobs by submission.
type FIFO struct{}

// Less orders by Submitted.
func (FIFO) Less(a, b *JobState) bool { return a.Submitted.Before(b.Submitted) }

// jobOrder is the order of the active jobs (Algorithm 1 line 4) kept
// between Schedule calls: all of them in one list (order), and per
// combination of integral kinds requested, an ordered set (sets).
type jobOrder struct {
	// The active jobs in Fairness order: jobs whose state changed since
	// are in moved (and out of place in order); resort asks for a full
	// sort (every share changed).
	order  []*jobEntry
	moved  []*jobEntry
	resort bool
	call   uint64 // Schedule calls so far (jobEntry.tried)
	// needs counts the pending queue entries by the integral kinds they
	// request (bit i: s.integral[i]; see closedKinds).
	needs [1 << maxNeedKinds]int32
	// sets holds, per combination of integral kinds, the active jobs
	// with a queue entry requesting exactly those, in compareJobs order;
	// staleIn[m] the jobs whose place in set m is stale.
	sets    [1 << maxNeedKinds]jobSet
	staleIn [1 << maxNeedKinds][]*jobEntry
	setsAll bool // every share changed: rebuild the sets
	useSets bool // 1 to maxNeedKinds integral kinds: the sets are kept
	// closedEst: useSets, and predictions from a History whose profiles
	// have at most MaxStages stages, or none (see closedKinds).
	closedEst bool
	drf       bool // Fairness is DRF: compareJobs inlines it
	// drfKey: DRF, and every job's Submitted orders as its offset from
	// the epoch (jobEntry.sub) does: the sets compare keys cached in
	// their nodes (tnode). Cleared by Scheduler.jobEntry when a job's
	// Submitted and the epoch differ in having a monotonic reading.
	drfKey  bool
	prioSeq uint64
	walk    setWalk
	jobIter jobIter // Schedule's job order
}

// compareJobs is the order of Algorithm 1 line 4: Fairness, then job
// ID. Fairness is a strict weak order and IDs are unique, so the order
// of the active jobs is unique: any way of sorting them gives it.
func (s *Scheduler) compareJobs(a, b *jobEntry) int {
	if s.drf {
		// DRF{}'s Less, without the dynamic calls.
		switch {
		case drfLess(a.state.Share, a.state.Submitted, b.state.Share, b.state.Submitted):
			return -1
		case drfLess(b.state.Share, b.state.Submitted, a.state.Share, a.state.Submitted):
			return 1
		}
		return cmp.Compare(a.state.ID, b.state.ID)
	}
	switch {
	case s.cfg.Fairness.Less(&a.state, &b.state):
		return -1
	case s.cfg.Fairness.Less(&b.state, &a.state):
		return 1
	}
	return cmp.Compare(a.state.ID, b.state.ID)
}

// sortJobs brings order to the active jobs in compareJobs order. Jobs
// whose state did not change since the last call keep their relative
// order, so only the moved ones are taken out and inserted again by
// binary search (a full sort when many moved or every share changed).
func (s *Scheduler) sortJobs() {
	if s.resort || len(s.moved) > 16+len(s.order)/8 {
		for _, j := range s.moved {
			j.moved = false
		}
		s.moved, s.resort = s.moved[:0], false
		s.order = append(s.order[:0], s.active...)
		slices.SortFunc(s.order, s.compareJobs)
		return
	}
	if len(s.moved) == 0 {
		return
	}
	k := 0
	for _, j := range s.order {
		if !j.moved {
			s.order[k] = j
			k++
		}
	}
	clear(s.order[k:])
	s.order = s.order[:k]
	for _, j := range s.moved {
		j.moved = false
		if j.activePos < 0 {
			continue
		}
		i, _ := slices.BinarySearchFunc(s.order, j, s.compareJobs)
		s.order = slices.Insert(s.order, i, j)
		s.skips.sortMoves++
	}
	s.moved = s.moved[:0]
}

// jobIter yields the active jobs of one Schedule call in compareJobs
// order (Algorithm 1 line 4): all of them (Scheduler.order, brought up
// to date by sortJobs), or, when the server has closed kinds
// (closedKinds), the merged job sets of those that can have a unit of
// each (setWalk). It leaves out the jobs done in this call and those
// all of whose entries request a closed kind.
type jobIter struct {
	s       *Scheduler
	walk    *setWalk // nil: s.order
	order   []*jobEntry
	k       int
	closed  int  // the kinds closed on the server (closedKinds)
	open    bool // no kind was closed at the start of the call
	skipped bool // a job was left out for want of a closed kind
}

// Reset starts the order of a call on server v, whose free amounts at
// now are free. It returns false, ordering nothing, when every pending
// entry requests a kind closed on v (the call places nothing).
func (it *jobIter) Reset(s *Scheduler, v *server, free resource.Vector) bool {
	closed := s.closedKinds(v, free)
	if closed != 0 && !s.anyOpen(&s.needs, closed) {
		s.skips.closedCalls++
		return false
	}
	*it = jobIter{s: s, walk: nil, order: it.order, k: -1, closed: closed, open: closed == 0}
	if closed != 0 && !s.cfg.Progressive {
		s.fixSets(s.openSets(closed))
		it.walk = &s.walk
		it.walk.start(s, closed)
		s.skips.setWalks++
		return true
	}
	s.sortJobs()
	it.order = s.order
	s.fixSets(0) // only a backlog that outgrew the jobs (dropped jobs held)
	return true
}

// Next returns the next job, nil at the end.
func (it *jobIter) Next() *jobEntry {
	s := it.s
	for {
		var j *jobEntry
		if it.walk != nil {
			j = it.walk.next()
		} else if it.k++; it.k < len(it.order) {
			j = it.order[it.k]
		}
		switch {
		case j == nil:
			return nil
		case j.tried == s.call:
		case it.closed != 0 && !s.anyOpen(&j.needs, it.closed):
			s.skips.closedJobs++ // every entry of the job needs a closed kind
			j.tried = s.call
			it.skipped = true
		default:
			return j
		}
	}
}

// Done records that the call found nothing more to place for j.
func (it *jobIter) Done(j *jobEntry) { j.tried = it.s.call }

// Placed takes a placement on v into account (free: v's free amounts at
// now after it): the kinds closed on v again. It returns false when
// every pending entry requests a closed kind (the walk stops).
func (it *jobIter) Placed(v *server, free resource.Vector) bool {
	it.closed = it.s.closedKinds(v, free)
	return it.closed == 0 || it.s.anyOpen(&it.s.needs, it.closed)
}

// Resort orders the jobs again and starts over (Progressive, after an
// allocation changed the shares).
func (it *jobIter) Resort() {
	it.s.sortJobs()
	it.order, it.k = it.s.order, -1
}

// Open reports whether no kind was closed at the start of the call.
func (it *jobIter) Open() bool { return it.open }

// Complete reports whether the call visits every active job (not the
// merged job sets, no job left out): a call that places nothing then
// met every refusal there is (refusalMemory.EndIdle).
func (it *jobIter) Complete() bool { return it.walk == nil && !it.skipped }
