package integration_test

import (
	"cmp"
	"slices"
	"testing"
	"time"

	"github.com/schedkit/schedkit"
	"github.com/schedkit/schedkit/lss"
	"github.com/schedkit/schedkit/resource"
)

// The oracle: schedkit's lss run directly on the scenario, the way a
// slot-based host (Hadoop's JobTracker) would run it — every node
// heartbeats once at now with its free slots — with no Kubernetes code
// and no podjob translation in between.

type oJob struct {
	id       schedkit.JobID
	sub, dl  time.Time
	progress []schedkit.PhaseProgress
}

func (j *oJob) ID() schedkit.JobID                               { return j.id }
func (j *oJob) Submitted() time.Time                             { return j.sub }
func (j *oJob) Deadline() time.Time                              { return j.dl }
func (j *oJob) Phases() int                                      { return len(j.progress) }
func (j *oJob) Progress(p schedkit.Phase) schedkit.PhaseProgress { return j.progress[p] }

type oNode struct {
	id         schedkit.NodeID
	cap, avail resource.Vector
}

func (n *oNode) ID() schedkit.NodeID                      { return n.id }
func (n *oNode) Rack() schedkit.RackID                    { return "default" }
func (n *oNode) Capacity() resource.Vector                { return n.cap }
func (n *oNode) Available() resource.Vector               { return n.avail }
func (n *oNode) Accelerators() []schedkit.AcceleratorInfo { return nil }

type oCluster struct {
	space *resource.Space
	nodes []*oNode
	cap   resource.Vector
}

func (c *oCluster) Space() *resource.Space    { return c.space }
func (c *oCluster) Nodes() int                { return len(c.nodes) }
func (c *oCluster) Node(i int) schedkit.Node  { return c.nodes[i] }
func (c *oCluster) Capacity() resource.Vector { return c.cap }

// expectation is what lss decides for a scenario.
type expectation struct {
	// assigned are the (job name, phase) of the tasks the heartbeats
	// start, per slot kind, in order.
	assigned [2][]assignment
	killed   []string // job names, in the order lss reports them
	// queue is the hand-out order with unlimited slots: the assignments
	// of one heartbeat of a node with a million free slots of each kind.
	queue []assignment
	// refused are jobs lss refuses at Submit (e.g. deadline before submission).
	refused []string
}

type assignment struct {
	job   string
	phase int
}

// jobID is the ID the translation gives (documented in podjob): it breaks
// ties in lss's order, so the oracle must use the same.
func jobID(js jobSpec) schedkit.JobID {
	kind := "Job"
	if js.group {
		kind = "PodGroup"
	}
	return schedkit.JobID(kind + "/" + ns + "/" + js.name)
}

func oracle(t *testing.T, sc *scenario) expectation {
	t.Helper()
	space, err := resource.NewSpace(resource.MapSlot, resource.ReduceSlot)
	if err != nil {
		t.Fatal(err)
	}
	cl := &oCluster{space: space, cap: space.Zero()}
	byName := map[string]*oNode{}
	for _, n := range sc.nodes {
		if n.cordoned {
			continue
		}
		nd := &oNode{id: schedkit.NodeID(n.name), cap: resource.Vector{float64(n.maps), float64(n.reduces)}}
		nd.avail = nd.cap.Clone()
		cl.nodes = append(cl.nodes, nd)
		byName[n.name] = nd
		cl.cap[0] += nd.cap[0]
		cl.cap[1] += nd.cap[1]
	}
	sched, err := lss.New(lss.Config{Cluster: cl})
	if err != nil {
		t.Fatal(err)
	}
	// The unlimited node is a member (lss refuses heartbeats of unknown
	// nodes) but the cluster's capacity, formula (3)'s slot counts, stays
	// that of the real nodes.
	big := &oNode{id: "unlimited", cap: resource.Vector{1e6, 1e6}, avail: resource.Vector{1e6, 1e6}}
	bigCl := &oCluster{space: space, nodes: append(slices.Clone(cl.nodes), big), cap: cl.cap}
	unlimited, err := lss.New(lss.Config{Cluster: bigCl})
	if err != nil {
		t.Fatal(err)
	}
	var exp expectation
	names := map[schedkit.JobID]string{}
	specs := slices.Clone(sc.jobs)
	// Submit in submission order, as a host does.
	slices.SortStableFunc(specs, func(a, b jobSpec) int { return cmp.Compare(b.submitted, a.submitted) })
	for _, js := range specs {
		if js.bad != nil {
			continue // bad input: never reaches lss
		}
		var pr [2]schedkit.PhaseProgress
		for _, d := range js.done {
			p := &pr[b2i(d.reduce)]
			p.Total++
			if d.dur > 0 {
				p.Finished++
				p.FinishedDurationSum += d.dur
			} else {
				p.Running++
				p.RunningStartSum += d.start
				byName[d.node].avail[b2i(d.reduce)]--
			}
		}
		pr[0].Total += js.maps
		pr[0].Ready += js.maps
		pr[1].Total += js.reduces
		pr[1].Ready += js.reduces - js.gated
		if js.declared != nil {
			pr[0].Total, pr[1].Total = js.declared[0], js.declared[1]
		}
		j := &oJob{id: jobID(js), sub: now.Add(-js.submitted), progress: pr[:1]}
		j.dl = j.sub.Add(js.deadline)
		if pr[1].Total > 0 {
			j.progress = pr[:]
		}
		names[j.id] = js.name
		if err := sched.Submit(j.sub, j); err != nil {
			exp.refused = append(exp.refused, js.name)
		}
		_ = unlimited.Submit(j.sub, j) // the same outcome
	}
	decs, err := unlimited.Heartbeat(now, big, nil)
	if err != nil {
		t.Fatalf("oracle heartbeat with unlimited slots: %v", err)
	}
	for _, d := range decs {
		if d.Action == lss.Assign {
			for range d.Count {
				exp.queue = append(exp.queue, assignment{names[d.Job], int(d.Phase)})
			}
		}
	}
	for _, n := range cl.nodes {
		decs, err := sched.Heartbeat(now, n, nil)
		if err != nil {
			t.Fatalf("oracle heartbeat of %s: %v", n.id, err)
		}
		for _, d := range decs {
			switch d.Action {
			case lss.Kill:
				exp.killed = append(exp.killed, names[d.Job])
			case lss.Assign:
				for range d.Count {
					exp.assigned[d.Phase] = append(exp.assigned[d.Phase], assignment{names[d.Job], int(d.Phase)})
				}
			}
		}
	}
	return exp
}

func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}
