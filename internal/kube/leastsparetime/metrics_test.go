package leastsparetime

import (
	"context"
	"errors"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/kubernetes/fake"
	clienttesting "k8s.io/client-go/testing"
	fwk "k8s.io/kube-scheduler/framework"
	"k8s.io/kubernetes/pkg/scheduler/framework"

	"github.com/schedkit/schedkit/internal/kube/heldpods"
	"github.com/schedkit/schedkit/internal/kube/kubetest"
	"github.com/schedkit/schedkit/internal/kube/podjob"
)

// TestMetrics: the plugin's decisions move its metrics, read as
// kube-scheduler's /metrics serves them: a hopeless job and a malformed
// one held back by reason, the turn gate's refusal, the hopeless job
// counted once however often the kill rule runs, a failed and a
// successful deletion.
func TestMetrics(t *testing.T) {
	ctx := context.Background()
	held := func(r string) float64 { return kubetest.Counter(t, heldpods.HeldBack.WithLabelValues(Name, r)) }
	reasons := []string{heldpods.ReasonHopeless, heldpods.ReasonInvalid, heldpods.ReasonNotItsTurn}
	before := map[string]float64{}
	for _, r := range reasons {
		before[r] = held(r)
	}
	hopeless0 := kubetest.Counter(t, HopelessJobs.WithLabelValues("deadline_passed"))
	deleted0 := kubetest.Counter(t, Deletions.WithLabelValues("deleted"))
	failed0 := kubetest.Counter(t, Deletions.WithLabelValues("failed"))

	fx, h, _ := hostileFixture(t)
	calls := 0
	h.Client.(*fake.Clientset).PrependReactor("delete", "jobs", func(clienttesting.Action) (bool, runtime.Object, error) {
		if calls++; calls == 1 {
			return true, nil, errors.New("the API server is busy")
		}
		return true, nil, nil
	})
	fx.add(t, node("n1", 1, 0),
		job("late", time.Hour, podjob.AnnotationRelativeDeadline, "1m"), pod("late-0", "late", time.Hour),
		job("garbled", time.Second, podjob.AnnotationRelativeDeadline, "tomorrow"), pod("garbled-0", "garbled", time.Second),
		job("ok", time.Second, podjob.AnnotationRelativeDeadline, "600s"), pod("ok-0", "ok", time.Second), pod("ok-1", "ok", time.Second))
	for _, name := range []string{"late-0", "garbled-0"} {
		p, _ := fx.pl.host.Lis.Pods.Pods("ns").Get(name)
		if st := fx.pl.PreEnqueue(ctx, p); st.IsSuccess() {
			t.Fatalf("%s let through", name)
		}
	}
	nodes := []fwk.NodeInfo{framework.NewNodeInfo()}
	for _, name := range []string{"ok-0", "ok-1"} {
		p, _ := fx.pl.host.Lis.Pods.Pods("ns").Get(name)
		fx.pl.PreFilter(ctx, nil, p, nodes)
	}
	for range 3 {
		fx.pl.ActOnHopeless(ctx)
	}

	for r, want := range map[string]float64{heldpods.ReasonHopeless: 1, heldpods.ReasonInvalid: 1, heldpods.ReasonNotItsTurn: 1} {
		if got := held(r) - before[r]; got != want {
			t.Errorf("held back for %s: %v, want %v", r, got, want)
		}
	}
	for _, c := range []struct {
		name      string
		m         float64
		was, want float64
	}{
		{"hopeless jobs", kubetest.Counter(t, HopelessJobs.WithLabelValues("deadline_passed")), hopeless0, 1},
		{"deleted", kubetest.Counter(t, Deletions.WithLabelValues("deleted")), deleted0, 1},
		{"failed deletions", kubetest.Counter(t, Deletions.WithLabelValues("failed")), failed0, 1},
	} {
		if got := c.m - c.was; got != c.want {
			t.Errorf("%s: %v, want %v", c.name, got, c.want)
		}
	}
}
