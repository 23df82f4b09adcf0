package finegrained

import (
	"context"
	"errors"
	"fmt"
	"math"
	"sync"
	"time"

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	corelisters "k8s.io/client-go/listers/core/v1"
	"k8s.io/klog/v2"
	fwk "k8s.io/kube-scheduler/framework"
	frameworkruntime "k8s.io/kubernetes/pkg/scheduler/framework/runtime"
	"k8s.io/utils/clock"

	"github.com/schedkit/schedkit"
	"github.com/schedkit/schedkit/estimate"
	"github.com/schedkit/schedkit/fgm"
	"github.com/schedkit/schedkit/internal/kube/heldpods"
	"github.com/schedkit/schedkit/internal/kube/podtask"
	"github.com/schedkit/schedkit/resource"
)

// Name is the plugin's name in the registry and in profiles.
const Name = "FineGrained"

const stateKey fwk.StateKey = Name

// Plugin is the FineGrained PreFilter, Filter, Score and Reserve plugin.
type Plugin struct {
	args   Args
	clock  clock.PassiveClock
	feed   UsageFeed
	fitter *fgm.Fitter
	pods   corelisters.PodLister // for pruning plans of pods gone; nil in unit tests
	// holds reports pods PreFilter refuses and re-activates the pods
	// attempted but not reserved after every feed read (nil in unit tests).
	holds *heldpods.Tracker
	// counts counts the servers Filter and Score build and share
	// (cycleservers.go).
	counts serverCounts

	mu        sync.Mutex
	history   *estimate.History
	estimator fgm.Estimator // fgm.HistoryEstimator over history
	plans     map[types.UID]*plan
	usage     *nodeUsage                      // the node samples in force (usage.go)
	unusable  map[schedkit.SimilarityKey]bool // keys whose prediction fits no node, logged
	finBuf    []TaskUsage
	nodeBuf   []NodeUsage
	// snapVersion is the History's Version at its last snapshot (or
	// restore): an unchanged History is not written again.
	snapVersion uint64
}

var (
	_ fwk.PreFilterPlugin = (*Plugin)(nil)
	_ fwk.FilterPlugin    = (*Plugin)(nil)
	_ fwk.ScorePlugin     = (*Plugin)(nil)
	_ fwk.ReservePlugin   = (*Plugin)(nil)
)

// plan is what one pod of ours holds on its node: its predicted stages
// from start (nil: unpredictable, its request over the horizon).
type plan struct {
	ns, name  string
	node      string
	start     time.Time
	stages    []estimate.Stage
	requested resource.Vector
	peak      resource.Vector
	// fresh plans were reserved by this plugin at feed generation gen:
	// until a node sample newer than that, their first stage counts as
	// placed since the sample (fgm's measured idle).
	fresh bool
	gen   uint64
}

// New is the plugin factory, on the real clock, with the feed its args
// name (RecordedFeed) or none.
func New(ctx context.Context, obj runtime.Object, h fwk.Handle) (fwk.Plugin, error) {
	return NewWithFeed(nil, clock.RealClock{})(ctx, obj, h)
}

// NewWithFeed returns a plugin factory reading usage from feed (nil: the
// args' RecordedFeed, or none) and time from c.
func NewWithFeed(feed UsageFeed, c clock.PassiveClock) frameworkruntime.PluginFactory {
	return func(ctx context.Context, obj runtime.Object, h fwk.Handle) (fwk.Plugin, error) {
		args, err := decodeArgs(obj)
		if err != nil {
			return nil, err
		}
		if feed == nil && args.RecordedFeed != "" {
			if feed, err = LoadRecordedFeed(args.RecordedFeed); err != nil {
				return nil, err
			}
		}
		if feed == nil && args.MetricsFeed {
			if feed, err = newMetricsFeed(ctx, args, h, c); err != nil {
				return nil, err
			}
		}
		pl, err := newPlugin(args, feed, c)
		if err != nil {
			return nil, err
		}
		if h != nil && h.SharedInformerFactory() != nil {
			pl.pods = h.SharedInformerFactory().Core().V1().Pods().Lister()
		}
		pl.holds = heldpods.New(ctx, Name, h)
		pl.restoreHistory(klog.FromContext(ctx))
		pl.Poll(ctx)
		go func() {
			// Every FeedInterval from now on (the first read was above).
			tick := time.NewTicker(args.FeedInterval.Duration)
			defer tick.Stop()
			for {
				select {
				case <-ctx.Done():
					return
				case <-tick.C:
					pl.Poll(ctx)
					pl.SaveHistory(ctx)
					// New samples, and stages that ended: retry refused pods.
					pl.holds.Reactivate(ctx)
				}
			}
		}()
		return pl, nil
	}
}

func newPlugin(args Args, feed UsageFeed, c clock.PassiveClock) (*Plugin, error) {
	registerMetrics()
	if feed == nil {
		feed = noFeed{}
	}
	fitter, err := fgm.NewFitter(fgm.FitConfig{Space: podtask.Space(), IdleThreshold: args.IdleThreshold,
		CompressionLimit: args.CompressionLimit, Penalty: args.Penalty, Horizon: args.Horizon.Duration,
		NoCompression: args.NoCompression})
	if err != nil {
		return nil, fmt.Errorf("%s: %w", Name, err) // unreachable: args are validated
	}
	hist, err := estimate.NewHistory(estimate.HistoryConfig{Space: podtask.Space(),
		MinObservations: args.MinObservations, Smoothing: args.Smoothing})
	if err != nil {
		return nil, fmt.Errorf("%s: %w", Name, err)
	}
	return &Plugin{args: args, clock: c, feed: feed, fitter: fitter, history: hist,
		estimator: fgm.HistoryEstimator{History: hist}, plans: map[types.UID]*plan{},
		usage: newNodeUsage(args.MetricsStaleAfter.Duration), unusable: map[schedkit.SimilarityKey]bool{}}, nil
}

// Name returns Name.
func (pl *Plugin) Name() string { return Name }

// Footprint counts what the plugin keeps, each bounded by the cluster's
// pods and nodes at the time (and the History by its similarity keys):
// the plans of pods placed, the node samples in force, the pods it holds
// for retry, the keys whose prediction fits no node.
type Footprint struct {
	Plans, Samples, Held, Unusable int
}

// Footprint returns the plugin's footprint.
func (pl *Plugin) Footprint() Footprint {
	pl.mu.Lock()
	defer pl.mu.Unlock()
	return Footprint{Plans: len(pl.plans), Samples: pl.usage.len(), Held: pl.holds.Len(), Unusable: len(pl.unusable)}
}

// Poll reads the feed once: succeeded pods' usage teaches the History,
// node samples replace the previous ones (stale ones expire: usage.go),
// and plans of pods that are gone or finished are dropped. It runs every
// FeedInterval.
func (pl *Plugin) Poll(ctx context.Context) {
	logger := klog.FromContext(ctx)
	fin, err := pl.feed.Finished(pl.finBuf[:0])
	countRead(sourceFinished, err)
	if err != nil {
		logger.Error(err, "Reading finished pods' usage", "plugin", Name)
	}
	nodes, nodesErr := pl.feed.Nodes(pl.nodeBuf[:0])
	countRead(sourceNodes, nodesErr)
	if nodesErr != nil {
		logger.Error(nodesErr, "Reading node usage; the samples in force expire after metricsStaleAfter", "plugin", Name,
			"metricsStaleAfter", pl.args.MetricsStaleAfter.Duration)
	}
	now := pl.clock.Now()
	pl.mu.Lock()
	defer pl.mu.Unlock()
	pl.finBuf, pl.nodeBuf = fin[:0], nodes[:0]
	for _, u := range fin {
		if !u.Succeeded {
			continue
		}
		if _, err := pl.history.Observe(u.Key, u.Samples); err != nil {
			Learned.WithLabelValues("refused").Inc()
			logger.V(4).Info("Usage not learned", "plugin", Name, "pod", u.Pod, "err", err)
		} else {
			Learned.WithLabelValues("learned").Inc()
		}
	}
	HistoryKeys.Set(float64(pl.history.Len()))
	pl.usage.read(logger, now, nodes, nodesErr == nil)
	FeedStaleness.Set(pl.usage.staleness(now).Seconds())
	if pl.pods != nil {
		for uid, p := range pl.plans {
			pod, err := pl.pods.Pods(p.ns).Get(p.name)
			if err != nil || pod.UID != uid || pod.Status.Phase == v1.PodSucceeded || pod.Status.Phase == v1.PodFailed {
				delete(pl.plans, uid)
			}
		}
	}
}

// detail returns a podtask error's text without its package prefix.
func detail(err error) string {
	var e *podtask.Error
	if errors.As(err, &e) {
		return e.Detail()
	}
	return err.Error()
}

// cycle is the plugin's state for one scheduling cycle of a pod.
type cycle struct {
	now       time.Time
	uid       types.UID
	stages    []estimate.Stage // owned copy; nil: unpredictable
	requested resource.Vector
	obs       int
	servers   *cycleServers // the nodes' servers, built once per cycle
}

// Clone returns c: it is not modified after PreFilter (its servers are
// keyed by NodeInfo generation, so a clone's what-ifs may share them).
func (c *cycle) Clone() fwk.StateData { return c }

// PreFilter translates the pod and asks the History for its stage
// profile. A pod whose annotations are malformed is
// UnschedulableAndUnresolvable, with the annotation named.
func (pl *Plugin) PreFilter(ctx context.Context, state fwk.CycleState, p *v1.Pod, nodes []fwk.NodeInfo) (*fwk.PreFilterResult, *fwk.Status) {
	if p == nil {
		return nil, fwk.NewStatus(fwk.UnschedulableAndUnresolvable, Name+": nil pod")
	}
	t, err := podtask.FromPod(p)
	if err != nil {
		st := fwk.NewStatus(fwk.UnschedulableAndUnresolvable, Name+": "+detail(err))
		// kube-scheduler sets the failed cycle's PodScheduled=False
		// condition itself.
		heldpods.CountHeld(Name, heldpods.ReasonInvalid)
		pl.holds.Refuse(ctx, p, st.Message())
		return nil, st
	}
	// Retried every FeedInterval until Reserve releases it.
	pl.holds.Retry(p)
	c := &cycle{now: pl.clock.Now(), uid: p.UID, requested: t.Requested(),
		servers: newCycleServers(len(nodes))}
	pl.mu.Lock()
	c.stages, c.obs = pl.predict(t)
	if c.stages != nil {
		if k, need := exceeds(c.stages, maxCapacity(nodes)); k >= 0 {
			pl.unusablePrediction(ctx, p, t.Similarity(), k, need)
			c.stages, c.obs = nil, 0
		} else {
			delete(pl.unusable, t.Similarity())
			observeRatio(c.stages, c.requested)
		}
	}
	pl.mu.Unlock()
	state.Write(stateKey, c)
	return nil, nil
}

// maxCapacity is the largest allocatable of each kind among nodes (nil
// when none can be read).
func maxCapacity(nodes []fwk.NodeInfo) resource.Vector {
	var most resource.Vector
	for _, ni := range nodes {
		if ni == nil {
			continue
		}
		c, err := podtask.Capacity(ni.Node())
		if err != nil {
			continue
		}
		if most == nil {
			most = podtask.Space().Zero()
		}
		for k, x := range c {
			most[k] = max(most[k], x)
		}
	}
	return most
}

// exceeds returns the first kind in which a stage of stages demands more
// than capacity (beyond rounding), and that demand; -1 if none (or
// capacity is nil: nothing to compare with).
func exceeds(stages []estimate.Stage, capacity resource.Vector) (int, float64) {
	if capacity == nil {
		return -1, 0
	}
	for _, st := range stages {
		for k, x := range st.Demand {
			if n := capacity[k]; x > n+1e-9*n {
				return k, x
			}
		}
	}
	return -1, 0
}

// unusablePrediction logs, once per key until its prediction fits a
// node again, that a pod's prediction demands more of kind k than any
// node has, so it is matched by its requests (as fgm's Schedule does:
// Decision reason EstimateFitsNoServer): one glitched sample must not
// keep a key's pods pending for ever, and the pod's completion teaches
// the History. pl.mu must be held.
func (pl *Plugin) unusablePrediction(ctx context.Context, p *v1.Pod, key schedkit.SimilarityKey, k int, need float64) {
	if pl.unusable[key] {
		return
	}
	pl.unusable[key] = true
	klog.FromContext(ctx).Info("Prediction fits no node: pods of its key are matched by their requests until completions correct it",
		"plugin", Name, "pod", klog.KObj(p), "logic", key.Logic, "dataSize", key.DataSize,
		"kind", podtask.Space().Kind(k).Name, "demand", amount(k, need))
}

// predict returns an owned copy of the estimator's stages for t (nil:
// unpredictable). pl.mu must be held (the History is not safe for
// concurrent use, and its Profile is a view).
func (pl *Plugin) predict(t schedkit.Task) ([]estimate.Stage, int) {
	prof, ok := pl.estimator.Predict(t)
	if !ok {
		return nil, 0
	}
	stages := make([]estimate.Stage, len(prof.Stages))
	for i, s := range prof.Stages {
		stages[i] = estimate.Stage{Duration: s.Duration, Demand: s.Demand.Clone()}
	}
	return stages, prof.Observations
}

// PreFilterExtensions returns nil: Filter reads the pods of the
// NodeInfo it is given, so preemption's what-ifs need no callbacks.
func (pl *Plugin) PreFilterExtensions() fwk.PreFilterExtensions { return nil }

func readCycle(state fwk.CycleState) (*cycle, *fwk.Status) {
	d, err := state.Read(stateKey)
	if err != nil {
		return nil, fwk.AsStatus(fmt.Errorf("%s: reading cycle state: %w", Name, err))
	}
	c, ok := d.(*cycle)
	if !ok {
		return nil, fwk.AsStatus(fmt.Errorf("%s: cycle state has type %T", Name, d))
	}
	return c, nil
}

// Filter asks fgm whether the pod's stages (its request, if
// unpredictable) fit the node's free-resource timeline: fgm.Fitter.Fit,
// the tests fgm.Scheduler.Schedule applies to one task on one server.
// A refusal is Unschedulable and names the test, the stage and the kind.
func (pl *Plugin) Filter(_ context.Context, state fwk.CycleState, p *v1.Pod, ni fwk.NodeInfo) *fwk.Status {
	c, st := readCycle(state)
	if st != nil {
		return st
	}
	s := pl.serverOf(c, ni)
	if s.st != nil {
		return s.st
	}
	rates := make([]float64, len(c.stages)*podtask.Space().Len())
	v, err := pl.fitter.Fit(s.srv, c.now, c.stages, c.requested, rates)
	if err != nil {
		return fwk.NewStatus(fwk.UnschedulableAndUnresolvable, Name+": "+err.Error())
	}
	if v.Test == fgm.Passed {
		return nil
	}
	return fwk.NewStatus(fwk.Unschedulable, pl.explain(v, c, s.node))
}

// explain renders a refusal, e.g. "FineGrained: stage 2 of 3 (+10s to
// +25s) needs memory 3Gi, node n1 has 2Gi free".
func (pl *Plugin) explain(v fgm.Verdict, c *cycle, node string) string {
	r := v.Refusal
	kind := podtask.Space().Kind(r.Kind).Name
	switch v.Test {
	case fgm.UsedUp:
		return fmt.Sprintf("%s: node %s is used up: %s free %s, below %s (idleThreshold %v)", Name, node, kind,
			amount(r.Kind, r.Free), amount(r.Kind, r.Demand), pl.args.IdleThreshold)
	case fgm.RequestedQuantity:
		return fmt.Sprintf("%s: unpredictable pod requests %s %s, node %s has %s free at the least over the next %v", Name,
			kind, amount(r.Kind, r.Demand), node, amount(r.Kind, r.Free), pl.args.Horizon.Duration)
	case fgm.MeasuredIdle:
		return fmt.Sprintf("%s: first stage needs %s %s, node %s measures %s idle", Name, kind, amount(r.Kind, r.Demand), node, amount(r.Kind, r.Free))
	}
	var from, to time.Duration
	for i, s := range c.stages {
		if i == r.Stage {
			to = from + s.Duration
			break
		}
		from += s.Duration
	}
	msg := fmt.Sprintf("%s: stage %d of %d (+%v to +%v) needs %s %s, node %s has %s free at +%v", Name,
		r.Stage+1, len(c.stages), from, to, kind, amount(r.Kind, r.Demand), node, amount(r.Kind, r.Free), max(r.At, 0))
	if r.Allowance > 0 {
		msg += fmt.Sprintf(" (plus %s by compression)", amount(r.Kind, r.Allowance))
	}
	return msg
}

// amount renders an amount of kind k: cores, or memory in GiB.
func amount(k int, x float64) string {
	if k == podtask.Memory {
		return fmt.Sprintf("%.4gGi", x/(1<<30))
	}
	return fmt.Sprintf("%.4g cores", x)
}

// server describes node ni at now for fgm: capacity (allocatable), free
// timeline (capacity minus foreign load minus the remaining stages of
// our pods there, except self), and the measured usage. The timeline is
// built in free, whose storage is reused.
func (pl *Plugin) server(ni fwk.NodeInfo, now time.Time, self types.UID, free *resource.Timeline) (fgm.Server, string, *fwk.Status) {
	node := ni.Node()
	if node == nil {
		return fgm.Server{}, "", fwk.NewStatus(fwk.UnschedulableAndUnresolvable, Name+": node not found")
	}
	capacity, err := podtask.NodeCapacity(ni)
	if err != nil {
		return fgm.Server{}, node.Name, fwk.NewStatus(fwk.UnschedulableAndUnresolvable, Name+": "+detail(err))
	}
	var buf [16]*plan // most nodes hold few of our pods
	plans := buf[:0]
	pl.mu.Lock()
	for _, pi := range ni.GetPods() {
		if q := pi.GetPod(); pl.holdsPlan(q, self) {
			plans = append(plans, pl.planFor(q, node.Name, capacity, now))
		}
	}
	sample := pl.usage.of(node, now)
	pl.mu.Unlock()

	srv := fgm.Server{Capacity: capacity, Epoch: now} // the timeline's offsets are from now
	var baseBuf [4]float64
	base := append(baseBuf[:0], capacity...)
	if sample != nil {
		srv.Measured = true
		srv.Used = sample.Used
		srv.Placed, base = pl.measured(ni, self, sample, plans, capacity, base)
	}
	if err := free.Reset(base); err != nil {
		return fgm.Server{}, node.Name, fwk.NewStatus(fwk.UnschedulableAndUnresolvable, fmt.Sprintf("%s: node %s: %v", Name, node.Name, err))
	}
	h := pl.fitter.Horizon()
	for _, p := range plans {
		reserve(free, p, now, h)
	}
	srv.Free = free
	return srv, node.Name, nil
}

// holdsPlan says whether pod q, on a node, holds a plan there: it is ours
// and not self.
func (pl *Plugin) holdsPlan(q *v1.Pod, self types.UID) bool {
	return q.UID != self && q.Spec.SchedulerName == pl.args.SchedulerName
}

// measured returns, for a node with a usage sample, the incompressible
// demand placed since the sample (the first stages of our pods reserved
// since, plans) and base less the foreign load: the sample's usage
// minus that of our pods there (ni's pods of our scheduler but self),
// within [0, capacity].
func (pl *Plugin) measured(ni fwk.NodeInfo, self types.UID, sample *nodeSample, plans []*plan, capacity, base resource.Vector) (placed, _ resource.Vector) {
	dims := len(capacity)
	ours := make(map[types.UID]bool, len(plans))
	for _, pi := range ni.GetPods() {
		if q := pi.GetPod(); pl.holdsPlan(q, self) {
			ours[q.UID] = true
		}
	}
	placed = make(resource.Vector, dims)
	mine := make(resource.Vector, dims)
	for _, u := range sample.Pods {
		if ours[u.Pod] {
			_ = mine.Add(u.Used)
		}
	}
	for k := range base {
		base[k] -= max(0, min(capacity[k], sample.Used[k]-mine[k]))
	}
	for _, p := range plans {
		if !p.fresh || p.gen < sample.gen {
			continue
		}
		first := p.requested
		if len(p.stages) > 0 {
			first = p.stages[0].Demand
		}
		for k, d := range first {
			if !podtask.Space().Compressible(k) {
				placed[k] += d
			}
		}
	}
	return placed, base
}

// overdueHeld turns peak, a plan's peak, into what the plan holds once
// it is overdue: its incompressible kinds only (what it still uses of
// the compressible ones is conformity's to see). It returns peak.
func overdueHeld(peak resource.Vector) resource.Vector {
	for k := range peak {
		if podtask.Space().Compressible(k) {
			peak[k] = 0
		}
	}
	return peak
}

// reserve subtracts what p holds from now on from free (offsets from
// now): its remaining stages; its request over [0, h) if unpredictable;
// the peak of its incompressible kinds over [0, h) if overdue (what it
// still uses of the compressible ones is conformity's to see) — as
// fgm's server does for its running tasks.
func reserve(free *resource.Timeline, p *plan, now time.Time, h time.Duration) {
	at := p.start.Sub(now)
	var total time.Duration
	for _, s := range p.stages {
		total += s.Duration
	}
	if p.stages == nil || at+total <= 0 {
		if h <= 0 {
			return
		}
		held := p.peak
		if p.stages != nil {
			held = overdueHeld(p.peak.Clone())
		}
		_ = free.Sub(0, h, held)
		return
	}
	for _, s := range p.stages {
		a, b := at, at+s.Duration
		at = b
		if b <= 0 || s.Duration == 0 {
			continue
		}
		_ = free.Sub(max(a, 0), b, s.Demand)
	}
}

// planFor returns the plan of our pod q on node (of capacity), making
// one for a pod the plugin did not reserve (bound before it started):
// predicted now, from its start time (now if not started, or if its
// start is after now), at its request if the prediction exceeds the
// node's capacity. pl.mu must be held.
func (pl *Plugin) planFor(q *v1.Pod, node string, capacity resource.Vector, now time.Time) *plan {
	if p := pl.plans[q.UID]; p != nil && p.node == node {
		return p
	}
	p := &plan{ns: q.Namespace, name: q.Name, node: node, start: now}
	if q.Status.StartTime != nil && q.Status.StartTime.Time.Before(now) {
		// A start "in the future" (a node's clock ahead) is taken as now:
		// the pod runs, and its stages are held from now, not later.
		p.start = q.Status.StartTime.Time
	}
	if t, err := podtask.FromPod(q); err == nil {
		p.requested = t.Requested()
		p.stages, _ = pl.predict(t)
		if k, _ := exceeds(p.stages, capacity); k >= 0 {
			p.stages = nil // as PreFilter: it runs at its request
		}
	} else {
		p.requested = podtask.Space().Zero() // unreadable requests: nothing to reserve
	}
	p.setPeak()
	pl.plans[q.UID] = p
	return p
}

func (p *plan) setPeak() {
	if p.stages == nil {
		p.peak = p.requested
		return
	}
	p.peak = podtask.Space().Zero()
	estimate.Profile{Stages: p.stages}.Peak(p.peak)
}

// Score is the slack of the match: the least free fraction of any kind
// the node keeps over the pod's predicted life (over the horizon if
// unpredictable) once the pod's stages are reserved, 0–100. Pods go
// where the tightest moment leaves the most room.
func (pl *Plugin) Score(_ context.Context, state fwk.CycleState, p *v1.Pod, ni fwk.NodeInfo) (int64, *fwk.Status) {
	c, st := readCycle(state)
	if st != nil {
		return 0, st
	}
	s := pl.serverOf(c, ni)
	if s.st != nil {
		return 0, s.st
	}
	least := make(resource.Vector, len(s.srv.Capacity))
	leastAfter(s.srv.Free, c.stages, c.requested, pl.fitter.Horizon(), least)
	return ScoreOf(least, s.srv.Capacity), nil
}

// leastAfter sets least to the least free amount of each kind over the
// pod's life on free (offsets from now) once the pod is reserved from
// now: its stages (stages non-nil), else its request over the horizon
// h, as reserve does for a plan starting now. The life is the stages'
// total duration, or h; 1 ns if that is 0. Stages none of which lasts
// make the plan overdue at once, held as reserve holds an overdue plan:
// its incompressible peak over the horizon. free is only read (it is
// shared by the cycle's Filter and Score calls): the least of free minus a stage's demand over the stage is
// the least of free over it minus the demand.
func leastAfter(free *resource.Timeline, stages []estimate.Stage, requested resource.Vector, h time.Duration, least resource.Vector) {
	if stages == nil {
		_ = free.Min(0, max(h, 1), least)
		if h > 0 {
			_ = least.Sub(requested)
		}
		return
	}
	tmp := make(resource.Vector, len(least))
	var at time.Duration
	first := true
	for _, st := range stages {
		if st.Duration == 0 {
			continue
		}
		_ = free.Min(at, at+st.Duration, tmp)
		at += st.Duration
		for k, x := range tmp {
			x -= st.Demand[k]
			if first || x < least[k] {
				least[k] = x
			}
		}
		first = false
	}
	if first { // no stage lasts: overdue at once
		_ = free.Min(0, 1, least)
		if h > 0 {
			peak := podtask.Space().Zero()
			estimate.Profile{Stages: stages}.Peak(peak)
			_ = least.Sub(overdueHeld(peak))
		}
	}
}

// ScoreOf is the score of a node whose least free amounts over the
// pod's life are least: 100 × min over kinds of least/capacity, clamped
// to [0, 1], rounded down (after adding 1e-9, so that a fraction equal
// to k/100 up to rounding scores k).
func ScoreOf(least, capacity resource.Vector) int64 {
	slack := 1.0
	for k, n := range capacity {
		if n > 0 {
			slack = min(slack, max(0, least[k]/n))
		}
	}
	return int64(math.Floor(100*slack + 1e-9))
}

// ScoreExtensions returns nil: scores are already 0–100.
func (pl *Plugin) ScoreExtensions() fwk.ScoreExtensions { return nil }

// Reserve records the pod's plan on the node: its stages from now.
func (pl *Plugin) Reserve(_ context.Context, state fwk.CycleState, p *v1.Pod, node string) *fwk.Status {
	c, st := readCycle(state)
	if st != nil {
		return st
	}
	pl.holds.Release(p.UID)
	pl.mu.Lock()
	defer pl.mu.Unlock()
	pp := &plan{ns: p.Namespace, name: p.Name, node: node, start: c.now, stages: c.stages,
		requested: c.requested, fresh: true, gen: pl.usage.gen}
	pp.setPeak()
	pl.plans[p.UID] = pp
	return nil
}

// Unreserve forgets the pod's plan.
func (pl *Plugin) Unreserve(_ context.Context, _ fwk.CycleState, p *v1.Pod, _ string) {
	pl.mu.Lock()
	defer pl.mu.Unlock()
	delete(pl.plans, p.UID)
}
