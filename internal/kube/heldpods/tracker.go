package heldpods

import (
	"context"
	"sync"
	"time"

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/wait"
	corelisters "k8s.io/client-go/listers/core/v1"
	"k8s.io/klog/v2"
	fwk "k8s.io/kube-scheduler/framework"
)

// EventReasonHeldBack is the reason of the Warning event recorded on a
// pod a plugin holds back or refuses.
const EventReasonHeldBack = "HeldBack"

// eventAction is the event's action, as kube-scheduler's own
// FailedScheduling events name theirs.
const eventAction = "Scheduling"

// Tracker records the pods one plugin holds back, reports each once per
// message and re-activates the retriable ones. It is safe for concurrent
// use. The zero value is not usable; call New.
type Tracker struct {
	plugin string
	handle fwk.Handle
	pods   corelisters.PodLister // nil: held pods are never pruned

	mu   sync.Mutex
	held map[types.UID]*held
}

type held struct {
	pod   *v1.Pod
	msg   string
	retry bool
}

// New returns the tracker of the plugin named plugin on the framework
// handle h (its EventRecorder, its PodActivator and its pod informer,
// whichever h has).
func New(plugin string, h fwk.Handle) *Tracker {
	t := &Tracker{plugin: plugin, handle: h, held: map[types.UID]*held{}}
	if h != nil && h.SharedInformerFactory() != nil {
		t.pods = h.SharedInformerFactory().Core().V1().Pods().Lister()
	}
	return t
}

// Hold records that the plugin held back or refused pod with message
// msg. The first time a pod is held with a given message, a Warning
// event (EventReasonHeldBack, note msg) is recorded on the pod and a log
// line written at the default verbosity; holding it again with the same
// message reports nothing. With retry, Reactivate moves the pod back to
// the active queue; without, it waits for the cluster events the plugin
// registered (a fixed annotation arrives as one).
func (t *Tracker) Hold(ctx context.Context, pod *v1.Pod, msg string, retry bool) {
	if t == nil || pod == nil {
		return
	}
	t.mu.Lock()
	h := t.held[pod.UID]
	report := h == nil || h.msg != msg
	t.held[pod.UID] = &held{pod: pod, msg: msg, retry: retry}
	t.mu.Unlock()
	if !report {
		return
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
	t.mu.Unlock()
}

// Release forgets pod: the plugin let it through (a PreEnqueue that
// passes, a Reserve).
func (t *Tracker) Release(uid types.UID) {
	if t == nil {
		return
	}
	t.mu.Lock()
	delete(t.held, uid)
	t.mu.Unlock()
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
	t.mu.Unlock()
	if len(batch) > 0 && t.handle != nil {
		t.handle.Activate(klog.FromContext(ctx), batch)
	}
	return len(batch)
}

// Run calls Reactivate every interval until ctx is done.
func (t *Tracker) Run(ctx context.Context, interval time.Duration) {
	wait.UntilWithContext(ctx, func(ctx context.Context) { t.Reactivate(ctx) }, interval)
}
