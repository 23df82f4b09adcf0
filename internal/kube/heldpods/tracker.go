package heldpods

import (
	"context"
	"sync"
	"time"

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/kubernetes"
	corelisters "k8s.io/client-go/listers/core/v1"
	"k8s.io/klog/v2"
	fwk "k8s.io/kube-scheduler/framework"
)

// EventReasonHeldBack is the reason of the Warning event recorded on a
// pod a plugin holds back or refuses.
const EventReasonHeldBack = "HeldBack"

// ConditionReasonHeldBack is the reason of the condition
// PodScheduled=False set on a pod a plugin holds back in PreEnqueue
// (Hold); its message is the plugin's.
const ConditionReasonHeldBack = EventReasonHeldBack

// eventAction is the event's action, as kube-scheduler's own
// FailedScheduling events name theirs.
const eventAction = "Scheduling"

// Tracker records the pods one plugin holds back, reports each once per
// message and re-activates the retriable ones. It is safe for concurrent
// use. The zero value is not usable; call New (which registers the
// package's metrics).
type Tracker struct {
	plugin string
	handle fwk.Handle
	pods   corelisters.PodLister // nil: held pods are never pruned
	client kubernetes.Interface  // nil: no condition is set

	mu   sync.Mutex
	held map[types.UID]*held

	conds conditions
}

type held struct {
	pod   *v1.Pod
	msg   string
	retry bool
	cond  bool // the pod should carry the PodScheduled=False condition
}

// New returns the tracker of the plugin named plugin on the framework
// handle h (its EventRecorder, its PodActivator, its pod informer and
// its ClientSet, whichever h has). With a ClientSet, its condition
// writers run until ctx ends (the scheduler's stop).
func New(ctx context.Context, plugin string, h fwk.Handle) *Tracker {
	RegisterMetrics()
	t := &Tracker{plugin: plugin, handle: h, held: map[types.UID]*held{}}
	if h != nil {
		if h.SharedInformerFactory() != nil {
			t.pods = h.SharedInformerFactory().Core().V1().Pods().Lister()
		}
		t.client = h.ClientSet()
	}
	if t.client != nil {
		t.conds.start(ctx, t)
	}
	return t
}

// Hold records that the plugin held back pod in PreEnqueue with message
// msg. The first time a pod is held with a given message, a Warning
// event (EventReasonHeldBack, note msg) is recorded on the pod, a log
// line written at the default verbosity, and the pod's condition
// PodScheduled set to False, reason ConditionReasonHeldBack, message msg
// (asynchronously; see the package doc); holding it again with the same
// message reports nothing. With retry, Reactivate moves the pod back to
// the active queue; without, it waits for the cluster events the plugin
// registered (a fixed annotation arrives as one).
func (t *Tracker) Hold(ctx context.Context, pod *v1.Pod, msg string, retry bool) {
	t.hold(ctx, pod, msg, retry, true)
}

// Refuse records that the plugin refused pod in a scheduling cycle
// (PreFilter, Filter) with message msg: reported as Hold reports, and
// retried only on the plugin's cluster events, but without the
// condition, which kube-scheduler sets itself for a failed cycle
// (PodScheduled=False, reason Unschedulable, the cycle's message).
func (t *Tracker) Refuse(ctx context.Context, pod *v1.Pod, msg string) {
	t.hold(ctx, pod, msg, false, false)
}

func (t *Tracker) hold(ctx context.Context, pod *v1.Pod, msg string, retry, cond bool) {
	if t == nil || pod == nil {
		return
	}
	t.mu.Lock()
	h := t.held[pod.UID]
	report := h == nil || h.msg != msg || h.cond != cond
	t.held[pod.UID] = &held{pod: pod, msg: msg, retry: retry, cond: cond}
	t.setGauge()
	t.mu.Unlock()
	if !report {
		return
	}
	if cond {
		t.syncCondition(pod.Namespace, pod.Name, pod.UID)
	}
	klog.FromContext(ctx).Info("Pod held back", "plugin", t.plugin, "pod", klog.KObj(pod), "retry", retry, "message", msg)
	if t.handle == nil {
		return
	}
	if r := t.handle.EventRecorder(); r != nil {
		r.Eventf(pod, nil, v1.EventTypeWarning, EventReasonHeldBack, eventAction, "%s", msg)
	}
}

// Retry records pod for re-activation without reporting anything: a
// pod a Filter refused, whose FailedScheduling event kube-scheduler
// records itself, but which may fit later with no cluster event (fgm's
// predicted stages of the pods already placed end with time).
func (t *Tracker) Retry(pod *v1.Pod) {
	if t == nil || pod == nil {
		return
	}
	t.mu.Lock()
	if h := t.held[pod.UID]; h != nil {
		h.pod, h.retry = pod, true
	} else {
		t.held[pod.UID] = &held{pod: pod, retry: true}
	}
	t.setGauge()
	t.mu.Unlock()
}

// Release forgets pod: the plugin let it through (a PreEnqueue that
// passes, a Reserve). If Hold had set its condition, the condition is
// removed (asynchronously), unless something else has replaced it since
// (kube-scheduler's Unschedulable, the binding's PodScheduled=True).
func (t *Tracker) Release(uid types.UID) {
	if t == nil {
		return
	}
	t.mu.Lock()
	h := t.held[uid]
	delete(t.held, uid)
	t.setGauge()
	t.mu.Unlock()
	if h != nil && h.cond {
		t.syncCondition(h.pod.Namespace, h.pod.Name, uid)
	}
}

// Held returns the message pod uid is held with, and whether it is held.
func (t *Tracker) Held(uid types.UID) (string, bool) {
	if t == nil {
		return "", false
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	h := t.held[uid]
	if h == nil {
		return "", false
	}
	return h.msg, true
}

// Reactivate asks the scheduling queue to retry every pod held with
// retry that is still pending, and forgets pods that are gone or bound.
// It returns how many pods it re-activated. The queue ignores a pod that
// is not waiting (in flight, or already active).
func (t *Tracker) Reactivate(ctx context.Context) int {
	if t == nil {
		return 0
	}
	t.mu.Lock()
	batch := map[string]*v1.Pod{}
	for uid, h := range t.held {
		pod := h.pod
		if t.pods != nil {
			cur, err := t.pods.Pods(pod.Namespace).Get(pod.Name)
			if err != nil || cur.UID != uid || cur.Spec.NodeName != "" {
				delete(t.held, uid) // deleted, replaced or bound
				continue
			}
			pod = cur
		}
		if h.retry {
			batch[pod.Namespace+"/"+pod.Name] = pod
		}
	}
	t.setGauge()
	t.mu.Unlock()
	if len(batch) > 0 && t.handle != nil {
		t.handle.Activate(klog.FromContext(ctx), batch)
	}
	return len(batch)
}

// ActivateWhere asks the scheduling queue to retry every held pod (held
// with retry or not) for which match is true: a plugin's hook for a
// change kube-scheduler does not report as a cluster event (a Job's
// annotations fixed). It returns how many pods it activated.
func (t *Tracker) ActivateWhere(ctx context.Context, match func(*v1.Pod) bool) int {
	if t == nil {
		return 0
	}
	t.mu.Lock()
	batch := map[string]*v1.Pod{}
	for _, h := range t.held {
		if match(h.pod) {
			batch[h.pod.Namespace+"/"+h.pod.Name] = h.pod
		}
	}
	t.mu.Unlock()
	if len(batch) > 0 && t.handle != nil {
		t.handle.Activate(klog.FromContext(ctx), batch)
	}
	return len(batch)
}

// setGauge publishes how many pods the tracker holds (metric Held);
// t.mu must be held.
func (t *Tracker) setGauge() { Held.WithLabelValues(t.plugin).Set(float64(len(t.held))) }

// Len returns how many pods the tracker holds.
func (t *Tracker) Len() int {
	if t == nil {
		return 0
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	return len(t.held)
}

// Run calls Reactivate every interval until ctx is done.
func (t *Tracker) Run(ctx context.Context, interval time.Duration) {
	wait.UntilWithContext(ctx, func(ctx context.Context) { t.Reactivate(ctx) }, interval)
}
