package deadlinebudget

import (
	"maps"
	"slices"
	"time"

	batchv1 "k8s.io/api/batch/v1"
	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/schedkit/schedkit/internal/kube/podjob"
)

// Which informer events change dbs's order.
//
// The order (dbs.Queue read into each ready pod's place) depends on the
// jobs, their pods' kinds and states (ready, running, finished), the
// Jobs' annotations and the nodes' slot capacity. Between two weight
// updates it does not depend on a pod's binding, as long as pods bind in
// that order: after heartbeats that start a prefix of dbs.Queue's
// answer, dbs.Queue returns the rest of it (dbs's
// TestQueueIsHeartbeatPrefix), and dbs.Scheduler.Update lets a host pass
// such starts on later, before the next Tick, which is the only reader
// of their start times and costs. So a binding (an unbound pod becoming
// bound, nothing else about it changing but its status) and a bound
// pod's status changes (start time, conditions) leave the evaluated order
// as it is and are passed on to dbs at the next Tick; every other event
// makes the next Less or PreEnqueue evaluate again.
//
// Deferred events are passed on sooner than the next Tick when that is
// cheap: the next Less or PreEnqueue evaluates again if the last
// evaluation was listed at least earlyFactor times its own duration ago,
// so that passing them on costs at most about 1/earlyFactor of a core.
// That keeps the order close to the cluster when kube-scheduler acts on
// an event before the plugin's handler has seen it (the informers' event
// handlers run concurrently: a node's arrival may send pods to the active
// queue while the plugin still orders by the nodes before it), and costs
// nothing at scale, where Ticks do it.

// earlyFactor is the default Plugin.earlyFactor.
const earlyFactor = 10

// passOnEarly reports whether deferred events have come since v was
// listed and v is old enough to list again (earlyFactor; 0: never before
// the next Tick).
func (pl *Plugin) passOnEarly(v *view) bool {
	return pl.earlyFactor > 0 && v.deferred != pl.deferred.Load() && time.Since(v.listed) >= time.Duration(pl.earlyFactor)*v.cost
}

// Stats counts the plugin's evaluations and the events it passed on
// lazily, for tests and diagnostics.
type Stats struct {
	// Evaluations is how many times the plugin listed the cluster and
	// brought dbs up to date (on an event that changes the order, at a
	// Tick after any event, or to pass deferred events on early).
	Evaluations uint64
	// Reorders is how many Ticks re-read dbs's order on the state dbs
	// already had, without listing the cluster (no event since the last
	// evaluation).
	Reorders uint64
	// Deferred is how many informer events (bindings, a bound pod's
	// status) left the order as it was, passed on at the next Tick or
	// sooner (passOnEarly).
	Deferred uint64
}

// Stats returns the counters.
func (pl *Plugin) Stats() Stats {
	return Stats{Evaluations: pl.evaluations.Load(), Reorders: pl.reorders.Load(), Deferred: pl.deferred.Load()}
}

// changed counts an informer event that changes the order.
func (pl *Plugin) changed() { pl.gen.Add(1) }

// take is the informer hook (podjob.NewListersWith): an update that
// leaves the order as it was (changesOrder) is counted as deferred and
// taken; every other event goes to changed.
func (pl *Plugin) take(old, cur any) bool {
	if old == nil || changesOrder(old, cur) {
		return false
	}
	pl.deferred.Add(1)
	return true
}

// changesOrder reports whether an update from old to cur can change
// dbs's order: anything but a pod's binding or a bound pod's status, a
// Job's status, or a node's status other than its slot capacity.
func changesOrder(old, cur any) bool {
	switch o := old.(type) {
	case *v1.Pod:
		c, ok := cur.(*v1.Pod)
		return !ok || podChangesOrder(o, c)
	case *batchv1.Job:
		c, ok := cur.(*batchv1.Job)
		return !ok || o.UID != c.UID || !o.CreationTimestamp.Equal(&c.CreationTimestamp) ||
			!maps.Equal(o.Annotations, c.Annotations) || !maps.Equal(o.Labels, c.Labels)
	case *v1.Node:
		c, ok := cur.(*v1.Node)
		return !ok || o.Spec.Unschedulable != c.Spec.Unschedulable || !maps.Equal(o.Labels, c.Labels) ||
			!sameQuantity(o.Status.Allocatable, c.Status.Allocatable, podjob.ResourceMapSlot) ||
			!sameQuantity(o.Status.Allocatable, c.Status.Allocatable, podjob.ResourceReduceSlot)
	}
	return true
}

// podChangesOrder is changesOrder for pods: everything podjob reads of
// a pod but its binding, start time and non-terminal phase.
func podChangesOrder(o, c *v1.Pod) bool {
	switch {
	case o.UID != c.UID, !o.CreationTimestamp.Equal(&c.CreationTimestamp),
		(o.DeletionTimestamp == nil) != (c.DeletionTimestamp == nil),
		!maps.Equal(o.Labels, c.Labels), !maps.Equal(o.Annotations, c.Annotations),
		!slices.EqualFunc(o.OwnerReferences, c.OwnerReferences, sameOwner),
		len(o.Spec.SchedulingGates) != len(c.Spec.SchedulingGates),
		terminal(o) || terminal(c),
		o.Spec.NodeName != "" && o.Spec.NodeName != c.Spec.NodeName, // unbound or moved: not a binding
		o.Spec.NodeName == "" && c.Spec.NodeName == "" && o.Spec.SchedulerName != c.Spec.SchedulerName:
		return true
	}
	return false
}

// terminal reports a pod that finished or failed.
func terminal(p *v1.Pod) bool {
	return p.Status.Phase == v1.PodSucceeded || p.Status.Phase == v1.PodFailed
}

func sameOwner(a, b metav1.OwnerReference) bool {
	return a.UID == b.UID && a.Kind == b.Kind && a.Name == b.Name && a.APIVersion == b.APIVersion &&
		(a.Controller == nil) == (b.Controller == nil) && (a.Controller == nil || *a.Controller == *b.Controller)
}

func sameQuantity(a, b v1.ResourceList, name v1.ResourceName) bool {
	qa, oka := a[name]
	qb, okb := b[name]
	return oka == okb && qa.Cmp(qb) == 0
}
