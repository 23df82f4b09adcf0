package dbs

// UpdateInput is what model 3 reads about one job at one weight update.
type UpdateInput struct {
	// W1 is the job's model-1 weight W₁ and Average the mean W₁ of the
	// jobs of its queue.
	W1, Average float64
	// Held is the slots the job holds; Needed the slots it needs: model
	// 2's minimum over its runnable phases or, when it cannot reach any
	// minimum (MinResult.Unmeetable), every slot its ready and running
	// tasks could use and at least Held.
	Held, Needed int
	// MarkedShort and MarkedSurplus are the marks the previous update
	// left (UpdateResult's).
	MarkedShort, MarkedSurplus bool
}

// UpdateResult is model 3's result for one job.
type UpdateResult struct {
	// W is the job's weight until the next update.
	W float64
	// MarkShort and MarkSurplus mark the job for the next update.
	MarkShort, MarkSurplus bool
	// Move is Promote or Demote when the job was marked at the previous
	// update and is still short (holds a surplus), 0 otherwise: the move
	// model 3 asks for, taken only where a queue lies that way and the
	// job's budget and the scheduler's checks allow it (Scheduler.Tick).
	Move Action
}

// UpdateWeight is model 3's weight rule (reconstructed, see the package
// doc), with h = Held, s = Needed, W₁ and the queue's average:
//
//	h < s:  W = W₁·(1 + (s−h)/s); below average, raised at least halfway
//	        to it; at or above, marked short
//	h > s:  W = W₁·(1 − (h−s)/(2h)); at or above average, lowered at
//	        least halfway to it and marked surplus
//	h = s:  W = W₁, marks cleared
//
// A job marked short (surplus) at the previous update that is still
// short (still holds a surplus) is promoted (demoted), whatever its
// weight now: the paper moves a marked job at the next update "if it
// still cannot satisfy its minimum slots" (or "still obtains too many
// resources"), and asks nothing more of it. It stays marked until the
// move is taken or its shortfall (surplus) ends.
func UpdateWeight(in UpdateInput) UpdateResult {
	held, need, base, avg := in.Held, in.Needed, in.W1, in.Average
	r := UpdateResult{W: base}
	above := base >= avg
	switch {
	case held < need:
		r.W = base * (1 + float64(need-held)/float64(need))
		if !above {
			r.W = max(r.W, (base+avg)/2)
		}
		if in.MarkedShort {
			r.Move = Promote
		}
		r.MarkShort = above || in.MarkedShort
	case held > need:
		r.W = base * (1 - float64(held-need)/float64(2*held))
		if above {
			r.W = min(r.W, (base+avg)/2)
		}
		if in.MarkedSurplus {
			r.Move = Demote
		}
		r.MarkSurplus = above || in.MarkedSurplus
	}
	return r
}
