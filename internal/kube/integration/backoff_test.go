package integration_test

import (
	"context"
	"slices"
	"sync"
	"testing"
	"time"

	batchv1 "k8s.io/api/batch/v1"
	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/kubernetes/fake"
	"k8s.io/client-go/tools/events"
	"k8s.io/klog/v2"
	clocktesting "k8s.io/utils/clock/testing"

	"github.com/schedkit/schedkit/internal/kube/kubetest"
	"github.com/schedkit/schedkit/internal/kube/podjob"
)

// TestLeastSpareTimeBackoff is kube-scheduler's backoff race, made
// deterministic. One node of one map slot; early (deadline 1h) has two
// maps, early-0 takes the slot and early-1 is refused at T0. late
// (deadline 3h) arrives 1.1 s later and its pod is refused at once, so its
// backoff ends in a later one-second window than early-1's. Then early-0
// succeeds (the clock 10 s on): lss starts late-0 (pass 1: late has
// nothing started; early has a finished task), but both refused pods are
// still backing off, the active queue is empty, and kube-scheduler pops
// from its backoff queue by backoff expiry: early-1 first. Without the
// turn gate early-1 takes the slot; with it early-1 is refused (not its
// turn) and late-0, activated past its backoff, is bound.
func TestLeastSpareTimeBackoff(t *testing.T) {
	ctx, cancel := context.WithCancel(klog.NewContext(context.Background(), klog.TODO()))
	defer cancel()

	mkJob := func(name string, rel time.Duration) *batchv1.Job {
		return kubetest.Job(ns, name, now, podjob.AnnotationRelativeDeadline, rel.String())
	}
	mkPod := func(j *batchv1.Job, name string, created time.Duration) *v1.Pod {
		return kubetest.Pod(ns, name, now.Add(created), kubetest.Of(j), kubetest.Label(podjob.LabelPhase, "map"), kubetest.Slot)
	}
	node := kubetest.Node("n1", 1, 0)
	early, late := mkJob("early", time.Hour), mkJob("late", 3*time.Hour)
	client := fake.NewClientset(node, early, mkPod(early, "early-0", 0), mkPod(early, "early-1", time.Millisecond))

	var mu sync.Mutex
	var bound []string
	playKubelet(client, func(pod, _ string) {
		mu.Lock()
		bound = append(bound, pod)
		mu.Unlock()
	})
	filterPods(client)
	broadcaster := events.NewBroadcaster(&events.EventSinkImpl{Interface: client.EventsV1()})
	broadcaster.StartRecordingToSink(ctx.Done())
	defer broadcaster.Shutdown()
	rec := newRoundRecorder()
	clk := clocktesting.NewFakePassiveClock(now)
	startLSS(ctx, t, client, broadcaster, rec, clk, `{"hopelessCheckInterval":"1h"}`)

	waitUntil := func(what string, cond func() bool) {
		t.Helper()
		for deadline := time.Now().Add(20 * time.Second); !cond(); time.Sleep(5 * time.Millisecond) {
			if time.Now().After(deadline) {
				t.Fatalf("timed out waiting for %s", what)
			}
		}
	}
	attempted := func(name string) func() bool {
		return func() bool { popped, _ := rec.snapshot(0); return slices.Contains(popped, name) }
	}
	waitUntil("early-0 bound, early-1 attempted", func() bool {
		mu.Lock()
		defer mu.Unlock()
		return slices.Equal(bound, []string{"early-0"}) && attempted("early-1")()
	})
	time.Sleep(1100 * time.Millisecond)
	for _, o := range []runtime.Object{late, mkPod(late, "late-0", 0)} {
		if err := client.Tracker().Add(o); err != nil {
			t.Fatal(err)
		}
	}
	waitUntil("late-0 attempted", attempted("late-0"))
	time.Sleep(100 * time.Millisecond) // late-0 back in the queue

	// early-0 succeeds after 10 s.
	clk.SetTime(now.Add(10 * time.Second))
	podsGVR := v1.SchemeGroupVersion.WithResource("pods")
	obj, err := client.Tracker().Get(podsGVR, ns, "early-0")
	if err != nil {
		t.Fatal(err)
	}
	p := obj.(*v1.Pod).DeepCopy()
	p.Status.Phase = v1.PodSucceeded
	p.Status.ContainerStatuses = []v1.ContainerStatus{{Name: "task", State: v1.ContainerState{
		Terminated: &v1.ContainerStateTerminated{FinishedAt: metav1.NewTime(now.Add(10 * time.Second))}}}}
	if err := client.Tracker().Update(podsGVR, p, ns); err != nil {
		t.Fatal(err)
	}
	waitUntil("a second binding", func() bool { mu.Lock(); defer mu.Unlock(); return len(bound) >= 2 })
	time.Sleep(300 * time.Millisecond)
	mu.Lock()
	defer mu.Unlock()
	if want := []string{"early-0", "late-0"}; !slices.Equal(bound, want) {
		t.Errorf("bound %v, lss starts %v (pass 1 gives late its first map before early's second)", bound, want)
	}
}
