package dbs

import (
	"time"

	"github.com/schedkit/schedkit/estimate"
)

// evalKey is what the cached part of a job's evaluation depends on,
// besides the job's fixed figures (φ, budget, submission, deadline, data
// sizes) and the configuration: the capacity available to it per phase
// (its queue's guarantee, the queue's length, the slots it holds), the
// slots it holds, its counters (gen counts the snapshots) and its queue
// (the price).
type evalKey struct {
	caps  [2]estimate.Capacity
	held  [2]int32
	gen   uint32
	queue Queue
	valid bool
}

// evalCache holds the figures of a job's last evaluation that depend on
// neither now nor its cost so far while none of its tasks runs: between
// two weight updates only now and the cost move for most jobs, so an
// update re-evaluates only the time- and cost-dependent part (model 1's
// ratios, model 2's deadline view, and its budget view when the cost
// changed). A job with running tasks is evaluated in full (its elapsed
// time moves with now).
type evalCache struct {
	key      evalKey
	slotSecs float64
	rem      estimate.Remaining
	in       MinInput // DeadlineLeft and Allowance refreshed per update
	waves    reduceWaves
	budget   MinView // budget view at budCost, when budOK
	budCost  float64
	budOK    bool
}

// evaluateTick is evaluate for a weight update at nowOff (ns from the
// epoch), reusing e's cached figures where their inputs did not change.
// Its result is bit-for-bit the one evaluate gives (the same functions
// on the same inputs; TestTickEquivalence checks it).
func (s *Scheduler) evaluateTick(e *entry, nowOff int64, cost float64) {
	if !e.ttKnown {
		s.evaluate(e, time.Time{}, cost) // does not read now
		return
	}
	key := evalKey{held: e.heldK, gen: e.gen, queue: e.queue, valid: true}
	running := false
	for p := range e.nph {
		key.caps[p] = s.capacityFor(e, p)
		running = running || e.prog[p].Running > 0
	}
	c := &e.cache
	price := s.r.queues[e.queue].Price
	if running || key != c.key {
		c.slotSecs, c.rem, c.in = s.modelInputs(e, nowOff, cost)
		c.waves = reduceWavesOf(c.in)
		c.key, c.budOK = key, false
		if running {
			c.key.valid = false
		}
	}
	in := c.in
	// As modelInputs computes them.
	in.DeadlineLeft = 0
	if e.hasDL {
		in.DeadlineLeft = time.Duration(e.dlOff - nowOff)
	}
	in.Allowance = (e.budget - cost) / price

	ev := &e.ev
	*ev = eval{cost: cost, slotSecs: c.slotSecs}
	ev.m1 = Weight(WeightInput{
		Phi: e.phi, Remaining: c.rem.Time, CannotFinish: c.rem.CannotFinish, DeadlineLeft: in.DeadlineLeft,
		SlotSeconds: c.slotSecs, Price: price, BudgetLeft: e.budget - cost,
	})
	if in.Phi > 0 {
		ev.min.Deadline = deadlineView(in, c.waves)
	}
	if in.Phi < 1 {
		if !c.budOK || c.budCost != cost {
			c.budget, c.budCost, c.budOK = budgetView(in, c.waves), cost, true
		}
		ev.min.Budget = c.budget
	}
	ev.min.combine()
	e.setMin()
}
