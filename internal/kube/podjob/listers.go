package podjob

import (
	"context"
	"errors"
	"fmt"

	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
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
// algorithms estimate from). Give Pods and Succeeded to ListPods.
type Listers struct {
	Pods      corelisters.PodLister // kube-scheduler's: non-terminal pods
	Succeeded corelisters.PodLister // the plugin's own: succeeded pods
	Jobs      batchlisters.JobLister
	Nodes     corelisters.NodeLister
}

// NewListers returns the Listers of the framework handle h, starting
// and syncing the succeeded-pod informer (stopped with ctx), and calls
// changed on every add, update and delete any of the four sees (plugins
// count these to know when an evaluation is stale). Errors carry no
// plugin name; the caller prefixes its own.
func NewListers(ctx context.Context, h fwk.Handle, changed func()) (Listers, error) {
	return NewListersHandler(ctx, h, cache.ResourceEventHandlerFuncs{
		AddFunc:    func(any) { changed() },
		UpdateFunc: func(any, any) { changed() },
		DeleteFunc: func(any) { changed() },
	})
}

// NewListersHandler is NewListers giving every add, update and delete
// of the four informers, with its objects, to handler (a plugin that
// tells which changes matter to it). The informers' objects are
// *v1.Pod, *batchv1.Job and *v1.Node; a delete may carry a
// cache.DeletedFinalStateUnknown.
func NewListersHandler(ctx context.Context, h fwk.Handle, handler cache.ResourceEventHandler) (Listers, error) {
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
	}
	for _, inf := range []cache.SharedIndexInformer{
		f.Core().V1().Pods().Informer(), f.Batch().V1().Jobs().Informer(), f.Core().V1().Nodes().Informer(),
		done.Core().V1().Pods().Informer(),
	} {
		if _, err := inf.AddEventHandler(handler); err != nil {
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
