// Package dbs is the deadline- and budget-constrained scheduler of paper
// 003 (Liu, Xing, Jing: an improved cloud scheduling algorithm under dual
// deadline and budget constraints, "DBS"): jobs carry a deadline, a
// budget and a time-influence factor φ, wait in three price-tiered
// queues, are ordered by a weight, are guaranteed a minimum number of
// map and reduce slots, and move between queues as their weights are
// re-evaluated.
//
//   - Queues: High, Mid and Low for φ = 1, 0.5 and 0, each with a price
//     per slot-second (High the highest), read as priorities
//     (PrioritySharing): a free slot goes to a queue below its floor
//     (none by default), else to the highest queue with work; in the
//     queue first to a job below its model-2 minimum, then by weight
//     (descending), submission, ID. Capacity-style shares (guaranteed,
//     an idle share lent to the other queues) are an option
//     (CapacitySharing), as is serving every queue's minimums first
//     (MinimumFirst).
//   - Reduces after maps: a job is given reduce slots only once none of
//     its maps is unfinished (model 2 plans the reduces from then on;
//     a reduce slot held earlier is paid for and idle).
//   - Model 1, the weight: W = φ·T̂/D + (1−φ)·Ĉ/B (Weight).
//   - Model 2, the minimum map and reduce slots that still meet the
//     deadline (φ > 0) and the budget (φ < 1) (MinimumSlots).
//   - Model 3, the weight update every Δ = 500 ms, with promotion and
//     demotion between queues (UpdateWeight, Scheduler.Tick).
//   - Slot assignment on each heartbeat: queues by priority, within a
//     queue minimums first, then by weight; map slots, then reduce
//     slots, as a Hadoop-1 JobTracker (Scheduler.Heartbeat).
//   - Success (the paper's Job4 example): a φ = 1 job succeeds if it
//     meets its deadline, φ = 0 if it stays within budget, φ = 0.5 if
//     either holds (Success).
//
// Decisions come back as values — assignments, promotions, demotions,
// each with its figures — and the host carries them out.
//
// # Usage
//
// The host implements Job (schedkit.Job plus Budget, Phi, CostSoFar and
// DataSizes), schedkit.Node and schedkit.Cluster over its own state (see
// the Example) and drives the scheduler from its scheduling loop:
//
//	sched, err := dbs.New(dbs.Config{Cluster: cluster})
//	...
//	err = sched.Submit(now, job)                  // a job arrives
//	err = sched.Update(job.ID())                  // its counters changed
//	err = sched.Remove(job.ID())                  // it finished or was withdrawn
//	moves, err = sched.Tick(now, moves[:0])       // periodically: every Config.Interval (500 ms)
//	for _, d := range moves {                     // dbs.Promote, dbs.Demote, with d.Reason
//		// charge d.Job d.Price per slot-second from now on
//	}
//	decisions, err = sched.Heartbeat(now, node, decisions[:0])
//	for _, d := range decisions {                 // dbs.Assign
//		// start d.Count ready tasks of d.Phase of d.Job on d.Node, then Update
//	}
//
// A host that places one task at a time instead of answering heartbeats
// (a Kubernetes scheduling queue) asks for the order in which heartbeats
// at now would hand out the slots, and gives each task of a kind a slot
// in the order of that kind's picks (Scheduler.Queue):
//
//	picks, err = sched.Queue(now, picks[:0])      // dbs.Pick: job, phase, count, queue
//
// # Host duties
//
//  1. Call Submit when a job arrives, with a now no earlier than any now
//     given before and no earlier than the job's submission time (which
//     must be set). The job's φ must be 0, 0.5 or 1; a job with φ < 1
//     needs a budget, a job with φ > 0 a deadline.
//  2. Keep each job's counters (schedkit.PhaseProgress) current and call
//     Update after every change: a task started, finished, failed, or
//     became ready. Which reduce tasks are ready (slow-start) is the
//     host's knowledge; dbs assigns only ready tasks, and reduce tasks
//     only once the job's maps have all finished (unless
//     Config.EarlyReduces).
//  3. Charge each job, for every second each of its tasks holds a slot,
//     the price of the queue the job is in at that second, and report
//     the total so far in CostSoFar. The job starts in the queue of its
//     φ, at that queue's price (Scheduler.Queues). A job's cost may
//     change only while it holds slots as the scheduler counts them
//     (running tasks of its last Update, and assignments since); change
//     it otherwise (a correction, a refund) only with an Update of the
//     job after the change that succeeds, before the next Tick (a
//     refused Update changes nothing, this notice included). A weight
//     update reads the cost of the jobs Submitted, Updated or assigned a
//     slot since the last one, or holding slots at it, and trusts the
//     others' costs as last read.
//  4. Call Tick periodically, at least as often as Config.Interval
//     (default 500 ms) while jobs are queued. For each Promote or Demote
//     it returns, charge the job d.Price from then on (duty 3); the
//     scheduler has already moved it.
//  5. Call Heartbeat when a node reports free slots (and after tasks
//     end, as Hadoop does), for a node of the cluster (Cluster.Node;
//     else ErrUnknownNode) whose free slots exclude the slots of
//     assignments it was given and has not started yet, and never
//     exceed its capacity (else ErrInvalidNode). The node value must be
//     the cluster's node of its ID, or agree with it: a value whose
//     Capacity differs from that node's (a stale value, taken before the
//     node was resized) is refused with ErrInvalidNode, never used. A
//     Cluster that implements schedkit.NodeLookup lets the membership
//     check take O(1) for any ID; without it, a heartbeat of an ID the
//     scheduler has not seen in the cluster rescans it. Start exactly
//     the tasks each Assign names, on that node, then call Update for
//     the job. Assignments count as held until that Update, so several
//     heartbeats before the host applies anything never over-assign a
//     job; until the host starts them, the node's free slots exclude
//     them (above). When the host started
//     every task an Assign named, that Update may wait until before the
//     next Tick (heartbeats read nothing else of the change).
//  6. Call Remove when a job finishes, fails or is withdrawn.
//  7. Judge success with Success(φ, deadline met, within budget).
//  8. Never call the scheduler from two goroutines at once; never give
//     Submit, Tick or Heartbeat a now earlier than one given to them
//     before (ErrStaleTime), nor a now, a job's submission or its
//     deadline more than 2^60 ns from the first now (ErrTimeRange).
//     Queue and Status are read-only and move no clock.
//  9. To survive a restart, keep each job's Save whenever it changes
//     (after a weight update that moved or marked it), its price history
//     (duty 3) and LastUpdate; a new scheduler given ResumeUpdates and
//     each job's Resume decides from its next weight update on as the
//     old one would have (TestResumeEqualsUninterrupted). The weights
//     and minimums are not saved: the next weight update recomputes them.
//
// Package dbstest checks these duties in a host's own tests: its
// Checker, run after every operation, reports a slot handed out twice, a
// task started twice, a decision for a job not queued, a move that skips
// a queue, and a job's cost that is not Σ price × slot-seconds at the
// price in force; its Host keeps every duty, for property tests.
//
// Every error is a *Error wrapping one sentinel (ErrConfig,
// ErrInvalidJob, ErrDuplicateJob, ErrUnknownJob, ErrInvalidNode,
// ErrUnknownNode, ErrStaleTime, ErrTimeRange); a call that fails changes
// nothing: a scheduler given it decides afterwards exactly as one that
// never saw it.
//
// # What is reconstructed, and why
//
// The paper's text lost every equation and its pseudo-code. What it
// keeps: the symbols of each model, the three queues with "different
// computing resource proportions and charges" in a configuration file, φ
// restricted to {0, 0.5, 1}, the 500 ms update, the prose of model 3,
// and that model 2 follows the deadline model of Kc & Anyanwu (2010),
// "derived for the budget". The following are our reconstructions:
//
//   - Model 1. The paper lists tasksNum, D, B, V ("the processing
//     capacity of the resource at a moment, current load considered"),
//     c ("the charge per second of a resource processing tasks") and φ.
//     We take W = φ·T̂/D + (1−φ)·Ĉ/B, the share of each remaining
//     constraint the job would use, because it is dimensionless, rises
//     as a job becomes pressing, and weighs the two constraints by φ as
//     the paper's "time-influence factor" requires. T̂ is formula (3)
//     of package estimate (paper 000) at the capacity available to the
//     job, "current load considered": with PrioritySharing its equal
//     part of the cluster's slots of each kind among the jobs of its
//     queue and the queues above it (the jobs it competes with; its part
//     of its queue's floor if more), with CapacitySharing its equal part
//     of its queue's guaranteed share — or the slots it holds if more. The
//     task time is paper 000's formula (2), pooled over map and reduce
//     tasks — paper 003's own assumption (1) is that nodes take the
//     same time for a map and a reduce task — or, before any task has
//     finished, the job's TaskTimeHint or Config.DefaultTaskTime;
//     with none, the weight is 0 and the minimum one map slot until a
//     task finishes (as lss gives a first map to every job).
//   - Cost: a job pays its current queue's price per slot-second of its
//     tasks, at the price in force when the time is used; Ĉ is that
//     price times the remaining slot-seconds (unfinished tasks × task
//     time − elapsed time of running tasks). A constraint already lost
//     (deadline passed, budget spent, no capacity) makes its term
//     MaxTerm, never infinity or NaN.
//   - Model 2, after Kc & Anyanwu, whose paper we could not obtain; the
//     form is rebuilt from the symbols paper 003 defines (Tm, Tr, Td,
//     δ, f·δ, nm, nr, t, Sm) and recomputed on what is left at every
//     update: Sr_max = now + W − ⌈Ur/nr⌉·Tr − f·δ·Td, nm_min =
//     ⌈(Um·Tm − ΣRm)/(Sr_max − now)⌉, nr_min = ⌈(Ur·Tr − ΣRr)/(now + W
//     − f·δ·Td − Sr)⌉, where W is the window: the time to the deadline
//     (deadline view), or the time the remaining budget's B/c_q
//     slot-seconds last at the slots the job holds (budget view — the
//     paper's "from the budget's angle"). nr in ⌈Ur/nr⌉ is the reduce
//     capacity available to the job (as in model 1); Sr is Sr_max while
//     maps remain (the latest start the map minimum plans for), now
//     after; the shuffle term is dropped once a reduce has run. The
//     minimum is the larger of the two views φ selects. A view whose
//     constraint can no longer be met at any slot count — a
//     non-positive denominator, or a quotient larger than the phase's
//     unfinished tasks (each task would have to run faster than alone
//     on a slot) or than the cluster's slots of the kind — is reported
//     Unmeetable (JobStatus.DeadlineUnmeetable, BudgetUnmeetable) and
//     contributes nothing: it is never divided by, never clamped to a
//     minimum it could not reach, and a lost cause does not take
//     precedence over jobs that can still make it. When no view that
//     applies can be met, MinResult.Unmeetable says so: the job cannot
//     reach any minimum.
//   - The budget view grows with the slots a job holds. Its window is
//     the allowance B/c_q spread over the slots held, so its minimum is
//     about the slots held × the work left / the allowance: a job whose
//     budget covers its work with room to spare always shows fewer
//     needed slots than it holds (a surplus, for model 3), one whose
//     budget barely covers it needs about what it holds. What it does
//     is measured against the view at one slot (window B/c_q whatever
//     the job holds: Ablations.BudgetViewOneSlot).
//   - Model 3. The paper's prose: held fewer than needed → raise W
//     "moderately"; below the queue average → raise toward it; above →
//     wait 500 ms and, "if at the next update the job still cannot
//     satisfy its minimum slots", move one queue up; symmetric for a
//     surplus with demotion ("if after 500 ms it still obtains too many
//     resources"). Our figures: W = W₁·(1 + (s−h)/s) when short,
//     W₁·(1 − (h−s)/(2h)) with a surplus (W₁ the model-1 weight, h
//     held, s needed: the minimums of the phases with ready or running
//     tasks); "toward the average" is at least halfway; "above average"
//     compares W₁ with the mean W₁ of the queue (at or above counts, so
//     a job alone in its queue can move); the wait is one update with
//     the job marked. At that next update the move depends only on
//     whether the shortfall (surplus) persists, not on the weight: the
//     paper asks nothing more of it. Adjustments do not accumulate: each
//     update starts again from model 1, so weights cannot drift without
//     bound. Until a job has a task time (a finished task, a hint or a
//     default) its minimum is a placeholder, so model 3 neither marks
//     nor moves it.
//   - Model 3 and a job that cannot reach its minimum. The paper: "if at
//     the next update the job still cannot satisfy its minimum slots, it
//     is submitted to the queue above, to increase its chances of
//     resources and scheduling" (若作業(yè)依然無(wú)法滿足最小槽數(shù),則提交到上一級(jí)
//     隊(duì)列,以增加獲得資源和調(diào)度的機(jī)會(huì)). A job none of whose views can be met
//     (MinResult.Unmeetable) is the extreme case of a job that cannot
//     satisfy its minimum, so it needs every slot its ready and running
//     tasks could use, and at least what it holds: it is short while it
//     could use more, never holding a surplus, and is promoted
//     (ReasonUnmeetable) if the rules below allow.
//   - Queue prices are not printed; DefaultQueues' are ours. Floors and
//     shares are held in millionths so equal usage ratios tie exactly
//     (ties go to the higher queue).
//   - "Jobs below their minimum first": the minimum is per slot kind, so
//     a job below its map minimum comes first for map slots only.
//
// # Rules of ours
//
// These rules are not in the paper; each has an ablation (Ablations, or
// Config.HoldDown < 0) that switches it off, measured against the
// default by the simulator's dbs experiment.
//
//   - Affordability (NoAffordability). A promotion needs the budget to
//     cover what is left at the higher price (CostSoFar +
//     c_{q+1}·slot-seconds left ≤ Budget, and for φ < 1 model 2's
//     budget view still meetable at that price; a job without budget
//     always can); otherwise the job stays, marked, and
//     JobStatus.PromotionUnaffordable says why. The paper promotes "to
//     increase its chances", and never says the user pays more for it.
//   - Better off (NoBetterOff). The paper moves a job "to increase its
//     chances of resources and scheduling", so a move is taken only if
//     the job is better off in the target queue. With PrioritySharing:
//     what it needs of each kind fits in the kind's capacity less the
//     minimums of the other jobs of the target queue and the queues
//     above it (a promotion can then get it its minimum, a demotion
//     keep it); a job
//     that cannot reach any minimum (given none in any queue) is better
//     off only in a higher queue. With CapacitySharing: what it lacks
//     fits in what the target queue's guarantee leaves free, or the
//     target queue uses a smaller fraction of its guarantee than the
//     job's queue (a demotion for a surplus always qualifies). Otherwise
//     the job stays, marked, and moves at a later update once it would
//     be better off.
//   - Hold-down (Config.HoldDown < 0). A job does not move back the way
//     its last move came within Config.HoldDown (default ten updates,
//     5 s): the paper's 500 ms wait already makes the cause of a move
//     persist for an update, but a job whose figures swing (its queue's
//     average or parts change with the move itself) would otherwise be
//     carried back and forth, each move a price change the host carries
//     out.
//   - Budget demotion (NoBudgetDemotion). A job with φ < 1 that cannot
//     reach any minimum is never promoted (its budget view, unmeetable
//     at its queue's price, is at any higher one; a job in High, or kept
//     from promotion by PhiAwareMoves, is in the same place): it is
//     demoted one queue instead, to the lower price, if model 2's budget
//     view can be met there and the hold-down allows (ReasonBudget: the
//     cheaper queue is where its budget can still hold); otherwise it
//     stays where it is. A job with φ = 1 that cannot be promoted stays.
//   - Lost jobs last (LostByWeight). Within a queue, a job that cannot
//     reach any minimum comes after every job that can, whatever its
//     weight (a lost constraint weighs MaxTerm, and model 3 raises the
//     weight of a job short of every slot it could use: by weight alone
//     it would come first). The paper's formula with the deadline left
//     gives such a job no finite weight; a hopeless job that takes the
//     slots of jobs that could still meet their constraints makes both
//     miss (EDF's failure under overload).
//   - Jobs without a task time first (UnknownByWeight). Among the jobs
//     below their minimum, those without a task time (weight 0, a
//     placeholder minimum of one map) come first: they cannot be weighed
//     until a task has run (the paper computes a weight at submission
//     from the job's size), and one slot each lets them be measured.
//
// Three readings of the prose decide how slots are handed out; each is
// stated with the text it rests on (our translation).
//
//   - Queues: priorities, minimums first within each. The paper sets up
//     "queues of different priorities" (不同優(yōu)先級(jí)的隊(duì)列): High "has the
//     most scheduling opportunities and computing resources, to
//     guarantee as far as possible the needs of jobs with high time
//     requirements" (盡可能地保證對(duì)時(shí)間要求高的用戶作業(yè)的需求); Mid's
//     "priority lies between the two" and it "can also get some
//     scheduling opportunities"; Low is "also configured a certain
//     amount of computing resources, so that jobs with high time
//     requirements do not monopolise the resources and low-time jobs are
//     not left without a response for long", the proportions set in a
//     configuration file; model 2's minimum exists "to guarantee the
//     job's completion time" (以此保證作業(yè)完成時(shí)間). So a free slot goes
//     to a queue below its configured proportion, read as a floor
//     (QueueConfig.Share: none in DefaultQueues), else to the highest
//     queue with work, and in the queue first to a job below its
//     minimum (PrioritySharing). Two other readings are options,
//     measured beside it: the lower queues' "certain amount" as their
//     jobs' minimums, served before a higher queue's jobs above theirs
//     (MinimumFirst: with it Mid's and Low's minimums take slots from
//     High's jobs, whose minimums leave them no slack, and time-critical
//     jobs miss deadlines they meet without it), and the proportions as
//     capacity guarantees (CapacitySharing: a queue with work holds its
//     share even against higher queues, an idle share is lent by least
//     used fraction; it caps a deadline-only job below its minimum while
//     a budget-only job holds its share, which contradicts "as far as
//     possible the needs of" time-critical jobs).
//   - Within a queue, no cap at the minimum. The minimum of model 2 is,
//     after Kc & Anyanwu, "the minimum resources a job needs ... to
//     guarantee its completion time and to raise the number of jobs in
//     the cluster as far as possible"; model 3 says that a job which
//     "has obtained more slots than it should" gets a lower weight and,
//     "still obtaining too many resources" 500 ms later, moves to the
//     cheaper queue below. That correction presupposes that a job can
//     hold more than its minimum, so assignment is not capped: jobs below
//     their minimum come first, the rest goes by weight (the most
//     pressing first), and a job holding a surplus pays for it only
//     until model 3 lowers its weight and demotes it to a cheaper queue.
//     A strict cap (slots left idle while a job above its minimum has
//     ready tasks) would make that rule nearly vacuous and is not
//     offered.
//   - Reduces after maps (default). Model 2 is "derived from the deadline
//     model of Kc & Anyanwu", whose reduces start after the map phase,
//     and gives "from the budget's angle, the latest start time of the
//     reduce tasks" (Sr_max) and the reduce minimum nr_min for the
//     reduce work Ur·Tr after that start; its budget view charges only
//     the tasks' work, c × slot-seconds. A reduce slot given while maps
//     still run (Hadoop's slow-start) does no work in that time but is
//     paid for per slot-second, money model 2 never plans for, and a
//     budget-constrained scheduler would not spend it. So a job
//     competes for reduce slots only once none of its maps is
//     unfinished (the earliest admissible start; waiting until Sr_max
//     would save nothing and cost time), and model 3 does not count
//     reduce slots as needed before then. In a real cluster an early
//     reducer also copies map output; model 2 accounts for that copy as
//     the transfer term f·δ·Td after Sr. Ablations.EarlyReduces restores
//     slow-start assignment.
//
// # Options and ablations
//
// Every option but the hold-down is off by default (the paper's
// algorithm as reconstructed above). The options, each measured against
// the default by the simulator's dbs experiment:
//
//   - MinimumFirst serves every queue's jobs below their minimums, High
//     to Low, before the queues' priorities (or shares), as Kc &
//     Anyanwu's deadline scheduler guarantees its minimums.
//   - Sharing: CapacitySharing reads the queues' shares as a capacity
//     scheduler's guarantees (DefaultCapacityQueues: High 50%, Mid 30%,
//     Low 20%).
//   - QueueConfig.Share with PrioritySharing: a floor per queue.
//   - PhiAwareMoves promotes only jobs with φ > 0 (a promotion buys time
//     at a higher price) and demotes only jobs with φ < 1 (a demotion
//     saves money at the cost of priority).
//   - HoldDown sets the hold-down; a negative value turns it off.
//
// Config.Ablations (type Ablations) removes one part of the algorithm
// each, for experiments only, so the simulator can show where DBS's
// gains (or losses) come from: StaticWeights (weights and minimums fixed
// at Submit, no moves), NoQueueMoves (weights updated, no promotion or
// demotion), NoMinimumSlots (model 2 ignored in assignment: with
// PrioritySharing the queues are strict priorities), EarlyReduces
// (reduces assigned at the host's slow-start, while the job's maps run),
// BudgetViewOneSlot (model 2's budget view as if the job held one slot),
// and one per rule of ours (above).
//
// # Cost of the decisions
//
// A heartbeat takes O(free slots × log n): each queue keeps, per slot
// kind, an indexed heap of its jobs with ready tasks. A weight update is
// O(n): models 1 and 2 for every job (re-evaluating only the part whose
// inputs moved since the last update, and skipping jobs none of whose
// figures can have moved), then each heap is re-heapified in place.
// Queue is O(n log n) (it sorts each queue's jobs once and walks them).
// None allocates in steady state. BenchmarkHeartbeat, BenchmarkTick and
// BenchmarkQueue measure them against paper-literal references (sort
// every queue; hand out slot by slot) in the same file, at 10,000 and
// 100,000 jobs; BenchmarkTickPrevious against the update that
// re-evaluates every job from scratch.
//
// What a weight update cannot skip is every job whose figures move with
// now: one with running tasks (their elapsed time), and one with a task
// time and φ > 0 before its deadline (model 1's T̂/D and model 2's
// deadline view read the time left). Their weights change, so the heaps
// they sit in are re-heapified: at 100,000 jobs (about 90 MB of
// entries) that work is bound by memory, not arithmetic, and grows with
// the number of such jobs. BenchmarkTick's jobs=100000/slot-bound has
// as many jobs with running tasks as the cluster's slots allow;
// jobs=100000 runs tasks in a third of the jobs, far more than any
// cluster of its size holds; all-known gives every job a task time.
//
// # Concurrency
//
// A Scheduler is not safe for concurrent use; call it from one
// scheduling loop, as a Hadoop JobTracker does. Weight, MinimumSlots,
// QueueFor and Success are pure functions, safe for concurrent use.
package dbs
