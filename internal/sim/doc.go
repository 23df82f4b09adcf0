// Package sim is schedkit's discrete-event cluster simulator: the host
// every scheduling policy (lss, dbs, fgm, binding and the baselines) is
// judged in.
//
// It is a host like any other: its *Job, *Task, *Node and *Cluster
// implement the root schedkit interfaces, keep their counters
// incrementally (O(1) per event), and a Policy is called through them on
// job submission and node heartbeats, returning decisions as values that
// the simulator carries out.
//
// # Model
//
// Time is virtual: int64 nanoseconds since Epoch, a fixed instant, so a
// policy receives now = Epoch + offset. Events sit in a hand-written
// binary heap of values ordered by (time, sequence number); equal times
// fire in scheduling order. All randomness (the order of the heartbeat
// stagger) comes from one *rand.Rand seeded by Config.Seed. Same inputs,
// same run.
//
// Cluster. Nodes (Config.Nodes) have a rack, a capacity vector in a
// resource.Space (Hadoop-1 map and reduce slots are just integral,
// incompressible kinds), a speed factor, optional accelerators, and may go
// down and come back (Config.NodeEvents): a node going down fails its
// running tasks (retried; Stats.Lost) and unbinds the nodes bound to it.
//
// Jobs. A job has sequential phases of tasks. Phase 0 is ready at
// submission; phase p becomes ready once ⌈SlowStart·n⌉ of phase p−1's n
// tasks finished (Hadoop's reduce slow-start; 0.05 by default). A task of
// phase p started before every task of phases < p finished holds its
// allocation but computes nothing (the shuffle wait of an early reducer:
// its compute starts when the last map ends); while waiting it uses the
// incompressible part of its first stage's demand (an idle reducer's
// memory) and none of the compressible part. Its measured duration
// includes the wait, as in Hadoop.
//
// Tasks. Each has a true profile (stages of demand and isolated duration;
// never shown to a policy) and a requested vector (what the user declared).
// A policy allocates the request, or any vector in an Assign decision
// (below the request for fine-grained policies), or a time-varying plan.
//
// Contention (paper 004). A task's progress rate is the node's speed
// times (1 − rc)/(1 + p), formula (5) read as a rate, where rc is the
// largest formula-(1) compression rate, (demand − capacity)/demand over
// the node's total true demand (running tasks plus background load), among
// the compressible kinds the task demands in its current stage, and p is
// Config.Penalty; uncontended (rc = 0) the rate is the speed, so p only
// applies to compressed tasks. Rates are recomputed on a node whenever
// anything on it changes (a task starts, ends or enters a new stage, the
// background load moves, a binding changes) and each task's remaining
// work is carried over, so a task compressed at rc throughout takes
// (1 + p)·T/(1 − rc).
//
// Over-commit. If the true usage of an incompressible kind on a node
// exceeds its capacity (possible when a policy allocates below peak, or
// under background load), the most recently started task using that kind
// fails (its work is lost; Stats.Failed, metrics.Run.FailedTasks), is
// pending again and will be retried; repeat until the node fits. A task
// failing Config.MaxAttempts times fails its job (outcome Failed, counted
// in Stats.FailedJobs).
//
// Kills. A KillJob decision (or a rejection at Submit) ends the job at
// once and frees everything it held. For a job with a deadline the
// simulator decides CouldHaveMade by an optimistic rule (see
// Sim.OptimisticEnd): running tasks finish their remaining isolated work
// uncontended; pending tasks of a phase run, after the previous phase, in
// waves on every slot the whole cluster has for them; it could have made
// it iff that ends by the deadline.
//
// Heartbeats. Every live node heartbeats every Config.HeartbeatInterval
// (staggered evenly, in a seeded order) while any job is active, and out of band
// at once whenever a task ends on it. Heartbeats stop while no job is
// active and resume at the next submission. Each heartbeat calls
// Policy.Heartbeat once.
//
// Offload (paper 001). Kinds listed in Config.OffloadKinds that a node
// has no capacity for are served by the node it is bound to (Bind
// decisions): the bound node's compression of that kind slows the task.
// An assignment naming a Target pins its task to that node instead (one
// binding per container rather than per node); Task.Host reports the
// serving node, and Config.Profile may read it to pick the profile.
//
// Invalid decisions (unknown or ended job, task not ready, allocation
// over the free capacity of an incompressible kind, more tasks than
// ready...) are not applied; they are counted (Stats.Invalid) and Run
// returns a *DecisionError with the first few, after finishing the run.
//
// # Output
//
// Run returns a metrics.Run: one JobRecord per job in workload order
// (jobs not ended by the horizon are Unfinished), a Sample every
// Config.SampleInterval (utilisation per kind: allocation for integral
// kinds, true usage capped at capacity otherwise; dominant share of every
// active job), failed and retried attempt counts (retried counts every
// attempt after a task's first, whatever ended the earlier one), the
// wall-clock time spent inside Submit, Heartbeat and NodeChanged
// (measured with time.Now), and the number of events.
//
// # Scale
//
// A trace day holds millions of tasks, most of them waiting. A task is an
// object (*Task) only from when a policy first sees it (Job.ReadyTasks,
// Job.Task) until it succeeds; then its object goes back to a pool
// (kept when Config.RecordObserved is set). A job keeps its live tasks in
// a map and one bit per task saying whether it ever started, so a phase
// of n tasks that have not started costs n/8 bytes here, and nothing more
// when the workload describes it compactly (workload.TaskBatch: one
// duration per task, shaped when the task is materialised). Ending a job
// is O(1): the active list is compacted when next read (Cluster.Jobs).
// Materialisation follows the order ReadyTasks always used, so runs are
// identical to eager storage.
//
// # Usage
//
//	cfg := sim.DefaultConfig(space, nodes)
//	s, err := sim.New(cfg, &w, policy) // w is a workload.Workload
//	if err != nil { ... }
//	run, err := s.Run()               // run is a metrics.Run
//
// A policy implements Name, Submit and Heartbeat; TaskWatcher, JobWatcher
// and NodeWatcher are optional. Tests install CheckInvariants after every
// event:
//
//	cfg.AfterEvent = (*sim.Sim).CheckInvariants
package sim
