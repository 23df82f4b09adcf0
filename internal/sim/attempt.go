package sim

import (
	"math"

	"github.com/schedkit/schedkit/resource"
)

// The world's side of a task attempt's life: started on a node, its
// stages and plan steps, stopped (the attempt type is in task.go, with
// the task it runs).

// getAttempt returns an attempt to start, from the pool when it can.
func (w *world) getAttempt() *attempt {
	if n := len(w.pool); n > 0 {
		a := w.pool[n-1]
		w.pool = w.pool[:n-1]
		return a
	}
	a := &attempt{}
	if w.k <= allocInline {
		a.allocBuf = a.allocArr[:w.k:w.k]
	} else {
		a.allocBuf = make([]float64, w.k)
	}
	if w.recordTasks {
		sums := make([]float64, 3*w.k)
		a.rec = &attemptRec{allocSum: sums[:w.k:w.k], usedSum: sums[w.k : 2*w.k : 2*w.k], demSum: sums[2*w.k:]}
	}
	return a
}

// putAttempt returns an ended attempt to the pool.
func (w *world) putAttempt(a *attempt) {
	a.profile, a.plan, a.host, a.pin = nil, a.plan[:0], nil, nil
	w.pool = append(w.pool, a)
}

// start starts an attempt of t on n (the decision was validated) with
// allocation alloc (nil: t's request) or plan: on the node's lists and
// in its allocation and sums, the node dirty. pin, if set, serves its
// offloaded demand instead of n's binding. The task's own state is the
// book's to change (book.started).
func (w *world) start(t *Task, n *Node, alloc resource.Vector, plan []AllocStep, pin *Node) *attempt {
	a := w.getAttempt()
	if len(plan) > 0 {
		need := len(plan) * w.k
		if cap(a.planBuf) < need {
			a.planBuf = make([]float64, need)
		}
		a.planBuf = a.planBuf[:need]
		for i := range plan {
			v := resource.Vector(a.planBuf[i*w.k : (i+1)*w.k : (i+1)*w.k])
			copy(v, plan[i].Alloc)
			a.plan = append(a.plan, AllocStep{Duration: plan[i].Duration, Alloc: v})
		}
		a.planIdx = 0
		for a.planIdx+1 < len(a.plan) && a.plan[a.planIdx].Duration == 0 {
			a.planIdx++
		}
		a.alloc = a.plan[a.planIdx].Alloc
		a.planNext = a.planIdx+1 < len(a.plan)
		a.planRem = float64(a.plan[a.planIdx].Duration)
	} else {
		a.planNext = false
		if alloc == nil {
			alloc = t.spec.Requested
		}
		copy(a.allocBuf, alloc)
		a.alloc = a.allocBuf
	}
	var host *Node
	if n.offload {
		host = n.bound
		if pin != nil {
			host, a.pin = pin, pin
		}
	}
	a.gslot, a.host = -1, host // provisional, for Task.Host in Config.Profile
	t.run, t.node = a, n
	a.profile = t.spec.Profile
	if w.profile != nil {
		a.profile = w.profile(t, n)
	}
	a.host = nil
	a.stage, a.rate, a.pace, a.fresh, a.toPlan = 0, 0, 0, true, false
	a.rem = 0
	if len(a.profile) > 0 {
		a.rem = float64(a.profile[0].Duration)
	}
	now := w.eng.now
	a.last, a.stageStart, a.start = now, now, now
	if w.recordTasks {
		r := a.rec
		r.intAt, r.costAt, r.cost = now, now, 0
		clear(r.allocSum)
		clear(r.usedSum)
		clear(r.demSum)
	}
	w.startSeq++
	a.startSeq = w.startSeq
	a.waiting = !t.job.PhaseComputes(t.phase)

	a.slot = len(n.running)
	n.running = append(n.running, t)
	if host != nil {
		w.addGuest(host, t)
	}
	for k := range a.alloc {
		if !n.offloaded[k] {
			n.alloc[k] += a.alloc[k]
			n.avail[k] -= a.alloc[k]
		}
	}
	w.running++
	w.contribute(t)
	w.markDirty(n)
	return a
}

// end stops t's running attempt and frees what it held on its node
// (and host), and returns the node.
func (w *world) end(t *Task) *Node {
	a, n := t.run, t.node
	w.withdraw(a, n)
	for k := range a.alloc {
		if !n.offloaded[k] {
			n.alloc[k] -= a.alloc[k]
			n.avail[k] += a.alloc[k]
		}
	}
	last := len(n.running) - 1
	moved := n.running[last]
	n.running[a.slot] = moved
	moved.run.slot = a.slot
	n.running[last] = nil
	n.running = n.running[:last]
	if a.host != nil {
		w.removeGuest(t)
	}
	if a.rate > 0 {
		w.progressing--
	}
	w.running--
	w.markDirty(n)
	t.run, t.node = nil, nil
	t.ver++ // its pending stage event is now stale
	w.putAttempt(a)
	return n
}

// stageCurrent reports whether a progress event of task t (version
// ver) is still due: t runs and its progress has not been rescheduled
// since.
func stageCurrent(t *Task, ver uint32) bool { return t.run != nil && t.ver == ver }

// stageEnd moves t to its next stage and reports whether it has none
// left (its work is done).
func (w *world) stageEnd(t *Task) (done bool) {
	a := t.run
	if a.planNext {
		a.planRem = math.Max(0, a.planRem-a.rem)
	}
	if w.recordTasks {
		w.integrate(a)
	}
	now := w.eng.now
	a.rem = 0
	a.stage++
	for a.stage < len(a.profile) && a.profile[a.stage].Duration == 0 {
		a.stageStart = now
		a.stage++
	}
	if a.stage >= len(a.profile) {
		return true
	}
	a.rem = float64(a.profile[a.stage].Duration)
	a.stageStart, a.last, a.fresh = now, now, true
	w.contribute(t)
	w.markDirty(t.node)
	if a.host != nil {
		w.markDirty(a.host)
	}
	return false
}

// planStep moves t's plan to its next step: the task has done the
// current step's work. It returns the step's allocation it left, and
// reports whether the new one no longer fits the node in an
// incompressible kind (others took the space since the assignment: it
// is applied anyway, Stats.PlanOvercommit; true usage over capacity
// then fails a task as usual).
func (w *world) planStep(t *Task) (old resource.Vector, over bool) {
	a, n := t.run, t.node
	w.progress(a)
	if w.recordTasks {
		w.integrate(a)
		w.accrueAttempt(t)
	}
	old = a.alloc
	a.planIdx++
	for a.planIdx+1 < len(a.plan) && a.plan[a.planIdx].Duration == 0 {
		a.planIdx++
	}
	a.alloc = a.plan[a.planIdx].Alloc
	a.planNext = a.planIdx+1 < len(a.plan)
	a.planRem = float64(a.plan[a.planIdx].Duration)
	for k := range a.alloc {
		if n.offloaded[k] {
			continue
		}
		n.alloc[k] += a.alloc[k] - old[k]
		n.avail[k] -= a.alloc[k] - old[k]
		if !w.kinds.compressible[k] && a.alloc[k] > old[k] && n.avail[k] < -slack(n.capacity[k]) {
			over = true
		}
	}
	a.fresh = true
	w.contribute(t)
	w.markDirty(n)
	if a.host != nil {
		w.markDirty(a.host)
	}
	return old, over
}

// startComputing lets the waiting attempts among tasks compute: every
// earlier phase of their job finished.
func (w *world) startComputing(tasks []*Task) {
	for _, t := range tasks {
		if t.run != nil && t.run.waiting {
			if w.recordTasks {
				w.integrate(t.run)
			}
			t.run.waiting = false
			t.run.stageStart = w.eng.now
			w.contribute(t)
			w.markDirty(t.node)
			if t.run.host != nil {
				w.markDirty(t.run.host)
			}
		}
	}
}
