package deadlinebudget

import (
	"errors"
	"fmt"
	"math"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	frameworkruntime "k8s.io/kubernetes/pkg/scheduler/framework/runtime"

	"github.com/schedkit/schedkit/dbs"
)

// Args are the plugin's arguments (pluginConfig args in a
// KubeSchedulerConfiguration).
type Args struct {
	// TickInterval is Δ, dbs's weight-update period (model 3), and how
	// often the plugin runs dbs.Scheduler.Tick. Default 500ms (the
	// paper's).
	TickInterval metav1.Duration `json:"tickInterval,omitempty"`
	// Queues configures the low, mid and high queue in that order: each
	// one's share of the slots and its price per slot-second. Empty:
	// dbs.DefaultQueues. dbs reads the queues as priorities
	// (dbs.PrioritySharing): a share is the queue's floor, the slots its
	// jobs get before a higher queue's (none by default). Shares in
	// [0, 1] adding up to at most 1, prices positive and not decreasing
	// from low to high.
	Queues []QueueArgs `json:"queues,omitempty"`
	// TransferRate is 1/Td in bytes per second, model 2's shuffle rate
	// for schedkit.io/data-sizes. Zero: transfer time not modelled.
	TransferRate float64 `json:"transferRate,omitempty"`
	// DefaultTaskTime is the task time dbs assumes for a job none of
	// whose pods has finished. Zero: none (such a job has weight 0 and a
	// minimum of one map slot until a pod finishes).
	DefaultTaskTime metav1.Duration `json:"defaultTaskTime,omitempty"`
	// WriteQueueAnnotation writes schedkit.io/queue (high, mid, low) on
	// a Job (on every unfinished pod of a pod group) when dbs moves it.
	// Needs "patch" on jobs and pods (rbac.yaml). Off by default: moves
	// are then only events.
	WriteQueueAnnotation bool `json:"writeQueueAnnotation,omitempty"`
	// PersistState keeps what dbs decided that the cluster does not
	// (each job's queue after model 3's moves, marks, last move, price
	// history) in the annotation schedkit.io/dbs-state on the Job (on
	// every unfinished pod of a pod group), and reads it back when a
	// restarted plugin first sees the job. Needs "patch" on jobs and
	// pods (rbac.yaml). Off: a restart starts every job afresh in its
	// φ's queue, its time before the restart charged at that price.
	PersistState bool `json:"persistState,omitempty"`
}

// QueueArgs configures one queue.
type QueueArgs struct {
	Share float64 `json:"share"`
	Price float64 `json:"price"`
}

// DefaultTickInterval is the default TickInterval: dbs.DefaultInterval.
const DefaultTickInterval = dbs.DefaultInterval

// decodeArgs reads and checks the plugin's args, filling defaults.
func decodeArgs(obj runtime.Object) (Args, error) {
	var a Args
	if err := frameworkruntime.DecodeInto(obj, &a); err != nil {
		return a, fmt.Errorf("%s: decoding args: %w", Name, err)
	}
	switch {
	case a.TickInterval.Duration < 0:
		return a, fmt.Errorf("%s: tickInterval %v is negative", Name, a.TickInterval.Duration)
	case a.TickInterval.Duration == 0:
		a.TickInterval.Duration = DefaultTickInterval
	}
	if a.DefaultTaskTime.Duration < 0 {
		return a, fmt.Errorf("%s: defaultTaskTime %v is negative", Name, a.DefaultTaskTime.Duration)
	}
	if math.IsNaN(a.TransferRate) || math.IsInf(a.TransferRate, 0) || a.TransferRate < 0 {
		return a, fmt.Errorf("%s: transferRate %v is not a finite, non-negative number", Name, a.TransferRate)
	}
	if n := len(a.Queues); n != 0 && n != 3 {
		return a, fmt.Errorf("%s: queues has %d entries; give none or three (low, mid, high)", Name, n)
	}
	// dbs checks shares and prices; New turns its reason into ours.
	return a, nil
}

// dbsConfig returns the dbs configuration of a over cluster, or an
// error with the reason dbs gives.
func (a Args) dbsConfig(cluster *liveCluster) (dbs.Config, error) {
	cfg := dbs.Config{
		Cluster: cluster, Interval: a.TickInterval.Duration,
		TransferRate: a.TransferRate, DefaultTaskTime: a.DefaultTaskTime.Duration,
	}
	for i, q := range a.Queues {
		cfg.Queues[i] = dbs.QueueConfig{Share: q.Share, Price: q.Price}
	}
	if _, err := dbs.New(cfg); err != nil {
		var de *dbs.Error
		if errors.As(err, &de) {
			return cfg, fmt.Errorf("%s: %s", Name, de.Reason)
		}
		return cfg, fmt.Errorf("%s: %v", Name, err)
	}
	return cfg, nil
}

// tickPeriod is how often the ticker runs (TickInterval).
func (a Args) tickPeriod() time.Duration { return a.TickInterval.Duration }
