package finegrained_test

import (
	"context"
	"testing"
	"time"

	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/kubernetes/fake"
	"k8s.io/client-go/tools/events"
	"k8s.io/klog/v2"
	fwk "k8s.io/kube-scheduler/framework"
	clocktesting "k8s.io/utils/clock/testing"

	"github.com/schedkit/schedkit/internal/kube/finegrained"
)

// handle is the part of fwk.Handle the plugin uses.
type handle struct {
	fwk.Handle
	f informers.SharedInformerFactory
}

func (h handle) SharedInformerFactory() informers.SharedInformerFactory { return h.f }
func (h handle) EventRecorder() events.EventRecorderLogger              { return events.NewFakeRecorder(10) }
func (h handle) Activate(klog.Logger, map[string]*v1.Pod)               {}
func (h handle) ClientSet() kubernetes.Interface                        { return nil }

// Plans of pods that are gone are dropped at the next feed read.
func TestPlansPruned(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	r := running(mkPod("r", "train", list("100m", "128Mi")), "n1", 10*time.Second)
	client := fake.NewClientset(r)
	f := informers.NewSharedInformerFactory(client, 0)
	f.Core().V1().Pods().Informer()
	f.Start(ctx.Done())
	f.WaitForCacheSync(ctx.Done())
	feed, _ := finegrained.NewRecordedFeed(trainHistory())
	pl, err := finegrained.NewWithFeed(feed, clocktesting.NewFakePassiveClock(now))(ctx, nil, handle{f: f})
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
	if n := p.PlanCount(); n != 2 {
		t.Fatalf("%d plans, want 2", n)
	}
	p.Poll(ctx)
	if n := p.PlanCount(); n != 1 {
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
	if n := p.PlanCount(); n != 0 {
		t.Errorf("after r was deleted: %d plans, want 0", n)
	}
}
