package lss

import (
	"time"

	"github.com/schedkit/schedkit"
	"github.com/schedkit/schedkit/estimate"
)

// The two wave models of the options WaveRemaining and OptimisticKill.
// Formula (3) spreads the running tasks' elapsed time over the whole
// cluster's slots (ΣR/S) and charges a whole task time for each phase's
// last, partial wave. On a large cluster a job whose unfinished tasks
// fit in one wave gets almost no credit for them: 600 maps, all running
// and 90% done, on 1,200 slots still show 0.55 Tavg for the maps (they
// need 0.1 Tavg). Both models look at a phase as a wave of running tasks
// followed by waves of pending ones, and credit the running wave with its
// tasks' mean elapsed time ⌊ΣR/R⌋.
//
// For phase p with task time t, R running tasks of mean elapsed e, P
// pending tasks, and capacity S (F = max(⌊S⌋ − R, 0) of it free):
//
//   - wave model (WaveRemaining), t the figure formula (3) uses (pooled,
//     per-phase or prior): with no running task, ⌈P/S⌉·t as in
//     formula (3). Otherwise the running wave ends after run = max(t −
//     e, 0); N = min(P, F) pending tasks start now on the free slots and
//     take t; the other P − N follow in ⌈(P − N)/S⌉ waves of t, after the
//     running wave if no pending task could start now, else after t:
//     time = (N > 0 ? t : run) + ⌈(P − N)/S⌉·t;
//   - optimistic model (OptimisticKill), t the lower of the phase's own
//     average and the pooled one, or zero while the phase has finished
//     no task (optimisticTaskTime): every pending task runs at once
//     beside the running ones on all S slots: time = max(run, ⌈P/S⌉·t).
//
// Phases follow one another, so a job's time is the sum over its phases.
// Work is each phase's waves at t, Credit what the running wave has
// done (Work − time), so Time = Work − Credit as in formula (3). A phase
// with unfinished tasks and no capacity is NoCapacity, and work beyond
// estimate.Horizon CannotFinish, as in formula (3).
//
// Both only move with now through e, which grows, so a job's time never
// increases between two changes of its counters or of the capacity, and
// its spare time falls no faster than now advances: the fast path's
// static keys and kill bounds hold under them (dynamicKillBound).

// waveModel selects one of the two models.
type waveModel uint8

const (
	waveEstimate   waveModel = iota // WaveRemaining
	waveOptimistic                  // OptimisticKill
)

// phaseTaskTime returns the task time formula (3) prices phase p of e at
// under the configured options: the pooled average, or with
// PerPhaseTaskTime the phase's own, or with PhaseTaskTimeHints its prior
// until it has finished tasks (estimate.PriorTaskTime). e's counters and
// hints were validated at its snapshot, so no error can arise.
func (s *Scheduler) phaseTaskTime(e *entry, p int, pooled estimate.TaskTime) time.Duration {
	switch {
	case s.cfg.PhaseTaskTimeHints:
		t, _ := estimate.PriorTaskTime(e.prog[p], pooled, e.hint[p], s.cfg.PerPhaseTaskTime)
		return t.Avg
	case s.cfg.PerPhaseTaskTime:
		t, _ := estimate.PhaseTaskTime(e.prog[p], pooled)
		return t.Avg
	}
	return pooled.Avg
}

// optimisticTaskTime is the task time the optimistic model prices a phase
// at: the lower of the phase's own average and the pooled one, or zero
// while the phase has no finished task (nothing known about it bounds
// it from below: a reduce's time is not a map's).
func optimisticTaskTime(pr *schedkit.PhaseProgress, pooled estimate.TaskTime) time.Duration {
	if pr.Finished == 0 {
		return 0
	}
	t, _ := estimate.PhaseTaskTime(*pr, pooled)
	return min(t.Avg, pooled.Avg)
}

// waveRemaining returns e's remaining time under model m, sinceSubmit
// after its submission, on capacities caps, with pooled (known) as the
// pooled average task time.
func (s *Scheduler) waveRemaining(m waveModel, e *entry, sinceSubmit time.Duration, caps []estimate.Capacity, pooled estimate.TaskTime) estimate.Remaining {
	var r estimate.Remaining
	for p := range e.prog {
		pr := &e.prog[p]
		u := pr.Total - pr.Finished
		if u <= 0 {
			continue
		}
		c := caps[p]
		if c <= 0 {
			r.CannotFinish, r.NoCapacity = true, true
			continue
		}
		if r.CannotFinish {
			continue // keep looking for NoCapacity
		}
		t := s.phaseTaskTime(e, p, pooled)
		if m == waveOptimistic {
			t = optimisticTaskTime(pr, pooled)
		}
		work, credit, ok := phaseWaves(m, pr, u, sinceSubmit, t, c)
		if !ok || work > estimate.Horizon-r.Work {
			r.CannotFinish = true
			continue
		}
		r.Work += work
		r.Credit += credit
	}
	if r.CannotFinish {
		return estimate.Remaining{Time: estimate.Horizon, Work: estimate.Horizon, CannotFinish: true, NoCapacity: r.NoCapacity}
	}
	r.Time = r.Work - r.Credit
	return r
}

// phaseWaves returns one phase's work and credit under model m (see the
// comment at the top of the file): u > 0 unfinished tasks, task time t,
// capacity c > 0. ok is false when the work exceeds estimate.Horizon.
func phaseWaves(m waveModel, pr *schedkit.PhaseProgress, u int, sinceSubmit, t time.Duration, c estimate.Capacity) (work, credit time.Duration, ok bool) {
	running := pr.Running
	pending := u - running
	var run, done time.Duration // the running wave's time left and done
	if running > 0 {
		e := estimate.RunningElapsed(pr, sinceSubmit) / time.Duration(running)
		done = min(e, t)
		run = t - done
	}
	waves := func(n int) (time.Duration, bool) {
		w, _ := estimate.Waves(n, c) // c > 0: always ok
		if w > 0 && t > 0 && w > int64(estimate.Horizon/t) {
			return 0, false
		}
		return time.Duration(w) * t, true
	}
	switch m {
	case waveOptimistic:
		later, ok := waves(pending)
		if !ok {
			return 0, 0, false
		}
		if running > 0 && run > later {
			return t, done, true
		}
		return later, 0, true
	default:
		if running == 0 {
			w, ok := waves(pending)
			return w, 0, ok
		}
		free := max(int64(c/estimate.Slot)-int64(running), 0)
		now := int(min(int64(pending), free))
		later, ok := waves(pending - now)
		if !ok || later > estimate.Horizon-t {
			return 0, 0, false
		}
		if now > 0 {
			return t + later, 0, true
		}
		return t + later, done, true
	}
}
