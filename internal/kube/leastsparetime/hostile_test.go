package leastsparetime

import (
	"context"
	"errors"
	"slices"
	"strings"
	"testing"
	"time"

	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/kubernetes/fake"
	clienttesting "k8s.io/client-go/testing"
	"k8s.io/client-go/tools/events"
	fwk "k8s.io/kube-scheduler/framework"
	"k8s.io/kubernetes/pkg/scheduler/framework"

	"github.com/schedkit/schedkit/internal/kube/kubetest"
	"github.com/schedkit/schedkit/internal/kube/podjob"
)

// The plugin in a shared cluster: what other tenants' objects
// and odd cluster state must not do to it.

// hostileFixture is a fixture whose plugin deletes hopeless jobs through
// a fake clientset (deletions recorded in deleted) and records events.
func hostileFixture(t *testing.T) (*fixture, *kubetest.Handle, *[]string) {
	fx := newFixture(t)
	fx.pl.args.DeleteHopelessJobs = true
	client := fake.NewClientset()
	deleted := &[]string{}
	client.PrependReactor("delete", "*", func(a clienttesting.Action) (bool, runtime.Object, error) {
		*deleted = append(*deleted, a.GetResource().Resource+"/"+a.(clienttesting.DeleteAction).GetName())
		return true, nil, nil
	})
	h := &kubetest.Handle{Client: client, Events: events.NewFakeRecorder(100)}
	fx.pl.handle, fx.pl.host.Handle = h, h
	return fx, h, deleted
}

// A Job whose pods name another scheduler — with a
// tighter deadline, or hopeless — neither takes the plugin's free slots
// (its own pods pass the gate, and sort first) nor is deleted or
// reported by the plugin.
func TestOtherSchedulersJobs(t *testing.T) {
	ctx := context.Background()
	fx, h, deleted := hostileFixture(t)
	theirs := kubetest.Scheduler("schedkit-dbs")
	fx.add(t, node("n1", 2, 0),
		job("theirs", 10*time.Second, podjob.AnnotationRelativeDeadline, "20s"),
		pod("theirs-0", "theirs", 10*time.Second, theirs), pod("theirs-1", "theirs", 10*time.Second, theirs),
		job("late", time.Hour, podjob.AnnotationRelativeDeadline, "1m"), pod("late-0", "late", time.Hour, theirs),
		job("ours", 5*time.Second, podjob.AnnotationRelativeDeadline, "600s"),
		pod("ours-0", "ours", 5*time.Second), pod("ours-1", "ours", 5*time.Second))
	gen := []fwk.NodeInfo{framework.NewNodeInfo()}
	for _, name := range []string{"ours-0", "ours-1"} {
		p, _ := fx.pl.host.Lis.Pods.Pods("ns").Get(name)
		if _, st := fx.pl.PreFilter(ctx, nil, p, gen); !st.IsSuccess() {
			t.Errorf("%s refused: %v", name, st.Message())
		}
	}
	var q []fwk.QueuedEntityInfo
	for _, name := range []string{"theirs-0", "ours-1", "theirs-1", "ours-0"} {
		p, _ := fx.pl.host.Lis.Pods.Pods("ns").Get(name)
		q = append(q, kubetest.Queued(t, p, now))
	}
	if got := kubetest.SortedNames(q, fx.pl.Less); !slices.Equal(got[:2], []string{"ours-0", "ours-1"}) {
		t.Errorf("queue order %v: the plugin's own pods first", got)
	}
	if acted := fx.pl.ActOnHopeless(ctx); len(acted) != 0 || len(*deleted) != 0 {
		t.Errorf("acted on %v, deleted %v: another scheduler's Job", acted, *deleted)
	}
	if ev := kubetest.Drain(h.Events); len(ev) != 0 {
		t.Errorf("events %q", ev)
	}
}

// A finished pod whose start time reads 1970 (a node before
// NTP) does not make its job hopeless.
func TestSkewedStartNotHopeless(t *testing.T) {
	ctx := context.Background()
	fx, _, deleted := hostileFixture(t)
	fx.add(t, node("n1", 2, 0),
		job("etl", 100*time.Second, podjob.AnnotationRelativeDeadline, "600s"),
		pod("etl-0", "etl", 100*time.Second, kubetest.Succeeded("n1", time.Unix(0, 0), 100*365*24*time.Hour)),
		pod("etl-1", "etl", 100*time.Second))
	p, _ := fx.pl.host.Lis.Pods.Pods("ns").Get("etl-1")
	if st := fx.pl.PreEnqueue(ctx, p); !st.IsSuccess() {
		t.Errorf("held back: %v", st.Message())
	}
	if acted := fx.pl.ActOnHopeless(ctx); len(acted) != 0 || len(*deleted) != 0 {
		t.Errorf("acted on %v, deleted %v", acted, *deleted)
	}
}

// A node advertising more than 2^32 slots is refused alone,
// with an event on it; lss still orders, gates and kills on the other
// nodes (before, every evaluation failed and the plugin fell back to
// priority order: a Job an hour past its deadline was scheduled).
func TestAbsurdNode(t *testing.T) {
	ctx := context.Background()
	fx, h, _ := hostileFixture(t)
	fx.add(t, node("ok", 1, 0), node("huge", 1<<32+1, 0),
		job("late", time.Hour, podjob.AnnotationRelativeDeadline, "1m"), pod("late-0", "late", time.Hour),
		job("a", time.Second, podjob.AnnotationRelativeDeadline, "600s"), pod("a-0", "a", time.Second), pod("a-1", "a", time.Second))
	late, _ := fx.pl.host.Lis.Pods.Pods("ns").Get("late-0")
	st := fx.pl.PreEnqueue(ctx, late)
	if st.Code() != fwk.UnschedulableAndUnresolvable || !strings.Contains(st.Message(), "deadline passed") {
		t.Errorf("a Job an hour past its deadline: %v %q", st.Code(), st.Message())
	}
	a1, _ := fx.pl.host.Lis.Pods.Pods("ns").Get("a-1")
	if _, st := fx.pl.PreFilter(ctx, nil, a1, []fwk.NodeInfo{framework.NewNodeInfo()}); st.IsSuccess() {
		t.Error("a-1 passed the gate with one good map slot, a-0 first")
	}
	want := "Warning SlotsRefused LeastSpareTime: podjob: node huge: schedkit.io/map-slot: allocatable 4294967297 is more than 65536 slots a node: its slots are left out"
	if ev := kubetest.Drain(h.Events); !slices.Contains(ev, want) {
		t.Errorf("events %q\nwant %q", ev, want)
	}
	fx.add(t) // another evaluation: reported once
	fx.pl.current(nil)
	if ev := kubetest.Drain(h.Events); len(ev) != 0 {
		t.Errorf("reported again: %q", ev)
	}
}

// A deletion that fails is tried again at the next check,
// until it succeeds; the event is recorded once.
func TestDeleteRetried(t *testing.T) {
	ctx := context.Background()
	fx, h, _ := hostileFixture(t)
	calls := 0
	h.Client.(*fake.Clientset).PrependReactor("delete", "jobs", func(clienttesting.Action) (bool, runtime.Object, error) {
		calls++
		if calls == 1 {
			return true, nil, errors.New("the API server is busy")
		}
		return true, nil, nil
	})
	fx.add(t, node("n1", 1, 0), job("late", time.Hour, podjob.AnnotationRelativeDeadline, "1m"), pod("late-0", "late", time.Hour))
	for range 3 {
		fx.pl.ActOnHopeless(ctx)
	}
	if calls != 2 {
		t.Errorf("%d deletions, want 2 (one failed, one that succeeded)", calls)
	}
	if ev := kubetest.Drain(h.Events); len(ev) != 1 || !strings.HasPrefix(ev[0], "Warning DeadlineHopeless") {
		t.Errorf("events %q, want one", ev)
	}
}

// A hopeless Job deleted and re-created under its name (a new
// UID) is another job: reported and deleted again.
func TestRecreatedJobActedOn(t *testing.T) {
	ctx := context.Background()
	fx, h, deleted := hostileFixture(t)
	old := job("late", time.Hour, podjob.AnnotationRelativeDeadline, "1m")
	fx.add(t, node("n1", 1, 0), old, pod("late-0", "late", time.Hour))
	fx.pl.ActOnHopeless(ctx)
	again := old.DeepCopy()
	again.UID = "job-late-again"
	p := kubetest.Pod("ns", "late-again-0", now, kubetest.Of(again))
	fx.cache.Delete(t, &v1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "late-0"}})
	fx.cache.Update(t, again)
	fx.add(t, p)
	fx.pl.ActOnHopeless(ctx)
	if len(*deleted) != 2 {
		t.Errorf("deleted %v, want the Job twice", *deleted)
	}
	if ev := kubetest.Drain(h.Events); len(ev) != 2 {
		t.Errorf("events %q, want two", ev)
	}
}

// A node's status report (its heartbeat, conditions, taints)
// changes nothing lss reads: the plugin keeps its view (before, each
// report re-evaluated every pod).
func TestNodeStatusReportKeepsView(t *testing.T) {
	fx, _ := turnFixture(t)
	n, _ := fx.pl.host.Lis.Nodes.Get("n1")
	v := fx.pl.current(nil)
	report := n.DeepCopy()
	report.Status.Conditions[0].LastHeartbeatTime = metav1.NewTime(now)
	report.Spec.Taints = []v1.Taint{{Key: "example.com/t", Effect: v1.TaintEffectNoSchedule}}
	fx.cache.Update(t, report)
	if !fx.pl.take(n, report) {
		fx.pl.host.Changed()
	}
	if fx.pl.current(nil) != v {
		t.Error("a node's status report re-evaluated lss")
	}
	slots := report.DeepCopy()
	slots.Status.Allocatable[podjob.ResourceReduceSlot] = kubetest.Node("n1", 0, 9).Status.Allocatable[podjob.ResourceReduceSlot]
	fx.cache.Update(t, slots)
	if !fx.pl.take(report, slots) {
		fx.pl.host.Changed()
	}
	if w := fx.pl.current(nil); w == v || w.free[1] != 10 {
		t.Errorf("new reduce slots: view kept %v, free %v", w == v, w.free)
	}
}
