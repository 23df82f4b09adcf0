package heldpods

import (
	"sync"

	"k8s.io/component-base/metrics"
	"k8s.io/component-base/metrics/legacyregistry"
)

// MetricsNamespace is the namespace of every metric schedkit's plugins
// publish on kube-scheduler's /metrics (component-base's legacy
// registry, as kube-scheduler's own plugins register theirs).
const MetricsNamespace = "schedkit"

// Reasons a plugin holds back or refuses a pod: the reason label of
// HeldBack. Each plugin's doc lists the ones it uses.
const (
	// ReasonJobNotCached: the pod's Job is not yet in the informer cache
	// (retried).
	ReasonJobNotCached = "job_not_cached"
	// ReasonInvalid: the job's or pod's annotations are missing or
	// malformed.
	ReasonInvalid = "invalid"
	// ReasonRefused: the algorithm refused the job (its Submit failed).
	ReasonRefused = "refused"
	// ReasonHopeless: LeastSpareTime's kill rule (lss would kill the job).
	ReasonHopeless = "hopeless"
	// ReasonNotItsTurn: LeastSpareTime's turn gate refused the pod.
	ReasonNotItsTurn = "not_its_turn"
	// ReasonReducesWait: DeadlineBudget gives a reduce no slot before its
	// job's maps have finished.
	ReasonReducesWait = "reduces_wait_for_maps"
)

// HeldBack counts, per plugin and reason, every decision holding back a
// pod (PreEnqueue) or refusing it (PreFilter): a pod held back at each
// of its attempts counts at each.
var HeldBack = NewCounterVec("", "pods_held_back_total",
	"Decisions of a schedkit plugin holding back (PreEnqueue) or refusing (PreFilter) a pod, by plugin and reason.", "plugin", "reason")

// Held is the number of pods each plugin holds back now (Tracker.Len).
var Held = NewGaugeVec("", "held_pods", "Pods a schedkit plugin holds back or retries now, by plugin.", "plugin")

var registerOnce sync.Once

// RegisterMetrics registers HeldBack and Held with the legacy registry
// (once; every plugin's factory calls it). Before it, they count
// nothing.
func RegisterMetrics() {
	registerOnce.Do(func() {
		legacyregistry.MustRegister(HeldBack, Held)
	})
}

// CountHeld records a decision of plugin holding back a pod for reason.
func CountHeld(plugin, reason string) { HeldBack.WithLabelValues(plugin, reason).Inc() }

// NewCounterVec returns a counter of schedkit's namespace, plugin
// subsystem subsystem (ALPHA), with labels: the one shape of the
// plugins' counters.
func NewCounterVec(subsystem, name, help string, labels ...string) *metrics.CounterVec {
	return metrics.NewCounterVec(&metrics.CounterOpts{Namespace: MetricsNamespace, Subsystem: subsystem, Name: name, Help: help,
		StabilityLevel: metrics.ALPHA}, labels)
}

// NewGaugeVec returns a gauge of schedkit's namespace as NewCounterVec.
func NewGaugeVec(subsystem, name, help string, labels ...string) *metrics.GaugeVec {
	return metrics.NewGaugeVec(&metrics.GaugeOpts{Namespace: MetricsNamespace, Subsystem: subsystem, Name: name, Help: help,
		StabilityLevel: metrics.ALPHA}, labels)
}

// NewGauge returns a gauge without labels as NewGaugeVec.
func NewGauge(subsystem, name, help string) *metrics.Gauge {
	return metrics.NewGauge(&metrics.GaugeOpts{Namespace: MetricsNamespace, Subsystem: subsystem, Name: name, Help: help,
		StabilityLevel: metrics.ALPHA})
}
