package sim

import (
	"sort"
	"time"

	"github.com/schedkit/schedkit"
	"github.com/schedkit/schedkit/internal/workload"
	"github.com/schedkit/schedkit/resource"
)

// Compile-time check: the simulator is a host like any other.
var _ schedkit.Job = (*Job)(nil)

type jobState uint8

const (
	jobWaiting jobState = iota // not yet submitted
	jobActive
	jobEnded
)

// Job is the simulator's view of one job. It implements schedkit.Job;
// its counters are kept incrementally, so every method is O(1).
type Job struct {
	b         *book
	spec      *workload.JobSpec
	idx       int32
	id        schedkit.JobID
	submitOff int64
	submitted time.Time
	deadline  time.Time
	// Tasks exist as objects only while they matter: from when a policy
	// first sees them (ReadyTasks, Task) until they succeed; pages hold
	// them by index in the job (phase by phase), begun marks every task
	// that ever started. A task not live is pending if it never
	// started, else it succeeded (or its job ended). See live.go.
	pages  []livePageRef
	begun  []uint64
	nTasks int
	phases []jobPhase
	// doneThrough is the number of leading phases whose tasks have all
	// finished: phase p computes iff p ≤ doneThrough.
	doneThrough int
	ready       int // ready tasks over the phases (Σ prog.Ready)
	state       jobState
	activeIdx   int
	outcome     Outcome
	reason      string
	started     bool
	startAt     int64
	endAt       int64
	alloc       resource.Vector
	price       resource.Vector // nil: Config.Prices
	cost        float64
	costAt      int64
	could       bool
	checked     bool
}

type jobPhase struct {
	prog     schedkit.PhaseProgress
	first    int // index of the phase's first task in the job
	unlocked bool
	next     int             // cursor over never-started tasks, in order
	retry    []readyRef      // tasks pending again after a failure or preemption
	retryAt  int             // head of retry
	loc      *locality       // nil when no task of the phase names a node
	req      resource.Vector // the request every task of the phase shares; nil if they differ
	dataSize int64           // Σ max(DataSize, 0) over the phase's tasks
	// support is the set of kinds (bit k) the phase's tasks all ask
	// more than supportMin of; 0 when their requests differ, or with more
	// than maxSupportKinds kinds (book.ready.by).
	support uint8
	// shaped is set when the phase is a workload.TaskBatch whose every
	// task, as its Shaper shapes it, is the same one-stage task but for
	// its duration (checked task by task at New): book.taskSpec then
	// writes a task from logic, dataSize, req, demand and durs[i]
	// without going through the batch and its Shaper (fewer cache
	// misses per materialised task on a trace day).
	shaped   bool
	logic    string
	demand   resource.Vector // the stage's demand (interned, read-only)
	durs     []time.Duration // the batch's durations
	shapeDat int64           // the batch's DataSize
}

// readyRef names a task that became ready; it is stale once the task's
// readyGen moved on.
type readyRef struct {
	task int32 // index in the job
	gen  uint32
}

// locality indexes a phase's tasks by the nodes that hold their data
// (compressed sparse rows keyed by node index).
type locality struct {
	nodes []int32 // sorted node indices
	off   []int32 // tasks of nodes[i] are tasks[off[i]:off[i+1]]
	tasks []int32 // indices in the job
	cur   []int32 // per node: first entry that may still be pending
}

// ID implements schedkit.Job.
func (j *Job) ID() schedkit.JobID { return j.id }

// Submitted implements schedkit.Job.
func (j *Job) Submitted() time.Time { return j.submitted }

// Deadline implements schedkit.Job; the zero Time means none.
func (j *Job) Deadline() time.Time { return j.deadline }

// Phases implements schedkit.Job.
func (j *Job) Phases() int { return len(j.phases) }

// Progress implements schedkit.Job. It returns zero counters for a phase
// out of range.
func (j *Job) Progress(p schedkit.Phase) schedkit.PhaseProgress {
	if int(p) >= len(j.phases) {
		return schedkit.PhaseProgress{}
	}
	return j.phases[p].prog
}

// Index is the job's position in the workload.
func (j *Job) Index() int { return int(j.idx) }

// Class is the job's workflow, pool or queue (JobSpec.Class).
func (j *Job) Class() string { return j.spec.Class }

// Budget is the job's declared budget (0: none).
func (j *Job) Budget() float64 { return j.spec.Budget }

// Phi is the job's time-influence factor (paper 003).
func (j *Job) Phi() float64 { return j.spec.Phi }

// Active reports whether the job has been submitted and has not ended.
func (j *Job) Active() bool { return j.state == jobActive }

// Allocated is the sum of the allocations of the job's running tasks.
func (j *Job) Allocated() resource.Vector { return j.alloc }

// Price is the job's price vector in force: Config.Prices until a
// SetPrice decision gave it its own (nil: it is charged nothing).
func (j *Job) Price() resource.Vector {
	if j.price != nil {
		return j.price
	}
	return j.b.prices
}

// Cost is what the job has been charged so far: the integral of its
// price in force times its allocation, up to now.
func (j *Job) Cost() float64 {
	c := j.cost
	if p, now := j.Price(), j.b.eng.now; p != nil && now > j.costAt {
		c += dot(p, j.alloc) * time.Duration(now-j.costAt).Seconds()
	}
	return c
}

// Tasks returns the number of tasks in phase p.
func (j *Job) Tasks(p schedkit.Phase) int {
	if int(p) >= len(j.phases) {
		return 0
	}
	return j.phases[p].prog.Total
}

// Task returns task i of phase p, or nil if out of range. A task that
// has not succeeded is the same object for as long as it has not (a
// policy may keep it as an identity); once it succeeded, the simulator
// recycles the object and Task returns a fresh read-only view in state TaskSucceeded.
func (j *Job) Task(p schedkit.Phase, i int) *Task {
	if int(p) >= len(j.phases) || i < 0 || i >= j.phases[p].prog.Total {
		return nil
	}
	x := int32(j.phases[p].first + i)
	if t := j.liveAt(x); t != nil {
		return t
	}
	if !j.hasStarted(x) && j.state != jobEnded {
		return j.b.materialize(j, x)
	}
	v := &Task{}
	j.view(x, v)
	return v
}

func (j *Job) hasStarted(x int32) bool { return j.begun[x>>6]&(1<<(x&63)) != 0 }

func (j *Job) markStarted(x int32) { j.begun[x>>6] |= 1 << (x & 63) }

// phaseOf returns the phase of the task at index x of the job.
func (j *Job) phaseOf(x int32) int {
	p := 0
	for p+1 < len(j.phases) && int(x) >= j.phases[p+1].first {
		p++
	}
	return p
}

// view fills v with a read-only picture of the task at index x that is
// not live: succeeded if it started, else pending (killed once its job
// ended without completing).
func (j *Job) view(x int32, v *Task) {
	p := j.phaseOf(x)
	i := int(x) - j.phases[p].first
	*v = Task{job: j, phase: schedkit.Phase(p), inPhase: int32(i), gidx: -1}
	v.spec = j.b.taskSpec(j, p, i, &v.own)
	v.id = "" // built by ID when asked
	switch {
	case j.hasStarted(x):
		v.state, v.attempts = schedkit.TaskSucceeded, 1
	case j.state == jobEnded && j.outcome != Completed:
		v.state = schedkit.TaskKilled
	default:
		v.state = schedkit.TaskPending
	}
}

// liveTask returns the task at index x of the job as a live object,
// materialising it if it never started. It returns nil for a task that
// succeeded.
func (j *Job) liveTask(x int32) *Task {
	if t := j.liveAt(x); t != nil {
		return t
	}
	if j.hasStarted(x) {
		return nil
	}
	return j.b.materialize(j, x)
}

// PhaseRequest returns the Requested vector every task of phase p
// shares, and false (nil) if the phase's tasks ask differently or p is
// out of range. Policies may index jobs by it (the baselines group jobs
// whose next tasks ask alike). The vector belongs to the simulator.
func (j *Job) PhaseRequest(p schedkit.Phase) (resource.Vector, bool) {
	if int(p) >= len(j.phases) || j.phases[p].req == nil {
		return nil, false
	}
	return j.phases[p].req, true
}

// DataSize returns the sum over phase p's tasks of their declared data
// sizes (Similarity().DataSize, negative ones counted as 0), 0 for p out
// of range. Unlike summing over Task(p, i), it makes no task objects: a
// trace day's phase can have 175,000 tasks.
func (j *Job) DataSize(p schedkit.Phase) int64 {
	if int(p) >= len(j.phases) {
		return 0
	}
	return j.phases[p].dataSize
}

// PhaseComputes reports whether tasks of phase p make progress when
// running: every earlier phase has finished. Earlier, a started task of
// phase p holds its allocation and waits (slow-start).
func (j *Job) PhaseComputes(p schedkit.Phase) bool { return int(p) <= j.doneThrough }

// ReadyTasks appends to dst up to max distinct ready tasks of phase p and
// returns it: tasks whose data is on node n first (n may be nil), then
// tasks pending again after a failure, then the rest in task order. It
// does not change which tasks are ready, so calling it twice in one
// heartbeat returns the same tasks; a policy choosing several takes them
// from one call. It does not allocate when dst has room.
func (j *Job) ReadyTasks(p schedkit.Phase, n *Node, dst []*Task, max int) []*Task {
	if int(p) >= len(j.phases) || max <= 0 || j.state != jobActive {
		return dst
	}
	ph := &j.phases[p]
	if !ph.unlocked || ph.prog.Ready == 0 {
		return dst
	}
	if max > ph.prog.Ready {
		max = ph.prog.Ready
	}
	j.b.mark++
	mark := j.b.mark
	got := 0
	take := func(t *Task) bool {
		if t.state == schedkit.TaskPending && t.mark != mark {
			t.mark = mark
			dst = append(dst, t)
			got++
		}
		return got >= max
	}
	if n != nil && ph.loc != nil {
		l := ph.loc
		i := sort.Search(len(l.nodes), func(i int) bool { return l.nodes[i] >= n.idx })
		if i < len(l.nodes) && l.nodes[i] == n.idx {
			end := l.off[i+1]
			// Skip the started prefix for good; a task pending again is
			// found through the retry list.
			for l.cur[i] < end && j.hasStarted(l.tasks[l.cur[i]]) {
				l.cur[i]++
			}
			for c := l.cur[i]; c < end; c++ {
				if x := l.tasks[c]; !j.hasStarted(x) && take(j.liveTask(x)) {
					return dst
				}
			}
		}
	}
	for ph.retryAt < len(ph.retry) && !ph.retry[ph.retryAt].valid(j) {
		ph.retryAt++
	}
	if ph.retryAt == len(ph.retry) && ph.retryAt > 0 {
		ph.retry, ph.retryAt = ph.retry[:0], 0
	}
	for _, r := range ph.retry[ph.retryAt:] {
		if r.valid(j) && take(j.liveAt(r.task)) {
			return dst
		}
	}
	end := ph.first + ph.prog.Total
	for ph.next < end && j.hasStarted(int32(ph.next)) {
		ph.next++
	}
	for c := ph.next; c < end; c++ {
		if x := int32(c); !j.hasStarted(x) && take(j.liveTask(x)) {
			return dst
		}
	}
	return dst
}

func (r readyRef) valid(j *Job) bool {
	t := j.liveAt(r.task)
	return t != nil && t.state == schedkit.TaskPending && t.readyGen == r.gen
}

// peek returns the task at index x of j: its live object, or a view of it
// written into v.
func (j *Job) peek(x int32, v *Task) *Task {
	if t := j.liveAt(x); t != nil {
		return t
	}
	j.view(x, v)
	return v
}

// record fills rec with the job's record.
func (j *Job) record(rec *JobRecord) {
	rec.ID, rec.Class = string(j.id), j.spec.Class
	rec.Submit, rec.Deadline = time.Duration(j.submitOff), j.spec.Deadline
	rec.Budget, rec.Phi = j.spec.Budget, j.spec.Phi
	rec.Tasks = j.nTasks
	rec.Outcome = j.outcome
	rec.Finish = time.Duration(j.endAt)
	rec.Start = rec.Finish
	if j.started {
		rec.Start = time.Duration(j.startAt)
	}
	rec.Cost = j.cost
	rec.CouldHaveMade, rec.CheckedKill = j.could, j.checked
	if j.state != jobEnded && j.state != jobActive {
		rec.Finish, rec.Start = rec.Submit, rec.Submit
	}
}

// dot is Σ p[k]·a[k] over positive amounts.
func dot(p, a resource.Vector) float64 {
	c := 0.0
	for k, x := range a {
		if x > 0 {
			c += p[k] * x
		}
	}
	return c
}
