package podjob

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
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
// UID, with the time they were dropped.
type finishing struct {
	mu   sync.Mutex
	pods map[types.UID]finishingPod
}

type finishingPod struct {
	pod *v1.Pod
	at  time.Time
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
		case now.Sub(fp.at) >= FinishGrace:
			delete(f.pods, uid)
		default:
			pods = append(pods, fp.pod)
		}
	}
	return pods, nil
}

// NewListers returns the Listers of the framework handle h, starting
// and syncing the succeeded-pod informer (stopped with ctx), and calls
// changed on every add, update and delete any of the four sees (plugins
// count these to know when an evaluation is stale). Errors carry no
// plugin name; the caller prefixes its own.
func NewListers(ctx context.Context, h fwk.Handle, changed func()) (Listers, error) {
	return NewListersWith(ctx, h, changed, nil)
}

// NewListersWith is NewListers that first offers every addition and
// update seen by kube-scheduler's pod, Job and node informers to take
// (old and new are the informer's objects — *v1.Pod, *batchv1.Job,
// *v1.Node —, old nil for an addition); when take returns true the
// plugin has taken the change into account itself and changed is not
// called for it. A nil take takes none.
func NewListersWith(ctx context.Context, h fwk.Handle, changed func(), take func(old, new any) bool) (Listers, error) {
	f := h.SharedInformerFactory()
	if f == nil {
		return Listers{}, errors.New("the framework handle has no informer factory")
	}
	done := informers.NewSharedInformerFactoryWithOptions(h.ClientSet(), 0,
		informers.WithTweakListOptions(func(o *metav1.ListOptions) { o.FieldSelector = "status.phase=" + string(v1.PodSucceeded) }))
	l := Listers{
		Pods:      f.Core().V1().Pods().Lister(),
		Succeeded: done.Core().V1().Pods().Lister(),
		Jobs:      f.Batch().V1().Jobs().Lister(),
		Nodes:     f.Core().V1().Nodes().Lister(),
		finishing: &finishing{pods: map[types.UID]finishingPod{}},
	}
	bump := cache.ResourceEventHandlerFuncs{
		AddFunc:    func(any) { changed() },
		UpdateFunc: func(any, any) { changed() },
		DeleteFunc: func(any) { changed() },
	}
	offered := bump
	if take != nil {
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
		if p, ok := obj.(*v1.Pod); ok && p.Spec.NodeName != "" && p.DeletionTimestamp == nil && p.Status.Phase != v1.PodFailed {
			l.finishing.mu.Lock()
			l.finishing.pods[p.UID] = finishingPod{pod: p, at: time.Now()}
			l.finishing.mu.Unlock()
			time.AfterFunc(FinishGrace, changed) // the view changes when it expires
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
