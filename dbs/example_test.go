package dbs_test

import (
	"fmt"
	"testing"
	"time"

	"github.com/schedkit/schedkit"
	"github.com/schedkit/schedkit/dbs"
	"github.com/schedkit/schedkit/resource"
)

// A host shows dbs its jobs through dbs.Job: the root schedkit.Job plus
// budget, φ, cost so far and data sizes.
type exJob struct {
	id        schedkit.JobID
	submit    time.Time
	due       time.Time
	phi       float64
	budget    float64
	cost      float64
	maps, red schedkit.PhaseProgress
}

func (j *exJob) ID() schedkit.JobID   { return j.id }
func (j *exJob) Submitted() time.Time { return j.submit }
func (j *exJob) Deadline() time.Time  { return j.due }
func (j *exJob) Phases() int          { return 2 }
func (j *exJob) Progress(p schedkit.Phase) schedkit.PhaseProgress {
	if p == schedkit.PhaseMap {
		return j.maps
	}
	return j.red
}
func (j *exJob) Budget() float64           { return j.budget }
func (j *exJob) Phi() float64              { return j.phi }
func (j *exJob) CostSoFar() float64        { return j.cost }
func (j *exJob) DataSizes() (int64, int64) { return 0, 0 }

type exNode struct {
	id             schedkit.NodeID
	capacity, free resource.Vector
}

func (n *exNode) ID() schedkit.NodeID                      { return n.id }
func (n *exNode) Rack() schedkit.RackID                    { return "r1" }
func (n *exNode) Capacity() resource.Vector                { return n.capacity }
func (n *exNode) Available() resource.Vector               { return n.free }
func (n *exNode) Accelerators() []schedkit.AcceleratorInfo { return nil }

// exCluster lists its nodes; its capacity is theirs summed.
type exCluster struct {
	space *resource.Space
	nodes []*exNode
}

func (c *exCluster) Space() *resource.Space   { return c.space }
func (c *exCluster) Nodes() int               { return len(c.nodes) }
func (c *exCluster) Node(i int) schedkit.Node { return c.nodes[i] }
func (c *exCluster) Capacity() resource.Vector {
	sum := c.space.Zero()
	for _, n := range c.nodes {
		_ = sum.Add(n.capacity)
	}
	return sum
}

// newExCluster returns a cluster of 10 map and 5 reduce slots on three
// nodes, nothing free yet, and its node n1 (4 map, 2 reduce slots), the
// one the examples show.
func newExCluster() (*exCluster, *exNode) {
	space, _ := resource.NewSpace(resource.MapSlot, resource.ReduceSlot)
	c := &exCluster{space: space}
	for i, capacity := range []resource.Vector{{4, 2}, {4, 2}, {2, 1}} {
		c.nodes = append(c.nodes, &exNode{id: schedkit.NodeID(fmt.Sprintf("n%d", i+1)), capacity: capacity, free: space.Zero()})
	}
	return c, c.nodes[0]
}

// Three jobs of 20 maps and 2 reduces, one per queue, with 30 s tasks
// known from earlier runs (Config.DefaultTaskTime), on 10 map and 5
// reduce slots. The queues are priorities (PrioritySharing, no floors);
// each job is estimated at its equal part of the cluster among the jobs
// of its queue and the queues above (model 1's V):
//
//   - urgent (High, alone: 10 map and 5 reduce slots): T̂ = ⌈20/10⌉·30 +
//     ⌈2/5⌉·30 = 90 s of D = 200 s: W = 0.45. Model 2: Sr_max = 200 −
//     1·30 = 170 s, nm = ⌈600/170⌉ = 4, nr = ⌈60/(200 − 170)⌉ = 2.
//   - both (Mid, with urgent: 5 and 2.5): T̂ = 4·30 + 1·30 = 150 s of
//     400 s = 0.375; Ĉ = 0.03 × 660 slot-s = 19.8 of B = 40: 0.495;
//     W = 0.435. Deadline view: Sr_max = 400 − 30 = 370, nm =
//     ⌈600/370⌉ = 2, nr = ⌈60/30⌉ = 2; the budget view (1333 slot-s on
//     one slot) needs less.
//   - thrifty (Low, with both others: 3.33 and 1.67): Ĉ = 0.02 × 660 =
//     13.2 of 25: W = 0.528; the budget view's window 25/0.02 = 1250 s
//     gives Sr_max = 1250 − 2·30, nm = ⌈600/1190⌉ = 1, nr = ⌈60/60⌉ = 1.
//
// A heartbeat serves High first, its job's minimum first: urgent's 4
// maps take the node's 4 free map slots.
func Example() {
	cluster, node := newExCluster()
	sched, err := dbs.New(dbs.Config{Cluster: cluster, DefaultTaskTime: 30 * time.Second})
	if err != nil {
		panic(err)
	}
	t0 := time.Date(2014, 5, 1, 9, 0, 0, 0, time.UTC)
	mk := func(id string, phi float64, deadline time.Duration, budget float64) *exJob {
		return &exJob{id: schedkit.JobID(id), submit: t0, due: t0.Add(deadline), phi: phi, budget: budget,
			maps: schedkit.PhaseProgress{Total: 20, Ready: 20}, red: schedkit.PhaseProgress{Total: 2}}
	}
	jobs := []*exJob{
		mk("urgent", 1, 200*time.Second, 0),   // deadline only
		mk("both", 0.5, 400*time.Second, 40),  // deadline and budget
		mk("thrifty", 0, 900*time.Second, 25), // budget only
	}
	for _, j := range jobs {
		if err := sched.Submit(t0, j); err != nil {
			panic(err)
		}
	}
	for _, j := range jobs {
		st, _ := sched.Status(j.id)
		fmt.Printf("%-7s %-4s W %.3f  min map %d reduce %d\n", j.id, st.Queue, st.Weight, st.Min.Map, st.Min.Reduce)
	}

	// A node reports 4 free map slots and 1 free reduce slot.
	node.free = resource.Vector{4, 1}
	decisions, _ := sched.Heartbeat(t0, node, nil)
	for _, d := range decisions {
		fmt.Println(d)
	}
	// Output:
	// urgent  high W 0.450  min map 4 reduce 2
	// both    mid  W 0.435  min map 2 reduce 2
	// thrifty low  W 0.528  min map 1 reduce 1
	// assign urgent map×4 on n1 (high, below minimum)
}

// Model 3: every Δ (500 ms) Tick compares each job's held slots with its
// model-2 minimum. A job short of slots and at or above its queue's
// average weight is marked; still short at the next update, it is
// promoted one queue up if its budget covers what is left at the higher
// price. The host then charges it the new price.
func Example_weightUpdate() {
	cluster, node := newExCluster()
	sched, _ := dbs.New(dbs.Config{Cluster: cluster, DefaultTaskTime: 30 * time.Second})
	t0 := time.Date(2014, 5, 1, 9, 0, 0, 0, time.UTC)
	job := &exJob{id: "both", submit: t0, due: t0.Add(400 * time.Second), phi: 0.5, budget: 40,
		maps: schedkit.PhaseProgress{Total: 20, Ready: 20}, red: schedkit.PhaseProgress{Total: 2}}
	_ = sched.Submit(t0, job)

	// The job got one map slot (it needs 2) and the host started it.
	node.free = resource.Vector{1, 0}
	ds, _ := sched.Heartbeat(t0, node, nil)
	fmt.Println(ds[0])
	job.maps.Ready, job.maps.Running = 19, 1
	_ = sched.Update("both")

	for _, at := range []time.Duration{500 * time.Millisecond, time.Second} {
		job.cost = 0.03 * at.Seconds() // one slot at Mid's price so far
		moves, _ := sched.Tick(t0.Add(at), nil)
		st, _ := sched.Status("both")
		fmt.Printf("%v: queue %s, held %v, min map %d, %d moves\n", at, st.Queue, st.Held, st.Min.Map, len(moves))
		for _, m := range moves {
			fmt.Printf("%v at %.2f per slot-second (cost left %.2f ≤ budget left %.2f)\n", m, m.Price, m.Figures.CostAtTo, m.Figures.BudgetLeft)
		}
	}
	// Output:
	// assign both map×1 on n1 (mid, below minimum)
	// 500ms: queue mid, held [1 0], min map 2, 0 moves
	// 1s: queue high, held [1 0], min map 2, 1 moves
	// promote both mid→high (held 1 needed 2, W 0.54 avg 0.36) at 0.05 per slot-second (cost left 32.95 ≤ budget left 39.97)
}

// The package Example's three jobs (one per queue, 20 maps each, nothing
// running): the order in which heartbeats at t0 would hand out their map
// slots, for a host that places one task at a time. High first, then
// Mid, then Low; in each queue its jobs' minimums first (below
// minimum).
func ExampleScheduler_Queue() {
	cluster, _ := newExCluster()
	sched, _ := dbs.New(dbs.Config{Cluster: cluster, DefaultTaskTime: 30 * time.Second})
	t0 := time.Date(2014, 5, 1, 9, 0, 0, 0, time.UTC)
	for _, j := range []*exJob{
		{id: "urgent", phi: 1, due: t0.Add(200 * time.Second)},
		{id: "both", phi: 0.5, due: t0.Add(400 * time.Second), budget: 40},
		{id: "thrifty", phi: 0, due: t0.Add(900 * time.Second), budget: 25},
	} {
		j.submit = t0
		j.maps, j.red = schedkit.PhaseProgress{Total: 20, Ready: 20}, schedkit.PhaseProgress{Total: 2}
		_ = sched.Submit(t0, j)
	}
	picks, _ := sched.Queue(t0, nil)
	for _, p := range picks {
		fmt.Printf("%s %s×%d (%s, below minimum %v)\n", p.Job, p.Phase, p.Count, p.Queue, p.BelowMinimum)
	}
	fmt.Println(len(picks), "picks")
	// Output:
	// urgent map×4 (high, below minimum true)
	// urgent map×16 (high, below minimum false)
	// both map×2 (mid, below minimum true)
	// both map×18 (mid, below minimum false)
	// thrifty map×1 (low, below minimum true)
	// thrifty map×19 (low, below minimum false)
	// 6 picks
}

// The examples' host passes the self-checks a host runs in its tests.
func TestExampleHostChecks(t *testing.T) {
	cluster, _ := newExCluster()
	if err := schedkit.CheckCluster(cluster); err != nil {
		t.Fatal(err)
	}
}
