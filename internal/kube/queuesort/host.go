package queuesort

import (
	"context"
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	batchv1 "k8s.io/api/batch/v1"
	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/klog/v2"
	fwk "k8s.io/kube-scheduler/framework"

	"github.com/schedkit/schedkit"
	"github.com/schedkit/schedkit/internal/kube/heldpods"
	"github.com/schedkit/schedkit/internal/kube/podjob"
)

// EventReasonSlotsRefused is the reason of the Warning event on a node
// whose slot figures a plugin refuses (podjob.MaxNodeSlots,
// podjob.MaxClusterSlots): its slots are left out of the plugin's
// cluster, every other node counts as before.
const EventReasonSlotsRefused = "SlotsRefused"

// Host is the part of a queue-sort plugin that lists the cluster, holds
// back pods and reports what it refuses. Its zero value is not usable:
// make it with NewHost (or fill Name, Profile, Options and Lis in a
// test).
type Host struct {
	// Name is the plugin's name, the prefix of its messages.
	Name string
	// Profile is the schedulerName of the pods the plugin acts on: its
	// profile's.
	Profile string
	// Options choose what the snapshots read (Profile is added as
	// SchedulerName).
	Options podjob.Options
	// Lis are the informer caches listed.
	Lis podjob.Listers
	// Holds reports the pods held back (nil in tests without a handle).
	Holds *heldpods.Tracker
	// Handle is the framework handle events are recorded through (nil:
	// none).
	Handle fwk.Handle

	// gen counts the informer events that can change the order (Changed).
	gen atomic.Uint64
	// onChange is the plugin's hook on such an event.
	onChange func()

	mu       sync.Mutex
	refused  map[string]string // node → the message reported
	failure  string            // the last evaluation failure logged
	failures uint64            // evaluations that failed as a whole
}

// Config configures NewHost.
type Config struct {
	Name    string
	Handle  fwk.Handle
	Options podjob.Options
	// Take is offered each pod, Job and node update first (see
	// podjob.Hooks); a Job update that changes the Job's annotations
	// re-activates its held pods whether taken or not.
	Take func(old, new any) bool
	// OnChange is called on every event Take did not take, after Gen
	// moved.
	OnChange func()
	// FinishGrace is podjob.Hooks.FinishGrace (0: podjob.FinishGrace).
	FinishGrace time.Duration
}

// NewHost returns the host of a plugin on the framework handle cfg.Handle
// for the pods of its profile, with its informers (stopped with ctx).
func NewHost(ctx context.Context, cfg Config) (*Host, error) {
	h := &Host{Name: cfg.Name, Profile: cfg.Handle.ProfileName(), Options: cfg.Options, Handle: cfg.Handle,
		onChange: cfg.OnChange, Holds: heldpods.New(ctx, cfg.Name, cfg.Handle)}
	take := func(old, cur any) bool {
		if j, ok := cur.(*batchv1.Job); ok && old != nil && podjob.ChangeOf(old, cur) == podjob.Changed {
			h.jobChanged(ctx, j)
		}
		return cfg.Take != nil && cfg.Take(old, cur)
	}
	lis, err := podjob.NewListers(ctx, cfg.Handle, podjob.Hooks{SchedulerName: h.Profile, Changed: h.Changed, Take: take,
		FinishGrace: cfg.FinishGrace})
	if err != nil {
		return nil, fmt.Errorf("%s: %w", cfg.Name, err)
	}
	h.Lis = lis
	return h, nil
}

// Gen returns the count of informer events that can change the order.
func (h *Host) Gen() uint64 { return h.gen.Load() }

// Changed records an informer event that can change the order.
func (h *Host) Changed() {
	h.gen.Add(1)
	if h.onChange != nil {
		h.onChange()
	}
}

// jobChanged re-activates the held pods of Job j, whose annotations
// changed: kube-scheduler has no Job events, so a user's fix (or a
// change of terms) would wait for another event or its 5-minute flush.
func (h *Host) jobChanged(ctx context.Context, j *batchv1.Job) {
	h.Holds.ActivateWhere(ctx, func(p *v1.Pod) bool {
		ref := metav1.GetControllerOf(p)
		return p.Namespace == j.Namespace && ref != nil && ref.UID == j.UID
	})
}

// List lists the cluster and translates it at now: an Order with the
// snapshot and every pod listed, its Seq and JobErr empty for the
// plugin's algorithm to fill. A listing that fails gives an Order with
// an empty snapshot and Err set. Refused nodes are reported (Report).
func (h *Host) List(ctx context.Context, now time.Time) *Order {
	o := &Order{Now: now, Pods: map[types.UID]*v1.Pod{}, Nodes: map[string]*v1.Node{}, Jobs: map[string]*batchv1.Job{},
		Seq: map[types.UID]int{}, JobErr: map[schedkit.JobID]error{}}
	opts := h.Options
	opts.SchedulerName = h.Profile
	pods, err := h.Lis.List()
	var nodes []*v1.Node
	if err == nil {
		nodes, err = h.Lis.Nodes.List(labels.Everything())
	}
	if err != nil {
		o.Snap = podjob.BuildWith(now, nil, nil, nil, opts)
		o.Err = fmt.Errorf("%s: listing the cluster: %w", h.Name, err)
		return o
	}
	lookup := func(ns, name string) (*batchv1.Job, error) {
		j, err := h.Lis.Jobs.Jobs(ns).Get(name)
		if err == nil {
			o.Jobs[ns+"/"+name] = j
		}
		return j, err
	}
	o.Snap = podjob.BuildWith(now, pods, lookup, nodes, opts)
	for _, p := range pods {
		o.Pods[p.UID] = p
	}
	for _, n := range nodes {
		o.Nodes[n.Name] = n
	}
	h.reportNodes(ctx, o.Snap, nodes)
	return o
}

// reportNodes records a Warning event (EventReasonSlotsRefused) and a
// log line for each node snap refused, once per node and message, and
// forgets nodes no longer refused.
func (h *Host) reportNodes(ctx context.Context, snap *podjob.Snapshot, nodes []*v1.Node) {
	h.mu.Lock()
	if len(snap.Refused) == 0 && len(h.refused) == 0 {
		h.mu.Unlock()
		return
	}
	if h.refused == nil {
		h.refused = map[string]string{}
	}
	var report []*v1.Node
	msgs := map[string]string{}
	for _, n := range nodes {
		err := snap.Refused[n.Name]
		if err == nil {
			continue
		}
		msg := h.Name + ": " + err.Error()
		if h.refused[n.Name] != msg {
			report = append(report, n)
			msgs[n.Name] = msg
		}
	}
	for name := range h.refused {
		if snap.Refused[name] == nil {
			delete(h.refused, name)
		}
	}
	for name, msg := range msgs {
		h.refused[name] = msg
	}
	h.mu.Unlock()
	logger := klog.FromContext(ctx)
	for _, n := range report {
		logger.Info("Node's slots refused", "plugin", h.Name, "node", klog.KObj(n), "message", msgs[n.Name])
		if h.Handle != nil {
			if r := h.Handle.EventRecorder(); r != nil {
				r.Eventf(n, nil, v1.EventTypeWarning, EventReasonSlotsRefused, "Scheduling", "%s", msgs[n.Name])
			}
		}
	}
}

// Failed logs an evaluation that failed as a whole (every managed pod
// then sorts and passes as an unmanaged one), once per message; nil
// (an evaluation that succeeded) resets it.
func (h *Host) Failed(ctx context.Context, err error) {
	h.mu.Lock()
	msg := ""
	if err != nil {
		msg = err.Error()
		h.failures++
	}
	report := msg != "" && msg != h.failure
	h.failure = msg
	h.mu.Unlock()
	if report {
		klog.FromContext(ctx).Error(err, "Evaluation failed: pods are ordered as by priority until it succeeds", "plugin", h.Name)
	}
}

// Failures returns how many evaluations failed as a whole.
func (h *Host) Failures() uint64 {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.failures
}

// Footprint counts what a queue-sort plugin keeps of the cluster, each
// bounded by the cluster's pods and nodes at the time, none by its
// history: for tests (the chaos test and the soak require it) and
// diagnostics.
type Footprint struct {
	Listed    int // pods in the latest Order
	Held      int // pods held back (heldpods)
	Finishing int // bound pods dropped by kube-scheduler's informer, kept for their grace
	Refused   int // nodes whose refusal was reported
}

// Footprint returns the host's part of a plugin's footprint, o its
// latest Order (nil: none yet).
func (h *Host) Footprint(o *Order) Footprint {
	f := Footprint{Held: h.Holds.Len(), Finishing: h.Lis.Finishing()}
	if o != nil {
		f.Listed = len(o.Pods)
	}
	h.mu.Lock()
	f.Refused = len(h.refused)
	h.mu.Unlock()
	return f
}

// PreEnqueue is a queue-sort plugin's PreEnqueue: decide's answer for
// pod (nil: it passes) and the reason of a hold, reported through Holds
// — a pod held back gets a Warning event (heldpods.EventReasonHeldBack),
// a log line and the condition PodScheduled=False, once per message, and
// is re-activated periodically when the hold is retriable
// (Unschedulable); each hold counts in heldpods.HeldBack by its reason.
// A pod let through is released.
func (h *Host) PreEnqueue(ctx context.Context, pod *v1.Pod, decide func(*v1.Pod) (*fwk.Status, string)) *fwk.Status {
	if pod == nil {
		return fwk.NewStatus(fwk.UnschedulableAndUnresolvable, h.Name+": nil pod")
	}
	st, reason := decide(pod)
	if st.IsSuccess() {
		h.Holds.Release(pod.UID)
	} else {
		heldpods.CountHeld(h.Name, reason)
		h.Holds.Hold(ctx, pod, st.Message(), st.Code() == fwk.Unschedulable)
	}
	return st
}
