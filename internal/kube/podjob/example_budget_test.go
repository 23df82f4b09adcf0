package podjob_test

import (
	"fmt"
	"time"

	batchv1 "k8s.io/api/batch/v1"
	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/schedkit/schedkit/internal/kube/podjob"
)

// The DeadlineBudget annotations of a Job, read with Options.Budget: a
// budget-only job (φ 0) needs no deadline. Runs are what its cost is
// charged for: one pod finished after 30 s, one running since 40 s.
func ExampleBuildWith() {
	t0 := time.Date(2026, 11, 23, 2, 0, 0, 0, time.UTC)
	job := &batchv1.Job{ObjectMeta: metav1.ObjectMeta{Name: "thrifty", Namespace: "batch",
		CreationTimestamp: metav1.NewTime(t0),
		Annotations: map[string]string{podjob.AnnotationPhi: "0", podjob.AnnotationBudget: "25",
			podjob.AnnotationDataSizes: "input=3350Mi,reduce=120Mi"}}}
	yes := true
	owner := []metav1.OwnerReference{{APIVersion: "batch/v1", Kind: "Job", Name: "thrifty", Controller: &yes}}
	start := metav1.NewTime(t0)
	later := metav1.NewTime(t0.Add(40 * time.Second))
	pods := []*v1.Pod{
		{ObjectMeta: metav1.ObjectMeta{Name: "t-0", Namespace: "batch", UID: "t-0", CreationTimestamp: start, OwnerReferences: owner},
			Spec: v1.PodSpec{NodeName: "n1"}, Status: v1.PodStatus{Phase: v1.PodSucceeded, StartTime: &start,
				ContainerStatuses: []v1.ContainerStatus{{State: v1.ContainerState{Terminated: &v1.ContainerStateTerminated{
					FinishedAt: metav1.NewTime(t0.Add(30 * time.Second))}}}}}},
		{ObjectMeta: metav1.ObjectMeta{Name: "t-1", Namespace: "batch", UID: "t-1", CreationTimestamp: start, OwnerReferences: owner},
			Spec: v1.PodSpec{NodeName: "n1"}, Status: v1.PodStatus{Phase: v1.PodRunning, StartTime: &later}},
	}
	lookup := func(ns, name string) (*batchv1.Job, error) { return job, nil }

	snap := podjob.BuildWith(t0.Add(time.Minute), pods, lookup, nil, podjob.Options{Budget: true})
	j := snap.Jobs[0]
	in, red := j.DataSizes()
	fmt.Println(j.ID(), "phi", j.Phi(), "budget", j.Budget(), "deadline set:", !j.Deadline().IsZero())
	fmt.Println("input", in, "reduce input", red)
	for _, r := range j.Runs() {
		fmt.Println("run from", r.Start.Sub(t0), "ended", !r.End.IsZero())
	}
	// Output:
	// Job/batch/thrifty phi 0 budget 25 deadline set: false
	// input 3512729600 reduce input 125829120
	// run from 0s ended true
	// run from 40s ended false
}
