// Package queuesort is what schedkit's two queue-sort plugins share:
// LeastSpareTime (lss, paper 000) and DeadlineBudget (dbs, paper 003)
// both order kube-scheduler's queue by the order in which their
// algorithm hands out slots, hold back in PreEnqueue the pods it cannot
// take, and list the cluster through podjob to ask it. The plugins keep
// what differs — how often they ask, lss's turn gate and kill rule, dbs's
// state and weight updates —; this package keeps the rest once:
//
//   - Host lists the cluster (podjob.Listers, the plugin's informers)
//     into an Order: a podjob.Snapshot of the pods of the plugin's own
//     profile (its schedulerName: the pods of other schedulers join no
//     job, they only hold slots on their nodes), and reports what the
//     listing refused that is no pod's: a node whose slot figures are out
//     of bounds gets a Warning event (EventReasonSlotsRefused) and a log
//     line, once per message, and its slots are left out; an evaluation
//     that fails as a whole is logged once per message.
//   - Order is one evaluation: each ready pod's place in the hand-out
//     order (Hand fills it from the algorithm's picks), the jobs the
//     algorithm refused, and the snapshot.
//   - Less orders the queue by an Order: ready pods of managed jobs first
//     in the hand-out order, every other pod by priority and queue time
//     (kube-scheduler's PrioritySort).
//   - Host.PreEnqueue holds back pods with a status naming the object
//     and the annotation (Order.Status: bad annotations, a Job not yet
//     cached, a job the algorithm refused), reports each hold through
//     heldpods, and releases a pod let through. A Job whose annotations
//     change re-activates its held pods (kube-scheduler has no Job
//     events).
//
// The plugins count the informers' events (Host.Gen) to know when an
// Order is stale; podjob.ChangeOf tells them which updates cannot move
// their order (a node's status report, a failed attempt's condition),
// which they take without evaluating again.
package queuesort
