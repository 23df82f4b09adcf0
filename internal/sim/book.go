package sim

import (
	"math"
	"math/bits"
	"time"

	"github.com/schedkit/schedkit"
	"github.com/schedkit/schedkit/internal/drf"
	"github.com/schedkit/schedkit/internal/workload"
	"github.com/schedkit/schedkit/resource"
)

// book is the job book: every job of the workload with its phases and
// tasks (objects only while they matter, see live.go), which are ready,
// which are active, what each holds and has been charged. It reads the
// engine's clock and the world's nodes; the world's attempts are what
// its tasks run as.
type book struct {
	eng *engine
	w   *world
	// The rules of readiness and charging.
	slowStart float64         // Config.SlowStart
	prices    resource.Vector // Config.Prices
	// computingOnly: the policy assigns only tasks of computing phases
	// (ComputingPhaseAssigner); ready.by counts only those.
	computingOnly bool

	jobs  []Job
	byID  map[schedkit.JobID]*Job
	tasks taskPool
	pages [pageClasses][][]*Task // pooled pages of live tasks by size class (live.go)
	// shareShapes: every TaskBatch phase is shaped (jobPhase.shaped), so
	// no Shaper ever writes into a task's buffer, and a shaped task's
	// Requested and stage Demand can be the phase's (read-only, shared
	// by its tasks and kept in cache) instead of copies.
	shareShapes bool
	mark        uint32 // ReadyTasks' and RetryTasks' pass number
	liveBuf     []*Task
	taskBuf     []*Task         // an AssignPhase decision's tasks
	vecBuf      resource.Vector // a sum of requests

	active  []*Job // submission order; ended jobs linger until activeList compacts
	nActive int    // active jobs
	holes   int    // ended jobs still in active
	ended   int
	// holding has bit i set iff job i's allocation has a positive amount
	// of some kind (noteAlloc): the only jobs whose dominant share a
	// metrics sample adds up (jainSums).
	holding []uint64
	// wanting has bit i set iff job i has ready tasks (Job.ready > 0):
	// the jobs with unmet demand, whose shares a sample's Unmet sums add
	// up (unmetJainSums).
	wanting []uint64
	ready   readyCounts
}

// taskPool holds the task objects: every one by Task.gidx (progress
// events name tasks so), the pooled ones, and fresh ones not handed out
// yet.
type taskPool struct {
	all  []*Task
	free []*Task
	slab []Task
}

// readyCounts are the ready tasks of the active jobs.
type readyCounts struct {
	n  int // Σ Ready over active jobs
	in [schedkit.MaxPhases]int
	// by counts ready tasks by their phase's support (the kinds they
	// ask a positive amount of; 0: unknown or none; with computingOnly,
	// tasks of computing phases only), masks the supports with a count
	// > 0: a node whose available kinds include no ready task's support
	// can take no ready task (FullNodeSkipper).
	by    [1 << maxSupportKinds]int
	masks uint64
}

// supportMin is the request below which a kind does not count as asked
// for in a phase's support: a request-based policy comparing amounts
// with a float tolerance (the baselines use 1e-9) may fit such a sliver
// on a node with none of the kind, so the idle test must not rely on it.
const supportMin = 1e-9

// taskSpec returns the workload's description of task i of phase p of j:
// its TaskSpec, or, for a TaskBatch, the task shaped into buf (checked at
// New, so shaping it again cannot fail). A shaped phase (jobPhase.shaped)
// writes into buf what the Shaper would, from the phase's copy of it.
func (b *book) taskSpec(j *Job, p, i int, buf *workload.TaskSpec) *workload.TaskSpec {
	if ph := &j.phases[p]; ph.shaped {
		buf.Logic, buf.DataSize, buf.Locations = ph.logic, ph.shapeDat, nil
		if cap(buf.Profile) < 1 {
			buf.Profile = make([]workload.Stage, 1)
		}
		buf.Profile = buf.Profile[:1]
		buf.Profile[0].Duration = ph.durs[i]
		if b.shareShapes {
			buf.Requested, buf.Profile[0].Demand = ph.req, ph.demand
		} else {
			buf.Requested = append(buf.Requested[:0], ph.req...)
			buf.Profile[0].Demand = append(buf.Profile[0].Demand[:0], ph.demand...)
		}
		return buf
	}
	ts, err := j.spec.Phases[p].Task(i, buf)
	if err != nil {
		return buf
	}
	return ts
}

// materialize makes the live object of the never-started task at index x
// of j, from the pool when it can.
func (b *book) materialize(j *Job, x int32) *Task {
	p := j.phaseOf(x)
	i := int(x) - j.phases[p].first
	var t *Task
	tp := &b.tasks
	if n := len(tp.free); n > 0 {
		t = tp.free[n-1]
		tp.free[n-1] = nil
		tp.free = tp.free[:n-1]
	} else {
		if len(tp.slab) == 0 {
			tp.slab = make([]Task, 64) // objects in blocks: fewer, larger allocations
		}
		t = &tp.slab[0]
		tp.slab = tp.slab[1:]
		t.own.Profile = t.stage1[:0:1]
		t.gidx = int32(len(tp.all))
		tp.all = append(tp.all, t)
	}
	ts := b.taskSpec(j, p, i, &t.own)
	t.job, t.spec, t.inPhase, t.phase = j, ts, int32(i), schedkit.Phase(p)
	t.id = "" // built by ID when asked
	t.state, t.attempts, t.fails = schedkit.TaskPending, 0, 0
	t.run, t.node = nil, nil
	t.locs = nil
	if len(ts.Locations) > 0 {
		t.locs = make([]schedkit.NodeID, len(ts.Locations))
		for li, ni := range ts.Locations {
			t.locs[li] = b.w.nodes[ni].id
		}
	}
	j.setLive(x, t)
	return t
}

// release returns a succeeded task's object to the pool. Its version
// counters carry on, so events and retry entries naming the old task stay
// stale.
func (b *book) release(t *Task) {
	t.job.dropLive(t.inJob())
	t.readyGen++
	t.job, t.spec, t.locs = nil, nil, nil
	b.tasks.free = append(b.tasks.free, t)
}

// submit makes j active.
func (b *book) submit(j *Job) {
	j.state = jobActive
	j.activeIdx = len(b.active)
	b.active = append(b.active, j)
	b.nActive++
	j.costAt = b.eng.now
}

// activeList returns the active jobs in submission order, compacting the
// list first if jobs ended since the last call (an ending job stays in
// the slice, marked, until then, so ending one of many queued jobs does
// not shift them all).
func (b *book) activeList() []*Job {
	if b.holes == 0 {
		return b.active
	}
	k := 0
	for _, j := range b.active {
		if j.state == jobActive {
			j.activeIdx = k
			b.active[k] = j
			k++
		}
	}
	clear(b.active[k:])
	b.active = b.active[:k]
	b.holes = 0
	return b.active
}

// unlock makes phase p of j ready.
func (b *book) unlock(j *Job, p int) {
	ph := &j.phases[p]
	ph.unlocked = true
	ph.prog.Ready = ph.prog.Pending()
	b.addReady(j, schedkit.Phase(p), ph.prog.Ready)
}

// addReady adds n ready tasks of phase p of j to the counts.
func (b *book) addReady(j *Job, p schedkit.Phase, n int) {
	b.ready.n += n
	if j.ready += n; j.ready > 0 {
		b.wanting[j.idx>>6] |= 1 << (j.idx & 63)
	} else {
		b.wanting[j.idx>>6] &^= 1 << (j.idx & 63)
	}
	b.ready.in[p] += n
	if b.computingOnly && int(p) > j.doneThrough {
		return // counted in ready.by when the phase starts computing
	}
	b.addReadyBy(j.phases[p].support, n)
}

// addReadyBy adds n ready tasks of support m to ready.by.
func (b *book) addReadyBy(m uint8, n int) {
	if b.ready.by[m] += n; b.ready.by[m] > 0 {
		b.ready.masks |= 1 << m
	} else {
		b.ready.masks &^= 1 << m
	}
}

// idle reports whether a node whose available kinds are free (its
// nodeHot.free) can take nothing (FullNodeSkipper): it is full (nothing
// available in any kind), or every ready task asks more than supportMin
// of some kind the node has none of available (by the supports in
// ready.by; a phase whose tasks ask differently counts as fitting
// anywhere).
func (b *book) idle(free uint64) bool {
	if free&someFree == 0 {
		return true
	}
	for m := b.ready.masks; m != 0; m &= m - 1 {
		if sup := uint64(bits.TrailingZeros64(m)); sup&^free == 0 {
			return false // a ready task's support is all available here
		}
	}
	return true
}

// started records that t's attempt a started: t is running, in its
// phase's counters, and a's allocation is its job's (charged from now).
// It reports whether t had run before.
func (b *book) started(t *Task, a *attempt) (retry bool) {
	j := t.job
	now := b.eng.now
	t.state = schedkit.TaskRunning
	j.markStarted(t.inJob())
	t.attempts++
	b.accrue(j)
	_ = j.alloc.Add(a.alloc)
	b.noteAlloc(j)
	ph := &j.phases[t.phase]
	ph.prog.Running++
	ph.prog.Ready--
	ph.prog.RunningStartSum += time.Duration(now - j.submitOff)
	b.addReady(j, t.phase, -1)
	if !j.started {
		j.started, j.startAt = true, now
	}
	return t.attempts > 1
}

// stopped records that t's running attempt ends: its allocation leaves
// the job's (charged up to now: accrue first) and its phase's running
// counters.
func (b *book) stopped(t *Task) {
	a, j := t.run, t.job
	_ = j.alloc.Sub(a.alloc)
	b.noteAlloc(j)
	ph := &j.phases[t.phase]
	ph.prog.Running--
	ph.prog.RunningStartSum -= time.Duration(a.start - j.submitOff)
}

// realloc records that a running task of j went from allocation old to
// a (a plan step; charged up to now: accrue first).
func (b *book) realloc(j *Job, old, a resource.Vector) {
	_ = j.alloc.Sub(old)
	_ = j.alloc.Add(a)
	b.noteAlloc(j)
}

// succeeded records that t succeeded after running for dur.
func (b *book) succeeded(t *Task, dur time.Duration) {
	t.state = schedkit.TaskSucceeded
	ph := &t.job.phases[t.phase]
	ph.prog.Finished++
	ph.prog.FinishedDurationSum += dur
}

// requeued makes t, whose attempt ended, ready again.
func (b *book) requeued(t *Task) {
	j := t.job
	t.state = schedkit.TaskPending
	t.readyGen++
	ph := &j.phases[t.phase]
	ph.retry = append(ph.retry, readyRef{task: int32(ph.first) + t.inPhase, gen: t.readyGen})
	ph.prog.Ready++
	b.addReady(j, t.phase, 1)
}

// advance unlocks the phases of j whose predecessor reached the
// slow-start fraction, and counts the phases whose tasks all finished.
// It reports whether the job is complete, and whether phases started
// computing (their waiting attempts may go on: world.startComputing).
func (b *book) advance(j *Job) (complete, computing bool) {
	for p := 1; p < len(j.phases); p++ {
		if j.phases[p].unlocked {
			continue
		}
		prev := &j.phases[p-1]
		if !prev.unlocked {
			break
		}
		need := int(math.Ceil(b.slowStart*float64(prev.prog.Total) - 1e-9))
		if prev.prog.Finished < need {
			break
		}
		b.unlock(j, p)
	}
	old := j.doneThrough
	for j.doneThrough < len(j.phases) && j.phases[j.doneThrough].prog.Finished == j.phases[j.doneThrough].prog.Total {
		j.doneThrough++
		if p := j.doneThrough; b.computingOnly && p < len(j.phases) && j.phases[p].prog.Ready > 0 {
			b.addReadyBy(j.phases[p].support, j.phases[p].prog.Ready)
		}
	}
	return j.doneThrough == len(j.phases), j.doneThrough > old
}

// killed marks t, of a job being killed, killed if it was pending or
// running (its attempt ended).
func (b *book) killed(t *Task) {
	if t.state == schedkit.TaskPending || t.state == schedkit.TaskRunning {
		t.state = schedkit.TaskKilled
	}
}

// end ends j with outcome and reason: no longer active, nothing ready.
// It reports false, changing nothing, if j had ended already.
func (b *book) end(j *Job, outcome Outcome, reason string) bool {
	if j.state == jobEnded {
		return false
	}
	b.accrue(j)
	j.state = jobEnded
	j.outcome, j.reason, j.endAt = outcome, reason, b.eng.now
	b.nActive--
	b.holes++
	for p := range j.phases {
		ph := &j.phases[p]
		if ph.unlocked {
			b.addReady(j, schedkit.Phase(p), -ph.prog.Ready)
		}
		ph.prog.Ready = 0
		ph.retry, ph.retryAt = nil, 0
	}
	b.ended++
	return true
}

// accrue charges j for its allocation since the last charge, at the
// price in force.
func (b *book) accrue(j *Job) {
	now := b.eng.now
	if p := j.Price(); p != nil && now > j.costAt {
		j.cost += dot(p, j.alloc) * time.Duration(now-j.costAt).Seconds()
	}
	j.costAt = now
}

// noteAlloc keeps j's place in the holding set (a positive amount of
// some kind allocated) after its allocation changed.
func (b *book) noteAlloc(j *Job) {
	w, bit := j.idx>>6, uint64(1)<<(j.idx&63)
	for _, x := range j.alloc {
		if x > 0 {
			b.holding[w] |= bit
			return
		}
	}
	b.holding[w] &^= bit
}

// jainSums returns the Jain sums of the active jobs' dominant shares of
// capacity in submission order, visiting only the jobs that hold
// something (the holding set): a job holding nothing has dominant share
// exactly +0, and adding +0 leaves Sum and SumSq bit for bit as they
// were and Bad unset, so only the count N needs it, and N is the number
// of active jobs. The result is that of adding every active job's share
// in order (naiveJainSums; CheckInvariants compares the two bit for
// bit). A trace day has thousands of active jobs but at most one per
// running task holding anything.
func (b *book) jainSums(capacity resource.Vector) JainSums {
	jain := b.sumsOver(b.holding, capacity)
	jain.N = b.nActive
	return jain
}

// unmetJainSums returns the Jain sums of the dominant shares of the
// active jobs with unmet demand (ready tasks waiting for a place), in
// submission order: the jobs a DRF allocator is still filling, the
// population paper 004 compares fairness over. A job holding nothing
// but wanting something counts, with share 0.
func (b *book) unmetJainSums(capacity resource.Vector) JainSums {
	return b.sumsOver(b.wanting, capacity)
}

// sumsOver adds the dominant shares of the active jobs of set, in order.
func (b *book) sumsOver(set []uint64, capacity resource.Vector) JainSums {
	var jain JainSums
	for w, word := range set {
		for ; word != 0; word &= word - 1 {
			j := &b.jobs[w<<6|bits.TrailingZeros64(word)]
			if j.state == jobActive {
				jain.Add(drf.Share(j.alloc, capacity))
			}
		}
	}
	return jain
}

// unfinished ends j, not ended when the run ended, as Unfinished: at
// the end of the run if it was active, at its submission if not.
func (b *book) unfinished(j *Job) {
	b.accrue(j)
	j.outcome = Unfinished
	if j.state == jobActive {
		j.endAt = b.eng.now
	} else {
		j.endAt = j.submitOff
	}
}
