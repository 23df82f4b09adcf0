// Package slots makes nodes advertise Hadoop-1 slots, the extended
// resources podjob.ResourceMapSlot and podjob.ResourceReduceSlot that
// LeastSpareTime and DeadlineBudget count and NodeResourcesFit enforces.
//
// Extended resources that no device plugin manages are advertised by
// patching the node's status (a kubelet only reports the resources it
// knows). The desired counts live where they survive anything that
// happens to the status: on the node's labels LabelMapSlots and
// LabelReduceSlots, set by the cluster's admin:
//
//	kubectl label node worker-1 schedkit.io/map-slots=4 schedkit.io/reduce-slots=2
//
// Reconcile patches one node's status (capacity and allocatable) to the
// counts of its labels, and removes the resources when the labels go.
// A kubelet keeps extended resources it does not manage across restarts,
// but zeroes them when it re-registers a node whose device-plugin
// checkpoint is gone (a node rebuilt, a fresh kubelet root directory);
// Controller therefore watches every node and reconciles it on every
// change, so a reset is undone within one watch event. The command
// cmd/schedkit-slots runs the Controller (deploy/slots.yaml).
//
// Host duties:
//
//  1. Label the nodes that offer slots; a node without the labels offers
//     none.
//  2. Run one Controller (cmd/schedkit-slots) with get, list and watch on
//     nodes and patch on nodes/status.
package slots
