package kubetest

import (
	"sync"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/kubernetes/fake"
	clienttesting "k8s.io/client-go/testing"
)

// Client is client-go's fake clientset that records the watches started
// on it, so that a test can wait for its informers to watch before it
// changes objects: the fake's tracker replays to a new watch the objects
// added or updated since the informer's list, but not the ones deleted.
type Client struct {
	*fake.Clientset
	mu      sync.Mutex
	watches map[string]int // by resource
}

// NewClient returns a fake clientset holding objs.
func NewClient(objs ...runtime.Object) *Client {
	c := &Client{Clientset: fake.NewClientset(objs...), watches: map[string]int{}}
	c.PrependWatchReactor("*", func(a clienttesting.Action) (bool, watch.Interface, error) {
		var opts metav1.ListOptions
		if wa, ok := a.(clienttesting.WatchActionImpl); ok {
			opts = wa.ListOptions
		}
		w, err := c.Tracker().Watch(a.GetResource(), a.GetNamespace(), opts)
		if err != nil {
			return true, nil, err
		}
		c.mu.Lock()
		c.watches[a.GetResource().Resource]++
		c.mu.Unlock()
		return true, w, nil
	})
	return c
}

// WaitWatches waits (at most 10 s) until n watches of resource (e.g.
// "pods") have started.
func (c *Client) WaitWatches(t testing.TB, resource string, n int) {
	t.Helper()
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(2 * time.Millisecond) {
		c.mu.Lock()
		got := c.watches[resource]
		c.mu.Unlock()
		if got >= n {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("kubetest: %d watches of %s started, want %d", got, resource, n)
		}
	}
}
