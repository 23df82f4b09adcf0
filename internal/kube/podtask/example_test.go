package podtask_test

import (
	"fmt"

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/schedkit/schedkit/internal/kube/podtask"
)

func ExampleFromPod() {
	p := &v1.Pod{
		ObjectMeta: metav1.ObjectMeta{Name: "wc-7", Namespace: "batch", Annotations: map[string]string{
			podtask.AnnotationLogic: "wordcount-map", podtask.AnnotationDataSize: "128Mi"}},
		Spec: v1.PodSpec{Containers: []v1.Container{{Name: "c", Resources: v1.ResourceRequirements{
			Requests: v1.ResourceList{v1.ResourceCPU: resource.MustParse("500m"), v1.ResourceMemory: resource.MustParse("1Gi")}}}}},
	}
	t, err := podtask.FromPod(p)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(t.ID(), t.Job(), t.Similarity(), t.Requested())
	p.Annotations[podtask.AnnotationDataSize] = "a lot"
	_, err = podtask.FromPod(p)
	fmt.Println(err)
	// Output:
	// batch/wc-7 Pod/batch/wc-7 {wordcount-map 134217728} [0.5 1.073741824e+09]
	// podtask: pod batch/wc-7: schedkit.io/data-size: "a lot" is not a quantity: quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'
}
