package fgm

// Closed kinds, an acceleration of Algorithm 1: a server with no unit
// free of an integral kind is walked only over the jobs that can use it
// (the ordered job sets of jobsets.go).

import (
	"github.com/schedkit/schedkit/resource"
)

// needMask returns the integral kinds pending entry p requests (bit i
// for s.integral[i]), the index of its count in s.needs.
func (s *Scheduler) needMask(p *ptask) int {
	m := 0
	for i, k := range s.integral {
		if i < maxNeedKinds && p.requested[k] > 0 {
			m |= 1 << i
		}
	}
	return m
}

// closedKinds returns the integral kinds (bit i: s.integral[i]) of which
// v cannot give a task anything now, 0 if none or if the test does not
// apply: a queue entry requesting one of them would be refused by the
// walk of Algorithm 1, so the walk skips a job all of whose entries
// request one (anyOpen on its counts) and is not made or stops when
// every pending entry does (anyOpen on the scheduler's counts); in a
// slot space the used-up test ignores slots, so without this a full
// server's walk would visit every queued job. A kind is closed when v
// has less than one unit of it free now (requests of integral kinds
// are whole, so a positive
// one is at least 1) by one of the tests every placement passes: the
// free timeline at now, the measured idle amount (the first stage's
// test), or with HostChecksSteps what the host reports free. Each holds
// the request of an integral kind against it: a
// prediction's integral demands are the request (wholeUnits), its
// stages begin at now and last 1 ns at least (a History's do; Horizon
// is positive).
//
// It applies only where skipped visits would have no other effect: predictions
// from a History (whose profiles are valid: at most MaxStages stages)
// or none (closedEst), no pending task with data locations under delay
// scheduling (a visit starts its wait).
// free is v's free timeline at now.
func (s *Scheduler) closedKinds(v *server, free resource.Vector) int {
	if !s.closedEst ||
		(s.locTasks > 0 && s.cfg.LocalityWait >= 0) {
		return 0
	}
	closed := 0
	for i, k := range s.integral {
		n := v.capacity[k]
		if s.comp[k] {
			continue
		}
		// A positive request (≥ 1) fails: the timeline at now; the
		// measured idle amount (a task's first stage, measuredFits); what
		// the host reports free (HostChecksSteps, hostFits).
		if free[k]+slack*n < 1 || (v.measured && n-v.lastUsed[k]-v.placed[k]+slack*n < 1) ||
			(s.cfg.HostChecksSteps && s.hostFree[k]+slack*n < 1) {
			closed |= 1 << i
		}
	}
	return closed
}

// anyOpen reports whether some entry counted in needs requests none of
// the closed kinds (an entry requesting no integral kind always counts).
func (s *Scheduler) anyOpen(needs *[1 << maxNeedKinds]int32, closed int) bool {
	for m := range 1 << len(s.integral) {
		if needs[m] > 0 && m&closed == 0 {
			return true
		}
	}
	return false
}
