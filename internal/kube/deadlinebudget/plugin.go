package deadlinebudget

import (
	"context"
	"errors"
	"fmt"
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
	batchlisters "k8s.io/client-go/listers/batch/v1"
	corelisters "k8s.io/client-go/listers/core/v1"
	"k8s.io/klog/v2"
	fwk "k8s.io/kube-scheduler/framework"
	frameworkruntime "k8s.io/kubernetes/pkg/scheduler/framework/runtime"
	"k8s.io/utils/clock"

	"github.com/schedkit/schedkit"
	"github.com/schedkit/schedkit/dbs"
	"github.com/schedkit/schedkit/internal/kube/heldpods"
	"github.com/schedkit/schedkit/internal/kube/podjob"
	"github.com/schedkit/schedkit/resource"
)

// Name is the plugin's name in the registry and in profiles.
const Name = "DeadlineBudget"

// Reasons of the Normal events recorded on a job dbs moves.
const (
	EventReasonPromoted = "QueuePromoted"
	EventReasonDemoted  = "QueueDemoted"
)

// Plugin is the DeadlineBudget QueueSort and PreEnqueue plugin. It keeps
// one dbs.Scheduler for the life of the scheduler: dbs's weights, marks
// and queue moves are state, and each job's price history (for its cost
// so far) is the plugin's.
type Plugin struct {
	handle fwk.Handle
	clock  clock.PassiveClock
	args   Args
	pods   corelisters.PodLister // the scheduler's: non-terminal pods
	// succeeded lists finished pods, which the scheduler's informer
	// leaves out; dbs needs them for task times and costs.
	succeeded corelisters.PodLister
	jobs      batchlisters.JobLister
	nodes     corelisters.NodeLister

	// gen counts the informer events that change dbs's order
	// (changesOrder), deferred the others; evaluations and reorders
	// count the work done (Stats).
	gen, deferred, evaluations, reorders atomic.Uint64
	// earlyFactor: deferred events make the order evaluate again before
	// the next Tick once the last evaluation is this many times its own
	// duration old (passOnEarly); 0: only at the Tick.
	earlyFactor int

	mu      sync.Mutex
	sched   *dbs.Scheduler
	cluster *liveCluster
	prices  [3]float64 // per dbs.Queue
	byID    map[schedkit.JobID]*job
	costNow time.Time            // the now CostSoFar charges running pods up to
	last    time.Time            // latest now given to dbs
	view    atomic.Pointer[view] // the latest; written with mu held
	pending []Move               // moves not yet acted on

	// holds reports the pods PreEnqueue holds back and re-activates the
	// retriable ones every RetryInterval.
	holds *heldpods.Tracker
}

// RetryInterval is how often the pods PreEnqueue held back retriably
// are re-activated, besides the pod and node events that retry them.
const RetryInterval = 10 * time.Second

var (
	_ fwk.QueueSortPlugin   = (*Plugin)(nil)
	_ fwk.PreEnqueuePlugin  = (*Plugin)(nil)
	_ fwk.EnqueueExtensions = (*Plugin)(nil)
)

// Move is one promotion or demotion dbs decided, with the job it moved.
type Move struct {
	Decision dbs.Decision
	Job      *podjob.Job
}

// New is the plugin factory, on the real clock, with its ticker.
func New(ctx context.Context, obj runtime.Object, h fwk.Handle) (fwk.Plugin, error) {
	return Factory(clock.RealClock{}, true)(ctx, obj, h)
}

// Factory returns a plugin factory reading time from c; with ticker, a
// goroutine runs Tick every TickInterval (tests pass a fake clock and
// call Tick themselves).
func Factory(c clock.PassiveClock, ticker bool) frameworkruntime.PluginFactory {
	return func(ctx context.Context, obj runtime.Object, h fwk.Handle) (fwk.Plugin, error) {
		args, err := decodeArgs(obj)
		if err != nil {
			return nil, err
		}
		pl, err := newPlugin(c, args)
		if err != nil {
			return nil, err
		}
		pl.handle = h
		pl.holds = heldpods.New(Name, h)
		l, err := podjob.NewListersWith(ctx, h, pl.changed, pl.take)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", Name, err)
		}
		pl.pods, pl.succeeded, pl.jobs, pl.nodes = l.Pods, l.Succeeded, l.Jobs, l.Nodes
		if ticker {
			go wait.UntilWithContext(ctx, func(ctx context.Context) { pl.Tick(ctx) }, args.tickPeriod())
			go pl.holds.Run(ctx, RetryInterval)
		}
		return pl, nil
	}
}

// newPlugin returns a plugin without listers or handle (tests add them).
func newPlugin(c clock.PassiveClock, args Args) (*Plugin, error) {
	cluster := &liveCluster{}
	cfg, err := args.dbsConfig(cluster)
	if err != nil {
		return nil, err
	}
	sched, err := dbs.New(cfg)
	if err != nil {
		return nil, fmt.Errorf("%s: %v", Name, err)
	}
	pl := &Plugin{clock: c, args: args, sched: sched, cluster: cluster, byID: map[schedkit.JobID]*job{}, earlyFactor: earlyFactor}
	for q, qc := range sched.Queues() {
		pl.prices[q] = qc.Price
	}
	return pl, nil
}

// Name returns Name.
func (pl *Plugin) Name() string { return Name }

// liveCluster is the schedkit.Cluster dbs reads: the latest snapshot's.
type liveCluster struct{ c *podjob.Cluster }

func (l *liveCluster) Space() *resource.Space { return podjob.Space() }
func (l *liveCluster) Nodes() int {
	if l.c == nil {
		return 0
	}
	return l.c.Nodes()
}
func (l *liveCluster) Node(i int) schedkit.Node { return l.c.Node(i) }
func (l *liveCluster) Capacity() resource.Vector {
	if l.c == nil {
		return podjob.Space().Zero()
	}
	return l.c.Capacity()
}

// pricePoint is a price in force from a time on.
type pricePoint struct {
	from  time.Time // zero: since ever
	price float64
}

// job is the dbs.Job the plugin submits: the latest translation of a
// Job or pod group, and the prices it was charged.
type job struct {
	pl     *Plugin
	cur    *podjob.Job
	queue  dbs.Queue
	prices []pricePoint
}

var _ dbs.Job = (*job)(nil)

func (j *job) ID() schedkit.JobID                               { return j.cur.ID() }
func (j *job) Submitted() time.Time                             { return j.cur.Submitted() }
func (j *job) Deadline() time.Time                              { return j.cur.Deadline() }
func (j *job) Phases() int                                      { return j.cur.Phases() }
func (j *job) Progress(p schedkit.Phase) schedkit.PhaseProgress { return j.cur.Progress(p) }
func (j *job) Budget() float64                                  { return j.cur.Budget() }
func (j *job) Phi() float64                                     { return j.cur.Phi() }
func (j *job) DataSizes() (int64, int64)                        { return j.cur.DataSizes() }

// CostSoFar charges each of the job's pods, for the time it held its
// slot (a running pod up to now), the price of the queue the job was in
// at each second (one slot per pod).
func (j *job) CostSoFar() float64 {
	return cost(j.cur.Runs(), j.prices, j.pl.costNow)
}

// cost is Σ over runs of the slot-seconds up to now, each at the price
// in force (prices: from times ascending, the first from the zero time).
func cost(runs []podjob.Run, prices []pricePoint, now time.Time) float64 {
	total := 0.0
	for _, r := range runs {
		end := r.End
		if end.IsZero() || end.After(now) {
			end = now
		}
		for i, p := range prices {
			lo, hi := r.Start, end
			if p.from.After(lo) {
				lo = p.from
			}
			if i+1 < len(prices) && prices[i+1].from.Before(hi) {
				hi = prices[i+1].from
			}
			if hi.After(lo) {
				total += hi.Sub(lo).Seconds() * p.price
			}
		}
	}
	return total
}

// setQueue records that the job is in queue q from now on.
func (j *job) setQueue(now time.Time, q dbs.Queue) {
	switch {
	case len(j.prices) == 0: // since ever: time before the plugin saw the job
		now = time.Time{}
	case q == j.queue:
		return
	}
	j.queue = q
	j.prices = append(j.prices, pricePoint{from: now, price: j.pl.prices[q]})
}

// view is the dbs order over one snapshot.
type view struct {
	// gen and deferred are the event counts the snapshot was listed at.
	gen, deferred uint64
	// listed is when (wall clock) the snapshot was listed, cost how long
	// the evaluation took (passOnEarly).
	listed time.Time
	cost   time.Duration
	now    time.Time
	snap   *podjob.Snapshot
	known  map[types.UID]bool
	// seq is each ready pod's place in dbs.Queue's hand-out order.
	seq map[types.UID]int
	// jobErr holds jobs dbs refused (e.g. a deadline before submission).
	jobErr map[schedkit.JobID]error
	// err is set when dbs could not evaluate at all; every managed pod
	// then sorts as an unmanaged one.
	err error
}

// current returns the view, recomputing it when the cluster changed or
// pod is one the last view did not see (force: always, as a tick). It
// takes the lock even when the view is good, so it waits for an
// evaluation under way (a Tick's) rather than read the view before it:
// with a lock-free read, pods a node's arrival sent to the active queue
// were ordered partly by the order from before it (TestDeadlineBudgetTick
// failed about one run in six).
func (pl *Plugin) current(ctx context.Context, pod *v1.Pod, force bool) *view {
	gen := pl.gen.Load()
	pl.mu.Lock()
	v := pl.view.Load()
	if force || v == nil || v.gen != gen || (pod != nil && !v.known[pod.UID]) || pl.passOnEarly(v) {
		now := pl.clock.Now()
		if now.Before(pl.last) { // a clock that stepped back: hold dbs's time
			now = pl.last
		}
		pl.last = now
		v = pl.evaluate(now, gen)
		pl.view.Store(v)
	}
	moves := pl.pending
	pl.pending = nil
	pl.mu.Unlock()
	if len(moves) > 0 {
		// Called from the scheduling queue (Less, PreEnqueue): record
		// events and write annotations off its path.
		go pl.act(ctx, moves)
	}
	return v
}

// evaluate lists the cluster, brings dbs up to date and reads its order.
// gen is the count of order-changing events the caller read before it.
func (pl *Plugin) evaluate(now time.Time, gen uint64) (v *view) {
	pl.evaluations.Add(1)
	start := time.Now()
	defer func() { v.cost = time.Since(start) }()
	v = &view{gen: gen, deferred: pl.deferred.Load(), listed: start, now: now, known: map[types.UID]bool{}, seq: map[types.UID]int{}, jobErr: map[schedkit.JobID]error{}}
	pods, err := podjob.ListPods(pl.pods, pl.succeeded)
	var nodes []*v1.Node
	if err == nil {
		nodes, err = pl.nodes.List(labels.Everything())
	}
	if err != nil {
		v.snap = podjob.BuildWith(now, nil, nil, nil, podjob.Options{Budget: true})
		v.err = err
		return v
	}
	lookup := func(ns, name string) (*batchv1.Job, error) { return pl.jobs.Jobs(ns).Get(name) }
	v.snap = podjob.BuildWith(now, pods, lookup, nodes, podjob.Options{Budget: true})
	for _, p := range pods {
		v.known[p.UID] = true
	}
	v.err = pl.sync(v, now)
	return v
}

// sync submits new jobs to dbs, updates known ones, removes gone ones,
// and reads the order (order).
func (pl *Plugin) sync(v *view, now time.Time) error {
	pl.cluster.c = v.snap.Cluster
	pl.costNow = now
	seen := make(map[schedkit.JobID]bool, len(v.snap.Jobs))
	for _, pj := range v.snap.Jobs { // by ID: a fixed submission order
		id := pj.ID()
		seen[id] = true
		j := pl.byID[id]
		if j != nil {
			j.cur = pj
			if err := pl.sched.Update(id); err == nil {
				continue
			}
			// A changed phase count (a job's first reduce pod created):
			// dbs takes it as a new job, in its φ's queue.
			_ = pl.sched.Remove(id)
			delete(pl.byID, id)
		} else {
			j = &job{pl: pl, cur: pj}
		}
		q, _ := dbs.QueueFor(pj.Phi()) // podjob checked φ
		j.setQueue(now, q)
		if err := pl.sched.Submit(now, j); err != nil {
			v.jobErr[id] = err
			continue
		}
		pl.byID[id] = j
	}
	for id := range pl.byID {
		if !seen[id] {
			_ = pl.sched.Remove(id)
			delete(pl.byID, id)
		}
	}
	return pl.order(v, now)
}

// reorder is evaluate without listing the cluster, when no event came
// since v was listed: dbs already has every job as it is, so only time
// moved (a weight update may be due). It returns a new view over v's
// snapshot.
func (pl *Plugin) reorder(v *view, now time.Time) *view {
	pl.reorders.Add(1)
	w := &view{gen: v.gen, deferred: v.deferred, listed: v.listed, cost: v.cost, now: now, snap: v.snap, known: v.known, jobErr: v.jobErr, seq: make(map[types.UID]int, len(v.seq))}
	pl.costNow = now
	w.err = pl.order(w, now)
	return w
}

// order runs dbs's Tick (dbs updates weights when TickInterval has
// passed), keeps its moves for act, and reads dbs.Queue into v.seq.
func (pl *Plugin) order(v *view, now time.Time) error {
	moves, err := pl.sched.Tick(now, nil)
	if err != nil {
		return err
	}
	for _, d := range moves {
		j := pl.byID[d.Job]
		j.setQueue(now, d.To)
		pl.pending = append(pl.pending, Move{Decision: d, Job: j.cur})
	}
	picks, err := pl.sched.Queue(now, nil)
	if err != nil {
		return err
	}
	next := map[schedkit.JobID]*[2]int{}
	n := 0
	for _, pk := range picks {
		pj := v.snap.Job(pk.Job)
		at := next[pk.Job]
		if at == nil {
			at = new([2]int)
			next[pk.Job] = at
		}
		ready := pj.Ready(pk.Phase)
		for range pk.Count {
			if at[pk.Phase] >= len(ready) {
				return fmt.Errorf("%s: dbs picked more %s tasks of %s than it has ready pods", Name, pk.Phase, pk.Job)
			}
			v.seq[ready[at[pk.Phase]].UID] = n
			at[pk.Phase]++
			n++
		}
	}
	return nil
}

// Tick brings dbs up to date and runs its weight update (model 3) if
// TickInterval has passed since the last one, then records an event for
// each promotion and demotion (and, with WriteQueueAnnotation, writes
// schedkit.io/queue). It returns the moves. The plugin calls it every
// TickInterval.
//
// Bindings and bound pods' status changes do not make the plugin
// evaluate between Ticks (changesOrder); Tick passes them on to dbs: it
// lists the cluster if any event came since the last evaluation, and
// otherwise only re-reads dbs's order at now.
func (pl *Plugin) Tick(ctx context.Context) []Move {
	var moves []Move
	pl.mu.Lock()
	gen, deferred := pl.gen.Load(), pl.deferred.Load()
	now := pl.clock.Now()
	if now.Before(pl.last) {
		now = pl.last
	}
	pl.last = now
	if v := pl.view.Load(); v != nil && v.err == nil && v.gen == gen && v.deferred == deferred {
		pl.view.Store(pl.reorder(v, now))
	} else {
		pl.view.Store(pl.evaluate(now, gen))
	}
	moves, pl.pending = pl.pending, nil
	pl.mu.Unlock()
	pl.act(ctx, moves)
	return moves
}

// Status returns dbs's state of a job (its queue, weight, minimum), for
// tests and diagnostics.
func (pl *Plugin) Status(id schedkit.JobID) (dbs.JobStatus, error) {
	pl.mu.Lock()
	defer pl.mu.Unlock()
	return pl.sched.Status(id)
}

// act records the events of moves and, with WriteQueueAnnotation,
// writes schedkit.io/queue.
func (pl *Plugin) act(ctx context.Context, moves []Move) {
	if len(moves) == 0 {
		return
	}
	logger := klog.FromContext(ctx)
	for _, m := range moves {
		d := m.Decision
		reason := EventReasonPromoted
		if d.Action == dbs.Demote {
			reason = EventReasonDemoted
		}
		var regarding runtime.Object = m.Job.Object
		if m.Job.Object == nil {
			regarding = m.Job.Pods[0]
		}
		note := MoveNote(d)
		if pl.handle != nil {
			if r := pl.handle.EventRecorder(); r != nil {
				r.Eventf(regarding, nil, v1.EventTypeNormal, reason, d.Action.String(), "%s", note)
			}
		}
		logger.V(2).Info("dbs queue move", "job", d.Job, "from", d.From.String(), "to", d.To.String())
		if pl.args.WriteQueueAnnotation && pl.handle != nil {
			pl.annotate(ctx, m.Job, d.To)
		}
	}
}

// MoveNote describes a move, e.g. "promote Job/ns/x mid→high (held 1
// needed 3, W 0.42 avg 0.3); price 0.05 per slot-second from now".
func MoveNote(d dbs.Decision) string {
	return fmt.Sprintf("%s; price %g per slot-second from now", d, d.Price)
}

// annotate writes schedkit.io/queue on a Job, or on a pod group's
// unfinished pods.
func (pl *Plugin) annotate(ctx context.Context, j *podjob.Job, q dbs.Queue) {
	logger := klog.FromContext(ctx)
	patch := fmt.Appendf(nil, `{"metadata":{"annotations":{%q:%q}}}`, podjob.AnnotationQueue, q.String())
	cs := pl.handle.ClientSet()
	if j.Object != nil {
		if _, err := cs.BatchV1().Jobs(j.Namespace).Patch(ctx, j.Name, types.MergePatchType, patch, metav1.PatchOptions{}); err != nil {
			logger.Error(err, "annotating a Job with its dbs queue", "job", j.ID())
		}
		return
	}
	for _, p := range j.Pods {
		if p.Status.Phase == v1.PodSucceeded {
			continue
		}
		if _, err := cs.CoreV1().Pods(p.Namespace).Patch(ctx, p.Name, types.MergePatchType, patch, metav1.PatchOptions{}); err != nil {
			logger.Error(err, "annotating a pod with its group's dbs queue", "pod", klog.KObj(p))
		}
	}
}

// Less orders the scheduling queue: the ready pods of dbs jobs first, in
// the order dbs.Queue hands out their slots (map slots, then reduce
// slots; queues by priority, in each jobs below their minimum first,
// then weight); then every other pod (unmanaged pods, pods of jobs with
// errors) by priority and queue time, as PrioritySort.
func (pl *Plugin) Less(a, b fwk.QueuedEntityInfo) bool {
	pa, pb := podjob.QueuedPod(a), podjob.QueuedPod(b)
	if pa == nil || pb == nil {
		return podjob.PriorityLess(a, b)
	}
	ctx := context.Background()
	v := pl.current(ctx, pa, false)
	if !v.known[pb.UID] {
		v = pl.current(ctx, pb, false)
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

// PreEnqueue holds back the pods of jobs dbs cannot schedule: a job
// whose annotations are missing or malformed, or which dbs refused; and,
// retriably, a ready pod dbs gives no slot at now (a reduce of a job
// whose maps have not all finished). Unmanaged pods pass. Each pod held
// back gets a Warning event (heldpods.EventReasonHeldBack) and a log
// line with the message, once per message; the retriable ones are
// re-activated every RetryInterval as well as on pod and node events.
func (pl *Plugin) PreEnqueue(ctx context.Context, pod *v1.Pod) *fwk.Status {
	st := pl.preEnqueue(ctx, pod)
	if pod != nil {
		if st.IsSuccess() {
			pl.holds.Release(pod.UID)
		} else {
			pl.holds.Hold(ctx, pod, st.Message(), st.Code() == fwk.Unschedulable)
		}
	}
	return st
}

func (pl *Plugin) preEnqueue(ctx context.Context, pod *v1.Pod) *fwk.Status {
	if pod == nil {
		return fwk.NewStatus(fwk.UnschedulableAndUnresolvable, Name+": nil pod")
	}
	v := pl.current(ctx, pod, false)
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
	if err := v.jobErr[ref.Job.ID()]; err != nil {
		return fwk.NewStatus(fwk.UnschedulableAndUnresolvable, Name+": "+err.Error())
	}
	if _, listed := v.seq[pod.UID]; ref.Rank >= 0 && !listed && v.err == nil {
		// Ready, but dbs hands out no slot to it at now: a reduce whose
		// job still has maps to finish (dbs's reduces-after-maps rule).
		return fwk.NewStatus(fwk.Unschedulable, fmt.Sprintf("%s: job %s: dbs gives it %s slots only once its maps have finished (%d unfinished)",
			Name, ref.Job.ID(), ref.Phase, ref.Job.Progress(schedkit.PhaseMap).Unfinished()))
	}
	return nil
}

// EventsToRegister asks kube-scheduler to retry the pods PreEnqueue held
// back on any pod or node event: a bound pod that finishes may open a
// job's reduces, a pod group's fixed annotations arrive as pod updates.
// (Job updates are not scheduler events; a fixed Job's pods are retried
// on the next pod or node event.)
func (pl *Plugin) EventsToRegister(context.Context) ([]fwk.ClusterEventWithHint, error) {
	return []fwk.ClusterEventWithHint{
		{Event: fwk.ClusterEvent{Resource: fwk.Pod, ActionType: fwk.All}},
		{Event: fwk.ClusterEvent{Resource: fwk.Node, ActionType: fwk.All}},
	}, nil
}
