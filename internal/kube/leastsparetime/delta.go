package leastsparetime

import (
	"slices"

	batchv1 "k8s.io/api/batch/v1"
	v1 "k8s.io/api/core/v1"

	"github.com/schedkit/schedkit"
	"github.com/schedkit/schedkit/internal/kube/podjob"
)

// Bindings without re-evaluating lss: the plugin's one acceleration.
//
// Every binding is a pod update, and every update used to make the view
// stale, so each binding cost a new evaluation over every pod (listing,
// translating, lss.New, Submit, Order, Queue): O(pods) per binding,
// O(pods²) per batch. Most of those updates change nothing lss's order
// of the waiting pods depends on:
//
//   - an unbound pod's update that leaves what podjob reads as it was
//     (kube-scheduler's own PodScheduled condition after a failed
//     attempt) changes nothing;
//   - the binding of a ready pod of a job with no finished task (Tavg
//     unknown: lss orders it by its deadline, whatever runs — a "static"
//     job) leaves every other job's picks as they were (no other job's
//     figures move; the slot capacity of formula (3) is the nodes'
//     allocatable) and the job's own the same less its first (after an
//     assignment lss's Queue is the rest of its earlier answer). The
//     view drops that first pick, the job's pods before the bound one
//     each move to the next (bindings complete out of rank order), and
//     the node's free slots lose the pod's;
//   - the kubelet's update of a bound pod of such a job (phase Running,
//     start time) changes only the running tasks' start times, which
//     lss reads only with a known Tavg; a bound pod of a job podjob does
//     not translate (unmanaged, or with an error) changes only its node's
//     free slots, on its binding.
//
// An added pod of a new job, or of a static Job it ranks last in, keeps
// lss's relative order of the pods the view has: Less and PreEnqueue
// (for a pod whose job the view has) go on using the view, while the
// gate and the turn loop, which need every pod's place, evaluate afresh
// (podAdded). So a scheduler that starts with many pods, whose queue
// calls Less and PreEnqueue as each arrives, does not evaluate once per
// pod.
//
// An update that changes nothing podjob reads (podjob.ChangeOf: a
// node's status report or taints, a Job's status, a failed attempt's
// condition) costs nothing at all: the view stays, and Plugin.taken
// counts them (a cluster's nodes report their status all the time; each
// report used to re-evaluate every pod, BenchmarkNodeStatusReport).
//
// Anything else — a job with a finished task, a pod the view has in
// another state than the update's old object — evaluates afresh, as do
// pod deletions, changes of what podjob reads of a Job or node (its
// annotations; slots, cordon, rack) and the clock moving past
// OrderResolution. TestDeltaEqualsEvaluate checks, on random states and
// random bindings, that the view after the deltas orders and gates every
// pod as a fresh evaluation; Plugin.fastBindings counts the bindings
// taken this way (the test requires it > 0); it checks additions the
// same way for Less and PreEnqueue.

// podDelta is one pod update taken by podUpdate, applied to the view by
// the next current.
type podDelta struct {
	old, new *v1.Pod
}

// take is the informer hook (queuesort.Config.Take): it takes the pod
// changes podUpdate takes, the updates of Jobs and nodes that change
// nothing podjob reads (a node's status report, a Job's status), and
// the additions of Jobs and nodes the view already lists (an informer's
// replay of its cache to a new handler).
func (pl *Plugin) take(old, new any) bool {
	if old != nil {
		switch c := podjob.ChangeOf(old, new); {
		case c == podjob.Unchanged:
			pl.taken.Add(1)
			return true
		case c == podjob.Changed:
			return false
		}
		return pl.podUpdate(old.(*v1.Pod), new.(*v1.Pod)) // bound or started
	}
	switch n := new.(type) {
	case *v1.Pod:
		return pl.podAdded(n)
	case *batchv1.Job:
		return pl.listed(func(v *view) bool { return v.Jobs[n.Namespace+"/"+n.Name] == n })
	case *v1.Node:
		return pl.listed(func(v *view) bool { return v.Nodes[n.Name] == n })
	}
	return false
}

// listed reports whether the view has an object (in).
func (pl *Plugin) listed(in func(*view) bool) bool {
	pl.mu.Lock()
	defer pl.mu.Unlock()
	return pl.view != nil && in(pl.view)
}

// podUpdate takes a binding or a bound pod's status update, which may
// leave lss's order as it was, for current to apply.
func (pl *Plugin) podUpdate(old, new *v1.Pod) bool {
	pl.pendMu.Lock()
	pl.pending = append(pl.pending, podDelta{old, new})
	pl.pendMu.Unlock()
	return true
}

// podAdded takes an added pod when lss's order of the pods the view has
// keeps its relative order with it: the view has no job of the pod's (a
// new job only gets picks of its own; a job with an error stays one;
// another scheduler's pod joins none), or
// the view's job of the pod's is a static batch/v1 Job without declared
// task counts (an addition could make those invalid) and the pod ranks
// after each of its pods (it only gets the job's last pick). Less and
// PreEnqueue may then use the view; the gate and the turn loop evaluate
// afresh. Bound, terminating and terminal pods are not taken.
func (pl *Plugin) podAdded(p *v1.Pod) bool {
	if p == nil || p.Spec.NodeName != "" || p.DeletionTimestamp != nil || p.Status.Phase == v1.PodSucceeded || p.Status.Phase == v1.PodFailed {
		return false
	}
	if ph := p.Labels[podjob.LabelPhase]; ph != "" && ph != "map" && ph != "reduce" {
		return false
	}
	id, managed := podjob.JobOf(p)
	pl.mu.Lock()
	v := pl.view
	if v != nil && v.Pods[p.UID] == p {
		pl.mu.Unlock()
		return true // listed already (an informer's replay)
	}
	keeps := v != nil && v.Err == nil
	if keeps && managed {
		if j := v.Snap.Job(id); j != nil {
			switch {
			case p.Spec.SchedulerName != pl.host.Profile:
				keeps = false // another scheduler's pod makes the job a mixed one
			case j.Kind != podjob.KindJob || j.Object == nil || j.Object.Annotations[podjob.AnnotationTasks] != "" || !staticJob(j):
				keeps = false
			default:
				last := j.Pods[len(j.Pods)-1]
				keeps = p.CreationTimestamp.After(last.CreationTimestamp.Time) ||
					(p.CreationTimestamp.Equal(&last.CreationTimestamp) && p.Name > last.Name)
			}
		}
	}
	pl.mu.Unlock()
	if keeps {
		pl.adds.Add(1)
	}
	return keeps
}

// applyDeltas applies the pending deltas to v (pl.mu held). It returns
// false, leaving v partly updated, when one needs a fresh evaluation.
func (pl *Plugin) applyDeltas(v *view) bool {
	pl.pendMu.Lock()
	ds := pl.pending
	pl.pending = nil
	pl.pendMu.Unlock()
	for _, d := range ds {
		if !pl.applyDelta(v, d) {
			return false
		}
	}
	return true
}

func (pl *Plugin) applyDelta(v *view, d podDelta) bool {
	uid := d.new.UID
	switch cur := v.Pods[uid]; {
	case cur == d.new:
		return true // the view was listed after the update
	case cur != d.old:
		return false
	}
	ref, managed := v.Snap.Pod(uid)
	if managed && !staticJob(ref.Job) {
		return false
	}
	if d.old.Spec.NodeName != "" {
		// The kubelet's update of a bound pod.
		v.Pods[uid] = d.new
		return true
	}
	if managed {
		if _, ok := v.turn[uid]; !ok {
			return false
		}
		v.bindReady(ref)
		pl.fastBindings.Add(1)
	}
	v.Pods[uid] = d.new
	if nf := v.nodeFree[d.new.Spec.NodeName]; nf != nil {
		req := podjob.SlotRequests(d.new)
		for k := range nf {
			before := int(nf[k])
			nf[k] = max(nf[k]-req[k], 0)
			v.free[k] += int(nf[k]) - before
		}
	}
	return true
}

// bindReady takes a bound ready pod out of v. A job's ready pods take
// its picks in rank order, so when a pod other than the job's first
// remaining one is bound, lss gives the job the same picks less its
// first one (the pass-1 pick of a fresh job; else its run in the pass
// just gets shorter), and the job's pods before the bound one each move
// to the next pick.
func (v *view) bindReady(ref podjob.PodRef) {
	var rem []*v1.Pod // the job's remaining ready pods, in rank order
	for _, p := range ref.Job.Ready(ref.Phase) {
		if _, ok := v.turn[p.UID]; ok {
			rem = append(rem, p)
		}
	}
	x := slices.IndexFunc(rem, func(p *v1.Pod) bool { return p.UID == ref.Job.Ready(ref.Phase)[ref.Rank].UID })
	first := v.turn[rem[0].UID]
	for j := 1; j <= x; j++ { // rem[j-1] takes rem[j]'s pick
		pos := v.turn[rem[j].UID]
		v.turn[rem[j-1].UID] = pos
		v.byKind[pos.kind][pos.rank] = rem[j-1]
		v.Seq[rem[j-1].UID] = v.Seq[rem[j].UID]
	}
	delete(v.turn, rem[x].UID)
	delete(v.Seq, rem[x].UID)
	// rem[0]'s first pick is the one that goes (byKind keeps a stale
	// entry there: an entry counts only where turn places its pod).
	i, _ := slices.BinarySearch(v.removed[first.kind], first.rank)
	v.removed[first.kind] = slices.Insert(v.removed[first.kind], i, first.rank)
}

// staticJob: the job has no finished task, so lss's Tavg is unknown.
func staticJob(j *podjob.Job) bool {
	for p := range j.Phases() {
		if j.Progress(schedkit.Phase(p)).Finished > 0 {
			return false
		}
	}
	return true
}
