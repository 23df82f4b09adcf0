package fgm

// The job order kept between calls, an acceleration of Algorithm 1's
// walk: line 4's Fairness order of the active jobs is kept from one
// Schedule call to the next, and only the jobs whose state changed since
// are put back in place, instead of every job sorted at every call.

import "slices"

// keptOrder keeps the active jobs in compareJobs order between calls
// (jobs): jobs whose state changed since are in moved (and out of place
// in jobs); resort asks for a full sort (every share changed).
type keptOrder struct {
	noStage
	s         *Scheduler
	jobs      []*jobEntry
	moved     []*jobEntry
	isMoved   slotTable[bool]
	resort    bool
	src       keptSource
	sortMoves uint64 // jobs put back in place by binary search
}

func newKeptOrder(s *Scheduler) stage {
	k := &keptOrder{s: s}
	k.src.k = k
	return k
}

func (k *keptOrder) hooks() hookSet { return onQueue | onOrder }

func (k *keptOrder) counts(add func(string, uint64)) { add("sortMoves", k.sortMoves) }

func (k *keptOrder) jobMoved(j *jobEntry) {
	if m := k.isMoved.of(j, nil); !*m {
		*m = true
		k.moved = append(k.moved, j)
	}
}

func (k *keptOrder) reshared() { k.resort = true }

func (k *keptOrder) order(*walk) jobSource {
	k.sort()
	k.src.i = -1
	return &k.src
}

// sort brings order to the active jobs in compareJobs order. Jobs whose
// state did not change since the last call keep their relative order,
// so only the moved ones are taken out and inserted again by binary
// search (a full sort when many moved or every share changed).
func (k *keptOrder) sort() {
	s := k.s
	if k.resort || len(k.moved) > 16+len(k.jobs)/8 {
		k.unmark()
		k.resort = false
		k.jobs = append(k.jobs[:0], s.active...)
		slices.SortFunc(k.jobs, s.compareJobs)
		return
	}
	if len(k.moved) == 0 {
		return
	}
	n := 0
	for _, j := range k.jobs {
		// Kept: in place and active (a job dropped since is inactive,
		// its slot perhaps another job's).
		if m := k.isMoved.held(j); j.activePos >= 0 && (m == nil || !*m) {
			k.jobs[n] = j
			n++
		}
	}
	clear(k.jobs[n:])
	k.jobs = k.jobs[:n]
	for _, j := range k.moved {
		if m := k.isMoved.held(j); m == nil || !*m {
			continue // listed twice, or dropped since
		}
		*k.isMoved.held(j) = false
		if j.activePos < 0 {
			continue
		}
		i, _ := slices.BinarySearchFunc(k.jobs, j, s.compareJobs)
		k.jobs = slices.Insert(k.jobs, i, j)
		k.sortMoves++
	}
	clear(k.moved)
	k.moved = k.moved[:0]
}

// unmark empties moved.
func (k *keptOrder) unmark() {
	for _, j := range k.moved {
		if m := k.isMoved.held(j); m != nil {
			*m = false
		}
	}
	clear(k.moved)
	k.moved = k.moved[:0]
}

// keptSource walks keptOrder's order.
type keptSource struct {
	k *keptOrder
	i int
}

func (o *keptSource) next() *jobEntry {
	if o.i++; o.i < len(o.k.jobs) {
		return o.k.jobs[o.i]
	}
	return nil
}

func (o *keptSource) resort() {
	o.k.sort()
	o.i = -1
}

func (o *keptSource) complete() bool { return true }
