package finegrained_test

import (
	"context"
	"testing"
	"time"

	clocktesting "k8s.io/utils/clock/testing"

	"github.com/schedkit/schedkit/internal/kube/finegrained"
	"github.com/schedkit/schedkit/internal/kube/kubetest"
)

// TestMetrics: the feed's reads and errors by source, the records
// learned, the History's size, the staleness of the samples in force and
// the estimate-versus-request ratio move as the plugin works.
func TestMetrics(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	pl := newPlugin(t, trainHistory(), "") // registers the metrics, reads the feed once
	reads := kubetest.Counter(t, finegrained.FeedReads.WithLabelValues("nodes"))
	errs := kubetest.Counter(t, finegrained.FeedErrors.WithLabelValues("finished"))
	learned := kubetest.Counter(t, finegrained.Learned.WithLabelValues("learned"))
	ratios := kubetest.Observations(t, finegrained.EstimateRatio.WithLabelValues("cpu"))
	if got := kubetest.Gauge(t, finegrained.HistoryKeys); got != 1 {
		t.Errorf("History keys %v, want 1 (train)", got)
	}
	// A train pod requesting what its first stage uses: ratio 1.
	if _, st, _ := cycle(t, pl, mkPod("q", "train", list("4", "8Gi")), nodeInfo()); st != nil {
		t.Fatalf("q: %v", st)
	}
	if got := kubetest.Observations(t, finegrained.EstimateRatio.WithLabelValues("cpu")) - ratios; got != 1 {
		t.Errorf("%d cpu ratios observed, want 1", got)
	}
	bad, err := finegrained.NewWithFeed(&badFeed{}, clocktesting.NewFakePassiveClock(now))(ctx, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	bad.(*finegrained.Plugin).Poll(ctx)
	if got := kubetest.Counter(t, finegrained.FeedReads.WithLabelValues("nodes")) - reads; got != 2 {
		t.Errorf("%v node reads, want 2", got)
	}
	if got := kubetest.Counter(t, finegrained.FeedErrors.WithLabelValues("finished")) - errs; got != 2 {
		t.Errorf("%v failed reads of finished pods, want 2", got)
	}
	if got := kubetest.Counter(t, finegrained.Learned.WithLabelValues("learned")) - learned; got != 0 {
		t.Errorf("%v records learned from a broken feed", got)
	}
	feed := &scriptedFeed{}
	feed.set([]finegrained.NodeUsage{{Node: "n1", At: now.Add(-20 * time.Second), Used: resource2(1, 1)}}, nil)
	sc, err := finegrained.NewWithFeed(feed, clocktesting.NewFakePassiveClock(now))(ctx, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	sc.(*finegrained.Plugin).Poll(ctx)
	if got := kubetest.Gauge(t, finegrained.FeedStaleness); got != 20 {
		t.Errorf("staleness %vs, want 20", got)
	}
}
