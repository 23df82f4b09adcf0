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
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/kubernetes/fake"
	"k8s.io/client-go/tools/events"
	"k8s.io/klog/v2"
	fwk "k8s.io/kube-scheduler/framework"
	"k8s.io/kubernetes/cmd/kube-scheduler/app/options"
	"k8s.io/kubernetes/pkg/scheduler"
	frameworkruntime "k8s.io/kubernetes/pkg/scheduler/framework/runtime"
	"k8s.io/kubernetes/pkg/scheduler/profile"
	"k8s.io/utils/clock"

	"github.com/schedkit/schedkit/internal/kube/deadlinebudget"
	"github.com/schedkit/schedkit/internal/kube/finegrained"
	"github.com/schedkit/schedkit/internal/kube/kubetest"
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
// 64Mi (FineGrained, an empty feed: matched by requests). The fake
// clientset is the simple one (no field management, which the API
// server, not the scheduler, would pay for).
//
// Besides pods/s each schedkit profile reports x-default, its pods/s
// over the default profile's in the same run (when the run includes
// the default), and what its plugin did per pod: DeadlineBudget its
// evaluations (evals/pod, listing the cluster) and the events it passed
// on lazily (deferred/pod); FineGrained its PreFilter, Filter, Score and
// Reserve calls (prefilter/pod, filter/pod, score/pod, reserve/pod), to
// show it runs on every pod.
//
// With -kube.update the run's passes are written to THROUGHPUT.md (the
// results the README points to), which TestThroughputFile checks:
//
//	go test ./integration -run '^$' -bench Throughput -benchtime 1x -count 3 -kube.nodes 5000 -kube.pods 10000 -kube.update
func BenchmarkThroughput(b *testing.B) {
	var defaultRate float64 // the latest default run's pods/s
	for _, pc := range []struct{ name, file, scheduler string }{
		{"default", "", "default-scheduler"},
		{"LeastSpareTime", "profile.yaml", "schedkit"},
		{"DeadlineBudget", "profile-dbs.yaml", "schedkit-dbs"},
		{"FineGrained", "profile-fgm.yaml", "schedkit-fgm"},
	} {
		b.Run(pc.name, func(b *testing.B) {
			b.ReportAllocs()
			var total time.Duration
			var c throughputCounts
			for range b.N {
				total += throughputRun(b, pc.file, pc.scheduler, &c)
			}
			rate := float64(*benchPods*b.N) / total.Seconds()
			b.ReportMetric(rate, "pods/s")
			if pc.file == "" {
				defaultRate = rate
			} else if defaultRate > 0 {
				b.ReportMetric(rate/defaultRate, "x-default")
			}
			pass := throughputPass{rate: rate, perPod: map[string]float64{}}
			perPod := func(n uint64, unit string) {
				x := float64(n) / float64(*benchPods*b.N)
				pass.perPod[unit] = x
				b.ReportMetric(x, unit)
			}
			defer func() { recordPass(pc.name, pass) }()
			switch pc.scheduler {
			case "schedkit-dbs":
				perPod(c.dbs.Evaluations, "evals/pod")
				perPod(c.dbs.Deferred, "deferred/pod")
			case "schedkit-fgm":
				perPod(uint64(c.fgm.preFilter.Load()), "prefilter/pod")
				perPod(uint64(c.fgm.filter.Load()), "filter/pod")
				perPod(uint64(c.fgm.score.Load()), "score/pod")
				perPod(uint64(c.fgm.reserve.Load()), "reserve/pod")
			}
		})
	}
}

// throughputCounts collects what the plugins did over a benchmark's runs.
type throughputCounts struct {
	dbs deadlinebudget.Stats
	fgm fgmCalls
}

// fgmCalls counts FineGrained's calls.
type fgmCalls struct{ preFilter, filter, score, reserve atomic.Int64 }

// countingFGM is the FineGrained plugin with its calls counted.
type countingFGM struct {
	*finegrained.Plugin
	n *fgmCalls
}

func (c countingFGM) PreFilter(ctx context.Context, state fwk.CycleState, p *v1.Pod, nodes []fwk.NodeInfo) (*fwk.PreFilterResult, *fwk.Status) {
	c.n.preFilter.Add(1)
	return c.Plugin.PreFilter(ctx, state, p, nodes)
}

func (c countingFGM) Filter(ctx context.Context, state fwk.CycleState, p *v1.Pod, ni fwk.NodeInfo) *fwk.Status {
	c.n.filter.Add(1)
	return c.Plugin.Filter(ctx, state, p, ni)
}

func (c countingFGM) Score(ctx context.Context, state fwk.CycleState, p *v1.Pod, ni fwk.NodeInfo) (int64, *fwk.Status) {
	c.n.score.Add(1)
	return c.Plugin.Score(ctx, state, p, ni)
}

func (c countingFGM) Reserve(ctx context.Context, state fwk.CycleState, p *v1.Pod, node string) *fwk.Status {
	c.n.reserve.Add(1)
	return c.Plugin.Reserve(ctx, state, p, node)
}

// throughputRun schedules the pods once and returns the time from the
// scheduler's start to the last binding; it adds the plugins' counts to c.
func throughputRun(b *testing.B, file, schedulerName string, c *throughputCounts) time.Duration {
	b.StopTimer()
	ctx, cancel := context.WithCancel(klog.NewContext(context.Background(), klog.TODO()))
	defer cancel()
	var objs []runtime.Object
	for i := range *benchNodes {
		name := fmt.Sprintf("n%05d", i)
		objs = append(objs, kubetest.Node(name, 32, 4, kubetest.Resources("4", "32Gi"), kubetest.NodeLabel("kubernetes.io/hostname", name)))
	}
	start := time.Now()
	var job *batchv1.Job
	for i := range *benchPods {
		p := kubetest.Pod("bench", fmt.Sprintf("p%05d", i), start, kubetest.Scheduler(schedulerName))
		if schedulerName == "schedkit-fgm" {
			kubetest.Requests("100m", "64Mi")(p)
		} else {
			if i%100 == 0 {
				job = kubetest.Job("bench", fmt.Sprintf("j%03d", i/100), start,
					podjob.AnnotationRelativeDeadline, fmt.Sprintf("%dh", 1+i/100), podjob.AnnotationPhi, []string{"1", "0.5", "0"}[i/100%3],
					podjob.AnnotationBudget, "1000")
				if i/100%3 == 2 {
					delete(job.Annotations, podjob.AnnotationRelativeDeadline)
					if schedulerName != "schedkit-dbs" {
						job.Annotations[podjob.AnnotationRelativeDeadline] = "24h"
					}
				}
				objs = append(objs, job)
			}
			kubetest.Of(job)(p)
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
	var dbsPlugin *deadlinebudget.Plugin
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
		fgmFactory := finegrained.NewWithFeed(feed, clock.RealClock{})
		opts = append(opts, scheduler.WithProfiles(cfg.Profiles...), scheduler.WithFrameworkOutOfTreeRegistry(frameworkruntime.Registry{
			leastsparetime.Name: leastsparetime.New,
			deadlinebudget.Name: func(ctx context.Context, obj runtime.Object, h fwk.Handle) (fwk.Plugin, error) {
				p, err := deadlinebudget.New(ctx, obj, h)
				if err == nil {
					dbsPlugin = p.(*deadlinebudget.Plugin)
				}
				return p, err
			},
			finegrained.Name: func(ctx context.Context, obj runtime.Object, h fwk.Handle) (fwk.Plugin, error) {
				p, err := fgmFactory(ctx, obj, h)
				if err != nil {
					return nil, err
				}
				return countingFGM{Plugin: p.(*finegrained.Plugin), n: &c.fgm}, nil
			}}))
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
	if dbsPlugin != nil {
		st := dbsPlugin.Stats()
		c.dbs.Evaluations += st.Evaluations
		c.dbs.Reorders += st.Reorders
		c.dbs.Deferred += st.Deferred
	}
	return d
}
