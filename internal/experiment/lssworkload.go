package experiment

import (
	"bytes"
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/schedkit/schedkit/internal/workload"
	"github.com/schedkit/schedkit/resource"
)

// The lss experiment's workloads beyond paper 000's: three-phase jobs
// and the FB-2009 day with generated deadlines.

// threePhaseWorkload generates wc's workflows as three-phase jobs: the
// maps, then lssStageReduces reduces sharing the shuffle, then one merge
// task (reduce slot) reading their output — WordCount followed by a
// global top-k. The merge reads the first reduces' output (shuffle ×
// OutputRatio) and writes OutputRatio of it; its duration follows the
// reduce rule of the model, with jitter.
func threePhaseWorkload(wc workload.PoissonConfig, p Params) (*workload.Workload, []string, error) {
	wc.Workflows = append([]workload.Workflow(nil), wc.Workflows...)
	for i := range wc.Workflows {
		wc.Workflows[i].Reduces = lssStageReduces
	}
	wc.Name += " 3-phase"
	w, _, err := Paper000Workload(wc, p)
	if err != nil {
		return nil, nil, err
	}
	shaper, err := workload.NewSlotShaper(workload.SlotSpace())
	if err != nil {
		return nil, nil, err
	}
	m := wc.Model
	rng := rand.New(rand.NewPCG(p.Seed, 0x3))
	for i := range w.Jobs {
		j := &w.Jobs[i]
		var in int64
		for _, wf := range wc.Workflows {
			if wf.Name == j.Class {
				in = int64(float64(wf.InputBytes) * m.ShuffleRatio * m.OutputRatio)
			}
		}
		out := int64(float64(in) * m.OutputRatio)
		d := m.Apply(m.ReduceBase(in, out), rng)
		req, prof, err := workload.ShapeTask(shaper, workload.ReduceTask, d, in)
		if err != nil {
			return nil, nil, paramErr("%w", err)
		}
		j.Phases = append(j.Phases, workload.PhaseSpec{Tasks: []workload.TaskSpec{{
			Logic: "wordcount/merge", DataSize: in, Requested: req, Profile: prof,
		}}})
	}
	lines := []string{fmt.Sprintf("three-phase jobs: W1–W6 with %d first-stage reduces sharing the shuffle, then one merge task on a reduce slot reading their output (shuffle × %g) and writing %g of it, reduce duration rule; same deadlines; LSS 3-phase has PhaseKinds [map-slot reduce-slot reduce-slot]",
		lssStageReduces, m.OutputRatio, m.OutputRatio)}
	return w, lines, nil
}

// mapSlotLoad is a slot workload's offered map-slot load (OfferedLoad)
// on the given number of map slots.
func mapSlotLoad(w *workload.Workload, slots int) float64 {
	space := workload.SlotSpace()
	capacity := space.Zero()
	mi, _ := space.Index(resource.MapSlot.Name)
	capacity[mi] = float64(slots)
	loads, _ := OfferedLoad(w, space, capacity)
	for _, l := range loads {
		if l.Kind == resource.MapSlot.Name {
			return l.Load
		}
	}
	return 0
}

// lssFBWorkload reads the embedded FB-2009 day with deadlines generated
// for a cluster of n workers × (2 map + 2 reduce): submit + k × the job's
// isolated run time alone on the whole cluster, k ~ U[lssFBKMin,
// lssFBKMax]. The same seed draws the same task durations and the same k
// for every n.
func lssFBWorkload(p Params, n int) (*workload.Workload, []string, error) {
	opt := workload.DefaultTraceOptions()
	opt.Constraints.Deadline = workload.DeadlineRule{
		KMin: lssFBKMin, KMax: lssFBKMax, Basis: workload.ClusterShare,
		MapSlots: n * fbMaps, ReduceSlots: n * fbReduces,
	}
	rng := rand.New(rand.NewPCG(p.Seed, 0xfb))
	w, err := workload.ReadSWIM(bytes.NewReader(fbTrace), FBTraceName, opt, rng)
	if err != nil {
		return nil, nil, paramErr("%w", err)
	}
	lines := append([]string{fmt.Sprintf("FB-2009: trace %s (SWIM): %d jobs", FBTraceName, len(w.Jobs))}, w.Assumptions...)
	if p.Scale < 1 {
		keep := int(math.Ceil(p.Scale * float64(len(w.Jobs))))
		lines = append(lines, fmt.Sprintf("FB-2009 scale %g: kept the first %d of %d jobs", p.Scale, keep, len(w.Jobs)))
		w.Jobs = w.Jobs[:keep:keep]
	}
	w.Name = fmt.Sprintf("FB-2009 on %d workers", n)
	if n != fbNodes {
		lines = append(lines, fmt.Sprintf("FB-2009 scaled-down cluster (%d workers, so that deadlines bind): %s", n, opt.Constraints.Deadline))
	}
	return &w, lines, nil
}
