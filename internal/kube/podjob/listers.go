package podjob

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/informers"
	batchlisters "k8s.io/client-go/listers/batch/v1"
	corelisters "k8s.io/client-go/listers/core/v1"
	"k8s.io/client-go/tools/cache"
	fwk "k8s.io/kube-scheduler/framework"
)

// Listers are the informer caches a schedkit plugin builds its Snapshot
// from: kube-scheduler's pods (non-terminal only), Jobs and nodes, and
// the plugin's own informer of succeeded pods (kube-scheduler's pod
// informer drops terminal pods, and finished tasks are what the
// algorithms estimate from). List merges the two pod caches.
type Listers struct {
	Pods      corelisters.PodLister // kube-scheduler's: non-terminal pods
	Succeeded corelisters.PodLister // the plugin's own: succeeded pods
	Jobs      batchlisters.JobLister
	Nodes     corelisters.NodeLister

	finishing *finishing // set by NewListers
}

// FinishGrace is how long List keeps a bound pod that kube-scheduler's
// informer dropped while the informer of succeeded pods has not shown
// it (see List).
const FinishGrace = 5 * time.Second

// finishing holds the bound pods kube-scheduler's informer dropped, by
// UID, with the time they were dropped. Each entry removes itself after
// its grace: a pod deleted while bound (or one that failed) never shows
// in the informer of succeeded pods, and nothing else would forget it.
type finishing struct {
	grace time.Duration
	mu    sync.Mutex
	pods  map[types.UID]finishingPod
}

type finishingPod struct {
	pod *v1.Pod
	at  time.Time
}

// add keeps p for the grace, then forgets it and calls changed (the
// plugins' view changes when it goes).
func (f *finishing) add(p *v1.Pod, changed func()) {
	f.mu.Lock()
	f.pods[p.UID] = finishingPod{pod: p, at: time.Now()}
	f.mu.Unlock()
	time.AfterFunc(f.grace, func() {
		f.mu.Lock()
		if fp, ok := f.pods[p.UID]; ok && fp.pod == p {
			delete(f.pods, p.UID)
		}
		f.mu.Unlock()
		changed()
	})
}

// Finishing returns how many dropped pods List keeps for their grace.
func (l Listers) Finishing() int {
	if l.finishing == nil {
		return 0
	}
	l.finishing.mu.Lock()
	defer l.finishing.mu.Unlock()
	return len(l.finishing.pods)
}

// List is ListPods(l.Pods, l.Succeeded) plus the pods that finish
// between the two informers. A pod that succeeds leaves kube-scheduler's
// informer (its field selector drops terminal pods; the API server sends
// the deletion with the pod's last running state) and enters the
// succeeded informer, two watches in no fixed order: in between, the
// pod is in neither, and its job would look as if the pod never
// existed (a job whose only running task finishes would look fresh).
// So a bound, non-terminating pod dropped by kube-scheduler's informer
// is listed as it was last seen (running) until the succeeded informer
// shows it or FinishGrace passes (a pod deleted without grace, or one
// that failed, holds its slot that long in the plugins' view).
func (l Listers) List() ([]*v1.Pod, error) {
	pods, err := ListPods(l.Pods, l.Succeeded)
	if err != nil || l.finishing == nil {
		return pods, err
	}
	f := l.finishing
	f.mu.Lock()
	defer f.mu.Unlock()
	if len(f.pods) == 0 {
		return pods, nil
	}
	listed := make(map[types.UID]bool, len(pods))
	for _, p := range pods {
		listed[p.UID] = true
	}
	now := time.Now()
	for uid, fp := range f.pods {
		switch {
		case listed[uid]:
			delete(f.pods, uid) // shown by the succeeded informer
		case now.Sub(fp.at) >= f.grace:
			delete(f.pods, uid)
		default:
			pods = append(pods, fp.pod)
		}
	}
	return pods, nil
}

// Hooks are what NewListers tells a plugin of the informers' events.
type Hooks struct {
	// SchedulerName, if set, limits the informer of succeeded pods to
	// that scheduler's pods (a field selector: the other schedulers'
	// finished pods are not kept in memory), and the dropped pods List
	// keeps (FinishGrace) to that scheduler's.
	SchedulerName string
	// Changed is called on every add, update and delete of a pod, Job or
	// node that Take did not take (plugins count these to know when an
	// evaluation is stale).
	Changed func()
	// Take, if set, is first offered every addition and update seen by
	// kube-scheduler's pod, Job and node informers (old and new are the
	// informer's objects — *v1.Pod, *batchv1.Job, *v1.Node —, old nil
	// for an addition); when it returns true the plugin has taken the
	// change into account itself and Changed is not called for it.
	Take func(old, new any) bool
	// FinishGrace is how long a dropped bound pod is kept; 0:
	// FinishGrace.
	FinishGrace time.Duration
}

// NewListers returns the Listers of the framework handle h, starting and
// syncing the succeeded-pod informer (stopped with ctx), and reports the
// informers' events to hooks. Errors carry no plugin name; the caller
// prefixes its own.
func NewListers(ctx context.Context, h fwk.Handle, hooks Hooks) (Listers, error) {
	f := h.SharedInformerFactory()
	if f == nil {
		return Listers{}, errors.New("the framework handle has no informer factory")
	}
	grace := hooks.FinishGrace
	if grace <= 0 {
		grace = FinishGrace
	}
	sel := "status.phase=" + string(v1.PodSucceeded)
	if hooks.SchedulerName != "" {
		sel += ",spec.schedulerName=" + hooks.SchedulerName
	}
	done := informers.NewSharedInformerFactoryWithOptions(h.ClientSet(), 0,
		informers.WithTweakListOptions(func(o *metav1.ListOptions) { o.FieldSelector = sel }))
	l := Listers{
		Pods:      f.Core().V1().Pods().Lister(),
		Succeeded: done.Core().V1().Pods().Lister(),
		Jobs:      f.Batch().V1().Jobs().Lister(),
		Nodes:     f.Core().V1().Nodes().Lister(),
		finishing: &finishing{grace: grace, pods: map[types.UID]finishingPod{}},
	}
	changed := hooks.Changed
	bump := cache.ResourceEventHandlerFuncs{
		AddFunc:    func(any) { changed() },
		UpdateFunc: func(any, any) { changed() },
		DeleteFunc: func(any) { changed() },
	}
	offered := bump
	if take := hooks.Take; take != nil {
		offered.AddFunc = func(n any) {
			if !take(nil, n) {
				changed()
			}
		}
		offered.UpdateFunc = func(o, n any) {
			if !take(o, n) {
				changed()
			}
		}
	}
	live := offered
	live.DeleteFunc = func(obj any) {
		if d, ok := obj.(cache.DeletedFinalStateUnknown); ok {
			obj = d.Obj
		}
		if p, ok := obj.(*v1.Pod); ok && p.Spec.NodeName != "" && p.DeletionTimestamp == nil && p.Status.Phase != v1.PodFailed &&
			(hooks.SchedulerName == "" || p.Spec.SchedulerName == hooks.SchedulerName) {
			l.finishing.add(p, changed)
		}
		changed()
	}
	for inf, h := range map[cache.SharedIndexInformer]cache.ResourceEventHandlerFuncs{
		f.Core().V1().Pods().Informer(): live, f.Batch().V1().Jobs().Informer(): offered,
		f.Core().V1().Nodes().Informer(): offered, done.Core().V1().Pods().Informer(): bump,
	} {
		if _, err := inf.AddEventHandler(h); err != nil {
			return Listers{}, fmt.Errorf("adding an event handler: %w", err)
		}
	}
	done.Start(ctx.Done())
	for typ, ok := range done.WaitForCacheSync(ctx.Done()) {
		if !ok {
			return Listers{}, fmt.Errorf("syncing the informer of succeeded %v", typ)
		}
	}
	return l, nil
}

// ListPods is the pod list a plugin builds its Snapshot from:
// kube-scheduler's informer (live) lists only non-terminal pods, so the
// pods of a plugin's own informer of succeeded pods (succeeded, may be
// nil) are merged in. A pod in both, caught finishing, counts as
// succeeded; failed pods are left out (their replacements count).
func ListPods(live, succeeded corelisters.PodLister) ([]*v1.Pod, error) {
	pods, err := live.List(labels.Everything())
	if err != nil {
		return nil, err
	}
	if succeeded == nil {
		return pods, nil
	}
	done, err := succeeded.List(labels.Everything())
	if err != nil {
		return nil, err
	}
	seen := make(map[types.UID]bool, len(done))
	out := make([]*v1.Pod, 0, len(pods)+len(done))
	for _, p := range done {
		if p.Status.Phase == v1.PodSucceeded {
			seen[p.UID] = true
			out = append(out, p)
		}
	}
	for _, p := range pods {
		if !seen[p.UID] && p.Status.Phase != v1.PodSucceeded && p.Status.Phase != v1.PodFailed {
			out = append(out, p)
		}
	}
	return out, nil
}
