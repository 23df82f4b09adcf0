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
// policy receives now = Epoch + offset. Events are ordered by (time,
// sequence number); equal times fire in scheduling order. They sit in a
// hand-written binary heap of values, except for sources that are sorted
// by construction (see Scale), merged with it in exactly that order. All randomness (the order of the heartbeat
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
// Compression (paper 004). What a task may use of a compressible kind
// (CPU, disk and network bandwidth, offload accelerators) depends on what
// the host enforces, Config.Enforcement:
//
//   - Limits (default, like a cgroup quota): a task given a of a kind it
//     demands d > a uses only a and progresses at a/d of its speed on that
//     kind: formula (4) with rc = 1 − a/d. Over-allocation (a > d) does
//     not make it faster.
//   - Shares (work-conserving): a task uses its whole demand if the node
//     has it, whatever its allocation; only real contention slows it.
//
// On top of that, formula (5): a node's load of kind k is the background
// load plus each task's demand (capped at its allocation under Limits);
// when it exceeds capacity, rc_k = (load − capacity)/load (formula (1))
// and every task demanding k is slowed by (1 − rc_k)/(1 + p), p being
// Config.Penalty plus Config.Contention.Penalty(rc_k): a penalty 0 up
// to a knee (paper 004's compression limit) and rising linearly beyond
// it, the shape of the paper's fig. 4 (see Contention). Per kind the
// task may go f_k = g_k·(1 − rc_k), divided by (1 + p) if rc_k > 0,
// where g_k = min(1, a/d) under Limits and 1 under Shares; the slowest kind sets the pace: rate = speed · min_k f_k
// over the compressible kinds the task demands in its current stage. An
// uncontended task given its demand runs at the node's speed, so p only
// applies to contended tasks. Rates are recomputed on a node whenever
// anything on it changes (a task starts, ends or enters a new stage, a
// plan step, the background load moves, a binding changes) and each
// task's remaining work is carried over, so a task compressed at rc
// throughout takes (1 + p)·T/(1 − rc).
//
// Worked example (ExampleEnforcement): a task with 10 s of CPU work
// (demanding 2 CPUs) given 1 CPU on an idle 4-CPU node takes 20 s under
// Limits (g = 1/2) and 10 s under Shares (the idle CPU is used). Under
// Limits a task given none of a compressible kind it demands makes no
// progress at all; a host that allocates slots rather than quotas (the
// accel experiment's containers) is modelled with Shares. A run in which
// no task progresses for Config.StallAfter ends with ErrStalled.
//
// Incompressible kinds are never capped: a task uses its true demand of
// memory whatever it was allocated (see Over-commit).
//
// Plans. An Assign may carry a plan (Decision.Plan): allocation steps
// that follow the task's progress, not the wall clock. A step's Duration
// is work measured like a stage's Duration, uncompressed time on a
// speed-1 node: step i ends when the task has done Plan[i].Duration of
// work since step i−1 ended, so a task compressed to half speed (or
// waiting for an earlier phase) stays in step with its plan. Every step
// must fit the node's free capacity in its incompressible kinds when the
// task is assigned, or the assignment is invalid. A later step that no
// longer fits (others took the space since) is applied anyway and
// counted in Stats.PlanOvercommit. A plan whose true usage over-commits
// memory is a wrong estimate: the task fails (below) and is retried.
//
// Over-commit. If the true usage of an incompressible kind on a node
// exceeds its capacity (possible when a policy allocates below peak, or
// under background load), the most recently started task using that kind
// fails (its work is lost; Stats.Failed, Run.FailedTasks), is
// pending again and will be retried; repeat until the node fits. A task
// failing Config.MaxAttempts times fails its job (outcome Failed, counted
// in Stats.FailedJobs).
//
// Kills. A KillJob decision (or a rejection at Submit, Reject) ends the
// job at once and frees everything it held. For a job with a deadline
// the simulator decides JobRecord.CouldHaveMade by an optimistic rule
// (killcheck.go): running tasks finish their remaining isolated work
// uncontended; pending tasks of a phase run, after the previous phase, in
// waves on every slot the whole cluster has for them; it could have made
// it iff that ends by the deadline.
//
// Heartbeats. Every live node heartbeats every Config.HeartbeatInterval
// (staggered evenly, in a seeded order) while any job is active, and out of band
// at once whenever a task ends on it. Heartbeats stop while no job is
// active and resume at the next submission. Each heartbeat calls
// Policy.Heartbeat once, except that a policy implementing
// FullNodeSkipper is not called for an idle node (nothing available in
// any kind, or no ready task's kinds available): the heartbeat happens,
// on schedule, without the call. A policy that also implements
// ComputingPhaseAssigner (dbs: reduces wait for every map) has only the
// ready tasks of computing phases counted in that test, and may assign
// nothing else.
//
// Offload (paper 001). Kinds listed in Config.OffloadKinds that a node
// has no capacity for are served by the node it is bound to (Bind
// decisions): the bound node's compression of that kind slows the task.
// An assignment naming a Target pins its task to that node instead (one
// binding per container rather than per node); Task.Host reports the
// serving node, and Config.Profile may read it to pick the profile.
//
// Ticks. A policy implementing Ticker is called every
// Config.TickInterval (0: never) while any job is active, and returns
// decisions like a heartbeat (dbs's weight update, fgm's policy changes),
// except that there is no default node: an Assign must name its Node.
//
// Learning without an oracle. A task's true profile is never shown to a
// policy (TestNoOracle checks the exported methods of the views). A
// policy implementing UsageWatcher hears what a node agent would report,
// every Config.SampleInterval (3 s by default) while any job is active:
// each running task's actual usage (incompressible demand; compressible
// demand times the task's pace, so a compressed task shows compressed
// usage and, over its samples, a longer duration) and each live node's
// total (its tasks plus its background load, compressed alike), every
// amount multiplied by max(0, 1 + σ·z), z standard normal from a
// generator seeded by Config.Seed, σ = Config.SampleNoise (0.05 in
// DefaultConfig).
//
// Prices. A job is charged its price vector (per unit of each kind
// allocated per second: per slot-second for slot kinds) times its
// allocation, at the price in force: Config.Prices until a SetPrice
// decision (PriceJob) gives it another. Job.Cost is the cost so far.
//
// Invalid decisions (unknown or ended job, task not ready, allocation
// over the free capacity of an incompressible kind, more tasks than
// ready...) are not applied; they are counted (Stats.Invalid) and Run
// returns a *DecisionError with the first few, after finishing the run.
//
// # Output
//
// Run returns the run's record, a Run: one JobRecord per job in workload order
// (jobs not ended by the horizon are Unfinished), a Sample every
// Config.MetricsInterval (utilisation per kind: allocation for integral
// kinds, true usage capped at capacity otherwise; dominant share of every
// active job), failed and retried attempt counts (retried counts every
// attempt after a task's first, whatever ended the earlier one), the
// wall-clock time spent inside the policy's calls (Submit, Heartbeat,
// NodeChanged, Tick, and the usage-sample rounds, which include the
// simulator's own measuring; measured with time.Now, on every call or,
// with Config.TimingSample, on one call in N and scaled up), and the
// number of events. With Config.RecordTasks, Run.Tasks holds one record per
// task attempt (node, attempt, start, end, outcome, time-weighted mean
// allocation, actual usage and true demand, cost, isolated work); it is
// off by default, as a trace day has millions of attempts. From them
// package metrics computes small vs large task and job completion
// (CompletionBySize) and what each workflow held over time (HeldSeries).
//
// # Scale
//
// A trace day holds millions of tasks, most of them waiting. A task is an
// object (*Task) only from when a policy first sees it (Job.ReadyTasks,
// Job.Task) until it succeeds; then its object goes back to a pool. A
// job keeps its live tasks in pages of up to 512 pointers (a power of
// two, pooled by size) held while a task of the page is live, and one
// bit per task saying whether it ever started, so a phase
// of n tasks that have not started costs n/8 bytes here, and nothing more
// when the workload describes it compactly (workload.TaskBatch: one
// duration per task, shaped when the task is materialised). A batch
// phase whose every task the Shaper shapes alike but for its duration
// (one stage; checked task by task at New) is shaped by the simulator
// from its own copy, without the Shaper; when every batch phase of the
// workload is such, its tasks share the phase's Requested and Demand
// vectors (read-only). Ending a job
// is O(1): the active list is compacted when next read (Cluster.Jobs).
// Materialisation follows the order ReadyTasks always used, so runs are
// identical to eager storage.
//
// An overloaded day runs for days of virtual time, and most of its
// events are periodic heartbeats of full nodes. The event queue keeps
// apart what is sorted by construction: pending submissions are a cursor
// over the (sorted) workload; a node's next periodic heartbeat, pushed
// by its last one at now + the fixed interval, and out-of-band
// heartbeats, pushed at now, arrive in (time, sequence) order, so each
// kind is a FIFO ring (O(1)); the rest (a node's first heartbeat after a
// quiet spell, progress events, samples...) is a small heap. The sources
// are merged by (time, sequence) on one counter, so the order is exactly
// one heap's (TestEventsMergeOrder). A FullNodeSkipper (the baselines)
// is not called for idle nodes (the heartbeat event still happens and
// counts in Stats.Events); such a quiet heartbeat reads only a dense
// per-node entry (up, the kinds with room), not the Node, and Run takes
// consecutive ones without Step's dispatch (quietRun: the same clock,
// counters, sequence numbers and stall check as stepping them one by
// one, TestQuietRunMatchesStep). Config.TimingSample spares the two
// clock reads per call, and the time.Time handed to policies is
// computed only when one is called. settle recomputes a touched node
// once, twice only after an over-commit failed a task; a node whose
// running attempts' allocations and loads are all exact integers keeps
// incremental sums of them, so recomputing it visits no attempt, and
// only the attempts whose terms changed get their rates updated unless
// the node's compression moved (sums.go: the same sums bit for bit,
// checked by CheckInvariants). Metrics samples keep the sums Jain's
// index needs (JainSums), adding only the shares of the jobs
// that hold something (the others' are exactly 0), not every active
// job's.
//
// # Structure
//
// The simulator is four parts, each a type of its own holding only its
// own state and reading only the parts before it, joined by Sim:
//
//   - the engine (engine.go): the virtual clock and the event queue;
//   - the world (world.go, node.go, attempt.go, progress.go,
//     sums.go): the nodes, the task attempts running on them, and how
//     they progress under the host's enforcement and contention;
//   - the job book (book.go, job.go, task.go, live.go, taskrun.go,
//     killcheck.go; layout.go lays a workload out in it): the jobs, their
//     phases and tasks, what is ready, active, held and charged;
//   - the recorder (recorder.go; record.go is its output): the counters,
//     samples, task records and the time spent in the policy's calls.
//
// Sim (sim.go) carries out the events (run.go, heartbeat.go,
// periodic.go), the lives of tasks and jobs across the parts
// (lifecycle.go) and the policy's decisions (decision.go), and calls
// the policy (hooks.go); Cluster (cluster.go) is the view policies
// receive. CheckInvariants (invariant.go) checks every part.
//
// Policy errors. A policy refuses a job at Submit with Reject. Any other
// error it returns, from Submit, Heartbeat, Tick, NodeChanged or a
// notification (TaskEnded, JobEnded, TaskSampled, NodeSampled), ends the
// run with ErrPolicy wrapping it (errors.Is finds both; the message
// names the policy, the call and the virtual time): a notification's
// once the event it came in is finished, without calling the policy
// again.
//
// # Usage
//
//	cfg := sim.DefaultConfig(space, nodes)
//	s, err := sim.New(cfg, &w, policy) // w is a workload.Workload
//	if err != nil { ... }
//	run, err := s.Run()               // run is a sim.Run
//
// A policy implements Name, Submit and Heartbeat; TaskWatcher, JobWatcher,
// NodeWatcher, Ticker and UsageWatcher are optional. Tests install CheckInvariants after every
// event:
//
//	cfg.AfterEvent = (*sim.Sim).CheckInvariants
package sim
