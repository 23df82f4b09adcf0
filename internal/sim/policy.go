package sim

import (
	"fmt"
	"time"

	"github.com/schedkit/schedkit"
	"github.com/schedkit/schedkit/resource"
)

// Policy is a scheduler under test. The simulator calls it exactly as a
// host would: once per job at submission, and on every heartbeat of a
// node, handing it read-only views of the cluster and getting decisions
// back as values. A policy is called from one goroutine only.
//
// Views (*Job, *Task, *Node, *Cluster and the vectors and slices they
// return) are owned by the simulator and valid only during the call; a
// policy must not modify anything. *Job and *Node pointers are identities
// for the whole run. A *Task is one from when the policy first sees it
// until it succeeds (TaskWatcher hears TaskSucceeded): then its object
// goes back to a pool and may come back as another task (tasks exist as
// objects only while they matter, so a trace day fits in memory). Key
// state that outlives a task by its ID.
type Policy interface {
	// Name identifies the policy in reports.
	Name() string
	// Submit is called when j arrives. A policy accepting j returns
	// nil; one refusing it (admission control) returns Reject(reason):
	// the job ends at once with outcome Rejected and the reason
	// recorded. Any other error stops the run with ErrPolicy.
	Submit(now time.Time, j *Job) error
	// Heartbeat is called when node n reports in, at the configured
	// interval and whenever a task ends on n. The policy appends its
	// decisions to dst and returns it; the simulator applies them in
	// order. Decisions are not applied until Heartbeat returns, so a
	// policy placing several tasks accounts for its own earlier choices
	// (n.Available does not change during the call). A non-nil error
	// stops the run with ErrPolicy.
	Heartbeat(now time.Time, n *Node, c *Cluster, dst []Decision) ([]Decision, error)
}

// Reject returns the error with which a Policy's Submit refuses a job
// (admission control): the job ends with outcome Rejected and reason.
func Reject(reason string) error { return &rejection{reason: reason} }

// rejection is Reject's error.
type rejection struct{ reason string }

func (e *rejection) Error() string { return "job rejected: " + e.reason }

// TaskWatcher is implemented by policies that want to hear when a task
// attempt ends. state is TaskSucceeded, TaskFailed (an incompressible
// over-commit or a node going down; the task is pending again and will be
// retried), or TaskKilled (preempted by a decision, or its job ended).
// Tasks of a killed job are not reported one by one; JobWatcher reports
// the job.
//
// A notification's error ends the run with ErrPolicy wrapping it (and
// naming the policy, the notification and the virtual time): the event
// in which it came is finished, without calling the policy again.
type TaskWatcher interface {
	TaskEnded(now time.Time, t *Task, state schedkit.TaskState) error
}

// JobWatcher is implemented by policies that want to hear when a job ends
// (completed, killed, rejected or failed). An error ends the run as
// TaskWatcher's does.
type JobWatcher interface {
	JobEnded(now time.Time, j *Job, outcome Outcome) error
}

// NodeWatcher is implemented by policies that track membership (the
// accelerator binding table). NodeChanged is called for every node at
// time zero with up = true, in node order, and again whenever a node goes
// down or comes back (Config.NodeEvents). It may return decisions, Bind
// decisions in particular; they are applied like a heartbeat's, with n as
// the default node.
type NodeWatcher interface {
	NodeChanged(now time.Time, n *Node, up bool, c *Cluster, dst []Decision) ([]Decision, error)
}

// Ticker is implemented by policies that want a periodic call (dbs's
// weight update, fgm's server-policy adjustment): Tick is called every
// Config.TickInterval while any job is active (not at all when the
// interval is 0). Its decisions are applied like a heartbeat's, except
// that there is no default node: an Assign or AssignPhase must name its
// Node. A non-nil error stops the run with ErrPolicy.
type Ticker interface {
	Tick(now time.Time, c *Cluster, dst []Decision) ([]Decision, error)
}

// UsageWatcher is implemented by policies that learn from measured usage,
// as a node agent reports it: every Config.SampleInterval while any job
// is active, TaskSampled once per running task (node by node, in node
// order) and then NodeSampled once per live node. Samples carry
// multiplicative noise (Config.SampleNoise). A task's sample is what it
// actually used: its true demand of incompressible kinds, and of
// compressible kinds its demand times its current pace, so a compressed
// task shows compressed usage (and, over its samples, a longer duration);
// a task waiting for an earlier phase shows only its held memory. A
// node's sample is the sum of its tasks' actual usage plus its
// background load. The vector is valid only during the call. An error
// ends the round of samples and the run, with ErrPolicy wrapping it.
type UsageWatcher interface {
	TaskSampled(now time.Time, t *Task, used resource.Vector) error
	NodeSampled(now time.Time, n *Node, used resource.Vector) error
}

// FullNodeSkipper is implemented by policies for which a heartbeat of a
// node that can take no ready task changes nothing. Such a node is idle:
// it is full (its Available amount of every kind is ≤ 0), or every ready
// task asks more than 1e-9 of some kind the node has none of
// available (the simulator knows a phase's tasks' kinds when they all
// ask alike, Job.PhaseRequest; a phase whose tasks ask differently
// counts as fitting anywhere), or no task is ready at all. If
// SkipFullNodes returns true, the simulator does not call Heartbeat for
// an idle node (periodic or out-of-band); the heartbeat still happens on
// the node's schedule, so the first heartbeat after a slot frees or a
// task becomes ready comes exactly when it would have.
// Stats.QuietHeartbeats counts the skipped calls.
//
// The contract: for the policy, such a Heartbeat would return no
// decisions and change no state that a later decision depends on (work
// it defers to its next call, like bringing cached keys up to date, is
// fine if the result does not depend on when it is done). A
// request-based policy whose every assignment allocates its task's
// request, and that gives a node nothing when no ready task's request
// fits it (the baselines), qualifies. A policy that acts on idle nodes
// does not: one that kills or preempts (lss ends jobs at heartbeats,
// DropAtDeadline kills on any heartbeat), one that allocates below the
// request or over-subscribes compressible kinds (fgm), or one that
// counts heartbeats. A type embedding a policy inherits its
// SkipFullNodes: one that adds behaviour on heartbeats must override it
// (wrappers like DropAtDeadline hold the inner policy in a field, so do
// not). Config.DeliverFullHeartbeats turns skipping off for every policy
// (the test of the contract runs both ways).
type FullNodeSkipper interface {
	SkipFullNodes() bool
}

// ComputingPhaseAssigner refines FullNodeSkipper for a policy that
// assigns a task only when its phase computes (Job.PhaseComputes: every
// task of the earlier phases finished), whatever the simulator's
// slow-start makes ready earlier: dbs holds a job's reduces until its
// maps are done. If AssignsComputingPhasesOnly returns true (and
// SkipFullNodes does), the idle test above counts only the ready tasks
// of phases that compute, so a node whose free slots only such held
// tasks could use counts as idle. An assignment of a task whose phase
// does not compute is then invalid (the policy broke its word).
type ComputingPhaseAssigner interface {
	AssignsComputingPhasesOnly() bool
}

// DecisionKind says what a Decision asks the simulator to do.
type DecisionKind uint8

// Decision kinds. The zero value is invalid.
const (
	// Assign starts Task on Node (nil: the heartbeating node) with
	// allocation Alloc (nil: the task's Requested vector) or, if Plan is
	// set, with a per-stage allocation plan.
	Assign DecisionKind = iota + 1
	// AssignPhase starts Count ready tasks of Job's Phase on Node (nil:
	// the heartbeating node); the simulator picks which, tasks whose data
	// is on Node first. Each gets Alloc (nil: its own Requested vector).
	AssignPhase
	// KillJob ends Job with outcome Killed. Its running tasks stop and free
	// their resources at once; Reason is recorded.
	KillJob
	// Preempt stops the running Task; it returns to pending (ready) and
	// its work is lost. Counted in Stats.Preempted.
	Preempt
	// Bind binds Node to Target (nil unbinds): Node's demand of the
	// Config.OffloadKinds it has no capacity for is served by Target.
	Bind
	// SetPrice sets Job's price vector to Price (per unit of each kind
	// allocated per second); cost accrued so far stays at the old price.
	SetPrice
)

var decisionKindNames = [...]string{"invalid", "assign", "assign-phase", "kill-job", "preempt", "bind", "set-price"}

// String returns the kind's lower-case name.
func (k DecisionKind) String() string {
	if int(k) < len(decisionKindNames) {
		return decisionKindNames[k]
	}
	return fmt.Sprintf("DecisionKind(%d)", uint8(k))
}

// Decision is one action a policy asks of the simulator. Which fields
// matter depends on Kind; see the kind constants and the constructors
// (AssignTask, AssignTasks, Kill, PreemptTask, BindNode, PriceJob).
type Decision struct {
	Kind  DecisionKind
	Job   *Job  // AssignPhase, KillJob, SetPrice
	Task  *Task // Assign, Preempt
	Node  *Node // Assign, AssignPhase (nil: the heartbeating node); Bind (the NNode)
	Phase schedkit.Phase
	Count int // AssignPhase
	// Target is the node Bind binds Node to; nil unbinds. For Assign and
	// AssignPhase, a non-nil Target pins the started tasks: their demand
	// of the offload kinds is served by Target for this attempt instead
	// of by the node Node is bound to (container-level binding). A later
	// Bind of Node does not move them, and Target going down fails them
	// (retried; Stats.Lost). It must be up and not Node itself; on a node
	// that offloads nothing it has no effect.
	Target *Node
	// Alloc is the allocation for Assign and AssignPhase; nil means the
	// task's Requested vector. It may be below the request (fine-grained
	// policies): under Limits, a compressible kind allocated below the
	// task's demand slows it to a/d (package doc, "Compression"); an
	// incompressible kind below its true demand risks an over-commit.
	// Incompressible kinds must fit the node's free capacity; compressible
	// kinds may over-subscribe it (formula (5) then slows the tasks that
	// contend). The simulator copies it.
	Alloc resource.Vector
	// Plan, for Assign only, replaces Alloc with an allocation that
	// follows the task's progress: step i holds while the task does
	// Plan[i].Duration of work after the previous step (work measured like
	// a stage's Duration: uncompressed time on a speed-1 node, so a
	// compressed or waiting task stays in step), and the last step holds
	// until the task ends. Every step must fit the node's free capacity in
	// its incompressible kinds when the task is assigned. The simulator
	// copies it.
	Plan []AllocStep
	// Price is the new price vector of a SetPrice decision (length
	// Space.Len(), finite, ≥ 0). The simulator copies it.
	Price resource.Vector
	// Reason explains a KillJob or Preempt, for reports.
	Reason string
}

// AssignTask returns a decision starting t on n (nil: the heartbeating
// node) with its requested allocation.
func AssignTask(t *Task, n *Node) Decision { return Decision{Kind: Assign, Task: t, Node: n} }

// AssignTasks returns a decision starting count ready tasks of j's phase p
// on n (nil: the heartbeating node) with their requested allocations.
func AssignTasks(j *Job, p schedkit.Phase, count int, n *Node) Decision {
	return Decision{Kind: AssignPhase, Job: j, Phase: p, Count: count, Node: n}
}

// Kill returns a decision killing j.
func Kill(j *Job, reason string) Decision { return Decision{Kind: KillJob, Job: j, Reason: reason} }

// PreemptTask returns a decision preempting the running task t.
func PreemptTask(t *Task, reason string) Decision {
	return Decision{Kind: Preempt, Task: t, Reason: reason}
}

// BindNode returns a decision binding n to target (nil unbinds).
func BindNode(n, target *Node) Decision { return Decision{Kind: Bind, Node: n, Target: target} }

// PriceJob returns a decision setting j's price vector.
func PriceJob(j *Job, price resource.Vector) Decision {
	return Decision{Kind: SetPrice, Job: j, Price: price}
}
