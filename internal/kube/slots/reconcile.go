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

// Patch returns the JSON patch that brings node's status capacity and
// allocatable to its labels' slot counts (removing the slot resources
// of labels that are absent), or nil if the status already agrees.
func Patch(node *v1.Node) ([]byte, error) {
	want, err := Desired(node)
	if err != nil {
		return nil, err
	}
	var ops []map[string]any
	for _, field := range []struct {
		name string
		list v1.ResourceList
	}{{"capacity", node.Status.Capacity}, {"allocatable", node.Status.Allocatable}} {
		var fieldOps []map[string]any
		for _, k := range kinds {
			path := "/status/" + field.name + "/" + escape(string(k.res))
			have, has := field.list[k.res]
			n, wanted := want[k.res]
			switch {
			case wanted && (!has || have.Cmp(*resource.NewQuantity(n, resource.DecimalSI)) != 0):
				fieldOps = append(fieldOps, map[string]any{"op": "add", "path": path, "value": strconv.FormatInt(n, 10)})
			case !wanted && has:
				fieldOps = append(fieldOps, map[string]any{"op": "remove", "path": path})
			}
		}
		if len(fieldOps) > 0 && field.list == nil {
			// No map to add into yet.
			ops = append(ops, map[string]any{"op": "add", "path": "/status/" + field.name, "value": map[string]string{}})
		}
		ops = append(ops, fieldOps...)
	}
	if len(ops) == 0 {
		return nil, nil
	}
	return json.Marshal(ops)
}

// escape escapes a JSON pointer segment (RFC 6901): "/" in a resource
// name becomes "~1".
func escape(s string) string {
	out := make([]byte, 0, len(s)+2)
	for i := 0; i < len(s); i++ {
		switch s[i] {
		case '~':
			out = append(out, '~', '0')
		case '/':
			out = append(out, '~', '1')
		default:
			out = append(out, s[i])
		}
	}
	return string(out)
}

// Reconcile patches node's status so that it advertises the slots its
// labels ask for. It reports whether it patched.
func Reconcile(ctx context.Context, cs kubernetes.Interface, node *v1.Node) (bool, error) {
	p, err := Patch(node)
	if err != nil || p == nil {
		return false, err
	}
	if _, err := cs.CoreV1().Nodes().Patch(ctx, node.Name, types.JSONPatchType, p, metav1.PatchOptions{}, "status"); err != nil {
		return false, fmt.Errorf("slots: patching node %s's status: %w", node.Name, err)
	}
	return true, nil
}
