package lss_test

import (
	"fmt"
	"time"

	"github.com/schedkit/schedkit"
	"github.com/schedkit/schedkit/lss"
	"github.com/schedkit/schedkit/resource"
)

// A host keeps its own job and node state and shows it to lss through the
// root interfaces. These three types are all a host needs.

type exJob struct {
	id            schedkit.JobID
	submit, due   time.Time
	maps, reduces schedkit.PhaseProgress
}

func (j *exJob) ID() schedkit.JobID   { return j.id }
func (j *exJob) Submitted() time.Time { return j.submit }
func (j *exJob) Deadline() time.Time  { return j.due }
func (j *exJob) Phases() int          { return 2 }
func (j *exJob) Progress(p schedkit.Phase) schedkit.PhaseProgress {
	if p == schedkit.PhaseMap {
		return j.maps
	}
	return j.reduces
}

type exNode struct {
	id   schedkit.NodeID
	free resource.Vector // map slots, reduce slots
}

func (n *exNode) ID() schedkit.NodeID                      { return n.id }
func (n *exNode) Rack() schedkit.RackID                    { return "r1" }
func (n *exNode) Capacity() resource.Vector                { return resource.Vector{2, 1} }
func (n *exNode) Available() resource.Vector               { return n.free }
func (n *exNode) Accelerators() []schedkit.AcceleratorInfo { return nil }

type exCluster struct {
	space *resource.Space
	nodes []*exNode
}

func (c *exCluster) Space() *resource.Space    { return c.space }
func (c *exCluster) Nodes() int                { return len(c.nodes) }
func (c *exCluster) Node(i int) schedkit.Node  { return c.nodes[i] }
func (c *exCluster) Capacity() resource.Vector { return resource.Vector{4, 2} } // 2 nodes × (2 map + 1 reduce)

var (
	_ schedkit.Job     = (*exJob)(nil)
	_ schedkit.Node    = (*exNode)(nil)
	_ schedkit.Cluster = (*exCluster)(nil)
)

// Three jobs on a cluster of 4 map and 2 reduce slots, 30 s after they
// were submitted. "index" and "backup" have finished maps (Tavg 20 s and
// 30 s); "report" has none yet, so its spare time is just its deadline
// minus now (formula (5)).
func Example() {
	space, _ := resource.NewSpace(resource.MapSlot, resource.ReduceSlot)
	n1 := &exNode{id: "n1", free: resource.Vector{2, 1}}
	cluster := &exCluster{space: space, nodes: []*exNode{n1, {id: "n2", free: resource.Vector{2, 1}}}}
	sched, err := lss.New(lss.Config{Cluster: cluster})
	if err != nil {
		panic(err)
	}

	t0 := time.Date(2013, 10, 1, 9, 0, 0, 0, time.UTC)
	sec := time.Second
	jobs := []*exJob{
		{id: "report", submit: t0, due: t0.Add(300 * sec),
			maps: schedkit.PhaseProgress{Total: 6, Ready: 6}, reduces: schedkit.PhaseProgress{Total: 1}},
		// remaining (⌈6/4⌉ + ⌈1/2⌉)·20s = 60s; spare 120 − 30 − 60 = 30s
		{id: "index", submit: t0, due: t0.Add(120 * sec),
			maps:    schedkit.PhaseProgress{Total: 10, Finished: 4, Ready: 6, FinishedDurationSum: 80 * sec},
			reduces: schedkit.PhaseProgress{Total: 1}},
		// remaining (⌈6/4⌉ + ⌈1/2⌉)·30s = 90s; spare 100 − 30 − 90 = −20s,
		// but −20s + Tavg 30s ≥ 0: not killed yet
		{id: "backup", submit: t0, due: t0.Add(100 * sec),
			maps:    schedkit.PhaseProgress{Total: 8, Finished: 2, Ready: 6, FinishedDurationSum: 60 * sec},
			reduces: schedkit.PhaseProgress{Total: 1}},
	}
	now := t0.Add(30 * sec)
	for _, j := range jobs {
		if err := sched.Submit(now, j); err != nil {
			panic(err)
		}
	}

	order, _ := sched.Order(now, nil)
	for _, st := range order {
		fmt.Printf("%-6s spare %v\n", st.Job, st.Figures.Spare.Time)
	}

	// Node n1 reports 2 free map slots and 1 free reduce slot.
	decisions, _ := sched.Heartbeat(now, n1, nil)
	for _, d := range decisions {
		fmt.Println(d)
	}

	// 15 s later the host has started those tasks and told lss with
	// Update. backup's spare time is 100 − 45 − 90 + 15/4 = −31.25s (its
	// running map's 15s count over 4 map slots): even with the Tavg
	// tolerance it cannot make its deadline, and it is killed early.
	jobs[0].maps.Ready, jobs[0].maps.Running = 5, 1
	jobs[2].maps.Ready, jobs[2].maps.Running, jobs[2].maps.RunningStartSum = 5, 1, 30*sec
	for _, j := range []*exJob{jobs[0], jobs[2]} {
		_ = sched.Update(j.id)
	}
	n1.free = resource.Vector{0, 1}
	decisions, _ = sched.Heartbeat(now.Add(15*sec), n1, decisions[:0])
	for _, d := range decisions {
		fmt.Println(d)
	}
	fmt.Println("queued:", sched.Len())
	// Output:
	// backup spare -20s
	// index  spare 30s
	// report spare 4m30s
	// assign report map×1 on n1 (pass 1)
	// assign backup map×1 on n1 (pass 2)
	// kill backup: spare+tavg<0 (spare -31.25s, tavg 30s)
	// queued: 2
}
