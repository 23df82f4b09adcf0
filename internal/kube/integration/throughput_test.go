package integration_test

import (
	"context"
	"flag"
	"fmt"
	"path/filepath"
	"sync/atomic"
	"testing"
	"time"

	batchv1 "k8s.io/api/batch/v1"
	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/kubernetes/fake"
	"k8s.io/client-go/tools/events"
	"k8s.io/klog/v2"
	"k8s.io/kubernetes/cmd/kube-scheduler/app/options"
	"k8s.io/kubernetes/pkg/scheduler"
	frameworkruntime "k8s.io/kubernetes/pkg/scheduler/framework/runtime"
	"k8s.io/kubernetes/pkg/scheduler/profile"
	"k8s.io/utils/clock"

	"github.com/schedkit/schedkit/internal/kube/deadlinebudget"
	"github.com/schedkit/schedkit/internal/kube/finegrained"
	"github.com/schedkit/schedkit/internal/kube/leastsparetime"
	"github.com/schedkit/schedkit/internal/kube/podjob"
)

var (
	benchNodes = flag.Int("kube.nodes", 5000, "BenchmarkThroughput: nodes")
	benchPods  = flag.Int("kube.pods", 10000, "BenchmarkThroughput: pods")
)

// BenchmarkThroughput is scheduler_perf's SchedulingBasic shape for each
// shipped profile and for kube-scheduler's default profile, in one run:
// the real scheduler in-process on a fake API (bindings applied by a
// reactor), -kube.nodes nodes (4 CPUs, 32 map and 4 reduce slots each)
// and -kube.pods pods created before it starts, all schedulable; the
// metric is pods bound per second from the scheduler's start to the
// last binding. Pods are map pods of Jobs of 100 pods, with deadlines
// and φ (LeastSpareTime, DeadlineBudget), or requests of 100m CPU and
// 64Mi (FineGrained, an empty feed: matched by requests).
//
//	go test ./integration -run '^$' -bench Throughput -benchtime 1x -count 3 -kube.nodes 5000 -kube.pods 10000
func BenchmarkThroughput(b *testing.B) {
	for _, pc := range []struct{ name, file, scheduler string }{
		{"default", "", "default-scheduler"},
		{"LeastSpareTime", "profile.yaml", "schedkit"},
		{"DeadlineBudget", "profile-dbs.yaml", "schedkit-dbs"},
		{"FineGrained", "profile-fgm.yaml", "schedkit-fgm"},
	} {
		b.Run(pc.name, func(b *testing.B) {
			b.ReportAllocs()
			var total time.Duration
			for range b.N {
				total += throughputRun(b, pc.file, pc.scheduler)
			}
			b.ReportMetric(float64(*benchPods*b.N)/total.Seconds(), "pods/s")
		})
	}
}

// throughputRun schedules the pods once and returns the time from the
// scheduler's start to the last binding.
func throughputRun(b *testing.B, file, schedulerName string) time.Duration {
	b.StopTimer()
	ctx, cancel := context.WithCancel(klog.NewContext(context.Background(), klog.TODO()))
	defer cancel()
	var objs []runtime.Object
	for i := range *benchNodes {
		objs = append(objs, &v1.Node{ObjectMeta: metav1.ObjectMeta{Name: fmt.Sprintf("n%05d", i),
			Labels: map[string]string{"kubernetes.io/hostname": fmt.Sprintf("n%05d", i)}},
			Status: v1.NodeStatus{Allocatable: v1.ResourceList{
				v1.ResourceCPU: resource.MustParse("4"), v1.ResourceMemory: resource.MustParse("32Gi"), v1.ResourcePods: resource.MustParse("110"),
				podjob.ResourceMapSlot: resource.MustParse("32"), podjob.ResourceReduceSlot: resource.MustParse("4")},
				Conditions: []v1.NodeCondition{{Type: v1.NodeReady, Status: v1.ConditionTrue}}}})
	}
	start := time.Now()
	yes := true
	var job *batchv1.Job
	for i := range *benchPods {
		p := &v1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: "bench", Name: fmt.Sprintf("p%05d", i), UID: types.UID(fmt.Sprintf("p%05d", i)),
			CreationTimestamp: metav1.NewTime(start)},
			Spec: v1.PodSpec{SchedulerName: schedulerName, Containers: []v1.Container{{Name: "c", Image: "c"}}}}
		if schedulerName == "schedkit-fgm" {
			p.Spec.Containers[0].Resources.Requests = v1.ResourceList{v1.ResourceCPU: resource.MustParse("100m"), v1.ResourceMemory: resource.MustParse("64Mi")}
		} else {
			if i%100 == 0 {
				job = &batchv1.Job{ObjectMeta: metav1.ObjectMeta{Namespace: "bench", Name: fmt.Sprintf("j%03d", i/100), UID: types.UID(fmt.Sprintf("j%03d", i/100)),
					CreationTimestamp: metav1.NewTime(start), Annotations: map[string]string{
						podjob.AnnotationRelativeDeadline: fmt.Sprintf("%dh", 1+i/100), podjob.AnnotationPhi: []string{"1", "0.5", "0"}[i/100%3],
						podjob.AnnotationBudget: "1000"}}}
				if i/100%3 == 2 {
					delete(job.Annotations, podjob.AnnotationRelativeDeadline)
					if schedulerName != "schedkit-dbs" {
						job.Annotations[podjob.AnnotationRelativeDeadline] = "24h"
					}
				}
				objs = append(objs, job)
			}
			p.OwnerReferences = []metav1.OwnerReference{{APIVersion: "batch/v1", Kind: "Job", Name: job.Name, UID: job.UID, Controller: &yes}}
			p.Spec.Containers[0].Resources.Requests = v1.ResourceList{podjob.ResourceMapSlot: resource.MustParse("1")}
		}
		objs = append(objs, p)
	}
	client := fake.NewSimpleClientset(objs...)
	var bound atomic.Int64
	done := make(chan struct{})
	want := int64(*benchPods)
	playKubelet(client, func(string, string) {
		if bound.Add(1) == want {
			close(done)
		}
	})
	filterPods(client)
	factory := scheduler.NewInformerFactory(client, 0, nil)
	factory.Core().V1().Pods().Informer()
	factory.Core().V1().Nodes().Informer()
	factory.Batch().V1().Jobs().Informer()
	factory.Start(ctx.Done())
	factory.WaitForCacheSync(ctx.Done())
	broadcaster := events.NewBroadcaster(&events.EventSinkImpl{Interface: client.EventsV1()})
	defer broadcaster.Shutdown()

	var opts []scheduler.Option
	if file != "" {
		cfg, err := options.LoadConfigFromFile(klog.TODO(), filepath.Join("..", "cmd", "schedkit-scheduler", file))
		if err != nil {
			b.Fatal(err)
		}
		// No metrics API behind the fake clientset: FineGrained gets an
		// empty feed (every pod matched by its requests).
		feed, err := finegrained.NewRecordedFeed(finegrained.Recording{})
		if err != nil {
			b.Fatal(err)
		}
		opts = append(opts, scheduler.WithProfiles(cfg.Profiles...), scheduler.WithFrameworkOutOfTreeRegistry(frameworkruntime.Registry{
			leastsparetime.Name: leastsparetime.New, deadlinebudget.Name: deadlinebudget.New,
			finegrained.Name: finegrained.NewWithFeed(feed, clock.RealClock{})}))
	}
	sched, err := scheduler.New(ctx, client, factory, nil, profile.NewRecorderFactory(broadcaster), opts...)
	if err != nil {
		b.Fatal(err)
	}
	factory.Start(ctx.Done())
	factory.WaitForCacheSync(ctx.Done())
	if err := sched.WaitForHandlersSync(ctx); err != nil {
		b.Fatal(err)
	}
	b.StartTimer()
	t0 := time.Now()
	go sched.Run(ctx)
	select {
	case <-done:
	case <-time.After(30 * time.Minute):
		b.Fatalf("%d of %d pods bound", bound.Load(), want)
	}
	d := time.Since(t0)
	b.StopTimer()
	return d
}
