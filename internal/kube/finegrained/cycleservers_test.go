package finegrained

import (
	"context"
	"fmt"
	"math/rand/v2"
	"testing"
	"time"

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/klog/v2"
	fwk "k8s.io/kube-scheduler/framework"
	"k8s.io/kubernetes/pkg/scheduler/framework"
	clocktesting "k8s.io/utils/clock/testing"

	"github.com/schedkit/schedkit/estimate"
	"github.com/schedkit/schedkit/fgm"
	skres "github.com/schedkit/schedkit/resource"
)

// filterLiteral is Filter as it reads without cycleServers: the node's
// server built afresh for the call.
func (pl *Plugin) filterLiteral(c *cycle, ni fwk.NodeInfo) *fwk.Status {
	srv, node, st := pl.server(ni, c.now, c.uid, new(skres.Timeline))
	if st != nil {
		return st
	}
	rates := make([]float64, len(c.stages)*2)
	v, err := pl.fitter.Fit(srv, c.now, c.stages, c.requested, rates)
	if err != nil {
		return fwk.NewStatus(fwk.UnschedulableAndUnresolvable, Name+": "+err.Error())
	}
	if v.Test == fgm.Passed {
		return nil
	}
	return fwk.NewStatus(fwk.Unschedulable, pl.explain(v, c, node))
}

// scoreLiteral is Score as it reads without cycleServers and
// leastAfter: the node's server built afresh, the pod reserved on its
// timeline, the least free read off it.
func (pl *Plugin) scoreLiteral(c *cycle, ni fwk.NodeInfo) (int64, *fwk.Status) {
	srv, _, st := pl.server(ni, c.now, c.uid, new(skres.Timeline))
	if st != nil {
		return 0, st
	}
	self := &plan{start: c.now, stages: c.stages, requested: c.requested}
	self.setPeak()
	h := pl.fitter.Horizon()
	reserve(srv.Free, self, c.now, h)
	span := h
	if c.stages != nil {
		span = estimate.Profile{Stages: c.stages}.Duration()
	}
	least := make(skres.Vector, len(srv.Capacity))
	_ = srv.Free.Min(0, max(span, 1), least)
	return ScoreOf(least, srv.Capacity), nil
}

var testNow = time.Date(2026, 11, 23, 4, 0, 0, 0, time.UTC)

func quantities(cpu, mem string) v1.ResourceList {
	return v1.ResourceList{v1.ResourceCPU: resource.MustParse(cpu), v1.ResourceMemory: resource.MustParse(mem)}
}

// history teaches keys "two" (2 stages) and "three" (3 stages); "new"
// stays unknown (unpredictable).
func history(r *rand.Rand, load float64) []RecordedTask {
	var recs []RecordedTask
	for _, k := range []struct {
		logic  string
		stages int
	}{{"two", 2}, {"three", 3}} {
		for i := range 2 {
			rec := RecordedTask{Pod: types.UID(fmt.Sprintf("h-%s-%d", k.logic, i)), Logic: k.logic, Succeeded: true}
			for range k.stages * 2 {
				rec.Samples = append(rec.Samples, RecordedSample{Duration: metav1.Duration{Duration: time.Duration(10+r.IntN(50)) * time.Second},
					Used: quantities(fmt.Sprintf("%dm", 100+scaled(r, 3000, load)), fmt.Sprintf("%dMi", 64+scaled(r, 4096, load)))})
			}
			recs = append(recs, rec)
		}
	}
	return recs
}

// scaled is a random amount below n × load.
func scaled(r *rand.Rand, n int, load float64) int { return r.IntN(max(1, int(float64(n)*load))) }

var logics = []string{"two", "three", "new", ""}

func randomPod(r *rand.Rand, name string, load float64) *v1.Pod {
	p := &v1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: name, UID: types.UID("uid-" + name), Annotations: map[string]string{}},
		Spec: v1.PodSpec{SchedulerName: DefaultSchedulerName, Containers: []v1.Container{{Name: "c",
			Resources: v1.ResourceRequirements{Requests: quantities(fmt.Sprintf("%dm", 100+scaled(r, 2000, load)), fmt.Sprintf("%dMi", 64+scaled(r, 2048, load)))}}}}}
	if l := logics[r.IntN(len(logics))]; l != "" {
		p.Annotations["schedkit.io/logic"] = l
	}
	return p
}

// randomCluster makes nodes with up to maxPods pods each (requests and
// usage scaled by load): our pods (running for a while, some
// past their prediction, some reserved by the plugin just now), foreign
// pods, and usage samples for some of them. It returns the plugin (fed
// the history and the samples) and the nodes.
func randomCluster(t testing.TB, r *rand.Rand, nodes, maxPods int, load float64) (*Plugin, []fwk.NodeInfo) {
	t.Helper()
	rec := Recording{Finished: history(r, load)}
	type member struct {
		pod      *v1.Pod
		reserved bool
	}
	members := make([][]member, nodes)
	for n := range nodes {
		for i := range r.IntN(maxPods + 1) {
			p := randomPod(r, fmt.Sprintf("n%d-p%d", n, i), load)
			p.Spec.NodeName = fmt.Sprintf("n%d", n)
			switch r.IntN(4) {
			case 0:
				p.Spec.SchedulerName = "default-scheduler"
			case 1: // reserved by the plugin below, not started
				members[n] = append(members[n], member{p, true})
				continue
			}
			if r.IntN(4) > 0 {
				st := metav1.NewTime(testNow.Add(-time.Duration(r.IntN(600)) * time.Second))
				p.Status.StartTime = &st
			}
			members[n] = append(members[n], member{pod: p})
		}
		if r.IntN(2) == 0 {
			s := RecordedNode{Node: fmt.Sprintf("n%d", n), At: metav1.NewTime(testNow.Add(-time.Second)),
				Used: quantities(fmt.Sprintf("%dm", scaled(r, 12000, load)), fmt.Sprintf("%dMi", scaled(r, 30000, load))), Pods: map[string]v1.ResourceList{}}
			for _, m := range members[n] {
				if r.IntN(2) == 0 {
					s.Pods[string(m.pod.UID)] = quantities(fmt.Sprintf("%dm", scaled(r, 2000, load)), fmt.Sprintf("%dMi", scaled(r, 2048, load)))
				}
			}
			rec.Nodes = append(rec.Nodes, s)
		}
	}
	feed, err := NewRecordedFeed(rec)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	obj, err := NewWithFeed(feed, clocktesting.NewFakePassiveClock(testNow))(ctx, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	pl := obj.(*Plugin)
	out := make([]fwk.NodeInfo, nodes)
	for n := range nodes {
		ni := framework.NewNodeInfo()
		for _, m := range members[n] {
			if m.reserved {
				state := framework.NewCycleState()
				if _, st := pl.PreFilter(ctx, state, m.pod, nil); !st.IsSuccess() {
					t.Fatal(st)
				}
				if st := pl.Reserve(ctx, state, m.pod, m.pod.Spec.NodeName); !st.IsSuccess() {
					t.Fatal(st)
				}
			}
			ni.AddPod(m.pod)
		}
		ni.SetNode(&v1.Node{ObjectMeta: metav1.ObjectMeta{Name: fmt.Sprintf("n%d", n)},
			Status: v1.NodeStatus{Allocatable: quantities(fmt.Sprint(4+r.IntN(13)), fmt.Sprintf("%dGi", 8+r.IntN(57)))}})
		out[n] = ni
	}
	return pl, out
}

// Filter and Score on the cycle's shared servers decide exactly what
// they decide on servers built afresh for each call (filterLiteral,
// scoreLiteral), on random clusters, pods, and what-if clones of the
// nodes; every node's server is built once per cycle and NodeInfo
// generation, and each Score finds it built. Every other cluster has
// more nodes than a block of servers (newServer).
func TestCycleServersEqualFreshBuilds(t *testing.T) {
	ctx := context.Background()
	outcomes := map[fwk.Code]int{}
	for seed := range uint64(40) {
		r := rand.New(rand.NewPCG(seed, 33))
		pl, nodes := randomCluster(t, r, []int{8, serverBlock + 8}[seed%2], 5, 1)
		for i := range 5 {
			p := randomPod(r, fmt.Sprintf("q%d", i), 1)
			state := framework.NewCycleState()
			if _, st := pl.PreFilter(ctx, state, p, nodes); !st.IsSuccess() {
				t.Fatal(st)
			}
			c, st := readCycle(state)
			if st != nil {
				t.Fatal(st)
			}
			before := pl.Stats()
			scored := 0
			for _, ni := range nodes {
				got, want := pl.Filter(ctx, state, p, ni), pl.filterLiteral(c, ni)
				if got.Code() != want.Code() || got.Message() != want.Message() {
					t.Fatalf("seed %d pod %d node %s: Filter %v %q, fresh build %v %q", seed, i, ni.Node().Name,
						got.Code(), got.Message(), want.Code(), want.Message())
				}
				outcomes[got.Code()]++
				if !got.IsSuccess() {
					continue
				}
				scored++
				for range 2 { // a second Score reads the same, unchanged server
					gotScore, st := pl.Score(ctx, state, p, ni)
					wantScore, _ := pl.scoreLiteral(c, ni)
					if !st.IsSuccess() || gotScore != wantScore {
						t.Fatalf("seed %d pod %d node %s: Score %d (%v), fresh build %d", seed, i, ni.Node().Name, gotScore, st, wantScore)
					}
				}
			}
			after := pl.Stats()
			if b, s := after.ServersBuilt-before.ServersBuilt, after.ServersShared-before.ServersShared; b != uint64(len(nodes)) || s != uint64(2*scored) {
				t.Fatalf("seed %d pod %d: %d servers built, %d shared; want %d and %d", seed, i, b, s, len(nodes), 2*scored)
			}
			// A what-if: a clone of a node with a pod removed has a
			// generation, and a server, of its own.
			for _, ni := range nodes {
				pods := ni.GetPods()
				if len(pods) == 0 {
					continue
				}
				clone := ni.Snapshot()
				if err := clone.(*framework.NodeInfo).RemovePod(klog.Background(), pods[r.IntN(len(pods))].GetPod()); err != nil {
					t.Fatal(err)
				}
				got, want := pl.Filter(ctx, state, p, clone), pl.filterLiteral(c, clone)
				if got.Code() != want.Code() || got.Message() != want.Message() {
					t.Fatalf("seed %d pod %d what-if on %s: Filter %v %q, fresh build %v %q", seed, i, ni.Node().Name,
						got.Code(), got.Message(), want.Code(), want.Message())
				}
			}
		}
	}
	// The random clusters exercise both answers.
	if outcomes[fwk.Success] < 100 || outcomes[fwk.Unschedulable] < 100 {
		t.Errorf("Filter outcomes %v: too few of one kind to compare", outcomes)
	}
	t.Logf("Filter outcomes %v", outcomes)
}

// leastAfter reads what reserving the pod on the timeline and taking
// its least would read, in every shape of pod: predictable, with stages
// lasting 0, unpredictable, with and without a horizon.
func TestLeastAfterEqualsReserveThenMin(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 33))
	now := testNow
	for i := range 2000 {
		// free, want and before: one timeline built three times.
		base := skres.Vector{float64(r.IntN(16)), float64(r.IntN(64))}
		type sub struct {
			a, b time.Duration
			v    skres.Vector
		}
		var subs []sub
		for range r.IntN(6) {
			a := time.Duration(r.IntN(200)-50) * time.Second
			subs = append(subs, sub{a, a + time.Duration(1+r.IntN(300))*time.Second, skres.Vector{r.Float64() * 4, r.Float64() * 8}})
		}
		build := func() *skres.Timeline {
			tl, err := skres.NewTimeline(base)
			if err != nil {
				t.Fatal(err)
			}
			for _, s := range subs {
				_ = tl.Sub(s.a, s.b, s.v)
			}
			return tl
		}
		free := build()
		var stages []estimate.Stage
		switch r.IntN(3) {
		case 0: // unpredictable
		case 1:
			stages = []estimate.Stage{{Duration: 0, Demand: skres.Vector{1, 1}}}
		default:
			for range 1 + r.IntN(4) {
				stages = append(stages, estimate.Stage{Duration: time.Duration(r.IntN(3)) * time.Duration(r.IntN(100)) * time.Second,
					Demand: skres.Vector{r.Float64() * 4, r.Float64() * 8}})
			}
		}
		requested := skres.Vector{r.Float64() * 2, r.Float64() * 4}
		h := []time.Duration{0, time.Minute, 24 * time.Hour}[r.IntN(3)]

		want := build()
		self := &plan{start: now, stages: stages, requested: requested}
		self.setPeak()
		reserve(want, self, now, h)
		span := h
		if stages != nil {
			span = estimate.Profile{Stages: stages}.Duration()
		}
		wantLeast := make(skres.Vector, 2)
		_ = want.Min(0, max(span, 1), wantLeast)

		before := build()
		got := make(skres.Vector, 2)
		leastAfter(free, stages, requested, h, got)
		if !got.Equal(wantLeast) {
			t.Fatalf("case %d: leastAfter %v, reserve then Min %v (stages %v, h %v)", i, got, wantLeast, stages, h)
		}
		if free.Len() != before.Len() || !free.At(0).Equal(before.At(0)) {
			t.Fatalf("case %d: leastAfter changed the timeline", i)
		}
	}
}

// BenchmarkFilterScore is one scheduling cycle of a pod on a cluster of
// 500 nodes with pods of ours (0 to 2×pods per node; a quarter foreign)
// and usage samples for half of them: PreFilter, Filter on every node,
// Score on every node that fits (nearly all: pods and samples are a
// tenth of the test's). shared is the plugin's Filter and
// Score (one server per node and cycle, cycleServers); fresh builds the
// server for each call (filterLiteral, scoreLiteral), as the plugin did
// before.
func BenchmarkFilterScore(b *testing.B) {
	ctx := context.Background()
	for _, pods := range []int{2, 10} {
		for _, logic := range []string{"new", "two"} {
			r := rand.New(rand.NewPCG(1, 33))
			pl, nodes := randomCluster(b, r, 500, 2*pods, 0.1)
			p := randomPod(r, "q", 0.1)
			p.Annotations["schedkit.io/logic"] = logic
			for _, mode := range []string{"shared", "fresh"} {
				b.Run(fmt.Sprintf("pods=%d/logic=%s/%s", pods, logic, mode), func(b *testing.B) {
					b.ReportAllocs()
					for b.Loop() {
						state := framework.NewCycleState()
						if _, st := pl.PreFilter(ctx, state, p, nodes); !st.IsSuccess() {
							b.Fatal(st)
						}
						c, _ := readCycle(state)
						for _, ni := range nodes {
							if mode == "shared" {
								if pl.Filter(ctx, state, p, ni).IsSuccess() {
									_, _ = pl.Score(ctx, state, p, ni)
								}
							} else if pl.filterLiteral(c, ni).IsSuccess() {
								_, _ = pl.scoreLiteral(c, ni)
							}
						}
					}
				})
			}
		}
	}
}
