package workload

import (
	"time"

	"github.com/schedkit/schedkit/resource"
)

// Workload is a list of jobs to submit, in submission order, plus a record
// of every rule used to fill in what its source did not say.
type Workload struct {
	// Name identifies the workload in reports (e.g. "paper000-light",
	// "FB-2009").
	Name string
	// Jobs in non-decreasing Submit order; ties keep slice order.
	Jobs []JobSpec
	// Assumptions lists, one line each, every generated quantity and the
	// rule that produced it (task durations, deadlines, budgets...), for
	// schedsim to print.
	Assumptions []string
}

// JobSpec is one job as a workload describes it. Times are offsets from
// the start of the simulation.
type JobSpec struct {
	ID     string        // unique within the workload
	Class  string        // workflow, pool or queue the job belongs to
	Submit time.Duration // offset from simulation start, ≥ 0
	// Deadline is relative to Submit; 0 means no deadline.
	Deadline time.Duration
	// Budget in price units; 0 means no budget.
	Budget float64
	// Phi is the time-influence factor of paper 003 (1 deadline-first,
	// 0 budget-first); ignored by schedulers that do not read it.
	Phi float64
	// Phases in order; tasks of phase p become ready only after the
	// previous phase (subject to the simulator's slow-start fraction).
	Phases []PhaseSpec
}

// PhaseSpec is one sequential phase of a job: its tasks one by one
// (Tasks), or many tasks alike described compactly (Batch). Read a phase
// through Len, Duration and Task, which serve both forms.
type PhaseSpec struct {
	Tasks []TaskSpec
	// Batch, used when Tasks is empty, is the compact form: a trace day
	// of 16 million map tasks needs 8 bytes per task instead of a
	// TaskSpec with its own Profile and vectors.
	Batch *TaskBatch
}

// TaskBatch describes a phase of tasks that differ only in their
// isolated duration: task i has kind Kind, input DataSize, similarity
// key (Logic, DataSize), and the Requested vector and Profile Shaper
// gives for Durations[i]; no locations.
type TaskBatch struct {
	Logic     string
	DataSize  int64
	Kind      TaskKind
	Shaper    Shaper
	Durations []time.Duration
}

// Len returns the number of tasks in the phase.
func (p *PhaseSpec) Len() int {
	if len(p.Tasks) == 0 && p.Batch != nil {
		return len(p.Batch.Durations)
	}
	return len(p.Tasks)
}

// Duration returns task i's isolated run time.
func (p *PhaseSpec) Duration(i int) time.Duration {
	if len(p.Tasks) == 0 && p.Batch != nil {
		return p.Batch.Durations[i]
	}
	return p.Tasks[i].Duration()
}

// Task returns task i: &Tasks[i], or, for a batch, task i shaped into
// buf (whose slices are reused when long enough) and buf returned.
func (p *PhaseSpec) Task(i int, buf *TaskSpec) (*TaskSpec, error) {
	if len(p.Tasks) > 0 || p.Batch == nil {
		return &p.Tasks[i], nil
	}
	b := p.Batch
	dims := b.Shaper.Space().Len()
	stages := b.Shaper.Stages(b.Kind)
	buf.Logic, buf.DataSize, buf.Locations = b.Logic, b.DataSize, nil
	buf.Requested = zeroed(buf.Requested, dims)
	if cap(buf.Profile) < stages {
		buf.Profile = make([]Stage, stages)
	}
	buf.Profile = buf.Profile[:stages]
	for s := range buf.Profile {
		buf.Profile[s].Duration = 0
		buf.Profile[s].Demand = zeroed(buf.Profile[s].Demand, dims)
	}
	if err := b.Shaper.Shape(b.Kind, b.Durations[i], b.DataSize, buf.Requested, buf.Profile); err != nil {
		return nil, err
	}
	return buf, nil
}

func zeroed(v resource.Vector, n int) resource.Vector {
	if cap(v) < n {
		return make(resource.Vector, n)
	}
	v = v[:n]
	clear(v)
	return v
}

// TaskSpec is one task: what the user declares, and the true behaviour the
// scheduler never sees.
type TaskSpec struct {
	// Logic and DataSize form the task's similarity key (paper 004).
	Logic    string
	DataSize int64
	// Requested is the quantity the user declares, in the cluster's Space.
	Requested resource.Vector
	// Profile is the task's true demand over its life, stage by stage,
	// when it runs uncontended. Its total duration is the task's isolated
	// run time.
	Profile []Stage
	// Locations lists preferred nodes by index in the cluster (data
	// locality); empty means none.
	Locations []int
}

// Stage is one stage of a true task profile: a demand held for a duration.
type Stage struct {
	Duration time.Duration
	Demand   resource.Vector
}

// Duration returns the task's isolated run time: the sum of its stages.
func (t TaskSpec) Duration() time.Duration {
	var d time.Duration
	for _, s := range t.Profile {
		d += s.Duration
	}
	return d
}
