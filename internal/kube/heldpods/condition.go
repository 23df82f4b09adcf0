package heldpods

import (
	"context"
	"encoding/json"
	"fmt"
	"sync/atomic"
	"time"

	v1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/strategicpatch"
	"k8s.io/client-go/util/retry"
	"k8s.io/client-go/util/workqueue"
	"k8s.io/klog/v2"
)

// conditions is the tracker's queue of condition writes: the pods
// whose PodScheduled condition may not match the tracker, each once (a
// pod held, released and held again before its write is one write),
// written by conditionWorkers goroutines that stop with the context the
// tracker was made with. A write runs off the caller's goroutine
// (PreEnqueue runs under the scheduling queue's lock and must not wait
// for the API server) and applies the tracker's state at the time it
// runs, so writes in any order leave the pod as the last Hold or Release
// left the tracker. Memory is one entry per pod held at once (the
// pending writes), goroutines conditionWorkers, however many pods are
// held.
type conditions struct {
	queue workqueue.TypedInterface[podKey] // nil: no client, no writes
	busy  atomic.Int64                     // writes taken and not done
}

// podKey names a pod whose condition is to be written.
type podKey struct {
	ns, name string
	uid      types.UID
}

// conditionWorkers is how many condition writes run at once.
const conditionWorkers = 4

// conditionTimeout bounds one write, retries included.
const conditionTimeout = 30 * time.Second

// start starts the workers, which stop (and the queue with them) when
// ctx ends.
func (c *conditions) start(ctx context.Context, t *Tracker) {
	c.queue = workqueue.NewTypedWithConfig(workqueue.TypedQueueConfig[podKey]{Name: "schedkit-held-" + t.plugin})
	for range conditionWorkers {
		go func() {
			for t.writeNext(ctx) {
			}
		}()
	}
	go func() {
		<-ctx.Done()
		c.queue.ShutDown()
	}()
}

// syncCondition asks for pod ns/name (uid)'s PodScheduled condition to
// be brought in line with the tracker (see writeNext).
func (t *Tracker) syncCondition(ns, name string, uid types.UID) {
	if t.conds.queue == nil {
		return
	}
	t.conds.queue.Add(podKey{ns: ns, name: name, uid: uid})
}

// writeNext writes one pod's condition: held by Hold, the condition is
// PodScheduled=False, reason ConditionReasonHeldBack, the hold's
// message; otherwise a condition of that reason is removed. A pod that
// is gone, replaced (another UID) or bound is left alone (the binding
// sets PodScheduled=True), and so is a condition of another reason when
// the pod is not held (kube-scheduler's own). Each write is a strategic
// merge patch of the status, computed as kube-scheduler's
// util.PatchPodStatus computes its own, with the pod's resourceVersion
// as a precondition; a conflict reads the pod again. It returns false
// once the queue is shut down.
func (t *Tracker) writeNext(ctx context.Context) bool {
	k, shutdown := t.conds.queue.Get()
	if shutdown {
		return false
	}
	t.conds.busy.Add(1)
	defer t.conds.busy.Add(-1)
	defer t.conds.queue.Done(k)
	wctx, cancel := context.WithTimeout(ctx, conditionTimeout)
	defer cancel()
	err := retry.OnError(retry.DefaultBackoff, func(err error) bool {
		return apierrors.IsConflict(err) || apierrors.IsServerTimeout(err) || apierrors.IsTooManyRequests(err)
	}, func() error { return t.writeCondition(wctx, k.ns, k.name, k.uid) })
	if err != nil && ctx.Err() == nil {
		klog.FromContext(ctx).Error(err, "Updating a held pod's condition", "plugin", t.plugin, "pod", klog.KRef(k.ns, k.name))
	}
	return true
}

// writeCondition is one attempt of syncCondition.
func (t *Tracker) writeCondition(ctx context.Context, ns, name string, uid types.UID) error {
	t.mu.Lock()
	msg, want := "", false
	if h := t.held[uid]; h != nil && h.cond {
		msg, want = h.msg, true
	}
	t.mu.Unlock()

	pod, err := t.client.CoreV1().Pods(ns).Get(ctx, name, metav1.GetOptions{})
	if apierrors.IsNotFound(err) {
		return nil
	}
	if err != nil {
		return err
	}
	if pod.UID != uid || pod.Spec.NodeName != "" {
		return nil
	}
	status := pod.Status.DeepCopy()
	i := -1
	for k := range status.Conditions {
		if status.Conditions[k].Type == v1.PodScheduled {
			i = k
			break
		}
	}
	switch {
	case want:
		c := v1.PodCondition{Type: v1.PodScheduled, Status: v1.ConditionFalse, Reason: ConditionReasonHeldBack, Message: msg,
			ObservedGeneration: pod.Generation, LastTransitionTime: metav1.Now()}
		if i < 0 {
			status.Conditions = append(status.Conditions, c)
			break
		}
		old := status.Conditions[i]
		if old.Status == c.Status && old.Reason == c.Reason && old.Message == c.Message {
			return nil
		}
		if old.Status == c.Status {
			c.LastTransitionTime = old.LastTransitionTime
		}
		status.Conditions[i] = c
	case i >= 0 && status.Conditions[i].Reason == ConditionReasonHeldBack:
		status.Conditions = append(status.Conditions[:i], status.Conditions[i+1:]...)
	default:
		return nil
	}
	return t.patchStatus(ctx, pod, status)
}

// patchStatus patches pod's status to status: the two-way strategic
// merge patch from the old status to the new (a removed condition
// becomes a delete directive), with the pod's resourceVersion as a
// precondition.
func (t *Tracker) patchStatus(ctx context.Context, pod *v1.Pod, status *v1.PodStatus) error {
	oldData, err := json.Marshal(v1.Pod{Status: pod.Status})
	if err != nil {
		return err
	}
	newData, err := json.Marshal(v1.Pod{ObjectMeta: metav1.ObjectMeta{ResourceVersion: pod.ResourceVersion}, Status: *status})
	if err != nil {
		return err
	}
	patch, err := strategicpatch.CreateTwoWayMergePatch(oldData, newData, &v1.Pod{})
	if err != nil {
		return fmt.Errorf("patch of pod %s/%s: %w", pod.Namespace, pod.Name, err)
	}
	_, err = t.client.CoreV1().Pods(pod.Namespace).Patch(ctx, pod.Name, types.StrategicMergePatchType, patch, metav1.PatchOptions{}, "status")
	return err
}
