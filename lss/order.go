package lss

import (
	"slices"
	"time"

	"github.com/schedkit/schedkit"
	"github.com/schedkit/schedkit/estimate"
	"github.com/schedkit/schedkit/internal/clock"
)

// JobStatus is one queued job as Order reports it.
type JobStatus struct {
	Job     schedkit.JobID
	Figures Figures
	// Kill is the kill rule the job meets at now, NoReason if none: what
	// a Heartbeat at now would decide for it (Kill, or Infeasible if not
	// yet reported).
	Kill Reason
}

// Order appends the queue, in least-spare-time order at now, with each
// job's figures, to dst. It decides nothing and changes nothing; it reads
// the cluster's capacity (errors as for Heartbeat) and costs O(n log n).
// Use it to inspect or display the queue.
func (s *Scheduler) Order(now time.Time, dst []JobStatus) ([]JobStatus, error) {
	const op = "Order"
	if len(s.all) == 0 {
		return dst, nil // (and the epoch may not be set yet)
	}
	r, f := s.clock.Peek(now)
	if f != clock.OK {
		return dst, s.timeErr(op, "", "", f, now)
	}
	nowOff := r.Now
	caps := make([]estimate.Capacity, len(s.lay.phaseKind))
	if err := s.readCapacity(op, caps); err != nil {
		return dst, err
	}
	type row struct {
		e  *entry
		ev eval
	}
	rows := make([]row, len(s.all))
	for i, e := range s.all {
		rows[i] = row{e, s.evaluate(e, nowOff, caps)}
	}
	slices.SortFunc(rows, func(a, b row) int {
		return cmpOrder(a.ev.class, a.ev.value, a.e, b.ev.class, b.ev.value, b.e)
	})
	for i := range rows {
		r := &rows[i]
		dst = append(dst, JobStatus{Job: r.e.id, Figures: s.figures(r.e, &r.ev, now), Kill: killReason(r.e, &r.ev, nowOff)})
	}
	return dst, nil
}
