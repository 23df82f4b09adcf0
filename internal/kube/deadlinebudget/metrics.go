package deadlinebudget

import (
	"sync"

	"k8s.io/component-base/metrics"
	"k8s.io/component-base/metrics/legacyregistry"

	"github.com/schedkit/schedkit/dbs"
	"github.com/schedkit/schedkit/internal/kube/heldpods"
)

// metricsSubsystem is the subsystem of the plugin's own metrics.
const metricsSubsystem = "deadlinebudget"

// The plugin's metrics on kube-scheduler's /metrics (see the package
// doc's Metrics section).
var (
	// QueueMoves counts model 3's queue moves by direction (promote,
	// demote) and dbs's reason (dbs.Reason: short, unmeetable, surplus,
	// budget).
	QueueMoves = heldpods.NewCounterVec(metricsSubsystem, "queue_moves_total",
		"Queue moves of DeadlineBudget's weight update (dbs model 3), by direction and reason.", "direction", "reason")
	// WeightUpdateDuration is how long each weight update (dbs.Tick
	// when it updates) took.
	WeightUpdateDuration = metrics.NewHistogram(&metrics.HistogramOpts{
		Namespace: heldpods.MetricsNamespace, Subsystem: metricsSubsystem,
		Name:           "weight_update_duration_seconds",
		Help:           "Duration of DeadlineBudget's weight updates (dbs model 3 over every job).",
		Buckets:        metrics.ExponentialBuckets(0.00001, 4, 10),
		StabilityLevel: metrics.ALPHA,
	})
	// Jobs is the number of jobs in each dbs queue (low, mid, high).
	Jobs = heldpods.NewGaugeVec(metricsSubsystem, "jobs",
		"Jobs in each of DeadlineBudget's dbs queues.", "queue")
)

var registerOnce sync.Once

// registerMetrics registers the plugin's metrics and heldpods' (once).
func registerMetrics() {
	heldpods.RegisterMetrics()
	registerOnce.Do(func() { legacyregistry.MustRegister(QueueMoves, WeightUpdateDuration, Jobs) })
}

// moveLabels are QueueMoves' labels of move d.
func moveLabels(d dbs.Decision) (direction, reason string) {
	direction = "promote"
	if d.Action == dbs.Demote {
		direction = "demote"
	}
	return direction, d.Reason.String()
}
