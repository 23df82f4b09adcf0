package sim

import (
	"sort"
	"time"

	"github.com/schedkit/schedkit"
	"github.com/schedkit/schedkit/internal/metrics"
	"github.com/schedkit/schedkit/internal/workload"
	"github.com/schedkit/schedkit/resource"
)

// Compile-time checks: the simulator is a host like any other.
var (
	_ schedkit.Job     = (*Job)(nil)
	_ schedkit.Task    = (*Task)(nil)
	_ schedkit.Node    = (*Node)(nil)
	_ schedkit.Cluster = (*Cluster)(nil)
)

type jobState uint8

const (
	jobWaiting jobState = iota // not yet submitted
	jobActive
	jobEnded
)

// Job is the simulator's view of one job. It implements schedkit.Job;
// its counters are kept incrementally, so every method is O(1).
type Job struct {
	s         *Sim
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
	outcome     metrics.Outcome
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
	// than maxSupportKinds kinds (Sim.readyBy).
	support uint8
	// shaped is set when the phase is a workload.TaskBatch whose every
	// task, as its Shaper shapes it, is the same one-stage task but for
	// its duration (checked task by task at New): Sim.taskSpec then
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
	return j.s.cfg.Prices
}

// Cost is what the job has been charged so far: the integral of its
// price in force times its allocation, up to now.
func (j *Job) Cost() float64 {
	c := j.cost
	if p := j.Price(); p != nil && j.s.now > j.costAt {
		c += dot(p, j.alloc) * time.Duration(j.s.now-j.costAt).Seconds()
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
		return j.s.materialize(j, x)
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
	v.spec = j.s.taskSpec(j, p, i, &v.own)
	v.id = "" // built by ID when asked
	switch {
	case j.hasStarted(x):
		v.state, v.attempts = schedkit.TaskSucceeded, 1
	case j.state == jobEnded && j.outcome != metrics.Completed:
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
	return j.s.materialize(j, x)
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
	s := j.s
	s.mark++
	mark := s.mark
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

// Task is the simulator's view of one task. It implements schedkit.Task.
// Its true profile is not visible to policies (TestNoOracle).
type Task struct {
	job      *Job
	spec     *workload.TaskSpec
	id       schedkit.TaskID
	locs     []schedkit.NodeID
	gidx     int32 // index in Sim.tasks (-1: a read-only view)
	inPhase  int32
	phase    schedkit.Phase
	state    schedkit.TaskState
	attempts int32 // attempts started
	fails    int32 // attempts failed by over-commit
	readyGen uint32
	mark     uint32
	ver      uint32 // progress version; stage events carry it
	run      *attempt
	node     *Node
	// stage1 is own.Profile's first backing array, in the object itself
	// next to run: a one-stage task's profile is written and read
	// without touching another allocation.
	stage1 [1]workload.Stage
	own    workload.TaskSpec // the spec of a task of a TaskBatch
}

// attempt is the state of a running task attempt. Attempts are pooled by
// the simulator, so starting and ending tasks does not allocate.
type attempt struct {
	// The fields recompute reads for every running task of a node come
	// first, with the allocation's storage for up to allocInline kinds
	// (one or two cache lines instead of three allocations).
	alloc    resource.Vector
	profile  []workload.Stage
	stage    int
	waiting  bool
	allocArr [allocInline]float64
	allocBuf []float64
	plan     []AllocStep
	planBuf  []float64
	planIdx  int
	rem      float64 // isolated nanoseconds left in the current stage
	rate     float64
	// pace is the fraction of its full speed the attempt progresses at,
	// penalty excluded: the factor its compressible usage is scaled by.
	pace float64
	// planRem is the work (isolated nanoseconds) left before the plan's
	// next step; meaningful only while planNext.
	planRem    float64
	last       int64 // when rem was last brought up to date
	stageStart int64
	start      int64
	startSeq   uint64
	slot       int // position in node.running
	gslot      int // position in host.guests, -1 if none
	host       *Node
	pin        *Node       // Decision.Target of the assignment: host whatever the binding
	rec        *attemptRec // Config.RecordTasks only
	runNo      uint32
	fresh      bool // rem was just set: reschedule whatever the rate
	planNext   bool
	toPlan     bool // the scheduled progress event is a plan step, not a stage end
	// cAlloc and cLoad are the terms the attempt last contributed to its
	// node's incremental sums (Sim.fast); cExact says they were exact
	// (sums.go), cOn that they are in.
	cAlloc [allocInline]float64
	cLoad  [allocInline]float64
	cExact bool
	cOn    bool
}

// attemptRec is what a task record of an attempt accumulates: integrals
// since the start of allocation, actual usage and true demand (amount ×
// ns) up to intAt, and cost up to costAt.
type attemptRec struct {
	intAt                     int64
	allocSum, usedSum, demSum []float64
	cost                      float64
	costAt                    int64
}

// inJob is the task's index in its job (phases in order).
func (t *Task) inJob() int32 { return int32(t.job.phases[t.phase].first) + t.inPhase }

// ID implements schedkit.Task: "<job>/<phase>/<index>".
// The string is built on the first call (most tasks of a trace day are
// never asked), and kept until the object is recycled.
func (t *Task) ID() schedkit.TaskID {
	if t.id == "" && t.job != nil {
		t.id = taskID(t.job, int(t.phase), int(t.inPhase))
	}
	return t.id
}

// Job implements schedkit.Task.
func (t *Task) Job() schedkit.JobID { return t.job.id }

// Owner returns the task's job.
func (t *Task) Owner() *Job { return t.job }

// Phase implements schedkit.Task.
func (t *Task) Phase() schedkit.Phase { return t.phase }

// Index is the task's position within its phase.
func (t *Task) Index() int { return int(t.inPhase) }

// Similarity implements schedkit.Task (paper 004 definition 3).
func (t *Task) Similarity() schedkit.SimilarityKey {
	return schedkit.SimilarityKey{Logic: t.spec.Logic, DataSize: t.spec.DataSize}
}

// Requested implements schedkit.Task.
func (t *Task) Requested() resource.Vector { return t.spec.Requested }

// Deadline implements schedkit.Task: the job's deadline.
func (t *Task) Deadline() time.Time { return t.job.deadline }

// DataLocations implements schedkit.Task.
func (t *Task) DataLocations() []schedkit.NodeID { return t.locs }

// Locations returns the indices (Cluster.NodeByIndex) of the nodes
// holding the task's input.
func (t *Task) Locations() []int { return t.spec.Locations }

// State is the task's state: pending (ready or not), running, succeeded
// or killed. A failed attempt leaves the task pending.
func (t *Task) State() schedkit.TaskState { return t.state }

// Ready reports whether the task may be assigned now.
func (t *Task) Ready() bool {
	return t.state == schedkit.TaskPending && t.job.state == jobActive && t.job.phases[t.phase].unlocked
}

// Attempts is the number of attempts started so far.
func (t *Task) Attempts() int { return int(t.attempts) }

// Node returns the node the task runs on, or nil.
func (t *Task) Node() *Node {
	if t.run == nil {
		return nil
	}
	return t.node
}

// Allocation returns the running attempt's current allocation, or nil.
func (t *Task) Allocation() resource.Vector {
	if t.run == nil {
		return nil
	}
	return t.run.alloc
}

// Host returns the node serving the running attempt's demand of the
// offload kinds (Config.OffloadKinds): the node its node is bound to, or
// the Target its assignment named; nil if the task is not running, its
// node offloads nothing, or it is unbound. Config.Profile may call it:
// the host is known when the profile is chosen.
func (t *Task) Host() *Node {
	if t.run == nil {
		return nil
	}
	return t.run.host
}

// Started returns when the running attempt started (zero if not running).
func (t *Task) Started() time.Time {
	if t.run == nil {
		return time.Time{}
	}
	return Epoch.Add(time.Duration(t.run.start))
}

// Waiting reports whether the running attempt holds its allocation while
// waiting for an earlier phase to finish (slow-start).
func (t *Task) Waiting() bool { return t.run != nil && t.run.waiting }

// Rate returns the running attempt's progress: isolated work done per
// unit of virtual time (its node's speed when nothing slows it, less
// under contention or a limit below its demand, 0 while waiting); 0 if
// the task is not running.
func (t *Task) Rate() float64 {
	if t.run == nil {
		return 0
	}
	return t.run.rate
}

// Node is the simulator's view of one server. It implements schedkit.Node.
type Node struct {
	s         *Sim
	idx       int32
	id        schedkit.NodeID
	rack      schedkit.RackID
	capacity  resource.Vector
	fullAt    resource.Vector // capacity + slack(capacity): usage beyond fails a task (victim)
	alloc     resource.Vector
	avail     resource.Vector
	used      resource.Vector // true demand of running tasks (capped at allocation under Limits) + background
	bg        resource.Vector
	rc        []float64 // compression rate per kind, formula (1)
	speed     float64
	accels    []schedkit.AcceleratorInfo
	up        bool
	bound     *Node
	offloaded []bool // per kind: served by the bound node
	offload   bool   // some kind is offloaded
	running   []*Task
	guests    []*Task // tasks elsewhere whose offloaded demand is served here
	hbOffset  int64
	// incAlloc and incLoad are the sums of the running attempts' exact
	// terms (allocation, load), kept as they start, change and end, and
	// inexact the number of running attempts with a term that is not
	// (sums.go); resync says the sums must be rebuilt by a full
	// recompute. changed are the running tasks whose terms changed since
	// the last settle (their rates are due for an update).
	incAlloc resource.Vector
	incLoad  resource.Vector
	inexact  int32
	resync   bool
	rateAll  bool // a recompute in this settle changed the node's rc
	changed  []*Task
	hbOn     bool // a periodic heartbeat is scheduled
	oob      bool // an out-of-band heartbeat is scheduled
	dirty    bool
}

// ID implements schedkit.Node.
func (n *Node) ID() schedkit.NodeID { return n.id }

// Rack implements schedkit.Node.
func (n *Node) Rack() schedkit.RackID { return n.rack }

// Capacity implements schedkit.Node.
func (n *Node) Capacity() resource.Vector { return n.capacity }

// Available implements schedkit.Node: capacity minus allocations. A
// compressible kind a policy over-subscribed shows a negative amount.
func (n *Node) Available() resource.Vector { return n.avail }

// Accelerators implements schedkit.Node.
func (n *Node) Accelerators() []schedkit.AcceleratorInfo { return n.accels }

// Index is the node's position in Config.Nodes.
func (n *Node) Index() int { return int(n.idx) }

// Speed is the node's progress-rate factor (heterogeneous nodes).
func (n *Node) Speed() float64 { return n.speed }

// Up reports whether the node is live.
func (n *Node) Up() bool { return n.up }

// Bound returns the node n is bound to for offload kinds, or nil.
func (n *Node) Bound() *Node { return n.bound }

// Allocated is the sum of the allocations held on the node (including
// offloaded allocations of guests).
func (n *Node) Allocated() resource.Vector { return n.alloc }

// Running returns the tasks running on the node. The slice belongs to the
// simulator and changes as tasks start and end.
func (n *Node) Running() []*Task { return n.running }

// Cluster is the simulator's view of the cluster. It implements
// schedkit.Cluster.
type Cluster struct{ s *Sim }

// Space implements schedkit.Cluster.
func (c *Cluster) Space() *resource.Space { return c.s.space }

// Nodes implements schedkit.Cluster: the number of live nodes.
func (c *Cluster) Nodes() int { return len(c.s.live) }

// Node implements schedkit.Cluster: the i-th live node, in Config order.
func (c *Cluster) Node(i int) schedkit.Node {
	if i < 0 || i >= len(c.s.live) {
		return nil
	}
	return c.s.live[i]
}

// LiveNode is Node returning the concrete type.
func (c *Cluster) LiveNode(i int) *Node {
	if i < 0 || i >= len(c.s.live) {
		return nil
	}
	return c.s.live[i]
}

// AllNodes returns the number of configured nodes, live or not.
func (c *Cluster) AllNodes() int { return len(c.s.nodes) }

// NodeByIndex returns the node at position i of Config.Nodes, or nil.
func (c *Cluster) NodeByIndex(i int) *Node {
	if i < 0 || i >= len(c.s.nodes) {
		return nil
	}
	return &c.s.nodes[i]
}

// Capacity implements schedkit.Cluster: the sum of live capacities.
func (c *Cluster) Capacity() resource.Vector { return c.s.capacity }

// Jobs returns the active jobs (submitted, not ended) in submission
// order. The slice belongs to the simulator.
func (c *Cluster) Jobs() []*Job { return c.s.activeList() }

// Job returns the job with the given ID (active or not), or nil.
func (c *Cluster) Job(id schedkit.JobID) *Job { return c.s.byID[id] }

// Now returns the current virtual time.
func (c *Cluster) Now() time.Time { return c.s.Now() }

// Ready returns the number of ready tasks over all active jobs.
func (c *Cluster) Ready() int { return c.s.ready }

// ReadyIn returns the number of ready tasks of phase p over all active
// jobs.
func (c *Cluster) ReadyIn(p schedkit.Phase) int {
	if int(p) >= len(c.s.readyIn) {
		return 0
	}
	return c.s.readyIn[p]
}

// Running returns the number of running tasks.
func (c *Cluster) Running() int { return c.s.running }
