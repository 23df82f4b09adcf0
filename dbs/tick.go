package dbs

import (
	"slices"
	"time"

	"github.com/schedkit/schedkit/estimate"
	"github.com/schedkit/schedkit/internal/clock"
)

// Tick runs model 3 when at least Config.Interval has passed since the
// last weight update (or none has run yet), and appends the queue moves
// it decides to dst. Call it periodically (the paper updates every 500
// ms); a Tick before the interval is up only advances the clock.
//
// An update reads the CostSoFar of every job whose cost may have changed
// since it was last read (Submitted, Updated or assigned a slot since the
// last update, or holding slots at it: host duty 3), re-evaluates models
// 1 and 2 (minimum slots on what is left), and for each job compares the
// slots it holds h with the slots it needs s (its minimum over the
// phases that have ready or running tasks; for a job that cannot reach
// any minimum, MinResult.Unmeetable, every slot its ready and running
// tasks could use, at least h), as UpdateWeight:
//
//   - h < s: W = W₁·(1 + (s−h)/s). If W₁ is below its queue's average
//     model-1 weight, W is raised at least halfway to the average;
//     otherwise the job is marked.
//   - h > s: W = W₁·(1 − (h−s)/(2h)). If W₁ is at or above the average,
//     W is lowered at least halfway to it, and the job is marked.
//   - h = s: W = W₁ and the marks are cleared.
//
// A job marked short (surplus) at the previous update that is still
// short (still holds a surplus) is promoted (demoted) one queue, whatever
// its weight now — a promotion only if its budget covers what is left at
// the higher price (CostSoFar + c_{q+1}·slot-seconds left ≤ Budget and,
// for φ < 1, model 2's budget view still meetable at that price; a job
// without budget always can). A job that cannot reach any minimum and is
// short at two updates but cannot be promoted (φ < 1: its budget view,
// unmeetable at its queue's price, is at any higher one) is demoted one
// queue instead (ReasonBudget) if its budget view can be met at the
// lower price.
//
// A move is taken only if the job would be better off in the target
// queue (betterOff: with PrioritySharing, what it needs fits in what the
// minimums of that queue and those above leave; with CapacitySharing,
// what it lacks fits in that queue's free guarantee, or that queue uses
// less of its guarantee) and does not take the job back the way its last
// move came within Config.HoldDown; otherwise the job stays, marked. A
// job without a task time yet (no finished task, hint or default) has
// W₁ = 0 and a placeholder minimum: it is neither marked nor moved.
// PhiAwareMoves restricts promotions to φ > 0 and demotions to φ < 1;
// Config.Ablations switch off the affordability, better-off and budget
// demotion rules one at a time.
//
// Moves come back as Promote and Demote decisions with their figures
// (held, needed, W, queue average, cost at the new price, budget left),
// ordered by the queue left (highest first), then weight, submission and
// ID. The scheduler has already moved the jobs; the host charges the new
// price from now on.
//
// Cost: an update walks every job, so it is bound by memory as much as
// by arithmetic. It reads the costs of the watched jobs only (a job that
// holds no slot accrues no cost) and keeps per job what models 1 and 2
// computed from inputs that have not changed since (counters, slots
// held, capacity, queue; the cost for the budget view). A job with
// running tasks recomputes only what their elapsed time moves (formula
// (3)'s credit, the work left, both views); one without running tasks
// only the terms that depend on now (model 1's time term, the deadline
// view), and with φ = 0 and an unchanged cost nothing; a job without a
// task time whose counters and cost did not change is not even read,
// nor is a frozen one (task time known, nothing running, past its
// deadline or φ = 0, holding the slots it needs): its figures cannot
// move until its counters, slots held, cost or (but for φ = 1 with a
// positive task time) its queue's parts of the guarantees change; see
// settled. A lapsed job (tasks running, φ = 1, past its deadline) keeps
// W₁ and minimums of 0 until formula (3) can reach zero: model 3 runs on
// them and its evaluation is computed only if read (a move's figures,
// Status). Only the jobs evaluated can change their queue heaps' order,
// which is restored from them alone. At trace scale (a day of thousands
// of queued jobs, most waiting past their deadlines) that leaves the
// running jobs before their deadlines and a few others per update. The
// results are bit for bit those of a full re-evaluation
// (TestTickEquivalence).
//
// On an error (a job's CostSoFar NaN, infinite or negative, a cluster
// capacity it cannot read, time going backwards) nothing changes and dst
// is returned as it was.
func (s *Scheduler) Tick(now time.Time, dst []Decision) ([]Decision, error) {
	const op = "Tick"
	if s.reference != nil {
		return s.reference(s, now, dst)
	}
	clk, capK, guar, due, err := s.tickStart(op, now)
	if !due || err != nil {
		return dst, err
	}
	if err := s.readCosts(op); err != nil {
		s.capK, s.guar = capK, guar
		return dst, err
	}
	s.advance(clk)
	s.updated, s.updatedSet = now, true
	nowOff := int64(now.Sub(s.epoch))
	parts := s.refreshParts()
	avg := s.averages(s.evaluateJobs(nowOff, &parts)) // models 1 and 2
	s.moves = s.moves[:0]
	s.needSet = false
	s.model3(now, nowOff, &avg) // weights, marks and moves
	s.applyMoves()
	dst = append(dst, s.moves...)
	s.settleWatch()
	s.restoreHeaps()
	return dst, nil
}

// refreshParts returns the queues' equal parts of what they can use at
// this update (queuePart), numbering anew (partsGen) each queue whose
// parts changed, and every queue when the cluster's slots changed (model
// 2 bounds a view by them): the cached figures of its jobs (evalKey) are
// then stale.
func (s *Scheduler) refreshParts() [numQueues][2]estimate.Capacity {
	var parts [numQueues][2]estimate.Capacity
	capChanged := s.partsCap != s.capK
	s.partsCap = s.capK
	for q := range numQueues {
		for k := range 2 {
			parts[q][k] = s.queuePart(q, k)
		}
		if !s.partsSet || capChanged || parts[q] != s.parts[q] {
			s.partsSeq++
			s.parts[q], s.partsGen[q] = parts[q], s.partsSeq
		}
	}
	s.partsSet = true
	return parts
}

// evaluateJobs is the update's first pass: models 1 and 2 for every job
// at nowOff, except those whose figures cannot have moved (settled: each
// frozen one's W₁ still counts in its queue's sum). It fills s.tk with
// each job's model-3 inputs and s.evaluated with the jobs it did not
// skip, and returns the sums of W₁ per queue.
func (s *Scheduler) evaluateJobs(nowOff int64, parts *[numQueues][2]estimate.Capacity) [numQueues]float64 {
	var sum [numQueues]float64
	// Resliced to one length: no bounds checks in the per-job loops.
	all := s.all
	costs, tk, settle := s.costs[:len(all)], s.tk[:len(all)], s.settle[:len(all)]
	s.evaluated = s.evaluated[:0]
	for i := 0; i < len(all); i++ {
		// The jobs skipped, most of them at trace scale, in a tight
		// loop that keeps the sums in registers: each frozen job's
		// W₁ is added to its queue's sum in its place, as an
		// evaluation would.
		s0, s1, s2 := sum[Low], sum[Mid], sum[High]
		nf, i0 := 0, i
		for ; i < len(all); i++ {
			st := &settle[i]
			if !s.skips(st) {
				break
			}
			if st.frozen {
				nf++
				switch st.q {
				case Low:
					s0 += st.base
				case Mid:
					s1 += st.base
				default:
					s2 += st.base
				}
			}
		}
		sum = [numQueues]float64{s0, s1, s2}
		s.skipped.frozen += nf
		s.skipped.unknown += i - i0 - nf
		if i == len(all) {
			break
		}
		e := all[i]
		s.evaluated = append(s.evaluated, int32(i))
		if st := &settle[i]; st.ok && st.lapsed && nowOff <= e.cache.until && st.q == e.queue && st.parts == s.partsGen[e.queue] {
			// Lapsed: the figures of its last evaluation hold.
			f := s.tickFigs(e, st.base)
			tk[i] = f
			sum[e.queue] += f.base
			e.cache.lazy = true
			s.skipped.lapsed++
			continue
		}
		m0, lost0 := e.minK, e.lost
		f := s.evaluateTick(e, nowOff, costs[i], parts)
		tk[i] = f
		sum[e.queue] += f.base
		if e.minK != m0 || e.lost != lost0 {
			s.markKey(e)
		}
	}
	return sum
}

// averages returns each queue's mean W₁ from the sums.
func (s *Scheduler) averages(sum [numQueues]float64) [numQueues]float64 {
	var avg [numQueues]float64
	for q := range numQueues {
		if s.nq[q] > 0 {
			avg[q] = sum[q] / float64(s.nq[q])
		}
	}
	return avg
}

// model3 is the update's second pass over the jobs the first evaluated,
// in order: each one's weight, marks and move (update), and whether the
// next update may skip it (settled).
func (s *Scheduler) model3(now time.Time, nowOff int64, avg *[numQueues]float64) {
	all, tk, settle := s.all, s.tk[:len(s.all)], s.settle[:len(s.all)]
	for _, i := range s.evaluated {
		e, st := all[i], &settle[i]
		f := &tk[i]
		w0 := e.w
		s.update(e, f, avg[e.queue], now)
		if e.w != w0 {
			s.markKey(e)
		}
		if e.cache.lazy {
			continue // lapsed, skipped: its mark stands (a move ended it)
		}
		frozen, capsFree := s.frozenAt(e, f, nowOff)
		e.cache.frozen = frozen
		if !frozen && f.ttKnown {
			if lapsed, until := lapsedUntil(e, f, nowOff); lapsed {
				*st = settled{base: f.base, parts: s.partsGen[e.queue], q: e.queue, lapsed: true, ok: true}
				e.cache.until = until
				continue
			}
		}
		switch {
		case !f.ttKnown:
			*st = settled{ok: true}
		case frozen:
			*st = settled{base: f.base, parts: s.partsGen[e.queue], q: e.queue, frozen: true, capsFree: capsFree, ok: true}
		default:
			st.ok = false
		}
	}
}

// applyMoves carries out the update's moves (s.moves): each job leaves
// its queue's heaps for the new queue's, which keep its counts and
// usage; then the moves are put in decision order.
func (s *Scheduler) applyMoves() {
	for i := range s.moves {
		d := &s.moves[i]
		e := s.jobs[d.Job]
		s.unplace(e)
		s.moveQueue(e, d.To)
		for k := range 2 {
			if s.eligible(e, k) {
				s.heaps[int(e.queue)*2+k].push(e)
			}
		}
	}
	s.sortMoves()
}

// restoreHeaps restores the queue heaps' order after an update. Every
// heap holds the jobs it held before (moved jobs were moved by
// applyMoves); only weights and minimums changed, of the jobs marked,
// unless jobs moved (their removal sifted the heaps): those are
// re-heapified whole.
func (s *Scheduler) restoreHeaps() {
	for i := range s.heaps {
		if len(s.moves) > 0 {
			s.heaps[i].heapify()
		} else {
			s.heaps[i].fixAt(s.marks[i], &s.fix)
		}
		s.marks[i] = s.marks[i][:0]
	}
}

// moveQueue moves e to queue to, keeping the queues' counts and usage.
func (s *Scheduler) moveQueue(e *entry, to Queue) {
	s.addUsed(e, -1)
	s.nq[e.queue]--
	e.queue = to
	s.nq[e.queue]++
	s.addUsed(e, 1)
}

// sortMoves orders s.moves by the queue left (highest first), then as
// the jobs' queue order (weight, submission, ID).
func (s *Scheduler) sortMoves() {
	slices.SortFunc(s.moves, func(a, b Decision) int {
		if a.From != b.From {
			return int(b.From) - int(a.From)
		}
		ea, eb := s.jobs[a.Job], s.jobs[b.Job]
		switch {
		case ea.before(eb):
			return -1
		case eb.before(ea):
			return 1
		}
		return 0
	})
}

// readCosts reads into s.costs the cost so far of every watched job,
// checking each before storing any: on an error nothing changes.
func (s *Scheduler) readCosts(op string) error {
	w := s.watch
	if cap(s.wcost) < len(w) {
		s.wcost = make([]float64, len(w), 2*len(w))
	}
	wc := s.wcost[:len(w)]
	for i, e := range w {
		c := e.job.CostSoFar()
		if !validCost(c) {
			return errf(op, ErrInvalidJob, e.id, "cost so far %v not finite and non-negative", c)
		}
		wc[i] = c
	}
	for i, e := range w {
		if c := &s.costs[e.allPos]; *c != wc[i] {
			// A frozen job, or one without a task time, is skipped
			// only at the cost it settled at (costs change only
			// here); a lapsed one's figures do not read it.
			if st := &s.settle[e.allPos]; !st.lapsed {
				st.ok = false
			}
			*c = wc[i]
		}
	}
	return nil
}

// markKey notes that e's heap keys changed: its positions go to
// s.marks, from which the update restores the heaps' order (fixAt).
func (s *Scheduler) markKey(e *entry) {
	for k := range 2 {
		slot := int(e.queue)*2 + k
		if i := e.pos[slot]; i >= 0 {
			s.marks[slot] = append(s.marks[slot], i)
		}
	}
}

// tickFigs is what model 3 reads about a job, gathered by the pass that
// evaluates it (its counters are in cache then), so the model-3 pass
// touches only the entry's first cache line.
type tickFigs struct {
	base       float64 // W₁
	held, need int     // slots held; needed (minimum over usable phases)
	needK      [2]int  // need per slot kind
	ttKnown    bool
	lost       bool  // e.lost
	q          Queue // e's queue
}

// tickFigs returns e's model-3 inputs after its evaluation, W₁ = w1.
// Reduce slots count as needed only once e may be given them
// (reducesOpen). A job that cannot reach any minimum (e.lost: model 2
// found no view meetable) needs every slot its ready and running tasks
// could use, and at least what it holds: it is short while it could use
// more, never holding a surplus. A job without a task time, whose
// minimum is not known yet (model 3 neither marks nor moves it), counts
// as needing every slot its ready and running tasks could use when other
// jobs' moves ask what is left (needSums).
func (s *Scheduler) tickFigs(e *entry, w1 float64) tickFigs {
	f := tickFigs{base: w1, ttKnown: e.ttKnown, lost: e.lost, q: e.queue}
	for p := range e.nph {
		h := e.held(p)
		f.held += h
		n := 0
		if usable := e.usable[p]; usable > 0 && (p == 0 || s.reducesOpen(e)) {
			if e.lost || !e.ttKnown {
				n = usable
			} else {
				n = min(e.minOf(p), usable)
			}
		}
		if e.lost {
			n = max(n, h)
		}
		f.needK[p] = n
		f.need += n
	}
	return f
}

// update applies model 3 to e (its figures f) with its queue's average
// avg, setting its weight and marks; it appends the move, if any, to
// s.moves. (It returns nothing: a Decision returned by value costs a
// 150-byte clear and copy per job.)
func (s *Scheduler) update(e *entry, f *tickFigs, avg float64, now time.Time) {
	held, need := f.held, f.need
	e.noAfford = false
	if !f.ttKnown {
		// No task time yet: the minimum is a placeholder (one map), so
		// held-versus-needed says nothing; no marks, no moves.
		e.w, e.pendUp, e.pendDown = f.base, false, false
		return
	}
	r := UpdateWeight(UpdateInput{W1: f.base, Average: avg, Held: held, Needed: need, MarkedShort: e.pendUp, MarkedSurplus: e.pendDown})
	e.w, e.pendUp, e.pendDown = r.W, r.MarkShort, r.MarkSurplus
	e.noRescue = false
	move := r.Move
	switch {
	case move == Promote && (e.queue == High || (s.cfg.PhiAwareMoves && e.phi == 0)):
		move = 0
	case move == Demote && (e.queue == Low || (s.cfg.PhiAwareMoves && e.phi == 1)):
		move = 0
	}
	// A job with φ < 1 that cannot reach any minimum, marked short at two
	// updates, whose promotion is out of bounds or unaffordable (always:
	// its budget view, unmeetable at its queue's price, is at any higher
	// one) goes down a queue if its budget view can be met there
	// (rescue).
	rescue := r.Move == Promote && e.lost && e.phi < 1 && e.queue > Low && !s.cfg.Ablations.NoBudgetDemotion
	if s.cfg.Ablations.NoQueueMoves || (move == 0 && !rescue) {
		return
	}
	s.materialize(e) // a lapsed job's figures (its evaluation at this update)
	if move == Promote {
		reason := ReasonShort
		if e.lost {
			reason = ReasonUnmeetable
		}
		d := s.moveDecision(e, Promote, reason, f, r.W, avg, now)
		if s.cfg.Ablations.NoAffordability || s.affordable(e, d.To, d.Figures, now) {
			// The job stays, marked, while the move would not make it
			// better off or would undo its last move within the
			// hold-down.
			if s.betterOff(e, d.To, &f.needK) && !s.heldDown(e, Promote, now) {
				s.take(e, d)
			}
			return
		}
		e.noAfford = true
		if !rescue {
			return
		}
		move = 0
	}
	if move == Demote {
		if d := s.moveDecision(e, Demote, ReasonSurplus, f, r.W, avg, now); s.betterOff(e, d.To, &f.needK) && !s.heldDown(e, Demote, now) {
			s.take(e, d)
		}
		return
	}
	d := s.moveDecision(e, Demote, ReasonBudget, f, r.W, avg, now)
	if !s.budgetMeetable(e, d.To, d.Figures.BudgetLeft, now) {
		e.noRescue = true
		return
	}
	if !s.heldDown(e, Demote, now) {
		s.take(e, d)
	}
}

// moveDecision returns the Decision moving e one queue up (Promote) or
// down, with model 3's figures f, weight w and queue average avg.
func (s *Scheduler) moveDecision(e *entry, move Action, reason Reason, f *tickFigs, w, avg float64, now time.Time) Decision {
	to := e.queue + 1
	if move == Demote {
		to = e.queue - 1
	}
	price := s.r.queues[to].Price
	ev := &e.ev
	return Decision{
		Action: move, Reason: reason, Job: e.id, From: e.queue, To: to, Price: price,
		Figures: Figures{
			Now: now, Held: f.held, Needed: f.need, Weight: w, QueueAverage: avg,
			CostAtTo: price * ev.slotSecs, BudgetLeft: e.budget - ev.cost,
		},
	}
}

// take records move d of e: its marks are cleared, the move noted for
// the hold-down, and d appended to s.moves (the update applies them
// after its pass).
func (s *Scheduler) take(e *entry, d Decision) {
	e.pendUp, e.pendDown = false, false
	e.lastMove, e.movedAt = d.Action, int64(d.Figures.Now.Sub(s.epoch))
	s.moves = append(s.moves, d)
}

// betterOff reports whether e, needing needK slots of each kind, would
// be better off in queue to than in its own (always with
// Ablations.NoBetterOff). With PrioritySharing: for every kind, what it
// needs fits in the kind's capacity less what the other jobs of queue to
// and the queues above it need (fitsAt), so that a promotion can get it
// its minimum and a demotion keep it; a job that cannot reach any minimum (given none in
// any queue) is better off in a higher queue only. With CapacitySharing:
// for every kind, what it still lacks (needed − held, its held slots
// moving with it) fits in what to's guarantee of the kind leaves free
// (used + lacking ≤ guaranteed), or to uses a smaller fraction of its
// guarantee of the kind than the job's queue does; a job holding what it
// needs (a demotion for a surplus) always fits. The usage and needs are
// the queues' at the start of the update (moves are applied after it).
func (s *Scheduler) betterOff(e *entry, to Queue, needK *[2]int) bool {
	if s.cfg.Ablations.NoBetterOff {
		return true
	}
	if s.r.priority {
		if e.lost {
			// Given no minimum in any queue, it is served after every
			// minimum wherever it is: only a higher queue's order helps.
			return to > e.queue
		}
		return s.fitsAt(e, to, needK)
	}
	from := e.queue
	for k, n := range needK {
		lack := n - e.held(k)
		if lack <= 0 {
			continue
		}
		usedTo, usedFrom := float64(s.used[to][k]), float64(s.used[from][k])
		guarTo, guarFrom := s.guar[to][k], s.guar[from][k]
		// usedTo/guarTo < usedFrom/guarFrom without dividing by a zero
		// guarantee.
		if usedTo+float64(lack) > guarTo && !(usedTo*guarFrom < usedFrom*guarTo) {
			return false
		}
	}
	return true
}

// fitsAt reports whether the needs (needK) of e, a job that can reach a
// minimum, fit, for every kind, in the kind's capacity less what every
// other job of queue to and the queues above it needs at this update
// (needSums: the minimums that come before e's in queue to; a job that
// cannot reach any minimum is owed none, and counts for none).
func (s *Scheduler) fitsAt(e *entry, to Queue, needK *[2]int) bool {
	sums := s.needSums()
	for k, n := range needK {
		if n <= 0 {
			continue
		}
		others := 0
		for q := to; q < numQueues; q++ {
			others += sums[q][k]
		}
		if e.queue >= to {
			others -= n // e's own need, counted in its queue's sum
		}
		if float64(n) > s.capK[k]-float64(others) {
			return false
		}
	}
	return true
}

// needSums returns, per queue and slot kind, what the queue's jobs that
// can reach a minimum need at this update (tickFigs.needK: for a job
// without a task time every slot it could use), summed once
// per update on first use: from s.tk, which holds every job's figures of
// its last evaluation (a job the update skipped has the figures it
// would have).
func (s *Scheduler) needSums() *[numQueues][2]int {
	if s.needSet {
		return &s.needSum
	}
	s.needSum = [numQueues][2]int{}
	for i := range s.tk[:len(s.all)] {
		f := &s.tk[i]
		if !f.lost {
			s.needSum[f.q][0] += f.needK[0]
			s.needSum[f.q][1] += f.needK[1]
		}
	}
	s.needSet = true
	return &s.needSum
}

// heldDown reports whether move would take e back the way its last move
// came within the hold-down (Config.HoldDown).
func (s *Scheduler) heldDown(e *entry, move Action, now time.Time) bool {
	if s.r.holdDown <= 0 || e.lastMove == 0 || e.lastMove == move {
		return false
	}
	return int64(now.Sub(s.epoch))-e.movedAt < int64(s.r.holdDown)
}

// affordable reports whether e's budget affords queue to's price: a job
// without budget always can; otherwise what is left at the new price
// must fit the budget left (f.CostAtTo ≤ f.BudgetLeft) and, when φ < 1,
// model 2's budget view must still be meetable at the new price (so the
// job is not promoted only to find its budget constraint lost there).
func (s *Scheduler) affordable(e *entry, to Queue, f Figures, now time.Time) bool {
	if e.budget == 0 {
		return true
	}
	if f.CostAtTo > f.BudgetLeft {
		return false
	}
	return e.phi == 1 || s.budgetMeetable(e, to, f.BudgetLeft, now)
}

// budgetMeetable reports whether model 2's budget view of e, with
// budgetLeft left, can be met at queue to's price.
func (s *Scheduler) budgetMeetable(e *entry, to Queue, budgetLeft float64, now time.Time) bool {
	_, _, in := s.modelInputs(e, int64(now.Sub(s.epoch)), e.ev.cost)
	in.Phi = 0 // the budget view only
	in.Allowance = budgetLeft / s.r.queues[to].Price
	return !MinimumSlots(in).Budget.Unmeetable
}

// tickStart is what every weight update (Tick and the reference one)
// does first: it checks now, commits it and reports not due when the
// update is switched off (Ablations.StaticWeights) or the interval has
// not passed since the latest one, and otherwise reads the cluster's
// capacity, returning the capacity figures it replaced so that a later
// failure can restore them. On an error nothing has changed.
func (s *Scheduler) tickStart(op string, now time.Time) (clk clock.Reading, capK [2]float64, guar [numQueues][2]float64, due bool, err error) {
	clk, err = s.checkTime(op, "", "", now)
	if err != nil {
		return clk, capK, guar, false, err
	}
	if s.cfg.Ablations.StaticWeights || (s.updatedSet && now.Sub(s.updated) < s.r.interval) {
		s.advance(clk)
		return clk, capK, guar, false, nil
	}
	capK, guar = s.capK, s.guar
	if err := s.readCapacity(op, ""); err != nil {
		return clk, capK, guar, false, err
	}
	return clk, capK, guar, true, nil
}
