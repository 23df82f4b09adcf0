// Package podtask translates Kubernetes pods into schedkit Tasks for
// fine-grained matching (package fgm): a pod's similarity key from its
// annotations, its requests and a node's allocatable as vectors of a
// two-kind resource space (CPU in cores, compressible; memory in bytes,
// incompressible). It decides nothing.
//
// # Usage
//
//	t, err := podtask.FromPod(pod) // *podtask.Task, a schedkit.Task
//	key := t.Similarity()          // schedkit.io/logic (or pod-template-hash), schedkit.io/data-size
//	capacity, err := podtask.Capacity(node)
//
// A usage feed that records what finished pods used must file them under
// the key Similarity gives, so that the History learns under the key
// the scheduler later asks for.
//
// # Annotations
//
//   - schedkit.io/logic: the code the pod runs (any non-empty string).
//     Without it, a pod with a pod-template-hash label (a Deployment's)
//     gets "<namespace>/pod-template-hash=<hash>"; a pod with neither is
//     unpredictable (the zero key) and is matched by its requests.
//   - schedkit.io/data-size: the input size, a quantity ("64Gi"); 0
//     without it. Malformed, negative or fractional sizes, an empty
//     logic, or a size without any logic are errors (*Error, wrapping
//     ErrInvalid, naming the pod and the annotation).
package podtask
