package heldpods_test

import (
	"context"
	"maps"
	"slices"
	"strings"
	"sync"
	"testing"

	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/kubernetes/fake"
	"k8s.io/client-go/tools/events"
	"k8s.io/klog/v2"
	fwk "k8s.io/kube-scheduler/framework"

	"github.com/schedkit/schedkit/internal/kube/heldpods"
)

// handle is the part of fwk.Handle the tracker uses: events, the
// informer factory and the queue's Activate, which it records.
type handle struct {
	fwk.Handle
	f   informers.SharedInformerFactory
	rec *events.FakeRecorder
	cs  kubernetes.Interface

	mu        sync.Mutex
	activated [][]string
}

func (h *handle) SharedInformerFactory() informers.SharedInformerFactory { return h.f }
func (h *handle) EventRecorder() events.EventRecorderLogger              { return h.rec }
func (h *handle) ClientSet() kubernetes.Interface                        { return h.cs }
func (h *handle) Activate(_ klog.Logger, pods map[string]*v1.Pod) {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.activated = append(h.activated, slices.Sorted(maps.Keys(pods)))
}

func pod(name string, uid types.UID, node string) *v1.Pod {
	return &v1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: "batch", Name: name, UID: uid}, Spec: v1.PodSpec{NodeName: node}}
}

func drain(rec *events.FakeRecorder) []string {
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
	h := &handle{f: f, rec: events.NewFakeRecorder(10)}
	tr := heldpods.New("Test", h)

	msg := `Test: podjob: Job batch/x: schedkit.io/phi: "0.7": want 1, 0.5 or 0`
	tr.Hold(ctx, bad, msg, false)
	tr.Hold(ctx, bad, msg, false) // same message: not reported again
	tr.Hold(ctx, wait, "Test: job not in cache", true)
	tr.Retry(refused)
	tr.Retry(bound)
	tr.Hold(ctx, gone, "Test: gone", true)
	tr.Hold(ctx, placed, "Test: placed later", true)
	tr.Release(placed.UID)

	got := drain(h.rec)
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
	if want := [][]string{{"batch/refused", "batch/wait"}}; !slices.EqualFunc(h.activated, want, slices.Equal) {
		t.Errorf("activated %v, want %v", h.activated, want)
	}
	for _, p := range []*v1.Pod{bound, gone, placed} {
		if _, ok := tr.Held(p.UID); ok {
			t.Errorf("%s still held", p.Name)
		}
	}
	tr.Hold(ctx, bad, msg+" (changed)", false)
	if got := drain(h.rec); len(got) != 1 || !strings.HasSuffix(got[0], "(changed)") {
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
