package fgm

// Refusal memory, an acceleration of Algorithm 1's walk: refusals
// remembered within a Schedule call (failSig) and across calls that
// place nothing (idleRepeat). Reference path: scheduleLiteral
// (algorithm1_literal_test.go).

import (
	"math"

	"github.com/schedkit/schedkit/estimate"
)

// refusals is the stage: the signatures (failSig) refused in the
// Schedule call under way since the server last changed, and the record
// of the latest complete call that placed nothing (idle, see
// idleRepeat). It holds only when tasks alike are predicted alike
// (estimation.alike).
type refusals struct {
	noStage
	s     *Scheduler
	keyed bool // predictions from a History: the key is part of a signature

	fails   map[failSig]bool // refused signatures: were their tasks predicted
	met     []idleSig        // one task per refused signature, for idle
	cur     failSig          // the signature passTask computed last, for refused
	curOK   bool             // cur is a signature (cacheable)
	idle    idleScan
	jobsVer uint64 // changes with any job's queue or state
	// hits and unpredictableHits count the tasks passed by for a
	// remembered refusal, of their signature and of an unpredictable
	// task of their request; idleRepeats the calls idleRepeat answered.
	hits, unpredictableHits, idleRepeats uint64
}

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

func newRefusals(s *Scheduler) stage {
	if !s.est.alike {
		return noStage{}
	}
	return &refusals{s: s, keyed: s.est.hist != nil}
}

func (m *refusals) hooks() hookSet { return onQueue | onBegin | onTask | onPlaced | onEnd }

func (m *refusals) counts(add func(string, uint64)) {
	add("refusals", m.hits)
	add("unpredictableRefusals", m.unpredictableHits)
	add("idleRepeats", m.idleRepeats)
}

func (m *refusals) jobMoved(*jobEntry) { m.jobsVer++ }

// begin forgets the refusals of the last call and answers the call if
// it would repeat the last idle one.
func (m *refusals) begin(w *walk) bool {
	m.forget()
	if m.idleRepeat(w) {
		m.idleRepeats++
		return false
	}
	return true
}

// forget forgets every refusal: at the start of a call, and whenever a
// placement changes the server.
func (m *refusals) forget() {
	clear(m.fails)
	m.met = m.met[:0]
}

// passTask reports whether a task of t's signature was refused since the
// server last changed (and whether that task was predicted), or, if t
// is unpredictable, an unpredictable task of its request (every
// unpredictable task of one request is decided alike). The signature is
// known before predicting, so a remembered refusal costs no prediction.
func (m *refusals) passTask(w *walk, t *try) verdict {
	m.cur, m.curOK = m.failSig(t.p)
	if !m.curOK {
		return tryIt
	}
	if predicted, refused := m.fails[m.cur]; refused {
		m.hits++
		if predicted {
			return passRefusedPredicted
		}
		return passRefused
	}
	if m.cur.key == 0 {
		return tryIt
	}
	u := m.cur
	u.key = 0
	if _, refused := m.fails[u]; refused {
		if _, ok := t.predict(m.s); !ok {
			m.unpredictableHits++
			return passRefused
		}
	}
	return tryIt
}

// refused remembers that t (the task passTask saw last) was refused,
// with its prediction as the estimator gave it if it was tested as
// predicted; an unpredictable task's refusal holds for every
// unpredictable task of its request.
func (m *refusals) refused(_ *walk, t *try) {
	if !m.curOK {
		return
	}
	if m.fails == nil {
		m.fails = make(map[failSig]bool)
	}
	m.fails[m.cur] = t.predicted
	if !t.predicted {
		u := m.cur
		u.key = 0
		m.fails[u] = false
	}
	m.met = append(m.met, idleSig{p: t.p, prof: t.prof, predicted: t.predicted})
}

func (m *refusals) placed(*walk) bool {
	m.forget() // the server changed
	return true
}

// end records a complete call that placed nothing (whose walk met the
// refusals of this memory) for idleRepeat.
func (m *refusals) end(w *walk, placedAny bool) {
	if placedAny || w.partial {
		return
	}
	m.idle = idleScan{valid: true, hist: m.s.est.version(), jobs: m.jobsVer, sigs: append(m.idle.sigs[:0], m.met...)}
}

// idleRepeat reports whether the call would repeat the last complete
// call that placed nothing: nothing it reads changed since (no job's
// queue or state, not the History: its version), and no refusal
// signature met then fits the server now. The walk would then visit the
// same runs in the same order, predict the same keys, and be refused at
// every run (a run's outcome is its signature's, and a run skipped by
// the same-key rule is skipped again), placing nothing and changing
// nothing a later call reads. Not with a pending task with data
// locations under delay scheduling (a visit starts its wait).
func (m *refusals) idleRepeat(w *walk) bool {
	s := m.s
	idle := &m.idle
	if !idle.valid || idle.jobs != m.jobsVer || idle.hist != s.est.version() ||
		(s.locTasks > 0 && s.cfg.LocalityWait >= 0) {
		return false
	}
	for _, g := range idle.sigs {
		prof := g.prof
		if g.predicted {
			prof = s.wholeUnits(prof, g.p.requested)
		}
		if _, _, ok := s.fits(w.v, g.p, prof, g.predicted, w.now); ok {
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

// failSig returns p's signature: place refuses every task of one
// signature alike while the server does not change, since with
// predictions from a History (or none) it reads only the prediction (a
// function of the key, fixed within a call), the request and the
// server. The memory maps a refused signature to whether its tasks were
// predicted; an unpredictable task's refusal is also recorded under key
// 0. cacheable is false with more than four kinds.
func (m *refusals) failSig(p *ptask) (sig failSig, cacheable bool) {
	if len(p.requested) > len(sig.req) {
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
