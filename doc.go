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
