package integration_test

import (
	"context"
	"fmt"
	"math/rand/v2"
	"slices"
	"sync"
	"testing"
	"time"

	batchv1 "k8s.io/api/batch/v1"
	v1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/kubernetes/fake"
	clienttesting "k8s.io/client-go/testing"
	"k8s.io/client-go/tools/events"
	"k8s.io/klog/v2"
	fwk "k8s.io/kube-scheduler/framework"
	"k8s.io/kubernetes/pkg/scheduler"
	frameworkruntime "k8s.io/kubernetes/pkg/scheduler/framework/runtime"
	clocktesting "k8s.io/utils/clock/testing"

	"github.com/schedkit/schedkit/internal/kube/deadlinebudget"
	"github.com/schedkit/schedkit/internal/kube/kubetest"
	"github.com/schedkit/schedkit/internal/kube/leastsparetime"
	"github.com/schedkit/schedkit/internal/kube/podjob"
	"github.com/schedkit/schedkit/internal/kube/queuesort"
)

// The chaos test: the real kube-scheduler with a queue-sort
// plugin in a cluster other tenants share, under random hostile objects
// (other schedulers' Jobs with tight or passed deadlines, malformed
// annotations, the zero deadline, Jobs mixing schedulers, nodes with
// absurd slot counts, Jobs re-created under their name with their old
// pods lingering, finished pods whose start reads 1970, Jobs created
// "in the future"), churn (good Jobs come, run, finish and go; pods are
// deleted; nodes report their status) and a clock moving back and forth.
// It requires the scheduler to survive; every good pod to be scheduled
// in the plugin's order — once the chaos stops, a node's free slots go to
// the pods the algorithm starts (its own oracle on the cluster as it is,
// through podjob's translation), then every good pod is bound and no
// other; and what the plugin keeps to shrink back to nothing once the
// cluster is emptied (Footprint). TestChaosSoak runs the churn for long
// and measures the heap.

const chaosNS = "chaos"

// chaosPlugin is one queue-sort profile under chaos.
type chaosPlugin struct {
	name     string // the plugin's name
	profile  string // the file in cmd/schedkit-scheduler
	sched    string // its schedulerName
	other    string // another scheduler, whose pods it must leave alone
	args     string
	budget   bool // DeadlineBudget's annotations
	restart  bool // check the order on a replica restarted after the chaos (dbs's weights are state)
	hopeless bool // lss kills jobs past their deadline: a hostile case of its own
	factory  func(*clocktesting.FakePassiveClock, func(footprint)) frameworkruntime.PluginFactory
}

// footprint is a plugin's Footprint as the test reads it.
type footprint struct {
	queuesort.Footprint
	own map[string]int // the plugin's own counts
}

func (f footprint) String() string { return fmt.Sprintf("%+v %v", f.Footprint, f.own) }

func (f footprint) total() int {
	n := f.Listed + f.Held + f.Finishing + f.Refused
	for _, x := range f.own {
		n += x
	}
	return n
}

var chaosPlugins = []chaosPlugin{
	{name: leastsparetime.Name, profile: "profile.yaml", sched: "schedkit", other: "schedkit-dbs", hopeless: true,
		args: `{"deleteHopelessJobs":true,"hopelessCheckInterval":"100ms"}`,
		factory: func(clk *clocktesting.FakePassiveClock, got func(footprint)) frameworkruntime.PluginFactory {
			return reporting(leastsparetime.NewWithClock(clk), got, func(pl *leastsparetime.Plugin) footprint {
				fp := pl.Footprint()
				return footprint{fp.Footprint, map[string]int{"turns": fp.Turns, "kills": fp.Kills, "pending": fp.Pending}}
			})
		}},
	{name: deadlinebudget.Name, profile: "profile-dbs.yaml", sched: "schedkit-dbs", other: "schedkit", budget: true, restart: true,
		args: dbsArgs,
		factory: func(clk *clocktesting.FakePassiveClock, got func(footprint)) frameworkruntime.PluginFactory {
			return reporting(deadlinebudget.Factory(clk, true), got, func(pl *deadlinebudget.Plugin) footprint {
				fp := pl.Footprint()
				return footprint{fp.Footprint, map[string]int{"jobs": fp.Jobs, "pending": fp.Pending}}
			})
		}},
}

// reporting is factory whose plugins hand their footprint (read) to got
// every 50 ms, until the scheduler stops.
func reporting[P fwk.Plugin](factory frameworkruntime.PluginFactory, got func(footprint), read func(P) footprint) frameworkruntime.PluginFactory {
	return func(ctx context.Context, obj runtime.Object, h fwk.Handle) (fwk.Plugin, error) {
		p, err := factory(ctx, obj, h)
		if err == nil {
			pl := p.(P)
			go wait.UntilWithContext(ctx, func(context.Context) { got(read(pl)) }, 50*time.Millisecond)
		}
		return p, err
	}
}

// chaos is one run: the fake API, the scheduler, and the test's model of
// which Jobs are good.
type chaos struct {
	t       *testing.T
	cp      chaosPlugin
	rng     *rand.Rand
	ctx     context.Context
	client  *fake.Clientset
	clk     *clocktesting.FakePassiveClock
	seq     int
	changes int // objects created or deleted (pace)

	stop func() // stops the scheduler running
	rec  *roundRecorder

	mu    sync.Mutex
	bound map[string]string // pod → node, every binding
	fp    footprint         // the running plugin's latest footprint

	good    map[string]*batchv1.Job // good Jobs by name, as created
	foreign []string                // other schedulers' Jobs
	nodes   []string                // good nodes
	absurd  []string                // nodes with absurd slot counts
	created int                     // objects created
}

func newChaos(t *testing.T, cp chaosPlugin, seed uint64) *chaos {
	ctx, cancel := context.WithCancel(klog.NewContext(context.Background(), klog.TODO()))
	t.Cleanup(cancel)
	c := &chaos{t: t, cp: cp, rng: rand.New(rand.NewPCG(seed, 37)), ctx: ctx, client: fake.NewClientset(),
		clk: clocktesting.NewFakePassiveClock(now), bound: map[string]string{}, good: map[string]*batchv1.Job{}}
	playKubeletAt(c.client, c.clk.Now, func(pod, node string) {
		c.mu.Lock()
		c.bound[pod] = node
		c.mu.Unlock()
	})
	filterPods(c.client)
	// Events are recorded (the plugins' code runs) but not kept: the fake
	// API would keep every one, which is not the scheduler's memory.
	c.client.PrependReactor("*", "events", func(a clienttesting.Action) (bool, runtime.Object, error) {
		if ca, ok := a.(clienttesting.CreateAction); ok {
			return true, ca.GetObject(), nil
		}
		return true, nil, nil
	})
	for i := range 2 {
		c.addNode(fmt.Sprintf("good-%d", i), 2, 1)
	}
	c.start()
	return c
}

// start starts a scheduler on the cluster (stopping the one running).
func (c *chaos) start() {
	if c.stop != nil {
		c.stop()
	}
	ctx, cancel := context.WithCancel(c.ctx)
	broadcaster := events.NewBroadcaster(&events.EventSinkImpl{Interface: c.client.EventsV1()})
	broadcaster.StartRecordingToSink(ctx.Done())
	c.rec = newRoundRecorder()
	startScheduler(ctx, c.t, c.client, broadcaster, schedulerSetup{profile: c.cp.profile, plugin: c.cp.name, args: c.cp.args, rec: c.rec,
		factory: c.cp.factory(c.clk, func(f footprint) { c.mu.Lock(); c.fp = f; c.mu.Unlock() }),
		opts:    []scheduler.Option{scheduler.WithPodInitialBackoffSeconds(1), scheduler.WithPodMaxBackoffSeconds(1)}})
	var once sync.Once
	c.stop = func() { once.Do(func() { cancel(); broadcaster.Shutdown() }) }
}

// pace lets the informers keep up: the fake API's watches hold 100
// events each and panic when one is full.
func (c *chaos) pace() {
	if c.changes++; c.changes%20 == 0 {
		time.Sleep(20 * time.Millisecond)
	}
}

func (c *chaos) name(kind string) string {
	c.seq++
	return fmt.Sprintf("%s-%d", kind, c.seq)
}

func (c *chaos) create(obj runtime.Object) {
	c.t.Helper()
	c.pace()
	var err error
	switch o := obj.(type) {
	case *batchv1.Job:
		_, err = c.client.BatchV1().Jobs(chaosNS).Create(c.ctx, o, metav1.CreateOptions{})
	case *v1.Pod:
		_, err = c.client.CoreV1().Pods(chaosNS).Create(c.ctx, o, metav1.CreateOptions{})
	case *v1.Node:
		_, err = c.client.CoreV1().Nodes().Create(c.ctx, o, metav1.CreateOptions{})
	}
	if err != nil {
		c.t.Fatalf("creating %T: %v", obj, err)
	}
	c.created++
}

func (c *chaos) addNode(name string, maps, reduces int64, opts ...func(*v1.Node)) {
	c.create(kubetest.Node(name, maps, reduces, opts...))
	c.nodes = append(c.nodes, name)
}

// ann are a good job's annotations: a deadline two days away (no clock
// skew makes it hopeless), for DeadlineBudget a φ and a budget.
func (c *chaos) ann() []string {
	kv := []string{podjob.AnnotationRelativeDeadline, "48h"}
	if c.cp.budget {
		kv = append(kv, podjob.AnnotationPhi, []string{"1", "0.5", "0"}[c.rng.IntN(3)], podjob.AnnotationBudget, "1000")
	}
	return kv
}

// job creates a Job with annotations kv, created at, and its pods: maps
// map pods and reduces reduce pods of scheduler sched (opts on each).
func (c *chaos) job(name string, at time.Time, kv []string, maps, reduces int, sched string, opts ...func(*v1.Pod)) *batchv1.Job {
	j := kubetest.Job(chaosNS, name, at, kv...)
	c.create(j)
	for i := range maps + reduces {
		o := append([]func(*v1.Pod){kubetest.Of(j), kubetest.Scheduler(sched), kubetest.Label(podjob.LabelPhase, "map"), kubetest.Slot}, opts...)
		if i >= maps {
			o = append(o, kubetest.Reduce)
		}
		c.create(kubetest.Pod(chaosNS, fmt.Sprintf("%s-%d", name, i), at.Add(time.Duration(i)*time.Millisecond), o...))
	}
	return j
}

// step makes one random change: mostly churn of good Jobs, often a
// hostile object, sometimes the clock.
func (c *chaos) step() {
	now := c.clk.Now()
	switch r := c.rng.IntN(100); {
	case r < 25: // a good Job; now and then one created "in the future" or with a start from 1970
		at := now.Add(-time.Duration(c.rng.IntN(600)) * time.Second)
		if c.rng.IntN(6) == 0 {
			at = now.Add(30 * time.Minute) // the API server's clock ahead
		}
		reduces := 0
		if !c.cp.budget && c.rng.IntN(3) == 0 {
			reduces = 1
		}
		name := c.name("good")
		j := c.job(name, at, c.ann(), 1+c.rng.IntN(3), reduces, c.cp.sched)
		if c.rng.IntN(4) == 0 {
			c.create(kubetest.Pod(chaosNS, name+"-skewed", at, kubetest.Of(j), kubetest.Scheduler(c.cp.sched), kubetest.Slot,
				kubetest.Succeeded(c.nodes[0], time.Unix(0, 0), 10*time.Second)))
		}
		c.good[name] = j
	case r < 35: // another scheduler's Job: a tight deadline, or passed
		at, dl := now.Add(-10*time.Second), "20s"
		if c.rng.IntN(2) == 0 {
			at, dl = now.Add(-time.Hour), "1m"
		}
		kv := []string{podjob.AnnotationRelativeDeadline, dl, podjob.AnnotationPhi, "1"}
		name := c.name("foreign")
		c.job(name, at, kv, 2, 0, c.cp.other)
		c.foreign = append(c.foreign, name)
	case r < 45: // malformed annotations
		bad := [][]string{
			{podjob.AnnotationDeadline, "tomorrow"}, {podjob.AnnotationDeadline, "0001-01-01T00:00:00Z"},
			{podjob.AnnotationRelativeDeadline, "-5s"}, {podjob.AnnotationRelativeDeadline, "1h", podjob.AnnotationTasks, "map=x"},
			{podjob.AnnotationRelativeDeadline, "1h", podjob.AnnotationDeadline, "2030-01-01T00:00:00Z"},
			{podjob.AnnotationRelativeDeadline, "1h", podjob.AnnotationPhi, "0.7", podjob.AnnotationBudget, "NaN"},
		}[c.rng.IntN(6)]
		c.job(c.name("bad"), now, bad, 2, 0, c.cp.sched)
	case r < 50: // a Job whose pods name two schedulers
		name := c.name("mixed")
		j := c.job(name, now, c.ann(), 1, 0, c.cp.sched)
		c.create(kubetest.Pod(chaosNS, name+"-theirs", now, kubetest.Of(j), kubetest.Scheduler(c.cp.other), kubetest.Slot))
	case r < 53 && len(c.absurd) < 3: // a node of absurd slot counts (tainted: nothing runs there)
		name := c.name("absurd")
		c.create(kubetest.Node(name, []int64{1 << 33, 3e9}[c.rng.IntN(2)], 1, kubetest.Taint("example.com/quarantine")))
		c.absurd = append(c.absurd, name)
	case r < 58 && c.cp.hopeless: // the plugin's own Job, past its deadline
		c.job(c.name("late"), now.Add(-time.Hour), []string{podjob.AnnotationRelativeDeadline, "1m"}, 2, 0, c.cp.sched)
	case r < 63: // a good Job deleted and re-created under its name: its old pods linger
		if name, ok := c.anyGood(); ok {
			if err := c.client.BatchV1().Jobs(chaosNS).Delete(c.ctx, name, metav1.DeleteOptions{}); err != nil {
				c.t.Fatal(err)
			}
			j := kubetest.Job(chaosNS, name, now, c.ann()...)
			j.UID = types.UID(c.name(string(j.UID) + "-again"))
			c.create(j)
			c.create(kubetest.Pod(chaosNS, c.name(name+"-new"), now, kubetest.Of(j), kubetest.Scheduler(c.cp.sched), kubetest.Slot))
			c.good[name] = j
		}
	case r < 75: // a running good pod finishes; a good Job whose pods all finished goes
		c.finishOne()
	case r < 82: // a pending pod is deleted
		c.deleteOne()
	case r < 92: // a node reports its status
		c.heartbeat(c.nodes[c.rng.IntN(len(c.nodes))])
	default: // the clock moves, back or forth
		c.clk.SetTime(now.Add(time.Duration(c.rng.IntN(3600)-1800) * time.Second))
	}
}

// anyGood returns a good Job's name (the first in name order from a
// random start).
func (c *chaos) anyGood() (string, bool) {
	names := make([]string, 0, len(c.good))
	for n := range c.good {
		names = append(names, n)
	}
	if len(names) == 0 {
		return "", false
	}
	slices.Sort(names)
	return names[c.rng.IntN(len(names))], true
}

func (c *chaos) pods() []*v1.Pod {
	l, err := c.client.CoreV1().Pods(chaosNS).List(c.ctx, metav1.ListOptions{})
	if err != nil {
		c.t.Fatal(err)
	}
	out := make([]*v1.Pod, len(l.Items))
	for i := range l.Items {
		out[i] = &l.Items[i]
	}
	return out
}

// finishOne makes a random running pod succeed (at the clock's now), and
// deletes a good Job whose pods all finished, with its pods (as a Job's
// TTL does).
func (c *chaos) finishOne() {
	var running []*v1.Pod
	done := map[string]bool{}
	for _, p := range c.pods() {
		if p.Status.Phase == v1.PodRunning {
			running = append(running, p)
		}
		if ref := metav1.GetControllerOf(p); ref != nil && p.Status.Phase != v1.PodSucceeded {
			done[ref.Name] = false
		} else if ref != nil {
			if _, seen := done[ref.Name]; !seen {
				done[ref.Name] = true
			}
		}
	}
	if len(running) > 0 {
		p := running[c.rng.IntN(len(running))].DeepCopy()
		p.Status.Phase = v1.PodSucceeded
		p.Status.ContainerStatuses = []v1.ContainerStatus{{Name: "task", State: v1.ContainerState{
			Terminated: &v1.ContainerStateTerminated{FinishedAt: metav1.NewTime(c.clk.Now())}}}}
		if _, err := c.client.CoreV1().Pods(chaosNS).UpdateStatus(c.ctx, p, metav1.UpdateOptions{}); err != nil && !apierrors.IsNotFound(err) {
			c.t.Fatal(err)
		}
	}
	for name, all := range done {
		if all && c.good[name] != nil {
			c.deleteJob(name)
		}
	}
}

// deleteJob deletes a Job and its pods.
func (c *chaos) deleteJob(name string) {
	delete(c.good, name)
	if err := c.client.BatchV1().Jobs(chaosNS).Delete(c.ctx, name, metav1.DeleteOptions{}); err != nil && !apierrors.IsNotFound(err) {
		c.t.Fatal(err)
	}
	for _, p := range c.pods() {
		if ref := metav1.GetControllerOf(p); ref != nil && ref.Name == name {
			c.deletePod(p.Name)
		}
	}
}

func (c *chaos) deletePod(name string) {
	c.pace()
	if err := c.client.CoreV1().Pods(chaosNS).Delete(c.ctx, name, metav1.DeleteOptions{}); err != nil && !apierrors.IsNotFound(err) {
		c.t.Fatal(err)
	}
	c.mu.Lock()
	delete(c.bound, name)
	c.mu.Unlock()
}

// deleteOne deletes a random pending pod.
func (c *chaos) deleteOne() {
	var pending []string
	for _, p := range c.pods() {
		if p.Spec.NodeName == "" {
			pending = append(pending, p.Name)
		}
	}
	if len(pending) > 0 {
		c.deletePod(pending[c.rng.IntN(len(pending))])
	}
}

// heartbeat is a node's status report: its Ready condition's heartbeat.
func (c *chaos) heartbeat(name string) {
	n, err := c.client.CoreV1().Nodes().Get(c.ctx, name, metav1.GetOptions{})
	if err != nil {
		c.t.Fatal(err)
	}
	n.Status.Conditions[0].LastHeartbeatTime = metav1.NewTime(c.clk.Now())
	if _, err := c.client.CoreV1().Nodes().UpdateStatus(c.ctx, n, metav1.UpdateOptions{}); err != nil {
		c.t.Fatal(err)
	}
}

// footprint returns the running plugin's latest footprint.
func (c *chaos) footprint() footprint {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.fp
}

// empty deletes every Job and pod and the absurd nodes, as a namespace's
// deletion would.
func (c *chaos) empty() {
	jobs, err := c.client.BatchV1().Jobs(chaosNS).List(c.ctx, metav1.ListOptions{})
	if err != nil {
		c.t.Fatal(err)
	}
	for _, j := range jobs.Items {
		if err := c.client.BatchV1().Jobs(chaosNS).Delete(c.ctx, j.Name, metav1.DeleteOptions{}); err != nil && !apierrors.IsNotFound(err) {
			c.t.Fatal(err)
		}
	}
	for _, p := range c.pods() {
		c.deletePod(p.Name)
	}
	for _, n := range c.absurd {
		if err := c.client.CoreV1().Nodes().Delete(c.ctx, n, metav1.DeleteOptions{}); err != nil {
			c.t.Fatal(err)
		}
	}
	c.absurd, c.good, c.foreign = nil, map[string]*batchv1.Job{}, nil
}

// waitFootprint waits (at most 20 s: the held pods are forgotten at the
// plugin's next re-activation, dropped bound pods after their grace)
// until the plugin keeps nothing but the nodes' count.
func (c *chaos) waitFootprint() footprint {
	var f footprint
	for deadline := time.Now().Add(20 * time.Second); time.Now().Before(deadline); time.Sleep(50 * time.Millisecond) {
		if f = c.footprint(); f.own != nil && f.total() == 0 {
			return f
		}
	}
	return f
}
