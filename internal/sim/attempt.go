package sim

import (
	"math"
	"time"

	"github.com/schedkit/schedkit/internal/workload"
	"github.com/schedkit/schedkit/resource"
)

// attempt is the state of a running task attempt. Attempts are pooled by
// the simulator, so starting and ending tasks does not allocate.
type attempt struct {
	// The fields recompute reads for every running task of a node come
	// first, with the allocation's storage for up to allocInline kinds
	// (one or two cache lines instead of three allocations).
	alloc    resource.Vector
	profile  []workload.Stage
	stage    int
	waiting  bool
	allocArr [allocInline]float64
	allocBuf []float64
	plan     []AllocStep
	planBuf  []float64
	planIdx  int
	rem      float64 // isolated nanoseconds left in the current stage
	rate     float64
	// pace is the fraction of its full speed the attempt progresses at,
	// penalty excluded: the factor its compressible usage is scaled by.
	pace float64
	// planRem is the work (isolated nanoseconds) left before the plan's
	// next step; meaningful only while planNext.
	planRem    float64
	last       int64 // when rem was last brought up to date
	stageStart int64
	start      int64
	startSeq   uint64
	slot       int // position in node.running
	gslot      int // position in host.guests, -1 if none
	host       *Node
	pin        *Node       // Decision.Target of the assignment: host whatever the binding
	rec        *attemptRec // Config.RecordTasks only
	fresh      bool        // rem was just set: reschedule whatever the rate
	planNext   bool
	toPlan     bool // the scheduled progress event is a plan step, not a stage end
	// cAlloc and cLoad are the terms the attempt last contributed to its
	// node's incremental sums (world.fast); cExact says they were exact
	// (sums.go), cOn that they are in.
	cAlloc [allocInline]float64
	cLoad  [allocInline]float64
	cExact bool
	cOn    bool
}

// attemptRec is what a task record of an attempt accumulates: integrals
// since the start of allocation, actual usage and true demand (amount ×
// ns) up to intAt, and cost up to costAt.
type attemptRec struct {
	intAt                     int64
	allocSum, usedSum, demSum []float64
	cost                      float64
	costAt                    int64
}

// allocInline is the number of kinds an attempt's allocation holds in
// the attempt itself (attempt.allocArr); more are allocated apart.
const allocInline = 4

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

// dot is Σ p[k]·a[k] over positive amounts.
func dot(p, a resource.Vector) float64 {
	c := 0.0
	for k, x := range a {
		if x > 0 {
			c += p[k] * x
		}
	}
	return c
}
