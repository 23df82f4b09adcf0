package dbs

import (
	"fmt"
	"math"
	"time"

	"github.com/schedkit/schedkit"
	"github.com/schedkit/schedkit/estimate"
	"github.com/schedkit/schedkit/internal/clock"
	"github.com/schedkit/schedkit/internal/indexheap"
	"github.com/schedkit/schedkit/internal/membership"
	"github.com/schedkit/schedkit/internal/nilvalue"
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

	// clk is the time rule (internal/clock): nows never go back, and
	// stay within 2^60 ns of the first one, the epoch, from which every
	// time is held as an offset.
	clk   clock.Clock
	epoch time.Time // clk.Epoch(), once started

	// members checks that a heartbeating node belongs to the cluster.
	members membership.Index

	updated    time.Time // last weight update
	updatedSet bool

	jobs map[schedkit.JobID]*entry
	all  []*entry
	pool []*entry
	slab []entry // entries not yet used of the last block allocated

	nq    [numQueues]int    // jobs per queue
	used  [numQueues][2]int // slots held per queue and kind
	guar  [numQueues][2]float64
	capK  [2]float64
	free  [2]int
	heaps [numQueues * 2]qheap

	// Tick scratch.
	moves []Decision
	costs []float64 // CostSoFar of all[i], as last read
	// watch are the jobs whose cost a weight update reads (their
	// watchPos is their index here): those Submitted, Updated or
	// assigned a slot since the last weight update, or holding slots at
	// it (host duty 3: no other job's cost changes). wcost is the
	// update's scratch for their costs, read before anything changes.
	watch []*entry
	wcost []float64
	tk    []tickFigs // model 3's inputs of all[i], from the evaluation pass
	// evaluated are the indices in all of the jobs the evaluation pass
	// did not skip (settled), for model 3's pass.
	evaluated []int32
	// settle[i] marks all[i] as left unchanged by the next weight
	// update if its cost is the same (evalcache.go); it is kept between
	// updates, so Update, Submit and Remove keep it in step.
	settle []settled
	// marks[h] are the positions in heaps[h] of the jobs whose heap keys
	// (weight, minimums) the weight update changed; fix restores the
	// heaps' order from them (qheap.fixAt).
	marks [numQueues * 2][]int32
	fix   indexheap.Scratch
	// parts are the queues' equal parts of their guarantees (queuePart)
	// at the last weight update (partsSet), and partsGen numbers them:
	// a queue's number changes (to the next partsSeq) whenever its parts
	// do, so a job's cached evaluation can key on the number (evalKey).
	parts    [numQueues][2]estimate.Capacity
	partsGen [numQueues]uint64
	partsSeq uint64
	partsSet bool
	partsCap [2]float64 // the cluster's slots when parts were last numbered

	// needSum is what each queue's jobs need per slot kind at the
	// current weight update, once needSet (needSums).
	needSum [numQueues][2]int
	needSet bool

	qs queueScratch // Queue's lists (queue.go)

	skipped skipCounts // the weight updates' skips, for tests (evalcache.go)

	// reference, when set (tests only: export_test.go), runs in place
	// of Tick: the reference weight update the fast one is checked and
	// measured against (TestTickEquivalence, BenchmarkTickPrevious).
	reference func(s *Scheduler, now time.Time, dst []Decision) ([]Decision, error)
}

// entry is the scheduler's state for one queued job. Its fields are
// grouped by who reads them, to share cache lines: heap comparisons,
// heartbeats, model 3's marks and the flags a weight update reads first;
// then what a weight update reads of a job with a task time, its cached
// figures and the evaluation it writes (a weight update walks every job:
// with 10,000 jobs it is bound by memory as much as by arithmetic); the
// fields read only at Submit, Update, Status or a decision last. Entries
// are allocated in blocks (newEntry) and padded to whole cache lines
// (entryPad), so each group starts at the same place in a line for every
// entry.
type entry struct {
	// First cache line.
	w        float64
	sub      int64    // ns from the epoch, for ordering
	minK     [2]int32 // model-2 minimum per phase (= slot kind)
	heldK    [2]int32 // running + assigned since the last Update
	pos      [numQueues * 2]int32
	queue    Queue
	pendUp   bool // short and above average at the last update
	pendDown bool // surplus and above average at the last update
	noAfford bool
	ttKnown  bool
	running  bool // a task runs (of the counters)
	hasDL    bool
	lost     bool // model 2 found no view meetable (MinResult.Unmeetable)

	// Second: heartbeats, and what a weight update reads of a job with
	// a task time.
	availK [2]int32 // ready − assigned since the last Update
	gen    uint32   // counter snapshots taken (setCounters)
	nph    int
	phi    float64
	budget float64
	dlOff  int64  // deadline − epoch
	usable [2]int // ready + running tasks per phase (of the counters)

	id    schedkit.JobID // beside the heartbeats' lines (their decisions name it)
	cache evalCache      // Tick's reusable figures (evalcache.go)
	ev    eval

	tt          time.Duration // Tm = Tr: formula (2), hint or default
	transfer    time.Duration // f·δ·Td of model 2, with Config.TransferRate
	prog        [2]schedkit.PhaseProgress
	job         Job
	subT        time.Time
	deadline    time.Time
	reduceInput int64
	hint        time.Duration
	updatedAt   time.Time // Submit; later, the last weight update's (Status)
	allPos      int
	watchPos    int32 // index in Scheduler.watch, -1 when not watched
	// lastMove is the job's last queue move (0 if none) and movedAt
	// when, in ns from the epoch: model 3's hold-down (holdDown).
	lastMove Action
	noRescue bool // model 3 found the budget view unmeetable a queue down (stuck)
	movedAt  int64
	_        [entryPad]byte
}

// entryPad pads entry to a multiple of 64 bytes (TestEntryLayout checks
// it; adjust it when adding a field).
const entryPad = 12

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
	e.lost = e.ev.min.Unmeetable
}

// setCounters stores a snapshot of the job's counters: nothing assigned
// since.
func (e *entry) setCounters(prog [2]schedkit.PhaseProgress, nph int) {
	e.prog, e.nph = prog, nph
	e.gen++
	e.heldK, e.availK = [2]int32{}, [2]int32{}
	e.usable, e.running = [2]int{}, false
	for p := range nph {
		e.heldK[p] = int32(min(prog[p].Running, maxSlots))
		e.availK[p] = int32(min(prog[p].Ready, maxSlots))
		e.usable[p] = prog[p].Ready + prog[p].Running
		e.running = e.running || prog[p].Running > 0
	}
}

// ahead orders jobs within a queue: with lostLast, a job that cannot
// reach any minimum after one that can; then before.
func (e *entry) ahead(b *entry, lostLast bool) bool {
	if lostLast && e.lost != b.lost {
		return b.lost
	}
	return e.before(b)
}

// before orders jobs by weight descending, submission, ID.
func (e *entry) before(b *entry) bool {
	if e.w != b.w {
		return e.w > b.w
	}
	if e.sub != b.sub {
		return e.sub < b.sub
	}
	return e.id < b.id
}

// lastUpdate returns when e's figures were last evaluated: its Submit,
// or the last weight update since (every weight update evaluates every
// queued job; times never go backwards).
func (e *entry) lastUpdate(s *Scheduler) time.Time {
	if s.updatedSet && s.updated.After(e.updatedAt) {
		return s.updated
	}
	return e.updatedAt
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
			s.heaps[int(q)*2+k] = newQheap(int(q)*2+k, k, r.order)
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

// checkTime reads now for a call that changes state (clock.Check):
// ErrStaleTime before the latest now given, ErrTimeRange out of range.
// The call commits the reading (advance) once it succeeds.
func (s *Scheduler) checkTime(op string, id schedkit.JobID, node schedkit.NodeID, now time.Time) (clock.Reading, error) {
	r, f := s.clk.Check(now)
	if f != clock.OK {
		return r, s.timeErr(op, id, node, f, now)
	}
	return r, nil
}

// advance commits r, the reading of a call that succeeded.
func (s *Scheduler) advance(r clock.Reading) {
	s.clk.Commit(r)
	s.epoch = s.clk.Epoch()
}

// counters is what readCounters reads of a job: a scratch far smaller
// than an entry (Update runs after every task start and end).
type counters struct {
	prog [2]schedkit.PhaseProgress
	nph  int
	hint time.Duration
}

// readCounters reads and checks j's counters and hint into e.
func (s *Scheduler) readCounters(op string, j Job, id schedkit.JobID, e *counters) error {
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
		if pr.Total > maxTasks {
			return errf(op, ErrInvalidJob, id, "phase %s: %d tasks, more than dbs counts (2^31 − 1)", schedkit.Phase(p), pr.Total)
		}
		e.prog[p] = pr
	}
	e.hint = 0
	if h, ok := j.(TaskTimeHinter); ok {
		if d := h.TaskTimeHint(); d > 0 {
			if d > estimate.Horizon {
				return errf(op, ErrInvalidJob, id, "task time hint %v beyond 2^60 ns", d)
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
// φ > 0, a zero submission time, a submission after now, a deadline
// before the submission, negative data sizes, a task time hint beyond
// 2^60 ns (ErrInvalidJob; a zero or negative hint is no hint); a
// submission or deadline more than 2^60 ns from the first time given
// (ErrTimeRange, the time rule of every schedkit scheduler); a cluster
// capacity it cannot read (ErrInvalidNode); a now before an earlier now
// (ErrStaleTime) or out of range (ErrTimeRange). A deadline already
// passed is accepted: model 2 reports it unmeetable.
func (s *Scheduler) Submit(now time.Time, j Job) error {
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
	clk, err := s.checkTime(op, id, "", now)
	if err != nil {
		return err
	}
	var tmp counters
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
	subOff, subOK := clk.Offset(sub)
	dlOff, dlOK := clk.Offset(deadline)
	switch {
	case sub.IsZero():
		return errf(op, ErrInvalidJob, id, "zero submission time")
	case !subOK:
		return &Error{Op: op, Job: id, Err: ErrTimeRange, Reason: clk.OutOfRange("submission", sub)}
	case !deadline.IsZero() && !dlOK:
		return &Error{Op: op, Job: id, Err: ErrTimeRange, Reason: clk.OutOfRange("deadline", deadline)}
	case sub.After(now):
		return errf(op, ErrInvalidJob, id, "submitted at %v, after now %v", sub, now)
	case deadline.IsZero() && phi > 0:
		return errf(op, ErrInvalidJob, id, "no deadline with φ %v > 0", phi)
	case !deadline.IsZero() && deadline.Before(sub):
		return errf(op, ErrInvalidJob, id, "deadline %v before submission %v", deadline, sub)
	}
	in, red := j.DataSizes()
	if in < 0 || red < 0 {
		return errf(op, ErrInvalidJob, id, "negative data sizes %d, %d", in, red)
	}
	if err := s.readCapacity(op, ""); err != nil {
		return err
	}
	// Everything checked: queue it.
	s.advance(clk)
	e := s.newEntry()
	e.job, e.id, e.subT, e.sub = j, id, sub, subOff
	e.deadline, e.hasDL = deadline, !deadline.IsZero()
	e.dlOff = dlOff
	e.phi, e.budget, e.reduceInput = phi, budget, red
	if s.cfg.TransferRate > 0 {
		e.transfer = durationOf(float64(red) / s.cfg.TransferRate)
	}
	e.setCounters(tmp.prog, tmp.nph)
	e.hint = tmp.hint
	e.tt, e.ttKnown = s.taskTime(e)
	e.queue = q
	s.jobs[id] = e
	e.allPos = len(s.all)
	s.all = append(s.all, e)
	s.costs, s.tk = append(s.costs, 0), append(s.tk, tickFigs{})
	s.settle = append(s.settle, settled{})
	s.nq[q]++
	s.addUsed(e, 1)
	s.costs[e.allPos] = cost
	s.watchCost(e)
	s.evaluate(e, now, cost)
	e.w = e.ev.m1.W
	e.updatedAt = now
	s.place(e)
	return nil
}

// slabSize is the number of entries allocated at once.
const slabSize = 64

func (s *Scheduler) newEntry() *entry {
	var e *entry
	if k := len(s.pool); k > 0 {
		e = s.pool[k-1]
		s.pool[k-1] = nil
		s.pool = s.pool[:k-1]
		*e = entry{}
	} else {
		if len(s.slab) == 0 {
			// Entries come in blocks, so a weight update walking all
			// jobs in submission order reads memory at a fixed stride.
			s.slab = make([]entry, slabSize)
		}
		e = &s.slab[0]
		s.slab = s.slab[1:]
	}
	for i := range e.pos {
		e.pos[i] = -1
	}
	e.watchPos = -1
	return e
}

// watchCost notes that e's cost may have changed (or may change before
// the next weight update): that update reads it.
func (s *Scheduler) watchCost(e *entry) {
	if e.watchPos < 0 {
		e.watchPos = int32(len(s.watch))
		s.watch = append(s.watch, e)
	}
}

// unwatchCost takes e off the watch list.
func (s *Scheduler) unwatchCost(e *entry) {
	i := e.watchPos
	if i < 0 {
		return
	}
	n := len(s.watch) - 1
	last := s.watch[n]
	s.watch[i] = last
	last.watchPos = i
	s.watch[n] = nil
	s.watch = s.watch[:n]
	e.watchPos = -1
}

// settleWatch keeps on the watch list, after a weight update read their
// costs, only the jobs that hold slots (whose cost may still grow).
func (s *Scheduler) settleWatch() {
	w := s.watch[:0]
	for _, e := range s.watch {
		if e.heldK[0]+e.heldK[1] > 0 {
			e.watchPos = int32(len(w))
			w = append(w, e)
		} else {
			e.watchPos = -1
		}
	}
	clear(s.watch[len(w):])
	s.watch = w
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
		if s.eligible(e, k) {
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
// include every assignment it returned for the job, and that its cost so
// far may have changed (the next weight update reads it: host duty 3).
// Weights and minimum slots are re-evaluated at the next weight update. A change that only
// starts, in full, tasks the scheduler assigned may be passed on later,
// before the next Tick: until then the assignments count as held and
// started, which is all a heartbeat reads of them (a weight update reads
// their start times). An Update that fails (unknown ID, a changed phase
// count, inconsistent counters, a bad hint) changes nothing, the notice
// of a changed cost included: the previous snapshot is kept, and the
// next weight update trusts the job's cost as last read unless the job
// holds slots. Correct the job and Update it again.
func (s *Scheduler) Update(id schedkit.JobID) error {
	const op = "Update"
	e, ok := s.jobs[id]
	if !ok {
		return &Error{Op: op, Job: id, Err: ErrUnknownJob}
	}
	var tmp counters
	if err := s.readCounters(op, e.job, id, &tmp); err != nil {
		return err
	}
	if tmp.nph != e.nph {
		return errf(op, ErrInvalidJob, id, "phase count changed from %d to %d", e.nph, tmp.nph)
	}
	s.watchCost(e) // the next weight update reads its cost (host duty 3)
	s.addUsed(e, -1)
	e.setCounters(tmp.prog, tmp.nph)
	s.settle[e.allPos].ok = false
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
	s.unwatchCost(e)
	s.addUsed(e, -1)
	s.nq[e.queue]--
	delete(s.jobs, id)
	n := len(s.all) - 1
	last := s.all[n]
	s.all[e.allPos] = last
	last.allPos = e.allPos
	s.all[n] = nil
	s.all = s.all[:n]
	s.costs[e.allPos] = s.costs[n]
	s.tk[e.allPos] = s.tk[n]
	s.costs, s.tk = s.costs[:n], s.tk[:n]
	s.settle[e.allPos] = s.settle[n]
	s.settle = s.settle[:n]
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
	s.materialize(e)
	ev := &e.ev
	m := ev.min
	if e.cache.frozen && e.phi > 0 {
		m.Deadline = s.frozenDeadline(e, int64(e.lastUpdate(s).Sub(s.epoch)))
	}
	return JobStatus{
		Job:                   id,
		Queue:                 e.queue,
		Weight:                e.w,
		Model1:                ev.m1,
		Min:                   m,
		Held:                  [2]int{e.held(0), e.held(1)},
		TaskTime:              e.tt,
		TaskTimeUnknown:       !e.ttKnown,
		DeadlineUnmeetable:    ev.min.Deadline.Unmeetable,
		BudgetUnmeetable:      ev.min.Budget.Unmeetable,
		PromotionUnaffordable: e.noAfford,
		UpdatedAt:             e.lastUpdate(s),
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
func (s *Scheduler) readCapacity(op string, node schedkit.NodeID) error {
	v := s.cluster.Capacity()
	if len(v) != s.r.space.Len() {
		return &Error{Op: op, Node: node, Err: ErrInvalidNode, Reason: fmt.Sprintf("cluster capacity has %d elements, the Space %d", len(v), s.r.space.Len())}
	}
	if v[s.r.kind[0]] == s.capK[0] && v[s.r.kind[1]] == s.capK[1] {
		// What follows would set what is set: capK holds valid slot
		// counts (or zeros) and guar follows them (they are set and
		// restored together), and a valid count reads as itself.
		return nil
	}
	var c [2]float64
	for k, i := range s.r.kind {
		n, ok := slotCount(v[i])
		if !ok {
			return &Error{Op: op, Node: node, Err: ErrInvalidNode, Reason: fmt.Sprintf("cluster capacity of %q is %v", s.r.space.Kind(i).Name, v[i])}
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

// LastUpdate returns when the last weight update ran (the zero time
// before the first).
func (s *Scheduler) LastUpdate() time.Time {
	if !s.updatedSet {
		return time.Time{}
	}
	return s.updated
}
