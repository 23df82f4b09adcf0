package leastsparetime

import (
	"context"
	"slices"
	"strings"
	"testing"
	"time"

	batchv1 "k8s.io/api/batch/v1"
	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes/fake"
	fwk "k8s.io/kube-scheduler/framework"
	"k8s.io/kubernetes/pkg/scheduler/framework"
	clocktesting "k8s.io/utils/clock/testing"

	"github.com/schedkit/schedkit"
	"github.com/schedkit/schedkit/internal/kube/podjob"
)

var now = time.Date(2026, 11, 23, 2, 0, 0, 0, time.UTC)

// fixture is a plugin over in-memory listers (no informers running).
type fixture struct {
	pl      *Plugin
	factory informers.SharedInformerFactory
}

func newFixture(t *testing.T) *fixture {
	t.Helper()
	f := informers.NewSharedInformerFactory(fake.NewClientset(), 0)
	args, err := decodeArgs(nil)
	if err != nil {
		t.Fatal(err)
	}
	return &fixture{factory: f, pl: &Plugin{
		clock: clocktesting.NewFakePassiveClock(now), args: args,
		lis:      podjob.Listers{Pods: f.Core().V1().Pods().Lister(), Jobs: f.Batch().V1().Jobs().Lister(), Nodes: f.Core().V1().Nodes().Lister()},
		reported: map[schedkit.JobID]bool{}, turns: newTurns(),
	}}
}

func (fx *fixture) add(t *testing.T, objs ...runtime.Object) {
	t.Helper()
	for _, o := range objs {
		var err error
		switch o := o.(type) {
		case *v1.Pod:
			err = fx.factory.Core().V1().Pods().Informer().GetIndexer().Add(o)
		case *batchv1.Job:
			err = fx.factory.Batch().V1().Jobs().Informer().GetIndexer().Add(o)
		case *v1.Node:
			err = fx.factory.Core().V1().Nodes().Informer().GetIndexer().Add(o)
		}
		if err != nil {
			t.Fatal(err)
		}
	}
	fx.pl.gen.Add(1)
}

func job(name string, submitted time.Duration, ann ...string) *batchv1.Job {
	j := &batchv1.Job{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: "ns", UID: types.UID("job-" + name),
		CreationTimestamp: metav1.NewTime(now.Add(-submitted)), Annotations: map[string]string{}}}
	for i := 0; i+1 < len(ann); i += 2 {
		j.Annotations[ann[i]] = ann[i+1]
	}
	return j
}

func pod(name, jobName string, created time.Duration, mutate ...func(*v1.Pod)) *v1.Pod {
	yes := true
	p := &v1.Pod{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: "ns", UID: types.UID("pod-" + name),
		CreationTimestamp: metav1.NewTime(now.Add(-created))}, Status: v1.PodStatus{Phase: v1.PodPending}}
	if jobName != "" {
		p.OwnerReferences = []metav1.OwnerReference{{APIVersion: "batch/v1", Kind: "Job", Name: jobName, Controller: &yes}}
	}
	for _, m := range mutate {
		m(p)
	}
	return p
}

func finished(start, dur time.Duration) func(*v1.Pod) {
	return func(p *v1.Pod) {
		p.Spec.NodeName = "n1"
		p.Status.Phase = v1.PodSucceeded
		st := metav1.NewTime(p.CreationTimestamp.Add(start))
		p.Status.StartTime = &st
		p.Status.ContainerStatuses = []v1.ContainerStatus{{State: v1.ContainerState{Terminated: &v1.ContainerStateTerminated{
			FinishedAt: metav1.NewTime(st.Add(dur))}}}}
	}
}

func reduce(p *v1.Pod) { p.Labels = map[string]string{podjob.LabelPhase: "reduce"} }

func node(name string, maps, reduces int64) *v1.Node {
	return &v1.Node{ObjectMeta: metav1.ObjectMeta{Name: name}, Status: v1.NodeStatus{Allocatable: v1.ResourceList{
		podjob.ResourceMapSlot: *resource.NewQuantity(maps, resource.DecimalSI), podjob.ResourceReduceSlot: *resource.NewQuantity(reduces, resource.DecimalSI)}}}
}

func queued(t *testing.T, p *v1.Pod, prio int32, at time.Duration) fwk.QueuedEntityInfo {
	t.Helper()
	p.Spec.Priority = &prio
	pi, err := framework.NewPodInfo(p)
	if err != nil {
		t.Fatal(err)
	}
	return &framework.QueuedPodInfo{PodInfo: pi, QueueingParams: framework.QueueingParams{Timestamp: now.Add(at)}}
}

func TestDecodeArgs(t *testing.T) {
	a, err := decodeArgs(nil)
	if err != nil || a.DeleteHopelessJobs || a.HopelessCheckInterval.Duration != time.Second || a.OrderResolution.Duration != time.Second {
		t.Errorf("defaults: %+v, %v", a, err)
	}
	a, err = decodeArgs(&runtime.Unknown{Raw: []byte(`{"deleteHopelessJobs":true,"hopelessCheckInterval":"5s","orderResolution":"100ms"}`)})
	if err != nil || !a.DeleteHopelessJobs || a.HopelessCheckInterval.Duration != 5*time.Second || a.OrderResolution.Duration != 100*time.Millisecond {
		t.Errorf("given: %+v, %v", a, err)
	}
	for _, bad := range []struct {
		obj  runtime.Object
		want string
	}{
		{&runtime.Unknown{Raw: []byte(`{"hopelessCheckInterval":"-1s"}`)}, "hopelessCheckInterval -1s is negative"},
		{&runtime.Unknown{Raw: []byte(`{"orderResolution":"-1s"}`)}, "orderResolution -1s is negative"},
		{&runtime.Unknown{Raw: []byte(`{"deleteHopelessJobs":"yes"}`)}, "decoding args"},
		{&v1.Pod{}, "decoding args"},
	} {
		if _, err := decodeArgs(bad.obj); err == nil || !strings.Contains(err.Error(), bad.want) || !strings.HasPrefix(err.Error(), Name+": ") {
			t.Errorf("args %v: error %v, want %q", bad.obj, err, bad.want)
		}
	}
}

// TestLess sorts a queue with the plugin's Less: pass 1 (b, a: fresh, by
// spare time), pass 2 (c: Tavg 20s, spare 100s; then b, a), pass 3 (c's
// reduce), then the unmanaged pods by priority and queue time.
func TestLess(t *testing.T) {
	fx := newFixture(t)
	fx.add(t, node("n1", 2, 1), node("n2", 2, 1),
		job("a", 10*time.Second, podjob.AnnotationRelativeDeadline, "600s"),
		job("b", 5*time.Second, podjob.AnnotationRelativeDeadline, "300s"),
		job("c", 60*time.Second, podjob.AnnotationRelativeDeadline, "200s"),
		pod("c0", "c", 60*time.Second, finished(0, 20*time.Second)),
		pod("c1", "c", 60*time.Second, finished(0, 20*time.Second)),
	)
	var q []fwk.QueuedEntityInfo
	add := func(p *v1.Pod, prio int32, at time.Duration) {
		fx.add(t, p)
		q = append(q, queued(t, p, prio, at))
	}
	add(pod("plain-lo", "", 0), 0, 0)
	add(pod("plain-hi", "", 0), 10, time.Second)
	add(pod("plain-lo-early", "", 0), 0, -time.Second)
	for i, name := range []string{"a0", "a1", "a2"} {
		add(pod(name, "a", 10*time.Second-time.Duration(i)), 0, 0)
	}
	for i, name := range []string{"b0", "b1"} {
		add(pod(name, "b", 5*time.Second-time.Duration(i)), 0, 0)
	}
	add(pod("c3", "c", 59*time.Second), 0, 0)
	add(pod("c2", "c", 59*time.Second), 0, 0)
	add(pod("cr", "c", 59*time.Second, reduce), 100, 0)
	slices.Reverse(q)
	slices.SortStableFunc(q, func(x, y fwk.QueuedEntityInfo) int {
		switch {
		case fx.pl.Less(x, y):
			return -1
		case fx.pl.Less(y, x):
			return 1
		}
		return 0
	})
	var got []string
	for _, e := range q {
		got = append(got, podjob.QueuedPod(e).Name)
	}
	want := []string{"b0", "a0", "c2", "c3", "b1", "a1", "a2", "cr", "plain-hi", "plain-lo-early", "plain-lo"}
	if !slices.Equal(got, want) {
		t.Errorf("queue order\n got %v\nwant %v", got, want)
	}
}

// TestPreEnqueue checks the status for each kind of pod.
func TestPreEnqueue(t *testing.T) {
	fx := newFixture(t)
	fx.add(t, node("n1", 2, 1),
		job("ok", 10*time.Second, podjob.AnnotationRelativeDeadline, "600s"),
		job("garbled", 10*time.Second, podjob.AnnotationRelativeDeadline, "tomorrow"),
		job("late", 100*time.Second, podjob.AnnotationRelativeDeadline, "50s"),
		job("backwards", 10*time.Second, podjob.AnnotationDeadline, now.Add(-time.Hour).Format(time.RFC3339)),
		job("ordinary", 10*time.Second),
	)
	for _, tc := range []struct {
		pod  *v1.Pod
		code fwk.Code
		want string
	}{
		{pod("ok-0", "ok", 0), fwk.Success, ""},
		{pod("plain", "", 0), fwk.Success, ""},
		{pod("ordinary-0", "ordinary", 0), fwk.Success, ""},
		{pod("garbled-0", "garbled", 0), fwk.UnschedulableAndUnresolvable, `LeastSpareTime: podjob: Job ns/garbled: schedkit.io/relative-deadline: "tomorrow" is not a positive Go duration`},
		{pod("late-0", "late", 0), fwk.UnschedulableAndUnresolvable, "LeastSpareTime: job Job/ns/late cannot meet its deadline 2026-11-23T01:59:10Z: deadline passed (spare -50s, tavg unknown)"},
		{pod("backwards-0", "backwards", 0), fwk.UnschedulableAndUnresolvable, "before submission"},
		{pod("ghost-0", "ghost", 0, reduce), fwk.Unschedulable, "Job ns/ghost: not in the scheduler's cache"},
	} {
		fx.add(t, tc.pod)
		st := fx.pl.PreEnqueue(context.Background(), tc.pod)
		if st.Code() != tc.code || !strings.Contains(st.Message(), tc.want) {
			t.Errorf("pod %s: status %v %q; want %v containing %q", tc.pod.Name, st.Code(), st.Message(), tc.code, tc.want)
		}
	}
	if st := fx.pl.PreEnqueue(context.Background(), nil); st.Code() != fwk.UnschedulableAndUnresolvable {
		t.Errorf("nil pod: %v", st)
	}
	// A pod the listers have not seen yet is unmanaged for now, not a panic.
	if st := fx.pl.PreEnqueue(context.Background(), pod("unseen", "ok", 0)); !st.IsSuccess() {
		t.Errorf("unseen pod: %v", st)
	}
}

// TestViewReuse checks that the evaluation is reused until something
// changes, and redone when time moves past the resolution.
func TestViewReuse(t *testing.T) {
	fx := newFixture(t)
	clk := clocktesting.NewFakePassiveClock(now)
	fx.pl.clock = clk
	fx.add(t, node("n1", 2, 1), job("ok", 10*time.Second, podjob.AnnotationRelativeDeadline, "600s"), pod("ok-0", "ok", 0))
	first := fx.pl.current(nil)
	if fx.pl.current(nil) != first {
		t.Error("view recomputed without a change")
	}
	clk.SetTime(now.Add(999 * time.Millisecond))
	if fx.pl.current(nil) != first {
		t.Error("view recomputed within the resolution")
	}
	clk.SetTime(now.Add(time.Second))
	v2 := fx.pl.current(nil)
	if v2 == first || !v2.now.Equal(now.Add(time.Second)) {
		t.Error("view not recomputed after the resolution")
	}
	fx.add(t, pod("ok-1", "ok", 0))
	if fx.pl.current(nil) == v2 {
		t.Error("view not recomputed after an event")
	}
}
