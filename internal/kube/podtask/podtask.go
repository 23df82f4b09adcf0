package podtask

import (
	"errors"
	"fmt"
	"math"
	"time"

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	resourcehelper "k8s.io/component-helpers/resource"
	fwk "k8s.io/kube-scheduler/framework"

	"github.com/schedkit/schedkit"
	skres "github.com/schedkit/schedkit/resource"
)

// Keys of the annotations and labels podtask reads.
const (
	// AnnotationLogic (on a pod) names the code the pod runs, the Logic of
	// its similarity key: pods with the same logic and data size behave
	// alike (paper 004, definition 3). Operators choose it ("wordcount-
	// map", an image digest); equality is all that matters.
	AnnotationLogic = "schedkit.io/logic"
	// AnnotationDataSize (on a pod) is the pod's input size, a
	// Kubernetes quantity ("64Gi", "1000000"): the DataSize of its
	// similarity key.
	AnnotationDataSize = "schedkit.io/data-size"
	// LabelPodTemplateHash is the label Deployments (ReplicaSets) put on
	// their pods; without AnnotationLogic, the key's logic is
	// "<namespace>/pod-template-hash=<value>".
	LabelPodTemplateHash = "pod-template-hash"
)

// Kinds of the resource space, in order: CPU in cores (compressible),
// memory in bytes (incompressible).
const (
	CPU    = 0
	Memory = 1
)

// ErrInvalid is wrapped by every *Error.
var ErrInvalid = errors.New("invalid schedkit annotation or resource")

// Error reports why a pod or node could not be translated.
type Error struct {
	Object string // "pod ns/name" or "node name"
	Key    string // the annotation at fault, if any
	Reason string
}

// Error returns Detail prefixed "podtask: ".
func (e *Error) Error() string { return "podtask: " + e.Detail() }

// Detail is the error's text without the package prefix, for a host
// that puts its own in front (a plugin's status message).
func (e *Error) Detail() string {
	if e.Key != "" {
		return fmt.Sprintf("%s: %s: %s", e.Object, e.Key, e.Reason)
	}
	return fmt.Sprintf("%s: %s", e.Object, e.Reason)
}

// Unwrap returns ErrInvalid.
func (e *Error) Unwrap() error { return ErrInvalid }

var space = func() *skres.Space {
	s, err := skres.NewSpace(skres.CPU, skres.Memory)
	if err != nil {
		panic(err) // unreachable: two distinct kinds
	}
	return s
}()

// Space returns the resource space of every vector podtask makes: CPU
// (cores, compressible) and memory (bytes, incompressible).
func Space() *skres.Space { return space }

// Vector translates a resource list into the space: CPU in cores, memory
// in bytes; other resources are left out. Negative quantities are an
// error.
func Vector(object string, rl v1.ResourceList) (skres.Vector, error) {
	var milliCPU, bytes int64
	if q, ok := rl[v1.ResourceCPU]; ok {
		milliCPU = q.MilliValue()
	}
	if q, ok := rl[v1.ResourceMemory]; ok {
		bytes = q.Value()
	}
	return amounts(milliCPU, bytes, func() string { return object })
}

// amounts is the one translation of CPU in millicores and memory in
// bytes into the space; object names what they belong to in the error
// (called only on one).
func amounts(milliCPU, bytes int64, object func() string) (skres.Vector, error) {
	v := space.Zero()
	v[CPU] = float64(milliCPU) / 1000
	v[Memory] = float64(bytes)
	for k, x := range v {
		if x < 0 {
			return nil, &Error{Object: object(), Reason: fmt.Sprintf("negative %s %v", space.Kind(k).Name, x)}
		}
	}
	return v, nil
}

// Capacity returns a node's allocatable CPU and memory.
func Capacity(n *v1.Node) (skres.Vector, error) {
	if n == nil {
		return nil, &Error{Object: "node <nil>", Reason: "nil node"}
	}
	return Vector("node "+n.Name, n.Status.Allocatable)
}

// NodeCapacity returns a scheduler node's allocatable CPU and memory,
// as Capacity returns them for its node, from the amounts kube-scheduler
// parsed when it took the node into its cache (so without parsing the
// node's quantities again on every call).
func NodeCapacity(ni fwk.NodeInfo) (skres.Vector, error) {
	if ni == nil || ni.Node() == nil {
		return nil, &Error{Object: "node <nil>", Reason: "nil node"}
	}
	a := ni.GetAllocatable()
	return amounts(a.GetMilliCPU(), a.GetMemory(), func() string { return "node " + ni.Node().Name })
}

// Similarity returns a pod's similarity key: Logic from AnnotationLogic,
// else from the pod-template-hash label; DataSize from
// AnnotationDataSize (0 without it). A pod with neither logic nor hash
// has the zero key (unpredictable), unless it gives a data size, which
// is an error (a size alone says nothing about the code). An empty
// logic, a malformed, negative or fractional size is an error.
func Similarity(p *v1.Pod) (schedkit.SimilarityKey, error) {
	var key schedkit.SimilarityKey
	if p == nil {
		return key, &Error{Object: "pod <nil>", Reason: "nil pod"}
	}
	obj := "pod " + p.Namespace + "/" + p.Name
	if logic, ok := p.Annotations[AnnotationLogic]; ok {
		if logic == "" {
			return key, &Error{Object: obj, Key: AnnotationLogic, Reason: "empty"}
		}
		key.Logic = logic
	} else if h := p.Labels[LabelPodTemplateHash]; h != "" {
		key.Logic = p.Namespace + "/" + LabelPodTemplateHash + "=" + h
	}
	if s, ok := p.Annotations[AnnotationDataSize]; ok {
		q, err := resource.ParseQuantity(s)
		if err != nil {
			return schedkit.SimilarityKey{}, &Error{Object: obj, Key: AnnotationDataSize, Reason: fmt.Sprintf("%q is not a quantity: %v", s, err)}
		}
		n, exact := q.AsInt64()
		if !exact || n < 0 {
			return schedkit.SimilarityKey{}, &Error{Object: obj, Key: AnnotationDataSize, Reason: fmt.Sprintf("%q is not a whole non-negative number of bytes", s)}
		}
		if key.Logic == "" {
			return schedkit.SimilarityKey{}, &Error{Object: obj, Key: AnnotationDataSize, Reason: "given without " + AnnotationLogic + " or a " + LabelPodTemplateHash + " label"}
		}
		key.DataSize = n
	}
	return key, nil
}

// Task is a pod as a schedkit.Task (read-only once made).
type Task struct {
	id        schedkit.TaskID
	job       schedkit.JobID
	key       schedkit.SimilarityKey
	requested skres.Vector
}

var _ schedkit.Task = (*Task)(nil)

// FromPod translates a pod: ID "ns/name", job its controller
// ("Kind/ns/name", the pod itself without one), the similarity key of
// Similarity, and its effective requests (as kube-scheduler counts them:
// containers, init containers, overhead) as Requested. Every bad input
// is an *Error wrapping ErrInvalid that names the pod and the key.
func FromPod(p *v1.Pod) (*Task, error) {
	key, err := Similarity(p)
	if err != nil {
		return nil, err
	}
	obj := "pod " + p.Namespace + "/" + p.Name
	req, err := Vector(obj, resourcehelper.PodRequests(p, resourcehelper.PodResourcesOptions{}))
	if err != nil {
		return nil, err
	}
	for k, x := range req {
		if math.IsInf(x, 0) || math.IsNaN(x) {
			return nil, &Error{Object: obj, Reason: fmt.Sprintf("%s request %v", space.Kind(k).Name, x)}
		}
	}
	t := &Task{id: schedkit.TaskID(p.Namespace + "/" + p.Name), key: key, requested: req}
	t.job = schedkit.JobID("Pod/" + p.Namespace + "/" + p.Name)
	if c := metav1.GetControllerOf(p); c != nil {
		t.job = schedkit.JobID(c.Kind + "/" + p.Namespace + "/" + c.Name)
	}
	return t, nil
}

// ID returns "ns/name".
func (t *Task) ID() schedkit.TaskID { return t.id }

// Job returns the pod's controller, "Kind/ns/name", or "Pod/ns/name".
func (t *Task) Job() schedkit.JobID { return t.job }

// Phase returns 0: fine-grained matching does not use phases.
func (t *Task) Phase() schedkit.Phase { return 0 }

// Similarity returns the key of Similarity.
func (t *Task) Similarity() schedkit.SimilarityKey { return t.key }

// Requested returns the pod's effective requests (a view; do not modify).
func (t *Task) Requested() skres.Vector { return t.requested }

// Deadline returns the zero Time: pods carry no deadline here.
func (t *Task) Deadline() time.Time { return time.Time{} }

// DataLocations returns nil: no locality preference.
func (t *Task) DataLocations() []schedkit.NodeID { return nil }
