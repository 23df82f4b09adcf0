package deadlinebudget

import (
	"context"
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"
	"time"

	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	fwk "k8s.io/kube-scheduler/framework"
	clocktesting "k8s.io/utils/clock/testing"

	"github.com/schedkit/schedkit/dbs"
	"github.com/schedkit/schedkit/internal/kube/kubetest"
	"github.com/schedkit/schedkit/internal/kube/podjob"
)

// twin is two plugins over one informer cache and one clock: lazy gets
// the events through take and its host's Changed, as in a scheduler;
// eager, the reference, evaluates again after every event (every event
// moves its host's Gen), as a plugin that ignores what an event changed.
type twin struct {
	lazy, eager *Plugin
	clk         *clocktesting.FakePassiveClock
	cache       *kubetest.Cache
}

func newTwin(t *testing.T, raw string) *twin {
	t.Helper()
	args, err := decodeArgs(&runtime.Unknown{Raw: []byte(raw)})
	if err != nil {
		t.Fatal(err)
	}
	clk := clocktesting.NewFakePassiveClock(now)
	tw := &twin{clk: clk, cache: kubetest.NewCache()}
	for _, p := range []**Plugin{&tw.lazy, &tw.eager} {
		if *p, err = newPlugin(clk, args); err != nil {
			t.Fatal(err)
		}
		(*p).host = testHost(tw.cache)
	}
	tw.lazy.earlyFactor = 0 // bindings wait for the Tick: the equivalence tested
	return tw
}

// add adds objects: an order-changing event for both.
func (tw *twin) add(t *testing.T, objs ...runtime.Object) {
	t.Helper()
	for _, o := range objs {
		tw.cache.Add(t, o)
		tw.lazy.host.Changed()
		tw.eager.host.Changed()
	}
}

// update replaces a pod, as the informer would on an update event
// (podjob.NewListers's update handler for lazy).
func (tw *twin) update(t *testing.T, old, cur *v1.Pod) {
	t.Helper()
	tw.cache.Update(t, cur)
	if !tw.lazy.take(old, cur) {
		tw.lazy.host.Changed()
	}
	tw.eager.host.Changed()
}

// order sorts the ready pods with pl's Less.
func order(t *testing.T, pl *Plugin, pods []*v1.Pod) []string {
	t.Helper()
	q := make([]fwk.QueuedEntityInfo, 0, len(pods))
	for _, p := range pods {
		q = append(q, queued(t, p))
	}
	return kubetest.SortedNames(q, pl.Less)
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
				cur, err := tw.lazy.host.Lis.Pods.Pods(p.Namespace).Get(p.Name)
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
				if _, ok := tw.lazy.current(ctx, p, false).Seq[p.UID]; ok {
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
					if cur, _ := tw.lazy.host.Lis.Pods.Pods(p.Namespace).Get(p.Name); cur.Spec.NodeName != "" && cur.Status.Phase == v1.PodRunning {
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
	ds := make([]dbs.Decision, len(moves))
	for i, m := range moves {
		ds[i] = m.Decision
	}
	return render(ds)
}

// render renders decisions with their figures.
func render(ds []dbs.Decision) string {
	var out []string
	for _, d := range ds {
		out = append(out, fmt.Sprintf("%s %+v", d, d.Figures))
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
