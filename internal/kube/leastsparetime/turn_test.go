package leastsparetime

import (
	"context"
	"slices"
	"strings"
	"testing"
	"time"

	v1 "k8s.io/api/core/v1"
	"k8s.io/klog/v2"
	fwk "k8s.io/kube-scheduler/framework"
	"k8s.io/kubernetes/pkg/scheduler/framework"

	"github.com/schedkit/schedkit/internal/kube/kubetest"
	"github.com/schedkit/schedkit/internal/kube/podjob"
)

// turnFixture is TestLess's cluster: lss's map order b0 a0 c2 c3 b1 a1
// a2, reduce order cr; two nodes of 2 map and 1 reduce slots, all free.
func turnFixture(t *testing.T) (*fixture, map[string]*v1.Pod) {
	fx := newFixture(t)
	fx.add(t, node("n1", 2, 1), node("n2", 2, 1),
		job("a", 10*time.Second, podjob.AnnotationRelativeDeadline, "600s"),
		job("b", 5*time.Second, podjob.AnnotationRelativeDeadline, "300s"),
		job("c", 60*time.Second, podjob.AnnotationRelativeDeadline, "200s"),
		pod("c0", "c", 60*time.Second, finished(0, 20*time.Second)),
		pod("c1", "c", 60*time.Second, finished(0, 20*time.Second)),
	)
	pods := map[string]*v1.Pod{}
	add := func(p *v1.Pod) { fx.add(t, p); pods[p.Name] = p }
	for i, name := range []string{"a0", "a1", "a2"} {
		add(pod(name, "a", 10*time.Second-time.Duration(i)))
	}
	for i, name := range []string{"b0", "b1"} {
		add(pod(name, "b", 5*time.Second-time.Duration(i)))
	}
	add(pod("c3", "c", 59*time.Second))
	add(pod("c2", "c", 59*time.Second))
	add(pod("cr", "c", 59*time.Second, reduce))
	add(pod("plain", "", 0))
	return fx, pods
}

// TestGate: the first four map pods of lss's order and the reduce pass
// (four map and two reduce slots free); b1 is refused, naming the count;
// a pod that found no node is skipped while the nodes stay as they were,
// letting b1 through; once they change the skip is stale, b1 is refused
// again and the skipped pod is returned to be activated.
func TestGate(t *testing.T) {
	ctx := context.Background()
	fx, pods := turnFixture(t)
	gen0 := []fwk.NodeInfo{framework.NewNodeInfo()}
	gen1 := []fwk.NodeInfo{framework.NewNodeInfo()}
	for _, name := range []string{"b0", "a0", "c2", "c3", "cr", "plain"} {
		if _, st := fx.pl.PreFilter(ctx, nil, pods[name], gen0); !st.IsSuccess() {
			t.Errorf("%s refused: %v", name, st)
		}
	}
	_, st := fx.pl.PreFilter(ctx, nil, pods["b1"], gen0)
	if want := "LeastSpareTime: not its turn: 4 map pods come before it in lss's order (the first: ns/b0 of Job/ns/b) and 4 map slots are free"; st.Code() != fwk.UnschedulableAndUnresolvable || st.Message() != want {
		t.Errorf("b1: %v %q; want %q", st.Code(), st.Message(), want)
	}
	if h, _ := fx.pl.hint(klog.Background(), pods["b1"], nil, nil); h != fwk.QueueSkip {
		t.Errorf("hint for parked b1: %v", h)
	}
	if h, _ := fx.pl.hint(klog.Background(), pods["a2"], nil, nil); h != fwk.Queue {
		t.Errorf("hint for a2: %v", h)
	}

	// a0 passed the gate and no node took it.
	fx.pl.PostFilter(ctx, nil, pods["a0"], nil)
	if _, st := fx.pl.PreFilter(ctx, nil, pods["b1"], gen0); !st.IsSuccess() {
		t.Errorf("b1 with a0 skipped: %v", st)
	}
	if _, st := fx.pl.PreFilter(ctx, nil, pods["a1"], gen0); !strings.Contains(st.Message(), "4 map pods come before it") {
		t.Errorf("a1 with a0 skipped: %v", st)
	}
	// The nodes change: a0 counts again.
	v := fx.pl.current(nil)
	st, stale := fx.pl.gate(v, pods["b1"], gen1[0].GetGeneration())
	if !strings.Contains(st.Message(), "4 map pods come before it") || len(stale) != 1 || stale[0].Name != "a0" {
		t.Errorf("b1 after a change: %v, stale %v; want refused, a0 stale", st, stale)
	}
	// a0's attempt puts it back in its place.
	if _, st := fx.pl.PreFilter(ctx, nil, pods["a0"], gen1); !st.IsSuccess() {
		t.Errorf("a0 again: %v", st)
	}
	if _, st := fx.pl.PreFilter(ctx, nil, nil, gen1); st.Code() != fwk.UnschedulableAndUnresolvable {
		t.Errorf("nil pod: %v", st)
	}
}

// TestActivateTurns: the parked pods among the first unskipped pods of
// each kind, as many as the free slots, are activated, once; a pod whose
// binding failed is retried in its place.
func TestActivateTurns(t *testing.T) {
	ctx := context.Background()
	fx, pods := turnFixture(t)
	h := &kubetest.Handle{}
	fx.pl.handle = h
	gen := []fwk.NodeInfo{framework.NewNodeInfo()}
	for _, name := range []string{"b0", "a0", "c2", "c3", "b1", "a1", "a2"} {
		fx.pl.PreFilter(ctx, nil, pods[name], gen)
	}
	if n := fx.pl.activateTurns(ctx, false); n != 0 {
		t.Errorf("activated %d with no turn come", n)
	}
	fx.pl.PostFilter(ctx, nil, pods["a0"], nil)
	fx.pl.PostFilter(ctx, nil, pods["c2"], nil)
	if n, got := fx.pl.activateTurns(ctx, false), h.Activated(); n != 2 || !slices.Equal(got, []string{"a1", "b1"}) {
		t.Errorf("activated %d %v; want a1 b1", n, got)
	}
	if n := fx.pl.activateTurns(ctx, true); n != 0 {
		t.Errorf("activated again: %v", h.Activated())
	}
	fx.pl.Unreserve(ctx, nil, pods["b0"], "n1")
	if n, got := fx.pl.activateTurns(ctx, false), h.Activated(); n != 1 || !slices.Equal(got, []string{"b0"}) {
		t.Errorf("after b0's binding failed: activated %v; want b0", got)
	}
	if fx.pl.activated.Load() != 3 {
		t.Errorf("activated counter %d, want 3", fx.pl.activated.Load())
	}
}
