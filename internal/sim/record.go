package sim

import (
	"time"

	"github.com/schedkit/schedkit/internal/metrics"
	"github.com/schedkit/schedkit/resource"
)

// recordChunk is how many vectors' worth of floats the record arena
// grows by at a time.
const recordChunk = 4096

// recordAttempt appends t's running attempt to the task records
// (Config.RecordTasks): time-weighted means of allocation, actual usage
// and true demand, and the attempt's cost, up to now.
func (s *Sim) recordAttempt(t *Task, outcome metrics.TaskOutcome) {
	a := t.run
	s.integrate(a)
	s.accrueAttempt(t)
	r := metrics.TaskRecord{
		Job:     string(t.job.id),
		Task:    string(t.ID()),
		Phase:   int(t.phase),
		Node:    int(t.node.idx),
		Attempt: int(t.attempts),
		Start:   time.Duration(a.start),
		End:     time.Duration(s.now),
		Outcome: outcome,
		Cost:    a.rec.cost,
	}
	for _, st := range a.profile {
		r.Work += st.Duration
	}
	if dur := float64(s.now - a.start); dur > 0 {
		r.Alloc = s.meanVec(a.rec.allocSum, dur)
		r.Used = s.meanVec(a.rec.usedSum, dur)
		r.Demand = s.meanVec(a.rec.demSum, dur)
	}
	s.records = append(s.records, r)
}

// meanVec returns sum/dur as a vector cut from the record arena.
func (s *Sim) meanVec(sum []float64, dur float64) resource.Vector {
	if len(s.recVecs) < s.k {
		s.recVecs = make([]float64, recordChunk*s.k)
	}
	v := resource.Vector(s.recVecs[:s.k:s.k])
	s.recVecs = s.recVecs[s.k:]
	for k, x := range sum {
		v[k] = x / dur
	}
	return v
}
