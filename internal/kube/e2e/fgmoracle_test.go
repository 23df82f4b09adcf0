package e2e_test

import (
	"testing"
	"time"

	v1 "k8s.io/api/core/v1"

	"github.com/schedkit/schedkit"
	"github.com/schedkit/schedkit/fgm"
	skres "github.com/schedkit/schedkit/resource"
)

// FineGrained's oracle: fgm alone, as the differential test in
// ../integration asks it — a one-node fgm.Scheduler replays the node
// (our pods placed, then the node's metrics sample: SampleNode,
// SampleTask per pod of ours, SampleNode and a Tick, formula (14)'s
// foreign load) and Schedule says whether it allocates the pod. Pods
// carry no similarity annotations here, so every one is unpredictable
// and matched by its requests over the horizon.

type fgmTask struct {
	id  schedkit.TaskID
	req skres.Vector
}

func (t *fgmTask) ID() schedkit.TaskID                { return t.id }
func (t *fgmTask) Job() schedkit.JobID                { return schedkit.JobID("job-" + t.id) }
func (t *fgmTask) Phase() schedkit.Phase              { return 0 }
func (t *fgmTask) Similarity() schedkit.SimilarityKey { return schedkit.SimilarityKey{} }
func (t *fgmTask) Requested() skres.Vector            { return t.req }
func (t *fgmTask) Deadline() time.Time                { return time.Time{} }
func (t *fgmTask) DataLocations() []schedkit.NodeID   { return nil }

type fgmNode struct {
	id  schedkit.NodeID
	cap skres.Vector
}

func (n *fgmNode) ID() schedkit.NodeID                      { return n.id }
func (n *fgmNode) Rack() schedkit.RackID                    { return "default" }
func (n *fgmNode) Capacity() skres.Vector                   { return n.cap }
func (n *fgmNode) Available() skres.Vector                  { return n.cap }
func (n *fgmNode) Accelerators() []schedkit.AcceleratorInfo { return nil }

type fgmCluster struct {
	space *skres.Space
	node  *fgmNode
}

func (c *fgmCluster) Space() *skres.Space    { return c.space }
func (c *fgmCluster) Nodes() int             { return 1 }
func (c *fgmCluster) Node(int) schedkit.Node { return c.node }
func (c *fgmCluster) Capacity() skres.Vector { return c.node.cap }

// fgmVector is a resource list as fgm's CPU (cores) and memory (bytes).
func fgmVector(rl v1.ResourceList) skres.Vector {
	return skres.Vector{float64(rl.Cpu().MilliValue()) / 1000, float64(rl.Memory().Value())}
}

// fgmRequests sums a pod's containers' requests.
func fgmRequests(p *v1.Pod) skres.Vector {
	sum := skres.Vector{0, 0}
	for _, c := range p.Spec.Containers {
		_ = sum.Add(fgmVector(c.Resources.Requests))
	}
	return sum
}

// fgmSample is a node's metrics sample as the stub serves it: the node's
// usage and each of our pods' (summed over its containers).
type fgmSample struct {
	node v1.ResourceList
	pods map[string]v1.ResourceList
}

// fgmAllocates reports whether fgm allocates p on node n where ours (the
// profile's pods bound there, in binding order) run, with the node's
// sample if not nil, under the plugin's shipped args (fgm's defaults)
// changed by abl.
func fgmAllocates(t *testing.T, n *v1.Node, ours []*v1.Pod, sample *fgmSample, p *v1.Pod, abl fgm.Ablations) bool {
	t.Helper()
	space, err := skres.NewSpace(skres.CPU, skres.Memory)
	if err != nil {
		t.Fatal(err)
	}
	node := &fgmNode{id: schedkit.NodeID(n.Name), cap: fgmVector(n.Status.Allocatable)}
	abl.NoPolicyAdjustment = true // the plugin keeps every node fine-grained with compression
	s, err := fgm.New(fgm.Config{Cluster: &fgmCluster{space: space, node: node}, Ablations: abl})
	if err != nil {
		t.Fatal(err)
	}
	now := time.Now()
	place := func(at time.Time, q *v1.Pod) bool {
		if err := s.Submit(at, &fgmTask{id: schedkit.TaskID(q.Name), req: fgmRequests(q)}); err != nil {
			t.Fatalf("oracle: %v", err)
		}
		d, err := s.Schedule(at, node, nil)
		if err != nil {
			t.Fatalf("oracle: %v", err)
		}
		return len(d) == 1
	}
	for _, q := range ours {
		if !place(now.Add(-2*time.Second), q) {
			t.Fatalf("oracle: fgm does not allocate %s, which runs on %s", q.Name, n.Name)
		}
	}
	if sample != nil {
		used := fgmVector(sample.node)
		if err := s.SampleNode(now.Add(-time.Second), node.id, used); err != nil {
			t.Fatal(err)
		}
		for _, q := range ours {
			if u, ok := sample.pods[q.Name]; ok {
				if err := s.SampleTask(now, schedkit.TaskID(q.Name), fgmVector(u)); err != nil {
					t.Fatal(err)
				}
			}
		}
		if err := s.SampleNode(now, node.id, used); err != nil {
			t.Fatal(err)
		}
		if _, err := s.Tick(now, nil); err != nil {
			t.Fatal(err)
		}
	}
	return place(now, p)
}
