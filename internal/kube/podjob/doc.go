// Package podjob translates Kubernetes objects into schedkit's job
// vocabulary: a batch/v1 Job, or a group of pods labelled with
// LabelPodGroup, becomes one schedkit.Job whose tasks are its pods, and
// the cluster's nodes become a schedkit.Cluster whose slots are the
// extended resources ResourceMapSlot and ResourceReduceSlot.
//
// It decides nothing: it reads annotations, labels, pod status and node
// allocatable, checks them, and reports every problem as an error naming
// the object and the annotation, so a plugin can turn it into a clear
// scheduling status.
//
// Its inputs come from the informer caches a plugin holds: NewListers
// wires them (kube-scheduler's pods, Jobs and nodes plus an informer of
// the profile's succeeded pods, which kube-scheduler's own cache drops)
// and reports their events to the plugin's Hooks, first offering each
// update to the plugin (which may take it without re-reading
// everything); ChangeOf tells an update that changes nothing Build reads
// (a node's status report, a failed attempt's condition) from a
// binding, a bound pod's status, and the rest. ListPods merges the two
// pod caches and Listers.List also keeps, for a grace, a pod that is
// finishing between them; JobOf and SlotRequests read one pod's job ID
// and slot requests.
//
// # The mapping
//
//   - Job: the owning batch/v1 Job (the pod's controller reference, of
//     the Job's UID: the lingering pods of a Job deleted and re-created
//     under its name are not the new one's, they get ErrNotFound) when
//     that Job has at least one annotation under Prefix; otherwise the pod
//     group named by the pod's LabelPodGroup label, whose annotations are
//     read from its pods (they must agree). Other pods are not managed.
//     With Options.SchedulerName, only that scheduler's pods form jobs:
//     other schedulers' pods join none (they hold their slots), and a job
//     mixing both is an error naming the other's pod.
//   - Deadline: AnnotationDeadline (RFC 3339, not the zero time, which
//     the algorithms read as "no deadline") or AnnotationRelativeDeadline
//     (a Go duration after submission); exactly one is required.
//   - Submitted: the Job's creation time; for a pod group, its earliest
//     pod's; never after now (an API server whose clock is ahead).
//   - Phase: the pod's LabelPhase label, "map" (default) or "reduce".
//   - Total tasks per phase: AnnotationTasks ("map=8,reduce=1") if given,
//     else the job's non-failed pods of that phase.
//   - Finished: Succeeded pods; duration from status.startTime to the
//     last container's finish, each held within [submission, now] (a
//     node's clock before NTP must not make a task last decades).
//   - Running: bound pods (spec.nodeName set) not yet finished; start at
//     status.startTime (held within [submission, now]), or at now if the
//     kubelet has not reported it.
//   - Ready: unbound pods with no scheduling gate. A host that wants
//     Hadoop's slow-start gates its reduce pods until it is reached.
//   - Failed and terminating pods are ignored (their replacements count).
//   - DeadlineBudget (BuildWith with Options.Budget): AnnotationPhi (φ:
//     1, 0.5 or 0) is required, a deadline only when φ > 0,
//     AnnotationBudget (positive) when φ < 1; AnnotationDataSizes
//     ("input=3350Mi,reduce=120Mi") is optional. Job.Runs lists the time
//     each finished or running pod held its slot, what a host charges.
//   - Slots: each node's allocatable ResourceMapSlot and
//     ResourceReduceSlot; a map pod requests one map slot, a reduce pod
//     one reduce slot, so the scheduler's resource fit enforces the
//     paper's slot counts. A node with more than MaxNodeSlots of a kind,
//     or one that would bring the cluster past MaxClusterSlots, is left
//     out with the reason (Snapshot.Refused): its figure costs that node
//     alone.
//   - Terms: Job.TermsChanged lists the annotations of a job's terms
//     (deadline, φ, budget, data sizes) that differ between two
//     translations, for a stateful host that must apply them.
//
// # Usage
//
//	snap := podjob.Build(now, pods, jobLookup, nodes)
//	for _, j := range snap.Jobs { ... }         // schedkit.Job values
//	ref, ok := snap.Pod(pod.UID)                // a pod's job, phase, rank
//	err := snap.PodError(pod.UID)               // why a pod could not be translated
//	sched, _ := lss.New(lss.Config{Cluster: snap.Cluster})
package podjob
