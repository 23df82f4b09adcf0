package leastsparetime

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	batchv1 "k8s.io/api/batch/v1"
	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/klog/v2"
	fwk "k8s.io/kube-scheduler/framework"
	frameworkruntime "k8s.io/kubernetes/pkg/scheduler/framework/runtime"
	"k8s.io/utils/clock"

	"github.com/schedkit/schedkit"
	"github.com/schedkit/schedkit/internal/kube/heldpods"
	"github.com/schedkit/schedkit/internal/kube/podjob"
	"github.com/schedkit/schedkit/lss"
)

// Name is the plugin's name in the registry and in profiles.
const Name = "LeastSpareTime"

// Args are the plugin's arguments (pluginConfig args in a
// KubeSchedulerConfiguration).
type Args struct {
	// DeleteHopelessJobs deletes (propagation Background) a Job that lss
	// would kill — its deadline passed, or Spare + Tavg < 0 — and, for a
	// pod group, its unfinished pods. Off by default: hopeless jobs then
	// only get a Warning event and their pods are held back.
	DeleteHopelessJobs bool `json:"deleteHopelessJobs,omitempty"`
	// HopelessCheckInterval is how often hopeless jobs are looked for
	// (the kill rule runs on every lss heartbeat; here on a timer).
	// Default 1s.
	HopelessCheckInterval metav1.Duration `json:"hopelessCheckInterval,omitempty"`
	// OrderResolution is how long one evaluation of the lss order is
	// reused when nothing changes: spare times are evaluated at now
	// truncated to it. Default 1s.
	OrderResolution metav1.Duration `json:"orderResolution,omitempty"`
}

// Defaults for Args.
const (
	DefaultHopelessCheckInterval = time.Second
	DefaultOrderResolution       = time.Second
)

// decodeArgs reads and checks the plugin's args, filling defaults.
func decodeArgs(obj runtime.Object) (Args, error) {
	var a Args
	if err := frameworkruntime.DecodeInto(obj, &a); err != nil {
		return a, fmt.Errorf("%s: decoding args: %w", Name, err)
	}
	if a.HopelessCheckInterval.Duration < 0 {
		return a, fmt.Errorf("%s: hopelessCheckInterval %v is negative", Name, a.HopelessCheckInterval.Duration)
	}
	if a.OrderResolution.Duration < 0 {
		return a, fmt.Errorf("%s: orderResolution %v is negative", Name, a.OrderResolution.Duration)
	}
	if a.HopelessCheckInterval.Duration == 0 {
		a.HopelessCheckInterval.Duration = DefaultHopelessCheckInterval
	}
	if a.OrderResolution.Duration == 0 {
		a.OrderResolution.Duration = DefaultOrderResolution
	}
	return a, nil
}

// Plugin is the LeastSpareTime QueueSort and PreEnqueue plugin.
type Plugin struct {
	handle fwk.Handle
	clock  clock.PassiveClock
	args   Args
	// lis holds the scheduler's pods (non-terminal), the plugin's own
	// succeeded pods (lss needs them for the average task time (2)),
	// Jobs and nodes.
	lis podjob.Listers

	gen atomic.Uint64 // bumped by every pod, Job and node event
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
	// the pods the view has (delta.go).
	adds atomic.Uint64

	// holds reports the pods PreEnqueue holds back and re-activates the
	// retriable ones every HopelessCheckInterval.
	holds *heldpods.Tracker

	mu       sync.Mutex
	view     *view
	reported map[schedkit.JobID]bool // hopeless jobs already acted on
	turns    turns                   // the turn gate's state (turn.go)
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
		pl := &Plugin{
			handle:   h,
			clock:    c,
			args:     args,
			reported: map[schedkit.JobID]bool{},
			turns:    newTurns(),
			holds:    heldpods.New(Name, h),
			wake:     make(chan struct{}, 1),
		}
		l, err := podjob.NewListersWith(ctx, h, pl.changed, pl.take)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", Name, err)
		}
		pl.lis = l
		go wait.UntilWithContext(ctx, func(ctx context.Context) {
			pl.ActOnHopeless(ctx)
			pl.holds.Reactivate(ctx)
			pl.activateTurns(ctx, true)
		}, args.HopelessCheckInterval.Duration)
		go pl.turnLoop(ctx)
		return pl, nil
	}
}

// Name returns Name.
func (pl *Plugin) Name() string { return Name }

// changed is the informers' callback: the last view is stale, and a slot
// may have come free (the turn loop looks).
func (pl *Plugin) changed() {
	pl.gen.Add(1)
	pl.poke()
}

// poke wakes the turn loop without blocking.
func (pl *Plugin) poke() {
	if pl.wake == nil {
		return
	}
	select {
	case pl.wake <- struct{}{}:
	default:
	}
}

// view is one evaluation of the lss order over one snapshot.
type view struct {
	gen  uint64
	adds uint64 // Plugin.adds when evaluated
	now  time.Time
	snap *podjob.Snapshot
	// known holds every listed pod, as the view has it.
	known map[types.UID]*v1.Pod
	// seq is each ready pod's place in lss.Queue's hand-out order.
	seq map[types.UID]int
	// turn is each ready pod's slot kind and place among the ready pods
	// of that kind in lss.Queue's order; byKind lists them in that order;
	// free is the free slots of each kind on the schedulable nodes.
	turn   map[types.UID]turnPos
	byKind [2][]*v1.Pod
	free   [2]int
	// What the bindings taken without an evaluation changed (delta.go):
	// removed holds, per kind, the ranks of the pods bound since, in
	// increasing order; bound, per job and phase, how many of its ready
	// pods were bound since; nodeFree, each schedulable node's free map
	// and reduce slots.
	removed  [2][]int
	bound    map[schedkit.JobID][2]int
	nodeFree map[string]*[2]float64
	// jobs ("ns/name") and nodes (by name) are the objects listed.
	jobs  map[string]*batchv1.Job
	nodes map[string]*v1.Node
	// order is lss.Order at now; hopeless holds the jobs it would kill.
	order    []lss.JobStatus
	hopeless map[schedkit.JobID]lss.JobStatus
	// jobErr holds jobs lss refused (e.g. a deadline before submission).
	jobErr map[schedkit.JobID]error
	// err is set when lss could not evaluate at all; every managed pod
	// then sorts as an unmanaged one.
	err error
}

// current returns the view at the clock's now (truncated to
// OrderResolution), recomputing it when the cluster changed, time moved
// on, or pod is one the last view did not see.
func (pl *Plugin) current(pod *v1.Pod) *view { return pl.viewFor(pod, false) }

// viewFor is current; with relative, a view that misses only pods added
// since (delta.go: additions that keep lss's relative order of the pods
// it has) will do, as for Less between two pods it has.
// The view it returns is the plugin's until the next call: deltas
// change it under pl.mu, so read what they change (known, seq, turn,
// byKind, free) under pl.mu too (viewLocked).
func (pl *Plugin) viewFor(pod *v1.Pod, relative bool) *view {
	pl.mu.Lock()
	defer pl.mu.Unlock()
	return pl.viewLocked(pod, relative)
}

// viewLocked is viewFor with pl.mu held.
func (pl *Plugin) viewLocked(pod *v1.Pod, relative bool) *view {
	now := pl.clock.Now().Truncate(pl.args.OrderResolution.Duration)
	gen, adds := pl.gen.Load(), pl.adds.Load()
	v := pl.view
	if v == nil || v.gen != gen || (!relative && v.adds != adds) || !v.now.Equal(now) || (pod != nil && v.known[pod.UID] == nil) || !pl.applyDeltas(v) {
		v = pl.evaluate(now, gen, adds)
		pl.view = v
	}
	return v
}

// evaluate lists the cluster, translates it and asks lss.
func (pl *Plugin) evaluate(now time.Time, gen, adds uint64) *view {
	v := &view{gen: gen, adds: adds, now: now, known: map[types.UID]*v1.Pod{}, seq: map[types.UID]int{}, turn: map[types.UID]turnPos{},
		hopeless: map[schedkit.JobID]lss.JobStatus{}, jobErr: map[schedkit.JobID]error{},
		bound: map[schedkit.JobID][2]int{}, nodeFree: map[string]*[2]float64{},
		jobs: map[string]*batchv1.Job{}, nodes: map[string]*v1.Node{}}
	// Deltas taken before the listing are in it; later ones apply to it.
	pl.pendMu.Lock()
	pl.pending = nil
	pl.pendMu.Unlock()
	pods, err := pl.lis.List()
	if err == nil {
		var nodes []*v1.Node
		nodes, err = pl.lis.Nodes.List(labels.Everything())
		lookup := func(ns, name string) (*batchv1.Job, error) {
			j, err := pl.lis.Jobs.Jobs(ns).Get(name)
			if err == nil {
				v.jobs[ns+"/"+name] = j
			}
			return j, err
		}
		for _, n := range nodes {
			v.nodes[n.Name] = n
		}
		v.snap = podjob.Build(now, pods, lookup, nodes)
		v.err = err
	}
	if err != nil {
		v.snap = podjob.Build(now, nil, nil, nil)
		v.err = err
		return v
	}
	for _, p := range pods {
		v.known[p.UID] = p
	}
	v.err = evaluateLSS(v.snap, now, v)
	if v.err != nil {
		v.turn, v.byKind = map[types.UID]turnPos{}, [2][]*v1.Pod{}
	}
	for i := range v.snap.Cluster.Nodes() {
		n := v.snap.Cluster.Node(i)
		a := n.Available()
		v.free[0] += int(a[0])
		v.free[1] += int(a[1])
		v.nodeFree[string(n.ID())] = &[2]float64{a[0], a[1]}
	}
	pl.turns.prune(v)
	return v
}

// evaluateLSS runs lss over snap at now: every job is submitted at its
// submission time (so a job whose deadline has passed is still queued
// and reported by the kill rule), then lss.Order and lss.Queue are read.
// It fills seq, order, hopeless and jobErr of out.
func evaluateLSS(snap *podjob.Snapshot, now time.Time, out *view) error {
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
			out.jobErr[j.ID()] = err
		}
	}
	if out.order, err = sched.Order(now, nil); err != nil {
		return err
	}
	for _, st := range out.order {
		if st.Kill != lss.NoReason {
			out.hopeless[st.Job] = st
		}
	}
	picks, err := sched.Queue(now, nil)
	if err != nil {
		return err
	}
	next := map[schedkit.JobID]*[2]int{}
	n := 0
	for _, pk := range picks {
		j := snap.Job(pk.Job)
		at := next[pk.Job]
		if at == nil {
			at = new([2]int)
			next[pk.Job] = at
		}
		ready := j.Ready(pk.Phase)
		for range pk.Count {
			if at[pk.Phase] >= len(ready) {
				return fmt.Errorf("%s: lss picked more %s tasks of %s than it has ready pods", Name, pk.Phase, pk.Job)
			}
			p := ready[at[pk.Phase]]
			out.seq[p.UID] = n
			k := kindOf(pk.Phase)
			out.turn[p.UID] = turnPos{kind: k, rank: len(out.byKind[k])}
			out.byKind[k] = append(out.byKind[k], p)
			at[pk.Phase]++
			n++
		}
	}
	return nil
}

// Less orders the scheduling queue: the ready pods of deadline jobs
// first, in the order lss.Queue hands out their tasks (least spare time,
// pass 1 before pass 2, maps before reduces); then every other pod
// (unmanaged pods, pods of jobs with errors or of hopeless jobs) by
// priority and queue time, as PrioritySort.
func (pl *Plugin) Less(a, b fwk.QueuedEntityInfo) bool {
	pa, pb := podjob.QueuedPod(a), podjob.QueuedPod(b)
	if pa == nil || pb == nil {
		return podjob.PriorityLess(a, b)
	}
	pl.mu.Lock()
	defer pl.mu.Unlock()
	v := pl.viewLocked(pa, true)
	if v.known[pb.UID] == nil {
		v = pl.viewLocked(pb, true)
	}
	sa, oka := v.seq[pa.UID]
	sb, okb := v.seq[pb.UID]
	switch {
	case oka && okb:
		return sa < sb
	case oka != okb:
		return oka
	}
	return podjob.PriorityLess(a, b)
}

// PreEnqueue holds back the pods of jobs that cannot be scheduled by
// deadline: a job whose annotations are missing or malformed, which lss
// refused, or which lss would kill. Unmanaged pods pass. Each pod held
// back gets a Warning event (heldpods.EventReasonHeldBack) and a log
// line with the message, once per message; one held retriably (its Job
// not yet in the cache) is re-activated every HopelessCheckInterval.
func (pl *Plugin) PreEnqueue(ctx context.Context, pod *v1.Pod) *fwk.Status {
	st := pl.preEnqueue(pod)
	if pod != nil {
		if st.IsSuccess() {
			pl.holds.Release(pod.UID)
		} else {
			pl.holds.Hold(ctx, pod, st.Message(), st.Code() == fwk.Unschedulable)
		}
	}
	return st
}

func (pl *Plugin) preEnqueue(pod *v1.Pod) *fwk.Status {
	if pod == nil {
		return fwk.NewStatus(fwk.UnschedulableAndUnresolvable, Name+": nil pod")
	}
	pl.mu.Lock()
	defer pl.mu.Unlock()
	v := pl.viewLocked(nil, true)
	if v.known[pod.UID] == nil {
		// A pod added since: its job's answer, if the view has the job
		// (an addition that kept the order); else a fresh evaluation.
		if id, ok := podjob.JobOf(pod); !ok || v.snap.Job(id) == nil {
			v = pl.viewLocked(pod, false)
		} else {
			return v.jobStatus(id)
		}
	}
	if err := v.snap.PodError(pod.UID); err != nil {
		if errors.Is(err, podjob.ErrNotFound) {
			return fwk.NewStatus(fwk.Unschedulable, Name+": "+err.Error())
		}
		return fwk.NewStatus(fwk.UnschedulableAndUnresolvable, Name+": "+err.Error())
	}
	ref, ok := v.snap.Pod(pod.UID)
	if !ok {
		return nil
	}
	return v.jobStatus(ref.Job.ID())
}

// jobStatus is PreEnqueue's answer for a pod of job id, which v has.
func (v *view) jobStatus(id schedkit.JobID) *fwk.Status {
	if err := v.jobErr[id]; err != nil {
		return fwk.NewStatus(fwk.UnschedulableAndUnresolvable, Name+": "+err.Error())
	}
	if st, ok := v.hopeless[id]; ok {
		return fwk.NewStatus(fwk.UnschedulableAndUnresolvable, Name+": "+Hopeless(st))
	}
	return nil
}

// Hopeless describes a job lss would kill, e.g. "job Job/ns/x cannot
// meet its deadline: spare+tavg<0 (spare -40s, tavg 20s)".
func Hopeless(st lss.JobStatus) string {
	f := st.Figures
	spare := "-inf"
	if !f.Spare.CannotFinish {
		spare = f.Spare.Time.String()
	}
	tavg := "unknown"
	if f.TaskTime.Known {
		tavg = f.TaskTime.Avg.String()
	}
	return fmt.Sprintf("job %s cannot meet its deadline %s: %s (spare %s, tavg %s)", st.Job, f.Deadline.UTC().Format(time.RFC3339), st.Kill, spare, tavg)
}

// Reason of the Warning event on hopeless jobs.
const EventReasonHopeless = "DeadlineHopeless"

// ActOnHopeless applies lss's kill rule now: for each job lss would kill
// that was not acted on before, it records a Warning event on the Job
// (on the first pod of a pod group) and, with DeleteHopelessJobs,
// deletes the Job or the pod group's unfinished pods. It returns the
// statuses of the jobs acted on. The plugin calls it every
// HopelessCheckInterval.
func (pl *Plugin) ActOnHopeless(ctx context.Context) []lss.JobStatus {
	v := pl.current(nil)
	pl.mu.Lock()
	var todo []lss.JobStatus
	live := make(map[schedkit.JobID]bool, len(v.order))
	for _, st := range v.order {
		live[st.Job] = true
		if st.Kill != lss.NoReason && !pl.reported[st.Job] {
			pl.reported[st.Job] = true
			todo = append(todo, st)
		}
	}
	if v.err == nil {
		for id := range pl.reported {
			if !live[id] {
				delete(pl.reported, id) // gone: forget it
			}
		}
	}
	pl.mu.Unlock()
	logger := klog.FromContext(ctx)
	for _, st := range todo {
		j := v.snap.Job(st.Job)
		var regarding runtime.Object = j.Object
		if j.Object == nil {
			regarding = j.Pods[0]
		}
		note := Hopeless(st)
		action := "None"
		if pl.args.DeleteHopelessJobs {
			action = "Delete"
		}
		if r := pl.handle.EventRecorder(); r != nil {
			r.Eventf(regarding, nil, v1.EventTypeWarning, EventReasonHopeless, action, "%s", note)
		}
		logger.Info("hopeless deadline job", "job", st.Job, "reason", st.Kill.String(), "delete", pl.args.DeleteHopelessJobs)
		if pl.args.DeleteHopelessJobs {
			pl.delete(ctx, j)
		}
	}
	return todo
}

// delete removes a hopeless job: the Job (its pods follow by garbage
// collection), or a pod group's unfinished pods.
func (pl *Plugin) delete(ctx context.Context, j *podjob.Job) {
	logger := klog.FromContext(ctx)
	cs := pl.handle.ClientSet()
	bg := metav1.DeletePropagationBackground
	if j.Object != nil {
		if err := cs.BatchV1().Jobs(j.Namespace).Delete(ctx, j.Name, metav1.DeleteOptions{PropagationPolicy: &bg}); err != nil {
			logger.Error(err, "deleting hopeless Job", "job", j.ID())
		}
		return
	}
	for _, p := range j.Pods {
		if p.Status.Phase == v1.PodSucceeded {
			continue
		}
		if err := cs.CoreV1().Pods(p.Namespace).Delete(ctx, p.Name, metav1.DeleteOptions{}); err != nil {
			logger.Error(err, "deleting a pod of a hopeless pod group", "pod", klog.KObj(p))
		}
	}
}
