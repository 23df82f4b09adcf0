package podjob_test

import (
	"fmt"
	"time"

	batchv1 "k8s.io/api/batch/v1"
	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/schedkit/schedkit"
	"github.com/schedkit/schedkit/internal/kube/podjob"
)

// A Job with a relative deadline, one finished map pod, one running and
// two pending, on a node with 2 map slots.
func Example() {
	t0 := time.Date(2026, 11, 23, 2, 0, 0, 0, time.UTC)
	job := &batchv1.Job{ObjectMeta: metav1.ObjectMeta{Name: "etl", Namespace: "batch",
		CreationTimestamp: metav1.NewTime(t0),
		Annotations:       map[string]string{podjob.AnnotationRelativeDeadline: "10m"}}}
	yes := true
	mk := func(name string, phase v1.PodPhase, node string, start, end time.Duration) *v1.Pod {
		p := &v1.Pod{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: "batch",
			CreationTimestamp: metav1.NewTime(t0),
			OwnerReferences:   []metav1.OwnerReference{{APIVersion: "batch/v1", Kind: "Job", Name: "etl", Controller: &yes}}},
			Spec: v1.PodSpec{NodeName: node}, Status: v1.PodStatus{Phase: phase}}
		p.UID = types.UID("uid-" + p.Name)
		if node != "" {
			st := metav1.NewTime(t0.Add(start))
			p.Status.StartTime = &st
		}
		if end > 0 {
			p.Status.ContainerStatuses = []v1.ContainerStatus{{State: v1.ContainerState{
				Terminated: &v1.ContainerStateTerminated{FinishedAt: metav1.NewTime(t0.Add(end))}}}}
		}
		return p
	}
	pods := []*v1.Pod{
		mk("etl-0", v1.PodSucceeded, "n1", 10*time.Second, 40*time.Second),
		mk("etl-1", v1.PodRunning, "n1", 40*time.Second, 0),
		mk("etl-2", v1.PodPending, "", 0, 0),
		mk("etl-3", v1.PodPending, "", 0, 0),
	}
	nodes := []*v1.Node{{ObjectMeta: metav1.ObjectMeta{Name: "n1"}, Status: v1.NodeStatus{Allocatable: v1.ResourceList{
		podjob.ResourceMapSlot: resource.MustParse("2")}}}}
	lookup := func(ns, name string) (*batchv1.Job, error) { return job, nil }

	snap := podjob.Build(t0.Add(time.Minute), pods, lookup, nodes)
	j := snap.Jobs[0]
	fmt.Println(j.ID(), "deadline", j.Deadline().Format(time.TimeOnly))
	fmt.Printf("%+v\n", j.Progress(schedkit.PhaseMap))
	fmt.Println("map slots", snap.Cluster.Capacity()[0])
	// Output:
	// Job/batch/etl deadline 02:10:00
	// {Total:4 Running:1 Finished:1 Ready:2 RunningStartSum:40s FinishedDurationSum:30s}
	// map slots 2
}
