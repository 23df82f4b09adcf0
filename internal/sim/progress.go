package sim

import (
	"math"
	"time"
)

// How running attempts progress (the package doc, "Compression"): what
// each uses of each kind under the host's enforcement, its rate and
// pace under contention, the incompressible over-commits that fail one,
// the work done, and the integrals and charges of its task record.

// demand returns what an attempt uses now of kind k: its current stage's
// demand; while waiting (slow-start), only the incompressible part of its
// first stage (memory held by an idle reducer).
func (w *world) demand(a *attempt, k int) float64 {
	if a.stage >= len(a.profile) {
		return 0
	}
	if a.waiting && w.kinds.compressible[k] {
		return 0
	}
	return a.profile[a.stage].Demand[k]
}

// load returns what an attempt puts on its node of kind k: its demand,
// capped at its allocation for compressible kinds under Limits (a quota
// cannot be exceeded, however idle the node).
func (w *world) load(a *attempt, k int) float64 {
	d := w.demand(a, k)
	if w.model.enforcement == Limits && w.kinds.compressible[k] && d > a.alloc[k] {
		return a.alloc[k]
	}
	return d
}

// use returns what an attempt actually consumes of kind k: its demand of
// an incompressible kind, its demand times its pace of a compressible
// one (a task running at half speed uses half its demand).
func (w *world) use(a *attempt, k int) float64 {
	d := w.demand(a, k)
	if w.kinds.compressible[k] {
		return d * a.pace
	}
	return d
}

// recomputeFull adds up n's allocation and usage over its running tasks
// and guests; it rebuilds n's incremental sums if they were out of date
// and every term is exact again.
func (w *world) recomputeFull(n *Node) {
	copy(n.used, n.bg)
	for k := range n.alloc {
		n.alloc[k] = 0
	}
	for _, t := range n.running {
		a := t.run
		for k := range n.alloc {
			if n.offloaded[k] {
				continue
			}
			n.alloc[k] += a.alloc[k]
			n.used[k] += w.load(a, k)
		}
	}
	if w.fast && n.resync && n.inexact == 0 {
		clear(n.incAlloc)
		clear(n.incLoad)
		for _, t := range n.running {
			for k := range n.incAlloc {
				n.incAlloc[k] += t.run.cAlloc[k]
				n.incLoad[k] += t.run.cLoad[k]
			}
		}
		n.resync = false
	}
	for _, t := range n.guests {
		a, home := t.run, t.node
		for _, k := range w.kinds.offloadKinds {
			if home.offloaded[k] {
				n.alloc[k] += a.alloc[k]
				n.used[k] += w.load(a, k)
			}
		}
	}
}

// victim returns the task to fail for an incompressible over-commit on n:
// the most recently started among those using the over-committed kind.
func (w *world) victim(n *Node) *Task {
	for _, k := range w.kinds.incompKinds {
		if n.used[k] <= n.fullAt[k] {
			continue
		}
		var v *Task
		for _, t := range n.running {
			if w.demand(t.run, k) > 0 && (v == nil || t.run.startSeq > v.run.startSeq) {
				v = t
			}
		}
		if v != nil {
			return v
		}
	}
	return nil
}

// rate is t's progress in isolated time per unit of wall time, and pace
// the fraction of full speed it runs at (penalty excluded). Each
// compressible kind k the task demands now (d > 0) allows the factor
// f_k = g_k·(1 − rc_k), divided by (1 + p) when rc_k > 0 (p =
// Config.Penalty + Config.Contention.Penalty(rc_k)): rc_k is the
// formula-(1) compression of k on the node serving it (its true demand
// over capacity, formula (5)), and g_k = min(1, a/d) under Limits (the
// task's own quota, formula (4) with rc = 1 − a/d), 1 under Shares. The
// slowest kind sets the pace: rate = speed · min_k f_k. An uncontended
// task given its demand runs at the node's speed. The rate is 0 while
// waiting, or when an offloaded kind it needs has no bound node.
func (w *world) rate(t *Task) (rate, pace float64) {
	a, n := t.run, t.node
	if a.waiting {
		return 0, 0
	}
	if a.stage >= len(a.profile) {
		return n.speed, 1
	}
	d := a.profile[a.stage].Demand
	pace, slow := 1.0, 1.0
	limits := w.model.enforcement == Limits
	for _, k := range w.kinds.compKinds {
		if d[k] <= 0 {
			continue
		}
		h := n
		if n.offloaded[k] {
			if h = a.host; h == nil {
				return 0, 0
			}
		}
		g := 1.0
		if limits && a.alloc[k] < d[k] {
			g = a.alloc[k] / d[k]
		}
		f := g
		if rc := h.rc[k]; rc > 0 {
			g *= 1 - rc
			f = g / (1 + w.model.penalty + w.model.contention.Penalty(rc))
		}
		pace = math.Min(pace, g)
		slow = math.Min(slow, f)
	}
	if slow <= 0 {
		return 0, 0
	}
	return n.speed * slow, math.Max(pace, 0)
}

// maxAhead bounds how far ahead a stage event is scheduled.
const maxAhead = int64(1) << 61

// updateRate brings t's rate and pace up to date and, if they moved or
// its work was just set, reschedules its next progress event.
func (w *world) updateRate(t *Task) {
	a := t.run
	r, pace := w.rate(t)
	if !a.fresh && r == a.rate && pace == a.pace {
		return
	}
	w.progress(a)
	if w.recordTasks {
		w.integrate(a)
	}
	a.fresh = false
	switch {
	case a.rate > 0 && r == 0:
		w.progressing--
	case a.rate == 0 && r > 0:
		w.progressing++
	}
	a.rate, a.pace = r, pace
	t.ver++
	if r > 0 {
		// The next milestone: the end of the stage, or the plan's next
		// step if the task reaches it first.
		work := a.rem
		a.toPlan = a.planNext && a.planRem < work
		if a.toPlan {
			work = a.planRem
		}
		d := work / r
		at := maxAhead
		if d < float64(maxAhead-w.eng.now) {
			at = w.eng.now + int64(math.Ceil(d))
		}
		w.eng.q.push(at, evStage, t.gidx, t.ver)
	}
}

// progress brings an attempt's remaining work up to now at its current
// rate.
func (w *world) progress(a *attempt) {
	now := w.eng.now
	if now > a.last && a.rate > 0 {
		wk := float64(now-a.last) * a.rate
		a.rem = math.Max(0, a.rem-wk)
		if a.planNext {
			a.planRem = math.Max(0, a.planRem-wk)
		}
	}
	a.last = now
}

// integrate adds the attempt's allocation, actual usage and demand since
// the last call to its task-record sums.
func (w *world) integrate(a *attempt) {
	r := a.rec
	now := w.eng.now
	if now <= r.intAt {
		return
	}
	dt := float64(now - r.intAt)
	for k := 0; k < w.k; k++ {
		r.allocSum[k] += a.alloc[k] * dt
		r.usedSum[k] += w.use(a, k) * dt
		r.demSum[k] += w.demand(a, k) * dt
	}
	r.intAt = now
}

// accrueAttempt charges t's running attempt since its last charge (task
// records only).
func (w *world) accrueAttempt(t *Task) {
	a := t.run
	r := a.rec
	now := w.eng.now
	if p := t.job.Price(); p != nil && now > r.costAt {
		r.cost += dot(p, a.alloc) * time.Duration(now-r.costAt).Seconds()
	}
	r.costAt = now
}
