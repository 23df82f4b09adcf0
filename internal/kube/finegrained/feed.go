package finegrained

import (
	"encoding/json"
	"fmt"
	"os"
	"slices"
	"time"

	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/schedkit/schedkit"
	"github.com/schedkit/schedkit/estimate"
	"github.com/schedkit/schedkit/internal/kube/podtask"
	"github.com/schedkit/schedkit/resource"
)

// UsageFeed delivers observed usage to the plugin: what finished pods
// used over their life (the History learns from the succeeded ones) and
// what each node uses now (its total, and the part of each running pod,
// from which the plugin takes the foreign load). Production feeds read
// the kubelet's summary API or a metrics pipeline; tests replay a
// recording (RecordedFeed). Vectors are in podtask.Space (CPU in cores,
// memory in bytes). The plugin calls the feed from one goroutine.
type UsageFeed interface {
	// Finished appends to dst the records of pods that ended since the
	// previous call, each pod once.
	Finished(dst []TaskUsage) ([]TaskUsage, error)
	// Nodes appends to dst the latest usage sample of every node the
	// feed measures.
	Nodes(dst []NodeUsage) ([]NodeUsage, error)
}

// TaskUsage is what one finished pod used.
type TaskUsage struct {
	Pod types.UID
	// Key is the pod's similarity key (podtask.Similarity), under which
	// the History learns.
	Key schedkit.SimilarityKey
	// Succeeded: only succeeded pods are learned from (as fgm's Release).
	Succeeded bool
	// Samples are consecutive and cover the pod's run: mean usage over
	// each period, and the compression rate it ran under (0 if unknown).
	Samples []estimate.UsageSample
}

// NodeUsage is one node's measured usage.
type NodeUsage struct {
	Node string
	At   time.Time // when it was measured
	// Used is the node's total usage: every pod and anything else.
	Used resource.Vector
	// Pods is the usage of the pods running there, within Used; the
	// plugin subtracts that of its own pods to find the foreign load.
	Pods []PodUsage
}

// PodUsage is one running pod's measured usage.
type PodUsage struct {
	Pod  types.UID
	Used resource.Vector
}

// noFeed is the feed of a plugin configured without one: nothing is
// learned (every pod is matched by its requests) and no foreign load is
// measured.
type noFeed struct{}

func (noFeed) Finished(dst []TaskUsage) ([]TaskUsage, error) { return dst, nil }
func (noFeed) Nodes(dst []NodeUsage) ([]NodeUsage, error)    { return dst, nil }

// Recording is the file format of a RecordedFeed (JSON). Amounts are
// Kubernetes resource lists ({"cpu": "1500m", "memory": "2Gi"}).
type Recording struct {
	Finished []RecordedTask `json:"finished"`
	Nodes    []RecordedNode `json:"nodes"`
}

// RecordedTask is one finished pod of a Recording.
type RecordedTask struct {
	Pod       types.UID        `json:"pod"`
	Logic     string           `json:"logic"`
	DataSize  int64            `json:"dataSize,omitempty"`
	Succeeded bool             `json:"succeeded"`
	Samples   []RecordedSample `json:"samples"`
}

// RecordedSample is one usage sample of a RecordedTask.
type RecordedSample struct {
	Duration    metav1.Duration `json:"duration"`
	Used        v1.ResourceList `json:"used"`
	Compression float64         `json:"compression,omitempty"`
}

// RecordedNode is one node sample of a Recording.
type RecordedNode struct {
	Node string                     `json:"node"`
	At   metav1.Time                `json:"at"`
	Used v1.ResourceList            `json:"used"`
	Pods map[string]v1.ResourceList `json:"pods,omitempty"` // by pod UID
}

// RecordedFeed replays a Recording: Finished returns every finished
// record on its first call and none after; Nodes returns the node
// samples on every call.
type RecordedFeed struct {
	finished []TaskUsage
	nodes    []NodeUsage
	done     bool
}

// NewRecordedFeed checks and converts a Recording.
func NewRecordedFeed(r Recording) (*RecordedFeed, error) {
	f := &RecordedFeed{}
	for i, t := range r.Finished {
		obj := fmt.Sprintf("recorded task %d (%s)", i, t.Pod)
		u := TaskUsage{Pod: t.Pod, Key: schedkit.SimilarityKey{Logic: t.Logic, DataSize: t.DataSize}, Succeeded: t.Succeeded}
		for _, s := range t.Samples {
			v, err := podtask.Vector(obj, s.Used)
			if err != nil {
				return nil, fmt.Errorf("%s: recording: %w", Name, err)
			}
			u.Samples = append(u.Samples, estimate.UsageSample{Duration: s.Duration.Duration, Used: v, Compression: s.Compression})
		}
		f.finished = append(f.finished, u)
	}
	for i, n := range r.Nodes {
		obj := fmt.Sprintf("recorded node sample %d (%s)", i, n.Node)
		v, err := podtask.Vector(obj, n.Used)
		if err != nil {
			return nil, fmt.Errorf("%s: recording: %w", Name, err)
		}
		u := NodeUsage{Node: n.Node, At: n.At.Time, Used: v}
		uids := make([]string, 0, len(n.Pods))
		for uid := range n.Pods {
			uids = append(uids, uid)
		}
		slices.Sort(uids) // a deterministic order
		for _, uid := range uids {
			pv, err := podtask.Vector(obj+" pod "+uid, n.Pods[uid])
			if err != nil {
				return nil, fmt.Errorf("%s: recording: %w", Name, err)
			}
			u.Pods = append(u.Pods, PodUsage{Pod: types.UID(uid), Used: pv})
		}
		f.nodes = append(f.nodes, u)
	}
	return f, nil
}

// LoadRecordedFeed reads a Recording from a JSON file.
func LoadRecordedFeed(path string) (*RecordedFeed, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("%s: recorded feed: %w", Name, err)
	}
	var r Recording
	if err := json.Unmarshal(b, &r); err != nil {
		return nil, fmt.Errorf("%s: recorded feed %s: %w", Name, path, err)
	}
	return NewRecordedFeed(r)
}

// Finished returns every finished record once.
func (f *RecordedFeed) Finished(dst []TaskUsage) ([]TaskUsage, error) {
	if f.done {
		return dst, nil
	}
	f.done = true
	return append(dst, f.finished...), nil
}

// Nodes returns the recorded node samples.
func (f *RecordedFeed) Nodes(dst []NodeUsage) ([]NodeUsage, error) {
	return append(dst, f.nodes...), nil
}
