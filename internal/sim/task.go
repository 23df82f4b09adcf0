package sim

import (
	"strconv"
	"time"

	"github.com/schedkit/schedkit"
	"github.com/schedkit/schedkit/internal/workload"
	"github.com/schedkit/schedkit/resource"
)

var _ schedkit.Task = (*Task)(nil)

// Task is the simulator's view of one task. It implements schedkit.Task.
// Its true profile is not visible to policies (TestNoOracle).
type Task struct {
	job      *Job
	spec     *workload.TaskSpec
	id       schedkit.TaskID
	locs     []schedkit.NodeID
	gidx     int32 // index in book.tasks.all (-1: a read-only view)
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

// taskID builds "<job>/<phase>/<index>" in one stack buffer (a job ID
// of up to 40 bytes), so the string is the one allocation: a trace day
// asks the ID of every task it places.
func taskID(j *Job, p, i int) schedkit.TaskID {
	var buf [64]byte
	b := append(buf[:0], j.spec.ID...)
	b = append(b, '/')
	b = strconv.AppendInt(b, int64(p), 10)
	b = append(b, '/')
	b = strconv.AppendInt(b, int64(i), 10)
	return schedkit.TaskID(b)
}

// AllocStep is one step of an allocation plan (Decision.Plan): Alloc
// holds for Duration of the task's work.
type AllocStep struct {
	Duration time.Duration
	Alloc    resource.Vector
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
	fresh      bool        // rem was just set: reschedule whatever the rate
	planNext   bool
	toPlan     bool // the scheduled progress event is a plan step, not a stage end
	// cAlloc and cLoad are the terms the attempt last contributed to its
	// node's incremental sums (world.fast); cExact says they were exact
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

// allocInline is the number of kinds an attempt's allocation holds in
// the attempt itself (attempt.allocArr); more are allocated apart.
const allocInline = 4
