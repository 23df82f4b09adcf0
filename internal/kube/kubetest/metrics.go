package kubetest

import (
	"testing"

	"k8s.io/component-base/metrics"
	"k8s.io/component-base/metrics/testutil"
)

// Counter reads a counter as kube-scheduler's /metrics serves it.
func Counter(t testing.TB, m metrics.CounterMetric) float64 {
	t.Helper()
	v, err := testutil.GetCounterMetricValue(m)
	if err != nil {
		t.Fatal(err)
	}
	return v
}

// Gauge reads a gauge as /metrics serves it.
func Gauge(t testing.TB, m metrics.GaugeMetric) float64 {
	t.Helper()
	v, err := testutil.GetGaugeMetricValue(m)
	if err != nil {
		t.Fatal(err)
	}
	return v
}

// Observations reads how many observations a histogram holds.
func Observations(t testing.TB, m metrics.ObserverMetric) uint64 {
	t.Helper()
	n, err := testutil.GetHistogramMetricCount(m)
	if err != nil {
		t.Fatal(err)
	}
	return n
}
