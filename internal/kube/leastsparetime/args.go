package leastsparetime

import (
	"fmt"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	frameworkruntime "k8s.io/kubernetes/pkg/scheduler/framework/runtime"
)

// Args are the plugin's arguments (pluginConfig args in a
// KubeSchedulerConfiguration).
type Args struct {
	// DeleteHopelessJobs deletes (propagation Background) a Job that lss
	// would kill — its deadline passed, or Spare + Tavg < 0 — and, for a
	// pod group, its unfinished pods; a deletion that fails is tried
	// again every HopelessCheckInterval. Off by default: hopeless jobs
	// then only get a Warning event and their pods are held back.
	DeleteHopelessJobs bool `json:"deleteHopelessJobs,omitempty"`
	// HopelessCheckInterval is how often hopeless jobs are looked for
	// (the kill rule runs on every lss heartbeat; here on a timer).
	// Default 1s.
	HopelessCheckInterval metav1.Duration `json:"hopelessCheckInterval,omitempty"`
	// OrderResolution is how long one evaluation of the lss order is
	// reused when nothing changes: spare times are evaluated at now
	// truncated to it. Default 1s.
	OrderResolution metav1.Duration `json:"orderResolution,omitempty"`
}

// Defaults for Args.
const (
	DefaultHopelessCheckInterval = time.Second
	DefaultOrderResolution       = time.Second
)

// decodeArgs reads and checks the plugin's args, filling defaults.
func decodeArgs(obj runtime.Object) (Args, error) {
	var a Args
	if err := frameworkruntime.DecodeInto(obj, &a); err != nil {
		return a, fmt.Errorf("%s: decoding args: %w", Name, err)
	}
	if a.HopelessCheckInterval.Duration < 0 {
		return a, fmt.Errorf("%s: hopelessCheckInterval %v is negative", Name, a.HopelessCheckInterval.Duration)
	}
	if a.OrderResolution.Duration < 0 {
		return a, fmt.Errorf("%s: orderResolution %v is negative", Name, a.OrderResolution.Duration)
	}
	if a.HopelessCheckInterval.Duration == 0 {
		a.HopelessCheckInterval.Duration = DefaultHopelessCheckInterval
	}
	if a.OrderResolution.Duration == 0 {
		a.OrderResolution.Duration = DefaultOrderResolution
	}
	return a, nil
}
