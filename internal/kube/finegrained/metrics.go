package finegrained

import (
	"sync"
	"time"

	"k8s.io/component-base/metrics"
	"k8s.io/component-base/metrics/legacyregistry"

	"github.com/schedkit/schedkit/estimate"
	"github.com/schedkit/schedkit/internal/kube/heldpods"
	"github.com/schedkit/schedkit/internal/kube/podtask"
	"github.com/schedkit/schedkit/resource"
)

// metricsSubsystem is the subsystem of the plugin's own metrics.
const metricsSubsystem = "finegrained"

// Feed sources, the source label of FeedReads and FeedErrors.
const (
	sourceFinished = "finished" // UsageFeed.Finished
	sourceNodes    = "nodes"    // UsageFeed.Nodes
)

// The plugin's metrics on kube-scheduler's /metrics (see the package
// doc's Metrics section).
var (
	// FeedReads counts the feed's reads, by source (finished, nodes).
	FeedReads = heldpods.NewCounterVec(metricsSubsystem, "feed_reads_total",
		"Reads of FineGrained's usage feed, by source (finished pods, nodes).", "source")
	// FeedErrors counts the feed's reads that failed, by source.
	FeedErrors = heldpods.NewCounterVec(metricsSubsystem, "feed_errors_total",
		"Failed reads of FineGrained's usage feed, by source.", "source")
	// FeedStaleness is the age of the oldest node sample in force after
	// the last read (0: none in force).
	FeedStaleness = heldpods.NewGauge(metricsSubsystem, "feed_staleness_seconds",
		"Age of the oldest node usage sample FineGrained plans with, at its last feed read.")
	// HistoryKeys is the number of similarity keys the History holds.
	HistoryKeys = heldpods.NewGauge(metricsSubsystem, "history_keys",
		"Similarity keys in FineGrained's learned History.")
	// Learned counts the finished pods' usage records the History
	// learned from (result learned) or refused (refused).
	Learned = heldpods.NewCounterVec(metricsSubsystem, "history_records_total",
		"Succeeded pods' usage records offered to FineGrained's History, by result (learned, refused).", "result")
	// EstimateRatio is, for each pod PreFilter predicts, the predicted
	// peak demand over the request, per resource (cpu, memory).
	EstimateRatio = metrics.NewHistogramVec(&metrics.HistogramOpts{
		Namespace: heldpods.MetricsNamespace, Subsystem: metricsSubsystem,
		Name:           "estimate_request_ratio",
		Help:           "Predicted peak demand over the request of each pod FineGrained predicts, by resource.",
		Buckets:        []float64{0.1, 0.25, 0.5, 0.75, 1, 1.25, 1.5, 2, 4},
		StabilityLevel: metrics.ALPHA,
	}, []string{"resource"})
)

var registerOnce sync.Once

// registerMetrics registers the plugin's metrics and heldpods' (once).
func registerMetrics() {
	heldpods.RegisterMetrics()
	registerOnce.Do(func() {
		legacyregistry.MustRegister(FeedReads, FeedErrors, FeedStaleness, HistoryKeys, Learned, EstimateRatio)
	})
}

// countRead records one read of source and whether it failed.
func countRead(source string, err error) {
	FeedReads.WithLabelValues(source).Inc()
	if err != nil {
		FeedErrors.WithLabelValues(source).Inc()
	}
}

// staleness is the age at now of the oldest sample in force.
func (u *nodeUsage) staleness(now time.Time) time.Duration {
	var oldest time.Duration
	for _, s := range u.samples {
		if !s.expired {
			oldest = max(oldest, now.Sub(s.At))
		}
	}
	return oldest
}

// observeRatio records the predicted peak of stages over requested, per
// kind with a positive request.
func observeRatio(stages []estimate.Stage, requested resource.Vector) {
	space := podtask.Space()
	peak := space.Zero()
	estimate.Profile{Stages: stages}.Peak(peak)
	for k, r := range requested {
		if r > 0 && k < len(peak) {
			EstimateRatio.WithLabelValues(space.Kind(k).Name).Observe(peak[k] / r)
		}
	}
}
