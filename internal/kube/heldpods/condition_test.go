package heldpods_test

import (
	"context"
	"fmt"
	"runtime"
	"testing"
	"time"

	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	k8sruntime "k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/kubernetes/fake"
	"k8s.io/client-go/tools/events"

	"github.com/schedkit/schedkit/internal/kube/heldpods"
	"github.com/schedkit/schedkit/internal/kube/kubetest"
)

// scheduled returns pod name's PodScheduled condition, nil if none.
func scheduled(t *testing.T, cs kubernetes.Interface, name string) *v1.PodCondition {
	t.Helper()
	p, err := cs.CoreV1().Pods("batch").Get(context.Background(), name, metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	for i := range p.Status.Conditions {
		if p.Status.Conditions[i].Type == v1.PodScheduled {
			return &p.Status.Conditions[i]
		}
	}
	return nil
}

// A pod held in PreEnqueue carries PodScheduled=False, reason HeldBack,
// the hold's message (replaced when the message changes, its transition
// time kept); released, the condition goes. A refusal in a scheduling
// cycle (Refuse) sets none (kube-scheduler does); a bound pod and a
// condition kube-scheduler has replaced are left alone.
func TestCondition(t *testing.T) {
	ctx := context.Background()
	held, refused, bound, replaced := pod("held", "u1", ""), pod("refused", "u2", ""), pod("bound", "u3", "n1"), pod("replaced", "u4", "")
	other := v1.PodCondition{Type: v1.PodReady, Status: v1.ConditionFalse}
	held.Status.Conditions = []v1.PodCondition{other}
	cs := fake.NewClientset(held, refused, bound, replaced)
	tr := heldpods.New(ctx, "Test", &kubetest.Handle{Events: events.NewFakeRecorder(20), Client: cs})

	tr.Hold(ctx, held, "Test: first", false)
	tr.Refuse(ctx, refused, "Test: refused")
	tr.Hold(ctx, bound, "Test: bound", true)
	tr.Hold(ctx, replaced, "Test: replaced", true)
	tr.WaitConditions()
	c := scheduled(t, cs, "held")
	if c == nil || c.Status != v1.ConditionFalse || c.Reason != heldpods.ConditionReasonHeldBack || c.Message != "Test: first" || c.LastTransitionTime.IsZero() {
		t.Fatalf("held: PodScheduled %+v, want False HeldBack %q", c, "Test: first")
	}
	first := c.LastTransitionTime
	for _, name := range []string{"refused", "bound"} {
		if c := scheduled(t, cs, name); c != nil {
			t.Errorf("%s: PodScheduled %+v, want none", name, c)
		}
	}

	tr.Hold(ctx, held, "Test: second", false)
	tr.WaitConditions()
	if c := scheduled(t, cs, "held"); c == nil || c.Message != "Test: second" || !c.LastTransitionTime.Equal(&first) {
		t.Errorf("held again: PodScheduled %+v, want message %q, transition %v", c, "Test: second", first)
	}

	// kube-scheduler replaces replaced's condition after its release.
	p, err := cs.CoreV1().Pods("batch").Get(ctx, "replaced", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	p.Status.Conditions = []v1.PodCondition{{Type: v1.PodScheduled, Status: v1.ConditionFalse, Reason: v1.PodReasonUnschedulable, Message: "0/1 nodes"}}
	if _, err := cs.CoreV1().Pods("batch").UpdateStatus(ctx, p, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	tr.Release(held.UID)
	tr.Release(replaced.UID)
	tr.WaitConditions()
	p, err = cs.CoreV1().Pods("batch").Get(ctx, "held", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if len(p.Status.Conditions) != 1 || p.Status.Conditions[0].Type != v1.PodReady {
		t.Errorf("released: conditions %+v, want only %s", p.Status.Conditions, v1.PodReady)
	}
	if c := scheduled(t, cs, "replaced"); c == nil || c.Reason != v1.PodReasonUnschedulable {
		t.Errorf("replaced: PodScheduled %+v, want kube-scheduler's", c)
	}
}

// A pod deleted or replaced (another UID) before the write is left
// alone; a tracker without a client sets nothing.
func TestConditionGone(t *testing.T) {
	ctx := context.Background()
	cs := fake.NewClientset(pod("new", "u2", ""))
	tr := heldpods.New(ctx, "Test", &kubetest.Handle{Events: events.NewFakeRecorder(20), Client: cs})
	tr.Hold(ctx, pod("gone", "u1", ""), "Test: gone", false)
	tr.Hold(ctx, pod("new", "u-old", ""), "Test: old", false)
	tr.WaitConditions()
	if c := scheduled(t, cs, "new"); c != nil {
		t.Errorf("new: PodScheduled %+v, want none", c)
	}

	cs = fake.NewClientset(pod("p", "u1", ""))
	tr = heldpods.New(ctx, "Test", &kubetest.Handle{Events: events.NewFakeRecorder(20)})
	tr.Hold(ctx, pod("p", "u1", ""), "Test: no client", false)
	tr.WaitConditions()
	if c := scheduled(t, cs, "p"); c != nil {
		t.Errorf("no client: PodScheduled %+v", c)
	}
}

// Condition writes go through a bounded pool: holding 300
// pods adds a handful of goroutines, not one a pod; every pod
// still gets its condition; the writers stop with the context the
// tracker was made with (the scheduler's).
func TestConditionWorkers(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	const n = 300
	var objs []k8sruntime.Object
	var pods []*v1.Pod
	for i := range n {
		p := pod(fmt.Sprintf("p%04d", i), types.UID(fmt.Sprintf("u%04d", i)), "")
		objs, pods = append(objs, p), append(pods, p)
	}
	cs := fake.NewClientset(objs...)
	base := runtime.NumGoroutine()
	tr := heldpods.New(ctx, "Test", &kubetest.Handle{Client: cs})
	most := 0
	for _, p := range pods {
		tr.Hold(ctx, p, "Test: held", false)
		most = max(most, runtime.NumGoroutine()-base)
	}
	if most > 20 {
		t.Errorf("%d goroutines more while holding %d pods", most, n)
	}
	tr.WaitConditions()
	for _, name := range []string{"p0000", "p0150", "p0299"} {
		if c := scheduled(t, cs, name); c == nil || c.Reason != heldpods.ConditionReasonHeldBack {
			t.Errorf("%s: PodScheduled %+v", name, c)
		}
	}
	cancel()
	deadline := time.Now().Add(5 * time.Second)
	for runtime.NumGoroutine() > base && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	if extra := runtime.NumGoroutine() - base; extra > 0 {
		t.Errorf("%d goroutines left after the stop", extra)
	}
}
