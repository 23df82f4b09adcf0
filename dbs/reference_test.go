package dbs

import "time"

// referenceTick is the weight update as the paper prints it, the
// reference Tick is checked against (TestTickEquivalence) and measured
// against (BenchmarkTickPrevious): it reads every job's cost, evaluates
// models 1 and 2 for every job from scratch, applies model 3 to every
// job, and refills every queue heap. The fast Tick (tick.go) must give
// the same decisions and figures, bit for bit.
func referenceTick(s *Scheduler, now time.Time, dst []Decision) ([]Decision, error) {
	const op = "Tick"
	clk, capK, guar, due, err := s.tickStart(op, now)
	if !due || err != nil {
		return dst, err
	}
	for _, e := range s.all {
		if c := e.job.CostSoFar(); !validCost(c) {
			s.capK, s.guar = capK, guar
			return dst, errf(op, ErrInvalidJob, e.id, "cost so far %v not finite and non-negative", c)
		}
	}
	for i, e := range s.all {
		s.costs[i] = e.job.CostSoFar()
	}
	s.advance(clk)
	s.updated, s.updatedSet = now, true

	// Models 1 and 2 for every job; the queues' average W₁.
	var sum [numQueues]float64
	for i, e := range s.all {
		s.evaluate(e, now, s.costs[i])
		s.tk[i] = s.tickFigs(e, e.ev.m1.W)
		sum[e.queue] += s.tk[i].base
	}
	var avg [numQueues]float64
	for q := range numQueues {
		if s.nq[q] > 0 {
			avg[q] = sum[q] / float64(s.nq[q])
		}
	}
	// Model 3 for every job; moves applied after.
	s.moves = s.moves[:0]
	s.needSet = false
	for i, e := range s.all {
		s.update(e, &s.tk[i], avg[e.queue], now)
	}
	for i := range s.moves {
		s.moveQueue(s.jobs[s.moves[i].Job], s.moves[i].To)
	}
	s.sortMoves()
	dst = append(dst, s.moves...)
	s.settleWatch()
	// Every queue heap refilled from scratch.
	for i := range s.heaps {
		s.heaps[i].reset()
	}
	for _, e := range s.all {
		for k := range 2 {
			if s.eligible(e, k) {
				s.heaps[int(e.queue)*2+k].push(e)
			}
		}
	}
	for i := range s.heaps {
		s.heaps[i].heapify()
	}
	return dst, nil
}
