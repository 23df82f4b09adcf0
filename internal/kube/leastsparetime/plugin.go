package leastsparetime

import (
	"context"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/wait"
	fwk "k8s.io/kube-scheduler/framework"
	frameworkruntime "k8s.io/kubernetes/pkg/scheduler/framework/runtime"
	"k8s.io/utils/clock"

	"github.com/schedkit/schedkit"
	"github.com/schedkit/schedkit/internal/kube/heldpods"
	"github.com/schedkit/schedkit/internal/kube/podjob"
	"github.com/schedkit/schedkit/internal/kube/queuesort"
	"github.com/schedkit/schedkit/lss"
)

// Name is the plugin's name in the registry and in profiles.
const Name = "LeastSpareTime"

// Plugin is the LeastSpareTime QueueSort, PreEnqueue, PreFilter,
// PostFilter and Reserve plugin. Its state: the view (one evaluation of
// lss and the bindings taken since, delta.go), the turn gate's turns
// (turn.go) and the kill rule's record (hopeless.go); the host lists the
// cluster and holds back pods (queuesort).
type Plugin struct {
	handle fwk.Handle
	clock  clock.PassiveClock
	args   Args
	// host lists the pods of the plugin's profile (non-terminal, and its
	// own succeeded pods: lss needs them for the average task time (2)),
	// Jobs and nodes, and reports pods held back and nodes refused.
	host *queuesort.Host

	// wake asks the turn loop to activate the pods whose turn came
	// (buffered, one pending request is enough).
	wake chan struct{}
	// activated counts the pods handed to Activate (turn.go).
	activated atomic.Uint64
	// pending are the pod updates podUpdate took, for the next current
	// to apply to the view (delta.go); fastBindings counts the bindings
	// applied that way.
	pendMu       sync.Mutex
	pending      []podDelta
	fastBindings atomic.Uint64
	// adds counts the pod additions that keep lss's relative order of
	// the pods the view has (delta.go); taken counts the updates taken
	// without a change to the view (a node's status report, a failed
	// attempt's condition).
	adds, taken atomic.Uint64

	mu    sync.Mutex
	view  *view
	kills killRule // the kill rule's record (hopeless.go)
	turns turns    // the turn gate's state (turn.go)
}

var (
	_ fwk.QueueSortPlugin  = (*Plugin)(nil)
	_ fwk.PreEnqueuePlugin = (*Plugin)(nil)
)

// New is the plugin factory, on the real clock.
func New(ctx context.Context, obj runtime.Object, h fwk.Handle) (fwk.Plugin, error) {
	return NewWithClock(clock.RealClock{})(ctx, obj, h)
}

// NewWithClock returns a plugin factory reading time from c (tests pass
// a fake clock).
func NewWithClock(c clock.PassiveClock) frameworkruntime.PluginFactory {
	return func(ctx context.Context, obj runtime.Object, h fwk.Handle) (fwk.Plugin, error) {
		args, err := decodeArgs(obj)
		if err != nil {
			return nil, err
		}
		pl := newPlugin(c, args)
		pl.handle = h
		pl.wake = make(chan struct{}, 1)
		pl.host, err = queuesort.NewHost(ctx, queuesort.Config{Name: Name, Handle: h, Take: pl.take, OnChange: pl.poke})
		if err != nil {
			return nil, err
		}
		go wait.UntilWithContext(ctx, func(ctx context.Context) {
			pl.ActOnHopeless(ctx)
			pl.host.Holds.Reactivate(ctx)
			pl.activateTurns(ctx, true)
		}, args.HopelessCheckInterval.Duration)
		go pl.turnLoop(ctx)
		return pl, nil
	}
}

// newPlugin returns a plugin without handle or host (tests add them).
func newPlugin(c clock.PassiveClock, args Args) *Plugin {
	registerMetrics()
	return &Plugin{clock: c, args: args, kills: newKillRule(), turns: newTurns()}
}

// Name returns Name.
func (pl *Plugin) Name() string { return Name }

// Footprint counts what the plugin keeps (queuesort.Footprint), and its
// own state: the turn gate's pods (parked, skipped, in a cycle), the
// hopeless jobs of the kill rule's record, the bindings taken and not
// yet applied to the view.
type Footprint struct {
	queuesort.Footprint
	Turns, Kills, Pending int
}

// Footprint returns the plugin's footprint.
func (pl *Plugin) Footprint() Footprint {
	pl.mu.Lock()
	var o *queuesort.Order
	if pl.view != nil {
		o = pl.view.Order
	}
	f := Footprint{Turns: pl.turns.len(), Kills: pl.kills.len()}
	pl.mu.Unlock()
	f.Footprint = pl.host.Footprint(o)
	pl.pendMu.Lock()
	f.Pending = len(pl.pending)
	pl.pendMu.Unlock()
	return f
}

// poke wakes the turn loop without blocking: the last view is stale, and
// a slot may have come free.
func (pl *Plugin) poke() {
	if pl.wake == nil {
		return
	}
	select {
	case pl.wake <- struct{}{}:
	default:
	}
}

// view is one evaluation of the lss order over one snapshot, and what
// the bindings taken since changed.
type view struct {
	*queuesort.Order
	gen  uint64
	adds uint64 // Plugin.adds when evaluated
	// turn is each ready pod's slot kind and place among the ready pods
	// of that kind in lss.Queue's order; byKind lists them in that order;
	// free is the free slots of each kind on the schedulable nodes.
	turn   map[types.UID]turnPos
	byKind [2][]*v1.Pod
	free   [2]int
	// What the bindings taken without an evaluation changed (delta.go):
	// removed holds, per kind, the ranks of the pods bound since, in
	// increasing order; nodeFree, each schedulable node's free map and
	// reduce slots.
	removed  [2][]int
	nodeFree map[string]*[2]float64
	// order is lss.Order at now; hopeless holds the jobs it would kill.
	order    []lss.JobStatus
	hopeless map[schedkit.JobID]lss.JobStatus
}

// current returns the view at the clock's now (truncated to
// OrderResolution), recomputing it when the cluster changed, time moved
// on, or pod is one the last view did not see.
func (pl *Plugin) current(pod *v1.Pod) *view { return pl.viewFor(pod, false) }

// viewFor is current; with relative, a view that misses only pods added
// since (delta.go: additions that keep lss's relative order of the pods
// it has) will do, as for Less between two pods it has.
// The view it returns is the plugin's until the next call: deltas
// change it under pl.mu, so read what they change (Pods, Seq, turn,
// byKind, free) under pl.mu too (viewLocked).
func (pl *Plugin) viewFor(pod *v1.Pod, relative bool) *view {
	pl.mu.Lock()
	defer pl.mu.Unlock()
	return pl.viewLocked(pod, relative)
}

// viewLocked is viewFor with pl.mu held.
func (pl *Plugin) viewLocked(pod *v1.Pod, relative bool) *view {
	now := pl.clock.Now().Truncate(pl.args.OrderResolution.Duration)
	gen, adds := pl.host.Gen(), pl.adds.Load()
	v := pl.view
	if v == nil || v.gen != gen || (!relative && v.adds != adds) || !v.Now.Equal(now) || (pod != nil && v.Pods[pod.UID] == nil) || !pl.applyDeltas(v) {
		v = pl.evaluate(now, gen, adds)
		pl.view = v
	}
	return v
}

// evaluate lists the cluster, translates it and asks lss.
func (pl *Plugin) evaluate(now time.Time, gen, adds uint64) *view {
	// Deltas taken before the listing are in it; later ones apply to it.
	pl.pendMu.Lock()
	pl.pending = nil
	pl.pendMu.Unlock()
	ctx := context.Background()
	v := &view{Order: pl.host.List(ctx, now), gen: gen, adds: adds, turn: map[types.UID]turnPos{},
		hopeless: map[schedkit.JobID]lss.JobStatus{}, nodeFree: map[string]*[2]float64{}}
	if v.Err == nil {
		v.Err = evaluateLSS(v, now)
		pl.host.Failed(ctx, v.Err)
	}
	if v.Err != nil {
		v.Seq, v.turn, v.byKind = map[types.UID]int{}, map[types.UID]turnPos{}, [2][]*v1.Pod{}
	}
	for i := range v.Snap.Cluster.Nodes() {
		n := v.Snap.Cluster.Node(i)
		a := n.Available()
		v.free[0] += int(a[0])
		v.free[1] += int(a[1])
		v.nodeFree[string(n.ID())] = &[2]float64{a[0], a[1]}
	}
	pl.turns.prune(v)
	return v
}

// evaluateLSS runs lss over v's snapshot at now: every job is submitted
// at its submission time (so a job whose deadline has passed is still
// queued and reported by the kill rule), then lss.Order and lss.Queue
// are read. It fills Seq, JobErr, turn, byKind, order and hopeless.
func evaluateLSS(v *view, now time.Time) error {
	snap := v.Snap
	sched, err := lss.New(lss.Config{Cluster: snap.Cluster})
	if err != nil {
		return err
	}
	// Submit in submission order (lss refuses a time before an earlier
	// one), each job at its own submission time.
	jobs := slices.Clone(snap.Jobs)
	slices.SortStableFunc(jobs, func(a, b *podjob.Job) int { return a.Submitted().Compare(b.Submitted()) })
	for _, j := range jobs {
		if err := sched.Submit(j.Submitted(), j); err != nil {
			v.JobErr[j.ID()] = err
		}
	}
	if v.order, err = sched.Order(now, nil); err != nil {
		return err
	}
	for _, st := range v.order {
		if st.Kill != lss.NoReason {
			v.hopeless[st.Job] = st
		}
	}
	picks, err := sched.Queue(now, nil)
	if err != nil {
		return err
	}
	of := func(pk lss.Pick) (schedkit.JobID, schedkit.Phase, int) { return pk.Job, pk.Phase, pk.Count }
	return v.Hand(Name, queuesort.PicksOf(picks, of), func(p *v1.Pod, ph schedkit.Phase) {
		k := kindOf(ph)
		v.turn[p.UID] = turnPos{kind: k, rank: len(v.byKind[k])}
		v.byKind[k] = append(v.byKind[k], p)
	})
}

// Less orders the scheduling queue: the ready pods of deadline jobs
// first, in the order lss.Queue hands out their tasks (least spare time,
// pass 1 before pass 2, maps before reduces); then every other pod
// (unmanaged pods, pods of jobs with errors or of hopeless jobs, pods of
// other profiles) by priority and queue time, as PrioritySort.
func (pl *Plugin) Less(a, b fwk.QueuedEntityInfo) bool {
	pl.mu.Lock()
	defer pl.mu.Unlock()
	return queuesort.Less(a, b, func(pa, pb *v1.Pod) *queuesort.Order {
		v := pl.viewLocked(pa, true)
		if v.Pods[pb.UID] == nil {
			v = pl.viewLocked(pb, true)
		}
		return v.Order
	})
}

// PreEnqueue holds back the pods of jobs that cannot be scheduled by
// deadline: a job whose annotations are missing or malformed, which lss
// refused, or which lss would kill. Unmanaged pods (and pods of other
// profiles) pass. Each pod held back gets a Warning event
// (heldpods.EventReasonHeldBack) and a log line with the message, once
// per message; one held retriably (its Job not yet in the cache) is
// re-activated every HopelessCheckInterval.
func (pl *Plugin) PreEnqueue(ctx context.Context, pod *v1.Pod) *fwk.Status {
	return pl.host.PreEnqueue(ctx, pod, pl.preEnqueue)
}

func (pl *Plugin) preEnqueue(pod *v1.Pod) (*fwk.Status, string) {
	pl.mu.Lock()
	defer pl.mu.Unlock()
	v := pl.viewLocked(nil, true)
	if v.Pods[pod.UID] == nil {
		// A pod added since: its job's answer, if the view has the job
		// (an addition that kept the order); else a fresh evaluation.
		if id, ok := podjob.JobOf(pod); !ok || v.Snap.Job(id) == nil || pod.Spec.SchedulerName != pl.host.Profile {
			v = pl.viewLocked(pod, false)
		} else {
			return v.jobStatus(id)
		}
	}
	st, reason, ref, ok := v.Status(Name, pod)
	if st != nil || !ok {
		return st, reason
	}
	return v.jobStatus(ref.Job.ID())
}

// jobStatus is PreEnqueue's answer for a pod of job id, which v has, and
// the reason of a hold.
func (v *view) jobStatus(id schedkit.JobID) (*fwk.Status, string) {
	if err := v.JobErr[id]; err != nil {
		return fwk.NewStatus(fwk.UnschedulableAndUnresolvable, Name+": "+err.Error()), heldpods.ReasonRefused
	}
	if st, ok := v.hopeless[id]; ok {
		return fwk.NewStatus(fwk.UnschedulableAndUnresolvable, Name+": "+Hopeless(st)), heldpods.ReasonHopeless
	}
	return nil, ""
}
