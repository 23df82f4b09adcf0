package slots_test

import (
	"context"
	"strings"
	"testing"
	"time"

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/kubernetes/fake"

	"github.com/schedkit/schedkit/internal/kube/podjob"
	"github.com/schedkit/schedkit/internal/kube/slots"
)

func node(name string, labels map[string]string, capacity v1.ResourceList) *v1.Node {
	return &v1.Node{ObjectMeta: metav1.ObjectMeta{Name: name, Labels: labels},
		Status: v1.NodeStatus{Capacity: capacity, Allocatable: capacity.DeepCopy()}}
}

func slotsOf(n *v1.Node) (capMap, capRed, allocMap, allocRed int64) {
	q := func(l v1.ResourceList, r v1.ResourceName) int64 {
		v, ok := l[r]
		if !ok {
			return -1
		}
		return v.Value()
	}
	return q(n.Status.Capacity, podjob.ResourceMapSlot), q(n.Status.Capacity, podjob.ResourceReduceSlot),
		q(n.Status.Allocatable, podjob.ResourceMapSlot), q(n.Status.Allocatable, podjob.ResourceReduceSlot)
}

// Reconcile brings capacity and allocatable to the labels, keeps the
// kubelet's own resources, removes slots whose label went, and does
// nothing when they agree; a bad label is an error naming it.
func TestReconcile(t *testing.T) {
	ctx := context.Background()
	cpu := v1.ResourceList{v1.ResourceCPU: resource.MustParse("4")}
	cs := fake.NewClientset(
		node("n1", map[string]string{slots.LabelMapSlots: "4", slots.LabelReduceSlots: "2"}, cpu),
		node("bare", map[string]string{slots.LabelMapSlots: "1"}, nil),
		node("bad", map[string]string{slots.LabelMapSlots: "-1"}, nil))
	get := func(name string) *v1.Node {
		n, err := cs.CoreV1().Nodes().Get(ctx, name, metav1.GetOptions{})
		if err != nil {
			t.Fatal(err)
		}
		return n
	}
	for _, tc := range []struct {
		node           string
		patched        bool
		cm, cr, am, ar int64
	}{
		{"n1", true, 4, 2, 4, 2},
		{"n1", false, 4, 2, 4, 2},
		{"bare", true, 1, -1, 1, -1},
	} {
		patched, err := slots.Reconcile(ctx, cs, get(tc.node))
		if err != nil || patched != tc.patched {
			t.Fatalf("%s: patched %v, %v; want %v", tc.node, patched, err, tc.patched)
		}
		n := get(tc.node)
		if cm, cr, am, ar := slotsOf(n); cm != tc.cm || cr != tc.cr || am != tc.am || ar != tc.ar {
			t.Errorf("%s: slots %d %d %d %d", tc.node, cm, cr, am, ar)
		}
	}
	if c := get("n1").Status.Capacity[v1.ResourceCPU]; c.String() != "4" {
		t.Errorf("cpu capacity %v lost", c)
	}
	n := get("n1")
	delete(n.Labels, slots.LabelReduceSlots)
	if patched, err := slots.Reconcile(ctx, cs, n); err != nil || !patched {
		t.Fatalf("label removed: %v %v", patched, err)
	}
	if cm, cr, am, ar := slotsOf(get("n1")); cm != 4 || cr != -1 || am != 4 || ar != -1 {
		t.Errorf("after the reduce label went: %d %d %d %d", cm, cr, am, ar)
	}
	if _, err := slots.Reconcile(ctx, cs, get("bad")); err == nil || !strings.Contains(err.Error(), slots.LabelMapSlots) {
		t.Errorf("bad label: %v", err)
	}
}

// The Controller advertises a labelled node's slots and restores them
// after a kubelet zeroes them (its status written without them).
func TestControllerRestores(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	cs := fake.NewClientset(node("n1", map[string]string{slots.LabelMapSlots: "3", slots.LabelReduceSlots: "1"}, nil))
	go slots.NewController(cs).Run(ctx)
	wantSlots := func(what string) {
		t.Helper()
		err := wait.PollUntilContextTimeout(ctx, 10*time.Millisecond, 10*time.Second, true, func(ctx context.Context) (bool, error) {
			n, err := cs.CoreV1().Nodes().Get(ctx, "n1", metav1.GetOptions{})
			if err != nil {
				return false, err
			}
			cm, cr, am, ar := slotsOf(n)
			return cm == 3 && cr == 1 && am == 3 && ar == 1, nil
		})
		if err != nil {
			t.Fatalf("%s: %v", what, err)
		}
	}
	wantSlots("advertised")
	// A kubelet re-registering a rebuilt node resets its extended resources.
	n, _ := cs.CoreV1().Nodes().Get(ctx, "n1", metav1.GetOptions{})
	n.Status.Capacity = v1.ResourceList{v1.ResourceCPU: resource.MustParse("2")}
	n.Status.Allocatable = n.Status.Capacity.DeepCopy()
	if _, err := cs.CoreV1().Nodes().UpdateStatus(ctx, n, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	wantSlots("restored")
}
