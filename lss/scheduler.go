package lss

import (
	"math"
	"time"

	"github.com/schedkit/schedkit"
	"github.com/schedkit/schedkit/estimate"
	"github.com/schedkit/schedkit/internal/clock"
	"github.com/schedkit/schedkit/internal/membership"
	"github.com/schedkit/schedkit/internal/nilvalue"
	"github.com/schedkit/schedkit/resource"
)

// Scheduler is the least spare time scheduler of paper 000: a queue of
// deadline jobs, and on every node heartbeat the decisions of Algorithm 1.
//
// The host drives it: Submit when a job arrives, Update whenever a job's
// counters change (a task started, finished, failed, or became ready),
// Remove when a job ends or is withdrawn, and Heartbeat when a node
// reports. The scheduler reads a job's counters only in Submit and Update;
// between them it trusts its snapshot. Assignments it returns count as
// started for that job (they are neither ready nor free for a first map)
// until the job's next Update, so a host that heartbeats several nodes
// before applying decisions never over-assigns a job's tasks.
//
// A Scheduler is not safe for concurrent use: call it from the host's
// scheduling loop.
type Scheduler struct {
	cfg     Config
	cluster schedkit.Cluster
	space   *resource.Space
	lay     layout
	speeds  map[schedkit.NodeID]int64 // milli-speeds (Heterogeneous)

	// clock holds the epoch (the first now a Submit or Heartbeat
	// succeeded with) and the latest such now; times are offsets from
	// the epoch.
	clock clock.Clock

	// members checks that a heartbeating node belongs to the cluster.
	members membership.Index

	jobs map[schedkit.JobID]*entry
	all  []*entry // queued jobs, dense, in no particular order
	pool []*entry // removed entries for reuse

	// Per heartbeat.
	seq     uint64
	caps    []estimate.Capacity // capacity per phase, as indexed (fast) or read (literal)
	capsNew []estimate.Capacity
	kindCap []estimate.Capacity
	free    []int // free slots per kind on the heartbeating node
	prog    [schedkit.MaxPhases]schedkit.PhaseProgress
	hint    [schedkit.MaxPhases]time.Duration
	kills   []*entry
	order   []*entry
	touched []*entry

	// Fast path index (fast.go).
	indexed bool
	elig    []jheap // per kind: static jobs with ready tasks of that kind
	fresh   jheap   // static jobs with nothing finished, running or assigned
	kill    jheap   // static deadline jobs by kill time
	dyn     []*entry
	dynSort []*entry
}

// New returns a Scheduler for cfg, or an error wrapping ErrConfig.
func New(cfg Config) (*Scheduler, error) {
	space, lay, err := cfg.resolve()
	if err != nil {
		return nil, err
	}
	s := &Scheduler{
		cfg:     cfg,
		cluster: cfg.Cluster,
		space:   space,
		lay:     lay,
		jobs:    make(map[schedkit.JobID]*entry),
	}
	s.cfg.PhaseKinds = nil
	s.cfg.NodeSpeeds = nil
	if cfg.Heterogeneous {
		s.speeds = make(map[schedkit.NodeID]int64, len(cfg.NodeSpeeds))
		for id, v := range cfg.NodeSpeeds {
			s.speeds[id] = int64(math.Round(v * 1000))
		}
	}
	nph, nk := len(lay.phaseKind), len(lay.kindIndex)
	s.caps = make([]estimate.Capacity, nph)
	s.capsNew = make([]estimate.Capacity, nph)
	s.kindCap = make([]estimate.Capacity, nk)
	s.free = make([]int, nk)
	s.elig = make([]jheap, nk)
	for k := range s.elig {
		s.elig[k] = newStaticHeap(k)
	}
	s.fresh = newStaticHeap(nk)
	s.kill = newKillHeap(nk + 1)
	return s, nil
}

// Len returns the number of queued jobs.
func (s *Scheduler) Len() int { return len(s.all) }

// Phases returns the number of phases the scheduler was configured for
// (2 unless Config.PhaseKinds lists more).
func (s *Scheduler) Phases() int { return len(s.lay.phaseKind) }

// timeErr is the error for a clock fault of now: ErrTimeRange or
// ErrStaleTime.
func (s *Scheduler) timeErr(op string, job schedkit.JobID, node schedkit.NodeID, f clock.Fault, now time.Time) error {
	sentinel := ErrStaleTime
	if f == clock.Range {
		sentinel = ErrTimeRange
	}
	return &Error{Op: op, Job: job, Node: node, Err: sentinel, Reason: s.clock.Reason(f, now)}
}

// readProgress reads and checks j's counters into s.prog.
func (s *Scheduler) readProgress(op string, j schedkit.Job, id schedkit.JobID, n int) error {
	for p := range n {
		pr := j.Progress(schedkit.Phase(p))
		if err := pr.Validate(); err != nil {
			return &Error{Op: op, Job: id, Err: ErrInvalidJob, Reason: "phase " + schedkit.Phase(p).String(), Cause: err}
		}
		s.prog[p] = pr
	}
	return s.readHints(op, j, id, n)
}

// readHints reads j's per-phase task time hints into s.hint when
// PhaseTaskTimeHints is on (zero for none), and checks them.
func (s *Scheduler) readHints(op string, j schedkit.Job, id schedkit.JobID, n int) error {
	clear(s.hint[:n])
	if !s.cfg.PhaseTaskTimeHints {
		return nil
	}
	h, ok := j.(PhaseTaskTimeHinter)
	if !ok {
		return nil
	}
	for p := range n {
		d, ok := h.PhaseTaskTimeHint(schedkit.Phase(p))
		if !ok {
			continue
		}
		if d < 0 || d > estimate.Horizon {
			return errf(op, ErrInvalidJob, id, "phase %s: task time hint %v outside [0, 2^60 ns]", schedkit.Phase(p), d)
		}
		s.hint[p] = d
	}
	return nil
}

// Submit queues job j, which arrived at now (or earlier). It reads the
// job's ID, submission time, deadline and counters (and, with
// PhaseTaskTimeHints, its phase hints). It fails, queuing nothing, on a
// nil job (also a typed nil pointer), an empty or duplicate ID, a zero
// submission time, more
// phases than configured, inconsistent counters or a bad phase hint, a
// submission time after now, a deadline before the submission or already
// passed at now, a now before the latest time given to Submit or
// Heartbeat (ErrStaleTime), a now, submission or deadline more than 2⁶⁰
// ns from the first time given (ErrTimeRange), or — with Admission — a
// job refused (*RefusedError). A zero Deadline means the job has none: it is
// never killed and comes after every deadline job.
func (s *Scheduler) Submit(now time.Time, j schedkit.Job) error {
	const op = "Submit"
	if nilvalue.Is(j) {
		return &Error{Op: op, Err: ErrInvalidJob, Reason: nilvalue.Text("job", j)}
	}
	id := j.ID()
	if id == "" {
		return &Error{Op: op, Err: ErrInvalidJob, Reason: "empty job ID"}
	}
	if _, dup := s.jobs[id]; dup {
		return &Error{Op: op, Job: id, Err: ErrDuplicateJob}
	}
	if j.Submitted().IsZero() {
		return errf(op, ErrInvalidJob, id, "zero submission time")
	}
	r, f := s.clock.Check(now)
	if f != clock.OK {
		return s.timeErr(op, id, "", f, now)
	}
	nowOff := r.Now
	sub, ok2 := r.Offset(j.Submitted())
	deadline := j.Deadline()
	hasDL := !deadline.IsZero()
	var dl int64
	ok3 := true
	if hasDL {
		dl, ok3 = r.Offset(deadline)
	}
	switch {
	case !ok2:
		return &Error{Op: op, Job: id, Err: ErrTimeRange, Reason: r.OutOfRange("submission", j.Submitted())}
	case !ok3:
		return &Error{Op: op, Job: id, Err: ErrTimeRange, Reason: r.OutOfRange("deadline", deadline)}
	case sub > nowOff:
		return errf(op, ErrInvalidJob, id, "submitted %v, after now %v", j.Submitted(), now)
	case hasDL && dl < sub:
		return errf(op, ErrInvalidJob, id, "deadline %v before submission %v", deadline, j.Submitted())
	case hasDL && nowOff > dl:
		return errf(op, ErrInvalidJob, id, "deadline %v already passed at %v", deadline, now)
	}
	n := j.Phases()
	if n < 1 || n > len(s.lay.phaseKind) {
		return errf(op, ErrInvalidJob, id, "%d phases; configured for 1..%d", n, len(s.lay.phaseKind))
	}
	if err := s.readProgress(op, j, id, n); err != nil {
		return err
	}
	if s.cfg.Admission && hasDL {
		if err := s.admit(now, nowOff, j, id, dl, sub, n); err != nil {
			return err
		}
	}

	s.clock.Commit(r)
	e := s.newEntry(n)
	e.job, e.id, e.sub, e.dl, e.hasDL, e.deadline = j, id, sub, dl, hasDL, deadline
	copy(e.prog, s.prog[:n])
	copy(e.hint, s.hint[:n])
	s.jobs[id] = e
	e.alive = true
	e.allPos = len(s.all)
	s.all = append(s.all, e)
	s.reindex(e)
	return nil
}

// newEntry returns a reset entry for a job of n phases, reusing a removed
// one when it can.
func (s *Scheduler) newEntry(n int) *entry {
	var e *entry
	if k := len(s.pool); k > 0 {
		e = s.pool[k-1]
		s.pool[k-1] = nil
		s.pool = s.pool[:k-1]
		prog, out, hint, pos := e.prog, e.out, e.hint, e.pos
		*e = entry{}
		e.prog, e.out, e.hint, e.pos = prog, out, hint, pos
	} else {
		e = &entry{}
	}
	if cap(e.prog) < n {
		e.prog = make([]schedkit.PhaseProgress, n)
		e.out = make([]int, n)
		e.hint = make([]time.Duration, n)
	}
	e.prog, e.out, e.hint = e.prog[:n], e.out[:n], e.hint[:n]
	clear(e.out)
	clear(e.hint)
	if e.pos == nil {
		e.pos = make([]int32, len(s.elig)+2)
	}
	for i := range e.pos {
		e.pos[i] = -1
	}
	e.dynPos = -1
	return e
}

// Update re-reads job id's counters (and phase hints, with
// PhaseTaskTimeHints). Call it after every change to them;
// it also tells the scheduler that the counters now include every
// assignment it returned for the job. On an error (unknown ID, a changed
// phase count, inconsistent counters, a bad phase hint) the previous
// snapshot is kept.
func (s *Scheduler) Update(id schedkit.JobID) error {
	const op = "Update"
	e, ok := s.jobs[id]
	if !ok {
		return &Error{Op: op, Job: id, Err: ErrUnknownJob}
	}
	if n := e.job.Phases(); n != len(e.prog) {
		return errf(op, ErrInvalidJob, id, "phase count changed from %d to %d", len(e.prog), n)
	}
	if err := s.readProgress(op, e.job, id, len(e.prog)); err != nil {
		return err
	}
	copy(e.prog, s.prog[:len(e.prog)])
	copy(e.hint, s.hint[:len(e.prog)])
	clear(e.out)
	s.reindex(e)
	return nil
}

// Remove drops job id from the queue: it finished, failed, or the host
// withdrew it. Killed jobs are dropped by the Kill decision itself;
// removing one returns ErrUnknownJob.
func (s *Scheduler) Remove(id schedkit.JobID) error {
	e, ok := s.jobs[id]
	if !ok {
		return &Error{Op: "Remove", Job: id, Err: ErrUnknownJob}
	}
	s.drop(e)
	return nil
}

// drop removes e from every structure and returns it to the pool.
func (s *Scheduler) drop(e *entry) {
	delete(s.jobs, e.id)
	last := s.all[len(s.all)-1]
	s.all[e.allPos] = last
	last.allPos = e.allPos
	s.all[len(s.all)-1] = nil
	s.all = s.all[:len(s.all)-1]
	s.unindex(e)
	e.alive = false
	e.job = nil
	s.pool = append(s.pool, e)
}

// SetNodeSpeed sets the speed factor of a node for Heterogeneous (1 for
// nodes never set), rounded to thousandths. It fails with ErrConfig
// without Heterogeneous or for a speed outside [0.001, 1000] (NaN
// included). The new
// effective capacity applies from the next Heartbeat.
func (s *Scheduler) SetNodeSpeed(id schedkit.NodeID, speed float64) error {
	if !s.cfg.Heterogeneous {
		return &Error{Op: "SetNodeSpeed", Node: id, Err: ErrConfig, Reason: "Heterogeneous is off"}
	}
	if why := speedFault(speed); why != "" {
		return &Error{Op: "SetNodeSpeed", Node: id, Err: ErrConfig, Reason: why}
	}
	s.speeds[id] = int64(math.Round(speed * 1000))
	return nil
}
