package queuesort_test

import (
	"context"
	"errors"
	"slices"
	"strings"
	"testing"
	"time"

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/tools/events"
	fwk "k8s.io/kube-scheduler/framework"

	"github.com/schedkit/schedkit"
	"github.com/schedkit/schedkit/internal/kube/kubetest"
	"github.com/schedkit/schedkit/internal/kube/podjob"
	"github.com/schedkit/schedkit/internal/kube/queuesort"
)

var now = kubetest.Now

// cluster is two Jobs of the default scheduler (a: three maps and a
// reduce; b: two maps), one of another scheduler, one malformed, a plain
// pod, and a node.
func cluster(t *testing.T) (*queuesort.Host, *kubetest.Cache, *kubetest.Handle) {
	c := kubetest.NewCache()
	a := kubetest.Job("ns", "a", now.Add(-time.Minute), podjob.AnnotationRelativeDeadline, "600s")
	b := kubetest.Job("ns", "b", now.Add(-time.Minute), podjob.AnnotationRelativeDeadline, "600s")
	o := kubetest.Job("ns", "o", now.Add(-time.Minute), podjob.AnnotationRelativeDeadline, "600s")
	bad := kubetest.Job("ns", "bad", now.Add(-time.Minute), podjob.AnnotationRelativeDeadline, "soon")
	c.Add(t, kubetest.Node("n1", 2, 1), kubetest.Node("huge", 1<<20, 0), a, b, o, bad,
		kubetest.Pod("ns", "a-0", now, kubetest.Of(a)), kubetest.Pod("ns", "a-1", now.Add(time.Millisecond), kubetest.Of(a)),
		kubetest.Pod("ns", "a-2", now.Add(2*time.Millisecond), kubetest.Of(a)), kubetest.Pod("ns", "a-r", now, kubetest.Of(a), kubetest.Reduce),
		kubetest.Pod("ns", "b-0", now, kubetest.Of(b)), kubetest.Pod("ns", "b-1", now, kubetest.Of(b)),
		kubetest.Pod("ns", "o-0", now, kubetest.Of(o), kubetest.Scheduler("other")),
		kubetest.Pod("ns", "bad-0", now, kubetest.Of(bad)), kubetest.Pod("ns", "plain", now))
	h := &kubetest.Handle{Events: events.NewFakeRecorder(10)}
	return &queuesort.Host{Name: "Test", Profile: kubetest.DefaultScheduler, Lis: c.Listers(), Handle: h}, c, h
}

func pick(job string, ph schedkit.Phase, n int) queuesort.Pick {
	return queuesort.Pick{Job: schedkit.JobID("Job/ns/" + job), Phase: ph, Count: n}
}

func picks(ps ...queuesort.Pick) func(func(queuesort.Pick) bool) {
	return slices.Values(ps)
}

// Hand places each pick's pods in rank order; Less sorts by it, the rest
// by priority; Status holds back what the translation refused.
func TestOrder(t *testing.T) {
	ctx := context.Background()
	h, _, events := cluster(t)
	o := h.List(ctx, now)
	var placed []string
	err := o.Hand("Test", picks(pick("b", 0, 1), pick("a", 0, 2), pick("b", 0, 1), pick("a", 1, 1)),
		func(p *v1.Pod, _ schedkit.Phase) { placed = append(placed, p.Name) })
	if want := []string{"b-0", "a-0", "a-1", "b-1", "a-r"}; err != nil || !slices.Equal(placed, want) {
		t.Errorf("placed %v (%v), want %v", placed, err, want)
	}
	var q []fwk.QueuedEntityInfo
	for _, name := range []string{"plain", "a-2", "o-0", "a-r", "b-1", "a-1", "a-0", "b-0"} {
		q = append(q, kubetest.Queued(t, o.Pods[types.UID("pod-"+name)], now))
	}
	got := kubetest.SortedNames(q, func(x, y fwk.QueuedEntityInfo) bool {
		return queuesort.Less(x, y, func(*v1.Pod, *v1.Pod) *queuesort.Order { return o })
	})
	if want := []string{"b-0", "a-0", "a-1", "b-1", "a-r", "plain", "a-2", "o-0"}; !slices.Equal(got, want) {
		t.Errorf("queue %v, want %v", got, want)
	}
	if err := h.List(ctx, now).Hand("Test", picks(pick("b", 0, 3)), nil); err == nil || !strings.Contains(err.Error(), "more map tasks of Job/ns/b") {
		t.Errorf("a pick past the ready pods: %v", err)
	}
	if err := h.List(ctx, now).Hand("Test", picks(pick("o", 0, 1)), nil); err == nil {
		t.Error("a pick of a job the snapshot does not have")
	}

	o.JobErr["Job/ns/b"] = errors.New("lss: deadline before submission")
	for name, want := range map[string]string{
		"bad-0": `Test: podjob: Job ns/bad: schedkit.io/relative-deadline: "soon" is not a positive Go duration`,
		"b-0":   "Test: lss: deadline before submission",
	} {
		if st, _, _, ok := o.Status("Test", o.Pods[types.UID("pod-"+name)]); !ok || st.Code() != fwk.UnschedulableAndUnresolvable || st.Message() != want {
			t.Errorf("%s: %v %v, want %q", name, st, ok, want)
		}
	}
	for _, name := range []string{"plain", "o-0"} {
		if st, _, _, ok := o.Status("Test", o.Pods[types.UID("pod-"+name)]); ok || st != nil {
			t.Errorf("%s: %v managed %v", name, st, ok)
		}
	}
	if st, _, ref, ok := o.Status("Test", o.Pods["pod-a-1"]); !ok || st != nil || ref.Rank != 1 {
		t.Errorf("a-1: %v %+v %v", st, ref, ok)
	}
	if ev := kubetest.Drain(events.Events); len(ev) != 1 || !strings.HasPrefix(ev[0], "Warning SlotsRefused Test: podjob: node huge: schedkit.io/map-slot") {
		t.Errorf("events %q", ev)
	}
}

// PreEnqueue reports holds through the tracker, and a nil pod is held.
func TestPreEnqueue(t *testing.T) {
	h, _, _ := cluster(t)
	p := kubetest.Pod("ns", "p", now)
	if st := h.PreEnqueue(context.Background(), nil, nil); st.Code() != fwk.UnschedulableAndUnresolvable {
		t.Errorf("nil pod: %v", st)
	}
	if st := h.PreEnqueue(context.Background(), p, func(*v1.Pod) (*fwk.Status, string) { return fwk.NewStatus(fwk.Unschedulable, "no"), "test" }); st.Code() != fwk.Unschedulable {
		t.Errorf("held: %v", st)
	}
	if st := h.PreEnqueue(context.Background(), p, func(*v1.Pod) (*fwk.Status, string) { return nil, "" }); !st.IsSuccess() {
		t.Errorf("passed: %v", st)
	}
}

// Failed counts failed evaluations and logs each message once.
func TestFailed(t *testing.T) {
	h, _, _ := cluster(t)
	for _, err := range []error{errors.New("x"), errors.New("x"), nil, errors.New("y")} {
		h.Failed(context.Background(), err)
	}
	if n := h.Failures(); n != 3 {
		t.Errorf("failures %d, want 3", n)
	}
}
