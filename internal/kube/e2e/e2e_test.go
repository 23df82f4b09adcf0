// Package e2e_test runs schedkit-scheduler as a user deploys it, on a
// real control plane: etcd and kube-apiserver of the pinned Kubernetes
// release built from the Go module proxy and started on 127.0.0.1, the
// shipped manifests (deploy/) applied verbatim through a Go client, the
// real binary started with each shipped profile as the shipped
// ServiceAccount, nodes created by the test with slots advertised by
// package slots' controller running as its own ServiceAccount. Each
// plugin's scenario is checked against its schedkit package's decisions.
//
// It builds three large binaries, so it runs only with SCHEDKIT_E2E=1:
//
//	cd internal/kube && SCHEDKIT_E2E=1 go test ./e2e -v
package e2e_test

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"slices"
	"strings"
	"testing"
	"time"

	batchv1 "k8s.io/api/batch/v1"
	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/util/retry"

	"github.com/schedkit/schedkit/internal/kube/podjob"
	"github.com/schedkit/schedkit/internal/kube/slots"
)

var binaries *bins

func TestMain(m *testing.M) {
	if os.Getenv("SCHEDKIT_E2E") == "1" {
		dir, err := os.MkdirTemp("", "schedkit-e2e-bin")
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		b, err := build(dir)
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.RemoveAll(dir)
			os.Exit(1)
		}
		binaries = &b
		code := m.Run()
		os.RemoveAll(dir)
		os.Exit(code)
	}
	os.Exit(m.Run())
}

// TestE2E: one control plane; the three profiles' schedulers run side
// by side from the start; the scenarios run one after the other, each
// on nodes of its own (the others' deleted).
func TestE2E(t *testing.T) {
	if binaries == nil {
		t.Skip("SCHEDKIT_E2E=1 runs the real control plane (builds etcd, kube-apiserver, schedkit-scheduler)")
	}
	for name, d := range buildTimes {
		t.Logf("build %s: %v", name, d.Round(time.Millisecond))
	}
	t0 := time.Now()
	c := startCluster(t, *binaries)
	t.Logf("control plane ready in %v", time.Since(t0).Round(time.Millisecond))
	c.apply(t)
	// Published by kube-apiserver from its requestheader flags; the
	// schedulers' delegated authentication reads it.
	if cm, err := c.client.CoreV1().ConfigMaps("kube-system").Get(context.Background(), "extension-apiserver-authentication", metav1.GetOptions{}); err != nil {
		t.Errorf("ConfigMap kube-system/extension-apiserver-authentication: %v", err)
	} else {
		for _, k := range []string{"client-ca-file", "requestheader-client-ca-file"} {
			if cm.Data[k] == "" {
				t.Errorf("ConfigMap kube-system/extension-apiserver-authentication has no %s", k)
			}
		}
	}
	t2 := time.Now()
	metrics := startMetricsStub(t, c.frontProxy)
	c.registerMetrics(t, metrics)
	t.Logf("metrics.k8s.io (the stub) available in %v", time.Since(t2).Round(time.Millisecond))

	out, err := exec.Command(binaries.scheduler, "--version").CombinedOutput()
	if v := strings.TrimSpace(string(out)); err != nil || !strings.HasPrefix(v, "Kubernetes v1.") {
		t.Errorf("schedkit-scheduler --version: %q, %v; want a release version", v, err)
	}

	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	_, slotsCfg := c.kubeconfigFor(t, "schedkit", "schedkit-slots")
	go slots.NewController(kubernetes.NewForConfigOrDie(slotsCfg)).Run(ctx)

	t1 := time.Now()
	procs := map[string]*process{}
	for _, name := range []string{"schedkit", "schedkit-fgm", "schedkit-dbs"} {
		procs[name] = c.scheduler(t, *binaries, name)
	}
	defer checkLogs(t, procs)
	waitFor(t, "three leases", 60*time.Second, func() bool {
		l, err := c.client.CoordinationV1().Leases("schedkit").List(ctx, metav1.ListOptions{})
		return err == nil && len(l.Items) == 3
	})
	t.Logf("schedulers leading in %v", time.Since(t1).Round(time.Millisecond))

	t.Run("LeastSpareTime", func(t *testing.T) { leastSpareTime(t, c) })
	t.Run("DeadlineBudget", func(t *testing.T) { deadlineBudget(t, c) })
	t.Run("FineGrained", func(t *testing.T) { fineGrained(t, c, metrics) })
	t.Run("Metrics", func(t *testing.T) { pluginMetrics(t, c, procs) })
	// The standby lives as long as the test (its process ends with the
	// test that started it).
	standby := c.replica(t, *binaries, "schedkit", "schedkit-standby")
	t.Run("Failover", func(t *testing.T) { failover(t, c, procs, standby) })
	t.Run("Restart", func(st *testing.T) { dbsRestart(st, t, c, procs) })
	for name, p := range procs {
		if p.exited() {
			t.Errorf("%s exited", name)
		}
	}
}

// waitFor polls cond until it holds or timeout passes.
func waitFor(t *testing.T, what string, timeout time.Duration, cond func() bool) {
	t.Helper()
	err := wait.PollUntilContextTimeout(context.Background(), 100*time.Millisecond, timeout, true, func(context.Context) (bool, error) {
		return cond(), nil
	})
	if err != nil {
		t.Fatalf("waiting for %s: %v", what, err)
	}
}

// addNode creates a node as a kubelet would register it, labelled with
// its slots (the controller advertises them), Ready, without the
// not-ready taint the API server adds (no node controller removes it),
// and waits until its slots are advertised.
func (c *cluster) addNode(t *testing.T, name string, maps, reduces int, cpu, mem string) {
	t.Helper()
	c.addNodeTainted(t, name, maps, reduces, cpu, mem, nil)
}

// holdTaint keeps pods off a node until the test removes it (untaint).
var holdTaint = v1.Taint{Key: "schedkit.io/e2e-hold", Effect: v1.TaintEffectNoSchedule}

// addNodeTainted is addNode with the node's taints set to taints (nil:
// none).
func (c *cluster) addNodeTainted(t *testing.T, name string, maps, reduces int, cpu, mem string, taints []v1.Taint) {
	t.Helper()
	ctx := context.Background()
	n := &v1.Node{ObjectMeta: metav1.ObjectMeta{Name: name, Labels: map[string]string{
		"kubernetes.io/hostname": name,
		slots.LabelMapSlots:      fmt.Sprint(maps), slots.LabelReduceSlots: fmt.Sprint(reduces)}}}
	if _, err := c.client.CoreV1().Nodes().Create(ctx, n, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	// As a kubelet: its own resources and Ready, keeping what else the
	// status holds; the slots controller patches the same object.
	rl := v1.ResourceList{v1.ResourceCPU: resource.MustParse(cpu), v1.ResourceMemory: resource.MustParse(mem), v1.ResourcePods: resource.MustParse("110")}
	err := retry.RetryOnConflict(retry.DefaultRetry, func() error {
		n, err := c.client.CoreV1().Nodes().Get(ctx, name, metav1.GetOptions{})
		if err != nil {
			return err
		}
		if n.Status.Capacity == nil {
			n.Status.Capacity, n.Status.Allocatable = v1.ResourceList{}, v1.ResourceList{}
		}
		for k, q := range rl {
			n.Status.Capacity[k], n.Status.Allocatable[k] = q, q
		}
		n.Status.Conditions = []v1.NodeCondition{{Type: v1.NodeReady, Status: v1.ConditionTrue, Reason: "KubeletReady",
			LastHeartbeatTime: metav1.Now(), LastTransitionTime: metav1.Now()}}
		_, err = c.client.CoreV1().Nodes().UpdateStatus(ctx, n, metav1.UpdateOptions{})
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	c.setTaints(t, name, taints)
	waitFor(t, "node "+name+"'s slots", 30*time.Second, func() bool {
		n, err := c.client.CoreV1().Nodes().Get(ctx, name, metav1.GetOptions{})
		if err != nil {
			return false
		}
		m := n.Status.Allocatable[podjob.ResourceMapSlot]
		r := n.Status.Allocatable[podjob.ResourceReduceSlot]
		_, cpuKept := n.Status.Allocatable[v1.ResourceCPU]
		return m.Value() == int64(maps) && r.Value() == int64(reduces) && cpuKept
	})
}

// removeNodes deletes every node.
func (c *cluster) removeNodes(t *testing.T) {
	t.Helper()
	if err := c.client.CoreV1().Nodes().DeleteCollection(context.Background(), metav1.DeleteOptions{}, metav1.ListOptions{}); err != nil {
		t.Fatal(err)
	}
}

// job creates a batch/v1 Job with annotations (no job controller runs:
// the test creates its pods).
func (c *cluster) job(t *testing.T, ns, name string, ann map[string]string) *batchv1.Job {
	t.Helper()
	suspend := true
	j := &batchv1.Job{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name, Annotations: ann},
		Spec: batchv1.JobSpec{Suspend: &suspend, Template: v1.PodTemplateSpec{Spec: v1.PodSpec{RestartPolicy: v1.RestartPolicyNever,
			Containers: []v1.Container{{Name: "task", Image: "task"}}}}}}
	j, err := c.client.BatchV1().Jobs(ns).Create(context.Background(), j, metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	return j
}

// pod creates a pod of scheduler (owned by Job j if not nil) requesting
// one slot of its phase (none for FineGrained pods: cpu instead).
func (c *cluster) pod(t *testing.T, ns, name, scheduler string, j *batchv1.Job, phase string, mutate ...func(*v1.Pod)) *v1.Pod {
	t.Helper()
	p := &v1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name},
		Spec: v1.PodSpec{SchedulerName: scheduler, RestartPolicy: v1.RestartPolicyNever, Containers: []v1.Container{{Name: "task", Image: "task"}}}}
	if j != nil {
		yes := true
		p.OwnerReferences = []metav1.OwnerReference{{APIVersion: "batch/v1", Kind: "Job", Name: j.Name, UID: j.UID, Controller: &yes}}
	}
	if phase != "" {
		p.Labels = map[string]string{podjob.LabelPhase: phase}
		res := podjob.ResourceMapSlot
		if phase == "reduce" {
			res = podjob.ResourceReduceSlot
		}
		p.Spec.Containers[0].Resources.Requests = v1.ResourceList{res: resource.MustParse("1")}
		p.Spec.Containers[0].Resources.Limits = v1.ResourceList{res: resource.MustParse("1")}
	}
	for _, m := range mutate {
		m(p)
	}
	p, err := c.client.CoreV1().Pods(ns).Create(context.Background(), p, metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// bound returns the names of the namespace's pods bound to a node.
func (c *cluster) bound(t *testing.T, ns string) []string {
	t.Helper()
	l, err := c.client.CoreV1().Pods(ns).List(context.Background(), metav1.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, p := range l.Items {
		if p.Spec.NodeName != "" {
			out = append(out, p.Name)
		}
	}
	slices.Sort(out)
	return out
}

// settle waits until n pods of ns are bound, then a little longer to see
// that no more are.
func (c *cluster) settle(t *testing.T, ns string, n int) []string {
	t.Helper()
	waitFor(t, fmt.Sprintf("%d pods bound in %s", n, ns), 60*time.Second, func() bool { return len(c.bound(t, ns)) >= n })
	time.Sleep(3 * time.Second)
	return c.bound(t, ns)
}

// events returns the notes of the events of reason on object name in ns.
func (c *cluster) events(t *testing.T, ns, name, reason string) []string {
	t.Helper()
	l, err := c.client.EventsV1().Events(ns).List(context.Background(), metav1.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, e := range l.Items {
		if e.Regarding.Name == name && e.Reason == reason {
			out = append(out, e.Note)
		}
	}
	return out
}

// wantEvent waits for an event of reason on name whose note contains
// every one of words.
func (c *cluster) wantEvent(t *testing.T, ns, name, reason string, words ...string) {
	t.Helper()
	var notes []string
	err := wait.PollUntilContextTimeout(context.Background(), 200*time.Millisecond, 30*time.Second, true, func(context.Context) (bool, error) {
		notes = c.events(t, ns, name, reason)
		for _, n := range notes {
			ok := true
			for _, w := range words {
				ok = ok && strings.Contains(n, w)
			}
			if ok {
				return true, nil
			}
		}
		return false, nil
	})
	if err != nil {
		t.Errorf("no %s event on %s/%s containing %q; have %q", reason, ns, name, words, notes)
	}
}

// finish marks a pod Succeeded after running d (as its kubelet would).
func (c *cluster) finish(t *testing.T, ns, name string, d time.Duration) {
	t.Helper()
	ctx := context.Background()
	p, err := c.client.CoreV1().Pods(ns).Get(ctx, name, metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	end := time.Now().Truncate(time.Second)
	st := metav1.NewTime(end.Add(-d))
	p.Status.Phase = v1.PodSucceeded
	p.Status.StartTime = &st
	p.Status.ContainerStatuses = []v1.ContainerStatus{{Name: "task", Image: "task", State: v1.ContainerState{
		Terminated: &v1.ContainerStateTerminated{ExitCode: 0, StartedAt: st, FinishedAt: metav1.NewTime(end), Reason: "Completed"}}}}
	if _, err := c.client.CoreV1().Pods(ns).UpdateStatus(ctx, p, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
}

// get reads a pod back.
func (c *cluster) get(t *testing.T, ns, name string) *v1.Pod {
	t.Helper()
	p, err := c.client.CoreV1().Pods(ns).Get(context.Background(), name, metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// run marks a bound pod Running, its containers started (as its kubelet
// would).
func (c *cluster) run(t *testing.T, ns, name string) {
	t.Helper()
	p := c.get(t, ns, name)
	st := metav1.Now()
	p.Status.Phase = v1.PodRunning
	p.Status.StartTime = &st
	p.Status.ContainerStatuses = nil
	started := true
	for _, ct := range p.Spec.Containers {
		p.Status.ContainerStatuses = append(p.Status.ContainerStatuses, v1.ContainerStatus{Name: ct.Name, Image: ct.Image, Ready: true,
			Started: &started, State: v1.ContainerState{Running: &v1.ContainerStateRunning{StartedAt: st}}})
	}
	if _, err := c.client.CoreV1().Pods(ns).UpdateStatus(context.Background(), p, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
}

// wantPodScheduledFalse waits until pod name carries the condition
// PodScheduled=False with reason, its message containing every one of
// words.
func (c *cluster) wantPodScheduledFalse(t *testing.T, ns, name, reason string, words ...string) {
	t.Helper()
	var last v1.PodCondition
	err := wait.PollUntilContextTimeout(context.Background(), 200*time.Millisecond, 30*time.Second, true, func(ctx context.Context) (bool, error) {
		p, err := c.client.CoreV1().Pods(ns).Get(ctx, name, metav1.GetOptions{})
		if err != nil {
			return false, nil
		}
		for _, cond := range p.Status.Conditions {
			if cond.Type != v1.PodScheduled {
				continue
			}
			last = cond
			if cond.Status != v1.ConditionFalse || cond.Reason != reason {
				return false, nil
			}
			for _, w := range words {
				if !strings.Contains(cond.Message, w) {
					return false, nil
				}
			}
			return true, nil
		}
		return false, nil
	})
	if err != nil {
		t.Errorf("%s/%s: no PodScheduled=False %s condition containing %q; have %s=%s %s %q", ns, name, reason, words,
			last.Type, last.Status, last.Reason, last.Message)
	}
}

// wantPodScheduled waits until pod name carries PodScheduled=True.
func (c *cluster) wantPodScheduled(t *testing.T, ns, name string) {
	t.Helper()
	var last v1.PodCondition
	err := wait.PollUntilContextTimeout(context.Background(), 200*time.Millisecond, 30*time.Second, true, func(ctx context.Context) (bool, error) {
		p, err := c.client.CoreV1().Pods(ns).Get(ctx, name, metav1.GetOptions{})
		if err != nil {
			return false, nil
		}
		for _, cond := range p.Status.Conditions {
			if cond.Type == v1.PodScheduled {
				last = cond
				return cond.Status == v1.ConditionTrue, nil
			}
		}
		return false, nil
	})
	if err != nil {
		t.Errorf("%s/%s: PodScheduled not True; have %s %s %q", ns, name, last.Status, last.Reason, last.Message)
	}
}

// untaint removes every taint of node name.
func (c *cluster) untaint(t *testing.T, name string) {
	t.Helper()
	c.setTaints(t, name, nil)
}

// setTaints sets node name's taints (nil: none).
func (c *cluster) setTaints(t *testing.T, name string, taints []v1.Taint) {
	t.Helper()
	ctx := context.Background()
	err := retry.RetryOnConflict(retry.DefaultRetry, func() error {
		n, err := c.client.CoreV1().Nodes().Get(ctx, name, metav1.GetOptions{})
		if err != nil {
			return err
		}
		n.Spec.Taints = taints
		_, err = c.client.CoreV1().Nodes().Update(ctx, n, metav1.UpdateOptions{})
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
}

// waitTriedAndBackedOff waits until kube-scheduler has tried each of the
// named pods and found it unschedulable (its PodScheduled=False,
// Unschedulable condition, its message containing msg), then for
// backoff to pass (the pods' backoff: 1 s after one failed attempt,
// doubling with each): a cluster event then moves them all to the
// active queue together, where the queue sort alone orders them. (A pod
// still backing off would wait in the backoff queue, which kube-scheduler
// pops in order of backoff expiry once the active queue is empty.)
func (c *cluster) waitTriedAndBackedOff(t *testing.T, ns, msg string, backoff time.Duration, names ...string) {
	t.Helper()
	waitFor(t, fmt.Sprintf("%d pods tried in %s", len(names), ns), 60*time.Second, func() bool {
		l, err := c.client.CoreV1().Pods(ns).List(context.Background(), metav1.ListOptions{})
		if err != nil {
			return false
		}
		tried := 0
		for _, p := range l.Items {
			if !slices.Contains(names, p.Name) {
				continue
			}
			for _, cond := range p.Status.Conditions {
				if cond.Type == v1.PodScheduled && cond.Status == v1.ConditionFalse && cond.Reason == v1.PodReasonUnschedulable &&
					strings.Contains(cond.Message, msg) {
					tried++
				}
			}
		}
		return tried == len(names)
	})
	time.Sleep(backoff)
}
