// Package leastsparetime is schedkit's lss (least spare time, paper 000)
// as a kube-scheduler plugin: a QueueSort that orders pods of deadline
// jobs by lss, a PreEnqueue that holds back the pods of jobs that cannot
// be scheduled by deadline, and lss's kill rule as an action on hopeless
// jobs. It is a translation only: package podjob turns pods, Jobs and
// nodes into schedkit jobs and a slot cluster, and every decision —
// order, pass, kill — comes from lss.Scheduler.Order and Queue.
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
//  5. The kill rule (deadline passed, or Spare + Tavg < 0 with Tavg
//     known) runs every Args.HopelessCheckInterval: a Warning event
//     (reason EventReasonHopeless) on the Job, and with
//     Args.DeleteHopelessJobs its deletion; the pods of a hopeless job are
//     held back by PreEnqueue either way.
//  6. Bad input — a missing or malformed annotation, a Job lss refuses
//     (deadline before submission) — holds the job's pods back with an
//     UnschedulableAndUnresolvable status whose message names the object
//     and the annotation; a Job not yet in the informer cache gives a
//     retriable Unschedulable.
//
// Pods that are not schedkit's (no owning annotated Job, no pod group
// label) sort after every deadline pod, by priority then queue time, as
// kube-scheduler's PrioritySort does — as lss puts jobs without a
// deadline last.
//
// # Usage
//
// Register the plugin out of tree and enable it in a profile:
//
//	command := app.NewSchedulerCommand(app.WithPlugin(leastsparetime.Name, leastsparetime.New))
//
// with, in the KubeSchedulerConfiguration, LeastSpareTime as the only
// queueSort plugin and in preEnqueue (see cmd/schedkit-scheduler).
//
// # Host duties
//
//  1. Give nodes the slot resources and pods a one-slot request of their
//     phase's kind; label reduce pods schedkit.io/phase=reduce.
//  2. Annotate the Job (or the pod group's pods) with a deadline.
//  3. Gate pods that are not ready (e.g. reduces before slow-start) with
//     a scheduling gate; lss counts only ungated pending pods as ready.
//  4. Grant the scheduler list and watch on batch/v1 Jobs (and delete,
//     for DeleteHopelessJobs), and list and watch on succeeded pods.
//
// # Concurrency
//
// Less and PreEnqueue are called from the scheduling queue, the hopeless
// check from its own goroutine; the plugin guards its state with a mutex.
package leastsparetime
