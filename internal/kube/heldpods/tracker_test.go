package heldpods_test

import (
	"context"
	"slices"
	"strings"
	"testing"

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes/fake"
	"k8s.io/client-go/tools/events"
	"k8s.io/component-base/metrics/legacyregistry"
	"k8s.io/component-base/metrics/testutil"

	"github.com/schedkit/schedkit/internal/kube/heldpods"
	"github.com/schedkit/schedkit/internal/kube/kubetest"
)

func pod(name string, uid types.UID, node string) *v1.Pod {
	p := kubetest.Pod("batch", name, kubetest.Now)
	p.UID = types.UID(uid)
	p.Spec.NodeName = node
	return p
}

// A held pod is reported once per message (a Warning event naming the
// message); the retriable ones still pending are re-activated, bound,
// deleted and released ones are not.
func TestTracker(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	bad, wait, refused, bound := pod("bad", "u1", ""), pod("wait", "u2", ""), pod("refused", "u3", ""), pod("bound", "u4", "n1")
	gone, placed := pod("gone", "u5", ""), pod("placed", "u6", "")
	client := fake.NewClientset(bad, wait, refused, bound, placed)
	f := informers.NewSharedInformerFactory(client, 0)
	f.Core().V1().Pods().Informer()
	f.Start(ctx.Done())
	f.WaitForCacheSync(ctx.Done())
	h := &kubetest.Handle{Factory: f, Events: events.NewFakeRecorder(10)}
	tr := heldpods.New(ctx, "Test", h)

	msg := `Test: podjob: Job batch/x: schedkit.io/phi: "0.7": want 1, 0.5 or 0`
	tr.Hold(ctx, bad, msg, false)
	tr.Hold(ctx, bad, msg, false) // same message: not reported again
	tr.Hold(ctx, wait, "Test: job not in cache", true)
	tr.Retry(refused)
	tr.Retry(bound)
	tr.Hold(ctx, gone, "Test: gone", true)
	tr.Hold(ctx, placed, "Test: placed later", true)
	tr.Release(placed.UID)

	got := kubetest.Drain(h.Events)
	want := []string{
		"Warning HeldBack " + msg,
		"Warning HeldBack Test: job not in cache",
		"Warning HeldBack Test: gone",
		"Warning HeldBack Test: placed later",
	}
	if !slices.Equal(got, want) {
		t.Errorf("events:\n got %q\nwant %q", got, want)
	}
	if m, ok := tr.Held(bad.UID); !ok || m != msg {
		t.Errorf("Held(bad) = %q, %v", m, ok)
	}
	if n := tr.Reactivate(ctx); n != 2 {
		t.Errorf("Reactivate = %d, want 2", n)
	}
	if got, want := h.Activated(), []string{"refused", "wait"}; !slices.Equal(got, want) {
		t.Errorf("activated %v, want %v", got, want)
	}
	for _, p := range []*v1.Pod{bound, gone, placed} {
		if _, ok := tr.Held(p.UID); ok {
			t.Errorf("%s still held", p.Name)
		}
	}
	tr.Hold(ctx, bad, msg+" (changed)", false)
	if got := kubetest.Drain(h.Events); len(got) != 1 || !strings.HasSuffix(got[0], "(changed)") {
		t.Errorf("a new message: events %q, want one", got)
	}
}

// A nil tracker (a plugin built without a handle) does nothing.
func TestNilTracker(t *testing.T) {
	var tr *heldpods.Tracker
	tr.Hold(context.Background(), pod("p", "u", ""), "m", true)
	tr.Retry(pod("p", "u", ""))
	tr.Release("u")
	if n := tr.Reactivate(context.Background()); n != 0 {
		t.Errorf("Reactivate = %d", n)
	}
}

// TestMetricsRegistered: the held-back counter and the held gauge are in
// the registry kube-scheduler serves on /metrics, and move with holds.
func TestMetricsRegistered(t *testing.T) {
	tr := heldpods.New(context.Background(), "MetricsTest", nil)
	heldpods.CountHeld("MetricsTest", heldpods.ReasonInvalid)
	tr.Hold(context.Background(), pod("p", "u-metrics", ""), "MetricsTest: held", false)
	got, err := testutil.GetCounterValuesFromGatherer(legacyregistry.DefaultGatherer, "schedkit_pods_held_back_total",
		map[string]string{"plugin": "MetricsTest"}, "reason")
	if err != nil || got[heldpods.ReasonInvalid] != 1 {
		t.Errorf("held back %v, %v; want invalid 1", got, err)
	}
	if n, err := testutil.GetGaugeMetricValue(heldpods.Held.WithLabelValues("MetricsTest")); err != nil || n != 1 {
		t.Errorf("held pods %v, %v; want 1", n, err)
	}
	tr.Release("u-metrics")
	if n, _ := testutil.GetGaugeMetricValue(heldpods.Held.WithLabelValues("MetricsTest")); n != 0 {
		t.Errorf("held pods %v after release, want 0", n)
	}
}
