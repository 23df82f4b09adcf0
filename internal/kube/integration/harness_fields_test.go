package integration_test

import (
	"context"
	"testing"
	"time"

	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes/fake"

	"github.com/schedkit/schedkit/internal/kube/kubetest"
)

// The harness's fake API delivers to a watch with a field selector what
// the API server delivers: the deletion of a pod of the
// initial list, and a pod of it that stops matching (it succeeded) as a
// deletion — before, both were dropped and the scheduler kept seeing
// the pods.
func TestHarnessDeliversDeletions(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	pending := kubetest.Pod("batch", "pending", now)
	running := kubetest.Pod("batch", "running", now, kubetest.Running("n1", now))
	client := fake.NewClientset(pending, running)
	filterPods(client)
	f := informers.NewSharedInformerFactoryWithOptions(client, 0, informers.WithTweakListOptions(func(o *metav1.ListOptions) {
		o.FieldSelector = "status.phase!=Succeeded,status.phase!=Failed"
	}))
	lister := f.Core().V1().Pods().Lister()
	f.Start(ctx.Done())
	f.WaitForCacheSync(ctx.Done())
	gone := func(name string) bool { _, err := lister.Pods("batch").Get(name); return err != nil }
	waitUntil := func(what string, cond func() bool) {
		t.Helper()
		for deadline := time.Now().Add(5 * time.Second); !cond(); time.Sleep(5 * time.Millisecond) {
			if time.Now().After(deadline) {
				t.Fatalf("timed out: %s", what)
			}
		}
	}
	// The watch is live once a pod created after the list arrives.
	if _, err := client.CoreV1().Pods("batch").Create(ctx, kubetest.Pod("batch", "probe", now), metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	waitUntil("the watch delivers", func() bool { return !gone("probe") })

	if err := client.CoreV1().Pods("batch").Delete(ctx, "pending", metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	waitUntil("the deletion of a pod of the initial list reaches the informer", func() bool { return gone("pending") })
	done := running.DeepCopy()
	done.Status.Phase = v1.PodSucceeded
	if _, err := client.CoreV1().Pods("batch").UpdateStatus(ctx, done, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	waitUntil("a pod of the initial list that succeeded leaves the informer", func() bool { return gone("running") })
}
