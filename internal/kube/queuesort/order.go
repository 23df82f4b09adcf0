package queuesort

import (
	"errors"
	"fmt"
	"iter"
	"time"

	batchv1 "k8s.io/api/batch/v1"
	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/types"
	fwk "k8s.io/kube-scheduler/framework"

	"github.com/schedkit/schedkit"
	"github.com/schedkit/schedkit/internal/kube/heldpods"
	"github.com/schedkit/schedkit/internal/kube/podjob"
)

// Order is one evaluation of a plugin's algorithm over one snapshot of
// the cluster.
type Order struct {
	// Now is the instant the snapshot was built for.
	Now  time.Time
	Snap *podjob.Snapshot
	// Pods holds every pod listed, by UID, as listed; Nodes every node,
	// by name; Jobs every batch/v1 Job looked up, by "namespace/name".
	Pods  map[types.UID]*v1.Pod
	Nodes map[string]*v1.Node
	Jobs  map[string]*batchv1.Job
	// Seq is each ready pod's place in the algorithm's hand-out order.
	Seq map[types.UID]int
	// JobErr holds the jobs the algorithm refused (e.g. a deadline before
	// submission).
	JobErr map[schedkit.JobID]error
	// Err is set when the algorithm could not evaluate at all; every
	// managed pod then sorts as an unmanaged one.
	Err error
}

// Pick is one run of an algorithm's hand-out order: Count tasks of Job's
// phase Phase.
type Pick struct {
	Job   schedkit.JobID
	Phase schedkit.Phase
	Count int
}

// PicksOf adapts an algorithm's hand-out order (lss.Pick, dbs.Pick) to
// Picks, by the job, phase and count of each.
func PicksOf[P any](ps []P, of func(P) (schedkit.JobID, schedkit.Phase, int)) iter.Seq[Pick] {
	return func(yield func(Pick) bool) {
		for _, p := range ps {
			job, phase, n := of(p)
			if !yield(Pick{Job: job, Phase: phase, Count: n}) {
				return
			}
		}
	}
}

// Hand places the ready pods in the order of picks: each pick takes the
// job's next ready pods of its phase in rank order (creation time, then
// name). place, if not nil, is told each pod as it is placed, with its
// phase. It fails if a pick asks for more pods than the job has ready.
func (o *Order) Hand(name string, picks iter.Seq[Pick], place func(p *v1.Pod, phase schedkit.Phase)) error {
	next := map[schedkit.JobID]*[2]int{}
	n := len(o.Seq)
	for pk := range picks {
		j := o.Snap.Job(pk.Job)
		at := next[pk.Job]
		if at == nil {
			at = new([2]int)
			next[pk.Job] = at
		}
		if j == nil {
			return fmt.Errorf("%s: the algorithm picked job %s, which the snapshot does not have", name, pk.Job)
		}
		ready := j.Ready(pk.Phase)
		for range pk.Count {
			if at[pk.Phase] >= len(ready) {
				return fmt.Errorf("%s: the algorithm picked more %s tasks of %s than it has ready pods", name, pk.Phase, pk.Job)
			}
			p := ready[at[pk.Phase]]
			o.Seq[p.UID] = n
			if place != nil {
				place(p, pk.Phase)
			}
			at[pk.Phase]++
			n++
		}
	}
	return nil
}

// Status is PreEnqueue's answer common to both plugins for pod: a pod
// whose job could not be translated is held back (UnschedulableAndUnresolvable,
// naming the object and the annotation, reason heldpods.ReasonInvalid;
// retriably, Unschedulable, reason heldpods.ReasonJobNotCached, when its
// Job is not yet in the cache), and so is a pod of a job the algorithm
// refused (heldpods.ReasonRefused). ok is false when the pod is not
// managed (it passes), ref places it otherwise; st is nil for a managed
// pod the plugin decides on; reason labels a hold (heldpods.HeldBack).
func (o *Order) Status(name string, pod *v1.Pod) (st *fwk.Status, reason string, ref podjob.PodRef, ok bool) {
	if err := o.Snap.PodError(pod.UID); err != nil {
		if errors.Is(err, podjob.ErrNotFound) {
			return fwk.NewStatus(fwk.Unschedulable, name+": "+err.Error()), heldpods.ReasonJobNotCached, ref, true
		}
		return fwk.NewStatus(fwk.UnschedulableAndUnresolvable, name+": "+err.Error()), heldpods.ReasonInvalid, ref, true
	}
	ref, ok = o.Snap.Pod(pod.UID)
	if !ok {
		return nil, "", ref, false
	}
	if err := o.JobErr[ref.Job.ID()]; err != nil {
		return fwk.NewStatus(fwk.UnschedulableAndUnresolvable, name+": "+err.Error()), heldpods.ReasonRefused, ref, true
	}
	return nil, "", ref, true
}

// Less orders the scheduling queue: the ready pods of managed jobs
// first, by their place in the Order that order returns for the two
// pods; then every other pod (unmanaged pods, pods of jobs with errors)
// by priority and queue time, as kube-scheduler's PrioritySort. order
// gets both pods (an Order that has at least the first).
func Less(a, b fwk.QueuedEntityInfo, order func(pa, pb *v1.Pod) *Order) bool {
	pa, pb := QueuedPod(a), QueuedPod(b)
	if pa == nil || pb == nil {
		return PriorityLess(a, b)
	}
	o := order(pa, pb)
	sa, oka := o.Seq[pa.UID]
	sb, okb := o.Seq[pb.UID]
	switch {
	case oka && okb:
		return sa < sb
	case oka != okb:
		return oka
	}
	return PriorityLess(a, b)
}

// QueuedPod returns the pod of a scheduling-queue entity, nil for pod
// groups (kube-scheduler passes both to a QueueSort plugin's Less).
func QueuedPod(e fwk.QueuedEntityInfo) *v1.Pod {
	pi, ok := e.(interface{ GetPodInfo() fwk.PodInfo })
	if !ok || pi.GetPodInfo() == nil {
		return nil
	}
	return pi.GetPodInfo().GetPod()
}

// PriorityLess is kube-scheduler's default queue order (PrioritySort):
// higher priority first, then earlier queue timestamp. The plugins order
// every pod they do not manage by it.
func PriorityLess(a, b fwk.QueuedEntityInfo) bool {
	p1, p2 := a.GetPriority(), b.GetPriority()
	return p1 > p2 || (p1 == p2 && a.GetTimestamp().Before(b.GetTimestamp()))
}
