// Package leastsparetime is schedkit's lss (least spare time, paper 000)
// as a kube-scheduler plugin: a QueueSort that orders pods of deadline
// jobs by lss, a PreFilter "turn gate" that gives the free slots to the
// pods lss picks, a PreEnqueue that holds back the pods of jobs that
// cannot be scheduled by deadline, and lss's kill rule as an action on
// hopeless jobs. It is a translation only: package podjob turns pods, Jobs and
// nodes into schedkit jobs and a slot cluster, and every decision —
// order, pass, kill — comes from lss.Scheduler.Order and Queue. What it
// shares with DeadlineBudget (listing, Less, PreEnqueue's holds) is
// package queuesort's. It acts only on the pods of its own profile
// (their spec.schedulerName): another scheduler's Job, whatever its
// deadline, takes no turn and is never reported or deleted.
//
// # From heartbeats and slots to one pod at a time
//
// Paper 000's scheduler runs Algorithm 1 when a TaskTracker heartbeats
// with free map and reduce slots. kube-scheduler instead pops one pod at
// a time from a queue ordered by the QueueSort plugin, filters and
// scores nodes for it, and binds it. The mapping:
//
//  1. Slots are extended resources (podjob.ResourceMapSlot,
//     podjob.ResourceReduceSlot): nodes advertise them, each map or
//     reduce pod requests one. kube-scheduler's NodeResourcesFit then
//     enforces the slot counts, and the cluster's N_MapSlot and
//     N_ReduceSlot of formula (3) are the sums of the nodes' allocatable.
//  2. The queue order is lss.Scheduler.Queue: the order in which
//     Algorithm 1 hands out ready tasks at now if slots were unlimited —
//     pass 1 (one map to each job with nothing started, least spare time
//     first), pass 2 (maps by least spare time), pass 3 (reduces). A
//     job's ready pods take its picks in rank order (creation time, then
//     name). Because a pod that does not fit makes room for the next one,
//     the pods that get slots are exactly those a round of heartbeats at
//     now would start, whatever the split of free slots among nodes
//     (lss's heartbeat-prefix property; the integration test checks it
//     against lss's own Heartbeat).
//  3. Which node: any node with a free slot is equal to the paper (it
//     assigns to whichever node heartbeats), so node choice stays with
//     kube-scheduler's Filter and Score plugins.
//  4. Now: lss evaluates at the clock's now truncated to
//     Args.OrderResolution; the evaluation is reused until a pod, Job or
//     node changes or the clock moves on. Pods sitting in the active
//     queue keep the order they were inserted with (the queue is a heap),
//     which for jobs without running tasks and known Tavg is lss's order
//     at any later time too; jobs whose spare time moves with running
//     tasks are re-ordered when their pods are re-queued.
//  5. The turn gate. The queue order alone does not make the slots go to
//     lss's picks: a pod refused earlier waits out kube-scheduler's
//     per-pod backoff, and when a slot frees the refused pods return one
//     by one as their backoffs end (kube-scheduler even pops from its
//     backoff queue, by backoff expiry, when the active queue is empty),
//     so a pod of another job could take the slot. PreFilter therefore
//     refuses (UnschedulableAndUnresolvable, "not its turn") a ready pod
//     of a deadline job while the pods before it in lss's order of its
//     slot kind are at least the free slots of that kind — the paper's
//     "free slots go to the prefix of the order". Count and free slots
//     come from one view, so no order of informer events lets a later pod
//     through. A refused pod is parked: cluster events do not re-queue it
//     (its queueing hint says QueueSkip); when its turn comes (a slot
//     frees, a pick is skipped, the order moves on with time) the plugin
//     hands it to the scheduling queue's Activate, past its backoff.
//  6. Skipped picks (starvation). A pick that passed the gate and that no
//     node takes (affinity, taints, other resources; PostFilter), or that
//     another PreFilter refused, is skipped — it does not count before the
//     pods behind it, which get its turn — while the scheduler's nodes stay
//     as they were when it failed (the largest NodeInfo generation, which
//     every change of a node or of the pods on one raises). Once they
//     change, the skip is stale: the pick counts again and is activated,
//     so it is tried again before the pods behind it; a pick whose binding
//     failed (Unreserve) is stale at once. So a pod that can never be
//     placed costs one extra attempt per change of the cluster and blocks
//     nothing for longer, and a node that was not ready yet cannot hand a
//     slot to a later pod whose backoff happens to end first. This is
//     Algorithm 1's heartbeat, which gives a free slot to the next task of
//     the order when one does not fit.
//  7. Pods that are not ready pods of deadline jobs (unmanaged pods, pods
//     of other profiles, pods held back by PreEnqueue) pass the gate: an
//     unmanaged pod that requests a slot resource can take a slot when it
//     pops first. The gate's refusal names the pod whose turn it is.
//  8. Cost. The view (one evaluation of lss over every pod) is kept across
//     the bindings of pods of jobs with no finished task and the
//     kubelet's updates of such pods, which do not move lss's order of the
//     other pods, and across every update that changes nothing podjob
//     reads — a node's status report, a Job's status (delta.go,
//     podjob.ChangeOf); every other change evaluates afresh.
//  9. The kill rule (deadline passed, or Spare + Tavg < 0 with Tavg
//     known) runs every Args.HopelessCheckInterval: a Warning event
//     (reason EventReasonHopeless) on the Job, once, and with
//     Args.DeleteHopelessJobs its deletion, tried again at every check
//     until it succeeds (hopeless.go); the pods of a hopeless job are held
//     back by PreEnqueue either way. A Job deleted and re-created under
//     its name is another job.
//  10. Bad input — a missing or malformed annotation, a Job lss refuses
//     (deadline before submission) — holds the job's pods back with an
//     UnschedulableAndUnresolvable status whose message names the object
//     and the annotation; a Job not yet in the informer cache gives a
//     retriable Unschedulable.
//
// Pods that are not schedkit's (no owning annotated Job, no pod group
// label, another profile's) sort after every deadline pod, by priority
// then queue time, as kube-scheduler's PrioritySort does — as lss puts
// jobs without a deadline last.
//
// A node advertising an absurd slot count is left out alone, with a
// SlotsRefused event (queuesort); an evaluation that fails as a whole is
// logged, and every pod is then ordered by priority and passes until one
// succeeds. Times are held within [submission, now] (podjob), so a
// node's or the API server's clock cannot make a job hopeless.
//
// # Restart and failover
//
// lss's answers are functions of the cluster (Jobs' deadlines and task
// counts, pods' phases, start and finish times, nodes' slots) at now, so
// a restarted or newly elected plugin orders and gates as the old one
// would (TestRestartSameOrder):
//
//	what                          | on a restart
//	------------------------------|----------------------------------------------
//	lss's order, spare times, the | rebuilt from the informers at the first
//	  kill rule's verdicts        |   evaluation (nothing kept between cycles
//	                              |   but a cache of that, TestDeltaEqualsEvaluate)
//	pods held back, their         | rebuilt: PreEnqueue runs again for every
//	  conditions and events       |   pending pod; a held pod's HeldBack event
//	                              |   is recorded again (one per pod)
//	the turn gate's skips (a pod  | lost: until the pod is attempted again
//	  that found no node)         |   (its backoff, at most a few seconds) the
//	                              |   gate counts it ahead, so the pods behind it
//	                              |   wait that long
//	the kill rule's record        | lost: a hopeless job's DeadlineHopeless
//	  (reported, deleted)         |   event is recorded once more; a deletion
//	                              |   already done is not repeated (the job is
//	                              |   gone), one under way is retried
//
// # Metrics
//
// On kube-scheduler's /metrics (component-base's legacy registry, as
// kube-scheduler's own plugins), registered by the factory:
//
//   - schedkit_pods_held_back_total{plugin="LeastSpareTime",reason}:
//     every PreEnqueue holding back a pod and every turn-gate refusal,
//     by reason: invalid (annotations missing or malformed),
//     job_not_cached, refused (lss refused the job), hopeless (the kill
//     rule), not_its_turn (the turn gate). Shared with the other plugins
//     (package heldpods), as is schedkit_held_pods{plugin}, the pods
//     held back or parked for retry now.
//   - schedkit_leastsparetime_hopeless_jobs_total{reason}: jobs the kill
//     rule found hopeless, each once (as its DeadlineHopeless event), by
//     reason deadline_passed or spare_exhausted.
//   - schedkit_leastsparetime_hopeless_deletions_total{result}: deletions
//     of hopeless jobs tried (deleteHopelessJobs), deleted or failed.
//
// # How it is tested
//
//   - Unit tests on worked numbers: the queue order of a mixed queue
//     (TestLess), PreEnqueue's status for each kind of pod, the gate (who
//     passes, the refusal naming the first pod, a skip and its going
//     stale, the queueing hint), the turn loop's activations, args.
//   - TestDeltaEqualsEvaluate: on 60 random clusters, ten random bindings
//     each (in and out of rank order, with and without the kubelet's
//     update) and additions; after each the kept view orders and gates
//     every pod as a fresh evaluation; the bindings taken as deltas are
//     counted and must be some.
//   - hostile_test.go, one test per shared-cluster defect:
//     other schedulers' Jobs, a 1970 start, an absurd node, a failed
//     deletion retried, a re-created Job, a node's status report.
//   - BenchmarkNodeStatusReport: one node's status report with 19,000
//     pods pending.
//   - In ../integration, the real kube-scheduler against lss alone
//     (TestDifferential: the order of first attempts, the reservations,
//     the kill rule's events and deletions), the backoff race
//     (TestLeastSpareTimeBackoff, which fails without the gate), and the
//     chaos test and soak (TestChaos, TestChaosSoak).
//
// # Usage
//
// Register the plugin out of tree and enable it in a profile:
//
//	command := app.NewSchedulerCommand(app.WithPlugin(leastsparetime.Name, leastsparetime.New))
//
// with, in the KubeSchedulerConfiguration, LeastSpareTime as the only
// queueSort plugin and in preEnqueue, preFilter, postFilter and reserve
// (see cmd/schedkit-scheduler).
//
// # Host duties
//
//  1. Give nodes the slot resources and pods a one-slot request of their
//     phase's kind; label reduce pods schedkit.io/phase=reduce.
//  2. Annotate the Job (or the pod group's pods) with a deadline.
//  3. Gate pods that are not ready (e.g. reduces before slow-start) with
//     a scheduling gate; lss counts only ungated pending pods as ready.
//  4. Grant the scheduler list and watch on batch/v1 Jobs (and delete,
//     for DeleteHopelessJobs), and list and watch on pods (the plugin's
//     own informer lists its profile's succeeded pods).
//  5. Enable the plugin at preFilter, postFilter and reserve as well:
//     without the turn gate a pod whose backoff ends first can take the
//     slot lss gives another job's pod.
//  6. Give only schedkit's pods the slot resources (an unmanaged pod that
//     requests one is not gated), and tell slot-holding pods that cannot
//     run anywhere apart: a pick no node takes is retried on every change
//     of the cluster.
//  7. Give each of the plugin's profiles its pods: it acts only on the
//     pods that name its profile's schedulerName.
//
// # Concurrency
//
// Less, PreEnqueue and the queueing hint are called from the scheduling
// queue, PreFilter, PostFilter and Reserve from the scheduling cycle, the
// hopeless check and the turn loop (which calls Activate) from goroutines
// of their own; the plugin guards its state with a mutex and never holds
// it while calling into the queue.
package leastsparetime
