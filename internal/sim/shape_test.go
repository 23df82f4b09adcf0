package sim

import (
	"math/rand/v2"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/schedkit/schedkit/internal/workload"
	"github.com/schedkit/schedkit/resource"
)

// TestShapedPhaseMatchesShaper checks that a phase the simulator shapes
// itself (jobPhase.shaped) writes every task exactly as the batch's
// Shaper does, into fresh and into reused buffers, and that phases a copy
// cannot stand for (several stages, per-task locations, explicit tasks)
// are left to the workload.
func TestShapedPhaseMatchesShaper(t *testing.T) {
	slot, err := workload.NewSlotShaper(workload.SlotSpace())
	if err != nil {
		t.Fatal(err)
	}
	space := workload.MultiSpace()
	multi, err := workload.NewMultiShaper(space, workload.DefaultMultiConfig())
	if err != nil {
		t.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(1, 2))
	durs := func(n int) []time.Duration {
		d := make([]time.Duration, n)
		for i := range d {
			d[i] = time.Duration(1+rng.IntN(100)) * time.Second
		}
		return d
	}
	for _, tc := range []struct {
		name    string
		shaper  workload.Shaper
		reduces workload.Shaper
		space   *resource.Space
		caps    resource.Vector
		shaped  []bool // by phase
		shared  bool   // Sim.shareShapes
	}{
		{"slot", slot, slot, workload.SlotSpace(), resource.Vector{2, 2}, []bool{true, true}, true},
		{"multi", multi, multi, space, resource.Vector{16, 32 << 30, 200 << 20, 200 << 20}, []bool{false, false}, false},
		// Shaped maps, two-stage reduces: the Shaper writes into task
		// buffers, so shaped tasks must not share the phase's vectors
		// (the reused buffer below would overwrite them).
		{"mixed", slot, twoStages{slot}, workload.SlotSpace(), resource.Vector{2, 2}, []bool{true, false}, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var w workload.Workload
			for j := range 6 {
				w.Jobs = append(w.Jobs, workload.JobSpec{
					ID:     "j" + string(rune('a'+j)),
					Submit: time.Duration(j) * time.Second,
					Phases: []workload.PhaseSpec{
						{Batch: &workload.TaskBatch{Logic: "m", DataSize: 64 << 20, Kind: workload.MapTask, Shaper: tc.shaper, Durations: durs(1 + rng.IntN(700))}},
						{Batch: &workload.TaskBatch{Logic: "r", DataSize: int64(j) << 20, Kind: workload.ReduceTask, Shaper: tc.reduces, Durations: durs(1 + rng.IntN(5))}},
					},
				})
			}
			cfg := DefaultConfig(tc.space, []NodeSpec{{ID: "n0", Rack: "r0", Capacity: tc.caps}})
			s, err := New(cfg, &w, nopPolicy{})
			if err != nil {
				t.Fatal(err)
			}
			if s.b.shareShapes != tc.shared {
				t.Fatalf("shareShapes %v, want %v", s.b.shareShapes, tc.shared)
			}
			var reused workload.TaskSpec
			for range 2 { // twice: a buffer reused across phases corrupts nothing
				for ji := range s.b.jobs {
					j := &s.b.jobs[ji]
					for p := range j.phases {
						if got := j.phases[p].shaped; got != tc.shaped[p] {
							t.Fatalf("job %d phase %d: shaped %v, want %v", ji, p, got, tc.shaped[p])
						}
						sp := &j.spec.Phases[p]
						for i := range sp.Len() {
							var fresh, want workload.TaskSpec
							w, err := sp.Task(i, &want)
							if err != nil {
								t.Fatal(err)
							}
							if d := cmp.Diff(w, s.b.taskSpec(j, p, i, &fresh)); d != "" {
								t.Fatalf("job %d phase %d task %d (fresh buffer): -shaper +sim\n%s", ji, p, i, d)
							}
							if d := cmp.Diff(w, s.b.taskSpec(j, p, i, &reused)); d != "" {
								t.Fatalf("job %d phase %d task %d (reused buffer): -shaper +sim\n%s", ji, p, i, d)
							}
						}
					}
				}
			}
		})
	}
}

// twoStages shapes like its Shaper, in two stages of half the duration.
type twoStages struct{ workload.Shaper }

func (twoStages) Stages(workload.TaskKind) int { return 2 }

func (s twoStages) Shape(kind workload.TaskKind, d time.Duration, data int64, req resource.Vector, prof []workload.Stage) error {
	if err := s.Shaper.Shape(kind, d, data, req, prof[:1]); err != nil {
		return err
	}
	copy(prof[1].Demand, prof[0].Demand)
	prof[0].Duration, prof[1].Duration = d/2, d-d/2
	return nil
}

// TestShapedPhaseNeedsUniformTasks: explicit tasks, locations or tasks
// that ask differently keep the workload's own description.
func TestShapedPhaseNeedsUniformTasks(t *testing.T) {
	req := resource.Vector{1, 0}
	w := workload.Workload{Jobs: []workload.JobSpec{{ID: "a", Phases: []workload.PhaseSpec{{Tasks: []workload.TaskSpec{
		{Requested: req, Profile: []workload.Stage{{Duration: time.Second, Demand: req}}},
	}}}}}}
	s, err := New(DefaultConfig(workload.SlotSpace(), []NodeSpec{{ID: "n0", Rack: "r0", Capacity: resource.Vector{2, 2}}}), &w, nopPolicy{})
	if err != nil {
		t.Fatal(err)
	}
	if s.b.jobs[0].phases[0].shaped {
		t.Fatal("a phase of explicit tasks is shaped")
	}
}

type nopPolicy struct{}

func (nopPolicy) Name() string                 { return "nop" }
func (nopPolicy) Submit(time.Time, *Job) error { return nil }
func (nopPolicy) Heartbeat(_ time.Time, _ *Node, _ *Cluster, dst []Decision) ([]Decision, error) {
	return dst, nil
}
