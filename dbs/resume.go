package dbs

import (
	"time"

	"github.com/schedkit/schedkit"
)

// Saved is what a Scheduler keeps of a job that the job's own values
// (its Job) do not give back and the next weight update does not
// recompute from them: the queue model 3 moved it to, the marks the
// last weight update left (model 3 moves a job marked at two updates in
// a row) and its last move (the hold-down). A host that must survive a
// restart keeps each job's Saved (Save) whenever it changes, and Resume
// puts the job back in it; the weight and minimum slots are not in it:
// the next weight update recomputes them from the job, its queue and
// the cluster (model 3 reads model 1's weight, not the last update's),
// and until then Resume's evaluation at now orders the job.
type Saved struct {
	Queue                      Queue
	MarkedShort, MarkedSurplus bool
	// LastMove is the job's last queue move (Promote or Demote; 0 if
	// none) and MovedAt when it was taken (zero without one).
	LastMove Action
	MovedAt  time.Time
}

// Save returns job id's Saved state.
func (s *Scheduler) Save(id schedkit.JobID) (Saved, error) {
	e, ok := s.jobs[id]
	if !ok {
		return Saved{}, &Error{Op: "Save", Job: id, Err: ErrUnknownJob}
	}
	st := Saved{Queue: e.queue, MarkedShort: e.pendUp, MarkedSurplus: e.pendDown, LastMove: e.lastMove}
	if e.lastMove != 0 {
		st.MovedAt = s.epoch.Add(time.Duration(e.movedAt))
	}
	return st, nil
}

// Resume queues job j as Submit does, then in the state st a scheduler
// saved of it (Save): in st.Queue, with its marks and last move. It
// fails, queuing nothing, where Submit fails, and on a queue or move
// that is none of the package's, a move without its time (or a time
// without a move), or a move after now (ErrInvalidJob).
func (s *Scheduler) Resume(now time.Time, j Job, st Saved) error {
	const op = "Resume"
	var id schedkit.JobID
	if j != nil {
		id = j.ID()
	}
	switch {
	case st.Queue >= numQueues:
		return errf(op, ErrInvalidJob, id, "saved queue %d is none of low, mid, high", st.Queue)
	case st.LastMove != 0 && st.LastMove != Promote && st.LastMove != Demote:
		return errf(op, ErrInvalidJob, id, "saved last move %v is neither promote nor demote", st.LastMove)
	case (st.LastMove == 0) != st.MovedAt.IsZero():
		return errf(op, ErrInvalidJob, id, "saved last move %v at %v: a move needs its time and a time its move", st.LastMove, st.MovedAt)
	case st.MovedAt.After(now):
		return errf(op, ErrInvalidJob, id, "saved move at %v, after now %v", st.MovedAt, now)
	}
	if err := s.Submit(now, j); err != nil {
		if e, ok := err.(*Error); ok {
			e.Op = op
		}
		return err
	}
	e := s.jobs[id]
	if st.Queue != e.queue {
		s.unplace(e)
		s.addUsed(e, -1)
		s.nq[e.queue]--
		e.queue = st.Queue
		s.nq[e.queue]++
		s.addUsed(e, 1)
		s.evaluate(e, now, s.costs[e.allPos]) // model 1 at the saved queue's price
		e.w = e.ev.m1.W
		s.place(e)
	}
	e.pendUp, e.pendDown, e.lastMove = st.MarkedShort, st.MarkedSurplus, st.LastMove
	if st.LastMove != 0 {
		e.movedAt = int64(st.MovedAt.Sub(s.epoch))
	}
	return nil
}

// ResumeUpdates sets when the last weight update ran to last, as a
// restarted host's predecessor's (LastUpdate), so that the first weight
// update runs once Interval has passed since last rather than at the
// first Tick: the updates keep their times across the restart. It fails
// (ErrStaleTime) once a weight update has run; a zero last changes
// nothing.
func (s *Scheduler) ResumeUpdates(last time.Time) error {
	if s.updatedSet {
		return &Error{Op: "ResumeUpdates", Err: ErrStaleTime, Reason: "a weight update has run"}
	}
	if !last.IsZero() {
		s.updated, s.updatedSet = last, true
	}
	return nil
}
