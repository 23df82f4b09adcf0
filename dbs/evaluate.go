package dbs

import (
	"math"
	"time"

	"github.com/schedkit/schedkit/estimate"
)

// This file holds the evaluation of models 1 and 2 for one job from
// its entry (at Submit, and the reference a weight update is checked
// against, referenceTick); evalcache.go keeps what a weight update
// reuses of it.

// eval is one evaluation of models 1 and 2 for a job.
type eval struct {
	m1       WeightFigures
	min      MinResult
	slotSecs float64
	cost     float64
}

// capacityFor returns the capacity of kind k available to e, model 1's V:
// the slots it holds, or its equal part (queuePart) if that is more.
func (s *Scheduler) capacityFor(e *entry, k int) estimate.Capacity {
	return max(s.queuePart(e.queue, k), estimate.Capacity(e.held(k))*estimate.Slot)
}

// queuePart is a job's equal part of the capacity of kind k, "current
// load considered": with CapacitySharing, of its queue's guarantee
// among the queue's jobs; with PrioritySharing, of the cluster's slots
// among the jobs of its queue and the queues above it (the jobs it
// competes with), or of its queue's floor among the queue's jobs if
// that is more.
func (s *Scheduler) queuePart(q Queue, k int) estimate.Capacity {
	part := s.guar[q][k] / float64(max(s.nq[q], 1))
	if s.r.priority {
		n := 0
		for h := q; h < numQueues; h++ {
			n += s.nq[h]
		}
		part = max(part, s.capK[k]/float64(max(n, 1)))
	}
	return estimate.Capacity(math.Round(part * float64(estimate.Slot)))
}

// taskTime returns Tm = Tr for e: the pooled formula (2), else its hint,
// else Config.DefaultTaskTime; ok false when there is none.
func (s *Scheduler) taskTime(e *entry) (time.Duration, bool) {
	if tt, err := estimate.PooledTaskTime(e.prog[:e.nph]); err == nil && tt.Known {
		return tt.Avg, true
	}
	if e.hint > 0 {
		return e.hint, true
	}
	if s.cfg.DefaultTaskTime > 0 {
		return s.cfg.DefaultTaskTime, true
	}
	return 0, false
}

// evaluate computes models 1 and 2 for e at now with cost so far cost.
//
// Times are taken as offsets from the epoch: now − submission is the
// same Duration whichever way it is computed, and this keeps time.Time
// arithmetic off the per-job path of a weight update.
func (s *Scheduler) evaluate(e *entry, now time.Time, cost float64) {
	ev := &e.ev
	*ev = eval{cost: cost}
	e.cache.lazy = false
	if !e.ttKnown {
		if e.prog[0].Unfinished() > 0 {
			ev.min.Map = 1
		}
		e.setMin()
		return
	}
	var rem estimate.Remaining
	var in MinInput
	ev.slotSecs, rem, in = s.modelInputs(e, int64(now.Sub(s.epoch)), cost)
	ev.m1 = Weight(WeightInput{
		Phi: e.phi, Remaining: rem.Time, CannotFinish: rem.CannotFinish, DeadlineLeft: in.DeadlineLeft,
		SlotSeconds: ev.slotSecs, Price: s.r.queues[e.queue].Price, BudgetLeft: e.budget - cost,
	})
	ev.min = MinimumSlots(in)
	e.setMin()
}

// modelInputs returns what models 1 and 2 read about e (task time known)
// at nowOff with cost so far cost: the remaining slot-seconds, formula
// (3) of package estimate at the job's capacity, and model 2's input.
func (s *Scheduler) modelInputs(e *entry, nowOff int64, cost float64) (float64, estimate.Remaining, MinInput) {
	var caps [2]estimate.Capacity
	for p := range e.nph {
		caps[p] = s.capacityFor(e, p)
	}
	return s.modelInputsAt(e, nowOff, cost, caps)
}

// workAt returns e's remaining slot-seconds (at least 0), formula (3) of
// package estimate at capacities caps, and each phase's work left, as
// model 2 reads it and in slot-seconds (PhaseWork.work), at nowOff.
func (e *entry) workAt(nowOff int64, caps [2]estimate.Capacity) (float64, estimate.Remaining, [2]PhaseWork, [2]float64) {
	tt := e.tt
	var loads [2]estimate.PhaseLoad
	var work [2]PhaseWork
	var secs [2]float64
	slotSecs := 0.0
	for p := range e.nph {
		pr := &e.prog[p]
		el := runningElapsed(pr.Running, pr.RunningStartSum, nowOff-e.sub)
		loads[p] = estimate.PhaseLoad{Unfinished: pr.Unfinished(), Elapsed: el, TaskTime: tt, Capacity: caps[p]}
		work[p] = PhaseWork{Unfinished: pr.Unfinished(), TaskTime: tt, Elapsed: el}
		secs[p] = work[p].work()
		slotSecs += secs[p]
	}
	rem, err := estimate.RemainingTime(loads[:e.nph])
	if err != nil { // counters were validated; cannot happen
		rem = estimate.Remaining{CannotFinish: true, Time: estimate.Horizon}
	}
	return max(slotSecs, 0), rem, work, secs
}

// runningElapsed is PhaseProgress.RunningElapsed on offsets: the summed
// elapsed time of running tasks that started at startSum in total (from
// the job's submission), since ns after the submission; at least 0.
func runningElapsed(running int, startSum time.Duration, since int64) time.Duration {
	if running <= 0 {
		return 0
	}
	return max(time.Duration(running)*time.Duration(since)-startSum, 0)
}

// modelInputsAt is modelInputs with e's capacities caps (capacityFor).
func (s *Scheduler) modelInputsAt(e *entry, nowOff int64, cost float64, caps [2]estimate.Capacity) (float64, estimate.Remaining, MinInput) {
	slotSecs, rem, work, _ := e.workAt(nowOff, caps)
	var dl, transfer time.Duration
	if e.hasDL {
		dl = time.Duration(e.dlOff - nowOff)
	}
	if s.cfg.TransferRate > 0 {
		transfer = e.transfer
	}
	return max(slotSecs, 0), rem, MinInput{
		Phi: e.phi, Map: work[0], Reduce: work[1], ReduceCapacity: caps[1],
		ReduceStarted: e.nph > 1 && e.prog[1].Running+e.prog[1].Finished > 0,
		DeadlineLeft:  dl, Transfer: transfer,
		Allowance: (e.budget - cost) / s.r.queues[e.queue].Price, Held: s.budgetHeld(e.held(0) + e.held(1)),
		ClusterSlots: [2]int{int(s.capK[0]), int(s.capK[1])},
	}
}

// budgetHeld is the slot count model 2's budget view spreads the
// allowance over for a job holding held slots: held, or 1 with
// Ablations.BudgetViewOneSlot.
func (s *Scheduler) budgetHeld(held int) int {
	if s.cfg.Ablations.BudgetViewOneSlot {
		return 1
	}
	return held
}
