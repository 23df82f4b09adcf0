package sim_test

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"
	"time"

	"github.com/schedkit/schedkit"
	"github.com/schedkit/schedkit/internal/sim"
	"github.com/schedkit/schedkit/internal/workload"
	"github.com/schedkit/schedkit/resource"
)

// TestPhaseAlikeAndRetryTasks: PhaseAlike holds exactly for the batch
// phases (every task with the returned key and the phase's request, no
// locations), and after every event of a run with nodes going down (lost
// tasks are retried), RetryTasks is the ready tasks that started before,
// in ReadyTasks order, and they come first in ReadyTasks; the rest of
// ReadyTasks is the phase's never-started tasks in index order.
func TestPhaseAlikeAndRetryTasks(t *testing.T) {
	slot, err := workload.NewSlotShaper(workload.SlotSpace())
	if err != nil {
		t.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(5, 6))
	durs := func(n int) []time.Duration {
		d := make([]time.Duration, n)
		for i := range d {
			d[i] = time.Duration(1+rng.IntN(40)) * time.Second
		}
		return d
	}
	w := &workload.Workload{}
	for j := range 12 {
		js := workload.JobSpec{ID: fmt.Sprint("j", j), Submit: time.Duration(j) * 5 * time.Second}
		js.Phases = []workload.PhaseSpec{
			{Batch: &workload.TaskBatch{Logic: "m", DataSize: int64(j), Kind: workload.MapTask, Shaper: slot, Durations: durs(1 + rng.IntN(30))}},
			{Batch: &workload.TaskBatch{Logic: "r", DataSize: 7, Kind: workload.ReduceTask, Shaper: slot, Durations: durs(1 + rng.IntN(4))}},
		}
		if j%4 == 3 { // explicit tasks: not alike
			js.Phases[1] = workload.PhaseSpec{Tasks: []workload.TaskSpec{task(resource.Vector{0, 1}, st(3*time.Second, 0, 1)), task(resource.Vector{0, 1}, st(5*time.Second, 0, 1))}}
		}
		w.Jobs = append(w.Jobs, js)
	}
	cfg := sim.DefaultConfig(workload.SlotSpace(), slotNodes(4, 2, 2))
	for i := range 5 {
		at := time.Duration(10+25*i) * time.Second
		cfg.NodeEvents = append(cfg.NodeEvents, sim.NodeEvent{At: at, Node: i % 4}, sim.NodeEvent{At: at + 9*time.Second, Node: i % 4, Up: true})
	}
	checked, retried := 0, 0
	cfg.AfterEvent = func(s *sim.Sim) error {
		for _, j := range s.Cluster().Jobs() {
			for p := range j.Phases() {
				ph := schedkit.Phase(p)
				pr := j.Progress(ph)
				retry := j.RetryTasks(ph, nil)
				ready := j.ReadyTasks(ph, nil, nil, max(pr.Ready, 1))
				if len(retry) > len(ready) || !slices.Equal(retry, ready[:len(retry)]) {
					return fmt.Errorf("job %s phase %d: retries %d not the head of %d ready", j.ID(), p, len(retry), len(ready))
				}
				last := -1
				for i, x := range ready {
					started := x.Attempts() > 0
					if started != (i < len(retry)) {
						return fmt.Errorf("job %s phase %d: ready task %d (%s) started %v, %d retries", j.ID(), p, i, x.ID(), started, len(retry))
					}
					if !started {
						if x.Index() <= last {
							return fmt.Errorf("job %s phase %d: never-started tasks out of order", j.ID(), p)
						}
						last = x.Index()
					}
				}
				retried += len(retry)
				checked++
			}
		}
		return nil
	}
	s, err := sim.New(cfg, w, &greedy{})
	if err != nil {
		t.Fatal(err)
	}
	for i := range w.Jobs {
		j := s.Job(i)
		for p := range j.Phases() {
			ph := schedkit.Phase(p)
			key, ok := j.PhaseAlike(ph)
			if want := w.Jobs[i].Phases[p].Batch != nil; ok != want {
				t.Fatalf("job %d phase %d: alike %v, want %v", i, p, ok, want)
			}
			if !ok {
				continue
			}
			req, _ := j.PhaseRequest(ph)
			for x := range j.Tasks(ph) {
				tk := j.Task(ph, x)
				if tk.Similarity() != key || !slices.Equal(tk.Requested(), req) || len(tk.DataLocations()) > 0 {
					t.Fatalf("job %d phase %d task %d: %v %v, phase %v %v", i, p, x, tk.Similarity(), tk.Requested(), key, req)
				}
			}
		}
	}
	if _, ok := s.Job(0).PhaseAlike(9); ok {
		t.Fatal("phase out of range alike")
	}
	if _, err := s.Run(); err != nil {
		t.Fatal(err)
	}
	if checked == 0 || retried == 0 || s.Stats().Lost == 0 {
		t.Fatalf("checked %d phases, %d retries seen, %d lost: the test tests nothing", checked, retried, s.Stats().Lost)
	}
}
