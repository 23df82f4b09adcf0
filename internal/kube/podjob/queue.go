package podjob

import (
	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/types"
	corelisters "k8s.io/client-go/listers/core/v1"
	fwk "k8s.io/kube-scheduler/framework"
)

// ListPods is the pod list a plugin builds its Snapshot from:
// kube-scheduler's informer (live) lists only non-terminal pods, so the
// pods of a plugin's own informer of succeeded pods (succeeded, may be
// nil) are merged in. A pod in both, caught finishing, counts as
// succeeded; failed pods are left out (their replacements count).
func ListPods(live, succeeded corelisters.PodLister) ([]*v1.Pod, error) {
	pods, err := live.List(labels.Everything())
	if err != nil {
		return nil, err
	}
	if succeeded == nil {
		return pods, nil
	}
	done, err := succeeded.List(labels.Everything())
	if err != nil {
		return nil, err
	}
	seen := make(map[types.UID]bool, len(done))
	out := make([]*v1.Pod, 0, len(pods)+len(done))
	for _, p := range done {
		if p.Status.Phase == v1.PodSucceeded {
			seen[p.UID] = true
			out = append(out, p)
		}
	}
	for _, p := range pods {
		if !seen[p.UID] && p.Status.Phase != v1.PodSucceeded && p.Status.Phase != v1.PodFailed {
			out = append(out, p)
		}
	}
	return out, nil
}

// QueuedPod returns the pod of a scheduling-queue entity, nil for pod
// groups (kube-scheduler passes both to a QueueSort plugin's Less).
func QueuedPod(e fwk.QueuedEntityInfo) *v1.Pod {
	pi, ok := e.(interface{ GetPodInfo() fwk.PodInfo })
	if !ok || pi.GetPodInfo() == nil {
		return nil
	}
	return pi.GetPodInfo().GetPod()
}

// PriorityLess is kube-scheduler's default queue order (PrioritySort):
// higher priority first, then earlier queue timestamp. The schedkit
// queue-sort plugins order every pod they do not manage by it.
func PriorityLess(a, b fwk.QueuedEntityInfo) bool {
	p1, p2 := a.GetPriority(), b.GetPriority()
	return p1 > p2 || (p1 == p2 && a.GetTimestamp().Before(b.GetTimestamp()))
}
