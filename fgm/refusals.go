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

// refusalMemory is the refusal memory of Algorithm 1's walk: the
// signatures (failSig) refused in the Schedule call under way since the
// server last changed, and the record of the latest complete call that
// placed nothing (idle, see idleRepeat).
type refusalMemory struct {
	// alike says that tasks alike (one similarity key, one request) are
	// decided alike on an unchanged server, because predictions are a
	// function of the key (they come from a History) or there are none.
	// It is the condition of every memory of refusals (a signature's,
	// a run's: skipRun; a call's: idleRepeat) and of predicting a run's
	// tasks without materialising them (taskAt). Set once by New.
	alike bool
	keyed bool // predictions from a History: the key is part of a signature

	fails   map[failSig]bool // refused signatures: were their tasks predicted
	refused []idleSig        // one task per refused signature, for idle
	cur     failSig          // the signature Check computed last, for Record
	curOK   bool             // cur is a signature (cacheable)
	idle    idleScan
	// hits and unpredictableHits count the tasks skipped by a
	// remembered refusal, of their signature (Check) and of an
	// unpredictable task of their request (CheckUnpredictable).
	hits, unpredictableHits uint64
}

// Reset forgets every refusal: at the start of a call, and whenever a
// placement changes the server.
func (m *refusalMemory) Reset() {
	clear(m.fails)
	m.refused = m.refused[:0]
}

// Check reports whether a task of p's signature was refused since the
// last Reset, and whether that task was predicted. It remembers p's
// signature for CheckUnpredictable and Record.
func (m *refusalMemory) Check(p *ptask) (refused, predicted bool) {
	m.cur, m.curOK = m.failSig(p)
	if !m.curOK {
		return false, false
	}
	if predicted, refused = m.fails[m.cur]; refused {
		m.hits++
	}
	return refused, predicted
}

// CheckUnpredictable reports whether an unpredictable task of the
// request of the task last Checked was refused since the last Reset
// (every unpredictable task of one request is decided alike).
func (m *refusalMemory) CheckUnpredictable() bool {
	if !m.curOK || m.cur.key == 0 {
		return false
	}
	u := m.cur
	u.key = 0
	_, refused := m.fails[u]
	if refused {
		m.unpredictableHits++
	}
	return refused
}

// Record remembers that the task p last Checked was refused, with
// prediction prof (as the estimator gave it) if predicted; an
// unpredictable task's refusal holds for every unpredictable task of
// its request.
func (m *refusalMemory) Record(p *ptask, prof estimate.Profile, predicted bool) {
	if !m.curOK {
		return
	}
	if m.fails == nil {
		m.fails = make(map[failSig]bool)
	}
	m.fails[m.cur] = predicted
	if !predicted {
		u := m.cur
		u.key = 0
		m.fails[u] = false
	}
	m.refused = append(m.refused, idleSig{p: p, prof: prof, predicted: predicted})
}

// EndIdle records a complete call that placed nothing (whose walk met
// the refusals of this memory), at History version hist and job version
// jobs, for idleRepeat.
func (m *refusalMemory) EndIdle(hist, jobs uint64) {
	if !m.alike {
		return
	}
	m.idle = idleScan{valid: true, hist: hist, jobs: jobs, sigs: append(m.idle.sigs[:0], m.refused...)}
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
	idle := &s.refusals.idle
	if !idle.valid || idle.jobs != s.jobsVer || idle.hist != s.historyVersion() ||
		(s.locTasks > 0 && s.cfg.LocalityWait >= 0) {
		return false
	}
	for _, g := range idle.sigs {
		prof := g.prof
		if g.predicted {
			prof = s.wholeUnits(prof, g.p.requested)
		}
		if _, _, ok := s.fits(v, g.p, prof, g.predicted, off); ok {
			return false
		}
	}
	s.skips.idleRepeats++
	return true
}

// failSig is what place's outcome depends on besides the server's state
// (see failSig).
type failSig struct {
	key uint64    // ptask.keyID with a History; 0: any key, unpredictable
	req [4]uint64 // the request's bits
}

// failSig returns p's signature for the refusal memory of a Schedule
// call: place refuses every task of one signature alike while the
// server does not change, since with predictions from a History (or
// none) it reads only the prediction (a function of the key, fixed
// within a call), the request and the server. The memory maps a refused
// signature to whether its tasks were predicted; an unpredictable
// task's refusal is also recorded under key 0 (every unpredictable
// task of that request is refused alike). The signature is known
// before predicting, so a remembered refusal costs no prediction.
// cacheable is false unless alike, or with more than four kinds.
func (m *refusalMemory) failSig(p *ptask) (sig failSig, cacheable bool) {
	if !m.alike || len(p.requested) > len(sig.req) {
		return sig, false
	}
	if m.keyed {
		sig.key = p.keyID
	}
	for k, x := range p.requested {
		sig.req[k] = math.Float64bits(x)
	}
	return sig, true
}
