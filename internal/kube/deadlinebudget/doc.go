// Package deadlinebudget is schedkit's dbs (deadline- and
// budget-constrained scheduling in price-tiered queues, paper 003) as a
// kube-scheduler plugin: a QueueSort that orders the pods of dbs jobs by
// the order in which dbs hands out slots, a PreEnqueue that holds back
// the pods of jobs dbs cannot take, and dbs's periodic weight update
// (model 3) with its promotions and demotions as events. It is a
// translation only: package podjob turns pods, Jobs and nodes into
// schedkit jobs and a slot cluster, and every order and move comes from
// dbs.Scheduler (Queue and Tick). What it shares with LeastSpareTime
// (listing, Less, PreEnqueue's holds, refused nodes) is package
// queuesort's; it acts only on the pods of its own profile (their
// spec.schedulerName).
//
// # Usage
//
// Register it (cmd/schedkit-scheduler does) and enable it as the
// queueSort and a preEnqueue plugin of a profile; profile-dbs.yaml
// beside the binary runs it as a scheduler named "schedkit-dbs":
//
//	app.NewSchedulerCommand(app.WithPlugin(deadlinebudget.Name, deadlinebudget.New))
//
// A batch/v1 Job (or a pod group: pods labelled schedkit.io/pod-group,
// carrying the annotations themselves) opts in with annotations:
//
//	schedkit.io/phi: "0.5"                      # φ: 1 High, 0.5 Mid, 0 Low (required)
//	schedkit.io/relative-deadline: 400s         # or schedkit.io/deadline (RFC 3339); required if φ > 0
//	schedkit.io/budget: "40"                    # B, in price × slot-seconds; required if φ < 1
//	schedkit.io/data-sizes: input=3350Mi,reduce=120Mi   # δ and f·δ for model 2's shuffle (optional)
//	schedkit.io/tasks: map=20,reduce=2          # optional, as for LeastSpareTime
//
// and its pods request one schedkit.io/map-slot or schedkit.io/reduce-slot
// (label schedkit.io/phase: reduce for reduce pods) and set
// spec.schedulerName: schedkit-dbs.
//
// # From heartbeats and slots to one pod at a time
//
// Paper 003's scheduler hands out free map and reduce slots when a
// TaskTracker heartbeats. kube-scheduler pops one pod at a time from a
// queue ordered by the QueueSort plugin. The mapping:
//
//  1. Slots are extended resources (podjob.ResourceMapSlot,
//     podjob.ResourceReduceSlot); NodeResourcesFit enforces the counts,
//     and the cluster's map and reduce slots, which dbs's queues divide,
//     are the sums of the schedulable nodes' allocatable.
//  2. Tasks are pods (one slot each): succeeded pods are finished tasks,
//     bound ones running (they hold slots: the "held" of models 2 and 3
//     and of the queues), unbound ungated ones ready.
//  3. The queue order is dbs.Scheduler.Queue: the order in which
//     heartbeats at now would hand out slots if they were unlimited —
//     map slots then reduce slots; each slot to a queue below its floor,
//     else to the highest queue with a ready pod, in it to the first job
//     below its model-2 minimum, else by weight — produced slot by slot
//     because the queue rule depends on what each queue already holds.
//     A job's ready pods take its picks in rank order (creation time,
//     then name). A pod that does not fit makes room for the next, so
//     for each kind the pods that get slots are a prefix of that order:
//     exactly what any round of heartbeats at now would assign, whatever
//     the split of free slots among nodes (dbs's
//     TestQueueIsHeartbeatPrefix; the integration test checks it against
//     dbs's own Heartbeat through the real scheduler).
//  4. Which node is not dbs's decision; it stays with kube-scheduler's
//     Filter and Score plugins.
//  5. dbs is stateful (weights, marks, queues), so the plugin keeps one
//     dbs.Scheduler (the ledger, ledger.go): a Job seen for the first
//     time is submitted at the clock's now into its φ's queue, later
//     views Update it, a Job gone is removed. A job whose phase count
//     changes (its first reduce pod created without schedkit.io/tasks),
//     or whose terms change (deadline, φ, budget, data sizes: a user's
//     kubectl annotate --overwrite), is submitted again at now, into its
//     φ's queue, keeping its price history — what a restarted replica
//     does with it, so replicas agree; a change of terms gets a Normal
//     event (reason EventReasonTermsApplied). A Job deleted and
//     re-created under its name is a new job. The clock never steps back
//     for dbs (a now before the last is held at the last).
//  6. Cost so far (dbs.Job.CostSoFar): each pod's time on its slot
//     (status.startTime to its container's finish, or to now) at the
//     price of the queue the job was in at each second. The plugin keeps
//     each job's price history from its submission to dbs and the moves
//     of every Tick; time before the plugin first saw a job is charged at
//     its φ's queue's price.
//  7. Tick: every tickInterval (Δ, 500 ms by default) the plugin brings
//     dbs up to date (listing the cluster if any event came since the
//     last evaluation) and runs dbs.Scheduler.Tick, which updates the
//     weights when Δ has passed; each evaluation of the order runs it
//     too. Each promotion and demotion becomes a Normal event (reason
//     QueuePromoted or QueueDemoted) on the Job (on a pod group's first
//     pod) naming the figures, and with writeQueueAnnotation the
//     annotation schedkit.io/queue.
//  8. When the order is evaluated: on the first Less or PreEnqueue after
//     an informer event that can change it (podjob.ChangeOf: a pod
//     added, deleted, finished, failed, terminating, ungated, relabelled
//     or re-annotated; a Job added, deleted or re-annotated; a node
//     added, deleted, cordoned or with other slots or rack — not a node's
//     status report, which changes nothing dbs reads), for a pod the
//     last evaluation did not see, and at every Tick. A binding (an
//     unbound pod becoming bound) and a bound pod's status changes do
//     not make it evaluate: they are passed on to dbs at the next Tick,
//     or at the next Less or PreEnqueue once the last evaluation is ten
//     times as old as it took (so that passing them on costs at most a
//     tenth of a core: on a small cluster nearly at once, at scale at
//     the Tick).
//     This loses nothing when pods bind in the order: after heartbeats
//     that start a prefix of dbs.Queue's answer, dbs.Queue returns the
//     rest of it (dbs's TestQueueIsHeartbeatPrefix), and
//     dbs.Scheduler.Update lets a host pass such starts on before the
//     next Tick, the only reader of their start times and costs
//     (TestBindingKeepsOrder checks it against a plugin that evaluates
//     after every event). Without it each binding cost a listing of
//     every pod, every job's translation and an Update of each: a walk
//     of the whole queue per pod bound. Stats counts evaluations and
//     deferred events.
//
// # What is approximated
//
//   - What each queue holds is counted over the slot extended resources
//     of the schedulable nodes, from pods bound to them; pods of other
//     schedulers using the same resources count on the nodes but in no
//     queue.
//   - kube-scheduler's active queue is a heap whose entries keep the
//     place they were inserted with. Between two weight updates the
//     order of the pods left is unchanged by bindings (after a heartbeat
//     dbs.Queue returns the rest of its earlier answer), so this loses
//     nothing; a weight update (every Δ) can reorder jobs, and pods
//     already queued are re-placed only when they are re-queued.
//   - A pod bound out of the order (one the order put first did not fit
//     any node, and kube-scheduler bound the next) changes the slots its
//     job holds, which the queue rule reads; the order of the pods left
//     reflects it at the next evaluation, at most Δ later.
//   - dbs assigns reduce slots only once a job's maps have all finished;
//     a reduce pod ready earlier is not in dbs.Queue's order, so
//     PreEnqueue holds it back (Unschedulable, retried on pod and node
//     events, e.g. when a map pod finishes).
//   - Each pod is one task on one slot; a pod requesting more slots is
//     charged and counted as one.
//   - The order holds among the pods waiting in the active queue
//     together. kube-scheduler's per-pod backoff releases pods one by
//     one, and with the active queue empty it pops from its backoff queue
//     by backoff expiry, so a pod whose backoff ends first can take a
//     slot dbs gives another job's pod: the plugin has no turn gate like
//     LeastSpareTime's (an end-to-end run that added the node while pods
//     backed off bound other maps than dbs's heartbeat).
//   - The plugin's cached evaluation is invalidated by its own informer
//     handlers, which run apart from the scheduling queue's: a queue that
//     moves pods on an event could sort them before the plugin has seen
//     the event. So its queueing hint, which the queue calls before it
//     moves pods, marks the order stale for an event that changes it;
//     deferred events are passed on early when cheap (earlyFactor); and
//     current waits for an evaluation under way.
//
// # Restart and failover
//
// dbs is stateful: model 3 moves jobs between queues, marks them at one
// weight update to move them at the next, holds back a move the way the
// last one came (the hold-down), and a job's cost so far is Σ price ×
// slot-seconds at the price in force at each second. With persistState
// (the shipped profile's; needs patch on jobs and pods) the plugin keeps
// what the cluster does not in the annotation schedkit.io/dbs-state on
// the Job (on every unfinished pod of a pod group) whenever it changes,
// and reads it back when it first sees the job (persist.go;
// dbs.Scheduler.Resume):
//
//	what                            | on a restart (persistState)   | without persistState
//	--------------------------------|-------------------------------|------------------------------
//	jobs, counters, task times,     | rebuilt from the informers    | the same
//	  slots held                    |                               |
//	queue after model 3's moves     | survives (the record)         | lost: back in φ's queue;
//	                                |                               |   moves redone after two
//	                                |                               |   more weight updates
//	marks (short, surplus)          | survives                      | lost: one more update
//	                                |                               |   before a move
//	last move (the hold-down)       | survives                      | lost: a move back can come
//	                                |                               |   within the hold-down
//	price history (cost so far)     | survives                      | lost: the time before the
//	                                |                               |   restart charged at φ's
//	                                |                               |   queue's price
//	time of the last weight update  | survives: updates keep their  | the first update runs at
//	                                |   times                       |   the first Tick
//	weights, minimum slots          | rebuilt by the first weight   | the same
//	                                |   update (model 3 does not    |
//	                                |   read the last weights)      |
//	an update's record not yet      | the record before it is read: | —
//	  written when the process dies |   that update is redone (its  |
//	                                |   marks and moves, at most Δ) |
//
// TestDeadlineBudgetRestart (../integration) kills the scheduler after
// its fourth weight update and compares eleven updates and the bindings
// on a node added at the end with a run without the restart: the same
// queues, marks, moves and costs (and not without persistState). A record
// is refused — the job then starts afresh, with a log line — when it is
// of another version, another Job (a UID), or a job whose phase count or
// terms changed while no plugin ran (as a running plugin resubmits such
// a job). A record grows by about 60 bytes per move and is not written
// past 128 KiB. A standby replica (leader election) runs the plugin and
// its Tick too, on the same informers, so at a failover its state is
// already current; it writes records as well, which differ from the
// leader's only by the phase of its weight updates (under Δ).
//
// # Metrics
//
// On kube-scheduler's /metrics (component-base's legacy registry, as
// kube-scheduler's own plugins), registered by the factory:
//
//   - schedkit_deadlinebudget_queue_moves_total{direction,reason}: model
//     3's moves, direction promote or demote, reason dbs's
//     (dbs.Reason: short, unmeetable, surplus, budget).
//   - schedkit_deadlinebudget_weight_update_duration_seconds: each
//     weight update's duration (dbs.Tick when it updated).
//   - schedkit_deadlinebudget_jobs{queue}: jobs in each dbs queue (low,
//     mid, high) after the last weight update.
//   - schedkit_pods_held_back_total{plugin="DeadlineBudget",reason}:
//     every PreEnqueue holding back a pod, by reason: invalid,
//     job_not_cached, refused (dbs refused the job),
//     reduces_wait_for_maps; and schedkit_held_pods{plugin} (package
//     heldpods).
//
// # How it is tested
//
//   - Unit tests: args, cost on worked numbers, Less and a promotion
//     compared with dbs run on its own and with dbs's worked Example
//     (High's pods first; the promotion's note and cost), PreEnqueue
//     per kind of pod, TestBindingKeepsOrder
//     (bindings one by one on 40 random clusters beside a plugin that
//     evaluates after every event: the same order and moves).
//   - hostile_test.go, one test per shared-cluster defect:
//     dropped pods forgotten, absurd nodes, a Job from the future,
//     changed terms, a fixed Job's held pods re-activated.
//   - In ../integration, the real kube-scheduler against dbs alone
//     (TestDeadlineBudgetDifferential, TestDeadlineBudgetTick), and the
//     chaos test and soak (TestChaos, TestChaosSoak).
package deadlinebudget
