package integration_test

import (
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/schedkit/schedkit"
	"github.com/schedkit/schedkit/estimate"
	"github.com/schedkit/schedkit/fgm"
	skres "github.com/schedkit/schedkit/resource"
)

// The oracle: fgm itself on the scenario, with no Kubernetes code in
// between. Each node is a one-node fgm.Scheduler that replays the
// node's history — our running pods submitted and scheduled at their
// start times, in order; the node's usage sample (SampleNode, every
// running pod of ours SampleTask, SampleNode) and a Tick, which sets the
// foreign load; then the pods bound to it so far in this run — and is
// then asked, with Schedule, whether it allocates the pod. Predictions
// come from an estimate.History that learned the same recording.

type fgmTask struct {
	id  schedkit.TaskID
	key schedkit.SimilarityKey
	req skres.Vector
}

func (t *fgmTask) ID() schedkit.TaskID                { return t.id }
func (t *fgmTask) Job() schedkit.JobID                { return schedkit.JobID("job-" + t.id) }
func (t *fgmTask) Phase() schedkit.Phase              { return 0 }
func (t *fgmTask) Similarity() schedkit.SimilarityKey { return t.key }
func (t *fgmTask) Requested() skres.Vector            { return t.req }
func (t *fgmTask) Deadline() time.Time                { return time.Time{} }
func (t *fgmTask) DataLocations() []schedkit.NodeID   { return nil }

type fgmONode struct {
	id  schedkit.NodeID
	cap skres.Vector
}

func (n *fgmONode) ID() schedkit.NodeID                      { return n.id }
func (n *fgmONode) Rack() schedkit.RackID                    { return "r" }
func (n *fgmONode) Capacity() skres.Vector                   { return n.cap }
func (n *fgmONode) Available() skres.Vector                  { return n.cap }
func (n *fgmONode) Accelerators() []schedkit.AcceleratorInfo { return nil }

type fgmCluster struct {
	space *skres.Space
	node  *fgmONode
}

func (c *fgmCluster) Space() *skres.Space    { return c.space }
func (c *fgmCluster) Nodes() int             { return 1 }
func (c *fgmCluster) Node(int) schedkit.Node { return c.node }
func (c *fgmCluster) Capacity() skres.Vector { return c.node.cap }

type fgmOracle struct {
	t     *testing.T
	sc    *fgmScenario
	space *skres.Space
	hist  *estimate.History
	bound map[string][]fgmPod // node → pods bound in this run, in order
}

func newFGMOracle(t *testing.T, sc *fgmScenario) *fgmOracle {
	t.Helper()
	space, err := skres.NewSpace(skres.CPU, skres.Memory)
	if err != nil {
		t.Fatal(err)
	}
	h, err := estimate.NewHistory(estimate.HistoryConfig{Space: space})
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range sc.history.Finished {
		if !r.Succeeded {
			continue
		}
		var samples []estimate.UsageSample
		for _, s := range r.Samples {
			cpu, mem := s.Used["cpu"], s.Used["memory"]
			samples = append(samples, estimate.UsageSample{Duration: s.Duration.Duration,
				Used: skres.Vector{float64(cpu.MilliValue()) / 1000, float64(mem.Value())}, Compression: s.Compression})
		}
		_, _ = h.Observe(schedkit.SimilarityKey{Logic: r.Logic, DataSize: r.DataSize}, samples)
	}
	return &fgmOracle{t: t, sc: sc, space: space, hist: h, bound: map[string][]fgmPod{}}
}

func (o *fgmOracle) task(p fgmPod) *fgmTask {
	return &fgmTask{id: schedkit.TaskID(p.name), key: fgmKey(p),
		req: skres.Vector{float64(p.cpuMilli) / 1000, float64(p.memMi << 20)}}
}

// fgmKey is a pod's similarity key as the annotations' documentation
// states it: the logic annotation, else "<ns>/pod-template-hash=<hash>".
func fgmKey(p fgmPod) schedkit.SimilarityKey {
	k := schedkit.SimilarityKey{Logic: p.logic, DataSize: p.size}
	if k.Logic == "" && p.hash != "" {
		k.Logic = ns + "/pod-template-hash=" + p.hash
	}
	return k
}

// exact rounds a scenario amount as the recording does.
func fgmCPU(c float64) float64 { q := fgmCPUQ(c); return float64(q.MilliValue()) / 1000 }
func fgmMem(g float64) float64 { q := fgmMemQ(g); return float64(q.Value()) }

// nodeSched replays node n: its history, then (withRun) the pods bound
// to it in this run. It fails if fgm does not allocate a pod the
// scenario says runs there.
func (o *fgmOracle) nodeSched(n fgmNode, running []fgmPod, withRun bool) (*fgm.Scheduler, *fgmONode, error) {
	node := &fgmONode{id: schedkit.NodeID(n.name), cap: skres.Vector{fgmCPU(n.cores), fgmMem(n.memGi)}}
	s, err := fgm.New(fgm.Config{Cluster: &fgmCluster{space: o.space, node: node},
		Estimator: fgm.HistoryEstimator{History: o.hist}, Ablations: fgm.Ablations{NoPolicyAdjustment: true}})
	if err != nil {
		return nil, nil, err
	}
	var ours []fgmPod
	for _, p := range running {
		if p.node == n.name && !p.foreign {
			ours = append(ours, p)
		}
	}
	slices.SortStableFunc(ours, func(a, b fgmPod) int { return int((b.ago - a.ago) / time.Millisecond) })
	place := func(at time.Time, p fgmPod) error {
		if err := s.Submit(at, o.task(p)); err != nil {
			return err
		}
		d, err := s.Schedule(at, node, nil)
		if err != nil {
			return err
		}
		if len(d) != 1 {
			return fmt.Errorf("fgm does not allocate %s on %s at %v", p.name, n.name, at)
		}
		return nil
	}
	for _, p := range ours {
		if err := place(now.Add(-p.ago), p); err != nil {
			return nil, nil, err
		}
	}
	if n.sample != nil {
		used := skres.Vector{fgmCPU(n.sample[0]), fgmMem(n.sample[1])}
		if err := s.SampleNode(now.Add(-time.Second), node.id, used); err != nil {
			return nil, nil, err
		}
		slices.SortFunc(ours, func(a, b fgmPod) int { return fgmCompare(string(a.uid()), string(b.uid())) })
		for _, p := range ours {
			if err := s.SampleTask(now, schedkit.TaskID(p.name), skres.Vector{fgmCPU(p.used[0]), fgmMem(p.used[1])}); err != nil {
				return nil, nil, err
			}
		}
		if err := s.SampleNode(now, node.id, used); err != nil {
			return nil, nil, err
		}
		if _, err := s.Tick(now, nil); err != nil {
			return nil, nil, err
		}
	}
	if withRun {
		for _, p := range o.bound[n.name] {
			if err := place(now, p); err != nil {
				return nil, nil, fmt.Errorf("replaying this run: %w", err)
			}
		}
	}
	return s, node, nil
}

func fgmCompare(a, b string) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

// decide returns the nodes (in scenario order, cordoned ones left out)
// where fgm allocates p now, the score of each — 100 × the least free
// fraction of any kind over p's predicted life once it is placed
// (Scheduler.MinFree), rounded down — and whether the allocation
// compresses CPU.
func (o *fgmOracle) decide(p fgmPod) (fits []string, scores map[string]int64, compressed map[string]bool) {
	scores, compressed = map[string]int64{}, map[string]bool{}
	span := fgm.DefaultHorizon
	if prof, ok := o.hist.Predict(fgmKey(p)); ok {
		span = max(prof.Duration(), 1)
	}
	for _, n := range o.sc.nodes {
		if n.cordoned {
			continue
		}
		s, node, err := o.nodeSched(n, o.sc.running, true)
		if err != nil {
			o.t.Fatalf("oracle on %s: %v", n.name, err)
		}
		if err := s.Submit(now, o.task(p)); err != nil {
			o.t.Fatal(err)
		}
		d, err := s.Schedule(now, node, nil)
		if err != nil {
			o.t.Fatal(err)
		}
		if len(d) == 0 {
			continue
		}
		fits = append(fits, n.name)
		least := o.space.Zero()
		if err := s.MinFree(now, node.id, span, least); err != nil {
			o.t.Fatal(err)
		}
		slack := 1.0
		for k, c := range node.cap {
			if c > 0 {
				slack = min(slack, max(0, least[k]/c))
			}
		}
		scores[n.name] = int64(slack*100 + 1e-9)
		for _, st := range d[0].Plan {
			if !st.Compression.IsZero() {
				compressed[n.name] = true
			}
		}
	}
	return fits, scores, compressed
}

func (o *fgmOracle) bind(p fgmPod, node string) { o.bound[node] = append(o.bound[node], p) }

// checkRequests requires that the requests of every pod running on a
// node and of every pending pod fit its allocatable: then kube-scheduler's
// NodeResourcesFit, which the profile keeps, can never refuse a pod, and
// every refusal is FineGrained's.
func (o *fgmOracle) checkRequests(map[string]string) {
	for _, n := range o.sc.nodes {
		var cpu, mem int64
		for _, p := range o.sc.running {
			if p.node == n.name {
				cpu, mem = cpu+p.cpuMilli, mem+p.memMi
			}
		}
		for _, p := range o.sc.pending {
			cpu, mem = cpu+p.cpuMilli, mem+p.memMi
		}
		if float64(cpu) > n.cores*1000 || float64(mem) > n.memGi*1024 {
			o.t.Errorf("scenario: requests (%dm, %dMi) exceed %s's allocatable: NodeResourcesFit could decide", cpu, mem, n.name)
		}
	}
}
