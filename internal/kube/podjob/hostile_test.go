package podjob_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	batchv1 "k8s.io/api/batch/v1"
	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/informers"

	"github.com/schedkit/schedkit"
	"github.com/schedkit/schedkit/internal/kube/kubetest"
	"github.com/schedkit/schedkit/internal/kube/podjob"
)

// What a shared cluster's odd state does to the translation.

// Clocks clamp both ways: a finished pod's start
// before its job's submission (a node before NTP: 1970) counts from the
// submission, a finish after now at now, a finish before the start as
// an instant; a Job created after now (the API server's clock ahead) was
// submitted now.
func TestClockSkew(t *testing.T) {
	epoch := time.Unix(0, 0).UTC()
	j := job("skewed", map[string]string{podjob.AnnotationRelativeDeadline: "500s"})
	pods := []*v1.Pod{
		pod("m0", "skewed", 0, kubetest.Succeeded("n1", epoch, 10*time.Second)),           // 1970: counts from sub, for 0 s
		pod("m1", "skewed", 1, kubetest.Succeeded("n1", sub.Add(time.Second), time.Hour)), // finishes in the future: at now
		pod("m2", "skewed", 2, kubetest.Succeeded("n1", sub.Add(10*time.Second), -5*time.Second)),
		pod("m3", "skewed", 3),
	}
	snap := podjob.Build(now, pods, lookup(j), nil)
	if len(snap.Jobs) != 1 {
		t.Fatalf("not translated: %v", snap.PodError(pods[0].UID))
	}
	got := snap.Jobs[0]
	pr := got.Progress(schedkit.PhaseMap)
	if want := 99 * time.Second; pr.Finished != 3 || pr.FinishedDurationSum != want {
		t.Errorf("finished %d, durations %v; want 3, %v", pr.Finished, pr.FinishedDurationSum, want)
	}
	for _, r := range got.Runs() {
		if r.Start.Before(sub) || r.End.After(now) || r.End.Before(r.Start) {
			t.Errorf("run %v–%v outside [%v, %v]", r.Start, r.End, sub, now)
		}
	}

	future := kubetest.Job("ns", "future", now.Add(time.Hour), podjob.AnnotationRelativeDeadline, "500s")
	p := kubetest.Pod("ns", "f0", now.Add(time.Hour), kubetest.Of(future))
	snap = podjob.Build(now, []*v1.Pod{p}, lookup(future), nil)
	if len(snap.Jobs) != 1 || !snap.Jobs[0].Submitted().Equal(now) || !snap.Jobs[0].Deadline().Equal(now.Add(500*time.Second)) {
		t.Errorf("a Job created after now: %+v, %v", snap.Jobs, snap.PodError(p.UID))
	}
}

// The zero time is not "no deadline": it is refused, naming
// the annotation.
func TestZeroDeadline(t *testing.T) {
	for _, opts := range []podjob.Options{{}, {Budget: true}} {
		ann := map[string]string{podjob.AnnotationDeadline: "0001-01-01T00:00:00Z", podjob.AnnotationPhi: "1"}
		p := pod("z0", "zero", 0)
		snap := podjob.BuildWith(now, []*v1.Pod{p}, lookup(job("zero", ann)), nil, opts)
		err := snap.PodError(p.UID)
		if len(snap.Jobs) != 0 || !errors.Is(err, podjob.ErrInvalid) || !strings.Contains(err.Error(), `schedkit.io/deadline: "0001-01-01T00:00:00Z" is the zero time`) {
			t.Errorf("options %+v: jobs %v, error %v", opts, snap.Jobs, err)
		}
	}
}

// Pods belong to the Job their controller reference names by UID: the
// lingering pods of a Job deleted and re-created under its name are not
// the new Job's.
func TestJobUID(t *testing.T) {
	old := job("etl", map[string]string{podjob.AnnotationRelativeDeadline: "500s"})
	cur := old.DeepCopy()
	cur.UID = "job-etl-again"
	lingering := pod("old-0", "etl", 0, succeeded(0, 20*time.Second))
	fresh := kubetest.Pod("ns", "new-0", sub, kubetest.Of(cur))
	snap := podjob.Build(now, []*v1.Pod{lingering, fresh}, lookup(cur), nil)
	if len(snap.Jobs) != 1 {
		t.Fatalf("jobs %v", snap.Jobs)
	}
	if pr := snap.Jobs[0].Progress(schedkit.PhaseMap); pr.Total != 1 || pr.Finished != 0 || pr.Ready != 1 {
		t.Errorf("the new Job inherited the old one's pod: %+v", pr)
	}
	err := snap.PodError(lingering.UID)
	if !errors.Is(err, podjob.ErrNotFound) || !strings.Contains(err.Error(), "its Job ns/etl of UID job-ns-etl is gone (the Job of that name now has UID job-etl-again)") {
		t.Errorf("lingering pod: %v", err)
	}
	if snap.Jobs[0].UID() != cur.UID {
		t.Errorf("UID %q", snap.Jobs[0].UID())
	}
}

// With Options.SchedulerName, the pods of other schedulers join no job:
// a Job whose pods all name another scheduler is not the plugin's, one
// that mixes is refused naming the other's pod; they still hold their
// slots on their nodes.
func TestSchedulerName(t *testing.T) {
	ann := map[string]string{podjob.AnnotationRelativeDeadline: "1s"}
	other := kubetest.Scheduler("schedkit-dbs")
	pods := []*v1.Pod{
		pod("theirs-0", "theirs", 0, other),
		pod("theirs-1", "theirs", 1, other, kubetest.Running("n1", sub), kubetest.Slot),
		pod("mixed-0", "mixed", 0),
		pod("mixed-1", "mixed", 1, other),
		pod("ours-0", "ours", 0),
	}
	snap := podjob.BuildWith(now, pods, lookup(job("theirs", ann), job("mixed", ann), job("ours", ann)),
		[]*v1.Node{kubetest.Node("n1", 2, 0)}, podjob.Options{SchedulerName: kubetest.DefaultScheduler})
	if len(snap.Jobs) != 1 || snap.Jobs[0].ID() != "Job/ns/ours" {
		t.Errorf("jobs %v, want only ours", snap.Jobs)
	}
	if _, ok := snap.Pod("pod-theirs-0"); ok || snap.PodError("pod-theirs-0") != nil {
		t.Error("another scheduler's pod was managed")
	}
	want := `podjob: Job ns/mixed: its pod mixed-1 names scheduler "schedkit-dbs", not "schedkit": a job's pods name one scheduler`
	if err := snap.PodError("pod-mixed-0"); err == nil || err.Error() != want {
		t.Errorf("mixed: %v\nwant %s", err, want)
	}
	if a := snap.Cluster.Node(0).Available(); a[0] != 1 {
		t.Errorf("n1 available %v: the other scheduler's running pod holds a slot", a)
	}
}

// A node advertising more slots than podjob counts is left out with the
// reason, every other node counts: one node of 2^32
// map slots, one of 3e9 reduce slots; and the last node that would bring
// the cluster past 2^31 − 1 slots of a kind.
func TestSlotBounds(t *testing.T) {
	nodes := []*v1.Node{kubetest.Node("ok", 4, 2), kubetest.Node("huge", 1<<32, 1), kubetest.Node("red", 1, 3e9)}
	snap := podjob.Build(now, nil, nil, nodes)
	if c := snap.Cluster.Capacity(); c[0] != 4 || c[1] != 2 || snap.Cluster.Nodes() != 1 {
		t.Errorf("capacity %v over %d nodes, want [4 2] over 1", c, snap.Cluster.Nodes())
	}
	for name, want := range map[string]string{
		"huge": "podjob: node huge: schedkit.io/map-slot: allocatable 4294967296 is more than 65536 slots a node: its slots are left out",
		"red":  "podjob: node red: schedkit.io/reduce-slot: allocatable 3000000000 is more than 65536 slots a node",
	} {
		if err := snap.Refused[name]; err == nil || !strings.HasPrefix(err.Error(), want) || !errors.Is(err, podjob.ErrInvalid) {
			t.Errorf("%s: %v, want %q", name, err, want)
		}
	}
	if len(snap.Refused) != 2 {
		t.Errorf("refused %v", snap.Refused)
	}

	n := podjob.MaxClusterSlots/podjob.MaxNodeSlots + 1
	many := make([]*v1.Node, n)
	slots := *resource.NewQuantity(podjob.MaxNodeSlots, resource.DecimalSI)
	for i := range many {
		many[i] = &v1.Node{ObjectMeta: metav1.ObjectMeta{Name: fmt.Sprintf("n%05d", i)},
			Status: v1.NodeStatus{Allocatable: v1.ResourceList{podjob.ResourceMapSlot: slots}}}
	}
	snap = podjob.Build(now, nil, nil, many)
	last := fmt.Sprintf("n%05d", n-1)
	if err := snap.Refused[last]; len(snap.Refused) != 1 || err == nil || !strings.Contains(err.Error(), "would bring the cluster past 2147483647") {
		t.Errorf("refused %v, want only %s", snap.Refused, last)
	}
	if c := snap.Cluster.Capacity(); c[0] != float64((n-1)*podjob.MaxNodeSlots) {
		t.Errorf("capacity %v", c)
	}
}

// ChangeOf tells the updates that change nothing Build reads from a
// binding, a bound pod's status, and the rest.
func TestChangeOf(t *testing.T) {
	ready := pod("a", "j", 0)
	bound := ready.DeepCopy()
	kubetest.Bound("n1")(bound)
	started := bound.DeepCopy()
	kubetest.Running("n1", now)(started)
	started.Status.Conditions = []v1.PodCondition{{Type: v1.PodReady, Status: v1.ConditionTrue}}
	failedAttempt := ready.DeepCopy()
	failedAttempt.Status.Conditions = []v1.PodCondition{{Type: v1.PodScheduled, Status: v1.ConditionFalse, Reason: "Unschedulable"}}
	mut := func(p *v1.Pod, f ...func(*v1.Pod)) *v1.Pod {
		q := p.DeepCopy()
		for _, g := range f {
			g(q)
		}
		return q
	}
	j := job("j", map[string]string{podjob.AnnotationPhi: "1"})
	mutJob := func(f func(*batchv1.Job)) *batchv1.Job { k := j.DeepCopy(); f(k); return k }
	n := kubetest.Node("n1", 2, 1)
	mutNode := func(f func(*v1.Node)) *v1.Node { m := n.DeepCopy(); f(m); return m }
	for _, tc := range []struct {
		name     string
		old, cur runtime.Object
		want     podjob.Change
	}{
		{"binding", ready, bound, podjob.Bound},
		{"kubelet's start", bound, started, podjob.Started},
		{"failed attempt's condition", ready, failedAttempt, podjob.Unchanged},
		{"finished", started, mut(started, func(p *v1.Pod) { p.Status.Phase = v1.PodSucceeded }), podjob.Changed},
		{"failed", started, mut(started, kubetest.Failed), podjob.Changed},
		{"terminating", started, mut(started, func(p *v1.Pod) { p.DeletionTimestamp = &metav1.Time{Time: now} }), podjob.Changed},
		{"ungated", mut(ready, kubetest.Gated), ready, podjob.Changed},
		{"phase label", ready, mut(ready, kubetest.Reduce), podjob.Changed},
		{"annotation", ready, mut(ready, kubetest.Annotate(podjob.AnnotationPhi, "0")), podjob.Changed},
		{"owner", ready, mut(ready, func(p *v1.Pod) { p.OwnerReferences = nil }), podjob.Changed},
		{"scheduler", ready, mut(ready, kubetest.Scheduler("other")), podjob.Changed},
		{"requests", ready, mut(ready, kubetest.Slot), podjob.Changed},
		{"moved", started, mut(started, func(p *v1.Pod) { p.Spec.NodeName = "n2" }), podjob.Changed},
		{"unbound", started, mut(started, func(p *v1.Pod) { p.Spec.NodeName = "" }), podjob.Changed},
		{"Job status", j, mutJob(func(j *batchv1.Job) { j.Status.Active = 3 }), podjob.Unchanged},
		{"Job's queue annotation", j, mutJob(func(j *batchv1.Job) { j.Annotations[podjob.AnnotationQueue] = "high" }), podjob.Unchanged},
		{"Job annotation", j, mutJob(func(j *batchv1.Job) { j.Annotations[podjob.AnnotationBudget] = "5" }), podjob.Changed},
		{"Job re-created", j, mutJob(func(j *batchv1.Job) { j.UID = "other" }), podjob.Changed},
		{"node's status report", n, mutNode(func(n *v1.Node) { n.Status.Conditions[0].LastHeartbeatTime = metav1.NewTime(now) }), podjob.Unchanged},
		{"node's taint", n, mutNode(kubetest.Taint("example.com/t")), podjob.Unchanged},
		{"node's CPU", n, mutNode(kubetest.Resources("8", "1Gi")), podjob.Unchanged},
		{"node slots", n, mutNode(func(n *v1.Node) { n.Status.Allocatable[podjob.ResourceMapSlot] = resource.MustParse("3") }), podjob.Changed},
		{"cordoned", n, mutNode(kubetest.Cordoned), podjob.Changed},
		{"rack", n, mutNode(kubetest.NodeLabel(podjob.LabelRack, "r2")), podjob.Changed},
		{"type changed", ready, n, podjob.Changed},
	} {
		if got := podjob.ChangeOf(tc.old, tc.cur); got != tc.want {
			t.Errorf("%s: %v, want %v", tc.name, got, tc.want)
		}
	}
}

// A bound pod kube-scheduler's informer drops (it finished, or was
// deleted while bound) is listed as running for its grace, then
// forgotten by itself, whether or not anyone lists (a plugin
// that never listed through Listers.List kept every one for ever).
func TestFinishingForgotten(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var pods []runtime.Object
	for i := range 20 {
		pods = append(pods, kubetest.Pod("ns", fmt.Sprintf("p%02d", i), sub, kubetest.Running("n1", sub), kubetest.Slot))
	}
	client := kubetest.NewClient(pods...)
	f := informers.NewSharedInformerFactory(client, 0)
	h := &kubetest.Handle{Factory: f, Client: client}
	lis, err := podjob.NewListers(ctx, h, podjob.Hooks{SchedulerName: kubetest.DefaultScheduler, Changed: func() {}, FinishGrace: 50 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	f.Start(ctx.Done())
	f.WaitForCacheSync(ctx.Done())
	client.WaitWatches(t, "pods", 2) // the scheduler's and the succeeded ones
	for _, o := range pods {
		p := o.(*v1.Pod)
		if err := client.CoreV1().Pods("ns").Delete(ctx, p.Name, metav1.DeleteOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	deadline := time.Now().Add(5 * time.Second)
	for lis.Finishing() < len(pods) && time.Now().Before(deadline) {
		time.Sleep(5 * time.Millisecond)
	}
	if got, err := lis.List(); err != nil || len(got) != len(pods) {
		t.Errorf("within the grace: listed %d pods (%v), want the %d dropped ones", len(got), err, len(pods))
	}
	for lis.Finishing() > 0 && time.Now().Before(deadline) {
		time.Sleep(5 * time.Millisecond)
	}
	if n := lis.Finishing(); n != 0 {
		t.Errorf("%d dropped pods kept after their grace", n)
	}
}
