package leastsparetime

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"

	v1 "k8s.io/api/core/v1"
	fwk "k8s.io/kube-scheduler/framework"
	"k8s.io/kubernetes/pkg/scheduler/framework"

	"github.com/schedkit/schedkit/internal/kube/kubetest"
)

// TestRestartSameOrder (issue 35): a plugin that has worked for a while
// — gated pods, bound two of them (taken as deltas into its kept view),
// run the kill rule — and a new plugin started on the same cluster, as a
// restarted or newly elected scheduler is, order the pending pods the
// same, gate each the same and hold back the same: nothing lss decides
// lives only in the process. (What is lost is the gate's skips and the
// kill rule's record; see the package doc.)
func TestRestartSameOrder(t *testing.T) {
	ctx := context.Background()
	fx, pods := turnFixture(t)
	gen := []fwk.NodeInfo{framework.NewNodeInfo()}
	for _, name := range []string{"b0", "a0", "c2", "c3", "cr", "b1"} {
		fx.pl.PreFilter(ctx, nil, pods[name], gen)
	}
	fx.pl.ActOnHopeless(ctx)
	for _, name := range []string{"b0", "c2"} { // bound in rank order: deltas
		old := pods[name]
		bound := old.DeepCopy()
		kubetest.Running("n1", now)(bound)
		fx.cache.Update(t, bound)
		fx.pl.take(old, bound)
		pods[name] = bound
	}
	fresh := newFixture(t)
	fresh.cache = fx.cache
	fresh.pl.host.Lis = fx.pl.host.Lis

	var pending []fwk.QueuedEntityInfo
	for _, p := range pods {
		if p.Spec.NodeName == "" {
			pending = append(pending, kubetest.Queued(t, p, now))
		}
	}
	if a, b := kubetest.SortedNames(pending, fx.pl.Less), kubetest.SortedNames(pending, fresh.pl.Less); !slices.Equal(a, b) {
		t.Errorf("order: running plugin %v, restarted %v", a, b)
	}
	verdict := func(pl *Plugin, p *v1.Pod) string {
		_, st := pl.PreFilter(ctx, nil, p, gen)
		pl.mu.Lock()
		delete(pl.turns.passed, p.UID) // the attempt's record, not a decision
		pl.mu.Unlock()
		return fmt.Sprintf("%v %q / %v", st.Code(), st.Message(), pl.PreEnqueue(ctx, p))
	}
	refused := 0
	for name, p := range pods {
		if p.Spec.NodeName != "" {
			continue
		}
		a, b := verdict(fx.pl, p), verdict(fresh.pl, p)
		if a != b {
			t.Errorf("%s: running plugin %s, restarted %s", name, a, b)
		}
		if !strings.HasPrefix(a, "Success") {
			refused++
		}
	}
	if len(pending) < 5 || refused == 0 {
		t.Errorf("%d pending pods, %d refused: the case shows nothing", len(pending), refused)
	}
}
