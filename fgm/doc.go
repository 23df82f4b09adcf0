// Package fgm is the fine-grained scheduling method of paper 004 (Zhou,
// Dong, Chen, Zhang, "Dynamically fine-grained scheduling method in cloud
// environment", Journal of Software 31(12), 2020): tasks are matched to a
// server stage by stage, by what they are predicted to use over their
// life rather than by a fixed request, compressible resources may be
// over-committed within a bound, and each server's policy adapts to how
// well the predictions hold.
//
// # The method
//
//   - Estimation (§2.2): a task's stages (demand vector, duration) are
//     predicted from similar tasks (same logic, same input size) by
//     package estimate's History, or by any Estimator. A task without a
//     prediction is unpredictable and gets its requested quantity.
//   - Algorithm 1 (Schedule): for one server, skip it if it is used up
//     or its policy is stop-allocation; order jobs by the Fairness policy
//     (DRF by default); per task check locality (delay scheduling), match
//     it (requested quantity, Algorithm 2, or coarse-grained), check QoS,
//     allocate; stop when the server is used up.
//   - Algorithm 2 (Matcher): walk the task's stages against the server's
//     free-resource timeline (resource.Timeline: capacity minus foreign
//     load minus the reservations of its running tasks); incompressible
//     kinds must fit; compressible ones may dip by rc × N, rc the bound
//     of formulas (6)/(7) (resource.CompressionBound).
//   - checkQoS: when a placement compresses, every running task with a
//     deadline on the server must still make it, durations by formula
//     (15).
//   - Conformity (16) per server and kind, and Algorithm 3 on each Tick:
//     fine-grained, fine-grained without compression, coarse-grained or
//     stop-allocation by thresholds ThFG < ThCG < ThSA; a degrading
//     server under stop-allocation has its newest task reclaimed.
//
// # Host duties
//
// The host keeps its tasks and servers and calls the Scheduler from one
// scheduling loop. A state-changing call (Submit, Schedule, Sample*,
// Release, Tick) dated before the latest one is ErrStaleTime; a now, or
// a task's deadline, more than 2⁶⁰ ns from the first now is
// ErrTimeRange; reads (Free, MinFree) take any time in range and never
// move the clock; a bad call returns a typed error and changes nothing.
//
//  1. Create it with New(Config{Cluster: c, History: h}); the cluster's
//     live nodes are registered. Call AddNode and RemoveNode when
//     membership changes (RemoveNode releases the node's tasks; resubmit
//     them).
//  2. Submit each task when it becomes ready to run (for MapReduce,
//     reduces after slow-start). A task is read once, at Submit. Tasks
//     of one job that are alike (same key, request and deadline, no
//     data locations: a phase's maps that have not started) may be
//     submitted as one TaskRun of up to 2³¹−1 tasks with SubmitRun
//     instead; the scheduler asks the run for each task (TaskRun.Task)
//     when it places it, so the host need not make millions of task
//     objects in advance.
//  3. When a server has room (a heartbeat, a task ending), call
//     Schedule(now, node, dst[:0]) with the server's node value — its
//     Capacity the one registered (a value that differs is stale and
//     refused, ErrInvalidNode: remove and add a resized server) — and
//     carry out every Allocate decision: start the task on the node with
//     the plan's per-stage allocation (the last step holds until the task
//     ends). The scheduler counts the task as running from the decision
//     on; if the host cannot start it, Release it (succeeded false) and
//     Submit it again.
//  4. Report usage each sampling round, server by server: the running
//     tasks' measured usage in one SampleTasks call (it records exactly
//     what a SampleTask per task would, reading the server once), then
//     the server's total with SampleNode; or let nodes implement
//     UsageNode and tasks UsageTask, and Tick reads them. Sample several
//     times per task run: the History learns a task from its samples
//     (MinSamples of them at least) and cuts its stages where they
//     change. The paper's node agents read /proc every few seconds; a
//     metrics-server's 15 s suits tasks of minutes, not tasks of tens of
//     seconds, whose predictions it leaves coarse (a task seen in one or
//     two samples teaches little about its stages;
//     TestSamplingPeriodEstimateError measures it). Each round costs in
//     proportion to the tasks running. A sample above the node's
//     capacity in some kind cannot be true and is refused
//     (ErrInvalidSample): clamp a noisy reading at the capacity.
//  5. When a task ends, Release(now, id, succeeded). Successful tasks
//     teach the History; failed or killed ones do not. Submit a failed
//     task again to retry it. Withdraw pending tasks of a killed job
//     (WithdrawJob drops them all, runs included).
//  6. Call Tick periodically (for example every 10 s) and carry out its
//     Reclaim decisions: stop the task and give its resources back (the
//     scheduler has already released it; Submit it again to rerun it).
//  7. Never call it concurrently, never change a Task's answers between
//     Submit and Release, and treat Decision plans as read-only views
//     valid until the task is released.
//
// Package fgmtest checks a host's integration against these duties: a
// Checker to run after every operation, a reference Host and seeded
// random events.
//
// # One task at a time
//
// A host that places one task at a time and keeps each server's
// reservations itself (a Kubernetes scheduler plugin: Filter per node,
// Reserve on the chosen one) uses a Fitter instead of a Scheduler: Fit
// applies exactly the tests Schedule applies to one task on a server
// under the fine-grained policy with compression (used up, Algorithm 2
// or the requested quantity, measured idle) to a Server the host
// describes, and says which test refused it and where (Verdict,
// Refusal; Matcher.Explain for Algorithm 2 alone). Scheduler.MinFree
// reads the least free amount over an interval, for ranking servers.
// TestFitAgreesWithSchedule checks Fit against Schedule on random
// servers.
//
// # Choices where the paper is silent or unclear
//
//   - Formula (7) is implemented as its text says (the bound clamped to
//     [0, limit]); see resource.CompressionBound. In Algorithm 2, w_i of
//     (6) is the server's reserved amount N − n over the overlap and
//     w_{n+1} the stage's demand; the overlap's length cancels.
//   - Compression is sharing: a placement that dips into a compressible
//     kind allocates the full predicted demand, so every task on the
//     server over that period is slowed, by (Σ reserved − N)/Σ reserved
//     (formula (1) for the server), which is the rate the plan's
//     Compression reports and checkQoS applies. With CapAtRequest, the
//     plan allocates compressible kinds up to the request instead.
//   - Reservations follow the predicted (uncompressed) stage timing. A
//     task still running past it is overdue: its peak stays reserved from
//     now over Horizon until it is released, so an incompressible kind is
//     never under-reserved by a task that runs long.
//   - A kind a stage does not demand never refuses it (the printed line 8
//     would refuse a task with no CPU on a CPU-compressed server).
//   - checkQoS takes each running task's remaining stages at their
//     reserved timing, the compression over a stage as the largest the
//     timeline implies there once the newcomer's largest demand over the
//     stage is added (conservative), and ignores a task that would miss
//     its deadline even without the newcomer. It runs only when the
//     placement compresses something, as the paper says.
//   - Idle resources (line 1) are read from the free timeline at now,
//     whose base is capacity minus the foreign load estimated from
//     samples by formula (14); the compression allowance counts for a
//     compressible kind under fine-grained-with-compression. For
//     incompressible kinds the measured idle amount (the latest node
//     sample, less what was placed since) counts too, and a task's first
//     stage must fit it: predictions err, and without this a node whose
//     tasks use more memory than predicted keeps receiving tasks that
//     fail one after another. The same test after an allocation is "the
//     resource is used up" (line 19).
//   - Foreign load (a server shared with work no scheduler controls):
//     each Tick's estimate is the time-weighted mean (14) of measured
//     node usage minus our tasks' measured usage over the samples since
//     the previous Tick; the paper's T of (14) is "the total sampling
//     time", length unstated. A compressible kind's foreign load counts
//     like an incompressible one's: it lowers the timeline's base, and a
//     stage may exceed what is left only by the compression allowance
//     rc × N (Algorithm 2 line 8). A server whose foreign CPU fills it
//     therefore gets no task demanding more CPU than that allowance.
//     That pays only where
//     contention costs more than proportionally (the penalty p of (5),
//     the steep drop of the paper's figure 4); on a host where sharing
//     costs only proportionally it leaves throughput unused (the fgm
//     experiment's cloud tables show both).
//   - Algorithm 3 reclaims (kills) a task only after ReclaimTicks (2)
//     Ticks in a row whose own conformity figure exceeds ThSA. A node
//     sample counts in one Tick's figure only, so one wrong sample may
//     stop allocation on its server for up to ConformityWindow Ticks but
//     never kills a task.
//   - Conformity (16) is normalised by capacity so thresholds are
//     unitless; μ is the measured node usage, α our reservations plus the
//     foreign estimate in force, both formula (14) means between Ticks;
//     Th of (16) is IdleThreshold. A server's figure for Algorithm 3 is
//     its worst kind's mean over the last ConformityWindow Ticks.
//   - isDegradation: a running task has run more than 1 + DegradeSlack
//     times its formula (15) duration. "Recycle the resource" reclaims
//     the newest task (the least work lost), one per Tick.
//   - Delay scheduling is per task and node-local only: a task whose
//     input is elsewhere waits LocalityWait from the first time it was
//     skipped, then runs anywhere (no rack level; the simulator does not
//     model one).
//   - DRF charges a job the sum of its running tasks' peak allocations
//     (what the host hands out: the prediction, or the request for
//     compressible kinds with CapAtRequest and for unpredictable tasks);
//     shares are taken of the registered nodes' total capacity. The paper
//     names DRF without saying what a share is taken of. With
//     ChargeMean a predicted task is charged the work-weighted mean of
//     its plan's allocations instead of their peak.
//   - Penalty p (5)–(7) defaults to 0.05: the paper measured its curve
//     (figure 4) but printed no value. A host whose world charges no
//     contention penalty plans with NoPenalty (p = 0).
//
// # Learning that cannot get stuck
//
// Predictions come from what finished tasks used, so one wrong sample
// must not keep a key's tasks pending for ever. Its influence is bounded
// three ways:
//
//   - A sample is checked at the door: finite, non-negative and within
//     the capacity of the node it was measured on (ErrInvalidSample
//     otherwise), so no sample exceeds the largest server.
//   - The History smooths: an observation moves a key's profile by
//     Smoothing α (0.3 by default) of its distance from it, and its
//     weight decays by 1 − α with every later observation of the key.
//   - A prediction whose peak exceeds, in some kind, the largest
//     capacity of that kind among the registered servers is not used:
//     the task gets its request, as an unpredictable one does (Decision
//     Reason EstimateFitsNoServer), runs, and its completion teaches
//     the History. A key poisoned by one outlier therefore keeps
//     placing tasks, and recovers in a bounded number of completions:
//     after an outlier of x on a truth of u, the prediction's error is
//     α(x − u)(1 − α)ⁿ after n completions (TestPoisonedKeyRecovers: 60
//     cores where 1 is true puts the prediction at 18.7 cores on 16-core
//     servers; the first task runs at once at its request, the estimate
//     is used again after 1 completion and is within 10% after 15).
//
// # Options
//
// Every option is off by default. Estimator replaces the History's
// prediction (an oracle in the experiment); Fairness replaces DRF
// (FIFO, or the host's own); CapAtRequest and ChargeMean are described
// above; Progressive orders the jobs again after every allocation.
// Config.Ablations is not an option but a set of switches for
// experiments, each removing one part of the method: NoCompression,
// CoarseOnly, NoPolicyAdjustment, NoCheckQoS.
//
// # Cost
//
// A run submitted with SubmitRun is one queue entry however long it is:
// pending tasks cost memory per run, not per task (BenchmarkSubmitRun).
// Matcher.Match does not allocate and walks the task's stages and the
// timeline's once: O(stages + timeline stages). Schedule's cost follows
// what it places, not the queue: it stops once no class of pending
// tasks (key and request) may fit what the server has left, passes by
// the jobs none of whose classes may, skips the rest of a run of alike
// tasks after its first refusal, and visits only the jobs that can use a
// server with no slot (or device) of some kind free; at 100,000 pending
// tasks on 10,000 servers a call that places one task costs tens of
// microseconds whatever the tasks' shape (BenchmarkScheduleShapes: keys
// alternating within a job, data locations, fragments, the compression
// allowance). BenchmarkMatch, BenchmarkRound, BenchmarkScheduleShapes and
// BenchmarkScheduleFullServer measure them against naive references.
//
// # Files
//
// The paper's steps, one file each:
//
//   - algorithm1.go: Algorithm 1, Schedule (skip, order, locality,
//     request, Algorithm 2 or coarse, checkQoS, allocate, stop), the walk
//     as printed;
//   - order.go: its line 4, the Fairness order (DRF, FIFO);
//   - algorithm2.go: Algorithm 2, the Matcher;
//   - algorithm3.go: Algorithm 3, Tick (foreign load, policy, reclaim);
//   - formula14_samples.go: usage samples and their time-weighted means
//     (14, resource.Mean);
//   - formula15_checkqos.go: checkQoS, durations by formula (15,
//     resource.StagedDuration);
//   - formula16_conformity.go: conformity (16);
//   - allocate.go: Algorithm 1's allocation, a placement's plan and
//     reservations, and the undo log of a failed call;
//   - fit.go: Fitter, the tests for one task; server.go: a server's free
//     timeline; scheduler.go: the Scheduler, its queue and its calls;
//     taskrun.go: runs of alike tasks as one queue entry (SubmitRun).
//
// Accelerations, each a file, counted when taken, with its reference in
// algorithm1_literal_test.go (Algorithm 1 walked as printed; samples
// found by ID) and an equivalence test (TestRunSkipMatchesScan,
// TestSubmitRunMatchesSubmit, TestSampleCursorMatchesLookup). Those of
// the walk are stages (walk.go: one interface, joined in newStages);
// deleting a stage's file and its line there leaves the decisions as
// they are, only slower (TestAccelerationsTaken checks each is taken):
//
//   - keptorder.go: the job order kept between calls;
//   - jobsets.go: the jobs that can use a server with closed integral
//     kinds, as ordered job sets merged;
//   - closedkinds.go: calls and jobs all of whose tasks need a kind the
//     server has no unit of;
//   - classes.go: the classes of pending tasks against the server's
//     room (a call stops when none may fit);
//   - refusals.go: the refusal memory within a call and across calls
//     that place nothing;
//   - runskip.go: skipping a refused run of alike tasks;
//   - the sampling cursor in formula14_samples.go (sampled,
//     sampledNode).
//
// # Concurrency
//
// A Scheduler is not safe for concurrent use; a Matcher is.
package fgm
