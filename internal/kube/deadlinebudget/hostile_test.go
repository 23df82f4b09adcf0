package deadlinebudget

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/tools/events"
	fwk "k8s.io/kube-scheduler/framework"
	clocktesting "k8s.io/utils/clock/testing"

	"github.com/schedkit/schedkit/dbs"
	"github.com/schedkit/schedkit/internal/kube/kubetest"
	"github.com/schedkit/schedkit/internal/kube/podjob"
	"github.com/schedkit/schedkit/internal/kube/queuesort"
)

// The plugin in a shared cluster.

// The pods the scheduler's informer drops — finished, or
// deleted while bound — are forgotten after their grace; before, the
// plugin kept every one for the life of the process.
func TestDroppedPodsForgotten(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	j := kjob("j", podjob.AnnotationPhi, "1", podjob.AnnotationRelativeDeadline, "600s")
	client := kubetest.NewClient(j, node("n1", 100, 0))
	f := informers.NewSharedInformerFactory(client, 0)
	h := &kubetest.Handle{Factory: f, Client: client}
	pl, err := newPlugin(clocktesting.NewFakePassiveClock(now), Args{TickInterval: metav1.Duration{Duration: DefaultTickInterval}})
	if err != nil {
		t.Fatal(err)
	}
	pl.host, err = queuesort.NewHost(ctx, queuesort.Config{Name: Name, Handle: h, Options: podjob.Options{Budget: true},
		Take: pl.take, FinishGrace: 50 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	f.Start(ctx.Done())
	f.WaitForCacheSync(ctx.Done())
	client.WaitWatches(t, "pods", 2)
	for round := range 5 {
		for i := range 40 {
			p := pod(fmt.Sprintf("p%d-%02d", round, i), "j", i, runningSince(now), kubetest.Slot)
			if _, err := client.CoreV1().Pods("ns").Create(ctx, p, metav1.CreateOptions{}); err != nil {
				t.Fatal(err)
			}
			if err := client.CoreV1().Pods("ns").Delete(ctx, p.Name, metav1.DeleteOptions{}); err != nil {
				t.Fatal(err)
			}
		}
		pl.Tick(ctx)
	}
	deadline := time.Now().Add(5 * time.Second)
	for pl.host.Lis.Finishing() > 0 && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	if n := pl.host.Lis.Finishing(); n != 0 {
		t.Errorf("%d dropped pods kept", n)
	}
}

// hostFixture is a fixture whose plugin records events.
func hostFixture(t *testing.T, raw string) (*fixture, *kubetest.Handle) {
	fx := newFixture(t, raw)
	h := &kubetest.Handle{Events: events.NewFakeRecorder(100)}
	fx.pl.handle, fx.pl.host.Handle = h, h
	return fx, h
}

// Nodes whose slots together pass 2^31 − 1 (three of 1e9) are
// refused, each with an event naming it; the other nodes' slots still
// count and no pod is held back (before, dbs refused the cluster and
// every pod was held back, naming no node).
func TestAbsurdNodes(t *testing.T) {
	ctx := context.Background()
	fx, h := hostFixture(t, `{}`)
	fx.add(t, node("ok", 2, 1), node("big-a", 1e9, 0), node("big-b", 1e9, 0), node("big-c", 1e9, 0),
		kjob("j", podjob.AnnotationPhi, "1", podjob.AnnotationRelativeDeadline, "600s"), pod("j-0", "j", 0))
	p, _ := fx.pl.host.Lis.Pods.Pods("ns").Get("j-0")
	if st := fx.pl.PreEnqueue(ctx, p); !st.IsSuccess() {
		t.Errorf("held back: %v", st.Message())
	}
	var refused []string
	for _, e := range kubetest.Drain(h.Events) {
		if strings.HasPrefix(e, "Warning SlotsRefused DeadlineBudget: podjob: node ") {
			refused = append(refused, strings.Fields(e)[5])
		}
	}
	slices.Sort(refused)
	if want := []string{"big-a:", "big-b:", "big-c:"}; !slices.Equal(refused, want) {
		t.Errorf("refused %v, want %v", refused, want)
	}
}

// A Job created "in the future" (the API server's clock ahead)
// is taken as submitted now: its pods pass (before, dbs refused it and
// nothing retried it).
func TestFutureJob(t *testing.T) {
	fx := newFixture(t, `{}`)
	j := kubetest.Job("ns", "ahead", now.Add(time.Hour), podjob.AnnotationPhi, "1", podjob.AnnotationRelativeDeadline, "600s")
	p := kubetest.Pod("ns", "ahead-0", now.Add(time.Hour), kubetest.Of(j))
	fx.add(t, node("n1", 2, 1), j, p)
	if st := fx.pl.PreEnqueue(context.Background(), p); !st.IsSuccess() {
		t.Errorf("held back: %v", st.Message())
	}
	if _, err := fx.pl.Status("Job/ns/ahead"); err != nil {
		t.Errorf("not in dbs: %v", err)
	}
}

// A change of a Job's φ (a user's kubectl annotate
// --overwrite) is applied: the job is submitted to dbs again in its new
// φ's queue, as a restarted replica would, with a TermsApplied event; a
// Job re-created under its name is a new job.
func TestTermsApplied(t *testing.T) {
	ctx := context.Background()
	fx, h := hostFixture(t, `{}`)
	j := kjob("j", podjob.AnnotationPhi, "1", podjob.AnnotationRelativeDeadline, "600s")
	fx.add(t, node("n1", 2, 1), j, pod("j-0", "j", 0))
	fx.pl.Tick(ctx)
	if st, _ := fx.pl.Status("Job/ns/j"); st.Queue != dbs.High {
		t.Fatalf("queue %v", st.Queue)
	}
	changed := j.DeepCopy()
	changed.Annotations[podjob.AnnotationPhi] = "0.5"
	changed.Annotations[podjob.AnnotationBudget] = "40"
	fx.cache.Update(t, changed)
	fx.pl.host.Changed()
	fx.pl.Tick(ctx)
	if st, _ := fx.pl.Status("Job/ns/j"); st.Queue != dbs.Mid {
		t.Errorf("after φ 1 → 0.5: queue %v, want mid", st.Queue)
	}
	want := `Normal TermsApplied Job/ns/j: schedkit.io/phi "1" → "0.5", schedkit.io/budget "" → "40": submitted to dbs again, in the mid queue (its weight, mark and moves start afresh, as on a restart)`
	if ev := kubetest.Drain(h.Events); !slices.Equal(ev, []string{want}) {
		t.Errorf("events %q\nwant %q", ev, want)
	}
	fx.pl.Tick(ctx)
	if ev := kubetest.Drain(h.Events); len(ev) != 0 {
		t.Errorf("applied again: %q", ev)
	}
	if n := len(fx.pl.led.byID["Job/ns/j"].prices); n != 2 {
		t.Errorf("price history of %d points, want High then Mid", n)
	}

	again := changed.DeepCopy()
	again.UID = "job-j-again"
	fx.cache.Update(t, again)
	fx.cache.Delete(t, pod("j-0", "j", 0))
	fx.add(t, kubetest.Pod("ns", "j-again-0", now, kubetest.Of(again)))
	fx.pl.Tick(ctx)
	if n := len(fx.pl.led.byID["Job/ns/j"].prices); n != 1 {
		t.Errorf("re-created Job: price history of %d points, want its own", n)
	}
}

// A Job whose annotations change re-activates its held pods: Job updates
// are no scheduler events, so a fixed φ would wait for the 5-minute
// flush.
func TestJobFixActivates(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	j := kjob("j", podjob.AnnotationPhi, "0.7", podjob.AnnotationRelativeDeadline, "600s")
	p := pod("j-0", "j", 0)
	client := kubetest.NewClient(j, p, node("n1", 2, 1))
	f := informers.NewSharedInformerFactory(client, 0)
	h := &kubetest.Handle{Factory: f, Client: client, Events: events.NewFakeRecorder(100)}
	obj := &runtime.Unknown{Raw: []byte(`{}`)}
	plugin, err := Factory(clocktesting.NewFakePassiveClock(now), false)(ctx, obj, h)
	if err != nil {
		t.Fatal(err)
	}
	pl := plugin.(*Plugin)
	f.Start(ctx.Done())
	f.WaitForCacheSync(ctx.Done())
	client.WaitWatches(t, "jobs", 1)
	if st := pl.PreEnqueue(ctx, p); st.Code() != fwk.UnschedulableAndUnresolvable {
		t.Fatalf("φ 0.7: %v", st)
	}
	fixed := j.DeepCopy()
	fixed.Annotations[podjob.AnnotationPhi] = "1"
	if _, err := client.BatchV1().Jobs("ns").Update(ctx, fixed, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(5 * time.Second)
	var got []string
	for len(got) == 0 && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
		got = h.Activated()
	}
	if !slices.Equal(got, []string{"j-0"}) {
		t.Errorf("activated %v, want j-0", got)
	}
}
