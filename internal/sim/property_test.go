package sim_test

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	"github.com/schedkit/schedkit"
	"github.com/schedkit/schedkit/internal/sim"
	"github.com/schedkit/schedkit/internal/workload"
	"github.com/schedkit/schedkit/resource"
)

// chaosSpace: compressible CPU, incompressible memory, and an offloaded
// compressible accelerator kind.
var chaosSpace = mustSpace(resource.CPU, resource.Memory, resource.Kind{Name: "acc", Compressible: true})

// randomSetup draws a cluster and a workload from seed.
func randomSetup(seed uint64, nJobs int) (sim.Config, *workload.Workload) {
	rng := rand.New(rand.NewPCG(seed, 7))
	nNodes := 2 + rng.IntN(6)
	nodes := make([]sim.NodeSpec, nNodes)
	for i := range nodes {
		acc := 0.0
		if i%3 == 0 {
			acc = float64(1 + rng.IntN(2))
		}
		nodes[i] = sim.NodeSpec{
			ID:       schedkit.NodeID(fmt.Sprintf("n%d", i)),
			Rack:     "r0",
			Capacity: resource.Vector{float64(2 + rng.IntN(6)), float64(4 + rng.IntN(12)), acc},
			Speed:    []float64{0, 1, 0.5, 2}[rng.IntN(4)],
		}
	}
	cfg := sim.DefaultConfig(chaosSpace, nodes)
	cfg.Seed = seed
	cfg.HeartbeatInterval = time.Duration(1+rng.IntN(5)) * time.Second
	cfg.SlowStart = []float64{0, 0.05, 0.5, 1}[rng.IntN(4)]
	cfg.Penalty = []float64{0, 0.1}[rng.IntN(2)]
	cfg.Contention = []sim.Contention{{}, {Knee: 0.1, Slope: 8}}[rng.IntN(2)]
	cfg.MetricsInterval = 30 * time.Second
	cfg.OffloadKinds = []string{"acc"}
	cfg.RecordTasks = true
	cfg.Enforcement = []sim.Enforcement{sim.Limits, sim.Shares}[rng.IntN(2)]
	cfg.TickInterval = []time.Duration{0, 500 * time.Millisecond, 7 * time.Second}[rng.IntN(3)]
	cfg.SampleInterval = time.Duration(1+rng.IntN(5)) * time.Second
	cfg.Prices = resource.Vector{0.01, 0.001, 0.1}
	w := &workload.Workload{Name: "random"}
	var at time.Duration
	for j := 0; j < nJobs; j++ {
		at += time.Duration(rng.IntN(20)) * time.Second
		js := workload.JobSpec{ID: fmt.Sprintf("j%03d", j), Class: fmt.Sprintf("c%d", rng.IntN(3)), Submit: at}
		if rng.IntN(2) == 0 {
			js.Deadline = time.Duration(30+rng.IntN(300)) * time.Second
		}
		for p := 0; p < 1+rng.IntN(3); p++ {
			var ph workload.PhaseSpec
			for x := 0; x < rng.IntN(5)+boolInt(p == 0); x++ {
				req := resource.Vector{float64(1 + rng.IntN(2)), float64(1 + rng.IntN(4)), 0}
				if rng.IntN(3) == 0 {
					req[2] = 1
				}
				var stages []workload.Stage
				for s := 0; s < 1+rng.IntN(3); s++ {
					d := resource.Vector{req[0] * (0.5 + rng.Float64()), req[1] * (0.3 + rng.Float64()), req[2]}
					stages = append(stages, workload.Stage{Duration: time.Duration(rng.IntN(20000)) * time.Millisecond, Demand: d})
				}
				ts := workload.TaskSpec{Logic: fmt.Sprintf("L%d", p), DataSize: int64(rng.IntN(3)), Requested: req, Profile: stages}
				if rng.IntN(2) == 0 {
					ts.Locations = []int{rng.IntN(nNodes), rng.IntN(nNodes)}
				}
				ph.Tasks = append(ph.Tasks, ts)
			}
			js.Phases = append(js.Phases, ph)
		}
		w.Jobs = append(w.Jobs, js)
	}
	for i := 0; i < rng.IntN(10); i++ {
		cfg.Background = append(cfg.Background, sim.BackgroundStep{
			At:     time.Duration(rng.IntN(int(at/time.Second)+60)) * time.Second,
			Node:   rng.IntN(nNodes),
			Demand: resource.Vector{float64(rng.IntN(3)), float64(rng.IntN(4)), 0},
		})
	}
	for i := 0; i < rng.IntN(6); i++ {
		cfg.NodeEvents = append(cfg.NodeEvents, sim.NodeEvent{
			At:   time.Duration(rng.IntN(int(at/time.Second)+60)) * time.Second,
			Node: rng.IntN(nNodes),
			Up:   rng.IntN(2) == 0,
		})
	}
	// Bring every node back at the end so that work can finish.
	for i := 0; i < nNodes; i++ {
		cfg.NodeEvents = append(cfg.NodeEvents, sim.NodeEvent{At: at + 120*time.Second, Node: i, Up: true})
	}
	return cfg, w
}

func boolInt(b bool) int {
	if b {
		return 1
	}
	return 0
}

// chaos makes random decisions: valid ones (tracked so that they stay
// valid within a batch) and deliberately invalid ones it counts.
type chaos struct {
	rng      *rand.Rand
	avail    resource.Vector
	buf      []*sim.Task
	chosen   map[*sim.Task]bool
	invalid  int
	rejected int
	// usage samples heard, and samples of a task not running or of a
	// node down, or with invalid amounts
	samples, badSample int
}

func newChaos(seed uint64) *chaos {
	return &chaos{rng: rand.New(rand.NewPCG(seed, 99)), chosen: map[*sim.Task]bool{}}
}

func (c *chaos) Name() string { return "chaos" }

func (c *chaos) Submit(now time.Time, j *sim.Job) error {
	if c.rng.IntN(20) == 0 {
		c.rejected++
		return sim.Reject("chaos says no")
	}
	return nil
}

func (c *chaos) NodeChanged(now time.Time, n *sim.Node, up bool, cl *sim.Cluster, dst []sim.Decision) ([]sim.Decision, error) {
	// Bind every live node without accelerators to a live one with some.
	for i := 0; i < cl.Nodes(); i++ {
		m := cl.LiveNode(i)
		if m.Capacity()[2] > 0 || (m.Bound() != nil && m.Bound().Up()) {
			continue
		}
		for k := 0; k < cl.Nodes(); k++ {
			if a := cl.LiveNode((i + k) % cl.Nodes()); a.Capacity()[2] > 0 {
				dst = append(dst, sim.BindNode(m, a))
				break
			}
		}
	}
	return dst, nil
}

func (c *chaos) Heartbeat(now time.Time, n *sim.Node, cl *sim.Cluster, dst []sim.Decision) ([]sim.Decision, error) {
	clear(c.chosen)
	c.avail = append(c.avail[:0], n.Available()...)
	jobs := cl.Jobs()
	// Deliberately invalid decisions come first, before anything in the
	// batch could make them valid (a preemption makes a task ready).
	if run := n.Running(); len(run) > 0 && c.rng.IntN(10) == 0 {
		c.invalid++ // a running task is not ready
		dst = append(dst, sim.AssignTask(run[0], nil))
	}
	if c.rng.IntN(25) == 0 && len(jobs) > 0 {
		c.invalid++ // more than ready
		j := jobs[0]
		dst = append(dst, sim.AssignTasks(j, 0, j.Progress(0).Ready+1, nil))
	}
	for _, j := range jobs {
		for p := 0; p < j.Phases(); p++ {
			ph := schedkit.Phase(p)
			ready := j.Progress(ph).Ready
			if ready == 0 {
				continue
			}
			c.buf = j.ReadyTasks(ph, n, c.buf[:0], min(ready, 4))
			for _, t := range c.buf {
				alloc := t.Requested().Clone()
				if c.rng.IntN(3) == 0 { // below the request: may over-commit
					alloc[1] = float64(int(alloc[1] * 0.6))
					alloc[0] *= 0.5
				}
				if fitCount(alloc[:2], c.avail[:2]) == 0 {
					if c.rng.IntN(8) == 0 {
						c.invalid++ // over the free memory
						dst = append(dst, sim.Decision{Kind: sim.Assign, Task: t, Alloc: resource.Vector{0, max(c.avail[1], 0) + 1, 0}})
					}
					continue
				}
				if c.chosen[t] {
					continue
				}
				c.chosen[t] = true
				_ = c.avail.Sub(alloc)
				d := sim.Decision{Kind: sim.Assign, Task: t, Alloc: alloc}
				switch c.rng.IntN(8) {
				case 0: // a plan that shrinks after a while
					later := alloc.Clone()
					later[0] /= 2
					later[1] = float64(int(later[1] / 2))
					d.Alloc, d.Plan = nil, []sim.AllocStep{{Duration: 3 * time.Second, Alloc: alloc}, {Duration: time.Second, Alloc: later}}
				case 1: // one that grows, fitting now but maybe not later
					if later := alloc.Clone(); c.avail[1] >= 1 {
						later[1]++
						d.Alloc, d.Plan = nil, []sim.AllocStep{{Duration: 2 * time.Second, Alloc: alloc}, {Alloc: later}}
					}
				}
				dst = append(dst, d)
			}
		}
	}
	// Preemptions and kills last: they free resources at once, which
	// could make a deliberately invalid assignment above valid.
	if run := n.Running(); len(run) > 0 && c.rng.IntN(15) == 0 {
		dst = append(dst, sim.PreemptTask(run[c.rng.IntN(len(run))], "chaos"))
	}
	if len(jobs) > 0 && c.rng.IntN(50) == 0 {
		dst = append(dst, sim.Kill(jobs[c.rng.IntN(len(jobs))], "chaos"))
	}
	return dst, nil
}

// Tick changes a random job's price now and then.
func (c *chaos) Tick(now time.Time, cl *sim.Cluster, dst []sim.Decision) ([]sim.Decision, error) {
	if jobs := cl.Jobs(); len(jobs) > 0 && c.rng.IntN(3) == 0 {
		j := jobs[c.rng.IntN(len(jobs))]
		if j.Cost() < 0 {
			return dst, errors.New("negative cost")
		}
		dst = append(dst, sim.PriceJob(j, resource.Vector{c.rng.Float64(), c.rng.Float64() / 100, 0}))
	}
	return dst, nil
}

func (c *chaos) TaskSampled(now time.Time, t *sim.Task, used resource.Vector) error {
	if t.Node() == nil || used.Validate() != nil {
		c.badSample++
	}
	c.samples++
	return nil
}

func (c *chaos) NodeSampled(now time.Time, n *sim.Node, used resource.Vector) error {
	if !n.Up() || used.Validate() != nil {
		c.badSample++
	}
	return nil
}

func (c *chaos) TaskEnded(time.Time, *sim.Task, schedkit.TaskState) error { return nil }
func (c *chaos) JobEnded(time.Time, *sim.Job, sim.Outcome) error          { return nil }

func runChaos(t *testing.T, seed uint64, nJobs int, check bool) (sim.Run, *sim.Sim, *chaos) {
	t.Helper()
	cfg, w := randomSetup(seed, nJobs)
	if check {
		cfg.AfterEvent = (*sim.Sim).CheckInvariants
	}
	p := newChaos(seed)
	s, err := sim.New(cfg, w, p)
	if err != nil {
		t.Fatalf("seed %d: %v", seed, err)
	}
	run, err := s.Run()
	var de *sim.DecisionError
	if err != nil && (!errors.As(err, &de) || errors.Is(err, sim.ErrInvariant) || errors.Is(err, sim.ErrStalled) || errors.Is(err, sim.ErrPolicy)) {
		t.Fatalf("seed %d: %v", seed, err)
	}
	got := 0
	if de != nil {
		got = de.Count
	}
	if got != p.invalid {
		t.Fatalf("seed %d: %d invalid decisions reported, chaos made %d: %v", seed, got, p.invalid, de)
	}
	return run, s, p
}

// Conservation invariants after every event, on random clusters and
// workloads with a policy making random (valid and invalid) decisions,
// below-request allocations (incompressible over-commits), preemptions,
// kills, rejections, bindings, background load and node failures.
func TestInvariantsUnderChaos(t *testing.T) {
	seeds := 300
	if testing.Short() {
		seeds = 40
	}
	var total sim.Stats
	for seed := uint64(1); seed <= uint64(seeds); seed++ {
		run, s, p := runChaos(t, seed, 25, true)
		st := s.Stats()
		ended := 0
		for _, j := range run.Jobs {
			if j.Outcome != sim.Unfinished {
				ended++
			}
			if j.Finish < j.Start || j.Start < j.Submit {
				t.Fatalf("seed %d: job %+v out of order", seed, j)
			}
		}
		if ended != len(run.Jobs) {
			t.Fatalf("seed %d: %d of %d jobs ended", seed, ended, len(run.Jobs))
		}
		if st.RejectedJobs != p.rejected {
			t.Fatalf("seed %d: %d rejected, chaos rejected %d", seed, st.RejectedJobs, p.rejected)
		}
		if p.badSample > 0 {
			t.Fatalf("seed %d: %d bad usage samples", seed, p.badSample)
		}
		checkRecords(t, seed, run, st)
		total.Ticks += st.Ticks
		total.UsageSamples += st.UsageSamples
		total.PlanOvercommit += st.PlanOvercommit
		total.Failed += st.Failed
		total.Preempted += st.Preempted
		total.Lost += st.Lost
		total.KilledJobs += st.KilledJobs
		total.FailedJobs += st.FailedJobs
		total.StaleEvents += st.StaleEvents
		total.Events += st.Events
	}
	// The chaos must actually exercise the paths.
	if total.Failed == 0 || total.Preempted == 0 || total.Lost == 0 || total.KilledJobs == 0 || total.StaleEvents == 0 ||
		total.Ticks == 0 || total.UsageSamples == 0 || total.PlanOvercommit == 0 {
		t.Errorf("paths not exercised: %+v", total)
	}
	t.Logf("%+v", total)
}

// checkRecords checks the task records against the counters: one per
// attempt started, outcomes as counted, costs adding up to the jobs'.
func checkRecords(t *testing.T, seed uint64, run sim.Run, st sim.Stats) {
	t.Helper()
	if len(run.Tasks) != st.Assigned {
		t.Fatalf("seed %d: %d task records, %d attempts", seed, len(run.Tasks), st.Assigned)
	}
	count := map[sim.TaskOutcome]int{}
	cost := 0.0
	for _, r := range run.Tasks {
		count[r.Outcome]++
		cost += r.Cost
		if r.End < r.Start || r.Cost < 0 || r.Attempt < 1 {
			t.Fatalf("seed %d: bad record %+v", seed, r)
		}
		for _, v := range []resource.Vector{r.Alloc, r.Used, r.Demand} {
			if v != nil && v.Validate() != nil {
				t.Fatalf("seed %d: bad record %+v", seed, r)
			}
		}
	}
	if count[sim.TaskSucceeded] != st.Succeeded || count[sim.TaskFailed] != st.Failed ||
		count[sim.TaskLost] != st.Lost || count[sim.TaskPreempted] != st.Preempted {
		t.Fatalf("seed %d: record outcomes %v, stats %+v", seed, count, st)
	}
	jobCost := 0.0
	for _, j := range run.Jobs {
		jobCost += j.Cost
	}
	if math.Abs(cost-jobCost) > 1e-6*math.Max(1, jobCost) {
		t.Fatalf("seed %d: records cost %v, jobs %v", seed, cost, jobCost)
	}
}

// Same seed, same run; different seeds, different runs.
func TestDeterminism(t *testing.T) {
	ignore := cmpopts.IgnoreFields(sim.Run{}, "DecisionTime")
	a, _, _ := runChaos(t, 42, 30, false)
	b, _, _ := runChaos(t, 42, 30, false)
	if d := cmp.Diff(a, b, ignore); d != "" {
		t.Fatalf("same seed, different runs:\n%s", d)
	}
	c, _, _ := runChaos(t, 43, 30, false)
	if cmp.Equal(a, c, ignore) {
		t.Fatal("different seeds gave identical runs")
	}
	// The simulator's own seed alone (heartbeat order) changes timings.
	cfg, w := randomSetup(42, 30)
	cfg.Seed = 1
	x := mustRun(t, cfg, w, &greedy{})
	cfg.Seed = 2
	y := mustRun(t, cfg, w, &greedy{})
	cfg.Seed = 1
	z := mustRun(t, cfg, w, &greedy{})
	if !cmp.Equal(x, z, ignore) {
		t.Fatal("same config and seed, different runs")
	}
	if cmp.Equal(x, y, ignore) {
		t.Fatal("simulator seed had no effect")
	}
}

func mustRun(t *testing.T, cfg sim.Config, w *workload.Workload, p sim.Policy) sim.Run {
	t.Helper()
	s, err := sim.New(cfg, w, p)
	if err != nil {
		t.Fatal(err)
	}
	run, err := s.Run()
	if err != nil && !errors.Is(err, sim.ErrStalled) {
		t.Fatal(err)
	}
	return run
}
