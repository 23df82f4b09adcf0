package kubetest

import (
	"errors"
	"slices"
	"sync"
	"testing"
	"time"

	batchv1 "k8s.io/api/batch/v1"
	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/kubernetes/fake"
	"k8s.io/client-go/tools/cache"
	"k8s.io/client-go/tools/events"
	"k8s.io/klog/v2"
	fwk "k8s.io/kube-scheduler/framework"
	"k8s.io/kubernetes/pkg/scheduler/framework"

	"github.com/schedkit/schedkit/internal/kube/podjob"
)

// Cache is an in-memory informer cache of pods, Jobs and nodes (no
// informer runs: Add, Update and Delete write the indexers), what a
// plugin under test lists from.
type Cache struct {
	Factory informers.SharedInformerFactory
}

// NewCache returns an empty cache.
func NewCache() *Cache {
	return &Cache{Factory: informers.NewSharedInformerFactory(fake.NewClientset(), 0)}
}

func (c *Cache) indexer(t testing.TB, o runtime.Object) cache.Indexer {
	switch o.(type) {
	case *v1.Pod:
		return c.Factory.Core().V1().Pods().Informer().GetIndexer()
	case *batchv1.Job:
		return c.Factory.Batch().V1().Jobs().Informer().GetIndexer()
	case *v1.Node:
		return c.Factory.Core().V1().Nodes().Informer().GetIndexer()
	}
	t.Fatalf("kubetest: no cache of %T", o)
	return nil
}

// Add adds objects (pods, Jobs, nodes).
func (c *Cache) Add(t testing.TB, objs ...runtime.Object) {
	t.Helper()
	for _, o := range objs {
		if err := c.indexer(t, o).Add(o); err != nil {
			t.Fatal(err)
		}
	}
}

// Update replaces an object.
func (c *Cache) Update(t testing.TB, o runtime.Object) {
	t.Helper()
	if err := c.indexer(t, o).Update(o); err != nil {
		t.Fatal(err)
	}
}

// Delete removes an object.
func (c *Cache) Delete(t testing.TB, o runtime.Object) {
	t.Helper()
	if err := c.indexer(t, o).Delete(o); err != nil {
		t.Fatal(err)
	}
}

// Listers returns the cache's listers as a plugin holds them (the pod
// lister lists finished pods as well: no separate succeeded cache).
func (c *Cache) Listers() podjob.Listers {
	return podjob.Listers{Pods: c.Factory.Core().V1().Pods().Lister(), Jobs: c.Factory.Batch().V1().Jobs().Lister(),
		Nodes: c.Factory.Core().V1().Nodes().Lister()}
}

// Lookup returns a podjob.JobLookup over jobs.
func Lookup(jobs ...*batchv1.Job) podjob.JobLookup {
	return func(ns, name string) (*batchv1.Job, error) {
		for _, j := range jobs {
			if j.Namespace == ns && j.Name == name {
				return j, nil
			}
		}
		return nil, errors.New("not found")
	}
}

// Queued returns p as the scheduling queue hands it to Less, queued at
// at (its priority is the pod's, Priority).
func Queued(t testing.TB, p *v1.Pod, at time.Time) fwk.QueuedEntityInfo {
	t.Helper()
	pi, err := framework.NewPodInfo(p)
	if err != nil {
		t.Fatal(err)
	}
	return &framework.QueuedPodInfo{PodInfo: pi, QueueingParams: framework.QueueingParams{Timestamp: at}}
}

// SortedNames sorts a queue with a QueueSort plugin's less (stable: as
// the scheduling queue's heap, ties keep their place) and returns its
// pods' names in order.
func SortedNames(q []fwk.QueuedEntityInfo, less func(a, b fwk.QueuedEntityInfo) bool) []string {
	q = slices.Clone(q)
	slices.SortStableFunc(q, func(a, b fwk.QueuedEntityInfo) int {
		switch {
		case less(a, b):
			return -1
		case less(b, a):
			return 1
		}
		return 0
	})
	names := make([]string, len(q))
	for i, e := range q {
		pi := e.(*framework.QueuedPodInfo)
		names[i] = pi.Pod.Name
	}
	return names
}

// Handle is the part of kube-scheduler's framework handle the plugins
// use: the profile's name, an informer factory, a clientset, an event
// recorder, and the scheduling queue's Activate, which it records. Other
// methods panic (the embedded nil Handle).
type Handle struct {
	fwk.Handle
	Profile string // ProfileName; "" reads as DefaultScheduler
	Factory informers.SharedInformerFactory
	Client  kubernetes.Interface
	Events  *events.FakeRecorder // nil: EventRecorder returns nil

	mu        sync.Mutex
	activated []string
}

// ProfileName returns the profile's name.
func (h *Handle) ProfileName() string {
	if h.Profile == "" {
		return DefaultScheduler
	}
	return h.Profile
}

// SharedInformerFactory returns Factory.
func (h *Handle) SharedInformerFactory() informers.SharedInformerFactory { return h.Factory }

// ClientSet returns Client.
func (h *Handle) ClientSet() kubernetes.Interface { return h.Client }

// EventRecorder returns Events.
func (h *Handle) EventRecorder() events.EventRecorderLogger {
	if h.Events == nil {
		return nil
	}
	return h.Events
}

// Activate records the pods' names.
func (h *Handle) Activate(_ klog.Logger, pods map[string]*v1.Pod) {
	h.mu.Lock()
	defer h.mu.Unlock()
	for _, p := range pods {
		h.activated = append(h.activated, p.Name)
	}
}

// Activated returns the names of the pods activated since the last call,
// sorted.
func (h *Handle) Activated() []string {
	h.mu.Lock()
	defer h.mu.Unlock()
	out := slices.Sorted(slices.Values(h.activated))
	h.activated = nil
	return out
}

// Drain returns the events recorded since the last call.
func Drain(rec *events.FakeRecorder) []string {
	var out []string
	for {
		select {
		case e := <-rec.Events:
			out = append(out, e)
		default:
			return out
		}
	}
}

// Names returns the names of pods, in order.
func Names(pods []*v1.Pod) []string {
	out := make([]string, len(pods))
	for i, p := range pods {
		out[i] = p.Name
	}
	return out
}
