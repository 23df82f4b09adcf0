package leastsparetime

import (
	"context"
	"slices"
	"strings"
	"testing"
	"time"

	batchv1 "k8s.io/api/batch/v1"
	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/runtime"
	fwk "k8s.io/kube-scheduler/framework"
	clocktesting "k8s.io/utils/clock/testing"

	"github.com/schedkit/schedkit/internal/kube/kubetest"
	"github.com/schedkit/schedkit/internal/kube/podjob"
	"github.com/schedkit/schedkit/internal/kube/queuesort"
)

var now = kubetest.Now

// fixture is a plugin over in-memory listers (no informers running).
type fixture struct {
	pl    *Plugin
	cache *kubetest.Cache
}

func newFixture(t testing.TB) *fixture {
	t.Helper()
	args, err := decodeArgs(nil)
	if err != nil {
		t.Fatal(err)
	}
	c := kubetest.NewCache()
	pl := newPlugin(clocktesting.NewFakePassiveClock(now), args)
	pl.host = &queuesort.Host{Name: Name, Profile: kubetest.DefaultScheduler, Lis: c.Listers()}
	return &fixture{pl: pl, cache: c}
}

// add adds objects, as an informer event the plugin does not take.
func (fx *fixture) add(t testing.TB, objs ...runtime.Object) {
	t.Helper()
	fx.cache.Add(t, objs...)
	fx.pl.host.Changed()
}

// job is Job ns/name submitted submitted before now.
func job(name string, submitted time.Duration, ann ...string) *batchv1.Job {
	return kubetest.Job("ns", name, now.Add(-submitted), ann...)
}

// pod is pod ns/name of Job ns/jobName (none: ""), created created
// before now.
func pod(name, jobName string, created time.Duration, mutate ...func(*v1.Pod)) *v1.Pod {
	if jobName != "" {
		mutate = append([]func(*v1.Pod){kubetest.Of(job(jobName, 0))}, mutate...)
	}
	return kubetest.Pod("ns", name, now.Add(-created), mutate...)
}

// finished makes a pod a finished task: started start after its
// creation, for dur.
func finished(start, dur time.Duration) func(*v1.Pod) {
	return func(p *v1.Pod) { kubetest.Succeeded("n1", p.CreationTimestamp.Add(start), dur)(p) }
}

var reduce = kubetest.Reduce

func node(name string, maps, reduces int64) *v1.Node { return kubetest.Node(name, maps, reduces) }

func queued(t *testing.T, p *v1.Pod, prio int32, at time.Duration) fwk.QueuedEntityInfo {
	t.Helper()
	kubetest.Priority(prio)(p)
	return kubetest.Queued(t, p, now.Add(at))
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
	got := kubetest.SortedNames(q, fx.pl.Less)
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
	if v2 == first || !v2.Now.Equal(now.Add(time.Second)) {
		t.Error("view not recomputed after the resolution")
	}
	fx.add(t, pod("ok-1", "ok", 0))
	if fx.pl.current(nil) == v2 {
		t.Error("view not recomputed after an event")
	}
}
