package fgm_test

import (
	"fmt"
	"time"

	"github.com/schedkit/schedkit"
	"github.com/schedkit/schedkit/estimate"
	"github.com/schedkit/schedkit/fgm"
	"github.com/schedkit/schedkit/resource"
	"github.com/schedkit/schedkit/schedkittest"
)

// A 4-core, 8 GiB server; two similar tasks have run before, each 10 s
// of reading (1 core, 2 GiB) then 10 s of computing (3 cores, 6 GiB).
// The host learns them into a History, then submits two more similar
// tasks, a at once and b 10 s later. A request-based scheduler would
// reserve 3 cores and 6 GiB for a until it ends and make b wait; fgm
// starts b while a computes, because b reads while a computes and
// computes once a is gone: their peaks do not overlap. The plans reserve
// the predicted stages; each step allocates at least 90% of the 3
// requested cores (the allocation floor), so a host that caps CPU at the
// allocation cannot starve a task whose prediction is wrong.
func Example() {
	space, _ := resource.NewSpace(resource.CPU, resource.Memory)
	const gib = 1 << 30
	c := schedkittest.NewCluster(space)
	n1 := c.AddNode("n1", "r1", resource.Vector{4, 8 * gib})
	h, _ := estimate.NewHistory(estimate.HistoryConfig{Space: space, Bins: 20})
	key := schedkit.SimilarityKey{Logic: "wordcount/map", DataSize: 128 << 20}
	var run []estimate.UsageSample
	for i := range 20 {
		u := resource.Vector{1, 2 * gib}
		if i >= 10 {
			u = resource.Vector{3, 6 * gib}
		}
		run = append(run, estimate.UsageSample{Duration: time.Second, Used: u})
	}
	h.Observe(key, run)
	h.Observe(key, run)

	s, _ := fgm.New(fgm.Config{Cluster: c, History: h})
	now := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	_ = s.Submit(now, &schedkittest.Task{Key: "a", JobKey: "j1", Similar: key, Request: resource.Vector{3, 6 * gib}})
	ds, _ := s.Schedule(now, n1, nil)
	later := now.Add(10 * time.Second)
	_ = s.Submit(later, &schedkittest.Task{Key: "b", JobKey: "j2", Similar: key, Request: resource.Vector{3, 6 * gib}})
	ds, _ = s.Schedule(later, n1, ds)
	for _, d := range ds {
		fmt.Printf("%s on %s, %s:", d.Task, d.Node, d.Mode)
		for _, p := range d.Plan {
			fmt.Printf(" %v×(%g cores, %g GiB)", p.Duration, p.Reserved[0], p.Reserved[1]/gib)
		}
		fmt.Printf("; CPU allocated %g then %g cores\n", d.Plan[0].Alloc[0], d.Plan[1].Alloc[0])
	}
	// Output:
	// a on n1, fine-grained: 10s×(1 cores, 2 GiB) 10s×(3 cores, 6 GiB); CPU allocated 2.7 then 3 cores
	// b on n1, fine-grained: 10s×(1 cores, 2 GiB) 10s×(3 cores, 6 GiB); CPU allocated 2.7 then 3 cores
}

// Algorithm 2 on one server: 16 cores, 32 GB, 14 cores and 20 GB taken
// for the next 30 s. A task of two 10 s stages — 3 cores and 8 GB, then 1
// core and 12 GB — fits stage by stage: its first stage is 1 core short,
// and the compression bound (6)/(7) lets CPU dip by up to 10% of 16 cores
// ((3 − 0.05·14)/17 = 0.135, clamped to 0.1); the server then holds 17
// cores' demand on 16, a compression of 1/17.
func ExampleMatcher_Match() {
	space, _ := resource.NewSpace(resource.CPU, resource.Memory)
	capacity := resource.Vector{16, 32}
	free, _ := resource.NewTimeline(capacity)
	_ = free.Sub(0, 30*time.Second, resource.Vector{14, 20})
	m, _ := fgm.NewMatcher(space, 0.05, resource.DefaultCompressionLimit)
	stages := []estimate.Stage{
		{Duration: 10 * time.Second, Demand: resource.Vector{3, 8}},
		{Duration: 10 * time.Second, Demand: resource.Vector{1, 12}},
	}
	rates := make([]float64, len(stages)*space.Len())
	ok, _ := m.Match(fgm.Server{Free: free, Capacity: capacity}, stages, time.Time{}, true, rates)
	fmt.Printf("fits: %v, cpu compression %.4f then %.4f\n", ok, rates[0], rates[2])
	ok, _ = m.Match(fgm.Server{Free: free, Capacity: capacity}, stages, time.Time{}, false, rates)
	fmt.Println("fits without compression:", ok)
	// Output:
	// fits: true, cpu compression 0.0588 then 0.0000
	// fits without compression: false
}

// Formula (16) for a server's memory (32 GB): 30 s where the tasks used
// 31 GB against 29 GB predicted, then 30 s as predicted, the server
// nearly full throughout: ((31 − 29)/32)² · 30/60 ≈ 0.00195, below the
// default Th_fg of 0.0025.
func ExampleConformity() {
	f, _ := fgm.Conformity([]fgm.Segment{
		{Duration: 30 * time.Second, Used: 31, Predicted: 29, Idle: 1},
		{Duration: 30 * time.Second, Used: 30.5, Predicted: 30.5, Idle: 1.5},
	}, 32, 0.05)
	fmt.Printf("%.5f\n", f)
	// Output:
	// 0.00195
}

// A host that keeps a server's state itself asks a Fitter about one
// task: 4 cores and 2 GB free; a task whose second stage wants 3 GB is
// refused there, and the Verdict says where.
func ExampleFitter_Fit() {
	space, _ := resource.NewSpace(resource.CPU, resource.Memory)
	f, _ := fgm.NewFitter(fgm.FitConfig{Space: space})
	free, _ := resource.NewTimeline(resource.Vector{4, 2}) // of 16 cores, 32 GB
	srv := fgm.Server{Capacity: resource.Vector{16, 32}, Free: free}
	stages := []estimate.Stage{
		{Duration: 10 * time.Second, Demand: resource.Vector{2, 1}},
		{Duration: 20 * time.Second, Demand: resource.Vector{1, 3}},
	}
	v, _ := f.Fit(srv, time.Time{}, stages, nil, make([]float64, 4))
	fmt.Println(v.Test, v.Mode, "stage", v.Refusal.Stage, space.Kind(v.Refusal.Kind).Name, v.Refusal.Demand, ">", v.Refusal.Free)
	v, _ = f.Fit(srv, time.Time{}, stages[:1], nil, make([]float64, 4))
	fmt.Println(v.Test)
	// Output:
	// stage-match fine-grained stage 1 memory 3 > 2
	// passed
}

// A MapReduce job's 100,000 maps that have not started are one entry:
// the host makes a task object only when a map is placed. Here a server
// with 4 slots takes the first four maps of the run; the host's run
// makes each as it is asked for.
func ExampleScheduler_SubmitRun() {
	space, _ := resource.NewSpace(resource.MapSlot, resource.ReduceSlot)
	c := schedkittest.NewCluster(space)
	n1 := c.AddNode("n1", "r1", resource.Vector{4, 2})
	s, _ := fgm.New(fgm.Config{Cluster: c})
	now := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	maps := &mapRun{job: "wordcount", n: 100000, key: schedkit.SimilarityKey{Logic: "wordcount/map", DataSize: 64 << 20}}
	_ = s.SubmitRun(now, maps)
	ds, _ := s.Schedule(now, n1, nil)
	for _, d := range ds {
		fmt.Println(d.Task, "on", d.Node)
	}
	fmt.Println("pending", s.Pending(), "running", s.Running(), "tasks made", maps.made)
	fmt.Println("withdrawn", s.WithdrawJob("wordcount"), "pending", s.Pending())
	// Output:
	// wordcount/map/0 on n1
	// wordcount/map/1 on n1
	// wordcount/map/2 on n1
	// wordcount/map/3 on n1
	// pending 99996 running 4 tasks made 4
	// withdrawn 99996 pending 0
}

// mapRun is a host's run of a job's maps, each needing one map slot: it
// makes a map's task object when the scheduler asks for it.
type mapRun struct {
	job  schedkit.JobID
	n    int
	key  schedkit.SimilarityKey
	made int
}

func (r *mapRun) Job() schedkit.JobID                { return r.job }
func (r *mapRun) Similarity() schedkit.SimilarityKey { return r.key }
func (r *mapRun) Requested() resource.Vector         { return resource.Vector{1, 0} }
func (r *mapRun) Deadline() time.Time                { return time.Time{} }
func (r *mapRun) Len() int                           { return r.n }
func (r *mapRun) Task(i int) schedkit.Task {
	r.made++
	return &schedkittest.Task{Key: schedkit.TaskID(fmt.Sprintf("%s/map/%d", r.job, i)), JobKey: r.job, Similar: r.key, Request: r.Requested()}
}
