package finegrained

import (
	"cmp"
	"context"
	"fmt"
	"slices"
	"time"

	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/informers"
	corelisters "k8s.io/client-go/listers/core/v1"
	"k8s.io/klog/v2"
	fwk "k8s.io/kube-scheduler/framework"
	metricsv1beta1 "k8s.io/metrics/pkg/apis/metrics/v1beta1"
	metricsclient "k8s.io/metrics/pkg/client/clientset/versioned"
	"k8s.io/utils/clock"

	"github.com/schedkit/schedkit/estimate"
	"github.com/schedkit/schedkit/internal/kube/podtask"
	"github.com/schedkit/schedkit/resource"
)

// MetricsFeed is a UsageFeed over the Kubernetes metrics API
// (metrics.k8s.io v1beta1, served by metrics-server): NodeMetrics for
// each node's total usage, PodMetrics for each running pod's. Chosen in
// the plugin's args with metricsFeed: true; it is read every
// FeedInterval (at least MinMetricsInterval).
//
// The metrics API has only the latest sample of running pods, per
// container and by namespace and name; the feed supplies the rest:
//
//   - a pod's containers are summed to the pod, and the pod is matched to
//     the scheduler's pod of that namespace and name (its UID);
//   - every read appends each running pod's sample to that pod's series
//     when it is newer than the last one kept (metrics-server refreshes
//     every 15 s by default, so a 10 s read sees some samples twice and
//     keeps them once); a sample lasts from the previous one's timestamp
//     to its own (the first: its window), so the series is consecutive;
//   - when a pod it sampled is no longer running (succeeded, failed or
//     gone), its series is handed to Finished once, succeeded only when
//     the succeeded-pod lister has it; the last seconds of its run after
//     the last sample are not seen.
//
// Staleness: a node or pod sample whose timestamp is older than
// StaleAfter at the read is dropped, and the first stale NodeMetrics of
// a node is logged (the plugin keeps a node's previous sample until it
// expires; a stale pod sample adds nothing to the pod's series). A
// timestamp after now (metrics-server's clock ahead) is taken as now.
// Samples whose usage is negative or has no CPU or memory are dropped
// the same way.
type MetricsFeed struct {
	ctx       context.Context
	client    metricsclient.Interface
	pods      corelisters.PodLister // non-terminal pods (the scheduler's)
	succeeded corelisters.PodLister // succeeded pods; nil: none learned
	clock     clock.PassiveClock
	// StaleAfter is how old a sample may be when read. Default
	// DefaultStaleAfter.
	StaleAfter time.Duration
	// SchedulerName selects the pods whose series are kept (the
	// plugin's own, which it learns from).
	SchedulerName string

	series map[types.UID]*series
	stale  map[string]bool // nodes whose stale NodeMetrics was logged
}

// series is what the feed kept of one running pod.
type series struct {
	ns, name string
	pod      *v1.Pod
	last     time.Time // timestamp of the last sample kept
	samples  []estimate.UsageSample
}

// Defaults of the metrics feed.
const (
	// MinMetricsInterval is the shortest FeedInterval with metricsFeed:
	// metrics-server's own resolution is 15 s by default, and its
	// minimum 10 s.
	MinMetricsInterval = 10 * time.Second
	// DefaultStaleAfter is how old a metrics sample may be: two of
	// metrics-server's default 15 s resolutions, plus its 30 s window.
	DefaultStaleAfter = time.Minute
)

// NewMetricsFeed returns a feed reading the metrics API through client,
// matching pods with the listers (pods: the scheduler's non-terminal
// pods; succeeded: succeeded pods, or nil), on clock c. API calls use
// ctx.
func NewMetricsFeed(ctx context.Context, client metricsclient.Interface, pods, succeeded corelisters.PodLister, c clock.PassiveClock) *MetricsFeed {
	return &MetricsFeed{ctx: ctx, client: client, pods: pods, succeeded: succeeded, clock: c,
		StaleAfter: DefaultStaleAfter, SchedulerName: DefaultSchedulerName, series: map[types.UID]*series{}, stale: map[string]bool{}}
}

// fresh reports whether a sample taken at ts is fresh at now.
func (f *MetricsFeed) fresh(ts, now time.Time) bool {
	return !ts.IsZero() && now.Sub(ts) <= f.StaleAfter
}

// stamp is a sample's timestamp as the feed takes it: never after now.
func stamp(ts, now time.Time) time.Time {
	if ts.After(now) {
		return now
	}
	return ts
}

// Nodes reads NodeMetrics and PodMetrics once: it appends each node's
// fresh sample (its running pods' shares within it) to dst and records
// each running pod's sample in its series.
func (f *MetricsFeed) Nodes(dst []NodeUsage) ([]NodeUsage, error) {
	ctx, cancel := context.WithTimeout(f.ctx, 30*time.Second)
	defer cancel()
	now := f.clock.Now()
	nm, err := f.client.MetricsV1beta1().NodeMetricses().List(ctx, metav1.ListOptions{})
	if err != nil {
		return dst, fmt.Errorf("%s: listing NodeMetrics: %w", Name, err)
	}
	pm, err := f.client.MetricsV1beta1().PodMetricses(metav1.NamespaceAll).List(ctx, metav1.ListOptions{})
	if err != nil {
		return dst, fmt.Errorf("%s: listing PodMetrics: %w", Name, err)
	}
	start := len(dst)
	byNode := map[string][]PodUsage{}
	for i := range pm.Items {
		m := &pm.Items[i]
		pod, err := f.pods.Pods(m.Namespace).Get(m.Name)
		if err != nil || pod.Spec.NodeName == "" || pod.Status.Phase != v1.PodRunning {
			continue // not (or no longer) a running pod the scheduler knows
		}
		used, ok := podUsage(m)
		ts := stamp(m.Timestamp.Time, now)
		if !ok || !f.fresh(ts, now) {
			continue
		}
		byNode[pod.Spec.NodeName] = append(byNode[pod.Spec.NodeName], PodUsage{Pod: pod.UID, Used: used})
		if pod.Spec.SchedulerName == f.SchedulerName {
			f.record(pod, ts, m.Window.Duration, used)
		}
	}
	seen := make(map[string]bool, len(nm.Items))
	for i := range nm.Items {
		m := &nm.Items[i]
		seen[m.Name] = true
		used, err := podtask.Vector("node "+m.Name, m.Usage)
		ts := stamp(m.Timestamp.Time, now)
		if err != nil || !complete(m.Usage) {
			continue
		}
		if !f.fresh(ts, now) {
			if !f.stale[m.Name] {
				f.stale[m.Name] = true
				klog.FromContext(f.ctx).Info("NodeMetrics stale: dropped until a fresh one", "plugin", Name, "node", m.Name,
					"timestamp", m.Timestamp.Time, "metricsStaleAfter", f.StaleAfter)
			}
			continue
		}
		delete(f.stale, m.Name)
		pods := byNode[m.Name]
		slices.SortFunc(pods, func(a, b PodUsage) int { return cmp.Compare(a.Pod, b.Pod) })
		dst = append(dst, NodeUsage{Node: m.Name, At: ts, Used: used, Pods: pods})
	}
	for name := range f.stale {
		if !seen[name] {
			delete(f.stale, name)
		}
	}
	slices.SortFunc(dst[start:], func(a, b NodeUsage) int { return cmp.Compare(a.Node, b.Node) })
	return dst, nil
}

// complete reports whether a usage list has both CPU and memory.
func complete(rl v1.ResourceList) bool {
	_, c := rl[v1.ResourceCPU]
	_, m := rl[v1.ResourceMemory]
	return c && m
}

// podUsage sums a pod's containers; false if a container's usage is
// negative or lacks CPU or memory, or there are none.
func podUsage(m *metricsv1beta1.PodMetrics) (resource.Vector, bool) {
	if len(m.Containers) == 0 {
		return nil, false
	}
	sum := make(resource.Vector, podtask.Space().Len())
	for _, c := range m.Containers {
		v, err := podtask.Vector("pod "+m.Namespace+"/"+m.Name, c.Usage)
		if err != nil || !complete(c.Usage) {
			return nil, false
		}
		for k := range sum {
			sum[k] += v[k]
		}
	}
	return sum, true
}

// record appends a pod's sample (taken at ts over window) to its series
// if it is newer than the last one kept.
func (f *MetricsFeed) record(pod *v1.Pod, ts time.Time, window time.Duration, used resource.Vector) {
	s := f.series[pod.UID]
	if s == nil {
		s = &series{ns: pod.Namespace, name: pod.Name}
		f.series[pod.UID] = s
	}
	s.pod = pod
	if !ts.After(s.last) {
		return // the sample kept at an earlier read
	}
	d := window
	if !s.last.IsZero() {
		d = ts.Sub(s.last)
	}
	if d <= 0 {
		return
	}
	s.samples = append(s.samples, estimate.UsageSample{Duration: d, Used: used})
	s.last = ts
}

// Finished hands over, once, the series of every pod sampled before that
// is no longer running: Succeeded when the succeeded-pod lister has the
// pod (same UID), so the History learns from it.
func (f *MetricsFeed) Finished(dst []TaskUsage) ([]TaskUsage, error) {
	uids := make([]types.UID, 0, len(f.series))
	for uid := range f.series {
		uids = append(uids, uid)
	}
	slices.Sort(uids) // a fixed order
	for _, uid := range uids {
		s := f.series[uid]
		if cur, err := f.pods.Pods(s.ns).Get(s.name); err == nil && cur.UID == uid && cur.Status.Phase == v1.PodRunning {
			continue // still running
		}
		delete(f.series, uid)
		if len(s.samples) == 0 {
			continue
		}
		key, err := podtask.Similarity(s.pod)
		if err != nil || key.IsZero() {
			continue // no similarity key: nothing to learn under
		}
		succeeded := false
		if f.succeeded != nil {
			if done, err := f.succeeded.Pods(s.ns).Get(s.name); err == nil && done.UID == uid && done.Status.Phase == v1.PodSucceeded {
				succeeded = true
			}
		}
		dst = append(dst, TaskUsage{Pod: uid, Key: key, Succeeded: succeeded, Samples: s.samples})
	}
	return dst, nil
}

// newMetricsFeed builds the metrics feed of args (metricsFeed: true) on
// the framework handle h: a metrics client on the scheduler's own client
// configuration, the scheduler's pod lister, and an informer of
// succeeded pods of its own (the scheduler's drops terminal pods),
// started and synced here.
func newMetricsFeed(ctx context.Context, args Args, h fwk.Handle, c clock.PassiveClock) (*MetricsFeed, error) {
	if h == nil || h.KubeConfig() == nil || h.SharedInformerFactory() == nil || h.ClientSet() == nil {
		return nil, fmt.Errorf("%s: metricsFeed needs the scheduler's client and informers", Name)
	}
	mc, err := metricsclient.NewForConfig(h.KubeConfig())
	if err != nil {
		return nil, fmt.Errorf("%s: metrics client: %w", Name, err)
	}
	// Only the profile's succeeded pods: their series are the only ones
	// kept, and other schedulers' finished pods need no memory here.
	sel := "status.phase=" + string(v1.PodSucceeded) + ",spec.schedulerName=" + args.SchedulerName
	done := informers.NewSharedInformerFactoryWithOptions(h.ClientSet(), 0,
		informers.WithTweakListOptions(func(o *metav1.ListOptions) { o.FieldSelector = sel }))
	succeeded := done.Core().V1().Pods().Lister()
	done.Start(ctx.Done())
	for typ, ok := range done.WaitForCacheSync(ctx.Done()) {
		if !ok {
			return nil, fmt.Errorf("%s: syncing the informer of succeeded %v", Name, typ)
		}
	}
	f := NewMetricsFeed(ctx, mc, h.SharedInformerFactory().Core().V1().Pods().Lister(), succeeded, c)
	f.StaleAfter = args.MetricsStaleAfter.Duration
	f.SchedulerName = args.SchedulerName
	return f, nil
}
