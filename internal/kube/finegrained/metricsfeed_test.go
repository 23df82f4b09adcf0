package finegrained_test

import (
	"context"
	"sync"
	"testing"
	"time"

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes/fake"
	k8stesting "k8s.io/client-go/testing"
	metricsv1beta1 "k8s.io/metrics/pkg/apis/metrics/v1beta1"
	metricsfake "k8s.io/metrics/pkg/client/clientset/versioned/fake"
	clocktesting "k8s.io/utils/clock/testing"

	"github.com/google/go-cmp/cmp"

	"github.com/schedkit/schedkit/estimate"
	"github.com/schedkit/schedkit/internal/kube/finegrained"
	"github.com/schedkit/schedkit/internal/kube/kubetest"
	skres "github.com/schedkit/schedkit/resource"
)

// metricsAPI is a fake metrics.k8s.io: the lists its reactors return.
type metricsAPI struct {
	mu    sync.Mutex
	nodes []metricsv1beta1.NodeMetrics
	pods  []metricsv1beta1.PodMetrics
}

func (m *metricsAPI) client() *metricsfake.Clientset {
	c := metricsfake.NewSimpleClientset()
	c.PrependReactor("list", "nodes", func(k8stesting.Action) (bool, runtime.Object, error) {
		m.mu.Lock()
		defer m.mu.Unlock()
		return true, &metricsv1beta1.NodeMetricsList{Items: append([]metricsv1beta1.NodeMetrics(nil), m.nodes...)}, nil
	})
	c.PrependReactor("list", "pods", func(k8stesting.Action) (bool, runtime.Object, error) {
		m.mu.Lock()
		defer m.mu.Unlock()
		return true, &metricsv1beta1.PodMetricsList{Items: append([]metricsv1beta1.PodMetrics(nil), m.pods...)}, nil
	})
	return c
}

func usage(cpu, mem string) v1.ResourceList {
	return v1.ResourceList{v1.ResourceCPU: resource.MustParse(cpu), v1.ResourceMemory: resource.MustParse(mem)}
}

func nodeMetrics(name string, at time.Time, cpu, mem string) metricsv1beta1.NodeMetrics {
	return metricsv1beta1.NodeMetrics{ObjectMeta: metav1.ObjectMeta{Name: name}, Timestamp: metav1.NewTime(at),
		Window: metav1.Duration{Duration: 30 * time.Second}, Usage: usage(cpu, mem)}
}

func podMetrics(name string, at time.Time, containers ...v1.ResourceList) metricsv1beta1.PodMetrics {
	m := metricsv1beta1.PodMetrics{ObjectMeta: metav1.ObjectMeta{Namespace: "batch", Name: name}, Timestamp: metav1.NewTime(at),
		Window: metav1.Duration{Duration: 30 * time.Second}}
	for i, c := range containers {
		m.Containers = append(m.Containers, metricsv1beta1.ContainerMetrics{Name: string(rune('a' + i)), Usage: c})
	}
	return m
}

func runningPod(name, scheduler, node string) *v1.Pod {
	return kubetest.Pod("batch", name, kubetest.Now, kubetest.Label("pod-template-hash", "abc"), kubetest.Scheduler(scheduler),
		kubetest.Running(node, kubetest.Now))
}

// The metrics feed sums containers to the pod, matches pods by
// namespace and name, drops stale and duplicate samples, keeps a series
// per running pod of ours and hands it over once when the pod succeeds
// (learned) or goes (not learned).
func TestMetricsFeed(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	t0 := time.Date(2026, 11, 26, 10, 0, 0, 0, time.UTC)
	ours, other, foreign := runningPod("ours", "schedkit-fgm", "n1"), runningPod("other", "schedkit-fgm", "n2"), runningPod("foreign", "default-scheduler", "n1")
	cs := fake.NewClientset(ours, other, foreign)
	f := informers.NewSharedInformerFactory(cs, 0)
	pods := f.Core().V1().Pods()
	pods.Informer()
	f.Start(ctx.Done())
	f.WaitForCacheSync(ctx.Done())
	api := &metricsAPI{
		nodes: []metricsv1beta1.NodeMetrics{nodeMetrics("n1", t0, "2", "4Gi"), nodeMetrics("n2", t0.Add(-2*time.Minute), "1", "1Gi")},
		pods: []metricsv1beta1.PodMetrics{
			podMetrics("ours", t0, usage("500m", "1Gi"), usage("250m", "1Gi")),
			podMetrics("foreign", t0, usage("1", "512Mi")),
			podMetrics("other", t0, usage("100m", "100Mi")),
			podMetrics("unknown", t0, usage("1", "1Gi")), // no such pod: ignored
		},
	}
	clk := clocktesting.NewFakePassiveClock(t0.Add(5 * time.Second))
	feed := finegrained.NewMetricsFeed(ctx, api.client(), pods.Lister(), pods.Lister(), clk)

	got, err := feed.Nodes(nil)
	if err != nil {
		t.Fatal(err)
	}
	gi := float64(1 << 30)
	want := []finegrained.NodeUsage{{Node: "n1", At: t0, Used: skres.Vector{2, 4 * gi}, Pods: []finegrained.PodUsage{
		{Pod: "pod-foreign", Used: skres.Vector{1, gi / 2}},
		{Pod: "pod-ours", Used: skres.Vector{0.75, 2 * gi}},
	}}} // n2's sample is stale
	if diff := cmp.Diff(want, got); diff != "" {
		t.Fatalf("first read (-want +got):\n%s", diff)
	}
	// Read again before metrics-server refreshed: nothing new kept.
	clk.SetTime(t0.Add(12 * time.Second))
	if _, err := feed.Nodes(nil); err != nil {
		t.Fatal(err)
	}
	// 15 s later: a new sample of ours.
	api.mu.Lock()
	api.pods[0] = podMetrics("ours", t0.Add(15*time.Second), usage("1", "1Gi"), usage("1", "2Gi"))
	api.mu.Unlock()
	clk.SetTime(t0.Add(20 * time.Second))
	if _, err := feed.Nodes(nil); err != nil {
		t.Fatal(err)
	}
	if fin, _ := feed.Finished(nil); len(fin) != 0 {
		t.Fatalf("finished while running: %v", fin)
	}
	// ours succeeds, other is deleted.
	done := ours.DeepCopy()
	done.Status.Phase = v1.PodSucceeded
	if err := pods.Informer().GetIndexer().Update(done); err != nil {
		t.Fatal(err)
	}
	if err := pods.Informer().GetIndexer().Delete(other); err != nil {
		t.Fatal(err)
	}
	fin, err := feed.Finished(nil)
	if err != nil {
		t.Fatal(err)
	}
	key := "batch/pod-template-hash=abc"
	if len(fin) != 2 || fin[0].Pod != "pod-other" || fin[0].Succeeded || fin[1].Pod != "pod-ours" || !fin[1].Succeeded || fin[1].Key.Logic != key {
		t.Fatalf("finished: %+v", fin)
	}
	wantSamples := []estimate.UsageSample{
		{Duration: 30 * time.Second, Used: skres.Vector{0.75, 2 * gi}},
		{Duration: 15 * time.Second, Used: skres.Vector{2, 3 * gi}},
	}
	if diff := cmp.Diff(wantSamples, fin[1].Samples); diff != "" {
		t.Errorf("ours's series (-want +got):\n%s", diff)
	}
	if fin, _ := feed.Finished(nil); len(fin) != 0 {
		t.Errorf("handed over twice: %v", fin)
	}
}
