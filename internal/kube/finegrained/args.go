package finegrained

import (
	"fmt"
	"math"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	frameworkruntime "k8s.io/kubernetes/pkg/scheduler/framework/runtime"

	"github.com/schedkit/schedkit/fgm"
	"github.com/schedkit/schedkit/resource"
)

// Args are the plugin's arguments (pluginConfig args in a
// KubeSchedulerConfiguration). Zero fields take the defaults named,
// which are fgm's and estimate.History's.
type Args struct {
	// SchedulerName is the schedulerName of the pods this plugin
	// reserves for: a bound pod with it holds its predicted stages on
	// its node's timeline; every other pod is foreign load, seen only
	// through the feed's node samples. Default "schedkit-fgm".
	SchedulerName string `json:"schedulerName,omitempty"`
	// IdleThreshold is fgm's I_h: a node with less than this fraction of
	// some kind free now is used up. In [0, 1); default 0.05.
	IdleThreshold float64 `json:"idleThreshold,omitempty"`
	// CompressionLimit is the largest compression of CPU, formula (7).
	// In [0, 1); default 0.1.
	CompressionLimit float64 `json:"compressionLimit,omitempty"`
	// NoCompression matches without compression.
	NoCompression bool `json:"noCompression,omitempty"`
	// Penalty is p of formulas (5)–(7), ≥ 0; default 0.05.
	Penalty float64 `json:"penalty,omitempty"`
	// Horizon is how long an unpredictable pod's request (an overdue
	// pod's incompressible peak) is reserved from now. Default 24h.
	Horizon metav1.Duration `json:"horizon,omitempty"`
	// MinObservations is how many succeeded similar pods make a key
	// predictable. Default 2.
	MinObservations int `json:"minObservations,omitempty"`
	// Smoothing is the weight of a new observation, in (0, 1]. Default 0.3.
	Smoothing float64 `json:"smoothing,omitempty"`
	// FeedInterval is how often the usage feed is read. Default 10s.
	FeedInterval metav1.Duration `json:"feedInterval,omitempty"`
	// RecordedFeed, if set, is a JSON Recording replayed as the usage
	// feed (demonstrations, tests). Without it and without a feed given
	// to NewWithFeed nothing is learned: every pod is matched by its
	// requests and no foreign load is measured.
	RecordedFeed string `json:"recordedFeed,omitempty"`
	// MetricsFeed reads usage from the metrics API (metrics.k8s.io,
	// metrics-server) every FeedInterval, which must then be at least
	// MinMetricsInterval: MetricsFeed says what it supplies. Not with
	// RecordedFeed.
	MetricsFeed bool `json:"metricsFeed,omitempty"`
	// MetricsStaleAfter is how old a metrics sample may be when read;
	// older ones are dropped. Default DefaultStaleAfter (1m).
	MetricsStaleAfter metav1.Duration `json:"metricsStaleAfter,omitempty"`
	// HistorySnapshot is a file (on a volume that outlives the process)
	// where the plugin keeps its learned History, written after every
	// feed read that taught it something and read back at start
	// (snapshot.go). Empty: none; a restart forgets what was learned.
	HistorySnapshot string `json:"historySnapshot,omitempty"`
}

// Defaults for Args.
const (
	DefaultSchedulerName = "schedkit-fgm"
	DefaultFeedInterval  = 10 * time.Second
)

// decodeArgs reads and checks the plugin's args, filling defaults.
func decodeArgs(obj runtime.Object) (Args, error) {
	var a Args
	if obj != nil {
		if err := frameworkruntime.DecodeInto(obj, &a); err != nil {
			return a, fmt.Errorf("%s: decoding args: %w", Name, err)
		}
	}
	return a, a.validate()
}

func (a *Args) validate() error {
	bad := func(format string, args ...any) error { return fmt.Errorf(Name+": "+format, args...) }
	in01 := func(x float64) bool { return x >= 0 && x < 1 }
	switch {
	case !in01(a.IdleThreshold):
		return bad("idleThreshold %v outside [0, 1)", a.IdleThreshold)
	case !in01(a.CompressionLimit):
		return bad("compressionLimit %v outside [0, 1)", a.CompressionLimit)
	case !(a.Penalty >= 0) || math.IsInf(a.Penalty, 0):
		return bad("penalty %v is not finite and ≥ 0", a.Penalty)
	case a.Horizon.Duration < 0:
		return bad("horizon %v is negative", a.Horizon.Duration)
	case a.MinObservations < 0 || a.MinObservations > 1<<20:
		return bad("minObservations %d outside [0, 2^20]", a.MinObservations)
	case !(a.Smoothing >= 0 && a.Smoothing <= 1):
		return bad("smoothing %v outside (0, 1]", a.Smoothing)
	case a.FeedInterval.Duration < 0:
		return bad("feedInterval %v is negative", a.FeedInterval.Duration)
	case a.MetricsFeed && a.RecordedFeed != "":
		return bad("metricsFeed and recordedFeed %q: choose one feed", a.RecordedFeed)
	case a.MetricsFeed && a.FeedInterval.Duration != 0 && a.FeedInterval.Duration < MinMetricsInterval:
		return bad("feedInterval %v is shorter than the metrics API's %v resolution", a.FeedInterval.Duration, MinMetricsInterval)
	case a.MetricsStaleAfter.Duration < 0:
		return bad("metricsStaleAfter %v is negative", a.MetricsStaleAfter.Duration)
	}
	if a.MetricsStaleAfter.Duration == 0 {
		a.MetricsStaleAfter.Duration = DefaultStaleAfter
	}
	if a.SchedulerName == "" {
		a.SchedulerName = DefaultSchedulerName
	}
	if a.IdleThreshold == 0 {
		a.IdleThreshold = fgm.DefaultIdleThreshold
	}
	if a.CompressionLimit == 0 {
		a.CompressionLimit = resource.DefaultCompressionLimit
	}
	if a.Penalty == 0 {
		a.Penalty = fgm.DefaultPenalty
	}
	if a.Horizon.Duration == 0 {
		a.Horizon.Duration = fgm.DefaultHorizon
	}
	if a.FeedInterval.Duration == 0 {
		a.FeedInterval.Duration = DefaultFeedInterval
	}
	return nil
}
