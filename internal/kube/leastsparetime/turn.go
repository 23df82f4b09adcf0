package leastsparetime

import (
	"context"
	"fmt"
	"maps"
	"slices"

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/klog/v2"
	fwk "k8s.io/kube-scheduler/framework"
	"k8s.io/kubernetes/pkg/scheduler/framework"

	"github.com/schedkit/schedkit"
	"github.com/schedkit/schedkit/internal/kube/heldpods"
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
//     for ever. A pod that passed the gate and then found no node
//     (PostFilter), or that another PreFilter refused before the gate
//     ran, is skipped while the scheduler's nodes stay as they were when
//     it failed (the largest NodeInfo generation, which every change of a
//     node or of the pods on it raises): it does not count before the
//     pods behind it, which the turn loop activates. This is the paper's
//     heartbeat, which gives a free slot to the next task in the order
//     when one does not fit. Once the nodes change, the skip is stale:
//     the pod counts again, and the first gate that finds it stale
//     activates it, so it is tried again before the pods behind it (a
//     node that was not ready yet must not let a later pod, whose
//     backoff happens to end first, take the slot). A pod whose binding
//     failed (Unreserve) is stale at once.
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
	// skipped: pods whose turn came and that no node took, with the node
	// generation they failed at (see above; staleSkip: stale at once).
	skipped map[types.UID]int64
	// parked: pods the gate refused, not yet activated.
	parked map[types.UID]*v1.Pod
	// passed: the gate's answer in the pod's current cycle and the node
	// generation it saw, read by PostFilter (absent: the gate did not run).
	passed map[types.UID]gateRun
}

type gateRun struct {
	allowed bool
	gen     int64
}

// staleSkip marks a skip that no node generation matches.
const staleSkip = -1

func newTurns() turns {
	return turns{skipped: map[types.UID]int64{}, parked: map[types.UID]*v1.Pod{}, passed: map[types.UID]gateRun{}}
}

// nodeGeneration is the largest generation of the scheduler's nodes:
// it moves with every change of a node or of the pods on one.
func nodeGeneration(nodes []fwk.NodeInfo) int64 {
	var g int64
	for _, n := range nodes {
		if n != nil {
			g = max(g, n.GetGeneration())
		}
	}
	return g
}

// prune forgets skipped pods that are no longer ready in v (bound,
// deleted, held back), and the gate's answers for pods v does not list
// (deleted in their cycle): their entries would only grow. Parked pods
// are handed back by the turn loop (activateTurns).
func (t *turns) prune(v *view) {
	for uid := range t.skipped {
		if _, ok := v.turn[uid]; !ok {
			delete(t.skipped, uid)
		}
	}
	for uid := range t.passed {
		if v.Pods[uid] == nil {
			delete(t.passed, uid)
		}
	}
}

// len is how many pods the gate keeps.
func (t *turns) len() int { return len(t.skipped) + len(t.parked) + len(t.passed) }

// ahead is the number of pods before pos in lss's order of its kind that
// are not skipped at node generation gen. Skips of another generation
// are stale: they are dropped and their pods returned, to be activated.
func (t *turns) ahead(v *view, pos turnPos, gen int64) (int, []*v1.Pod) {
	removed := v.removed[pos.kind]
	n, _ := slices.BinarySearch(removed, pos.rank)
	n = pos.rank - n // the pods before it bound since the evaluation
	var stale []*v1.Pod
	for uid, g := range t.skipped {
		q, ok := v.turn[uid]
		if !ok || q.kind != pos.kind || q.rank >= pos.rank {
			continue
		}
		if g == gen {
			n--
			continue
		}
		delete(t.skipped, uid)
		stale = append(stale, v.byKind[q.kind][q.rank])
	}
	return n, stale
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
func (pl *Plugin) PreFilter(ctx context.Context, _ fwk.CycleState, pod *v1.Pod, nodes []fwk.NodeInfo) (*fwk.PreFilterResult, *fwk.Status) {
	if pod == nil {
		return nil, fwk.NewStatus(fwk.UnschedulableAndUnresolvable, Name+": nil pod")
	}
	v := pl.current(pod)
	gen := nodeGeneration(nodes)
	st, stale := pl.gate(v, pod, gen)
	pl.activate(ctx, stale)
	return nil, st
}

// gate is PreFilter's decision at node generation gen, and the skipped
// pods before pod whose skip it found stale.
func (pl *Plugin) gate(v *view, pod *v1.Pod, gen int64) (*fwk.Status, []*v1.Pod) {
	pl.mu.Lock()
	defer pl.mu.Unlock()
	t := &pl.turns
	delete(t.skipped, pod.UID) // its attempt: it takes its place again
	pos, ok := v.turn[pod.UID]
	if !ok {
		t.passed[pod.UID] = gateRun{allowed: true, gen: gen}
		return nil, nil
	}
	ahead, stale := t.ahead(v, pos, gen)
	free := v.free[pos.kind]
	if ahead < free {
		t.passed[pod.UID] = gateRun{allowed: true, gen: gen}
		delete(t.parked, pod.UID)
		return nil, stale
	}
	t.passed[pod.UID] = gateRun{gen: gen}
	t.parked[pod.UID] = pod
	heldpods.CountHeld(Name, heldpods.ReasonNotItsTurn)
	return fwk.NewStatus(fwk.UnschedulableAndUnresolvable, fmt.Sprintf(
		"%s: not its turn: %d %s pods come before it in lss's order%s and %d %s slots are free",
		Name, ahead, kindName[pos.kind], t.first(v, pos, gen), free, kindName[pos.kind])), stale
}

// first names the first pod before pos in lss's order of its kind that
// is not skipped at node generation gen (the one whose turn it is), as
// " (the first: ns/name of job)"; "" when there is none.
func (t *turns) first(v *view, pos turnPos, gen int64) string {
	for i, p := range v.byKind[pos.kind][:pos.rank] {
		if q, ok := v.turn[p.UID]; !ok || q.rank != i {
			continue // bound since the evaluation (delta.go)
		}
		if g, ok := t.skipped[p.UID]; ok && g == gen {
			continue
		}
		job := ""
		if ref, ok := v.Snap.Pod(p.UID); ok {
			job = " of " + string(ref.Job.ID())
		}
		return fmt.Sprintf(" (the first: %s/%s%s)", p.Namespace, p.Name, job)
	}
	return ""
}

// SignPod adds nothing to a pod's signature, so kube-scheduler keeps
// batching alike pods (its node hints): the gate decides per pod in
// PreFilter, which runs in every cycle before any hint is used, and it
// makes no node more or less feasible than another.
func (pl *Plugin) SignPod(context.Context, *v1.Pod) ([]fwk.SignFragment, *fwk.Status) {
	return nil, nil
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
	run, ran := pl.turns.passed[pod.UID]
	delete(pl.turns.passed, pod.UID)
	pl.mu.Unlock()
	if !ran {
		// Another PreFilter refused it first: the scheduler's nodes now
		// (PostFilter runs in the scheduling cycle, on its snapshot).
		run.allowed, run.gen = true, staleSkip
		if pl.handle != nil {
			if nodes, err := pl.handle.SnapshotSharedLister().NodeInfos().List(); err == nil {
				run.gen = nodeGeneration(nodes)
			}
		}
	}
	if run.allowed {
		pl.mu.Lock()
		pl.turns.skipped[pod.UID] = run.gen
		pl.mu.Unlock()
	}
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

// Unreserve: a later phase (permit, binding) failed; the pod's skip is
// stale at once, so the next gate activates it (it does not wait out
// its backoff while the pods behind it wait for it).
func (pl *Plugin) Unreserve(_ context.Context, _ fwk.CycleState, pod *v1.Pod, _ string) {
	if pod == nil {
		return
	}
	pl.mu.Lock()
	pl.turns.skipped[pod.UID] = staleSkip
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
// of lss's order, as many as there are free slots (and the pods among
// them whose binding failed). With all, also the
// parked pods that are no longer ready pods of a deadline job (held
// back, bound elsewhere, gone), so PreEnqueue sees them again; the
// plugin does that every HopelessCheckInterval. It returns the number of
// pods activated.
func (pl *Plugin) activateTurns(ctx context.Context, all bool) int {
	pl.mu.Lock()
	idle := len(pl.turns.parked) == 0 && len(pl.turns.skipped) == 0
	pl.mu.Unlock()
	if idle {
		return 0 // nothing waits for a turn: no evaluation
	}
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
			for i, p := range v.byKind[k] {
				if n >= v.free[k] {
					break
				}
				if pos, ok := v.turn[p.UID]; !ok || pos.rank != i {
					continue // a pick gone since the evaluation (delta.go)
				}
				if g, ok := t.skipped[p.UID]; ok {
					if g != staleSkip {
						continue
					}
					// Its binding failed: retry it in its place.
					delete(t.skipped, p.UID)
					add(p.UID, p)
					n++
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
	return pl.activate(ctx, slices.Collect(maps.Values(act)))
}

// activate hands pods to the scheduling queue's Activate (never with
// pl.mu held: the queue calls Less, which takes it) and returns how many.
func (pl *Plugin) activate(ctx context.Context, pods []*v1.Pod) int {
	if len(pods) == 0 || pl.handle == nil {
		return 0
	}
	m := make(map[string]*v1.Pod, len(pods))
	for _, p := range pods {
		m[p.Namespace+"/"+p.Name] = p
	}
	pl.handle.Activate(klog.FromContext(ctx), m)
	pl.activated.Add(uint64(len(m)))
	return len(m)
}
