package lss

import (
	"math"
	"slices"

	"github.com/schedkit/schedkit/estimate"
)

// The fast path keeps the queue indexed so that a heartbeat touches only
// the jobs that can matter to it, and still decides exactly as the
// literal algorithm.
//
// Between two changes of a job's counters its spare time moves with now
// in one of two ways. A job with no running task, or whose Tavg is still
// unknown, has spare(now) = key − now for a constant key (Deadline − Work
// by formula (4), with no elapsed credit; Deadline by formula (5)): all
// such "static" jobs lose spare at the same rate, so their relative order
// never changes and a binary heap keyed by key keeps it. Such a job meets
// a kill condition exactly when now > killAt = min(Deadline, key + Tavg),
// found from a heap of killAt. A "dynamic" job — Tavg known, tasks
// running — gains ΣR/S credit as its tasks run, so its spare time is
// evaluated at a heartbeat that needs it; there are at most as many as
// the cluster's running tasks, not the queue's length. Its spare time
// falls no faster than now advances (the credit never shrinks), so after
// an evaluation no kill rule can hold before a bound (dynamicKillBound);
// until then the kill rules skip it.
//
// Heaps: per slot kind, the static jobs with unassigned ready tasks of
// that kind (passes 2 and 3); the static jobs that have no finished,
// running or assigned task (pass 1); the static deadline jobs by kill
// time. A heartbeat pops the kill heap up to now, evaluates the dynamic
// jobs past their kill bound, evaluates and sorts those with ready tasks
// of a kind the node has free, and merges them with the heads of the
// heaps for each pass. Every comparison uses the same integer figures
// and tie-breaks as the literal path, so both make the same decisions
// (TestFastEqualsLiteral, FuzzEvents).

// classify computes e's static key and kill time at the indexed capacity.
func (s *Scheduler) classify(e *entry) {
	tavg, _ := estimate.PooledTaskTime(e.prog)
	e.dynamic = e.hasDL && tavg.Known && e.anyRunning()
	switch {
	case e.dynamic:
		e.dynKill = math.MinInt64 // evaluated at the next heartbeat
	case !e.hasDL:
		e.static = sKey{class: classNoLimit}
	case !tavg.Known:
		e.static = sKey{class: classFinite, key: e.dl}
		e.killAt = e.dl
	default:
		// No task runs, so spare(now) = evaluate(now=0) − now exactly.
		ev := s.evaluate(e, 0, s.caps)
		e.static = sKey{class: ev.class, key: ev.value}
		switch {
		case ev.knocap:
			e.killAt = e.dl // only the deadline rule applies (killReason)
		case ev.kneg:
			e.killAt = math.MinInt64
		default:
			// slack(now) = slack(0) − now: killed once now > slack(0).
			e.killAt = min(e.dl, ev.slack)
		}
	}
}

// place puts e in the structures its classification and counters call
// for, and takes it out of the others.
func (s *Scheduler) place(e *entry) {
	if e.dynamic {
		for k := range s.elig {
			s.elig[k].remove(e)
		}
		s.fresh.remove(e)
		s.kill.remove(e)
		if e.dynPos < 0 {
			e.dynPos = int32(len(s.dyn))
			s.dyn = append(s.dyn, e)
		}
		return
	}
	s.removeDyn(e)
	for k := range s.elig {
		if s.availKind(e, k) > 0 {
			s.elig[k].upsert(e)
		} else {
			s.elig[k].remove(e)
		}
	}
	if e.fresh() && e.avail(0) > 0 {
		s.fresh.upsert(e)
	} else {
		s.fresh.remove(e)
	}
	if e.hasDL && !(s.cfg.SoftDeadlines && e.reported) {
		s.kill.upsert(e)
	} else {
		s.kill.remove(e)
	}
}

func (s *Scheduler) removeDyn(e *entry) {
	i := e.dynPos
	if i < 0 {
		return
	}
	last := s.dyn[len(s.dyn)-1]
	s.dyn[i] = last
	last.dynPos = i
	s.dyn[len(s.dyn)-1] = nil
	s.dyn = s.dyn[:len(s.dyn)-1]
	e.dynPos = -1
}

// reindex brings e's index state up to date after its counters changed.
func (s *Scheduler) reindex(e *entry) {
	if s.cfg.Literal || !s.indexed {
		return
	}
	s.classify(e)
	s.place(e)
}

// unindex removes e from every index structure.
func (s *Scheduler) unindex(e *entry) {
	if s.cfg.Literal || !s.indexed {
		return
	}
	for k := range s.elig {
		s.elig[k].remove(e)
	}
	s.fresh.remove(e)
	s.kill.remove(e)
	s.removeDyn(e)
}

// rebuild re-indexes every job, in O(n), at the capacity in s.caps.
func (s *Scheduler) rebuild() {
	for k := range s.elig {
		s.elig[k].reset()
	}
	s.fresh.reset()
	s.kill.reset()
	for i, e := range s.dyn {
		e.dynPos = -1
		s.dyn[i] = nil
	}
	s.dyn = s.dyn[:0]
	for _, e := range s.all {
		s.classify(e)
		if e.dynamic {
			e.dynPos = int32(len(s.dyn))
			s.dyn = append(s.dyn, e)
			continue
		}
		for k := range s.elig {
			if s.availKind(e, k) > 0 {
				s.elig[k].add(e)
			}
		}
		if e.fresh() && e.avail(0) > 0 {
			s.fresh.add(e)
		}
		if e.hasDL && !(s.cfg.SoftDeadlines && e.reported) {
			s.kill.add(e)
		}
	}
	for k := range s.elig {
		s.elig[k].heapify()
	}
	s.fresh.heapify()
	s.kill.heapify()
	s.indexed = true
}

// dynamicKillBound returns, for dynamic job e evaluated at now (ev) and
// meeting no kill rule then, a time up to which no kill rule can hold
// while its counters and the indexed capacity stay as they are (Update
// and rebuild reclassify it). Between two counter changes only formula
// (3)'s credit moves with now, and it never decreases (each phase's ΣR
// grows with now at its running count, and ⌊ΣR/S⌋ and the cap at
// Horizon keep the order), while Work, Tavg and whether a phase cannot
// finish read the counters and capacity only. So spare(t) = Deadline − t
// − Work + Credit(t) ≥ spare(now) − (t − now) exactly (integers, no
// saturation: time offsets, remaining work and credit all stay within
// 2⁶⁰ ns, clock.Limit and estimate.Horizon), and Spare + Tavg < 0 needs
// t > now + spare(now) + Tavg; the deadline rule needs t > Deadline. A
// spare time of −∞ from missing capacity leaves the deadline rule only
// (killReason). TestDynamicKillBound checks the bound against an
// evaluation at every heartbeat.
func dynamicKillBound(e *entry, ev *eval, now int64) int64 {
	if ev.knocap || ev.kneg {
		return e.dl // −∞ with NoCapacity (any other −∞ is a kill)
	}
	return min(e.dl, now+ev.slack)
}

// heartbeatFast decides exactly as heartbeatLiteral, from the index.
func (s *Scheduler) heartbeatFast(hb *beat, dst []Decision) []Decision {
	if !s.indexed || !slices.Equal(s.caps, s.capsNew) {
		copy(s.caps, s.capsNew)
		s.rebuild()
	}
	// Kills: static jobs whose kill time has passed, and dynamic jobs
	// evaluated now.
	kills := s.kills[:0]
	for s.kill.len() > 0 && s.kill.top().killAt < hb.now {
		e := s.kill.top()
		s.kill.remove(e)
		s.current(e, hb)
		kills = append(kills, e)
	}
	for _, e := range s.dyn {
		if hb.now <= e.dynKill || (s.cfg.SoftDeadlines && e.reported) {
			continue // no kill rule can hold (or none applies)
		}
		ev := s.current(e, hb)
		if killReason(e, ev, hb.now) != NoReason {
			kills = append(kills, e)
			continue
		}
		e.dynKill = dynamicKillBound(e, ev, hb.now)
	}
	dst = s.emitKills(dst, kills, hb)
	clear(kills)
	s.kills = kills[:0]

	// Dynamic jobs with something to run on this node's free slots, in
	// queue order (free slots only become fewer during the heartbeat, so
	// the others are never picked).
	ds := s.dynSort[:0]
	for _, e := range s.dyn {
		for k := range s.elig {
			if s.free[k] > 0 && s.availKind(e, k) > 0 {
				s.current(e, hb)
				ds = append(ds, e)
				break
			}
		}
	}
	sortByCurrent(ds)

	// Pass 1: fresh jobs are static with key = Deadline, so the fresh
	// heap holds them in queue order.
	k0 := s.lay.phaseKind[0]
	for !s.cfg.NoFirstMapPass && s.free[k0] > 0 && s.fresh.len() > 0 {
		e := s.fresh.top()
		s.fresh.remove(e)
		dst = s.assign(dst, e, 0, 1, 1, hb)
	}

	// Passes 2 and 3: merge the kind's static heap with the sorted
	// dynamic jobs.
	for k := range s.elig {
		h := &s.elig[k]
		di := 0
		for s.free[k] > 0 {
			for di < len(ds) && s.availKind(ds[di], k) == 0 {
				di++
			}
			var st *entry
			for h.len() > 0 {
				if st = h.top(); s.availKind(st, k) > 0 {
					break
				}
				h.remove(st) // its last ready task went in pass 1
				st = nil
			}
			var e *entry
			switch {
			case st == nil && di == len(ds):
			case st == nil:
				e, di = ds[di], di+1
			case di == len(ds):
				e = st
			default:
				d := ds[di]
				if cmpOrder(st.static.class, st.static.key-hb.now, st, d.cur.class, d.cur.value, d) < 0 {
					e = st
				} else {
					e, di = d, di+1
				}
			}
			if e == nil {
				break
			}
			dst = s.fill(dst, e, k, hb)
			if e == st && s.availKind(e, k) == 0 {
				h.remove(e)
			}
		}
	}
	clear(ds)
	s.dynSort = ds[:0]
	s.endBeat(true)
	return dst
}
