package sim_test

import (
	"fmt"
	"math"
	"time"

	"github.com/schedkit/schedkit"
	"github.com/schedkit/schedkit/internal/sim"
	"github.com/schedkit/schedkit/internal/workload"
	"github.com/schedkit/schedkit/resource"
)

func mustSpace(kinds ...resource.Kind) *resource.Space {
	s, err := resource.NewSpace(kinds...)
	if err != nil {
		panic(err)
	}
	return s
}

// slotSpace is the Hadoop-1 slot model.
var slotSpace = mustSpace(resource.MapSlot, resource.ReduceSlot)

// cpuMem is a two-kind space: compressible CPU, incompressible memory.
var cpuMem = mustSpace(resource.CPU, resource.Memory)

func slotNodes(n, maps, reduces int) []sim.NodeSpec {
	out := make([]sim.NodeSpec, n)
	for i := range out {
		out[i] = sim.NodeSpec{
			ID:       schedkit.NodeID(fmt.Sprintf("n%02d", i)),
			Rack:     schedkit.RackID(fmt.Sprintf("r%d", i/20)),
			Capacity: resource.Vector{float64(maps), float64(reduces)},
		}
	}
	return out
}

func nodesOf(caps ...resource.Vector) []sim.NodeSpec {
	out := make([]sim.NodeSpec, len(caps))
	for i, c := range caps {
		out[i] = sim.NodeSpec{ID: schedkit.NodeID(fmt.Sprintf("n%02d", i)), Rack: "r0", Capacity: c}
	}
	return out
}

func st(d time.Duration, demand ...float64) workload.Stage {
	return workload.Stage{Duration: d, Demand: resource.Vector(demand)}
}

func task(req resource.Vector, stages ...workload.Stage) workload.TaskSpec {
	return workload.TaskSpec{Requested: req, Profile: stages}
}

// mrJob is a slot-model MapReduce job: each map uses one map slot, each
// reduce one reduce slot, for the given durations.
func mrJob(id string, submit time.Duration, maps, reduces []time.Duration) workload.JobSpec {
	j := workload.JobSpec{ID: id, Submit: submit}
	var mp, rp workload.PhaseSpec
	for _, d := range maps {
		mp.Tasks = append(mp.Tasks, task(resource.Vector{1, 0}, st(d, 1, 0)))
	}
	j.Phases = append(j.Phases, mp)
	if len(reduces) > 0 {
		for _, d := range reduces {
			rp.Tasks = append(rp.Tasks, task(resource.Vector{0, 1}, st(d, 0, 1)))
		}
		j.Phases = append(j.Phases, rp)
	}
	return j
}

func durs(sec ...float64) []time.Duration {
	out := make([]time.Duration, len(sec))
	for i, s := range sec {
		out[i] = time.Duration(s * float64(time.Second))
	}
	return out
}

// greedy is a minimal request-based FIFO used by the simulator's own
// tests: on each heartbeat it walks active jobs in submission order and
// phases in order and assigns every ready task whose request still fits.
type greedy struct {
	buf   []*sim.Task
	avail resource.Vector
	// alloc, if set, replaces each task's request (below-peak policies).
	alloc func(t *sim.Task) resource.Vector
}

func (g *greedy) Name() string                     { return "greedy" }
func (g *greedy) Submit(time.Time, *sim.Job) error { return nil }
func (g *greedy) Heartbeat(now time.Time, n *sim.Node, c *sim.Cluster, dst []sim.Decision) ([]sim.Decision, error) {
	if c.Ready() == 0 {
		return dst, nil
	}
	g.avail = append(g.avail[:0], n.Available()...)
	for _, j := range c.Jobs() {
		for p := 0; p < j.Phases(); p++ {
			ph := schedkit.Phase(p)
			if j.Progress(ph).Ready == 0 {
				continue
			}
			g.buf = j.ReadyTasks(ph, n, g.buf[:0], 1)
			if len(g.buf) == 0 {
				continue
			}
			limit := fitCount(g.req(g.buf[0]), g.avail)
			if limit == 0 {
				continue
			}
			g.buf = j.ReadyTasks(ph, n, g.buf[:0], limit)
			for _, t := range g.buf {
				r := g.req(t)
				if fitCount(r, g.avail) == 0 {
					break
				}
				_ = g.avail.Sub(r)
				d := sim.AssignTask(t, nil)
				if g.alloc != nil {
					d.Alloc = r
				}
				dst = append(dst, d)
			}
		}
	}
	return dst, nil
}

func (g *greedy) req(t *sim.Task) resource.Vector {
	if g.alloc != nil {
		return g.alloc(t)
	}
	return t.Requested()
}

// fitCount is how many copies of req fit in avail (capped).
func fitCount(req, avail resource.Vector) int {
	n := math.MaxInt32
	for k, r := range req {
		if r > 0 {
			n = min(n, int(math.Floor(avail[k]/r+1e-9)))
		}
	}
	if n < 0 {
		return 0
	}
	return n
}

// scripted makes the decisions of each step at the first heartbeat at or
// after its time, once.
type scripted struct {
	steps []step
	ended []string // "t=<sec> <task> <state>"
}

type step struct {
	at   time.Duration
	do   func(c *sim.Cluster, n *sim.Node) []sim.Decision
	done bool
}

func (s *scripted) Name() string                     { return "scripted" }
func (s *scripted) Submit(time.Time, *sim.Job) error { return nil }
func (s *scripted) Heartbeat(now time.Time, n *sim.Node, c *sim.Cluster, dst []sim.Decision) ([]sim.Decision, error) {
	for i := range s.steps {
		st := &s.steps[i]
		if !st.done && now.Sub(sim.Epoch) >= st.at {
			st.done = true
			dst = append(dst, st.do(c, n)...)
		}
	}
	return dst, nil
}

func (s *scripted) TaskEnded(now time.Time, t *sim.Task, state schedkit.TaskState) error {
	s.ended = append(s.ended, fmt.Sprintf("t=%g %s %v", now.Sub(sim.Epoch).Seconds(), t.ID(), state))
	return nil
}

// watch records task ends for any policy.
type watch struct {
	sim.Policy
	ended []string
}

func (w *watch) TaskEnded(now time.Time, t *sim.Task, state schedkit.TaskState) error {
	w.ended = append(w.ended, fmt.Sprintf("t=%g %s %v", now.Sub(sim.Epoch).Seconds(), t.ID(), state))
	return nil
}

func sec(d time.Duration) float64 { return d.Seconds() }
