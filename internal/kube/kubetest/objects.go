package kubetest

import (
	"fmt"
	"time"

	batchv1 "k8s.io/api/batch/v1"
	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/schedkit/schedkit/internal/kube/podjob"
)

// Now is the instant the module's tests run at.
var Now = time.Date(2026, 11, 23, 2, 0, 0, 0, time.UTC)

// DefaultScheduler is the schedulerName of the pods Pod makes and the
// profile name of a Handle (LeastSpareTime's sample profile's).
const DefaultScheduler = "schedkit"

// Node returns a Ready node advertising maps map slots and reduces
// reduce slots, 64 cores, 256Gi of memory and 110 pods (allocatable and
// capacity alike), with UID "node-<name>".
func Node(name string, maps, reduces int64, opts ...func(*v1.Node)) *v1.Node {
	n := &v1.Node{
		ObjectMeta: metav1.ObjectMeta{Name: name, UID: types.UID("node-" + name), CreationTimestamp: metav1.NewTime(Now.Add(-24 * time.Hour))},
		Status: v1.NodeStatus{
			Allocatable: v1.ResourceList{
				v1.ResourceCPU:            resource.MustParse("64"),
				v1.ResourceMemory:         resource.MustParse("256Gi"),
				v1.ResourcePods:           resource.MustParse("110"),
				podjob.ResourceMapSlot:    *resource.NewQuantity(maps, resource.DecimalSI),
				podjob.ResourceReduceSlot: *resource.NewQuantity(reduces, resource.DecimalSI),
			},
			Conditions: []v1.NodeCondition{{Type: v1.NodeReady, Status: v1.ConditionTrue}},
		},
	}
	for _, o := range opts {
		o(n)
	}
	n.Status.Capacity = n.Status.Allocatable.DeepCopy()
	return n
}

// Cordoned marks a node unschedulable.
func Cordoned(n *v1.Node) { n.Spec.Unschedulable = true }

// Resources sets a node's allocatable CPU and memory (quantities).
func Resources(cpu, mem string) func(*v1.Node) {
	return func(n *v1.Node) {
		n.Status.Allocatable[v1.ResourceCPU] = resource.MustParse(cpu)
		n.Status.Allocatable[v1.ResourceMemory] = resource.MustParse(mem)
	}
}

// Taint adds a NoSchedule taint of key k to a node.
func Taint(k string) func(*v1.Node) {
	return func(n *v1.Node) {
		n.Spec.Taints = append(n.Spec.Taints, v1.Taint{Key: k, Effect: v1.TaintEffectNoSchedule})
	}
}

// NodeLabel sets a label on a node.
func NodeLabel(k, v string) func(*v1.Node) {
	return func(n *v1.Node) {
		if n.Labels == nil {
			n.Labels = map[string]string{}
		}
		n.Labels[k] = v
	}
}

// Job returns the batch/v1 Job ns/name created at created, with UID
// "job-<ns>-<name>" and the annotations kv (key, value, key, value, …).
func Job(ns, name string, created time.Time, kv ...string) *batchv1.Job {
	return &batchv1.Job{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: ns, UID: types.UID("job-" + ns + "-" + name),
		CreationTimestamp: metav1.NewTime(created), Annotations: pairs(kv)}}
}

func pairs(kv []string) map[string]string {
	if len(kv)%2 != 0 {
		panic(fmt.Sprintf("kubetest: odd key-value list %q", kv))
	}
	m := map[string]string{}
	for i := 0; i+1 < len(kv); i += 2 {
		m[kv[i]] = kv[i+1]
	}
	return m
}

// Pod returns the pending pod ns/name created at created, with UID
// "pod-<name>" and schedulerName DefaultScheduler, then applies opts in
// order.
func Pod(ns, name string, created time.Time, opts ...func(*v1.Pod)) *v1.Pod {
	p := &v1.Pod{
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: ns, UID: types.UID("pod-" + name), CreationTimestamp: metav1.NewTime(created)},
		Spec:       v1.PodSpec{SchedulerName: DefaultScheduler, Containers: []v1.Container{{Name: "task", Image: "task"}}},
		Status:     v1.PodStatus{Phase: v1.PodPending},
	}
	for _, o := range opts {
		o(p)
	}
	return p
}

// Of makes j the pod's controller (a reference with j's UID, as the Job
// controller writes it).
func Of(j *batchv1.Job) func(*v1.Pod) {
	return func(p *v1.Pod) {
		yes := true
		p.OwnerReferences = []metav1.OwnerReference{{APIVersion: "batch/v1", Kind: "Job", Name: j.Name, UID: j.UID, Controller: &yes}}
	}
}

// Group puts the pod in pod group g, carrying the annotations kv.
func Group(g string, kv ...string) func(*v1.Pod) {
	return func(p *v1.Pod) {
		Label(podjob.LabelPodGroup, g)(p)
		p.Annotations = pairs(kv)
	}
}

// Label sets a label on a pod.
func Label(k, v string) func(*v1.Pod) {
	return func(p *v1.Pod) {
		if p.Labels == nil {
			p.Labels = map[string]string{}
		}
		p.Labels[k] = v
	}
}

// Annotate sets annotations kv on a pod.
func Annotate(kv ...string) func(*v1.Pod) {
	return func(p *v1.Pod) {
		if p.Annotations == nil {
			p.Annotations = map[string]string{}
		}
		for k, v := range pairs(kv) {
			p.Annotations[k] = v
		}
	}
}

// Reduce labels the pod a reduce (a slot request it has becomes a
// reduce slot's).
func Reduce(p *v1.Pod) {
	Label(podjob.LabelPhase, "reduce")(p)
	if r := p.Spec.Containers[0].Resources.Requests; r != nil {
		if _, ok := r[podjob.ResourceMapSlot]; ok {
			Slot(p)
		}
	}
}

// Slot makes the pod request (and limit) one slot of its phase's kind
// and 100m CPU, as a task of a slot cluster does.
func Slot(p *v1.Pod) {
	slot := podjob.ResourceMapSlot
	if p.Labels[podjob.LabelPhase] == "reduce" {
		slot = podjob.ResourceReduceSlot
	}
	p.Spec.Containers[0].Resources = v1.ResourceRequirements{
		Requests: v1.ResourceList{v1.ResourceCPU: resource.MustParse("100m"), slot: resource.MustParse("1")},
		Limits:   v1.ResourceList{slot: resource.MustParse("1")},
	}
}

// Requests sets the pod's one container's requests of CPU and memory
// (quantities).
func Requests(cpu, mem string) func(*v1.Pod) {
	return func(p *v1.Pod) {
		p.Spec.Containers[0].Resources.Requests = v1.ResourceList{v1.ResourceCPU: resource.MustParse(cpu), v1.ResourceMemory: resource.MustParse(mem)}
	}
}

// Scheduler sets the pod's schedulerName.
func Scheduler(name string) func(*v1.Pod) {
	return func(p *v1.Pod) { p.Spec.SchedulerName = name }
}

// Gated gives the pod a scheduling gate.
func Gated(p *v1.Pod) {
	p.Spec.SchedulingGates = []v1.PodSchedulingGate{{Name: "example.com/slow-start"}}
}

// Priority sets the pod's priority.
func Priority(prio int32) func(*v1.Pod) {
	return func(p *v1.Pod) { p.Spec.Priority = &prio }
}

// Bound binds the pod to node, not started yet (no start time).
func Bound(node string) func(*v1.Pod) {
	return func(p *v1.Pod) {
		p.Spec.NodeName = node
		p.Status.Phase = v1.PodPending
	}
}

// Running binds the pod to node, phase Running since start.
func Running(node string, start time.Time) func(*v1.Pod) {
	return func(p *v1.Pod) {
		p.Spec.NodeName = node
		p.Status.Phase = v1.PodRunning
		st := metav1.NewTime(start)
		p.Status.StartTime = &st
	}
}

// Succeeded makes the pod a finished task: it ran on node from start for
// d (its container's finish).
func Succeeded(node string, start time.Time, d time.Duration) func(*v1.Pod) {
	return func(p *v1.Pod) {
		Running(node, start)(p)
		p.Status.Phase = v1.PodSucceeded
		p.Status.ContainerStatuses = []v1.ContainerStatus{{Name: "task", State: v1.ContainerState{
			Terminated: &v1.ContainerStateTerminated{FinishedAt: metav1.NewTime(start.Add(d))}}}}
	}
}

// Failed makes the pod a failed one.
func Failed(p *v1.Pod) { p.Status.Phase = v1.PodFailed }
