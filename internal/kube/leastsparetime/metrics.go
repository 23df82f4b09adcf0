package leastsparetime

import (
	"sync"

	"k8s.io/component-base/metrics/legacyregistry"

	"github.com/schedkit/schedkit/internal/kube/heldpods"
	"github.com/schedkit/schedkit/lss"
)

// metricsSubsystem is the subsystem of the plugin's own metrics.
const metricsSubsystem = "leastsparetime"

// The plugin's metrics on kube-scheduler's /metrics (see the package
// doc's Metrics section).
var (
	// HopelessJobs counts the jobs lss's kill rule found hopeless, each
	// job once (as its DeadlineHopeless event), by the rule's reason.
	HopelessJobs = heldpods.NewCounterVec(metricsSubsystem, "hopeless_jobs_total",
		"Jobs LeastSpareTime found hopeless (lss's kill rule), each once, by reason.", "reason")
	// Deletions counts the deletions of hopeless jobs tried (with
	// deleteHopelessJobs), by result: deleted or failed.
	Deletions = heldpods.NewCounterVec(metricsSubsystem, "hopeless_deletions_total",
		"Deletions of hopeless jobs LeastSpareTime tried, by result (deleted, failed).", "result")
)

var registerOnce sync.Once

// registerMetrics registers the plugin's metrics and heldpods' (once).
func registerMetrics() {
	heldpods.RegisterMetrics()
	registerOnce.Do(func() { legacyregistry.MustRegister(HopelessJobs, Deletions) })
}

// killLabel is the reason label of HopelessJobs for lss's kill reason r.
func killLabel(r lss.Reason) string {
	switch r {
	case lss.DeadlinePassed:
		return "deadline_passed"
	case lss.SpareExhausted:
		return "spare_exhausted"
	}
	return "other"
}
