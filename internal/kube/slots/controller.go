package slots

import (
	"context"
	"time"

	v1 "k8s.io/api/core/v1"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/cache"
	"k8s.io/client-go/util/workqueue"
	"k8s.io/klog/v2"
)

// Controller keeps every node's slot resources equal to its labels: it
// watches nodes and reconciles each on every add and update (a kubelet
// that zeroed the resources, a label changed), with retries on errors.
type Controller struct {
	cs    kubernetes.Interface
	nodes cache.SharedIndexInformer
	queue workqueue.TypedRateLimitingInterface[string]
}

// NewController returns a controller over cs; Run starts it.
func NewController(cs kubernetes.Interface) *Controller {
	f := informers.NewSharedInformerFactory(cs, 10*time.Minute)
	c := &Controller{cs: cs, nodes: f.Core().V1().Nodes().Informer(),
		queue: workqueue.NewTypedRateLimitingQueue(workqueue.DefaultTypedControllerRateLimiter[string]())}
	enqueue := func(obj any) {
		if n, ok := obj.(*v1.Node); ok {
			c.queue.Add(n.Name)
		}
	}
	_, _ = c.nodes.AddEventHandler(cache.ResourceEventHandlerFuncs{
		AddFunc:    enqueue,
		UpdateFunc: func(_, obj any) { enqueue(obj) },
	})
	return c
}

// Run reconciles nodes until ctx is done.
func (c *Controller) Run(ctx context.Context) {
	defer c.queue.ShutDown()
	go c.nodes.Run(ctx.Done())
	if !cache.WaitForCacheSync(ctx.Done(), c.nodes.HasSynced) {
		return
	}
	go func() {
		<-ctx.Done()
		c.queue.ShutDown()
	}()
	logger := klog.FromContext(ctx)
	for {
		name, quit := c.queue.Get()
		if quit {
			return
		}
		obj, exists, err := c.nodes.GetIndexer().GetByKey(name)
		if err == nil && exists {
			var patched bool
			patched, err = Reconcile(ctx, c.cs, obj.(*v1.Node))
			if patched {
				logger.Info("Node slots advertised", "node", name)
			}
		}
		if err != nil {
			logger.Error(err, "Reconciling node slots", "node", name)
			c.queue.AddRateLimited(name)
		} else {
			c.queue.Forget(name)
		}
		c.queue.Done(name)
	}
}
