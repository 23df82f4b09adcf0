package finegrained_test

import (
	"context"
	"fmt"
	"time"

	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/kubernetes/pkg/scheduler/framework"
	clocktesting "k8s.io/utils/clock/testing"

	"github.com/schedkit/schedkit/internal/kube/finegrained"
)

// Two recorded runs of "train" (60s at 4 cores, 8 GiB, then 60s at 1
// core, 2 GiB) make it predictable. On an 8-core node already running
// two train pods in their first stage, a third does not fit: CPU is
// short by more than compression allows.
func Example() {
	var rec finegrained.Recording
	for _, uid := range []types.UID{"h1", "h2"} {
		r := finegrained.RecordedTask{Pod: uid, Logic: "train", Succeeded: true}
		for _, u := range []v1.ResourceList{list("4", "8Gi"), list("1", "2Gi")} {
			r.Samples = append(r.Samples, finegrained.RecordedSample{Duration: metav1.Duration{Duration: time.Minute}, Used: u})
		}
		rec.Finished = append(rec.Finished, r)
	}
	feed, err := finegrained.NewRecordedFeed(rec)
	if err != nil {
		fmt.Println(err)
		return
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	pl, err := finegrained.NewWithFeed(feed, clocktesting.NewFakePassiveClock(now))(ctx, nil, nil)
	if err != nil {
		fmt.Println(err)
		return
	}
	p := pl.(*finegrained.Plugin)

	a := running(mkPod("a", "train", nil), "n1", 10*time.Second)
	b := running(mkPod("b", "train", nil), "n1", 20*time.Second)
	c := mkPod("c", "train", nil)
	state := framework.NewCycleState()
	_, st := p.PreFilter(ctx, state, c, nil)
	fmt.Println(st.IsSuccess())
	st = p.Filter(ctx, state, c, nodeInfo(a))
	fmt.Println(st.IsSuccess())
	st = p.Filter(ctx, state, c, nodeInfo(a, b))
	fmt.Println(st.Message())
	// Output:
	// true
	// true
	// FineGrained: stage 1 of 2 (+0s to +1m0s) needs cpu 4 cores, node n1 has 0 cores free at +0s (plus 0.8 cores by compression)
}
