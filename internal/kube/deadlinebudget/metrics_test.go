package deadlinebudget

import (
	"context"
	"fmt"
	"testing"
	"time"

	v1 "k8s.io/api/core/v1"

	"github.com/schedkit/schedkit/internal/kube/heldpods"
	"github.com/schedkit/schedkit/internal/kube/kubetest"
	"github.com/schedkit/schedkit/internal/kube/podjob"
)

// TestMetrics: TestTickPromotes's promotion counted by direction and
// reason, its two weight updates timed, the queues' job counts, and a
// reduce held back until its maps finish counted by reason.
func TestMetrics(t *testing.T) {
	fx := newFixture(t, `{"defaultTaskTime":"30s"}`) // registers the metrics
	promotions := kubetest.Counter(t, QueueMoves.WithLabelValues("promote", "short"))
	updates := kubetest.Observations(t, WeightUpdateDuration.ObserverMetric)
	reduces := kubetest.Counter(t, heldpods.HeldBack.WithLabelValues(Name, heldpods.ReasonReducesWait))
	fx.add(t, node("n1", 4, 2), node("n2", 6, 3),
		kjob("both", podjob.AnnotationPhi, "0.5", podjob.AnnotationBudget, "40", podjob.AnnotationRelativeDeadline, "400s", podjob.AnnotationTasks, "map=20,reduce=2"),
		pod("both-m00", "both", 0, runningSince(now)))
	for i := 1; i < 20; i++ {
		fx.add(t, pod(fmt.Sprintf("both-m%02d", i), "both", i))
	}
	r := pod("both-r0", "both", 20, func(p *v1.Pod) { p.Labels = map[string]string{podjob.LabelPhase: "reduce"} })
	fx.add(t, r)
	if st := fx.pl.PreEnqueue(context.Background(), r); st.IsSuccess() {
		t.Fatal("a reduce before its maps let through")
	}
	for _, at := range []time.Time{now, now.Add(500 * time.Millisecond)} {
		fx.clk.SetTime(at)
		fx.pl.Tick(context.Background())
	}
	if got := kubetest.Counter(t, QueueMoves.WithLabelValues("promote", "short")) - promotions; got != 1 {
		t.Errorf("%v promotions (short) counted, want 1", got)
	}
	if got := kubetest.Observations(t, WeightUpdateDuration.ObserverMetric) - updates; got != 2 {
		t.Errorf("%d weight updates timed, want 2", got)
	}
	if got := kubetest.Gauge(t, Jobs.WithLabelValues("high")); got != 1 {
		t.Errorf("%v jobs in the high queue, want 1", got)
	}
	if got := kubetest.Counter(t, heldpods.HeldBack.WithLabelValues(Name, heldpods.ReasonReducesWait)) - reduces; got != 1 {
		t.Errorf("%v reduces held back counted, want 1", got)
	}
}
