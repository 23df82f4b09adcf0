package policy

import (
	"github.com/schedkit/schedkit"
	"github.com/schedkit/schedkit/internal/sim"
)

// jobTable is a job-queue adapter's state per job, indexed by
// sim.Job.Index, and the queued jobs whose counters changed since the
// scheduler last read them: the simulator's task callbacks mark a job,
// and the adapter flushes the marks into the scheduler's Update before
// its next decision. W is what the adapter shows the scheduler for a job.
type jobTable[W any] struct {
	rows  []jobRow[W]
	dirty []*sim.Job
	// lazy are the queued jobs whose counter changes the scheduler
	// needs only at its next periodic call (markLazy, flushLazy).
	lazy []*sim.Job
}

// jobRow is one job's state in a jobTable.
type jobRow[W any] struct {
	queued bool // submitted to the scheduler and neither removed nor killed
	dirty  bool // in jobTable.dirty
	lazy   bool // in jobTable.lazy, and not updated since
	job    W
}

// row returns j's row, growing the table as jobs arrive.
func (t *jobTable[W]) row(j *sim.Job) *jobRow[W] {
	i := j.Index()
	if i >= len(t.rows) {
		t.rows = append(t.rows, make([]jobRow[W], i+1-len(t.rows))...)
	}
	return &t.rows[i]
}

// mark notes that a queued job's counters changed.
func (t *jobTable[W]) mark(j *sim.Job) {
	r := t.row(j)
	if r.queued && !r.dirty {
		r.dirty = true
		t.dirty = append(t.dirty, j)
	}
}

// flush passes every marked job that is still queued and active to
// update, in marking order, and clears the marks; the first error stops
// it (the remaining marks are dropped with it: the run ends).
func (t *jobTable[W]) flush(update func(schedkit.JobID) error) error {
	if len(t.dirty) == 0 {
		return nil
	}
	defer func() {
		clear(t.dirty)
		t.dirty = t.dirty[:0]
	}()
	for _, j := range t.dirty {
		r := t.row(j)
		r.dirty, r.lazy = false, false // the update covers a lazy mark
		if !r.queued || !j.Active() {
			continue
		}
		if err := update(j.ID()); err != nil {
			return err
		}
	}
	return nil
}

// markLazy notes that a queued job's counters changed in a way the
// scheduler's next decisions do not depend on (the caller knows why);
// flushLazy passes it to update later, unless a mark's flush does first.
func (t *jobTable[W]) markLazy(j *sim.Job) {
	r := t.row(j)
	if r.queued && !r.dirty && !r.lazy {
		r.lazy = true
		t.lazy = append(t.lazy, j)
	}
}

// flushLazy passes every lazily marked job that is still queued, active
// and not updated since to update, in marking order, and clears the
// marks; the first error stops it (as flush).
func (t *jobTable[W]) flushLazy(update func(schedkit.JobID) error) error {
	if len(t.lazy) == 0 {
		return nil
	}
	defer func() {
		clear(t.lazy)
		t.lazy = t.lazy[:0]
	}()
	for _, j := range t.lazy {
		r := t.row(j)
		if !r.lazy {
			continue
		}
		r.lazy = false
		if !r.queued || !j.Active() {
			continue
		}
		if err := update(j.ID()); err != nil {
			return err
		}
	}
	return nil
}
