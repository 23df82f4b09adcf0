package leastsparetime

import (
	"context"
	"fmt"

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/klog/v2"
	fwk "k8s.io/kube-scheduler/framework"
	"k8s.io/kubernetes/pkg/scheduler/framework"

	"github.com/schedkit/schedkit"
)

// The turn gate: lss hands the free slots of each kind to the prefix of
// its order (lss.Queue) of that kind. QueueSort alone cannot guarantee
// it: a pod kube-scheduler refused earlier waits out a per-pod backoff,
// and when a slot frees the pods come back one by one as their backoffs
// end (kube-scheduler even pops from its backoff queue, by backoff
// expiry, when the active queue is empty), so a pod of another job could
// take the slot lss gives to its pick. So:
//
//   - PreFilter refuses a ready pod of a deadline job while the pods
//     before it in lss's order of its slot kind (less the skipped ones,
//     below) are as many as the free slots of that kind or more: "not
//     its turn". The count and the free slots come from one view, so no
//     order of informer events lets a later pod through.
//   - A pod the gate refused is parked: the plugin's queueing hint keeps
//     every cluster event from re-queueing it, and when its turn comes
//     (a slot frees, a pick is skipped, the order moves on with time) the
//     turn loop hands it to Activate, which moves it to the active queue
//     past its backoff.
//   - Skipping: a pod whose turn it is but that no node takes (affinity,
//     taints, other resources) must not hold the slots back from the rest
//     for ever. A pod that passed the gate and then failed the cycle
//     (PostFilter: no node fits; Unreserve: a later phase failed), or
//     that another PreFilter refused before the gate ran, is skipped: it
//     does not count before the pods behind it until its next attempt,
//     where it takes its place again. This is the paper's heartbeat,
//     which gives a free slot to the next task in the order when one
//     does not fit.
//
// Pods that are not ready pods of deadline jobs (unmanaged pods, pods of
// jobs held back by PreEnqueue) pass the gate.

// turnPos is a ready pod's slot kind and place among the ready pods of
// that kind in lss's order.
type turnPos struct {
	kind int // 0 map slot, 1 reduce slot
	rank int
}

// kindOf is the slot kind of a task of phase p (podjob: map pods request
// a map slot, reduce pods a reduce slot).
func kindOf(p schedkit.Phase) int {
	if p == schedkit.PhaseReduce {
		return 1
	}
	return 0
}

var kindName = [2]string{"map", "reduce"}

// turns is the gate's state, guarded by Plugin.mu.
type turns struct {
	// skipped: pods whose turn came and that no node took (see above).
	skipped map[types.UID]bool
	// parked: pods the gate refused, not yet activated.
	parked map[types.UID]*v1.Pod
	// passed: the gate's answer in the pod's current cycle, read by
	// PostFilter (absent: the gate did not run).
	passed map[types.UID]bool
}

func newTurns() turns {
	return turns{skipped: map[types.UID]bool{}, parked: map[types.UID]*v1.Pod{}, passed: map[types.UID]bool{}}
}

// prune forgets skipped pods that are no longer ready in v (bound,
// deleted, held back): their entries would only grow.
func (t *turns) prune(v *view) {
	for uid := range t.skipped {
		if _, ok := v.turn[uid]; !ok {
			delete(t.skipped, uid)
		}
	}
}

// ahead is the number of pods before pos in lss's order of its kind that
// are not skipped.
func (t *turns) ahead(v *view, pos turnPos) int {
	n := pos.rank
	for uid := range t.skipped {
		if q, ok := v.turn[uid]; ok && q.kind == pos.kind && q.rank < pos.rank {
			n--
		}
	}
	return n
}

var (
	_ fwk.PreFilterPlugin   = (*Plugin)(nil)
	_ fwk.PostFilterPlugin  = (*Plugin)(nil)
	_ fwk.ReservePlugin     = (*Plugin)(nil)
	_ fwk.EnqueueExtensions = (*Plugin)(nil)
)

// PreFilter is the turn gate: it refuses, UnschedulableAndUnresolvable
// (no preemption can give the pod a turn), a ready pod of a deadline job
// whose unskipped predecessors in lss's order of its slot kind are at
// least the free slots of that kind.
func (pl *Plugin) PreFilter(_ context.Context, _ fwk.CycleState, pod *v1.Pod, _ []fwk.NodeInfo) (*fwk.PreFilterResult, *fwk.Status) {
	if pod == nil {
		return nil, fwk.NewStatus(fwk.UnschedulableAndUnresolvable, Name+": nil pod")
	}
	v := pl.current(pod)
	pl.mu.Lock()
	defer pl.mu.Unlock()
	t := &pl.turns
	delete(t.skipped, pod.UID) // its attempt: it takes its place again
	pos, ok := v.turn[pod.UID]
	if !ok {
		delete(t.passed, pod.UID)
		return nil, nil
	}
	ahead, free := t.ahead(v, pos), v.free[pos.kind]
	if ahead < free {
		t.passed[pod.UID] = true
		delete(t.parked, pod.UID)
		return nil, nil
	}
	t.passed[pod.UID] = false
	t.parked[pod.UID] = pod
	return nil, fwk.NewStatus(fwk.UnschedulableAndUnresolvable, fmt.Sprintf(
		"%s: not its turn: %d %s pods come before it in lss's order and %d %s slots are free", Name, ahead, kindName[pos.kind], free, kindName[pos.kind]))
}

// PreFilterExtensions returns nil: the gate does not depend on other
// pods placed in the same cycle (preemption's what-ifs).
func (pl *Plugin) PreFilterExtensions() fwk.PreFilterExtensions { return nil }

// PostFilter runs when no node took the pod. If the gate let it through
// (or did not run: another PreFilter refused it first), the pod is
// skipped until its next attempt and the next pod gets its turn. It
// never makes the pod schedulable.
func (pl *Plugin) PostFilter(_ context.Context, _ fwk.CycleState, pod *v1.Pod, _ fwk.NodeToStatusReader) (*fwk.PostFilterResult, *fwk.Status) {
	if pod == nil {
		return nil, fwk.NewStatus(fwk.Unschedulable)
	}
	pl.mu.Lock()
	passed, ran := pl.turns.passed[pod.UID]
	delete(pl.turns.passed, pod.UID)
	if !ran || passed {
		pl.turns.skipped[pod.UID] = true
	}
	pl.mu.Unlock()
	pl.poke()
	return nil, fwk.NewStatus(fwk.Unschedulable)
}

// Reserve: the pod took a slot; it is no longer skipped or parked.
func (pl *Plugin) Reserve(_ context.Context, _ fwk.CycleState, pod *v1.Pod, _ string) *fwk.Status {
	if pod == nil {
		return nil
	}
	pl.mu.Lock()
	delete(pl.turns.passed, pod.UID)
	delete(pl.turns.skipped, pod.UID)
	delete(pl.turns.parked, pod.UID)
	pl.mu.Unlock()
	return nil
}

// Unreserve: a later phase (permit, binding) failed; the pod is skipped
// until its next attempt, so the slot goes to the next pod.
func (pl *Plugin) Unreserve(_ context.Context, _ fwk.CycleState, pod *v1.Pod, _ string) {
	if pod == nil {
		return
	}
	pl.mu.Lock()
	pl.turns.skipped[pod.UID] = true
	pl.mu.Unlock()
	pl.poke()
}

// EventsToRegister: every cluster event kube-scheduler knows, with a
// hint that re-queues the pods the plugin rejected except the parked
// ones (the turn loop activates those when their turn comes; re-queueing
// every parked pod on every event would only have the gate refuse it
// again). The pods PreEnqueue holds back are re-queued as before.
func (pl *Plugin) EventsToRegister(context.Context) ([]fwk.ClusterEventWithHint, error) {
	events := framework.UnrollWildCardResource()
	for i := range events {
		events[i].QueueingHintFn = pl.hint
	}
	return events, nil
}

// hint is the queueing hint of EventsToRegister.
func (pl *Plugin) hint(_ klog.Logger, pod *v1.Pod, _, _ any) (fwk.QueueingHint, error) {
	if pod == nil {
		return fwk.Queue, nil
	}
	pl.mu.Lock()
	_, parked := pl.turns.parked[pod.UID]
	pl.mu.Unlock()
	if parked {
		return fwk.QueueSkip, nil
	}
	return fwk.Queue, nil
}

// turnLoop activates the pods whose turn came each time the informers
// report a change or a pick is skipped, until ctx ends.
func (pl *Plugin) turnLoop(ctx context.Context) {
	for {
		select {
		case <-ctx.Done():
			return
		case <-pl.wake:
			pl.activateTurns(ctx, false)
		}
	}
}

// activateTurns hands to Activate the parked pods the gate would now let
// through: for each kind, the parked ones among the first unskipped pods
// of lss's order, as many as there are free slots. With all, also the
// parked pods that are no longer ready pods of a deadline job (held
// back, bound elsewhere, gone), so PreEnqueue sees them again; the
// plugin does that every HopelessCheckInterval. It returns the number of
// pods activated.
func (pl *Plugin) activateTurns(ctx context.Context, all bool) int {
	v := pl.current(nil)
	pl.mu.Lock()
	t := &pl.turns
	var act map[string]*v1.Pod
	add := func(uid types.UID, p *v1.Pod) {
		if act == nil {
			act = map[string]*v1.Pod{}
		}
		act[p.Namespace+"/"+p.Name] = p
		delete(t.parked, uid)
	}
	if len(t.parked) > 0 {
		for k := range v.byKind {
			n := 0
			for _, p := range v.byKind[k] {
				if n >= v.free[k] {
					break
				}
				if t.skipped[p.UID] {
					continue
				}
				n++
				if _, ok := t.parked[p.UID]; ok {
					add(p.UID, p)
				}
			}
		}
		if all {
			for uid, p := range t.parked {
				if _, ok := v.turn[uid]; !ok {
					add(uid, p)
				}
			}
		}
	}
	pl.mu.Unlock()
	if len(act) == 0 || pl.handle == nil {
		return 0
	}
	pl.handle.Activate(klog.FromContext(ctx), act)
	pl.activated.Add(uint64(len(act)))
	return len(act)
}
