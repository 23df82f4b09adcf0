package finegrained_test

import (
	"context"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/informers"
	clocktesting "k8s.io/utils/clock/testing"

	"github.com/schedkit/schedkit/internal/kube/finegrained"
	"github.com/schedkit/schedkit/internal/kube/kubetest"
)

// Plans of pods that are gone are dropped at the next feed read.
func TestPlansPruned(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	r := running(mkPod("r", "train", list("100m", "128Mi")), "n1", 10*time.Second)
	client := kubetest.NewClient(r)
	f := informers.NewSharedInformerFactory(client, 0)
	f.Core().V1().Pods().Informer()
	f.Start(ctx.Done())
	f.WaitForCacheSync(ctx.Done())
	client.WaitWatches(t, "pods", 1)
	feed, _ := finegrained.NewRecordedFeed(trainHistory())
	pl, err := finegrained.NewWithFeed(feed, clocktesting.NewFakePassiveClock(now))(ctx, nil, &kubetest.Handle{Factory: f})
	if err != nil {
		t.Fatal(err)
	}
	p := pl.(*finegrained.Plugin)
	// r gets a plan when first seen; q (not in the API) when reserved.
	q := mkPod("q", "train", nil)
	state, st, _ := cycle(t, p, q, nodeInfo(r))
	if st != nil {
		t.Fatal(st)
	}
	if st := p.Reserve(ctx, state, q, "n1"); !st.IsSuccess() {
		t.Fatal(st)
	}
	if n := p.Footprint().Plans; n != 2 {
		t.Fatalf("%d plans, want 2", n)
	}
	p.Poll(ctx)
	if n := p.Footprint().Plans; n != 1 {
		t.Errorf("after a feed read: %d plans, want 1 (q is gone)", n)
	}
	if err := client.CoreV1().Pods("ns").Delete(ctx, "r", metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); time.Sleep(10 * time.Millisecond) {
		if _, err := f.Core().V1().Pods().Lister().Pods("ns").Get("r"); err != nil {
			break
		}
	}
	p.Poll(ctx)
	if n := p.Footprint().Plans; n != 0 {
		t.Errorf("after r was deleted: %d plans, want 0", n)
	}
}
