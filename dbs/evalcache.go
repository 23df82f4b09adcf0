package dbs

import (
	"math"
	"time"

	"github.com/schedkit/schedkit/estimate"
)

// evalKey is what the cached part of a job's evaluation depends on,
// besides the job's fixed figures (φ, budget, submission, deadline, data
// sizes) and the configuration: the slots it holds, its counters (gen
// counts the snapshots), its queue (the price) and its queue's equal
// parts of the guarantees (parts numbers them: Scheduler.partsGen), which
// with the slots held give the capacity available to it per phase
// (capacityFor; evalCache.caps). It is compared for every job at every
// weight update, so it holds no capacities: building and comparing
// those cost a tenth of an update's instructions.
type evalKey struct {
	held  [2]int32
	gen   uint32
	queue Queue
	valid bool
	parts uint64
}

// evalCache holds the figures of a job's last evaluation that depend on
// neither now nor its cost so far while none of its tasks runs: between
// two weight updates only now and the cost move for most jobs, so an
// update re-evaluates only the time- and cost-dependent part (model 1's
// ratios, model 2's deadline view, and its budget view when the cost
// changed). A job with running tasks keeps formula (3)'s waves, each
// phase's fixed work and model 2's other terms, and recomputes what their
// elapsed time moves: the credit, the work left and both views.
type evalCache struct {
	// What every evaluation of a job with a task time reads, then what
	// one with running tasks reads, then one without: each path reads
	// consecutive cache lines.
	key      evalKey
	wavesSet bool // terms set but, with tasks running, their work left
	static   bool // slotSecs, rem and terms set (no task running)
	// lazy: the last weight update skipped the job as lapsed (settled);
	// e.ev is that update's evaluation only once materialize has
	// computed it from this cache.
	lazy    bool
	until   int64 // lapsed (settled): W₁ and minimums hold while now ≤ until
	budOK   bool  // budget set, and the last evaluation's at the key (no task running)
	running bool  // a task runs (e.running at the key)
	// frozen: the last weight update that evaluated the job froze it
	// (settled); e.ev holds that evaluation, and its deadline view's
	// window and latest reduce start are those of the update that
	// computed it, not of later ones (Status derives them: frozenDeadline).
	frozen bool
	caps   [2]estimate.Capacity // capacity per phase at the key (capacityFor)
	terms  viewTerms
	w1     float64 // the last evaluation's W₁

	// With tasks running (wavesSet): formula (3) without the running
	// tasks' credit, and per phase the work left before their elapsed
	// time (PhaseWork.fixedWork) and their count and start sum.
	rem0  estimate.Remaining
	fixed [2]float64
	run   [2]int
	rss   [2]time.Duration

	// Set once per key with no task running (static); with tasks
	// running, set by every evaluation (runningAt), as is terms' work
	// left.
	slotSecs float64
	rem      estimate.Remaining
	budget   MinView // budget view at budCost
	budCost  float64
}

// setRunning sets c's figures for a job with running tasks (wavesSet):
// those of workAt that do not depend on now, at capacities caps.
func (c *evalCache) setRunning(e *entry, caps [2]estimate.Capacity) {
	var loads [2]estimate.PhaseLoad
	c.fixed, c.run, c.rss = [2]float64{}, [2]int{}, [2]time.Duration{}
	for p := range e.nph {
		pr := &e.prog[p]
		loads[p] = estimate.PhaseLoad{Unfinished: pr.Unfinished(), TaskTime: e.tt, Capacity: caps[p]}
		c.fixed[p] = PhaseWork{Unfinished: pr.Unfinished(), TaskTime: e.tt}.fixedWork()
		c.run[p], c.rss[p] = pr.Running, pr.RunningStartSum
	}
	rem, err := estimate.RemainingTime(loads[:e.nph])
	if err != nil { // as workAt
		rem = estimate.Remaining{CannotFinish: true, Time: estimate.Horizon}
	}
	c.rem0 = rem
}

// runningAt sets c.slotSecs and c.rem to workAt's slot-seconds and
// formula (3), and c.terms' work left per phase to PhaseWork.work in
// slot-seconds (as viewTermsOf), for a job with running tasks from its
// cached figures (setRunning) at nowOff: the same values.
func (c *evalCache) runningAt(e *entry, nowOff int64) {
	var els [2]time.Duration
	var secs [2]float64
	slotSecs := 0.0
	for p := range e.nph {
		el := runningElapsed(c.run[p], c.rss[p], nowOff-e.sub)
		els[p] = el
		secs[p] = c.fixed[p] - el.Seconds() // PhaseWork.work
		slotSecs += secs[p]
	}
	c.slotSecs = max(slotSecs, 0)
	c.rem = c.rem0.WithElapsed(els[:e.nph], c.caps[:e.nph])
	c.terms.mapWork, c.terms.redWork = secs[0], secs[1]
}

// settled marks a job whose figures the next weight update would leave
// as they are, so that it skips the job without reading its entry (a
// weight update walks every job: at trace scale thousands of them, most
// waiting with nothing changing). Two kinds:
//
//   - A job without a task time that an update evaluated, and whose
//     weight and model-3 marks it set (W = 0, no marks), at cost so far
//     cost: until its counters change (Update clears ok) or its cost
//     does, a later update would write the same figures. Such a job is
//     never moved, and its W₁ of 0 adds nothing to its queue's sum (a
//     sum of non-negative weights from +0, so adding +0 leaves it bit
//     for bit as it is).
//   - A frozen job (frozen reports which): task time known, no task
//     running, evaluation independent of now (φ = 0, or its deadline
//     passed), and holding the slots it needs (model 3 then sets W = W₁
//     and clears the marks, whatever the queue's average) or stuck
//     short of them (Scheduler.stuck: model 3 sets the same raised
//     weight and marks and cannot move it). Until its
//     counters or slots held change (Update, a Heartbeat assigning it a
//     slot), its cost does, or its queue's parts of the guarantees do
//     (parts, Scheduler.partsGen), a later update would compute the same
//     W₁ = base, minimums and evaluation but for the deadline view's
//     window and latest reduce start, which Status derives from the
//     cached terms (frozenDeadline), and leave the weight and marks as they
//     are: the update adds base to its queue's sum, in its place.
//   - A frozen job with φ = 1 and a positive task time or no work left
//     (capsFree) stays frozen when its queue's parts change: formula (3)
//     without running tasks is Σ⌈U/S⌉·Tr, positive for any capacity S
//     when work is left and Tr > 0 (CannotFinish at none), so past the
//     deadline W₁ is MaxTerm at every capacity (0 with no work left),
//     and the deadline view is unmeetable (its window is not positive)
//     or empty (no work) at every capacity; φ = 1 reads no cost either.
//     Only the view's latest reduce start moves with the reduce waves,
//     which Status recomputes at the last update's parts.
//   - A lapsed job (lapsedUntil): task time known, tasks running, φ = 1,
//     its deadline passed. Model 1's W₁ is MaxTerm or 0 (formula (3)
//     at or below zero) and model 2's minimums are 0 (the deadline view
//     is unmeetable, or has no work, at every window ≤ 0), whatever the
//     tasks' elapsed time, but for W₁ falling from MaxTerm to 0 once
//     formula (3) reaches zero, which cannot happen before until. Until
//     then, while its counters, slots held, queue and queue's parts stay
//     (Update, a Heartbeat assigning it a slot, a move or a new parts
//     number end it), an update gives it model 3 with the same figures
//     (base, slots held and needed) but need not evaluate it: e.ev is
//     computed when read (materialize). Its cost is not part of it
//     (φ = 1 reads none but for a move's figures, taken at the update).
//
// A settled job's cost is the one it settled at: readCosts clears ok
// when it reads another. The update walks every job's settled, so it is
// kept to 24 bytes (a lapsed job's bound is in its entry: evalCache.until).
type settled struct {
	base     float64 // W₁ (frozen, lapsed)
	parts    uint64  // the queue's parts' number (frozen, lapsed)
	q        Queue   // its queue (frozen, lapsed)
	frozen   bool
	capsFree bool
	lapsed   bool
	ok       bool
}

// lapsedUntil reports whether e, just evaluated in full by a weight
// update at nowOff (its cache holds formula (3) at nowOff), is lapsed
// (see settled), and until when its W₁ and minimums hold. Formula (3) is
// Work − Credit with Work fixed by the key and Credit = Σₚ ⌊ΣRₚ/Sₚ⌋
// (capped at Horizon): ΣRₚ grows by at most runₚ per ns, so Credit by at
// most K = Σₚ ⌈runₚ·Slot/Sₚ⌉ per ns (floors and the cap only lower it),
// and formula (3) stays positive while (now − nowOff)·K < its value.
func lapsedUntil(e *entry, f *tickFigs, nowOff int64) (bool, int64) {
	c := &e.cache
	if !f.ttKnown || !e.running || !c.running || e.phi != 1 || !e.hasDL || e.dlOff > nowOff {
		return false, 0
	}
	rem := &c.rem
	if rem.CannotFinish || rem.Time <= 0 {
		return true, math.MaxInt64 // W₁ MaxTerm, or 0, for good
	}
	var k int64
	for p := range e.nph {
		if run := int64(c.run[p]); run > 0 {
			if c.caps[p] <= 0 {
				return false, 0 // no capacity: formula (3) cannot finish; not met here
			}
			k += (run*int64(estimate.Slot) + int64(c.caps[p]) - 1) / int64(c.caps[p])
		}
	}
	if k == 0 {
		return false, 0
	}
	return true, nowOff + (int64(rem.Time)-1)/k
}

// materialize computes e.ev of a job a weight update skipped as lapsed:
// the evaluation at that update (evalCached from the cache it kept).
func (s *Scheduler) materialize(e *entry) {
	c := &e.cache
	if !c.lazy {
		return
	}
	c.lazy = false
	// At that update's now, with the cost it read (costs change only
	// at weight updates).
	s.evalCached(e, int64(s.updated.Sub(s.epoch)), s.costs[e.allPos], &e.ev)
}

// frozenAt reports whether e, just evaluated and updated by a weight
// update at nowOff with figures f, is frozen, and if so whether its
// figures are also free of its queue's parts (see settled).
func (s *Scheduler) frozenAt(e *entry, f *tickFigs, nowOff int64) (frozen, capsFree bool) {
	frozen = f.ttKnown && !e.running && (f.held == f.need || s.stuck(e, f)) &&
		(e.phi == 0 || (e.hasDL && e.dlOff <= nowOff))
	capsFree = frozen && e.phi == 1 && (e.tt > 0 || e.prog[0].Unfinished()+e.prog[1].Unfinished() == 0)
	return frozen, capsFree
}

// stuck reports whether model 3, which just updated e with figures f,
// would leave it as it is at every later update with the same figures
// whatever its queue's average: it cannot reach any minimum (e.lost) and
// is short, its W₁ is MaxTerm (at or above any average of W₁, each at
// most MaxTerm), so each update sets the same raised weight and marks it,
// and it cannot be moved: moves are off; with φ = 1 it is in High; with
// φ < 1 in Low its promotion was just found unaffordable (e.noAfford:
// its budget view, unmeetable at its queue's price, is at any higher
// one) or is not allowed (PhiAwareMoves, φ = 0); above Low its budget
// view was just found unmeetable a queue down too (e.noRescue). None of
// these reads now for a frozen job (no task running, its cost and
// counters as they were).
func (s *Scheduler) stuck(e *entry, f *tickFigs) bool {
	if !e.lost || f.held >= f.need || f.base != MaxTerm {
		return false
	}
	switch {
	case s.cfg.Ablations.NoQueueMoves:
		return true
	case e.phi == 1:
		return e.queue == High
	case e.queue == Low:
		return e.noAfford || (s.cfg.PhiAwareMoves && e.phi == 0)
	}
	return e.noRescue
}

// frozenDeadline returns the deadline view (φ > 0) of frozen job e's
// evaluation at the last weight update (at nowOff, the queues' parts
// s.parts), from the terms cached when it froze: e.ev holds the view as
// computed then, with the same slots but for the window and latest
// reduce start. The reduce waves are recomputed at the last update's
// capacity (capacityFor with the slots held at the key), as that update
// would have (a capsFree job may have stayed frozen across a change of
// its queue's parts).
func (s *Scheduler) frozenDeadline(e *entry, nowOff int64) MinView {
	c := &e.cache
	t := c.terms
	if t.ur > 0 {
		caps := max(s.parts[c.key.queue][1], estimate.Capacity(c.key.held[1])*estimate.Slot)
		n, ok := estimate.Waves(t.ur, caps)
		t.noReduceCap = !ok
		if !ok {
			n = 0
		}
		t.waveSecs = float64(n) * t.redTT
	}
	var v MinView
	deadlineView(&v, &t, time.Duration(e.dlOff-nowOff))
	return v
}

// skipCounts counts the jobs weight updates skipped (or evaluated only
// in part), by path: frozen and without a task time (settled), lapsed,
// and φ = 0 without running tasks at an unchanged cost (evaluateTick).
// Tests require each path taken (TestTickEquivalence): a path that is
// never taken is not tested by the equivalence.
type skipCounts struct {
	frozen, unknown, lapsed, phi0 int
}

// skips reports whether a weight update skips the job st marks.
func (s *Scheduler) skips(st *settled) bool {
	return st.ok && !st.lapsed && (!st.frozen || st.capsFree || st.parts == s.partsGen[st.q])
}

// evaluateTick is evaluate for a weight update at nowOff (ns from the
// epoch), reusing e's cached figures where their inputs did not change,
// and returns model 3's figures (tickFigs). parts are the queues' equal
// parts of their guarantees (queuePart), the same for all jobs during
// one update. Its results are bit-for-bit those evaluate gives (the same
// functions on the same inputs; TestTickEquivalence checks it).
func (s *Scheduler) evaluateTick(e *entry, nowOff int64, cost float64, parts *[numQueues][2]estimate.Capacity) tickFigs {
	e.cache.lazy = false
	if !e.ttKnown {
		// Not settled (Tick skips it then): its counters or cost changed.
		s.evaluate(e, time.Time{}, cost) // does not read now
		return s.tickFigs(e, e.ev.m1.W)
	}
	key := evalKey{held: e.heldK, gen: e.gen, queue: e.queue, valid: true, parts: s.partsGen[e.queue]}
	running := e.running
	c := &e.cache
	if key != c.key {
		// Counters, slots held, capacity or queue changed (whether
		// tasks run is part of the counters).
		c.key, c.running, c.static, c.budOK = key, running, false, false
		c.wavesSet = false
		c.caps = [2]estimate.Capacity{}
		for p := range e.nph {
			c.caps[p] = max(parts[e.queue][p], estimate.Capacity(e.held(p))*estimate.Slot) // capacityFor
		}
	}
	if running {
		if !c.wavesSet {
			// The reduce waves and the terms but the work left depend
			// on the key only.
			_, _, in := s.modelInputsAt(e, nowOff, cost, c.caps)
			c.terms = viewTermsOf(&in, reduceWavesOf(&in))
			c.setRunning(e, c.caps)
			c.wavesSet = true
		}
	} else {
		if c.budOK && c.budCost == cost && e.phi == 0 {
			// φ = 0 and no task running: nothing of the evaluation
			// reads now (model 1 has no time term, model 2 no deadline
			// view), and its other inputs are those of the last one
			// (budOK: the key and, from budCost, the cost), which left
			// the weight, the minimums and e.ev as they would be
			// computed now.
			s.skipped.phi0++
			return s.tickFigs(e, c.w1)
		}
		if !c.static {
			var in MinInput
			c.slotSecs, c.rem, in = s.modelInputsAt(e, nowOff, cost, c.caps)
			c.terms = viewTermsOf(&in, reduceWavesOf(&in))
			c.static = true
		}
	}
	ev := &e.ev
	s.evalCached(e, nowOff, cost, ev)
	if !running && e.phi < 1 && !(c.budOK && c.budCost == cost) {
		c.budget, c.budCost, c.budOK = ev.min.Budget, cost, true
	}
	c.w1 = ev.m1.W
	e.setMin()
	return s.tickFigs(e, ev.m1.W)
}

// evalCached writes into ev the evaluation of e (task time known) at
// nowOff with cost so far cost, from e's cache as evaluateTick set it
// for this update: the inputs it reads are the cache key's (slots held,
// capacities, queue, counters), the cached terms, and e's fixed figures.
func (s *Scheduler) evalCached(e *entry, nowOff int64, cost float64, ev *eval) {
	c := &e.cache
	if c.running {
		// The elapsed time of running tasks moves with now.
		c.runningAt(e, nowOff)
	}
	// Read in place (copies of these structs, written field by field
	// and read back whole, cost more than their arithmetic).
	slotSecs, rem, terms := c.slotSecs, &c.rem, &c.terms
	price := s.r.queues[c.key.queue].Price
	// As modelInputs computes them.
	var dl time.Duration
	if e.hasDL {
		dl = time.Duration(e.dlOff - nowOff)
	}
	*ev = eval{cost: cost, slotSecs: slotSecs}
	ev.m1 = Weight(WeightInput{
		Phi: e.phi, Remaining: rem.Time, CannotFinish: rem.CannotFinish, DeadlineLeft: dl,
		SlotSeconds: slotSecs, Price: price, BudgetLeft: e.budget - cost,
	})
	if e.phi > 0 {
		deadlineView(&ev.min.Deadline, terms, dl)
	}
	if e.phi < 1 {
		if !c.running && c.budOK && c.budCost == cost {
			ev.min.Budget = c.budget
		} else {
			// As modelInputs computes the allowance and the slots held.
			budgetView(&ev.min.Budget, terms, (e.budget-cost)/price, s.budgetHeld(int(c.key.held[0]+c.key.held[1])))
		}
	}
	ev.min.combine()
}
