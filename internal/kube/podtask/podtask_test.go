package podtask_test

import (
	"errors"
	"strings"
	"testing"

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/schedkit/schedkit"
	"github.com/schedkit/schedkit/internal/kube/kubetest"
	"github.com/schedkit/schedkit/internal/kube/podtask"
)

func pod(ann, labels map[string]string, containers ...v1.ResourceList) *v1.Pod {
	p := kubetest.Pod("ns", "p", kubetest.Now)
	p.Annotations, p.Labels, p.Spec.Containers = ann, labels, nil
	for _, rl := range containers {
		p.Spec.Containers = append(p.Spec.Containers, v1.Container{Name: "c", Resources: v1.ResourceRequirements{Requests: rl}})
	}
	return p
}

func TestFromPod(t *testing.T) {
	yes := true
	p := pod(map[string]string{podtask.AnnotationLogic: "etl", podtask.AnnotationDataSize: "64Gi"}, nil,
		v1.ResourceList{v1.ResourceCPU: resource.MustParse("1500m"), v1.ResourceMemory: resource.MustParse("2Gi")},
		v1.ResourceList{v1.ResourceCPU: resource.MustParse("500m"), "example.com/gpu": resource.MustParse("1")})
	p.Spec.InitContainers = []v1.Container{{Name: "init", Resources: v1.ResourceRequirements{Requests: v1.ResourceList{v1.ResourceMemory: resource.MustParse("3Gi")}}}}
	p.OwnerReferences = []metav1.OwnerReference{{Kind: "Job", Name: "j", Controller: &yes}}
	task, err := podtask.FromPod(p)
	if err != nil {
		t.Fatal(err)
	}
	if task.ID() != "ns/p" || task.Job() != "Job/ns/j" || task.Phase() != 0 || !task.Deadline().IsZero() || task.DataLocations() != nil {
		t.Errorf("task %q of %q", task.ID(), task.Job())
	}
	if want := (schedkit.SimilarityKey{Logic: "etl", DataSize: 64 << 30}); task.Similarity() != want {
		t.Errorf("key %+v, want %+v", task.Similarity(), want)
	}
	// 2 cores; memory max(2Gi containers, 3Gi init), as kube-scheduler counts it.
	if req := task.Requested(); req[podtask.CPU] != 2 || req[podtask.Memory] != 3<<30 {
		t.Errorf("requested %v", req)
	}
	// Without the annotation: the pod template hash, namespaced; no owner.
	task, err = podtask.FromPod(pod(nil, map[string]string{podtask.LabelPodTemplateHash: "abc"}))
	if err != nil || task.Similarity() != (schedkit.SimilarityKey{Logic: "ns/pod-template-hash=abc"}) || task.Job() != "Pod/ns/p" {
		t.Errorf("template hash: %+v %v", task, err)
	}
	// Nothing: the zero key, unpredictable, not an error.
	task, err = podtask.FromPod(pod(nil, nil))
	if err != nil || !task.Similarity().IsZero() || !task.Requested().IsZero() {
		t.Errorf("plain pod: %+v %v", task, err)
	}
}

func TestBadInput(t *testing.T) {
	for _, c := range []struct {
		name string
		pod  *v1.Pod
		key  string
	}{
		{"empty logic", pod(map[string]string{podtask.AnnotationLogic: ""}, nil), podtask.AnnotationLogic},
		{"size not a quantity", pod(map[string]string{podtask.AnnotationLogic: "x", podtask.AnnotationDataSize: "lots"}, nil), podtask.AnnotationDataSize},
		{"negative size", pod(map[string]string{podtask.AnnotationLogic: "x", podtask.AnnotationDataSize: "-5"}, nil), podtask.AnnotationDataSize},
		{"fractional size", pod(map[string]string{podtask.AnnotationLogic: "x", podtask.AnnotationDataSize: "1500m"}, nil), podtask.AnnotationDataSize},
		{"size alone", pod(map[string]string{podtask.AnnotationDataSize: "1Gi"}, nil), podtask.AnnotationDataSize},
		{"negative request", pod(nil, nil, v1.ResourceList{v1.ResourceCPU: resource.MustParse("-1")}), ""},
		{"nil pod", nil, ""},
	} {
		_, err := podtask.FromPod(c.pod)
		var e *podtask.Error
		if !errors.Is(err, podtask.ErrInvalid) || !errors.As(err, &e) || e.Key != c.key || !strings.HasPrefix(err.Error(), "podtask: ") {
			t.Errorf("%s: %v", c.name, err)
		}
		if c.pod != nil && !strings.Contains(err.Error(), "pod ns/p") {
			t.Errorf("%s: %v does not name the pod", c.name, err)
		}
	}
	if _, err := podtask.Capacity(nil); !errors.Is(err, podtask.ErrInvalid) {
		t.Errorf("nil node: %v", err)
	}
	n := kubetest.Node("n", 0, 0, kubetest.Resources("8", "16Gi"))
	if c, err := podtask.Capacity(n); err != nil || c[0] != 8 || c[1] != 16<<30 {
		t.Errorf("capacity %v %v", c, err)
	}
}

// FuzzSimilarity: any annotation values give a key or an *Error, never
// a panic, and a key with a data size always has a logic.
func FuzzSimilarity(f *testing.F) {
	f.Add("etl", "64Gi", "abc", true, true)
	f.Add("", "1", "", true, true)
	f.Add("x", "1e400", "", false, true)
	f.Fuzz(func(t *testing.T, logic, size, hash string, hasLogic, hasSize bool) {
		ann := map[string]string{}
		if hasLogic {
			ann[podtask.AnnotationLogic] = logic
		}
		if hasSize {
			ann[podtask.AnnotationDataSize] = size
		}
		key, err := podtask.Similarity(pod(ann, map[string]string{podtask.LabelPodTemplateHash: hash}))
		if err != nil {
			if !errors.Is(err, podtask.ErrInvalid) {
				t.Fatalf("error %v does not wrap ErrInvalid", err)
			}
			return
		}
		if key.DataSize < 0 || (key.DataSize != 0 && key.Logic == "") {
			t.Fatalf("key %+v", key)
		}
	})
}
