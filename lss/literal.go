package lss

// heartbeatLiteral is Algorithm 1 as printed: recompute every job's
// average and spare time, kill, sort the whole queue, then the three
// passes over it. O(n log n) per heartbeat.
func (s *Scheduler) heartbeatLiteral(hb *beat, dst []Decision) []Decision {
	copy(s.caps, s.capsNew)
	// Lines 2–5: calAvgTime, calSpareTime, killJobByDeadline,
	// killJobBySpareTime.
	kills := s.kills[:0]
	for _, e := range s.all {
		e.cur = s.evaluate(e, hb.now, s.caps)
		e.evalSeq = s.seq
		if !(s.cfg.SoftDeadlines && e.reported) && killReason(e, &e.cur, hb.now) != NoReason {
			kills = append(kills, e)
		}
	}
	dst = s.emitKills(dst, kills, hb)
	clear(kills)
	s.kills = kills[:0]

	// Line 6: sortBySpareTime.
	order := append(s.order[:0], s.all...)
	sortByCurrent(order)

	// Lines 10–18: one map to each job with no finished and no running
	// task.
	k0 := s.lay.phaseKind[0]
	for _, e := range order {
		if s.free[k0] == 0 || s.cfg.NoFirstMapPass {
			break
		}
		if e.fresh() && e.avail(0) > 0 {
			dst = s.assign(dst, e, 0, 1, 1, hb)
		}
	}
	// Lines 19–32: maps in order, then reduces in order (one pass per
	// kind).
	for k := range s.lay.kindIndex {
		for _, e := range order {
			if s.free[k] == 0 {
				break
			}
			dst = s.fill(dst, e, k, hb)
		}
	}
	clear(order)
	s.order = order[:0]
	s.endBeat(false)
	return dst
}
