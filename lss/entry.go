package lss

import (
	"strings"
	"time"

	"github.com/schedkit/schedkit"
	"github.com/schedkit/schedkit/estimate"
)

// Spare-time classes, the first component of the queue order.
const (
	classNegInf  int8 = iota // spare −∞: a phase cannot finish
	classFinite              // spare time known (formula (4) or (5))
	classNoLimit             // no deadline: spare +∞, after every deadline job
)

// entry is one queued job: the host's job, a snapshot of its counters
// taken at Submit and Update, and the fast path's index state.
type entry struct {
	job      schedkit.Job
	id       schedkit.JobID
	sub, dl  int64 // offsets from the epoch
	hasDL    bool
	deadline time.Time                // as the job gave it
	prog     []schedkit.PhaseProgress // snapshot, one per phase of the job
	hint     []time.Duration          // PhaseTaskTimeHints: per phase, 0 for none (snapshot)
	out      []int                    // tasks assigned since the last Update, per phase
	// reported is set once an Infeasible decision was made (soft mode).
	reported bool
	alive    bool
	allPos   int // position in Scheduler.all

	// The values below belong to the fast path (fast.go).
	static  sKey  // order key while static (constant between events)
	dynamic bool  // running tasks and Tavg known: spare moves with time
	killAt  int64 // static: killed/infeasible once now > killAt
	// dynKill (dynamic): no kill rule can hold while now ≤ dynKill, so a
	// heartbeat need not evaluate the job for its kills (dynamicKillBound).
	dynKill int64
	pos     []int32 // position in each heap, -1 when absent
	dynPos  int32   // position in Scheduler.dyn, -1 when absent
	touched bool    // assigned tasks in the current heartbeat

	// cur is the job's evaluation at heartbeat number evalSeq.
	cur     eval
	evalSeq uint64
}

// sKey is a static order key: spare(now) = key − now.
type sKey struct {
	class int8
	key   int64
}

// eval is a job's figures at one instant.
type eval struct {
	tavg  estimate.TaskTime
	rem   estimate.Remaining
	spare estimate.Spare
	class int8
	value int64 // spare time in ns when class is classFinite

	// The kill rule's figures (killReason): it holds (with Tavg known)
	// when kneg, or when slack < 0, unless knocap. Without
	// OptimisticKill: kneg is class == classNegInf, knocap is
	// rem.NoCapacity and slack is value + Tavg.
	kneg, knocap bool
	slack        int64
}

// cmpOrder is the queue order at one instant, given each job's spare
// class and value: least spare time first; ties by earlier deadline,
// earlier submission, then ID. Jobs without deadline come last, by
// submission then ID.
func cmpOrder(ac int8, av int64, a *entry, bc int8, bv int64, b *entry) int {
	if ac != bc {
		return int(ac) - int(bc)
	}
	if ac == classFinite && av != bv {
		if av < bv {
			return -1
		}
		return 1
	}
	if ac != classNoLimit && a.dl != b.dl {
		if a.dl < b.dl {
			return -1
		}
		return 1
	}
	if a.sub != b.sub {
		if a.sub < b.sub {
			return -1
		}
		return 1
	}
	return strings.Compare(string(a.id), string(b.id))
}

// fresh reports whether the job has no finished, running or assigned
// task: the condition of Algorithm 1's first pass.
func (e *entry) fresh() bool {
	for p := range e.prog {
		if e.prog[p].Finished != 0 || e.prog[p].Running != 0 || e.out[p] != 0 {
			return false
		}
	}
	return true
}

func (e *entry) anyRunning() bool {
	for p := range e.prog {
		if e.prog[p].Running != 0 {
			return true
		}
	}
	return false
}

// avail returns the ready tasks of phase p not yet assigned.
func (e *entry) avail(p int) int {
	if p >= len(e.prog) {
		return 0
	}
	return max(e.prog[p].Ready-e.out[p], 0)
}

// evaluate computes formulas (2)–(5) for e at now on capacities caps
// (one per configured phase), by estimate.Evaluate on the counters
// validated at the job's snapshot. Both implementations call it, so they
// agree to the nanosecond.
func (s *Scheduler) evaluate(e *entry, now int64, caps []estimate.Capacity) eval {
	opt := estimate.Options{PerPhase: s.cfg.PerPhaseTaskTime}
	if s.cfg.PhaseTaskTimeHints {
		opt.Priors = e.hint
	}
	since, left := time.Duration(now-e.sub), time.Duration(e.dl-now)
	est := estimate.Evaluate(estimate.Counters{
		Phases:      e.prog,
		Capacity:    caps,
		SinceSubmit: since,
		Left:        left,
		NoDeadline:  !e.hasDL,
	}, opt)
	if s.cfg.WaveRemaining && est.TaskTime.Known {
		est.Remaining = s.waveRemaining(waveEstimate, e, since, caps, est.TaskTime)
		if e.hasDL {
			est.Spare = estimate.SpareLeft(left, est.Remaining)
		}
	}
	ev := eval{tavg: est.TaskTime, rem: est.Remaining, spare: est.Spare}
	switch {
	case !e.hasDL:
		ev.class = classNoLimit
		return ev
	case est.Spare.CannotFinish:
		ev.class = classNegInf
	default:
		ev.class = classFinite
		ev.value = int64(est.Spare.Time)
	}
	ev.kneg, ev.knocap = ev.class == classNegInf, ev.rem.NoCapacity
	if ev.class == classFinite {
		ev.slack = ev.value + threshold(ev.tavg)
	}
	if s.cfg.OptimisticKill && ev.tavg.Known {
		r := s.waveRemaining(waveOptimistic, e, since, caps, ev.tavg)
		sp := estimate.SpareLeft(left, r)
		ev.kneg, ev.knocap, ev.slack = sp.CannotFinish, r.NoCapacity, 0
		if !sp.CannotFinish {
			ev.slack = int64(sp.Time)
		}
	}
	return ev
}

// threshold is Tavg for the kill rule, clamped at Horizon.
func threshold(t estimate.TaskTime) int64 {
	return int64(min(t.Avg, estimate.Horizon))
}

// killReason applies the kill rules of Algorithm 1 lines 4–5 to an
// evaluation at now: deadline passed, else Spare + Tavg < 0 with Tavg
// known (−∞ spare included; with OptimisticKill, Deadline − Now −
// Optimistic < 0) — except while a phase with unfinished work has no
// capacity at all (a rolling restart): that is the cluster's state, not
// the job's, and no early kill is made on it.
func killReason(e *entry, ev *eval, now int64) Reason {
	if !e.hasDL {
		return NoReason
	}
	if now > e.dl {
		return DeadlinePassed
	}
	if ev.tavg.Known && !ev.knocap && (ev.kneg || ev.slack < 0) {
		return SpareExhausted
	}
	return NoReason
}

// figures converts an evaluation to the exported Figures.
func (s *Scheduler) figures(e *entry, ev *eval, now time.Time) Figures {
	return Figures{Now: now, Deadline: e.deadline, Spare: ev.spare, TaskTime: ev.tavg, Remaining: ev.rem}
}
