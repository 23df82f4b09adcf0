package slots

import (
	"context"
	"encoding/json"
	"fmt"
	"strconv"

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/kubernetes"

	"github.com/schedkit/schedkit/internal/kube/podjob"
)

// The node labels holding the desired slot counts (non-negative
// integers).
const (
	LabelMapSlots    = podjob.Prefix + "map-slots"
	LabelReduceSlots = podjob.Prefix + "reduce-slots"
)

// kinds pairs each label with the resource it sets.
var kinds = []struct {
	label string
	res   v1.ResourceName
}{
	{LabelMapSlots, podjob.ResourceMapSlot},
	{LabelReduceSlots, podjob.ResourceReduceSlot},
}

// Desired returns the slot counts node's labels ask for: the resource
// and count of each label present. A label that is not a non-negative
// integer is an error naming the node and the label.
func Desired(node *v1.Node) (map[v1.ResourceName]int64, error) {
	out := map[v1.ResourceName]int64{}
	for _, k := range kinds {
		s, ok := node.Labels[k.label]
		if !ok {
			continue
		}
		n, err := strconv.ParseInt(s, 10, 64)
		if err != nil || n < 0 {
			return nil, fmt.Errorf("slots: node %s: label %s: %q is not a non-negative integer", node.Name, k.label, s)
		}
		out[k.res] = n
	}
	return out, nil
}

// Patch returns the merge patch (RFC 7386) that brings node's status
// capacity and allocatable to its labels' slot counts (removing the slot
// resources of labels that are absent), or nil if the status already
// agrees. A merge patch touches only the slot resources, whatever else
// the status holds when it is applied.
func Patch(node *v1.Node) ([]byte, error) {
	want, err := Desired(node)
	if err != nil {
		return nil, err
	}
	status := map[string]map[string]any{}
	for _, field := range []struct {
		name string
		list v1.ResourceList
	}{{"capacity", node.Status.Capacity}, {"allocatable", node.Status.Allocatable}} {
		for _, k := range kinds {
			have, has := field.list[k.res]
			n, wanted := want[k.res]
			var v any
			switch {
			case wanted && (!has || have.Cmp(*resource.NewQuantity(n, resource.DecimalSI)) != 0):
				v = strconv.FormatInt(n, 10)
			case !wanted && has:
				v = nil // removes it
			default:
				continue
			}
			if status[field.name] == nil {
				status[field.name] = map[string]any{}
			}
			status[field.name][string(k.res)] = v
		}
	}
	if len(status) == 0 {
		return nil, nil
	}
	return json.Marshal(map[string]any{"status": status})
}

// Reconcile patches node's status so that it advertises the slots its
// labels ask for. It reports whether it patched.
func Reconcile(ctx context.Context, cs kubernetes.Interface, node *v1.Node) (bool, error) {
	p, err := Patch(node)
	if err != nil || p == nil {
		return false, err
	}
	if _, err := cs.CoreV1().Nodes().Patch(ctx, node.Name, types.MergePatchType, p, metav1.PatchOptions{}, "status"); err != nil {
		return false, fmt.Errorf("slots: patching node %s's status: %w", node.Name, err)
	}
	return true, nil
}
