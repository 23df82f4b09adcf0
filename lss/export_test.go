package lss

import (
	"fmt"
	"time"

	"github.com/schedkit/schedkit"
	"github.com/schedkit/schedkit/estimate"
)

// CheckDynamicKillBounds checks every dynamic job's kill bound against a
// full evaluation: for a job whose bound is at or after the latest time
// given (a heartbeat then would skip its kill rules), the rules must
// hold at no time from then up to the bound. It evaluates at the latest
// time, the bound and halfway, and returns the number of bounds checked.
func CheckDynamicKillBounds(s *Scheduler) (int, error) {
	if s.cfg.Literal || !s.indexed {
		return 0, nil
	}
	n, latest := 0, s.clock.Latest()
	for _, e := range s.dyn {
		if e.dynKill < latest || (s.cfg.SoftDeadlines && e.reported) {
			continue
		}
		n++
		for _, t := range []int64{latest, latest + (e.dynKill-latest)/2, e.dynKill} {
			ev := s.evaluate(e, t, s.caps)
			if r := killReason(e, &ev, t); r != NoReason {
				return n, fmt.Errorf("job %s: kill bound %d, but at %d (latest %d) the kill rules give %v (spare %v)", e.id, e.dynKill, t, latest, r, ev.spare)
			}
		}
	}
	return n, nil
}

// PhaseWaves exposes phaseWaves (waves.go) for its worked-number test.
func PhaseWaves(optimistic bool, pr schedkit.PhaseProgress, sinceSubmit, t time.Duration, c estimate.Capacity) (work, credit time.Duration, ok bool) {
	m := waveEstimate
	if optimistic {
		m = waveOptimistic
	}
	return phaseWaves(m, &pr, pr.Total-pr.Finished, sinceSubmit, t, c)
}

// MembershipScans returns how many times s rescanned the cluster to find
// a heartbeating node (internal/membership): none with a Cluster that
// implements schedkit.NodeLookup.
func MembershipScans(s *Scheduler) uint64 { return s.members.Scans() }
