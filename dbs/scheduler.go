package dbs

import (
	"fmt"
	"math"
	"time"

	"github.com/schedkit/schedkit"
	"github.com/schedkit/schedkit/estimate"
)

// Scheduler is the DBS scheduler of paper 003: three price-tiered queues
// of deadline- and budget-constrained jobs, weights (model 1), minimum
// slots (model 2), a periodic weight update with promotion and demotion
// (model 3), and slot assignment on every node heartbeat.
//
// The host drives it: Submit when a job arrives, Update whenever a job's
// counters change, Remove when a job ends or is withdrawn, Tick
// periodically (it updates weights every Config.Interval), and Heartbeat
// when a node reports free slots. Assignments count as held and started
// for their job until its next Update, so several heartbeats before the
// host applies anything never over-assign a job.
//
// A Scheduler is not safe for concurrent use: call it from the host's
// scheduling loop.
type Scheduler struct {
	cfg     Config
	r       resolved
	cluster schedkit.Cluster

	last    time.Time // latest now given
	lastSet bool
	epoch   time.Time // first submission seen; submission offsets from it
	epochOK bool

	updated    time.Time // last weight update
	updatedSet bool

	jobs map[schedkit.JobID]*entry
	all  []*entry
	pool []*entry

	nq    [numQueues]int    // jobs per queue
	used  [numQueues][2]int // slots held per queue and kind
	guar  [numQueues][2]float64
	capK  [2]float64
	free  [2]int
	heaps [numQueues * 2]qheap

	// Tick scratch.
	moves []Decision
}

// entry is the scheduler's state for one queued job. The fields heap
// comparisons and heartbeats read come first, to share cache lines.
type entry struct {
	w      float64
	sub    int64 // ns from the epoch, for ordering
	id     schedkit.JobID
	minK   [2]int32 // model-2 minimum per phase (= slot kind)
	heldK  [2]int32 // running + assigned since the last Update
	availK [2]int32 // ready − assigned since the last Update
	pos    [numQueues * 2]int32
	queue  Queue
	nph    int

	job         Job
	subT        time.Time
	deadline    time.Time
	dlOff       int64 // deadline − epoch
	hasDL       bool
	phi, budget float64
	cost        float64 // last CostSoFar read
	newCost     float64 // read by a Tick before it commits
	reduceInput int64
	hint        time.Duration
	tt          time.Duration // Tm = Tr: formula (2), hint or default
	ttKnown     bool
	prog        [2]schedkit.PhaseProgress

	ev        eval
	pendUp    bool // short and above average at the last update
	pendDown  bool // surplus and above average at the last update
	noAfford  bool
	updatedAt time.Time
	allPos    int
}

// eval is one evaluation of models 1 and 2 for a job.
type eval struct {
	m1       WeightFigures
	min      MinResult
	slotSecs float64
	cost     float64
}

// held returns the slots of kind (= phase) k the job holds.
func (e *entry) held(k int) int { return int(e.heldK[k]) }

// avail returns the job's ready tasks of phase k not yet assigned.
func (e *entry) avail(k int) int { return int(e.availK[k]) }

// minOf returns the model-2 minimum for phase k.
func (e *entry) minOf(k int) int { return int(e.minK[k]) }

// below reports whether the job holds fewer slots of kind k than its
// minimum.
func (e *entry) below(k int) bool { return e.heldK[k] < e.minK[k] }

// setMin copies the evaluation's minimums where heaps compare them.
func (e *entry) setMin() {
	e.minK = [2]int32{int32(e.ev.min.Map), int32(e.ev.min.Reduce)}
}

// setCounters stores a snapshot of the job's counters: nothing assigned
// since.
func (e *entry) setCounters(prog [2]schedkit.PhaseProgress, nph int) {
	e.prog, e.nph = prog, nph
	e.heldK, e.availK = [2]int32{}, [2]int32{}
	for p := range nph {
		e.heldK[p] = int32(min(prog[p].Running, maxSlots))
		e.availK[p] = int32(min(prog[p].Ready, maxSlots))
	}
}

// before orders jobs within a queue: weight descending, submission, ID.
func (e *entry) before(b *entry) bool {
	if e.w != b.w {
		return e.w > b.w
	}
	if e.sub != b.sub {
		return e.sub < b.sub
	}
	return e.id < b.id
}

// New returns a Scheduler for cfg, or an error wrapping ErrConfig.
func New(cfg Config) (*Scheduler, error) {
	r, err := cfg.resolve()
	if err != nil {
		return nil, err
	}
	s := &Scheduler{cfg: cfg, r: r, cluster: cfg.Cluster, jobs: make(map[schedkit.JobID]*entry)}
	for q := range numQueues {
		for k := range 2 {
			s.heaps[int(q)*2+k] = qheap{slot: int(q)*2 + k, kind: k, noMin: cfg.NoMinimumSlots}
		}
	}
	return s, nil
}

// Len returns the number of queued jobs.
func (s *Scheduler) Len() int { return len(s.all) }

// Queues returns the resolved queue configuration, indexed by Queue.
func (s *Scheduler) Queues() [3]QueueConfig { return s.r.queues }

// QueueLen returns the number of jobs in queue q.
func (s *Scheduler) QueueLen(q Queue) int {
	if q >= numQueues {
		return 0
	}
	return s.nq[q]
}

// checkTime fails with ErrTimeBackwards when now is before a time the
// scheduler was already given.
func (s *Scheduler) checkTime(op string, now time.Time) error {
	if s.lastSet && now.Before(s.last) {
		return &Error{Op: op, Err: ErrTimeBackwards, Reason: fmt.Sprintf("now %v before %v", now, s.last)}
	}
	return nil
}

func (s *Scheduler) advance(now time.Time) { s.last, s.lastSet = now, true }

// readJob reads and checks j's counters and hint into e (a scratch entry).
func (s *Scheduler) readCounters(op string, j Job, id schedkit.JobID, e *entry) error {
	n := j.Phases()
	if n < 1 || n > 2 {
		return errf(op, ErrInvalidJob, id, "%d phases; dbs schedules map-reduce jobs of 1 or 2", n)
	}
	e.nph = n
	e.prog = [2]schedkit.PhaseProgress{}
	for p := range n {
		pr := j.Progress(schedkit.Phase(p))
		if err := pr.Validate(); err != nil {
			return &Error{Op: op, Job: id, Err: ErrInvalidJob, Reason: "phase " + schedkit.Phase(p).String(), Cause: err}
		}
		e.prog[p] = pr
	}
	e.hint = 0
	if h, ok := j.(TaskTimeHinter); ok {
		if d, ok := h.TaskTimeHint(); ok {
			if d < 0 || d > estimate.Horizon {
				return errf(op, ErrInvalidJob, id, "task time hint %v outside [0, 2^60 ns]", d)
			}
			e.hint = d
		}
	}
	return nil
}

// validCost reports whether x is a finite, non-negative amount.
func validCost(x float64) bool { return !math.IsNaN(x) && !math.IsInf(x, 0) && x >= 0 }

// Submit queues job j, which arrived at now (or earlier), in the queue of
// its φ, and evaluates models 1 and 2 for it. It fails, queuing nothing,
// on a nil job, an empty or duplicate ID, more than two phases,
// inconsistent counters, φ outside {0, 0.5, 1}, a budget or cost that is
// NaN, infinite or negative, no budget with φ < 1, no deadline with
// φ > 0, a deadline before the submission, negative data sizes or hint,
// a cluster capacity it cannot read, or now before an earlier now. A
// deadline already passed is accepted: model 2 reports it unmeetable.
func (s *Scheduler) Submit(now time.Time, j Job) error {
	const op = "Submit"
	if j == nil {
		return &Error{Op: op, Err: ErrInvalidJob, Reason: "nil job"}
	}
	id := j.ID()
	if id == "" {
		return &Error{Op: op, Err: ErrInvalidJob, Reason: "empty job ID"}
	}
	if _, dup := s.jobs[id]; dup {
		return &Error{Op: op, Job: id, Err: ErrDuplicateJob}
	}
	if err := s.checkTime(op, now); err != nil {
		err.(*Error).Job = id
		return err
	}
	var tmp entry
	if err := s.readCounters(op, j, id, &tmp); err != nil {
		return err
	}
	phi, budget, cost := j.Phi(), j.Budget(), j.CostSoFar()
	q, ok := QueueFor(phi)
	switch {
	case !ok:
		return errf(op, ErrInvalidJob, id, "φ %v not one of 0, 0.5, 1", phi)
	case !validCost(budget):
		return errf(op, ErrInvalidJob, id, "budget %v not finite and non-negative", budget)
	case budget == 0 && phi < 1:
		return errf(op, ErrInvalidJob, id, "no budget with φ %v < 1", phi)
	case !validCost(cost):
		return errf(op, ErrInvalidJob, id, "cost so far %v not finite and non-negative", cost)
	}
	deadline, sub := j.Deadline(), j.Submitted()
	switch {
	case deadline.IsZero() && phi > 0:
		return errf(op, ErrInvalidJob, id, "no deadline with φ %v > 0", phi)
	case !deadline.IsZero() && deadline.Before(sub):
		return errf(op, ErrInvalidJob, id, "deadline %v before submission %v", deadline, sub)
	}
	in, red := j.DataSizes()
	if in < 0 || red < 0 {
		return errf(op, ErrInvalidJob, id, "negative data sizes %d, %d", in, red)
	}
	if err := s.readCapacity(op); err != nil {
		return err
	}
	// Everything checked: queue it.
	if !s.epochOK {
		s.epoch, s.epochOK = sub, true
	}
	e := s.newEntry()
	e.job, e.id, e.subT, e.sub = j, id, sub, int64(sub.Sub(s.epoch))
	e.deadline, e.hasDL = deadline, !deadline.IsZero()
	e.dlOff = int64(deadline.Sub(s.epoch))
	e.phi, e.budget, e.cost, e.reduceInput = phi, budget, cost, red
	e.setCounters(tmp.prog, tmp.nph)
	e.hint = tmp.hint
	e.tt, e.ttKnown = s.taskTime(e)
	e.queue = q
	s.jobs[id] = e
	e.allPos = len(s.all)
	s.all = append(s.all, e)
	s.nq[q]++
	s.addUsed(e, 1)
	s.evaluate(e, now, cost)
	e.w = e.ev.m1.W
	e.updatedAt = now
	s.place(e)
	s.advance(now)
	return nil
}

func (s *Scheduler) newEntry() *entry {
	var e *entry
	if k := len(s.pool); k > 0 {
		e = s.pool[k-1]
		s.pool[k-1] = nil
		s.pool = s.pool[:k-1]
		*e = entry{}
	} else {
		e = &entry{}
	}
	for i := range e.pos {
		e.pos[i] = -1
	}
	return e
}

// addUsed adds sign × e's held slots to its queue's usage.
func (s *Scheduler) addUsed(e *entry, sign int) {
	for k := range 2 {
		s.used[e.queue][k] += sign * e.held(k)
	}
}

// place puts e into (or out of) its queue's heaps by its ready tasks.
func (s *Scheduler) place(e *entry) {
	for k := range 2 {
		h := &s.heaps[int(e.queue)*2+k]
		if e.avail(k) > 0 {
			h.upsert(e)
		} else {
			h.remove(e)
		}
	}
}

// unplace removes e from every heap.
func (s *Scheduler) unplace(e *entry) {
	for i := range s.heaps {
		s.heaps[i].remove(e)
	}
}

// Update re-reads job id's counters (and task time hint). Call it after
// every change to them; it also tells the scheduler that the counters now
// include every assignment it returned for the job. Weights and minimum
// slots are re-evaluated at the next weight update. On an error (unknown
// ID, a changed phase count, inconsistent counters, a bad hint) the
// previous snapshot is kept.
func (s *Scheduler) Update(id schedkit.JobID) error {
	const op = "Update"
	e, ok := s.jobs[id]
	if !ok {
		return &Error{Op: op, Job: id, Err: ErrUnknownJob}
	}
	var tmp entry
	if err := s.readCounters(op, e.job, id, &tmp); err != nil {
		return err
	}
	if tmp.nph != e.nph {
		return errf(op, ErrInvalidJob, id, "phase count changed from %d to %d", e.nph, tmp.nph)
	}
	s.addUsed(e, -1)
	e.setCounters(tmp.prog, tmp.nph)
	e.hint = tmp.hint
	e.tt, e.ttKnown = s.taskTime(e)
	s.addUsed(e, 1)
	s.place(e)
	return nil
}

// Remove drops job id: it finished, failed, or the host withdrew it.
func (s *Scheduler) Remove(id schedkit.JobID) error {
	e, ok := s.jobs[id]
	if !ok {
		return &Error{Op: "Remove", Job: id, Err: ErrUnknownJob}
	}
	s.unplace(e)
	s.addUsed(e, -1)
	s.nq[e.queue]--
	delete(s.jobs, id)
	last := s.all[len(s.all)-1]
	s.all[e.allPos] = last
	last.allPos = e.allPos
	s.all[len(s.all)-1] = nil
	s.all = s.all[:len(s.all)-1]
	e.job = nil
	s.pool = append(s.pool, e)
	return nil
}

// Status returns job id's state as the scheduler sees it.
func (s *Scheduler) Status(id schedkit.JobID) (JobStatus, error) {
	e, ok := s.jobs[id]
	if !ok {
		return JobStatus{}, &Error{Op: "Status", Job: id, Err: ErrUnknownJob}
	}
	return JobStatus{
		Job:                   id,
		Queue:                 e.queue,
		Weight:                e.w,
		Model1:                e.ev.m1,
		Min:                   e.ev.min,
		Held:                  [2]int{e.held(0), e.held(1)},
		TaskTime:              e.tt,
		TaskTimeUnknown:       !e.ttKnown,
		DeadlineUnmeetable:    e.ev.min.Deadline.Unmeetable,
		BudgetUnmeetable:      e.ev.min.Budget.Unmeetable,
		PromotionUnaffordable: e.noAfford,
		UpdatedAt:             e.updatedAt,
	}, nil
}

// slotCount reads an integral, finite, non-negative slot count.
func slotCount(v float64) (int, bool) {
	if math.IsNaN(v) || v < 0 || v > maxSlots || v != math.Trunc(v) {
		return 0, false
	}
	return int(v), true
}

// readCapacity reads the cluster's map and reduce slots and the queues'
// guarantees.
func (s *Scheduler) readCapacity(op string) error {
	v := s.cluster.Capacity()
	if len(v) != s.r.space.Len() {
		return &Error{Op: op, Err: ErrInvalidNode, Reason: fmt.Sprintf("cluster capacity has %d elements, the Space %d", len(v), s.r.space.Len())}
	}
	var c [2]float64
	for k, i := range s.r.kind {
		n, ok := slotCount(v[i])
		if !ok {
			return &Error{Op: op, Err: ErrInvalidNode, Reason: fmt.Sprintf("cluster capacity of %q is %v", s.r.space.Kind(i).Name, v[i])}
		}
		c[k] = float64(n)
	}
	s.capK = c
	for q := range numQueues {
		for k := range 2 {
			s.guar[q][k] = s.r.queues[q].Share * c[k]
		}
	}
	return nil
}

// capacityFor returns the capacity of kind k available to e, model 1's V:
// the slots it holds, or its equal part of its queue's guarantee if that
// is more.
func (s *Scheduler) capacityFor(e *entry, k int) estimate.Capacity {
	part := s.guar[e.queue][k] / float64(max(s.nq[e.queue], 1))
	c := estimate.Capacity(math.Round(part * float64(estimate.Slot)))
	return max(c, estimate.Capacity(e.held(k))*estimate.Slot)
}

// taskTime returns Tm = Tr for e: the pooled formula (2), else its hint,
// else Config.DefaultTaskTime; ok false when there is none.
func (s *Scheduler) taskTime(e *entry) (time.Duration, bool) {
	if tt, err := estimate.PooledTaskTime(e.prog[:e.nph]); err == nil && tt.Known {
		return tt.Avg, true
	}
	if e.hint > 0 {
		return e.hint, true
	}
	if s.cfg.DefaultTaskTime > 0 {
		return s.cfg.DefaultTaskTime, true
	}
	return 0, false
}

// evaluate computes models 1 and 2 for e at now with cost so far cost.
//
// Times are taken as offsets from the epoch: now − submission is the
// same Duration whichever way it is computed, and this keeps time.Time
// arithmetic off the per-job path of a weight update.
func (s *Scheduler) evaluate(e *entry, now time.Time, cost float64) {
	ev := &e.ev
	*ev = eval{cost: cost}
	if !e.ttKnown {
		if e.prog[0].Unfinished() > 0 {
			ev.min.Map = 1
		}
		e.setMin()
		return
	}
	var rem estimate.Remaining
	var in MinInput
	ev.slotSecs, rem, in = s.modelInputs(e, int64(now.Sub(s.epoch)), cost)
	ev.m1 = Weight(WeightInput{
		Phi: e.phi, Remaining: rem.Time, CannotFinish: rem.CannotFinish, DeadlineLeft: in.DeadlineLeft,
		SlotSeconds: ev.slotSecs, Price: s.r.queues[e.queue].Price, BudgetLeft: e.budget - cost,
	})
	ev.min = MinimumSlots(in)
	e.setMin()
}

// modelInputs returns what models 1 and 2 read about e (task time known)
// at nowOff with cost so far cost: the remaining slot-seconds, formula
// (3) of package estimate at the job's capacity, and model 2's input.
func (s *Scheduler) modelInputs(e *entry, nowOff int64, cost float64) (float64, estimate.Remaining, MinInput) {
	tt := e.tt
	var loads [2]estimate.PhaseLoad
	var work [2]PhaseWork
	var caps [2]estimate.Capacity
	slotSecs := 0.0
	for p := range e.nph {
		pr := e.prog[p]
		el := time.Duration(0)
		if pr.Running > 0 { // PhaseProgress.RunningElapsed, on offsets
			el = max(time.Duration(pr.Running)*time.Duration(nowOff-e.sub)-pr.RunningStartSum, 0)
		}
		caps[p] = s.capacityFor(e, p)
		loads[p] = estimate.PhaseLoad{Unfinished: pr.Unfinished(), Elapsed: el, TaskTime: tt, Capacity: caps[p]}
		work[p] = PhaseWork{Unfinished: pr.Unfinished(), TaskTime: tt, Elapsed: el}
		slotSecs += work[p].work()
	}
	rem, err := estimate.RemainingTime(loads[:e.nph])
	if err != nil { // counters were validated; cannot happen
		rem = estimate.Remaining{CannotFinish: true, Time: estimate.Horizon}
	}
	var dl, transfer time.Duration
	if e.hasDL {
		dl = time.Duration(e.dlOff - nowOff)
	}
	if s.cfg.TransferRate > 0 {
		transfer = durationOf(float64(e.reduceInput) / s.cfg.TransferRate)
	}
	return max(slotSecs, 0), rem, MinInput{
		Phi: e.phi, Map: work[0], Reduce: work[1], ReduceCapacity: caps[1],
		ReduceStarted: e.nph > 1 && e.prog[1].Running+e.prog[1].Finished > 0,
		DeadlineLeft:  dl, Transfer: transfer,
		Allowance: (e.budget - cost) / s.r.queues[e.queue].Price, Held: e.held(0) + e.held(1),
	}
}
