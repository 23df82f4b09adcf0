package leastsparetime

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"
	"time"

	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/schedkit/schedkit/internal/kube/kubetest"
	"github.com/schedkit/schedkit/internal/kube/podjob"
)

// slotPod is a pod of job requesting one slot of its phase's kind.
func slotPod(name, jobName string, created time.Duration, isReduce bool, mutate ...func(*v1.Pod)) *v1.Pod {
	p := pod(name, jobName, created, mutate...)
	if isReduce {
		reduce(p)
	}
	kubetest.Slot(p)
	return p
}

// TestDeltaEqualsEvaluate: on random clusters, bind random ready pods
// (mostly from the front of lss's order, some out of their job's rank
// order; some of jobs with finished tasks) one at a time, with and
// without the kubelet's status update after each, and after every step
// require the view current keeps (deltas applied, or re-evaluated when a
// delta needs it) to decide as a fresh evaluation: the same pods of each
// kind in the same order, each with the same number of pods before it
// (the gate), the same free slots, the same Less order, the same
// hopeless jobs. The bindings taken without an evaluation must be > 0.
func TestDeltaEqualsEvaluate(t *testing.T) {
	var fast uint64
	for seed := range uint64(60) {
		t.Run(fmt.Sprint(seed), func(t *testing.T) {
			fast += deltaCase(t, seed)
		})
	}
	if fast == 0 {
		t.Error("no binding was applied as a delta")
	}
	t.Logf("%d bindings applied as deltas", fast)
}

func deltaCase(t *testing.T, seed uint64) uint64 {
	rng := rand.New(rand.NewPCG(seed, 7))
	fx := newFixture(t)
	var nodes []string
	for i := range 1 + rng.IntN(3) {
		name := fmt.Sprintf("n%d", i)
		nodes = append(nodes, name)
		fx.add(t, node(name, int64(1+rng.IntN(4)), int64(rng.IntN(3))))
	}
	var jobs []string
	for j := range 1 + rng.IntN(5) {
		name := fmt.Sprintf("j%d", j)
		jobs = append(jobs, name)
		sub := time.Duration(rng.IntN(300)) * time.Second
		fx.add(t, job(name, sub, podjob.AnnotationRelativeDeadline, fmt.Sprintf("%ds", 100+rng.IntN(2000))))
		k := 0
		next := func() string { k++; return fmt.Sprintf("%s-%02d", name, k) }
		done := rng.IntN(3)
		for range done {
			fx.add(t, slotPod(next(), name, sub, false, finished(0, time.Duration(5+rng.IntN(60))*time.Second)))
		}
		for range 1 + rng.IntN(5) {
			fx.add(t, slotPod(next(), name, sub-time.Duration(k)*time.Millisecond, false))
		}
		if done > 0 {
			for range rng.IntN(3) {
				fx.add(t, slotPod(next(), name, sub-time.Duration(k)*time.Millisecond, true))
			}
		}
	}
	pl := fx.pl
	update := func(old, new *v1.Pod) {
		fx.cache.Update(t, new)
		if !pl.take(old, new) {
			pl.host.Changed()
		}
	}
	for step := range 10 {
		v := pl.current(nil)
		k := rng.IntN(2)
		var cands []*v1.Pod
		for i, p := range v.byKind[k] {
			if pos, ok := v.turn[p.UID]; ok && pos.rank == i {
				cands = append(cands, p)
			}
		}
		if len(cands) == 0 {
			continue
		}
		old := v.Pods[cands[min(rng.IntN(4), len(cands)-1)].UID]
		bound := old.DeepCopy()
		bound.Spec.NodeName = nodes[rng.IntN(len(nodes))]
		update(old, bound)
		if rng.IntN(2) == 0 {
			running := bound.DeepCopy()
			running.Status.Phase = v1.PodRunning
			st := metav1.NewTime(now)
			running.Status.StartTime = &st
			update(bound, running)
		}
		// An unbound pod's condition update changes nothing.
		if len(cands) > 1 {
			other := v.Pods[cands[len(cands)-1].UID]
			if other.UID != old.UID {
				cond := other.DeepCopy()
				cond.Status.Conditions = []v1.PodCondition{{Type: v1.PodScheduled, Status: v1.ConditionFalse}}
				update(other, cond)
			}
		}
		// A pod added to a random job, newer or older than its pods, or
		// to a new job: Less and PreEnqueue may use the view (relative),
		// and must answer as after a fresh evaluation.
		if rng.IntN(2) == 0 {
			jn := fmt.Sprintf("j%d", rng.IntN(len(jobs)+1))
			if !slices.Contains(jobs, jn) {
				fx.add(t, job(jn, 0, podjob.AnnotationRelativeDeadline, "500s"))
				jobs = append(jobs, jn)
			}
			created := -time.Duration(step+1) * time.Second
			if rng.IntN(3) == 0 {
				created = time.Hour
			}
			added := slotPod(fmt.Sprintf("%s-add%d", jn, step), jn, created, false)
			fx.cache.Add(t, added)
			if !pl.take(nil, added) {
				pl.host.Changed()
			}
			rel := pl.viewFor(nil, true)
			st, _ := pl.preEnqueue(added)
			fresh := pl.evaluate(rel.Now, pl.host.Gen(), pl.adds.Load())
			var known []types.UID
			for uid := range fresh.Seq {
				if _, ok := rel.Seq[uid]; ok {
					known = append(known, uid)
				}
			}
			byRel, byFresh := slices.Clone(known), slices.Clone(known)
			slices.SortFunc(byRel, func(a, b types.UID) int { return rel.Seq[a] - rel.Seq[b] })
			slices.SortFunc(byFresh, func(a, b types.UID) int { return fresh.Seq[a] - fresh.Seq[b] })
			if !slices.Equal(byRel, byFresh) {
				t.Errorf("step %d: after adding %s, Less order %v, fresh %v", step, added.Name, byRel, byFresh)
			}
			pl.view = fresh
			if st2, _ := pl.preEnqueue(added); st.Code() != st2.Code() || st.Message() != st2.Message() {
				t.Errorf("step %d: PreEnqueue of added %s: %v, fresh %v", step, added.Name, st, st2)
			}
		}
		got := pl.current(nil)
		want := pl.evaluate(got.Now, pl.host.Gen(), pl.adds.Load())
		compareViews(t, fmt.Sprintf("step %d (bound %s to %s)", step, old.Name, bound.Spec.NodeName), pl, got, want)
	}
	return pl.fastBindings.Load()
}

// compareViews fails unless got decides every ready pod as want.
func compareViews(t *testing.T, at string, pl *Plugin, got, want *view) {
	t.Helper()
	if got.free != want.free {
		t.Errorf("%s: free %v, fresh %v", at, got.free, want.free)
	}
	for k := range 2 {
		var g, w []types.UID
		for i, p := range got.byKind[k] {
			if pos, ok := got.turn[p.UID]; ok && pos.rank == i {
				g = append(g, p.UID)
			}
		}
		for _, p := range want.byKind[k] {
			w = append(w, p.UID)
		}
		if !slices.Equal(g, w) {
			t.Errorf("%s: kind %d order %v, fresh %v", at, k, g, w)
			continue
		}
		for _, uid := range w {
			ahead, _ := pl.turns.ahead(got, got.turn[uid], 0)
			if ahead != want.turn[uid].rank {
				t.Errorf("%s: %s has %d before it, fresh %d", at, uid, ahead, want.turn[uid].rank)
			}
		}
	}
	var ready []types.UID
	for uid := range want.Seq {
		ready = append(ready, uid)
	}
	if len(got.Seq) != len(want.Seq) {
		t.Errorf("%s: %d pods in the Less order, fresh %d", at, len(got.Seq), len(want.Seq))
	}
	bySeq := func(seq map[types.UID]int) []types.UID {
		s := slices.Clone(ready)
		slices.SortFunc(s, func(a, b types.UID) int { return seq[a] - seq[b] })
		return s
	}
	if g, w := bySeq(got.Seq), bySeq(want.Seq); !slices.Equal(g, w) {
		t.Errorf("%s: Less order %v, fresh %v", at, g, w)
	}
	if len(got.hopeless) != len(want.hopeless) {
		t.Errorf("%s: hopeless %v, fresh %v", at, got.hopeless, want.hopeless)
	}
}
