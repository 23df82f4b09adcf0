package policy

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/schedkit/schedkit/internal/sim"
	"github.com/schedkit/schedkit/internal/workload"
	"github.com/schedkit/schedkit/resource"
)

// TestDBSIdleCost: after every simulator event, every queued job whose
// cost the adapter keeps (dbsJob.idle) has no positive allocation and
// exactly that cost in the simulator, bit for bit: overloaded slot
// clusters (most jobs waiting), node churn (tasks lost and requeued),
// price changes from queue moves. It also checks the adapter's part of
// dbs's host duty 3 (a weight update reads only the costs of jobs
// Updated or assigned a slot since the last one, or holding slots at
// it): every queued job with a positive allocation, the only state in
// which the simulator's cost grows, holds slots as dbs counts them.
func TestDBSIdleCost(t *testing.T) {
	checked, held := 0, 0
	for seed := uint64(1); seed <= 6; seed++ {
		rng := rand.New(rand.NewPCG(seed, 41))
		cfg := slotCluster(t, 1+rng.IntN(3), 2, 2)
		cfg.Prices = resource.Vector{1, 1}
		if len(cfg.Nodes) > 1 {
			cfg.NodeEvents = []sim.NodeEvent{{At: 40 * time.Second, Node: 0, Up: false}, {At: 100 * time.Second, Node: 0, Up: true}}
		}
		w := &workload.Workload{}
		at := time.Duration(0)
		for j := range 25 {
			at += time.Duration(rng.IntN(5)) * time.Second
			js := workload.JobSpec{ID: fmt.Sprintf("j%02d", j), Submit: at, Phi: []float64{0, 0.5, 1}[rng.IntN(3)]}
			if js.Phi > 0 {
				js.Deadline = time.Duration(20+rng.IntN(300)) * time.Second
			}
			if js.Phi < 1 {
				js.Budget = 30 + 300*rng.Float64()
			}
			var maps, reds workload.PhaseSpec
			for range 1 + rng.IntN(10) {
				r := resource.Vector{1, 0}
				maps.Tasks = append(maps.Tasks, workload.TaskSpec{Requested: r, Profile: []workload.Stage{{Duration: time.Duration(1+rng.IntN(20000)) * time.Millisecond, Demand: r}}})
			}
			js.Phases = []workload.PhaseSpec{maps}
			if rng.IntN(2) == 0 {
				r := resource.Vector{0, 1}
				reds.Tasks = append(reds.Tasks, workload.TaskSpec{Requested: r, Profile: []workload.Stage{{Duration: time.Duration(1+rng.IntN(20000)) * time.Millisecond, Demand: r}}})
				js.Phases = append(js.Phases, reds)
			}
			w.Jobs = append(w.Jobs, js)
		}
		p, err := NewDBS(&cfg, DBSOptions{})
		if err != nil {
			t.Fatal(err)
		}
		cfg.AfterEvent = func(*sim.Sim) error {
			for i := range p.jobs.rows {
				r := &p.jobs.rows[i]
				if !r.queued || r.job == nil || !r.job.Active() {
					continue
				}
				if anyPositive(r.job.Allocated()) {
					st, err := p.sched.Status(r.job.ID())
					if err != nil {
						return err
					}
					if st.Held == [2]int{} {
						return fmt.Errorf("job %s: allocation %v, but dbs counts no slot held", r.job.ID(), r.job.Allocated())
					}
					held++
				}
				if !r.job.idle {
					continue
				}
				checked++
				if anyPositive(r.job.Allocated()) {
					return fmt.Errorf("job %s kept idle with allocation %v", r.job.ID(), r.job.Allocated())
				}
				if c := r.job.Cost(); math.Float64bits(c) != math.Float64bits(r.job.idleCost) {
					return fmt.Errorf("job %s: kept cost %v, simulator's %v", r.job.ID(), r.job.idleCost, c)
				}
			}
			return nil
		}
		s, err := sim.New(cfg, w, p)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := s.Run(); err != nil {
			t.Fatalf("seed %d: %v", seed, err)
		}
	}
	if checked == 0 {
		t.Fatal("no job's cost was kept: the test tests nothing")
	}
	if held == 0 {
		t.Fatal("no job held slots: the duty is not tested")
	}
	t.Logf("%d kept costs checked; %d times a job with an allocation held slots in dbs", checked, held)
}
