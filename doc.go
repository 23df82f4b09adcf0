// Package schedkit holds the vocabulary shared by schedkit's scheduling
// algorithms: the read-only interfaces a host scheduler implements (Job,
// Task, Node, Cluster, Accelerator) and the small value types they use.
//
// schedkit is a library of cluster-scheduling algorithms, not a scheduler.
// A host (a YARN-, Kubernetes-, Nomad- or home-grown scheduler, or
// schedkit's own simulator) keeps the state of its jobs, tasks and nodes,
// exposes it through these interfaces, calls an algorithm with an explicit
// now time.Time, and carries out the decisions the algorithm returns as
// values. Algorithms never read a clock, open a file or start a goroutine
// (package pipeline excepted).
//
// # What each algorithm reads
//
// The interfaces are shaped by what the algorithms read on their hot paths:
// counts and sums the host already keeps, never a walk over every task.
//
//	reader    reads                                         through
//	lss       deadline, submit time, ID                     Job.Deadline, Job.Submitted, Job.ID
//	          per phase: unfinished, running, ready counts  Job.Progress → PhaseProgress
//	          summed elapsed time of running tasks          PhaseProgress.RunningStartSum
//	          finished-task count and duration sum          PhaseProgress.Finished, FinishedDurationSum
//	          cluster map/reduce slot counts                Cluster.Capacity (slot kinds)
//	          free slots on the heartbeating node           Node.Available
//	dbs       all of lss, plus budget, φ, task counts       dbs.Job embeds Job
//	          and data sizes for the minimum-slot model
//	fgm       node capacity vector and rack                 Node.Capacity, Node.Rack
//	          task similarity key (logic + data size)       Task.Similarity
//	          requested quantity, deadline, locality        Task.Requested, Task.Deadline, Task.DataLocations
//	binding   node rack, accelerators (kind, weight, health) Node.Rack, Node.Accelerators
//	pipeline  a device that runs work                       Accelerator.Run
//
// Packages that need more declare a small interface embedding these, the
// way io.ReadCloser embeds io.Reader (for example dbs.Job adds Budget).
//
// # Contract
//
// All views are read-only: an algorithm never mutates what it is given and
// never retains a returned slice or vector past the call. Methods must be
// cheap and must not allocate. Times are passed in; durations are
// time.Duration; resource amounts are float64 in the kind's unit (see
// package resource). IDs are strings compared lexically for tie-breaks.
//
// # Conventions every package follows
//
// The algorithm packages (lss, dbs, fgm, binding, pipeline) speak one
// dialect, so a host that adopts two of them meets one set of rules:
//
//  1. Time. A scheduler measures every now from its epoch, the first now
//     a state-changing call succeeded with. A time more than 2⁶⁰ ns
//     (about 36 years) from the epoch is ErrTimeRange: a now, and every
//     other time a call gives (a job's submission and deadline in lss
//     and dbs, a task's deadline in fgm), from the first call on (before
//     the epoch is set, from that call's now). A state-changing call
//     dated before the latest state-changing call is ErrStaleTime.
//     Read-only calls (queries such as Status or Free) check range only
//     and never move the clock. binding keeps staleness per node, since
//     heartbeats of different nodes reach a host in any order.
//  2. Errors. The same mistake has the same sentinel name in every
//     package: ErrConfig (a bad Config, or a bad value for a setter),
//     ErrInvalidJob, ErrInvalidTask, ErrInvalidNode (input that cannot be
//     used: nil or a typed nil pointer, an empty ID, a NaN, infinite,
//     negative or over-capacity amount, counters that contradict each
//     other), ErrDuplicateJob, ErrDuplicateTask, ErrDuplicateNode,
//     ErrUnknownJob, ErrUnknownTask, ErrUnknownNode, ErrStaleTime,
//     ErrTimeRange, each reading the same words after its package's name
//     ("lss: unknown node ID", "fgm: unknown node ID"); a package adds
//     sentinels only for what is its own (fgm's ErrInvalidSample and
//     ErrInvalidEstimate, lss's ErrNotAdmitted, pipeline's
//     ErrStageFailed, ErrUndeliverable and ErrWorkNotRun). Every error
//     for bad input is a *Error with the fields Op, Job, Node (and Task
//     where the package deals in tasks; binding, which deals in nodes
//     only, has no Job), Reason, Err (the sentinel) and Cause (an
//     underlying error, or nil); its Unwrap() []error returns Err and
//     Cause, so errors.Is and errors.As work; its text names the package
//     once: `lss: Submit: job "j1": invalid job: deadline … before
//     submission …`.
//  3. An error changes nothing. A call that returns an error leaves the
//     scheduler exactly as it was: a scheduler given a bad call decides
//     afterwards as one that never saw it. Nothing panics on a host's
//     input, no decision holds a NaN, and no job, task, node or item is
//     dropped without an error or a decision that says so.
//  4. Decisions are values: a typed Action and, where the scheduler
//     explains itself, a typed Reason with a String method.
//  5. Node values. A node value given to a call (lss's and dbs's
//     Heartbeat, fgm's Schedule) stands for the node the scheduler holds
//     under its ID — the Cluster's node in lss and dbs, the server fgm
//     registered (at New, or by AddNode) — and must agree with it: a
//     value whose Capacity differs (a stale value, taken before the node
//     was resized) is refused with ErrInvalidNode, never used in its
//     place. An ID the scheduler does not hold is ErrUnknownNode. A
//     Cluster that also implements NodeLookup lets lss and dbs find any
//     ID in O(1).
//  6. Options and ablations. Config holds options; its zero value (with
//     the required fields set) is the paper's algorithm, and every
//     improvement on the paper is an option that is off by default.
//     Switches that remove a part of the paper, for experiments only,
//     sit apart in Config.Ablations.
//  7. Host duties. Each package's doc lists, numbered, what the host must
//     do, and a test-helper package (lsstest, dbstest, fgmtest,
//     bindingtest, pipelinetest) gives hosts an invariant Checker to run
//     after every operation, a reference Host and seeded random events
//     (in lsstest, dbstest and fgmtest, Drive performs them on any
//     Integration: the reference Host, or a host's own).
//
// # Usage
//
// A host type implements the interfaces over its own state, with a
// compile-time check:
//
//	type job struct{ /* host state */ }
//
//	var _ schedkit.Job = (*job)(nil)
//
//	func (j *job) ID() schedkit.JobID          { return j.id }
//	func (j *job) Submitted() time.Time        { return j.submitted }
//	func (j *job) Deadline() time.Time         { return j.deadline }
//	func (j *job) Phases() int                 { return 2 }
//	func (j *job) Progress(p schedkit.Phase) schedkit.PhaseProgress { return j.phases[p] }
//
// then passes values of it to an algorithm package (lss, dbs, fgm, binding)
// on each scheduling event. The Example shows a complete in-memory host.
package schedkit
