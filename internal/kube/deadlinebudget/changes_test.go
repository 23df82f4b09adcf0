package deadlinebudget

import (
	"context"
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"
	"time"

	batchv1 "k8s.io/api/batch/v1"
	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes/fake"
	fwk "k8s.io/kube-scheduler/framework"
	clocktesting "k8s.io/utils/clock/testing"

	"github.com/schedkit/schedkit/internal/kube/podjob"
)

// TestChangesOrder classifies updates: a binding and a bound pod's
// status leave the order; anything podjob reads of a pod, a Job's
// annotations, a node's slots or schedulability change it.
func TestChangesOrder(t *testing.T) {
	ready := pod("a", "j", 0)
	bound := ready.DeepCopy()
	runningSince(now)(bound)
	later := bound.DeepCopy()
	later.Status.StartTime = &metav1.Time{Time: now.Add(time.Second)}
	later.Status.Conditions = []v1.PodCondition{{Type: v1.PodReady, Status: v1.ConditionTrue}}
	failedAttempt := ready.DeepCopy()
	failedAttempt.Status.Conditions = []v1.PodCondition{{Type: v1.PodScheduled, Status: v1.ConditionFalse, Reason: "Unschedulable"}}
	mut := func(p *v1.Pod, f func(*v1.Pod)) *v1.Pod { q := p.DeepCopy(); f(q); return q }
	job := kjob("j", podjob.AnnotationPhi, "1")
	n := node("n1", 2, 1)
	for _, tc := range []struct {
		name     string
		old, cur runtime.Object
		want     bool
	}{
		{"binding", ready, bound, false},
		{"bound pod's status", bound, later, false},
		{"failed attempt's condition", ready, failedAttempt, false},
		{"finished", bound, mut(bound, func(p *v1.Pod) { p.Status.Phase = v1.PodSucceeded }), true},
		{"failed", bound, mut(bound, func(p *v1.Pod) { p.Status.Phase = v1.PodFailed }), true},
		{"terminating", bound, mut(bound, func(p *v1.Pod) { p.DeletionTimestamp = &metav1.Time{Time: now} }), true},
		{"ungated", mut(ready, func(p *v1.Pod) { p.Spec.SchedulingGates = []v1.PodSchedulingGate{{Name: "g"}} }), ready, true},
		{"phase label", ready, mut(ready, func(p *v1.Pod) { p.Labels = map[string]string{podjob.LabelPhase: "reduce"} }), true},
		{"annotation", ready, mut(ready, func(p *v1.Pod) { p.Annotations = map[string]string{podjob.AnnotationPhi: "0"} }), true},
		{"owner", ready, mut(ready, func(p *v1.Pod) { p.OwnerReferences = nil }), true},
		{"moved", bound, mut(bound, func(p *v1.Pod) { p.Spec.NodeName = "n2" }), true},
		{"unbound", bound, mut(bound, func(p *v1.Pod) { p.Spec.NodeName = "" }), true},
		{"Job status", job, mut2(job, func(j *batchv1.Job) { j.Status.Active = 3 }), false},
		{"Job annotation", job, mut2(job, func(j *batchv1.Job) { j.Annotations[podjob.AnnotationBudget] = "5" }), true},
		{"node condition", n, mutNode(n, func(n *v1.Node) { n.Status.Conditions = []v1.NodeCondition{{Type: v1.NodeReady}} }), false},
		{"node slots", n, mutNode(n, func(n *v1.Node) { n.Status.Allocatable[podjob.ResourceMapSlot] = resource.MustParse("3") }), true},
		{"cordoned", n, mutNode(n, func(n *v1.Node) { n.Spec.Unschedulable = true }), true},
		{"rack", n, mutNode(n, func(n *v1.Node) { n.Labels = map[string]string{podjob.LabelRack: "r2"} }), true},
		{"type changed", ready, n, true},
	} {
		if got := changesOrder(tc.old, tc.cur); got != tc.want {
			t.Errorf("%s: changesOrder %v, want %v", tc.name, got, tc.want)
		}
	}
}

func mut2(j *batchv1.Job, f func(*batchv1.Job)) *batchv1.Job { k := j.DeepCopy(); f(k); return k }
func mutNode(n *v1.Node, f func(*v1.Node)) *v1.Node          { m := n.DeepCopy(); f(m); return m }

// twin is two plugins over one informer cache and one clock: lazy gets
// the events through take and changed, as in a scheduler; eager, the
// reference, evaluates again after every event (every event bumps its
// gen), as a plugin that ignores what an event changed.
type twin struct {
	lazy, eager *Plugin
	handler     func(old, cur any)
	clk         *clocktesting.FakePassiveClock
	factory     informers.SharedInformerFactory
}

func newTwin(t *testing.T, raw string) *twin {
	t.Helper()
	f := informers.NewSharedInformerFactory(fake.NewClientset(), 0)
	args, err := decodeArgs(&runtime.Unknown{Raw: []byte(raw)})
	if err != nil {
		t.Fatal(err)
	}
	clk := clocktesting.NewFakePassiveClock(now)
	tw := &twin{clk: clk, factory: f}
	for _, p := range []**Plugin{&tw.lazy, &tw.eager} {
		if *p, err = newPlugin(clk, args); err != nil {
			t.Fatal(err)
		}
		(*p).pods, (*p).jobs, (*p).nodes = f.Core().V1().Pods().Lister(), f.Batch().V1().Jobs().Lister(), f.Core().V1().Nodes().Lister()
	}
	tw.lazy.earlyFactor = 0           // bindings wait for the Tick: the equivalence tested
	tw.handler = func(old, cur any) { // podjob.NewListersWith's update handler
		if !tw.lazy.take(old, cur) {
			tw.lazy.changed()
		}
	}
	return tw
}

// add adds objects: an order-changing event for both.
func (tw *twin) add(t *testing.T, objs ...runtime.Object) {
	t.Helper()
	for _, o := range objs {
		var err error
		switch o := o.(type) {
		case *v1.Pod:
			err = tw.factory.Core().V1().Pods().Informer().GetIndexer().Add(o)
		case *batchv1.Job:
			err = tw.factory.Batch().V1().Jobs().Informer().GetIndexer().Add(o)
		case *v1.Node:
			err = tw.factory.Core().V1().Nodes().Informer().GetIndexer().Add(o)
		}
		if err != nil {
			t.Fatal(err)
		}
		tw.lazy.gen.Add(1)
		tw.eager.gen.Add(1)
	}
}

// update replaces a pod, as the informer would on an update event.
func (tw *twin) update(t *testing.T, old, cur *v1.Pod) {
	t.Helper()
	if err := tw.factory.Core().V1().Pods().Informer().GetIndexer().Update(cur); err != nil {
		t.Fatal(err)
	}
	tw.handler(old, cur)
	tw.eager.gen.Add(1)
}

// order sorts the ready pods with pl's Less.
func order(t *testing.T, pl *Plugin, pods []*v1.Pod) []string {
	t.Helper()
	q := make([]fwk.QueuedEntityInfo, 0, len(pods))
	for _, p := range pods {
		q = append(q, queued(t, p))
	}
	slices.SortStableFunc(q, func(x, y fwk.QueuedEntityInfo) int {
		switch {
		case pl.Less(x, y):
			return -1
		case pl.Less(y, x):
			return 1
		}
		return 0
	})
	names := make([]string, len(q))
	for i, e := range q {
		names[i] = podjob.QueuedPod(e).Name
	}
	return names
}

// randomCluster loads a random state: nodes with slots, Jobs with random
// φ, budgets and deadlines, map and reduce pods, some finished or
// running. It returns the pods (ready ones among them).
func randomCluster(t *testing.T, tw *twin, rng *rand.Rand) []*v1.Pod {
	for i := range 1 + rng.IntN(3) {
		tw.add(t, node(fmt.Sprintf("n%d", i), int64(2+rng.IntN(8)), int64(1+rng.IntN(3))))
	}
	var pods []*v1.Pod
	for j := range 2 + rng.IntN(7) {
		name := fmt.Sprintf("j%d", j)
		ann := []string{podjob.AnnotationPhi, []string{"1", "0.5", "0"}[rng.IntN(3)],
			podjob.AnnotationBudget, fmt.Sprint(5 + rng.IntN(50)), podjob.AnnotationRelativeDeadline, fmt.Sprintf("%ds", 100+rng.IntN(900))}
		maps, reduces := 1+rng.IntN(10), rng.IntN(3)
		finished := 0
		if reduces > 0 && rng.IntN(2) == 0 {
			finished = maps // reduces open
		} else if rng.IntN(2) == 0 {
			finished = rng.IntN(maps)
		}
		tw.add(t, kjob(name, ann...))
		for i := range maps + reduces {
			p := pod(fmt.Sprintf("%s-%02d", name, i), name, i)
			switch {
			case i >= maps:
				p.Labels = map[string]string{podjob.LabelPhase: "reduce"}
			case i < finished:
				runningSince(now.Add(-time.Duration(30+rng.IntN(60)) * time.Second))(p)
				p.Status.Phase = v1.PodSucceeded
				p.Status.ContainerStatuses = []v1.ContainerStatus{{State: v1.ContainerState{Terminated: &v1.ContainerStateTerminated{
					FinishedAt: metav1.NewTime(now.Add(-time.Duration(rng.IntN(20)) * time.Second))}}}}
			case rng.IntN(4) == 0:
				runningSince(now.Add(-time.Duration(rng.IntN(30)) * time.Second))(p)
			}
			tw.add(t, p)
			pods = append(pods, p)
		}
	}
	return pods
}

// TestBindingKeepsOrder is the equivalence of the deferred bindings:
// on random clusters, pods bind one at a time in the lazy plugin's
// order, with a Tick every few bindings and now and then a running pod
// finishing (which may open a job's reduces); after every step the lazy
// plugin's order of the pods still ready equals the eager one's (which
// evaluates again after every event), every Tick makes the same moves,
// and the lazy plugin evaluates on no binding (the fast path taken).
func TestBindingKeepsOrder(t *testing.T) {
	var deferred, lazyEvals, eagerEvals uint64
	for seed := range uint64(40) {
		rng := rand.New(rand.NewPCG(seed, 27))
		tw := newTwin(t, `{"defaultTaskTime":"20s"}`)
		pods := randomCluster(t, tw, rng)
		ctx := context.Background()
		tw.lazy.Tick(ctx)
		tw.eager.Tick(ctx)
		ready := func() []*v1.Pod {
			var out []*v1.Pod
			for _, p := range pods {
				cur, err := tw.lazy.pods.Pods(p.Namespace).Get(p.Name)
				if err != nil {
					t.Fatal(err)
				}
				if cur.Spec.NodeName == "" && cur.Status.Phase == v1.PodPending {
					out = append(out, cur)
				}
			}
			return out
		}
		for step := 0; ; step++ {
			// Only the pods the lazy plugin's view orders (reduces of
			// jobs with maps left are held back by PreEnqueue).
			var queue []*v1.Pod
			for _, p := range ready() {
				if _, ok := tw.lazy.current(ctx, p, false).seq[p.UID]; ok {
					queue = append(queue, p)
				}
			}
			got, want := order(t, tw.lazy, queue), order(t, tw.eager, queue)
			if !slices.Equal(got, want) {
				t.Fatalf("seed %d step %d: lazy order %v\neager order %v", seed, step, got, want)
			}
			if len(got) == 0 {
				break
			}
			before := tw.lazy.Stats().Evaluations
			var next *v1.Pod
			for _, p := range queue {
				if p.Name == got[0] {
					next = p
				}
			}
			b := next.DeepCopy()
			runningSince(tw.clk.Now())(b)
			tw.update(t, next, b)
			if e := tw.lazy.Stats().Evaluations; e != before {
				t.Fatalf("seed %d step %d: the binding of %s made the lazy plugin evaluate", seed, step, next.Name)
			}
			if rng.IntN(5) == 0 { // a pod finishes: both evaluate again
				var running []*v1.Pod
				for _, p := range pods {
					if cur, _ := tw.lazy.pods.Pods(p.Namespace).Get(p.Name); cur.Spec.NodeName != "" && cur.Status.Phase == v1.PodRunning {
						running = append(running, cur)
					}
				}
				if len(running) > 0 {
					p := running[rng.IntN(len(running))]
					f := p.DeepCopy()
					f.Status.Phase = v1.PodSucceeded
					f.Status.ContainerStatuses = []v1.ContainerStatus{{State: v1.ContainerState{Terminated: &v1.ContainerStateTerminated{
						FinishedAt: metav1.NewTime(tw.clk.Now())}}}}
					tw.update(t, p, f)
				}
			}
			if rng.IntN(4) == 0 {
				tw.clk.SetTime(tw.clk.Now().Add(500 * time.Millisecond))
				lm, em := tw.lazy.Tick(ctx), tw.eager.Tick(ctx)
				if decisions(lm) != decisions(em) {
					t.Fatalf("seed %d step %d: lazy moves %v, eager %v", seed, step, lm, em)
				}
			}
		}
		st := tw.lazy.Stats()
		deferred += st.Deferred
		lazyEvals += st.Evaluations
		eagerEvals += tw.eager.Stats().Evaluations
	}
	if deferred == 0 || lazyEvals >= eagerEvals {
		t.Errorf("deferred %d events; evaluations: lazy %d, eager %d", deferred, lazyEvals, eagerEvals)
	}
	t.Logf("deferred %d bindings; evaluations: lazy %d, eager %d", deferred, lazyEvals, eagerEvals)
}

// decisions renders moves without their jobs' objects.
func decisions(moves []Move) string {
	var out []string
	for _, m := range moves {
		out = append(out, fmt.Sprintf("%s %+v", m.Decision, m.Decision.Figures))
	}
	return fmt.Sprint(out)
}

// TestTickWithoutEvents: a Tick with no event since the last evaluation
// re-reads dbs's order without listing the cluster.
func TestTickWithoutEvents(t *testing.T) {
	fx := newFixture(t, `{"defaultTaskTime":"30s"}`)
	exampleCluster(t, fx)
	fx.pl.Tick(context.Background())
	fx.clk.SetTime(now.Add(500 * time.Millisecond))
	fx.pl.Tick(context.Background())
	if st := fx.pl.Stats(); st.Evaluations != 1 || st.Reorders != 1 {
		t.Errorf("stats %+v, want 1 evaluation and 1 reorder", st)
	}
}
