package finegrained_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	fwk "k8s.io/kube-scheduler/framework"
	"k8s.io/kubernetes/pkg/scheduler/framework"
	clocktesting "k8s.io/utils/clock/testing"

	"github.com/schedkit/schedkit"
	"github.com/schedkit/schedkit/internal/kube/finegrained"
	"github.com/schedkit/schedkit/internal/kube/kubetest"
	skres "github.com/schedkit/schedkit/resource"
)

func schedkitKey(logic string) schedkit.SimilarityKey { return schedkit.SimilarityKey{Logic: logic} }
func resource1(x float64) skres.Vector                { return skres.Vector{x} }
func resource2(x, y float64) skres.Vector             { return skres.Vector{x, y} }

var now = time.Date(2026, 11, 23, 4, 0, 0, 0, time.UTC)

func list(cpu, mem string) v1.ResourceList {
	return v1.ResourceList{v1.ResourceCPU: resource.MustParse(cpu), v1.ResourceMemory: resource.MustParse(mem)}
}

// trainHistory: two succeeded "train" pods, 60s at 4 cores and 8 GiB,
// then 60s at 1 core and 2 GiB; a failed one that must not be learned.
func trainHistory() finegrained.Recording {
	rec := func(uid string, ok bool) finegrained.RecordedTask {
		r := finegrained.RecordedTask{Pod: types.UID(uid), Logic: "train", Succeeded: ok}
		for _, s := range []v1.ResourceList{list("4", "8Gi"), list("4", "8Gi"), list("1", "2Gi"), list("1", "2Gi")} {
			r.Samples = append(r.Samples, finegrained.RecordedSample{Duration: metav1.Duration{Duration: 30 * time.Second}, Used: s})
		}
		return r
	}
	bad := rec("h-failed", false)
	for i := range bad.Samples {
		bad.Samples[i].Used = list("30", "100Gi")
	}
	return finegrained.Recording{Finished: []finegrained.RecordedTask{rec("h1", true), bad, rec("h2", true)}}
}

func newPlugin(t *testing.T, r finegrained.Recording, args string) *finegrained.Plugin {
	t.Helper()
	feed, err := finegrained.NewRecordedFeed(r)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	var obj runtime.Object
	if args != "" {
		obj = &runtime.Unknown{ContentType: runtime.ContentTypeJSON, Raw: []byte(args)}
	}
	pl, err := finegrained.NewWithFeed(feed, clocktesting.NewFakePassiveClock(now))(ctx, obj, nil)
	if err != nil {
		t.Fatal(err)
	}
	return pl.(*finegrained.Plugin)
}

func mkPod(name, logic string, req v1.ResourceList) *v1.Pod {
	p := kubetest.Pod("ns", name, now, kubetest.Scheduler(finegrained.DefaultSchedulerName), kubetest.Annotate())
	p.Spec.Containers[0].Resources.Requests = req
	if logic != "" {
		p.Annotations["schedkit.io/logic"] = logic
	}
	return p
}

// running starts p on node ago before now (ago < 0: after now).
func running(p *v1.Pod, node string, ago time.Duration) *v1.Pod {
	kubetest.Running(node, now.Add(-ago))(p)
	return p
}

// nodeInfo is node n1, 8 cores and 32 GiB, with pods.
func nodeInfo(pods ...*v1.Pod) fwk.NodeInfo { return nodeInfoOf("8", "32Gi", pods...) }

func nodeInfoOf(cpu, mem string, pods ...*v1.Pod) fwk.NodeInfo {
	ni := framework.NewNodeInfo(pods...)
	ni.SetNode(kubetest.Node("n1", 0, 0, kubetest.Resources(cpu, mem)))
	return ni
}

// cycle runs PreFilter, Filter and (if it fits) Score for p on ni.
func cycle(t *testing.T, pl *finegrained.Plugin, p *v1.Pod, ni fwk.NodeInfo) (fwk.CycleState, *fwk.Status, int64) {
	t.Helper()
	state := framework.NewCycleState()
	if _, st := pl.PreFilter(context.Background(), state, p, []fwk.NodeInfo{ni}); !st.IsSuccess() {
		return state, st, -1
	}
	if st := pl.Filter(context.Background(), state, p, ni); !st.IsSuccess() {
		return state, st, -1
	}
	score, st := pl.Score(context.Background(), state, p, ni)
	if !st.IsSuccess() {
		t.Fatalf("Score: %v", st)
	}
	return state, nil, score
}

// Worked numbers on an 8-core, 32 GiB node running a train pod 10s into
// its 60s stage of 4 cores, 8 GiB.
func TestFilterScoreReserve(t *testing.T) {
	pl := newPlugin(t, trainHistory(), "")
	r := running(mkPod("r", "train", list("100m", "128Mi")), "n1", 10*time.Second)

	// A second train pod fits exactly (4 cores, 8 GiB left for 50s);
	// the tightest moment leaves no CPU: score 0.
	q := mkPod("q", "train", list("100m", "128Mi"))
	state, st, score := cycle(t, pl, q, nodeInfo(r))
	if st != nil || score != 0 {
		t.Fatalf("q: %v, score %d, want fit with score 0", st, score)
	}
	// Unpredictable (no annotations), 2 cores and 1 GiB over the
	// horizon: least CPU 8−4−2 = 2 of 8, memory 32−8−1 = 23 of 32: 25.
	u := mkPod("u", "", list("2", "1Gi"))
	if _, st, score := cycle(t, pl, u, nodeInfo(r)); st != nil || score != 25 {
		t.Errorf("u: %v, score %d, want 25", st, score)
	}

	// Reserve q; a third train pod finds no CPU in its first stage.
	if st := pl.Reserve(context.Background(), state, q, "n1"); !st.IsSuccess() {
		t.Fatal(st)
	}
	q.Spec.NodeName = "n1"
	x := mkPod("x", "train", list("100m", "128Mi"))
	_, st, _ = cycle(t, pl, x, nodeInfo(r, q))
	if st.Code() != fwk.Unschedulable || !strings.Contains(st.Message(), "stage 1 of 2 (+0s to +1m0s) needs cpu 4 cores, node n1 has 0 cores free at +0s (plus 0.8 cores by compression)") {
		t.Errorf("x: %v %q", st.Code(), st.Message())
	}
	// Unreserved (binding failed): room again.
	pl.Unreserve(context.Background(), state, q, "n1")
	if _, st, _ := cycle(t, pl, x, nodeInfo(r)); st != nil {
		t.Errorf("x after Unreserve: %v", st)
	}
	// A pod of another scheduler holds nothing.
	o := running(mkPod("o", "train", list("100m", "128Mi")), "n1", time.Second)
	o.Spec.SchedulerName = "default-scheduler"
	if _, st, _ := cycle(t, pl, x, nodeInfo(r, o)); st != nil {
		t.Errorf("x beside a foreign pod: %v", st)
	}
}

// A node sample: 7 cores and 15 GiB used, of which the train pod uses 4
// and 8: foreign load 3 cores, 7 GiB. The second train pod's 4 cores no
// longer fit (1 free, 0.8 by compression).
func TestFilterForeignLoad(t *testing.T) {
	rec := trainHistory()
	rec.Nodes = []finegrained.RecordedNode{{Node: "n1", At: metav1.NewTime(now), Used: list("7", "15Gi"),
		Pods: map[string]v1.ResourceList{"pod-r": list("4", "8Gi")}}}
	pl := newPlugin(t, rec, "")
	r := running(mkPod("r", "train", list("100m", "128Mi")), "n1", 10*time.Second)
	_, st, _ := cycle(t, pl, mkPod("q", "train", nil), nodeInfo(r))
	if st.Code() != fwk.Unschedulable || !strings.Contains(st.Message(), "needs cpu 4 cores, node n1 has 1 cores free") {
		t.Errorf("q: %v %q", st.Code(), st.Message())
	}
	// 30.5 GiB used: 1.5 GiB idle, below 5% of 32: the node is used up.
	rec.Nodes[0].Used = list("7", "31232Mi")
	pl = newPlugin(t, rec, "")
	_, st, _ = cycle(t, pl, mkPod("u", "", list("100m", "1Mi")), nodeInfo(r))
	if st.Code() != fwk.Unschedulable || !strings.Contains(st.Message(), "node n1 is used up: memory free 1.5Gi, below 1.6Gi") {
		t.Errorf("u: %v %q", st.Code(), st.Message())
	}
}

func TestPreFilterBadInput(t *testing.T) {
	pl := newPlugin(t, trainHistory(), "")
	for key, val := range map[string]string{
		"schedkit.io/logic":     "",
		"schedkit.io/data-size": "lots",
	} {
		p := mkPod("bad", "train", nil)
		p.Annotations[key] = val
		_, st := pl.PreFilter(context.Background(), framework.NewCycleState(), p, nil)
		if st.Code() != fwk.UnschedulableAndUnresolvable || !strings.Contains(st.Message(), key) || !strings.Contains(st.Message(), "ns/bad") {
			t.Errorf("%s=%q: %v %q", key, val, st.Code(), st.Message())
		}
	}
	if _, st := pl.PreFilter(context.Background(), framework.NewCycleState(), nil, nil); st.Code() != fwk.UnschedulableAndUnresolvable {
		t.Errorf("nil pod: %v", st)
	}
	// Filter, Score, Reserve without PreFilter's state: an error status, no panic.
	state := framework.NewCycleState()
	p := mkPod("p", "train", nil)
	if st := pl.Filter(context.Background(), state, p, nodeInfo()); st.Code() != fwk.Error {
		t.Errorf("Filter without state: %v", st)
	}
	if _, st := pl.Score(context.Background(), state, p, nodeInfo()); st.Code() != fwk.Error {
		t.Errorf("Score without state: %v", st)
	}
	if st := pl.Reserve(context.Background(), state, p, "n1"); st.Code() != fwk.Error {
		t.Errorf("Reserve without state: %v", st)
	}
	// A node without a Node object, or with negative allocatable.
	if _, st := pl.PreFilter(context.Background(), state, p, nil); !st.IsSuccess() {
		t.Fatal(st)
	}
	if st := pl.Filter(context.Background(), state, p, framework.NewNodeInfo()); st.Code() != fwk.UnschedulableAndUnresolvable {
		t.Errorf("no node: %v", st)
	}
	ni := framework.NewNodeInfo()
	ni.SetNode(&v1.Node{ObjectMeta: metav1.ObjectMeta{Name: "n"}, Status: v1.NodeStatus{Allocatable: list("-1", "1Gi")}})
	if st := pl.Filter(context.Background(), state, p, ni); st.Code() != fwk.UnschedulableAndUnresolvable || !strings.Contains(st.Message(), "negative cpu") {
		t.Errorf("negative allocatable: %v", st)
	}
}

func TestArgs(t *testing.T) {
	newPlugin(t, finegrained.Recording{}, `{"schedulerName":"x","idleThreshold":0.1,"horizon":"1h","feedInterval":"1s"}`)
	for args, want := range map[string]string{
		`{"idleThreshold":1}`:        "FineGrained: idleThreshold 1 outside [0, 1)",
		`{"compressionLimit":-0.1}`:  "FineGrained: compressionLimit -0.1 outside [0, 1)",
		`{"penalty":-1}`:             "FineGrained: penalty -1 is not finite and ≥ 0",
		`{"horizon":"-1s"}`:          "FineGrained: horizon -1s is negative",
		`{"minObservations":-1}`:     "FineGrained: minObservations -1 outside [0, 2^20]",
		`{"smoothing":2}`:            "FineGrained: smoothing 2 outside (0, 1]",
		`{"feedInterval":"-1s"}`:     "FineGrained: feedInterval -1s is negative",
		`{"horizon":"soon"}`:         "FineGrained: decoding args",
		`{"recordedFeed":"/nope/x"}`: "FineGrained: recorded feed: open /nope/x",
	} {
		obj := &runtime.Unknown{ContentType: runtime.ContentTypeJSON, Raw: []byte(args)}
		_, err := finegrained.NewWithFeed(nil, clocktesting.NewFakePassiveClock(now))(context.Background(), obj, nil)
		if err == nil || !strings.HasPrefix(err.Error(), want) {
			t.Errorf("%s: %v, want %q", args, err, want)
		}
	}
}

func TestRecordedFeed(t *testing.T) {
	dir := t.TempDir()
	write := func(name, s string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(s), 0o600); err != nil {
			t.Fatal(err)
		}
		return p
	}
	good := write("good.json", `{"finished":[{"pod":"a","logic":"x","succeeded":true,"samples":[{"duration":"10s","used":{"cpu":"1","memory":"1Gi"}}]}],
		"nodes":[{"node":"n1","at":"2026-11-23T04:00:00Z","used":{"cpu":"2"},"pods":{"b":{"cpu":"1"},"a":{"memory":"1Mi"}}}]}`)
	f, err := finegrained.LoadRecordedFeed(good)
	if err != nil {
		t.Fatal(err)
	}
	fin, _ := f.Finished(nil)
	again, _ := f.Finished(nil)
	nodes, _ := f.Nodes(nil)
	if len(fin) != 1 || fin[0].Samples[0].Used[0] != 1 || fin[0].Samples[0].Used[1] != 1<<30 || len(again) != 0 {
		t.Errorf("finished %+v, then %+v", fin, again)
	}
	if len(nodes) != 1 || nodes[0].Used[0] != 2 || len(nodes[0].Pods) != 2 || nodes[0].Pods[0].Pod != "a" {
		t.Errorf("nodes %+v", nodes)
	}
	for name, s := range map[string]string{
		"syntax.json":   `{"finished":[`,
		"negative.json": `{"nodes":[{"node":"n1","used":{"cpu":"-1"}}]}`,
	} {
		if _, err := finegrained.LoadRecordedFeed(write(name, s)); err == nil || !strings.HasPrefix(err.Error(), "FineGrained: ") {
			t.Errorf("%s: %v", name, err)
		}
	}
}

// badFeed delivers what a broken feed might: errors, a node sample of
// the wrong length, a pod sample with a negative amount, a record too
// short to learn.
type badFeed struct{ calls int }

func (f *badFeed) Finished(dst []finegrained.TaskUsage) ([]finegrained.TaskUsage, error) {
	f.calls++
	short := finegrained.TaskUsage{Pod: "s", Key: schedkitKey("train"), Succeeded: true}
	return append(dst, short), errors.New("metrics pipeline unreachable")
}

func (f *badFeed) Nodes(dst []finegrained.NodeUsage) ([]finegrained.NodeUsage, error) {
	return append(dst,
		finegrained.NodeUsage{Node: "n1", At: now, Used: resource1(7)},
		finegrained.NodeUsage{Node: "n2", At: now, Used: resource2(1, 1), Pods: []finegrained.PodUsage{{Pod: "p", Used: resource2(-1, 0)}}},
	), errors.New("partial read")
}

// A broken feed changes nothing: the bad samples are ignored (the nodes
// stay unmeasured) and nothing is learned; scheduling goes on.
func TestBadFeed(t *testing.T) {
	feed := &badFeed{}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	pl, err := finegrained.NewWithFeed(feed, clocktesting.NewFakePassiveClock(now))(ctx, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	p := pl.(*finegrained.Plugin)
	p.Poll(ctx)
	if feed.calls < 2 {
		t.Errorf("feed read %d times", feed.calls)
	}
	// Unmeasured, nothing learned: a train pod is unpredictable and fits
	// by its request.
	if _, st, score := cycle(t, p, mkPod("q", "train", list("1", "1Gi")), nodeInfo()); st != nil || score != 87 {
		t.Errorf("q: %v, score %d, want 87 (7 of 8 cores left)", st, score)
	}
}
