package podjob

import (
	"maps"
	"slices"

	batchv1 "k8s.io/api/batch/v1"
	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// Change is what an informer's update of a pod, Job or node changes of
// what Build reads, so a plugin can tell the updates that cannot move
// its order from those that can (most updates are kube-scheduler's
// conditions, the kubelet's status and nodes' heartbeats).
type Change uint8

const (
	// Unchanged: nothing Build reads changed (a failed attempt's
	// condition, a node's status report or taints, a Job's status).
	Unchanged Change = iota
	// Bound: an unbound pod was bound; nothing else Build reads changed.
	Bound
	// Started: a bound pod's status moved on (the kubelet's phase
	// Running, its start time); nothing else Build reads changed.
	Started
	// Changed: anything else (additions and deletions are too).
	Changed
)

var changeNames = [...]string{"unchanged", "bound", "started", "changed"}

// String names the change.
func (c Change) String() string {
	if int(c) < len(changeNames) {
		return changeNames[c]
	}
	return "Change(?)"
}

// ChangeOf classifies an informer's update from old to cur (a *v1.Pod,
// *batchv1.Job or *v1.Node each); objects of different or other types
// are Changed.
func ChangeOf(old, cur any) Change {
	switch o := old.(type) {
	case *v1.Pod:
		if c, ok := cur.(*v1.Pod); ok && o != nil && c != nil {
			return PodChange(o, c)
		}
	case *batchv1.Job:
		if c, ok := cur.(*batchv1.Job); ok && o != nil && c != nil && !jobChanged(o, c) {
			return Unchanged
		}
	case *v1.Node:
		if c, ok := cur.(*v1.Node); ok && o != nil && c != nil && !nodeChanged(o, c) {
			return Unchanged
		}
	}
	return Changed
}

// PodChange classifies a pod's update: Bound for a binding, Started for
// the kubelet's update of a bound pod, Unchanged when nothing Build
// reads changed, else Changed (identity, creation, deletion, labels,
// annotations but AnnotationDBSState, owners, scheduling gates,
// scheduler, requests, a terminal phase, a node changed or unset).
func PodChange(old, cur *v1.Pod) Change {
	switch {
	case old.UID != cur.UID, !old.CreationTimestamp.Equal(&cur.CreationTimestamp),
		old.DeletionTimestamp != nil || cur.DeletionTimestamp != nil,
		terminal(old) || terminal(cur),
		old.Spec.NodeName != "" && old.Spec.NodeName != cur.Spec.NodeName,
		old.Spec.SchedulerName != cur.Spec.SchedulerName,
		!maps.Equal(old.Labels, cur.Labels), !sameAnnotations(old.Annotations, cur.Annotations),
		!slices.EqualFunc(old.OwnerReferences, cur.OwnerReferences, sameOwner),
		!equality.Semantic.DeepEqual(old.Spec.SchedulingGates, cur.Spec.SchedulingGates),
		len(old.Spec.Containers) != len(cur.Spec.Containers):
		return Changed
	}
	for i := range old.Spec.Containers {
		if !equality.Semantic.DeepEqual(old.Spec.Containers[i].Resources.Requests, cur.Spec.Containers[i].Resources.Requests) {
			return Changed
		}
	}
	switch {
	case old.Spec.NodeName == "" && cur.Spec.NodeName == "":
		return Unchanged
	case old.Spec.NodeName == "":
		return Bound
	}
	return Started
}

// sameAnnotations: a and b equal but for AnnotationDBSState (a plugin's
// own record, which Build does not read).
func sameAnnotations(a, b map[string]string) bool {
	_, ina := a[AnnotationDBSState]
	_, inb := b[AnnotationDBSState]
	if !ina && !inb {
		return maps.Equal(a, b)
	}
	if len(a)-btoi(ina) != len(b)-btoi(inb) {
		return false
	}
	for k, va := range a {
		if vb, ok := b[k]; k != AnnotationDBSState && (!ok || va != vb) {
			return false
		}
	}
	return true
}

func btoi(b bool) int {
	if b {
		return 1
	}
	return 0
}

func terminal(p *v1.Pod) bool {
	return p.Status.Phase == v1.PodSucceeded || p.Status.Phase == v1.PodFailed
}

func sameOwner(a, b metav1.OwnerReference) bool {
	return a.UID == b.UID && a.Kind == b.Kind && a.Name == b.Name && a.APIVersion == b.APIVersion &&
		(a.Controller == nil) == (b.Controller == nil) && (a.Controller == nil || *a.Controller == *b.Controller)
}

// jobChanged: the Job's identity, creation, or an annotation Build reads
// (the plugins' own schedkit.io/queue is not one).
func jobChanged(o, c *batchv1.Job) bool {
	return o.UID != c.UID || !o.CreationTimestamp.Equal(&c.CreationTimestamp) ||
		!sameMeta(o.Annotations, c.Annotations) || hasPrefixed(o.Annotations) != hasPrefixed(c.Annotations)
}

// nodeChanged: the node's identity, cordon, rack or slots.
func nodeChanged(o, c *v1.Node) bool {
	return o.UID != c.UID || o.Spec.Unschedulable != c.Spec.Unschedulable || o.Labels[LabelRack] != c.Labels[LabelRack] ||
		!sameQuantity(o.Status.Allocatable, c.Status.Allocatable, ResourceMapSlot) ||
		!sameQuantity(o.Status.Allocatable, c.Status.Allocatable, ResourceReduceSlot)
}

func sameQuantity(a, b v1.ResourceList, name v1.ResourceName) bool {
	qa, oka := a[name]
	qb, okb := b[name]
	return oka == okb && qa.Cmp(qb) == 0
}
