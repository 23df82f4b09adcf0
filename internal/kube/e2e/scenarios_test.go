package e2e_test

import (
	"cmp"
	"context"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	batchv1 "k8s.io/api/batch/v1"
	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	metricsv1beta1 "k8s.io/metrics/pkg/apis/metrics/v1beta1"

	"github.com/schedkit/schedkit"
	"github.com/schedkit/schedkit/dbs"
	"github.com/schedkit/schedkit/fgm"
	"github.com/schedkit/schedkit/internal/kube/heldpods"
	"github.com/schedkit/schedkit/internal/kube/podjob"
	"github.com/schedkit/schedkit/lss"
	skres "github.com/schedkit/schedkit/resource"
)

// The oracles: schedkit's lss and dbs run directly on the scenario as a
// slot-based host (Hadoop's JobTracker) would — jobs submitted at their
// Jobs' creation, the node heartbeating once at now with its free slots
// — with no Kubernetes code in between.

type oJob struct {
	id       schedkit.JobID
	name     string
	sub, dl  time.Time
	progress []schedkit.PhaseProgress
	phi      float64
	budget   float64
}

func (j *oJob) ID() schedkit.JobID                               { return j.id }
func (j *oJob) Submitted() time.Time                             { return j.sub }
func (j *oJob) Deadline() time.Time                              { return j.dl }
func (j *oJob) Phases() int                                      { return len(j.progress) }
func (j *oJob) Progress(p schedkit.Phase) schedkit.PhaseProgress { return j.progress[p] }
func (j *oJob) Budget() float64                                  { return j.budget }
func (j *oJob) Phi() float64                                     { return j.phi }
func (j *oJob) CostSoFar() float64                               { return 0 }
func (j *oJob) DataSizes() (int64, int64)                        { return 0, 0 }

type oNode struct{ cap, avail skres.Vector }

func (n *oNode) ID() schedkit.NodeID                      { return "node" }
func (n *oNode) Rack() schedkit.RackID                    { return "default" }
func (n *oNode) Capacity() skres.Vector                   { return n.cap }
func (n *oNode) Available() skres.Vector                  { return n.avail }
func (n *oNode) Accelerators() []schedkit.AcceleratorInfo { return nil }

type oCluster struct {
	space *skres.Space
	node  *oNode
}

func (c *oCluster) Space() *skres.Space    { return c.space }
func (c *oCluster) Nodes() int             { return 1 }
func (c *oCluster) Node(int) schedkit.Node { return c.node }
func (c *oCluster) Capacity() skres.Vector { return c.node.cap }

// oState reads a scenario's jobs back from the API server: per job its
// pods by rank (creation, then name), which are finished, running,
// ready.
type oState struct {
	jobs  []*oJob
	ready map[string][2][]string // job → ready pods per phase, by rank
}

// Pods in asReady count as ready even if bound (the scheduler bound them
// since the state the oracle decides on).
func readState(t *testing.T, c *cluster, ns string, jobs []*batchv1.Job, deadline func(*batchv1.Job) time.Time, now time.Time, asReady []string) (*oState, [2]float64) {
	t.Helper()
	pods, err := c.client.CoreV1().Pods(ns).List(context.Background(), metav1.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	items := pods.Items
	slices.SortFunc(items, func(a, b v1.Pod) int {
		if d := a.CreationTimestamp.Compare(b.CreationTimestamp.Time); d != 0 {
			return d
		}
		return cmp.Compare(a.Name, b.Name)
	})
	st := &oState{ready: map[string][2][]string{}}
	var held [2]float64
	for _, j := range jobs {
		oj := &oJob{id: schedkit.JobID("Job/" + ns + "/" + j.Name), name: j.Name, sub: j.CreationTimestamp.Time, dl: deadline(j)}
		if phi, err := strconv.ParseFloat(j.Annotations[podjob.AnnotationPhi], 64); err == nil {
			oj.phi = phi
		}
		if b, err := strconv.ParseFloat(j.Annotations[podjob.AnnotationBudget], 64); err == nil {
			oj.budget = b
		}
		var pr [2]schedkit.PhaseProgress
		ready := [2][]string{}
		for _, p := range items {
			if len(p.OwnerReferences) == 0 || p.OwnerReferences[0].UID != j.UID {
				continue
			}
			ph := 0
			if p.Labels[podjob.LabelPhase] == "reduce" {
				ph = 1
			}
			pr[ph].Total++
			switch {
			case p.Status.Phase == v1.PodSucceeded:
				pr[ph].Finished++
				pr[ph].FinishedDurationSum += p.Status.ContainerStatuses[0].State.Terminated.FinishedAt.Sub(p.Status.StartTime.Time)
			case p.Spec.NodeName != "" && !slices.Contains(asReady, p.Name):
				pr[ph].Running++
				pr[ph].RunningStartSum += now.Sub(oj.sub) // started "now": no kubelet reports a start
				held[ph]++
			default:
				pr[ph].Ready++
				ready[ph] = append(ready[ph], p.Name)
			}
		}
		oj.progress = pr[:1]
		if pr[1].Total > 0 {
			oj.progress = pr[:]
		}
		st.jobs = append(st.jobs, oj)
		st.ready[j.Name] = ready
	}
	slices.SortStableFunc(st.jobs, func(a, b *oJob) int { return a.sub.Compare(b.sub) })
	return st, held
}

// picks turns assignments (job, phase, count) into the pods they start:
// each job's ready pods in rank order.
func (st *oState) picks(assign func(yield func(name string, phase schedkit.Phase, count int))) []string {
	next := map[string]*[2]int{}
	var out []string
	assign(func(name string, phase schedkit.Phase, count int) {
		at := next[name]
		if at == nil {
			at = new([2]int)
			next[name] = at
		}
		for range count {
			out = append(out, st.ready[name][phase][at[phase]])
			at[phase]++
		}
	})
	slices.Sort(out)
	return out
}

func slotCluster(t *testing.T, maps, reduces float64, held [2]float64) *oCluster {
	space, err := skres.NewSpace(skres.MapSlot, skres.ReduceSlot)
	if err != nil {
		t.Fatal(err)
	}
	n := &oNode{cap: skres.Vector{maps, reduces}, avail: skres.Vector{maps - held[0], reduces - held[1]}}
	return &oCluster{space: space, node: n}
}

// lssExpect: the pods one lss heartbeat of the node starts at now, and
// the jobs it kills.
func lssExpect(t *testing.T, c *cluster, ns string, jobs []*batchv1.Job, maps, reduces float64, asReady []string) (start, killed []string) {
	t.Helper()
	now := time.Now()
	st, held := readState(t, c, ns, jobs, func(j *batchv1.Job) time.Time {
		d, err := time.ParseDuration(j.Annotations[podjob.AnnotationRelativeDeadline])
		if err != nil {
			t.Fatal(err)
		}
		return j.CreationTimestamp.Add(d)
	}, now, asReady)
	cl := slotCluster(t, maps, reduces, held)
	sched, err := lss.New(lss.Config{Cluster: cl})
	if err != nil {
		t.Fatal(err)
	}
	for _, j := range st.jobs {
		if err := sched.Submit(j.sub, j); err != nil {
			t.Fatalf("oracle: lss refused %s: %v", j.id, err)
		}
	}
	decs, err := sched.Heartbeat(now, cl.node, nil)
	if err != nil {
		t.Fatal(err)
	}
	start = st.picks(func(yield func(string, schedkit.Phase, int)) {
		for _, d := range decs {
			switch d.Action {
			case lss.Assign:
				yield(jobName(d.Job), d.Phase, d.Count)
			case lss.Kill:
				killed = append(killed, jobName(d.Job))
			}
		}
	})
	return start, killed
}

// dbsExpect: the pods one dbs heartbeat of the node starts at now.
func dbsExpect(t *testing.T, c *cluster, ns string, jobs []*batchv1.Job, maps, reduces float64, asReady []string) []string {
	t.Helper()
	now := time.Now()
	st, held := readState(t, c, ns, jobs, func(j *batchv1.Job) time.Time {
		if s, ok := j.Annotations[podjob.AnnotationRelativeDeadline]; ok {
			d, err := time.ParseDuration(s)
			if err != nil {
				t.Fatal(err)
			}
			return j.CreationTimestamp.Add(d)
		}
		return time.Time{}
	}, now, asReady)
	cl := slotCluster(t, maps, reduces, held)
	sched, err := dbs.New(dbs.Config{Cluster: cl, Interval: 500 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	for _, j := range st.jobs {
		if err := sched.Submit(j.sub, j); err != nil {
			t.Fatalf("oracle: dbs refused %s: %v", j.id, err)
		}
	}
	if _, err := sched.Tick(now, nil); err != nil {
		t.Fatal(err)
	}
	decs, err := sched.Heartbeat(now, cl.node, nil)
	if err != nil {
		t.Fatal(err)
	}
	return st.picks(func(yield func(string, schedkit.Phase, int)) {
		for _, d := range decs {
			if d.Action == dbs.Assign {
				yield(jobName(d.Job), d.Phase, d.Count)
			}
		}
	})
}

// jobsOf maps pod names (<job>-<i>) to their jobs' names, sorted.
func jobsOf(pods []string) []string {
	var out []string
	for _, p := range pods {
		if i := strings.LastIndexByte(p, '-'); i > 0 {
			p = p[:i]
		}
		out = append(out, p)
	}
	slices.Sort(out)
	return out
}

func jobName(id schedkit.JobID) string {
	s := string(id)
	for i := len(s) - 1; i >= 0; i-- {
		if s[i] == '/' {
			return s[i+1:]
		}
	}
	return s
}

// cleanup deletes the scenario's pods and Jobs and every node.
func (c *cluster) cleanup(t *testing.T, ns string) {
	t.Helper()
	ctx := context.Background()
	zero := int64(0)
	_ = c.client.CoreV1().Pods(ns).DeleteCollection(ctx, metav1.DeleteOptions{GracePeriodSeconds: &zero}, metav1.ListOptions{})
	_ = c.client.BatchV1().Jobs(ns).DeleteCollection(ctx, metav1.DeleteOptions{}, metav1.ListOptions{})
	c.removeNodes(t)
}

// leastSpareTime: three deadline Jobs of three maps on a node of two map
// slots, a Job with a malformed deadline and one already hopeless. The
// two pods bound are the ones lss's heartbeat starts (pass 1: one map to
// each of the two jobs of least spare time); the malformed Job's pod and
// the hopeless Job's pod are held back with a HeldBack event naming the
// annotation or the deadline; the hopeless Job gets DeadlineHopeless.
// Then a bound pod finishes (only a watch event tells the scheduler):
// its slot goes to the pod lss starts next.
func leastSpareTime(t *testing.T, c *cluster) {
	ns := "lss"
	c.namespace(t, ns)
	defer c.cleanup(t, ns)
	var jobs []*batchv1.Job
	for _, js := range []struct {
		name string
		rel  time.Duration
	}{{"late", 3 * time.Hour}, {"early", time.Hour}, {"middle", 2 * time.Hour}} {
		j := c.job(t, ns, js.name, map[string]string{podjob.AnnotationRelativeDeadline: js.rel.String()})
		jobs = append(jobs, j)
		for i := range 3 {
			c.pod(t, ns, fmt.Sprintf("%s-%d", js.name, i), "schedkit", j, "map")
		}
	}
	bad := c.job(t, ns, "bad", map[string]string{podjob.AnnotationDeadline: "tomorrow"})
	c.pod(t, ns, "bad-0", "schedkit", bad, "map")
	doomed := c.job(t, ns, "doomed", map[string]string{podjob.AnnotationRelativeDeadline: "1ms"})
	c.pod(t, ns, "doomed-0", "schedkit", doomed, "map")
	// The node comes last, once every pod waits (and the hopeless Job's
	// deadline has passed at the plugin's 1 s resolution) and each pod's
	// backoff after its first attempt (1 s) is over: the node's event
	// re-queues them all at once, in the plugin's order. (A pod still in
	// backoff would join the active queue later, after the others were
	// popped: kube-scheduler's backoff, not lss, would order it.)
	time.Sleep(4 * time.Second)
	c.addNode(t, "lss-1", 2, 1, "8", "16Gi")

	got := c.settle(t, ns, 2)
	want, killed := lssExpect(t, c, ns, append(slices.Clone(jobs), doomed), 2, 1, got)
	// lss decides which jobs get the slots; which of a job's pods takes
	// its pick is kube-scheduler's (pods of a job are alike).
	if !slices.Equal(jobsOf(got), jobsOf(want)) || !slices.Equal(killed, []string{"doomed"}) {
		t.Errorf("bound %v, lss starts %v (kills %v)", got, want, killed)
	}
	c.wantEvent(t, ns, "bad-0", heldpods.EventReasonHeldBack, podjob.AnnotationDeadline, `"tomorrow"`)
	c.wantEvent(t, ns, "doomed-0", heldpods.EventReasonHeldBack, "cannot meet its deadline")
	c.wantEvent(t, ns, "doomed", "DeadlineHopeless", "Job/lss/doomed")

	if len(got) == 0 {
		return
	}
	c.finish(t, ns, got[0], 30*time.Second)
	got2 := c.settle(t, ns, 3)
	var fresh []string
	for _, p := range got2 {
		if !slices.Contains(got, p) {
			fresh = append(fresh, p)
		}
	}
	want2, _ := lssExpect(t, c, ns, append(slices.Clone(jobs), doomed), 2, 1, fresh)
	if !slices.Equal(jobsOf(fresh), jobsOf(want2)) {
		t.Errorf("after %s finished: bound %v, lss starts %v more", got[0], got2, want2)
	}
}

// deadlineBudget: one Job per queue (φ 1, 0.5, 0) of three maps and a
// φ-1 Job with a map and a reduce, on a node of three map slots and one
// reduce slot; a Job with φ 0.7. The maps bound are those dbs's
// heartbeat starts; the reduce is held back (HeldBack, retriable) until
// its job's map finishes, then bound; φ 0.7 is held back naming
// schedkit.io/phi. Both held pods carry PodScheduled=False, reason
// HeldBack, with the hold's message; the reduce, once bound,
// PodScheduled=True. No pod has finished, so no job has a task time and
// dbs moves none between queues.
func deadlineBudget(t *testing.T, c *cluster) {
	ns := "dbs"
	c.namespace(t, ns)
	defer c.cleanup(t, ns)
	var jobs []*batchv1.Job
	for _, js := range []struct {
		name string
		ann  map[string]string
	}{
		{"hi", map[string]string{podjob.AnnotationPhi: "1", podjob.AnnotationRelativeDeadline: "1h"}},
		{"mid", map[string]string{podjob.AnnotationPhi: "0.5", podjob.AnnotationBudget: "100", podjob.AnnotationRelativeDeadline: "2h"}},
		{"lo", map[string]string{podjob.AnnotationPhi: "0", podjob.AnnotationBudget: "50"}},
	} {
		j := c.job(t, ns, js.name, js.ann)
		jobs = append(jobs, j)
		for i := range 3 {
			c.pod(t, ns, fmt.Sprintf("%s-%d", js.name, i), "schedkit-dbs", j, "map")
		}
	}
	red := c.job(t, ns, "red", map[string]string{podjob.AnnotationPhi: "1", podjob.AnnotationRelativeDeadline: "30m"})
	jobs = append(jobs, red)
	c.pod(t, ns, "red-m0", "schedkit-dbs", red, "map")
	c.pod(t, ns, "red-r0", "schedkit-dbs", red, "reduce")
	bad := c.job(t, ns, "bad", map[string]string{podjob.AnnotationPhi: "0.7", podjob.AnnotationBudget: "10", podjob.AnnotationRelativeDeadline: "1h"})
	c.pod(t, ns, "bad-0", "schedkit-dbs", bad, "map")
	// The pods wait together in the unschedulable queue, then one event
	// moves them to the active queue, where the plugin's order alone
	// decides. That event must not change what the plugin reads: a node
	// that arrives (its slots) is seen by the plugin's informer handler
	// and by the scheduling queue's on goroutines of their own, and a
	// queue that sorts the pods before the plugin has seen the node
	// orders them by a cluster without slots (every High job's pods
	// first: the scenario failed that way 2 of 4 warm runs). So the node
	// arrives tainted (the plugin counts it, the pods do not fit), and
	// the event is the taint's removal. Each pod is first tried with no
	// node, then on the tainted node; the taint goes once the second
	// attempt's backoff (2 s) is over.
	pending := []string{"hi-0", "hi-1", "hi-2", "mid-0", "mid-1", "mid-2", "lo-0", "lo-1", "lo-2", "red-m0"}
	c.waitTriedAndBackedOff(t, ns, "", 0, pending...)
	c.addNodeTainted(t, "dbs-1", 3, 1, "8", "16Gi", []v1.Taint{holdTaint})
	c.waitTriedAndBackedOff(t, ns, "untolerated taint", 3*time.Second, pending...)
	c.untaint(t, "dbs-1")

	got := c.settle(t, ns, 3)
	want := dbsExpect(t, c, ns, jobs, 3, 1, got)
	if !slices.Equal(got, want) {
		t.Errorf("bound %v, dbs starts %v", got, want)
	}
	c.wantEvent(t, ns, "bad-0", heldpods.EventReasonHeldBack, podjob.AnnotationPhi, `"0.7"`)
	c.wantEvent(t, ns, "red-r0", heldpods.EventReasonHeldBack, "maps have finished")
	c.wantPodScheduledFalse(t, ns, "bad-0", heldpods.ConditionReasonHeldBack, podjob.AnnotationPhi, `"0.7"`)
	c.wantPodScheduledFalse(t, ns, "red-r0", heldpods.ConditionReasonHeldBack, "maps have finished")
	for _, j := range jobs {
		for _, r := range []string{"QueuePromoted", "QueueDemoted"} {
			if ev := c.events(t, ns, j.Name, r); len(ev) > 0 {
				t.Errorf("%s: %s %q without a task time", j.Name, r, ev)
			}
		}
	}
	if !slices.Contains(got, "red-m0") {
		return
	}
	c.finish(t, ns, "red-m0", 20*time.Second)
	waitFor(t, "red-r0 bound after its map finished", 30*time.Second, func() bool { return slices.Contains(c.bound(t, ns), "red-r0") })
	// Released and bound: the binding's PodScheduled=True, no hold left.
	c.wantPodScheduled(t, ns, "red-r0")
}

// fineGrained, on a node of 4 CPUs and 8Gi, every pod unpredictable
// (no similarity annotations: matched by its requests):
//
//  1. pod a requests 3.9 CPUs and is bound; then b (1 CPU) and small
//     (50m) arrive: b is refused (FailedScheduling), small is bound, each
//     as fgm decides — small only because Algorithm 1's line 1 adds the
//     compression allowance to the CPU's 0.1 free (fgm without
//     compression refuses it as used up); bad has a malformed data size
//     and is refused naming schedkit.io/data-size.
//  2. a is deleted (a watch event) and b is bound.
//  3. The metrics API (the stub, through the aggregation layer): b and
//     small run, a foreign pod hog runs two containers of 3Gi, and the
//     node measures 6.5Gi used. Once the feed has read them (as the
//     shipped ServiceAccount), pod m (500m, 2Gi — its requests fit the
//     node, so NodeResourcesFit admits it) is refused by FineGrained as
//     fgm refuses it with that sample, where without a sample fgm would
//     allocate it. Then hog's usage drops; after the next read the plugin
//     retries m and it is bound, as fgm allocates it then.
func fineGrained(t *testing.T, c *cluster, m *metricsStub) {
	ns := "fgm"
	ctx := context.Background()
	c.namespace(t, ns)
	defer c.cleanup(t, ns)
	c.addNode(t, "fgm-1", 0, 0, "4", "8Gi")
	node, err := c.client.CoreV1().Nodes().Get(ctx, "fgm-1", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	req := func(cpu, mem string) func(*v1.Pod) {
		return func(p *v1.Pod) {
			p.Spec.Containers[0].Resources.Requests = v1.ResourceList{v1.ResourceCPU: resource.MustParse(cpu), v1.ResourceMemory: resource.MustParse(mem)}
		}
	}
	a := c.pod(t, ns, "a", "schedkit-fgm", nil, "", req("3900m", "100Mi"))
	c.settle(t, ns, 1)
	b := c.pod(t, ns, "b", "schedkit-fgm", nil, "", req("1", "100Mi"))
	small := c.pod(t, ns, "small", "schedkit-fgm", nil, "", req("50m", "100Mi"))
	c.pod(t, ns, "bad", "schedkit-fgm", nil, "", req("50m", "100Mi"), func(p *v1.Pod) {
		p.Annotations = map[string]string{"schedkit.io/logic": "wordcount", "schedkit.io/data-size": "lots"}
	})
	got := c.settle(t, ns, 2)
	if !slices.Equal(got, []string{"a", "small"}) {
		t.Errorf("bound %v, want [a small]", got)
	}
	if !fgmAllocates(t, node, []*v1.Pod{a}, nil, small, fgm.Ablations{}) {
		t.Errorf("fgm refuses small beside a; the plugin bound it")
	}
	if fgmAllocates(t, node, []*v1.Pod{a}, nil, small, fgm.Ablations{NoCompression: true}) {
		t.Errorf("fgm without compression allocates small beside a: the allowance is not why it is placed")
	}
	if fgmAllocates(t, node, []*v1.Pod{a, small}, nil, b, fgm.Ablations{}) {
		t.Errorf("fgm allocates b beside a and small; the plugin refused it")
	}
	c.wantEvent(t, ns, "b", "FailedScheduling", "0/1 nodes are available")
	c.wantEvent(t, ns, "bad", heldpods.EventReasonHeldBack, "schedkit.io/data-size", `"lots"`)
	c.wantPodScheduledFalse(t, ns, "bad", v1.PodReasonUnschedulable, "schedkit.io/data-size", `"lots"`)
	zero := int64(0)
	if err := c.client.CoreV1().Pods(ns).Delete(ctx, "a", metav1.DeleteOptions{GracePeriodSeconds: &zero}); err != nil {
		t.Fatal(err)
	}
	waitFor(t, "b bound after a went", 30*time.Second, func() bool { return slices.Contains(c.bound(t, ns), "b") })
	b = c.get(t, ns, "b")

	// Measured usage, through the metrics API.
	c.pod(t, ns, "hog", "default-scheduler", nil, "", req("100m", "100Mi"), func(p *v1.Pod) {
		p.Spec.NodeName = "fgm-1"
		p.Spec.Containers = append(p.Spec.Containers, v1.Container{Name: "side", Image: "task"})
	})
	for _, p := range []string{"b", "small", "hog"} {
		c.run(t, ns, p)
	}
	use := func(cpu, mem string) v1.ResourceList {
		return v1.ResourceList{v1.ResourceCPU: resource.MustParse(cpu), v1.ResourceMemory: resource.MustParse(mem)}
	}
	container := func(name string, u v1.ResourceList) metricsv1beta1.ContainerMetrics {
		return metricsv1beta1.ContainerMetrics{Name: name, Usage: u}
	}
	sample := &fgmSample{node: use("2", "6656Mi"), pods: map[string]v1.ResourceList{"b": use("800m", "300Mi"), "small": use("20m", "50Mi")}}
	m.setPod(ns, "b", container("task", sample.pods["b"]))
	m.setPod(ns, "small", container("task", sample.pods["small"]))
	m.setPod(ns, "hog", container("task", use("500m", "3Gi")), container("side", use("500m", "3Gi")))
	m.setNode("fgm-1", sample.node)
	c.waitFeedRead(t, m)
	mp := c.pod(t, ns, "m", "schedkit-fgm", nil, "", req("500m", "2Gi"))
	ours := []*v1.Pod{b, c.get(t, ns, "small")}
	if fgmAllocates(t, node, ours, sample, mp, fgm.Ablations{}) {
		t.Errorf("fgm allocates m with the sample; the scenario expects a refusal")
	}
	if !fgmAllocates(t, node, ours, nil, mp, fgm.Ablations{}) {
		t.Errorf("fgm refuses m without a sample: the measured usage is not why")
	}
	c.wantEvent(t, ns, "m", "FailedScheduling", "FineGrained: unpredictable pod requests memory 2Gi")
	if got := c.bound(t, ns); slices.Contains(got, "m") {
		t.Errorf("m bound although fgm refuses it with the measured usage")
	}

	// hog's usage drops: the next read retries m, and fgm allocates it.
	sample.node = use("1500m", "1536Mi")
	m.setPod(ns, "hog", container("task", use("300m", "500Mi")), container("side", use("300m", "500Mi")))
	m.setNode("fgm-1", sample.node)
	if !fgmAllocates(t, node, ours, sample, mp, fgm.Ablations{}) {
		t.Errorf("fgm refuses m with the lower sample")
	}
	waitFor(t, "m bound after the usage dropped", 40*time.Second, func() bool { return slices.Contains(c.bound(t, ns), "m") })
}
