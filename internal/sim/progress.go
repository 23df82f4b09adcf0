package sim

import (
	"math"

	"github.com/schedkit/schedkit/resource"
)

func (s *Sim) markDirty(n *Node) {
	if !n.dirty {
		n.dirty = true
		s.dirty = append(s.dirty, n)
	}
}

// demand returns what an attempt uses now of kind k: its current stage's
// demand; while waiting (slow-start), only the incompressible part of its
// first stage (memory held by an idle reducer).
func (s *Sim) demand(a *attempt, k int) float64 {
	if a.stage >= len(a.profile) {
		return 0
	}
	if a.waiting && s.compressible[k] {
		return 0
	}
	return a.profile[a.stage].Demand[k]
}

// load returns what an attempt puts on its node of kind k: its demand,
// capped at its allocation for compressible kinds under Limits (a quota
// cannot be exceeded, however idle the node).
func (s *Sim) load(a *attempt, k int) float64 {
	d := s.demand(a, k)
	if s.cfg.Enforcement == Limits && s.compressible[k] && d > a.alloc[k] {
		return a.alloc[k]
	}
	return d
}

// use returns what an attempt actually consumes of kind k: its demand of
// an incompressible kind, its demand times its pace of a compressible
// one (a task running at half speed uses half its demand).
func (s *Sim) use(a *attempt, k int) float64 {
	d := s.demand(a, k)
	if s.compressible[k] {
		return d * a.pace
	}
	return d
}

// settle brings every node touched by the last event up to date: exact
// allocation and usage, incompressible over-commits failed (most recently
// started task first, until the node fits), compression rates and the
// progress rate of every task they affect.
func (s *Sim) settle() {
	failed := false
	for i := 0; i < len(s.dirty); i++ {
		n := s.dirty[i]
		for {
			s.recompute(n)
			v := s.victim(n)
			if v == nil {
				break
			}
			s.overcommit(v)
			failed = true
		}
	}
	if failed {
		// A failure may have ended tasks (its job's, if it failed the
		// job) on nodes recomputed before it, and changed a host's
		// guests. Without one, nothing changed since each node's
		// recompute, which depends only on the node's own tasks and
		// guests: doing it again would give the same values.
		for _, n := range s.dirty {
			s.recompute(n)
		}
	}
	for _, n := range s.dirty {
		s.rateUpdates(n)
		n.dirty = false
	}
	for i := range s.dirty {
		s.dirty[i] = nil
	}
	s.dirty = s.dirty[:0]
}

func (s *Sim) recompute(n *Node) {
	if s.sumsHold(n) {
		// the same sums, bit for bit (sums.go)
		copy(n.alloc, n.incAlloc)
		for k := range n.used {
			n.used[k] = n.bg[k] + n.incLoad[k]
		}
	} else {
		s.recomputeFull(n)
	}
	for k := range n.avail {
		n.avail[k] = n.capacity[k] - n.alloc[k]
	}
	s.hot[n.idx].free = freeMask(n.avail)
	for _, k := range s.compKinds {
		rc, err := resource.CompressionRate(true, n.used[k], n.capacity[k])
		if err != nil { // amounts are finite and non-negative by construction
			rc = 0
		}
		if rc != n.rc[k] {
			n.rateAll = true
		}
		n.rc[k] = rc
	}
}

// recomputeFull adds up n's allocation and usage over its running tasks
// and guests; it rebuilds n's incremental sums if they were out of date
// and every term is exact again.
func (s *Sim) recomputeFull(n *Node) {
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
			n.used[k] += s.load(a, k)
		}
	}
	if s.fast && n.resync && n.inexact == 0 {
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
		for _, k := range s.offloadKinds {
			if home.offloaded[k] {
				n.alloc[k] += a.alloc[k]
				n.used[k] += s.load(a, k)
			}
		}
	}
}

// victim returns the task to fail for an incompressible over-commit on n:
// the most recently started among those using the over-committed kind.
func (s *Sim) victim(n *Node) *Task {
	for _, k := range s.incompKinds {
		if n.used[k] <= n.fullAt[k] {
			continue
		}
		var v *Task
		for _, t := range n.running {
			if s.demand(t.run, k) > 0 && (v == nil || t.run.startSeq > v.run.startSeq) {
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
func (s *Sim) rate(t *Task) (rate, pace float64) {
	a, n := t.run, t.node
	if a.waiting {
		return 0, 0
	}
	if a.stage >= len(a.profile) {
		return n.speed, 1
	}
	d := a.profile[a.stage].Demand
	pace, slow := 1.0, 1.0
	limits := s.cfg.Enforcement == Limits
	for _, k := range s.compKinds {
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
			f = g / (1 + s.cfg.Penalty + s.cfg.Contention.Penalty(rc))
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

func (s *Sim) updateRate(t *Task) {
	a := t.run
	r, pace := s.rate(t)
	if !a.fresh && r == a.rate && pace == a.pace {
		return
	}
	s.progress(a)
	if s.cfg.RecordTasks {
		s.integrate(a)
	}
	a.fresh = false
	switch {
	case a.rate > 0 && r == 0:
		s.progressing--
	case a.rate == 0 && r > 0:
		s.progressing++
	}
	a.rate, a.pace = r, pace
	t.ver++
	if r > 0 {
		// The next milestone: the end of the stage, or the plan's next
		// step if the task reaches it first.
		w := a.rem
		a.toPlan = a.planNext && a.planRem < w
		if a.toPlan {
			w = a.planRem
		}
		d := w / r
		at := maxAhead
		if d < float64(maxAhead-s.now) {
			at = s.now + int64(math.Ceil(d))
		}
		s.heap.push(at, evStage, t.gidx, t.ver)
	}
}

// progress brings an attempt's remaining work up to now at its current
// rate.
func (s *Sim) progress(a *attempt) {
	if s.now > a.last && a.rate > 0 {
		w := float64(s.now-a.last) * a.rate
		a.rem = math.Max(0, a.rem-w)
		if a.planNext {
			a.planRem = math.Max(0, a.planRem-w)
		}
	}
	a.last = s.now
}

// integrate adds the attempt's allocation, actual usage and demand since
// the last call to its task-record sums.
func (s *Sim) integrate(a *attempt) {
	r := a.rec
	if s.now <= r.intAt {
		return
	}
	dt := float64(s.now - r.intAt)
	for k := 0; k < s.k; k++ {
		r.allocSum[k] += a.alloc[k] * dt
		r.usedSum[k] += s.use(a, k) * dt
		r.demSum[k] += s.demand(a, k) * dt
	}
	r.intAt = s.now
}

func (s *Sim) stageCurrent(e *event) bool {
	t := s.tasks[e.a]
	return t.run != nil && t.ver == e.ver
}

// stageEnd moves t to its next stage, or completes it.
func (s *Sim) stageEnd(t *Task) {
	a := t.run
	if a.planNext {
		a.planRem = math.Max(0, a.planRem-a.rem)
	}
	if s.cfg.RecordTasks {
		s.integrate(a)
	}
	a.rem = 0
	a.stage++
	for a.stage < len(a.profile) && a.profile[a.stage].Duration == 0 {
		a.stageStart = s.now
		a.stage++
	}
	if a.stage >= len(a.profile) {
		s.succeed(t)
		return
	}
	a.rem = float64(a.profile[a.stage].Duration)
	a.stageStart, a.last, a.fresh = s.now, s.now, true
	s.contribute(t)
	s.markDirty(t.node)
	if a.host != nil {
		s.markDirty(a.host)
	}
}

// progressEvent handles t's progress event: a plan step or a stage end.
func (s *Sim) progressEvent(t *Task) {
	if t.run.toPlan {
		s.planStep(t)
		return
	}
	s.stageEnd(t)
}

// planStep moves t's plan to its next step: the task has done the
// current step's work. A step whose incompressible allocation no longer
// fits the node (others took the space since the assignment) is applied
// anyway and counted in Stats.PlanOvercommit; true usage over capacity
// then fails a task as usual.
func (s *Sim) planStep(t *Task) {
	a, n, j := t.run, t.node, t.job
	s.progress(a)
	if s.cfg.RecordTasks {
		s.integrate(a)
		s.accrueAttempt(t)
	}
	s.accrue(j)
	old := a.alloc
	a.planIdx++
	for a.planIdx+1 < len(a.plan) && a.plan[a.planIdx].Duration == 0 {
		a.planIdx++
	}
	a.alloc = a.plan[a.planIdx].Alloc
	a.planNext = a.planIdx+1 < len(a.plan)
	a.planRem = float64(a.plan[a.planIdx].Duration)
	_ = j.alloc.Sub(old)
	_ = j.alloc.Add(a.alloc)
	s.noteAlloc(j)
	over := false
	for k := range a.alloc {
		if n.offloaded[k] {
			continue
		}
		n.alloc[k] += a.alloc[k] - old[k]
		n.avail[k] -= a.alloc[k] - old[k]
		if !s.compressible[k] && a.alloc[k] > old[k] && n.avail[k] < -slack(n.capacity[k]) {
			over = true
		}
	}
	if over {
		s.stats.PlanOvercommit++
	}
	a.fresh = true
	s.contribute(t)
	s.markDirty(n)
	if a.host != nil {
		s.markDirty(a.host)
	}
}
