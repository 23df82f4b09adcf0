package workload

import (
	"math/rand/v2"
	"time"

	"github.com/schedkit/schedkit/resource"
)

// DefaultMaxTasksPerJob bounds the tasks one job may have in any reader or
// generator (a guard against a corrupt size field asking for billions of
// tasks). The largest FB-2009 job has about 112,000 maps.
const DefaultMaxTasksPerJob = 1 << 20

// phasePlan describes one phase to lay out: n tasks of one kind, each with
// data bytes and a duration. When exact is false, base is a duration
// before jitter and each task draws its own jitter from the model; when it
// is true, base is used as is (a trace's measured run time).
type phasePlan struct {
	phase int    // phase index; plans are in non-decreasing phase order
	logic string // application name; "" for the builder's
	kind  TaskKind
	n     int
	data  int64
	base  time.Duration
	exact bool
}

// taskBuilder lays out the phases of one job at a time in three slab
// allocations (tasks, stages, floats), so that readers scale to traces of
// hundreds of thousands of tasks.
type taskBuilder struct {
	shaper Shaper
	model  TaskModel
	rng    *rand.Rand
	logic  string // application name; task Logic is logic + "/" + kind
	dims   int
	logics [3]string
}

func newTaskBuilder(shaper Shaper, model TaskModel, rng *rand.Rand, logic string) *taskBuilder {
	b := &taskBuilder{shaper: shaper, model: model, rng: rng, logic: logic, dims: shaper.Space().Len()}
	for k := range b.logics {
		b.logics[k] = logic + "/" + TaskKind(k).String()
	}
	return b
}

// build returns the phases of one job: consecutive plans with the same
// phase index form one phase, in plan order. Plans with n == 0 are
// skipped (a phase all of whose plans are empty does not appear).
func (b *taskBuilder) build(plans []phasePlan) ([]PhaseSpec, error) {
	tasks, stages, phases, last := 0, 0, 0, -1
	for _, p := range plans {
		if p.n > 0 {
			if p.phase != last {
				phases++
				last = p.phase
			}
			tasks += p.n
			stages += p.n * b.shaper.Stages(p.kind)
		}
	}
	all := make([]TaskSpec, tasks)
	taskSlab := all
	stageSlab := make([]Stage, stages)
	floats := make([]float64, (tasks+stages)*b.dims)
	out := make([]PhaseSpec, 0, phases)
	take := func(n int) resource.Vector {
		v := resource.Vector(floats[:n:n])
		floats = floats[n:]
		return v
	}
	start, done := 0, 0 // phase start and tasks laid out, as indices into all
	last = -1
	for _, p := range plans {
		if p.n <= 0 {
			continue
		}
		if p.phase != last && done > start {
			out = append(out, PhaseSpec{Tasks: all[start:done:done]})
			start = done
		}
		last = p.phase
		ts := taskSlab[:p.n:p.n]
		taskSlab = taskSlab[p.n:]
		done += p.n
		k := b.shaper.Stages(p.kind)
		logic := b.logics[p.kind]
		if p.logic != "" {
			logic = p.logic + "/" + p.kind.String()
		}
		for i := range ts {
			t := &ts[i]
			t.Logic = logic
			t.DataSize = p.data
			t.Requested = take(b.dims)
			t.Profile = stageSlab[:k:k]
			stageSlab = stageSlab[k:]
			for s := range t.Profile {
				t.Profile[s].Demand = take(b.dims)
			}
			d := p.base
			if !p.exact {
				d = b.model.Apply(p.base, b.rng)
			}
			if err := b.shaper.Shape(p.kind, d, p.data, t.Requested, t.Profile); err != nil {
				return nil, err
			}
		}
	}
	if done > start {
		out = append(out, PhaseSpec{Tasks: all[start:done:done]})
	}
	return out, nil
}

// mapReducePlans returns the map and reduce phase plans of a MapReduce job
// with the given byte counts, under model m: maps split the input evenly
// (each ⌈input/maps⌉ bytes); reduces split the shuffle evenly; output is
// written by reduces, or by maps in a map-only job.
func mapReducePlans(m TaskModel, maps, reduces int, input, shuffle, output int64) []phasePlan {
	split := ceilDiv(input, int64(maps))
	var mapOut int64
	if reduces == 0 {
		mapOut = ceilDiv(output, int64(maps))
	}
	plans := []phasePlan{{phase: 0, kind: MapTask, n: maps, data: split, base: m.MapBase(split, mapOut)}}
	if reduces > 0 {
		sh := ceilDiv(shuffle, int64(reduces))
		plans = append(plans, phasePlan{phase: 1, kind: ReduceTask, n: reduces, data: sh, base: m.ReduceBase(sh, ceilDiv(output, int64(reduces)))})
	}
	return plans
}

// ceilDiv returns ⌈a/b⌉ for a ≥ 0, b > 0 without overflow.
func ceilDiv(a, b int64) int64 {
	if a <= 0 {
		return 0
	}
	return (a-1)/b + 1
}

// checkTasks reports whether n tasks are within the per-job bound.
func checkTasks(n int64, limit int) error {
	if n > int64(limit) {
		return because(ErrRange, "job would have %d tasks, more than the limit %d", n, limit)
	}
	return nil
}
