package integration_test

import (
	"context"
	"fmt"
	"path/filepath"
	"slices"
	"sync"
	"testing"
	"time"

	batchv1 "k8s.io/api/batch/v1"
	v1 "k8s.io/api/core/v1"
	eventsv1 "k8s.io/api/events/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/kubernetes/fake"
	clienttesting "k8s.io/client-go/testing"
	"k8s.io/client-go/tools/events"
	"k8s.io/klog/v2"
	fwk "k8s.io/kube-scheduler/framework"
	"k8s.io/kubernetes/cmd/kube-scheduler/app/options"
	"k8s.io/kubernetes/pkg/scheduler"
	schedulerapi "k8s.io/kubernetes/pkg/scheduler/apis/config"
	frameworkruntime "k8s.io/kubernetes/pkg/scheduler/framework/runtime"
	"k8s.io/kubernetes/pkg/scheduler/profile"
	clocktesting "k8s.io/utils/clock/testing"

	"github.com/schedkit/schedkit/internal/kube/kubetest"
	"github.com/schedkit/schedkit/internal/kube/leastsparetime"
	"github.com/schedkit/schedkit/internal/kube/podjob"
)

// The scenario language: a cluster of nodes with map and reduce slots,
// deadline jobs whose pods are pending, running or finished, and plain
// pods schedkit does not manage — all at one instant, now.

type nodeSpec struct {
	name          string
	maps, reduces int
	cpuMilli      int64 // allocatable CPU; default 64 cores
	cordoned      bool
}

// taskSpec is a pod that has run: finished (dur > 0) or running on node.
type taskSpec struct {
	reduce bool
	start  time.Duration // after the job's submission
	dur    time.Duration // finished after dur; 0: still running
	node   string        // running tasks only
}

type jobSpec struct {
	name      string
	group     bool          // a pod group (label) instead of a batch/v1 Job
	submitted time.Duration // before now
	deadline  time.Duration // after submission (relative, or absolute when abs)
	abs       bool
	declared  *[2]int // schedkit.io/tasks annotation (map, reduce), if any
	maps      int     // pending map pods
	reduces   int     // pending reduce pods
	gated     int     // of the pending reduce pods, how many carry a scheduling gate
	done      []taskSpec
	bad       map[string]string // annotations overriding the good ones (bad input)
}

type scenario struct {
	name string
	// Filled by objects: each job's ready pods per phase in rank order,
	// and its first pod.
	ready    map[string]*[2][]string
	firstPod map[string]string

	nodes          []nodeSpec
	jobs           []jobSpec
	plain          int // unmanaged pods
	deleteHopeless bool
}

var now = kubetest.Now

const ns = "batch"

// objects builds the Kubernetes objects of a scenario.
func (sc *scenario) objects() (nodes []*v1.Node, jobs []*batchv1.Job, pods []*v1.Pod) {
	sc.ready, sc.firstPod = map[string]*[2][]string{}, map[string]string{}
	for _, n := range sc.nodes {
		var opts []func(*v1.Node)
		if n.cpuMilli != 0 {
			opts = append(opts, func(nd *v1.Node) {
				nd.Status.Allocatable[v1.ResourceCPU] = *resource.NewMilliQuantity(n.cpuMilli, resource.DecimalSI)
			})
		}
		if n.cordoned {
			opts = append(opts, kubetest.Cordoned)
		}
		nodes = append(nodes, kubetest.Node(n.name, int64(n.maps), int64(n.reduces), opts...))
	}
	for _, js := range sc.jobs {
		sub := now.Add(-js.submitted)
		ann := map[string]string{}
		if js.abs {
			ann[podjob.AnnotationDeadline] = sub.Add(js.deadline).Format(time.RFC3339)
		} else {
			ann[podjob.AnnotationRelativeDeadline] = js.deadline.String()
		}
		if js.declared != nil {
			ann[podjob.AnnotationTasks] = fmt.Sprintf("map=%d,reduce=%d", js.declared[0], js.declared[1])
		}
		for k, v := range js.bad {
			if v == "" {
				delete(ann, k)
			} else {
				ann[k] = v
			}
		}
		var member func(*v1.Pod)
		if js.group {
			var kv []string
			for k, v := range ann {
				kv = append(kv, k, v)
			}
			member = kubetest.Group(js.name, kv...)
		} else {
			job := kubetest.Job(ns, js.name, sub)
			job.Annotations = ann
			jobs = append(jobs, job)
			member = kubetest.Of(job)
		}
		i := 0
		pod := func(reduce bool, opts ...func(*v1.Pod)) *v1.Pod {
			phase, tag := kubetest.Label(podjob.LabelPhase, "map"), "m"
			if reduce {
				phase, tag = kubetest.Reduce, "r"
			}
			name := fmt.Sprintf("%s-%s%02d", js.name, tag, i)
			p := kubetest.Pod(ns, name, sub.Add(time.Duration(i)*time.Millisecond),
				append([]func(*v1.Pod){member, phase, kubetest.Slot}, opts...)...)
			if i == 0 {
				sc.firstPod[js.name] = name
			}
			i++
			return p
		}
		for _, t := range js.done {
			run := kubetest.Running(t.node, sub.Add(t.start))
			if t.dur > 0 {
				run = kubetest.Succeeded(sc.nodes[0].name, sub.Add(t.start), t.dur)
			}
			pods = append(pods, pod(t.reduce, run))
		}
		ready := &[2][]string{}
		sc.ready[js.name] = ready
		for range js.maps {
			p := pod(false)
			ready[0] = append(ready[0], p.Name)
			pods = append(pods, p)
		}
		for k := range js.reduces {
			if k < js.gated {
				pods = append(pods, pod(true, kubetest.Gated))
				continue
			}
			p := pod(true)
			ready[1] = append(ready[1], p.Name)
			pods = append(pods, p)
		}
	}
	for k := range sc.plain {
		pods = append(pods, kubetest.Pod(ns, fmt.Sprintf("plain-%02d", k), now.Add(-time.Hour), func(p *v1.Pod) {
			p.Spec.Containers[0].Resources.Requests = v1.ResourceList{v1.ResourceCPU: resource.MustParse("100m")}
		}))
	}
	return nodes, jobs, pods
}

// result is what the real scheduler did with a scenario.
type result struct {
	reserved []string          // pod names in reserve order
	popped   []string          // pod names in the order of their first scheduling attempt
	bindings map[string]string // pod → node
	hopeless map[string]string // Job or pod name → event note
	deleted  map[string]bool   // deleted Jobs and pods
}

// run starts the real kube-scheduler in-process on a fake clientset
// loaded with the scenario, with the sample profile.yaml, and waits until
// want pods are bound and the hopeless jobs were acted on.
func run(t *testing.T, sc *scenario, wantBound, wantHopeless int) result {
	t.Helper()
	ctx, cancel := context.WithCancel(klog.NewContext(context.Background(), klog.TODO()))
	defer cancel()

	nodes, jobs, pods := sc.objects()
	var objs []runtime.Object
	for _, o := range nodes {
		objs = append(objs, o)
	}
	for _, o := range jobs {
		objs = append(objs, o)
	}
	for _, o := range pods {
		objs = append(objs, o)
	}
	client := fake.NewClientset(objs...)

	res := result{bindings: map[string]string{}, hopeless: map[string]string{}, deleted: map[string]bool{}}
	var mu sync.Mutex
	// Binding: record it and play the kubelet, which starts the pod now.
	playKubelet(client, func(pod, node string) {
		mu.Lock()
		res.bindings[pod] = node
		mu.Unlock()
	})
	client.PrependReactor("delete", "*", func(action clienttesting.Action) (bool, runtime.Object, error) {
		mu.Lock()
		res.deleted[action.GetResource().Resource+"/"+action.(clienttesting.DeleteAction).GetName()] = true
		mu.Unlock()
		return false, nil, nil
	})

	// The fake clientset ignores field selectors; kube-scheduler's pod
	// informer relies on one to leave out terminal pods, and the plugin's
	// own informer to list succeeded ones. Apply them to pod lists and
	// watches as the API server would.
	filterPods(client)

	broadcaster := events.NewBroadcaster(&events.EventSinkImpl{Interface: client.EventsV1()})
	broadcaster.StartRecordingToSink(ctx.Done())
	defer broadcaster.Shutdown()
	stopWatch, err := broadcaster.StartEventWatcher(func(obj runtime.Object) {
		e, ok := obj.(*eventsv1.Event)
		if !ok || e.Reason != leastsparetime.EventReasonHopeless {
			return
		}
		mu.Lock()
		res.hopeless[e.Regarding.Name] = e.Note
		mu.Unlock()
	})
	if err != nil {
		t.Fatal(err)
	}
	defer stopWatch()

	rec := newRoundRecorder()
	clk := clocktesting.NewFakePassiveClock(now)
	startLSS(ctx, t, client, broadcaster, rec, clk, fmt.Sprintf(`{"deleteHopelessJobs":%v,"hopelessCheckInterval":"20ms"}`, sc.deleteHopeless))

	// Wait for the expected bindings and events, then a little longer to
	// catch any unexpected extra binding.
	deadline := time.Now().Add(20 * time.Second)
	for {
		mu.Lock()
		nb, nh := len(res.bindings), len(res.hopeless)
		mu.Unlock()
		if nb >= wantBound && nh >= wantHopeless {
			break
		}
		if time.Now().After(deadline) {
			t.Errorf("timed out with %d of %d pods bound and %d of %d hopeless jobs reported", nb, wantBound, nh, wantHopeless)
			break
		}
		time.Sleep(10 * time.Millisecond)
	}
	time.Sleep(300 * time.Millisecond)
	cancel()
	mu.Lock()
	defer mu.Unlock()
	res.popped, res.reserved = rec.snapshot(0)
	return res
}

// startLSS starts the real kube-scheduler in-process on client with the
// sample profile.yaml, LeastSpareTime on clk with the given JSON args and
// rec recording first attempts and reservations; it returns once the
// scheduler runs (until ctx ends).
func startLSS(ctx context.Context, t *testing.T, client *fake.Clientset, broadcaster events.EventBroadcaster, rec *roundRecorder, clk *clocktesting.FakePassiveClock, args string, opts ...scheduler.Option) {
	t.Helper()
	startScheduler(ctx, t, client, broadcaster, schedulerSetup{profile: "profile.yaml", plugin: leastsparetime.Name,
		factory: leastsparetime.NewWithClock(clk), args: args, rec: rec, opts: opts})
}

// schedulerSetup is one in-process kube-scheduler: a shipped profile (a
// file of cmd/schedkit-scheduler), its schedkit plugin's factory (tests
// give it a fake clock, a feed) and JSON args ("": the profile's), and a
// recorder of attempts and reservations, first in PreFilter so that it
// sees the pods the plugin refuses there.
type schedulerSetup struct {
	profile, plugin string
	factory         frameworkruntime.PluginFactory
	args            string
	rec             *roundRecorder
	opts            []scheduler.Option
}

// startScheduler starts the real kube-scheduler in-process on client
// (events through broadcaster) as s says; it returns the scheduler once
// it runs (until ctx ends).
func startScheduler(ctx context.Context, t *testing.T, client *fake.Clientset, broadcaster events.EventBroadcaster, s schedulerSetup) *scheduler.Scheduler {
	t.Helper()
	// Informers first (kube-scheduler's own factory), synced, so that the
	// scheduler's handlers see the whole state when they are added.
	factory := scheduler.NewInformerFactory(client, 0, nil)
	factory.Core().V1().Pods().Informer()
	factory.Core().V1().Nodes().Informer()
	factory.Batch().V1().Jobs().Informer()
	factory.Start(ctx.Done())
	factory.WaitForCacheSync(ctx.Done())

	cfg, err := options.LoadConfigFromFile(klog.TODO(), filepath.Join("..", "cmd", "schedkit-scheduler", s.profile))
	if err != nil {
		t.Fatalf("loading the sample profile: %v", err)
	}
	prof := cfg.Profiles[0]
	prof.Plugins.PreFilter.Enabled = slices.Insert(prof.Plugins.PreFilter.Enabled, 0, schedulerapi.Plugin{Name: "Recorder"})
	prof.Plugins.Reserve.Enabled = append(prof.Plugins.Reserve.Enabled, schedulerapi.Plugin{Name: "Recorder"})
	if s.args != "" {
		found := false
		for i := range prof.PluginConfig {
			if prof.PluginConfig[i].Name == s.plugin {
				prof.PluginConfig[i].Args = &runtime.Unknown{ContentType: runtime.ContentTypeJSON, Raw: []byte(s.args)}
				found = true
			}
		}
		if !found {
			t.Fatalf("%s configures no %s args", s.profile, s.plugin)
		}
	}
	registry := frameworkruntime.Registry{
		s.plugin:   s.factory,
		"Recorder": func(context.Context, runtime.Object, fwk.Handle) (fwk.Plugin, error) { return s.rec, nil },
	}
	sched, err := scheduler.New(ctx, client, factory, nil, profile.NewRecorderFactory(broadcaster),
		append([]scheduler.Option{scheduler.WithProfiles(prof), scheduler.WithFrameworkOutOfTreeRegistry(registry)}, s.opts...)...)
	if err != nil {
		t.Fatalf("scheduler.New: %v", err)
	}
	factory.Start(ctx.Done())
	factory.WaitForCacheSync(ctx.Done())
	if err := sched.WaitForHandlersSync(ctx); err != nil {
		t.Fatal(err)
	}
	go sched.Run(ctx)
	return sched
}

// filterPods makes pod lists and watches on client honour field
// selectors, as the API server does (the fake clientset ignores them;
// kube-scheduler's pod informer relies on one to leave out terminal
// pods, the plugins' own informers of succeeded pods on one that names
// their scheduler): a watch sends an object that starts matching as an
// addition, one that stops matching (a pod that succeeds, for the
// scheduler's informer) as a deletion, and the deletion of an object
// that matched — including those of the list the informer started from —
// as a deletion.
func filterPods(client *fake.Clientset) {
	gvr := v1.SchemeGroupVersion.WithResource("pods")
	match := func(sel fields.Selector, obj runtime.Object) bool {
		p, ok := obj.(*v1.Pod)
		return !ok || sel == nil || sel.Matches(podFields(p))
	}
	list := func(sel fields.Selector, ns string) (*v1.PodList, error) {
		obj, err := client.Tracker().List(gvr, v1.SchemeGroupVersion.WithKind("Pod"), ns)
		if err != nil {
			return nil, err
		}
		l := obj.(*v1.PodList)
		kept := l.Items[:0]
		for i := range l.Items {
			if match(sel, &l.Items[i]) {
				kept = append(kept, l.Items[i])
			}
		}
		l.Items = kept
		return l, nil
	}
	client.PrependReactor("list", "pods", func(action clienttesting.Action) (bool, runtime.Object, error) {
		sel := action.(clienttesting.ListAction).GetListRestrictions().Fields
		if sel == nil || sel.Empty() {
			return false, nil, nil
		}
		l, err := list(sel, action.GetNamespace())
		return true, l, err
	})
	client.PrependWatchReactor("pods", func(action clienttesting.Action) (bool, watch.Interface, error) {
		sel := action.(clienttesting.WatchAction).GetWatchRestrictions().Fields
		if sel == nil || sel.Empty() {
			return false, nil, nil
		}
		var opts metav1.ListOptions
		if wa, ok := action.(clienttesting.WatchActionImpl); ok {
			opts = wa.ListOptions
		}
		// What matches when the watch starts: the informer listed it.
		var mu sync.Mutex
		matched := map[types.UID]bool{}
		l, err := list(sel, action.GetNamespace())
		if err != nil {
			return true, nil, err
		}
		for i := range l.Items {
			matched[l.Items[i].UID] = true
		}
		w, err := client.Tracker().Watch(gvr, action.GetNamespace(), opts)
		if err != nil {
			return true, nil, err
		}
		return true, watch.Filter(w, func(e watch.Event) (watch.Event, bool) {
			p, ok := e.Object.(*v1.Pod)
			if !ok {
				return e, true
			}
			mu.Lock()
			defer mu.Unlock()
			was := matched[p.UID]
			if e.Type == watch.Deleted {
				delete(matched, p.UID)
				return e, was || match(sel, e.Object)
			}
			if match(sel, e.Object) {
				matched[p.UID] = true
				if !was && e.Type == watch.Modified {
					e.Type = watch.Added
				}
				return e, true
			}
			delete(matched, p.UID)
			if was {
				return watch.Event{Type: watch.Deleted, Object: e.Object}, true
			}
			return e, false
		}), nil
	})
}

// podFields are the fields of a pod the API server's field selectors
// read.
func podFields(p *v1.Pod) fields.Set {
	return fields.Set{"metadata.name": p.Name, "metadata.namespace": p.Namespace, "spec.nodeName": p.Spec.NodeName,
		"spec.schedulerName": p.Spec.SchedulerName, "status.phase": string(p.Status.Phase)}
}

// playKubelet makes client answer a pod binding as the API server and
// the kubelet would: the pod gets its node, phase Running and a start
// time of now; then bound(pod name, node name) is called (from the
// scheduler's binding goroutine: guard what it writes).
func playKubelet(client *fake.Clientset, bound func(pod, node string)) {
	playKubeletAt(client, func() time.Time { return now }, bound)
}

// playKubeletAt is playKubelet with the start time start() (a clock's).
func playKubeletAt(client *fake.Clientset, start func() time.Time, bound func(pod, node string)) {
	podsGVR := v1.SchemeGroupVersion.WithResource("pods")
	client.PrependReactor("create", "pods", func(action clienttesting.Action) (bool, runtime.Object, error) {
		if action.GetSubresource() != "binding" {
			return false, nil, nil
		}
		b := action.(clienttesting.CreateAction).GetObject().(*v1.Binding)
		obj, err := client.Tracker().Get(podsGVR, b.Namespace, b.Name)
		if err != nil {
			return true, nil, err
		}
		p := obj.(*v1.Pod).DeepCopy()
		p.Spec.NodeName = b.Target.Name
		p.Status.Phase = v1.PodRunning
		st := metav1.NewTime(start())
		p.Status.StartTime = &st
		if err := client.Tracker().Update(podsGVR, p, p.Namespace); err != nil {
			return true, nil, err
		}
		bound(b.Name, b.Target.Name)
		return true, b, nil
	})
}
