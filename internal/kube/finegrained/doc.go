// Package finegrained is the FineGrained kube-scheduler plugin: paper
// 004's fine-grained scheduling (package fgm) as PreFilter, Filter, Score
// and Reserve. A pod's stages (demand over its life) are predicted from
// what similar pods used; a node accepts it if every stage fits the
// node's predicted free resources at the time it runs, CPU over-committed
// within fgm's compression bound. The plugin translates; every decision
// is fgm's (fgm.Fitter, the tests fgm.Scheduler.Schedule applies to one
// task on one server).
//
// # Usage
//
// Register it out of tree and enable it in a profile
// (cmd/schedkit-scheduler does both; profile-fgm.yaml is the sample):
//
//	app.NewSchedulerCommand(app.WithPlugin(finegrained.Name, finegrained.New))
//
// Pods opt in with spec.schedulerName: schedkit-fgm and describe what
// they run with annotations (package podtask): schedkit.io/logic (or
// their pod-template-hash) and schedkit.io/data-size. Usage reaches the
// plugin through a UsageFeed: finished pods' usage samples teach the
// History, node samples give the foreign load. A host embedding the
// scheduler passes its feed with NewWithFeed; the args' metricsFeed
// reads the metrics API (MetricsFeed), their recordedFeed replays a JSON
// Recording; without any, nothing is learned and every pod is matched by
// its requests.
//
// # The operator's duties
//
//  1. Give the plugin's args the profile's schedulerName: pods with it
//     hold their predicted stages on their nodes; all other pods are
//     foreign load, seen only through node samples.
//  2. Feed it: report every pod's usage as it finishes (with its
//     similarity key, podtask.Similarity) and every node's usage,
//     including the usage of each of our running pods there.
//  3. Keep kube-scheduler's NodeResourcesFit (the sample profile does):
//     the kubelet admits pods by their requests, whatever the plugin
//     predicts.
//
// # From the paper's servers to one pod at a time
//
// Paper 004's Algorithm 1 runs when a server has room: it orders the
// pending tasks (DRF) and places as many on that server as fit.
// kube-scheduler instead takes one pod at a time and asks every node.
// The mapping:
//
//  1. Servers are nodes, their capacity the allocatable CPU (cores,
//     compressible) and memory (bytes, incompressible).
//  2. Filter asks, for this pod and this node, what Algorithm 1 would
//     decide for that one task on that server under the fine-grained
//     policy with compression: the server is skipped when used up (line
//     1); an unpredictable pod gets its requests if the least free over
//     [now, now+horizon) holds them; a predictable one goes through
//     Algorithm 2 stage by stage; its first stage must fit the measured
//     idle memory. That is fgm.Fitter.Fit; fgm's own tests check it
//     against fgm.Scheduler.Schedule (TestFitAgreesWithSchedule) and the
//     differential test in ../integration checks the plugin inside the
//     real kube-scheduler against one-node fgm.Schedulers.
//  3. The node's free-resource timeline is built once per scheduling
//     cycle, by the cycle's first Filter of the node, and read by its
//     Score (cycleservers.go; a preemption's what-if NodeInfos get
//     their own), from the pods the NodeInfo holds: allocatable (as
//     kube-scheduler parsed it), minus the foreign load,
//     minus, for each of our pods, its remaining predicted stages from
//     its start (its request, or the incompressible peak of an overdue
//     pod, over [now, now+horizon)) — what fgm's server keeps. A pod's plan is
//     recorded at Reserve (stages from now) and dropped at Unreserve; a
//     pod the plugin finds bound without a plan (placed before a
//     restart) is predicted when first seen, from status.startTime.
//     Preemption works: Filter reads the NodeInfo it is given, victims
//     removed.
//  4. Which node is not Algorithm 1's question (the paper fills whichever
//     server has room). Score answers it: the least free fraction of any
//     kind the node keeps over the pod's predicted life once the pod is
//     placed, 0–100 (ScoreOf), so pods go where the tightest moment
//     leaves most room. The sample profile disables every other score
//     plugin.
//  5. The queue order is kube-scheduler's (PrioritySort), not DRF: pods
//     are not grouped into jobs whose shares fgm could compare.
//  6. Learning: the feed's records of succeeded pods go to
//     estimate.History.Observe, with the compression rate the feed
//     reports (0 if it does not know), as fgm's Release does.
//  7. Foreign load: the latest node sample's total minus the sampled
//     usage of our pods there (fgm: formula (14)'s time-weighted mean of
//     the samples between Ticks). Measured idle: the sample's idle
//     memory, minus the first stages of pods reserved since.
//  8. A prediction whose peak exceeds, in some kind, the largest
//     allocatable of any node is not used: the pod is matched by its
//     requests, as fgm's Schedule does (Decision reason
//     EstimateFitsNoServer), runs, and its completion teaches the History
//     — one glitched sample cannot keep a key's pods pending for good.
//     Logged once per key until its prediction fits a node again.
//
// # Samples and clocks
//
// A node's usage is only as good as its last sample (usage.go): a
// sample older than metricsStaleAfter at a feed read is dropped, the
// node then planned as without a feed; the feed's outages are logged
// once each — its reads failing (every interval), a node missing from
// its list, a node's samples gone stale; a sample stamped after now is
// taken as taken at the read that first saw it; a sample taken before
// its node was created (a node deleted and re-created under its name) is
// not used. A running pod whose start time is after now (a node's clock
// ahead, seen after a restart) holds its stages from now.
//
// # What is approximated or left out
//
//   - Algorithm 3 (conformity, server policies, reclaiming) does not
//     run: every node is fine-grained with compression. checkQoS does
//     not run: pods carry no deadlines. No delay scheduling (use
//     affinity).
//   - The plan is a reservation in the scheduler only: the kubelet
//     gives a pod its requests and limits, not the plan's per-stage
//     allocation, and compression is whatever CPU sharing the node does.
//     Admission checks requests, so the plugin can only be stricter than
//     requests unless requests are lowered toward the prediction (for
//     example by a mutating webhook) — not built here.
//   - Stages follow predicted timing from the pod's start, not its
//     progress; a pod running past its prediction holds its peak (as in
//     fgm).
//   - A feed that omits one of our running pods from a node sample
//     makes its usage count as foreign load (fgm would subtract its
//     reservation instead when no task is sampled).
//   - A bound pod is predicted once, when reserved or first seen; later
//     learning does not revise it (fgm also predicts at allocation). A
//     prediction larger than its node holds the pod's request instead.
//   - The metrics feed (MetricsFeed, args metricsFeed: true) sees usage
//     at the metrics API's resolution: a pod's run after its last
//     sample, and a pod shorter than one interval, are not seen.
//   - A refused pod is retried on cluster events (the plugin registers no
//     narrower ones) and after every feed read (new samples, or
//     predicted stages that ended, can change fgm's answer).
//   - Plans of pods that are gone are dropped at the next feed read.
//
// # Restart and failover
//
// What the plugin learns lives in its process: the History (each
// similarity key's stages) and each placed pod's plan. With
// historySnapshot (the shipped profile's, on the Deployment's volume)
// the History is written to a file after every feed read that taught it
// something and read back at start (snapshot.go; TestHistorySnapshot):
//
//	what                      | on a restart
//	--------------------------|--------------------------------------------------
//	the History               | survives (historySnapshot): restored at start;
//	                          |   without it lost: every pod is matched by its
//	                          |   requests until MinObservations pods of its
//	                          |   key finish again. A garbled, foreign or
//	                          |   differently configured snapshot is refused
//	                          |   with a log line: an empty History
//	the plans of pods placed  | rebuilt when a node is next filtered: a running
//	                          |   pod of the profile without a plan gets one from
//	                          |   its start time and the History's prediction
//	                          |   (planFor), the same stages as before when the
//	                          |   History is restored
//	node usage samples        | rebuilt at the first feed read (one
//	                          |   feedInterval); until then nodes are planned
//	                          |   without foreign load
//	a plan's "placed since    | lost: a pod reserved just before the restart is
//	  the sample" mark        |   counted in the next sample only (fgm's
//	                          |   measured idle, one feedInterval)
//	pods held for retry       | rebuilt: kube-scheduler attempts every pending
//	                          |   pod again
//
// A standby replica (leader election) runs the plugin and reads the feed
// too, so at a failover its History is as current as the leader's; the
// snapshot covers the process's own restarts (an emptyDir outlives the
// container, not the pod).
//
// # Metrics
//
// On kube-scheduler's /metrics (component-base's legacy registry, as
// kube-scheduler's own plugins), registered by the factory:
//
//   - schedkit_finegrained_feed_reads_total{source} and
//     schedkit_finegrained_feed_errors_total{source}: the feed's reads
//     and failed reads, source finished (UsageFeed.Finished) or nodes.
//   - schedkit_finegrained_feed_staleness_seconds: the age of the oldest
//     node sample in force at the last read (0: none).
//   - schedkit_finegrained_history_keys: the similarity keys the History
//     holds (bounded by its MaxKeys); and
//     schedkit_finegrained_history_records_total{result}: succeeded
//     pods' records learned or refused.
//   - schedkit_finegrained_estimate_request_ratio{resource}: for each pod
//     PreFilter predicts, the predicted peak over the request, per
//     resource (cpu, memory): below 1 is what fgm over-commits.
//   - schedkit_pods_held_back_total{plugin="FineGrained",reason="invalid"}:
//     pods refused for malformed annotations; schedkit_held_pods{plugin}:
//     pods refused or retried now (package heldpods).
//
// The gauges describe one FineGrained profile: with two, the last read
// wins.
//
// # How it is tested
//
//   - Unit tests on worked numbers: Filter, Score, Reserve and Unreserve
//     on a node running a pod in its first stage, foreign load and used
//     up, PreFilter's bad inputs, calls without state, bad nodes and
//     feeds, args, the recorded feed, the metrics feed (containers summed,
//     stale and duplicate samples dropped, series handed over once).
//   - hostile_test.go, one test per shared-cluster defect:
//     samples that expire (metrics-server down, a node dropped from its
//     list, a stamp in the future) and a re-created node, a glitched
//     prediction, a start in the future.
//   - In ../integration, TestFineGrainedDifferential: the real
//     kube-scheduler against one-node fgm.Schedulers replaying each node
//     (hand cases and seeded random states).
package finegrained
