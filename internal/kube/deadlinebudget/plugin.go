package deadlinebudget

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/tools/cache"
	"k8s.io/klog/v2"
	fwk "k8s.io/kube-scheduler/framework"
	frameworkruntime "k8s.io/kubernetes/pkg/scheduler/framework/runtime"
	"k8s.io/utils/clock"

	"github.com/schedkit/schedkit"
	"github.com/schedkit/schedkit/dbs"
	"github.com/schedkit/schedkit/internal/kube/heldpods"
	"github.com/schedkit/schedkit/internal/kube/podjob"
	"github.com/schedkit/schedkit/internal/kube/queuesort"
)

// Name is the plugin's name in the registry and in profiles.
const Name = "DeadlineBudget"

// Reasons of the Normal events recorded on a job dbs moves.
const (
	EventReasonPromoted = "QueuePromoted"
	EventReasonDemoted  = "QueueDemoted"
)

// Plugin is the DeadlineBudget QueueSort and PreEnqueue plugin. Its
// state: the ledger (the dbs.Scheduler it keeps for its life — dbs's
// weights, marks and queue moves are state — and each job's price
// history, for its cost so far) and the view (the latest evaluation);
// the host lists the cluster and holds back pods (queuesort).
type Plugin struct {
	handle fwk.Handle
	clock  clock.PassiveClock
	args   Args
	host   *queuesort.Host

	// deferred counts the informer events passed on lazily (take);
	// evaluations and reorders the work done (Stats).
	deferred, evaluations, reorders atomic.Uint64
	// earlyFactor: deferred events make the order evaluate again before
	// the next Tick once the last evaluation is this many times its own
	// duration old (passOnEarly); 0: only at the Tick.
	earlyFactor int

	mu   sync.Mutex
	led  *ledger
	view atomic.Pointer[view] // the latest; written with mu held

	hintMu sync.Mutex
	hinted any // the object of the last event the queueing hint counted

	wmu     sync.Mutex
	written map[schedkit.JobID]uint64 // the latest record written per job (StateWrite.Seq)
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
		pl.host, err = queuesort.NewHost(ctx, queuesort.Config{Name: Name, Handle: h, Options: podjob.Options{Budget: true}, Take: pl.take})
		if err != nil {
			return nil, err
		}
		if ticker {
			go func() {
				// The first Tick once the informers have listed the
				// cluster: one on an empty cache would run a weight update
				// before the jobs' records are read (persist.go).
				f := h.SharedInformerFactory()
				if !cache.WaitForCacheSync(ctx.Done(), f.Core().V1().Pods().Informer().HasSynced,
					f.Batch().V1().Jobs().Informer().HasSynced, f.Core().V1().Nodes().Informer().HasSynced) {
					return
				}
				wait.UntilWithContext(ctx, func(ctx context.Context) { pl.Tick(ctx) }, args.tickPeriod())
			}()
			go pl.host.Holds.Run(ctx, RetryInterval)
		}
		return pl, nil
	}
}

// newPlugin returns a plugin without host or handle (tests add them).
func newPlugin(c clock.PassiveClock, args Args) (*Plugin, error) {
	registerMetrics()
	l, err := newLedger(args)
	if err != nil {
		return nil, err
	}
	return &Plugin{clock: c, args: args, led: l, earlyFactor: earlyFactor}, nil
}

// Name returns Name.
func (pl *Plugin) Name() string { return Name }

// Footprint counts what the plugin keeps (queuesort.Footprint), and its
// ledger: the jobs dbs has, the moves and changes of terms not yet
// acted on.
type Footprint struct {
	queuesort.Footprint
	Jobs, Pending int
}

// Footprint returns the plugin's footprint.
func (pl *Plugin) Footprint() Footprint {
	pl.mu.Lock()
	f := Footprint{Jobs: len(pl.led.byID), Pending: len(pl.led.moves) + len(pl.led.applied)}
	pl.mu.Unlock()
	var o *queuesort.Order
	if v := pl.view.Load(); v != nil {
		o = v.Order
	}
	f.Footprint = pl.host.Footprint(o)
	return f
}

// view is the dbs order over one snapshot.
type view struct {
	*queuesort.Order
	// gen and deferred are the event counts the snapshot was listed at.
	gen, deferred uint64
	// listed is when (wall clock) the snapshot was listed, cost how long
	// the evaluation took (passOnEarly).
	listed time.Time
	cost   time.Duration
}

// current returns the view, recomputing it when the cluster changed or
// pod is one the last view did not see (force: always, as a tick). It
// takes the lock even when the view is good, so it waits for an
// evaluation under way (a Tick's) rather than read the view before it:
// with a lock-free read, pods a node's arrival sends to the active queue
// could be ordered partly by the order from before that evaluation.
func (pl *Plugin) current(ctx context.Context, pod *v1.Pod, force bool) *view {
	gen := pl.host.Gen()
	pl.mu.Lock()
	v := pl.view.Load()
	if force || v == nil || v.gen != gen || (pod != nil && v.Pods[pod.UID] == nil) || pl.passOnEarly(v) {
		v = pl.evaluate(ctx, pl.led.at(pl.clock.Now()), gen)
		pl.view.Store(v)
	}
	p := pl.led.take()
	pl.mu.Unlock()
	if !p.empty() {
		// Called from the scheduling queue (Less, PreEnqueue): record
		// events and write annotations off its path.
		go pl.act(context.WithoutCancel(ctx), p)
	}
	return v
}

// evaluate lists the cluster, brings dbs up to date and reads its order.
// gen is the count of order-changing events the caller read before it.
func (pl *Plugin) evaluate(ctx context.Context, now time.Time, gen uint64) (v *view) {
	pl.evaluations.Add(1)
	start := time.Now()
	defer func() { v.cost = time.Since(start) }()
	v = &view{Order: pl.host.List(ctx, now), gen: gen, deferred: pl.deferred.Load(), listed: start}
	if v.Err == nil {
		v.Err = pl.led.sync(v.Order, now)
		pl.host.Failed(ctx, v.Err)
	}
	return v
}

// reorder is evaluate without listing the cluster, when no event came
// since v was listed: dbs already has every job as it is, so only time
// moved (a weight update may be due). It returns a new view over v's
// snapshot.
func (pl *Plugin) reorder(ctx context.Context, v *view, now time.Time) *view {
	pl.reorders.Add(1)
	o := *v.Order
	o.Now, o.Seq = now, make(map[types.UID]int, len(v.Seq))
	w := &view{Order: &o, gen: v.gen, deferred: v.deferred, listed: v.listed, cost: v.cost}
	pl.led.costNow = now
	w.Err = pl.led.order(w.Order, now)
	pl.host.Failed(ctx, w.Err)
	return w
}

// Tick brings dbs up to date and runs its weight update (model 3) if
// TickInterval has passed since the last one, then records an event for
// each promotion and demotion (and, with WriteQueueAnnotation, writes
// schedkit.io/queue). It returns the moves. The plugin calls it every
// TickInterval.
//
// Bindings and bound pods' status changes do not make the plugin
// evaluate between Ticks (take); Tick passes them on to dbs: it lists
// the cluster if any event came since the last evaluation, and
// otherwise only re-reads dbs's order at now.
func (pl *Plugin) Tick(ctx context.Context) []Move {
	pl.mu.Lock()
	gen, deferred := pl.host.Gen(), pl.deferred.Load()
	now := pl.led.at(pl.clock.Now())
	if v := pl.view.Load(); v != nil && v.Err == nil && v.gen == gen && v.deferred == deferred {
		pl.view.Store(pl.reorder(ctx, v, now))
	} else {
		pl.view.Store(pl.evaluate(ctx, now, gen))
	}
	p := pl.led.take()
	pl.pruneWritten()
	pl.mu.Unlock()
	pl.act(ctx, p)
	return p.moves
}

// Status returns dbs's state of a job (its queue, weight, minimum), for
// tests and diagnostics.
func (pl *Plugin) Status(id schedkit.JobID) (dbs.JobStatus, error) {
	pl.mu.Lock()
	defer pl.mu.Unlock()
	return pl.led.sched.Status(id)
}

// Reason of the Normal event recorded on a job whose changed terms the
// plugin applied by submitting it to dbs again.
const EventReasonTermsApplied = "TermsApplied"

// act records the events of moves and applied changes of terms and,
// with WriteQueueAnnotation, writes schedkit.io/queue; with
// PersistState it writes the jobs' records and logs those refused.
func (pl *Plugin) act(ctx context.Context, p pending) {
	logger := klog.FromContext(ctx)
	for _, msg := range p.refused {
		logger.Info("dbs state not carried across a restart", "plugin", Name, "message", msg)
	}
	if len(p.resumed) > 0 {
		logger.Info("Jobs resumed from their dbs-state records", "plugin", Name, "jobs", p.resumed)
	}
	if pl.handle != nil && len(p.writes) > 0 {
		pl.writeStates(ctx, p.writes)
	}
	for _, a := range p.applied {
		note := AppliedNote(a)
		pl.event(a.Job, EventReasonTermsApplied, "Resubmit", note)
		logger.Info("Job's terms changed", "plugin", Name, "job", a.Job.ID(), "message", note)
		if pl.args.WriteQueueAnnotation && pl.handle != nil {
			pl.annotate(ctx, a.Job, a.Queue)
		}
	}
	for _, m := range p.moves {
		d := m.Decision
		reason := EventReasonPromoted
		if d.Action == dbs.Demote {
			reason = EventReasonDemoted
		}
		pl.event(m.Job, reason, d.Action.String(), MoveNote(d))
		logger.V(2).Info("dbs queue move", "job", d.Job, "from", d.From.String(), "to", d.To.String())
		if pl.args.WriteQueueAnnotation && pl.handle != nil {
			pl.annotate(ctx, m.Job, d.To)
		}
	}
}

// event records a Normal event on job j (on a pod group's first pod).
func (pl *Plugin) event(j *podjob.Job, reason, action, note string) {
	if pl.handle == nil {
		return
	}
	var regarding runtime.Object = j.Object
	if j.Object == nil {
		regarding = j.Pods[0]
	}
	if r := pl.handle.EventRecorder(); r != nil {
		r.Eventf(regarding, nil, v1.EventTypeNormal, reason, action, "%s", note)
	}
}

// AppliedNote describes an applied change of terms, e.g. "Job/ns/x:
// schedkit.io/phi "1" → "0.5": submitted to dbs again, in the mid queue
// (its weight, mark and moves start afresh, as on a restart)".
func AppliedNote(a Applied) string {
	return fmt.Sprintf("%s: %s: submitted to dbs again, in the %s queue (its weight, mark and moves start afresh, as on a restart)",
		a.Job.ID(), strings.Join(a.Changes, ", "), a.Queue)
}

// MoveNote describes a move, e.g. "promote Job/ns/x mid→high (held 1
// needed 3, W 0.42 avg 0.3); price 0.05 per slot-second from now".
func MoveNote(d dbs.Decision) string {
	return fmt.Sprintf("%s; price %g per slot-second from now", d, d.Price)
}

// annotate writes schedkit.io/queue on a Job, or on a pod group's
// unfinished pods.
func (pl *Plugin) annotate(ctx context.Context, j *podjob.Job, q dbs.Queue) {
	pl.patch(ctx, j, podjob.AnnotationQueue, q.String())
}

// patch writes annotation key = value on a Job, or on a pod group's
// unfinished pods.
func (pl *Plugin) patch(ctx context.Context, j *podjob.Job, key, value string) {
	logger := klog.FromContext(ctx)
	patch, err := json.Marshal(map[string]any{"metadata": map[string]any{"annotations": map[string]string{key: value}}})
	if err != nil {
		return // unreachable: strings marshal
	}
	cs := pl.handle.ClientSet()
	if j.Object != nil {
		if _, err := cs.BatchV1().Jobs(j.Namespace).Patch(ctx, j.Name, types.MergePatchType, patch, metav1.PatchOptions{}); err != nil {
			logger.Error(err, "annotating a Job", "job", j.ID(), "annotation", key)
		}
		return
	}
	for _, p := range j.Pods {
		if p.Status.Phase == v1.PodSucceeded {
			continue
		}
		if _, err := cs.CoreV1().Pods(p.Namespace).Patch(ctx, p.Name, types.MergePatchType, patch, metav1.PatchOptions{}); err != nil {
			logger.Error(err, "annotating a pod of a pod group", "pod", klog.KObj(p), "annotation", key)
		}
	}
}

// Less orders the scheduling queue: the ready pods of dbs jobs first, in
// the order dbs.Queue hands out their slots (map slots, then reduce
// slots; queues by priority, in each jobs below their minimum first,
// then weight); then every other pod (unmanaged pods, pods of jobs with
// errors, pods of other profiles) by priority and queue time, as
// PrioritySort.
func (pl *Plugin) Less(a, b fwk.QueuedEntityInfo) bool {
	return queuesort.Less(a, b, func(pa, pb *v1.Pod) *queuesort.Order {
		ctx := context.Background()
		v := pl.current(ctx, pa, false)
		if v.Pods[pb.UID] == nil {
			v = pl.current(ctx, pb, false)
		}
		return v.Order
	})
}

// PreEnqueue holds back the pods of jobs dbs cannot schedule: a job
// whose annotations are missing or malformed, or which dbs refused; and,
// retriably, a ready pod dbs gives no slot at now (a reduce of a job
// whose maps have not all finished). Unmanaged pods (and pods of other
// profiles) pass. Each pod held back gets a Warning event
// (heldpods.EventReasonHeldBack) and a log line with the message, once
// per message; the retriable ones are re-activated every RetryInterval
// as well as on pod and node events.
func (pl *Plugin) PreEnqueue(ctx context.Context, pod *v1.Pod) *fwk.Status {
	return pl.host.PreEnqueue(ctx, pod, func(pod *v1.Pod) (*fwk.Status, string) {
		v := pl.current(ctx, pod, false)
		st, reason, ref, ok := v.Status(Name, pod)
		if st != nil || !ok {
			return st, reason
		}
		if _, listed := v.Seq[pod.UID]; ref.Rank >= 0 && !listed && v.Err == nil {
			// Ready, but dbs hands out no slot to it at now: a reduce whose
			// job still has maps to finish (dbs's reduces-after-maps rule).
			return fwk.NewStatus(fwk.Unschedulable, fmt.Sprintf("%s: job %s: dbs gives it %s slots only once its maps have finished (%d unfinished)",
				Name, ref.Job.ID(), ref.Phase, ref.Job.Progress(schedkit.PhaseMap).Unfinished())), heldpods.ReasonReducesWait
		}
		return nil, ""
	})
}

// EventsToRegister asks kube-scheduler to retry the pods PreEnqueue held
// back on any pod or node event: a bound pod that finishes may open a
// job's reduces, a pod group's fixed annotations arrive as pod updates.
// (Job updates are not scheduler events; the plugin re-activates a
// changed Job's held pods itself.)
func (pl *Plugin) EventsToRegister(context.Context) ([]fwk.ClusterEventWithHint, error) {
	return []fwk.ClusterEventWithHint{
		{Event: fwk.ClusterEvent{Resource: fwk.Pod, ActionType: fwk.All}, QueueingHintFn: pl.hint},
		{Event: fwk.ClusterEvent{Resource: fwk.Node, ActionType: fwk.All}, QueueingHintFn: pl.hint},
	}, nil
}

// hint re-queues the pod, as without a hint, and first makes the order
// stale when the event changes what dbs reads: the queue sorts the pods
// it moves right after the hints, and the plugin's own informer handler,
// which runs apart, may not have counted the event yet (a node's
// arrival sorted pods by the order from before it).
// The queue asks once per waiting pod: the event (its object) counts
// once.
func (pl *Plugin) hint(_ klog.Logger, _ *v1.Pod, old, cur any) (fwk.QueueingHint, error) {
	if podjob.ChangeOf(old, cur) != podjob.Changed {
		return fwk.Queue, nil
	}
	obj := cur
	if obj == nil {
		obj = old
	}
	pl.hintMu.Lock()
	fresh := pl.hinted != obj
	pl.hinted = obj
	pl.hintMu.Unlock()
	if fresh {
		pl.host.Changed()
	}
	return fwk.Queue, nil
}
