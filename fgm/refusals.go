package fgm

// Refusal memory, an acceleration of Algorithm 1: refusals remembered
// within a Schedule call (failSig) and across calls that place nothing
// (idleRepeat). Reference path: scheduleLiteral
// (algorithm1_literal_test.go).

import (
	"math"
	"time"

	"github.com/schedkit/schedkit/estimate"
)

// idleScan records a complete Schedule call that placed nothing: the
// History's version and jobsVer after it, and one task (with its
// prediction, before wholeUnits) per refusal signature it met.
type idleScan struct {
	valid      bool
	hist, jobs uint64
	sigs       []idleSig
}

type idleSig struct {
	p         *ptask
	prof      estimate.Profile
	predicted bool
}

// historyVersion is the version of the History predictions come from
// (0 without one).
func (s *Scheduler) historyVersion() uint64 {
	if s.hist != nil {
		return s.hist.Version()
	}
	return 0
}

// refusalMemory is the refusal memory of one Schedule call: the
// signatures refused since the server last changed (fails, the value
// saying whether the refused tasks were predicted) and one task per
// signature for the idle record (refused).
type refusalMemory struct {
	fails   map[failSig]bool
	refused []idleSig
}

// Reset forgets every refusal: at the start of a call, and whenever a
// placement changes the server.
func (m *refusalMemory) Reset() {
	clear(m.fails)
	m.refused = m.refused[:0]
}

// Refused reports whether sig was refused since the last Reset, and
// whether its tasks were predicted.
func (m *refusalMemory) Refused(sig failSig) (refused, predicted bool) {
	predicted, refused = m.fails[sig]
	return refused, predicted
}

// Record remembers that the task p of signature sig was refused, with
// prediction prof (as the estimator gave it) if predicted; an
// unpredictable task's refusal holds for every unpredictable task of
// its request (usig).
func (m *refusalMemory) Record(sig, usig failSig, p *ptask, prof estimate.Profile, predicted bool) {
	if m.fails == nil {
		m.fails = make(map[failSig]bool)
	}
	m.fails[sig] = predicted
	if !predicted {
		m.fails[usig] = false
	}
	m.refused = append(m.refused, idleSig{p: p, prof: prof, predicted: predicted})
}

// idleRepeat answers a call exactly as the full walk would when nothing
// it reads changed since the last complete call that placed nothing (no
// job's queue or state, not the History: its version, which every
// recency change moves), and no refusal signature met then fits v now.
// The walk would then visit the same runs in the same order, predict
// the same keys in the same order — touching the History's recency
// order into the state it is already in — and be refused at every run
// (a run's outcome is its signature's, and a run skipped by the
// same-key rule is skipped again), placing nothing and changing nothing
// a later call reads. Only with a History or no Estimator, no pending
// task with data locations (delay scheduling keeps per-task state
// unless LocalityWait < 0).
func (s *Scheduler) idleRepeat(v *server, off time.Duration) bool {
	if !s.idle.valid || !s.byKey ||
		s.idle.jobs != s.jobsVer || s.idle.hist != s.historyVersion() ||
		(s.locTasks > 0 && s.cfg.LocalityWait >= 0) {
		return false
	}
	for _, g := range s.idle.sigs {
		prof := g.prof
		if g.predicted {
			prof = s.wholeUnits(prof, g.p.requested)
		}
		if _, _, ok := s.fits(v, g.p, prof, g.predicted, off); ok {
			return false
		}
	}
	return true
}

// failSig is what place's outcome depends on besides the server's state
// (see failSig).
type failSig struct {
	key uint64    // ptask.keyID with a History; 0: any key, unpredictable
	req [4]uint64 // the request's bits
}

// failSig returns p's signature for the refusal cache of a Schedule
// call: place refuses every task of one signature alike while the
// server does not change, since with predictions from a History (or
// none) it reads only the prediction (a function of the key, fixed
// within a call), the request and the server. The cache maps a refused
// signature to whether its tasks were predicted; an unpredictable
// task's refusal is also recorded under key 0 (every unpredictable
// task of that request is refused alike). The signature is known
// before predicting, so a cached refusal costs no prediction.
// cacheable is false with another Estimator or more than four kinds.
func (s *Scheduler) failSig(p *ptask) (sig failSig, cacheable bool) {
	if len(p.requested) > len(sig.req) || !s.byKey {
		return sig, false
	}
	if s.hist != nil {
		sig.key = p.keyID
	}
	for k, x := range p.requested {
		sig.req[k] = math.Float64bits(x)
	}
	return sig, true
}
