package fgm

import (
	"cmp"
	"fmt"
	"math"
	"slices"
	"time"

	"github.com/schedkit/schedkit"
	"github.com/schedkit/schedkit/estimate"
	"github.com/schedkit/schedkit/resource"
)

// Schedule runs Algorithm 1 for one server at now and appends its
// Allocate decisions to dst (pass dst[:0] of a reused slice):
//
//  1. skip the server if its policy is stop-allocation, or if some kind's
//     free amount now (plus the compression allowance limit × N of a
//     compressible kind under fine-grained-with-compression) is below
//     IdleThreshold × capacity, or if an incompressible kind's measured
//     idle amount (the latest SampleNode, less what was placed since) is
//     below IdleThreshold × capacity (integral kinds excepted: slots and
//     devices are left to each task's match, since not every task draws
//     on them);
//  2. order the jobs with pending tasks by the Fairness policy (DRF by
//     default; ties by job ID), each job's tasks in submission order;
//  3. for each task: check locality (delay scheduling: a task whose input
//     is elsewhere waits up to LocalityWait for a local server); an
//     unpredictable task (or one whose prediction's peak fits no
//     registered server) gets its requested quantity if the least free
//     over [now, now+Horizon) holds it; under a fine-grained policy the
//     predicted stages go through Algorithm 2 (Matcher); otherwise
//     coarse-grained: the predicted peak against the least free over the
//     predicted duration;
//     a task's first stage (its request if unpredictable) must also fit
//     the measured idle amount of every incompressible kind;
//  4. checkQoS: if the placement compresses anything, every running task
//     with a deadline on the server must still make it, its remaining
//     duration by formula (15) with the compression the new reservations
//     imply (a task that would miss without the newcomer does not block
//     it);
//  5. allocate: reserve the stages on the server's timeline, charge the
//     job its peak, and emit the decision; stop when the server is used
//     up (the test of step 1).
//
// With Progressive, the jobs are ordered again after every allocation
// (DRF's progressive filling) instead of once per call as printed; a job
// that placed nothing in this call is not tried again in it.
//
// After a failed match, later tasks of the same job with the same
// similarity key are skipped on this server when predictions come from a
// History (they would fail the same way).
//
// Cost: the walk goes run by run, not task by task (a run is a job's
// consecutive alike pending tasks: same similarity key, same request, no
// data locations): once a run's first task is refused the rest of it
// would be too, and a refusal is remembered for the rest of the call
// until something is placed. With predictions from a History (or none),
// a call that would repeat the last call that placed nothing — no job
// and no History change since — only tests that call's refusals on the
// server. The job order is kept between calls. When the server has
// less than one unit free of some integral kind (a slot, a device; see
// closedKinds), tasks requesting it would be refused: the walk is not
// made when every pending task requests a closed kind (in a slot space,
// a full server), stops when that becomes so after a placement, and
// otherwise visits only the jobs with a task that requests none, by
// merging ordered sets of jobs kept per combination of integral kinds
// requested (joborder.go). In a slot space the used-up test ignores
// slots, so without this a call would visit every queued job. The
// decisions are those of the task-by-task walk (TestRunSkipMatchesScan).
//
// With HostChecksSteps, every step's incompressible demand must also fit
// the node's Available() now, less what this call has already placed
// there.
//
// It fails, deciding nothing, changing nothing and leaving the clock
// where it was, for a nil node (ErrInvalidNode; or, with
// HostChecksSteps, an Available vector that does not fit the Space or
// holds NaN or infinite amounts), an unknown node (ErrUnknownNode),
// ErrStaleTime, ErrTimeRange, an Estimator prediction that is invalid
// (ErrInvalidEstimate: no stages, a negative stage length, stages
// lasting 0 s in all, a demand of the wrong length or with NaN, infinite
// or negative amounts, more than MaxStages stages), or a run's host
// making an invalid task (ErrInvalidTask, ErrDuplicateTask); placements
// the call made before the failure are undone exactly.
func (s *Scheduler) Schedule(now time.Time, node schedkit.Node, dst []Decision) ([]Decision, error) {
	const op = "Schedule"
	if isNil(node) {
		return dst, &Error{Op: op, Err: ErrInvalidNode, Reason: nilText("node", node)}
	}
	id := node.ID()
	v := s.nodes[id]
	if v == nil {
		return dst, &Error{Op: op, Node: id, Err: ErrUnknownNode, Reason: "not registered"}
	}
	if s.cfg.HostChecksSteps {
		avail := node.Available()
		if len(avail) != s.dims {
			return dst, &Error{Op: op, Node: id, Err: ErrInvalidNode, Reason: "Available does not fit the Space"}
		}
		for _, x := range avail {
			if math.IsNaN(x) || math.IsInf(x, 0) {
				return dst, &Error{Op: op, Node: id, Err: ErrInvalidNode, Reason: "Available holds NaN or infinite amounts"}
			}
		}
		s.hostFree = append(s.hostFree[:0], avail...)
	}
	rd, off, err := s.check(op, now)
	if err != nil {
		return dst, err
	}
	dst, err = s.schedule(v, off, dst)
	if err == nil {
		s.clock.Commit(rd)
	}
	return dst, err
}

// schedule is Schedule on valid arguments: v's walk at off. On error it
// has rolled back whatever it changed.
func (s *Scheduler) schedule(v *server, off time.Duration, dst []Decision) ([]Decision, error) {
	const op = "Schedule"
	id := v.id
	v.refresh(off)
	free := v.free.At(off) // until the first placement
	if v.policy == StopAllocation || v.usedUp(free) || len(s.active) == 0 {
		return dst, nil
	}
	hist, keyed := s.cfg.Estimator.(HistoryEstimator)
	closed := s.closedKinds(v, free)
	if closed != 0 && !s.anyOpen(&s.needs, closed) {
		s.call++
		return dst, nil
	}
	// The jobs in compareJobs order: all of them, or (some kinds closed)
	// the merged sets of those that can have a slot.
	var walk *setWalk
	var order []*jobEntry
	if closed != 0 && !s.cfg.Progressive {
		s.fixSets(s.openSets(closed))
		walk = &s.walk
		walk.start(s, closed)
	} else {
		s.sortJobs()
		order = s.order
		s.fixSets(0) // only a backlog that outgrew the jobs (dropped jobs held)
	}
	if closed == 0 && s.idleRepeat(v, hist, keyed, off) {
		s.call++
		return dst, nil
	}
	start := len(dst)
	s.beginUndo(v)
	s.call++
	clear(s.fails)
	s.refused = s.refused[:0]
	skipped := false // a job left out for want of a slot: no idle record
	k := -1
	nextJob := func() *jobEntry {
		if walk != nil {
			return walk.next()
		}
		if k++; k < len(order) {
			return order[k]
		}
		return nil
	}
jobs:
	for j := nextJob(); j != nil; j = nextJob() {
		if j.tried == s.call {
			continue
		}
		if closed != 0 && !s.anyOpen(&j.needs, closed) {
			// Every task of the job would be refused for want of a slot.
			j.tried = s.call
			skipped = true
			continue
		}
		var failKey schedkit.SimilarityKey
		failed := false
		for i := 0; i < len(j.pending); {
			p := j.pending[i]
			if p.src != nil && !(keyed || s.cfg.Estimator == nil) {
				// Another Estimator predicts task by task: it is asked
				// about the run's head task itself.
				q, err := s.splitHead(op, j, i)
				if err != nil {
					s.rollback(v)
					return dst[:start], err
				}
				p = q
			}
			if !s.local(p, v, off) {
				i++
				continue
			}
			sig, cacheable := s.failSig(p, keyed)
			if cacheable {
				if pred, refused := s.fails[sig]; refused {
					// A task alike for place was refused since the
					// server last changed (its profile was valid).
					if pred {
						failKey, failed = p.key, true
					}
					i = s.skipRun(j, i, keyed)
					continue
				}
			}
			var prof estimate.Profile
			ok := false
			switch {
			case keyed && !s.scanEach:
				// What HistoryEstimator.Predict(p.t) returns: the key was
				// read at Submit.
				prof, ok = hist.History.Predict(p.key)
			case s.cfg.Estimator != nil:
				prof, ok = s.cfg.Estimator.Predict(p.t)
			}
			usig := sig // unpredictable: refused as any unpredictable task of its request
			usig.key = 0
			if cacheable && !ok && sig.key != 0 {
				if _, refused := s.fails[usig]; refused {
					i = s.skipRun(j, i, keyed)
					continue
				}
			}
			prof0 := prof // the prediction as given (idleSig)
			if ok {
				if err := s.validProfile(prof); err != nil {
					err.Op, err.Job, err.Task, err.Node = op, j.state.ID, p.id, id
					s.rollback(v)
					return dst[:start], err
				}
				if keyed && failed && p.key == failKey {
					i = s.skipRun(j, i, keyed)
					continue
				}
				prof = s.wholeUnits(prof, p.requested)
			}
			why := Unpredictable
			if ok && !s.usable(prof) {
				// Its peak fits no server: it runs at its request, as an
				// unpredictable task does, and teaches the History.
				ok, prof, why = false, estimate.Profile{}, EstimateFitsNoServer
			}
			q, err := s.place(v, p, i, prof, ok, off)
			if err != nil {
				s.rollback(v)
				return dst[:start], err
			}
			if q == nil {
				if ok {
					failKey, failed = p.key, true
				}
				if cacheable {
					s.fails[sig] = ok
					if !ok {
						s.fails[usig] = false
					}
					s.refused = append(s.refused, idleSig{p: p, prof: prof0, predicted: ok})
				}
				i = s.skipRun(j, i, keyed)
				continue
			}
			clear(s.fails) // the server changed
			s.refused = s.refused[:0]
			d := Decision{Action: Allocate, Task: q.id, Job: j.state.ID, Node: id, Mode: q.mode, Plan: q.plan}
			if q.mode == Requested {
				d.Reason = why
			}
			dst = append(dst, d)
			free = v.free.At(off)
			if v.usedUp(free) {
				break jobs
			}
			if closed = s.closedKinds(v, free); closed != 0 && !s.anyOpen(&s.needs, closed) {
				break jobs
			}
			if s.cfg.Progressive {
				// Shares changed: order again and start over; jobs that
				// placed nothing on this server in this call stay done.
				s.sortJobs()
				order = s.order
				k = -1
				continue jobs
			}
		}
		j.tried = s.call
	}
	if len(dst) == start && !skipped && walk == nil && !s.scanEach && (keyed || s.cfg.Estimator == nil) {
		s.idle = idleScan{valid: true, hist: historyVersion(hist, keyed), jobs: s.jobsVer, sigs: append(s.idle.sigs[:0], s.refused...)}
	}
	return dst, nil
}

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
// scheduling (a visit starts its wait), and not on the reference path.
// free is v's free timeline at now.
func (s *Scheduler) closedKinds(v *server, free resource.Vector) int {
	if s.scanEach || !s.closedEst ||
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

func historyVersion(h HistoryEstimator, keyed bool) uint64 {
	if keyed && h.History != nil {
		return h.History.Version()
	}
	return 0
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
// unless LocalityWait < 0), and not on the reference path.
func (s *Scheduler) idleRepeat(v *server, hist HistoryEstimator, keyed bool, off time.Duration) bool {
	if !s.idle.valid || s.scanEach || !(keyed || s.cfg.Estimator == nil) ||
		s.idle.jobs != s.jobsVer || s.idle.hist != historyVersion(hist, keyed) ||
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
// cacheable is false with another Estimator, more than four kinds, or
// scanEach (the reference path).
func (s *Scheduler) failSig(p *ptask, keyed bool) (sig failSig, cacheable bool) {
	if s.scanEach || len(p.requested) > len(sig.req) || !(keyed || s.cfg.Estimator == nil) {
		return sig, false
	}
	if s.fails == nil {
		s.fails = make(map[failSig]bool)
	}
	if keyed {
		sig.key = p.keyID
	}
	for k, x := range p.requested {
		sig.req[k] = math.Float64bits(x)
	}
	return sig, true
}

// compareJobs is the order of Algorithm 1 line 4: Fairness, then job
// ID. Fairness is a strict weak order and IDs are unique, so the order
// of the active jobs is unique: any way of sorting them gives it.
func (s *Scheduler) compareJobs(a, b *jobEntry) int {
	if s.drf {
		// DRF{}'s Less, without the dynamic calls.
		switch {
		case drfLess(a.state.Share, a.state.Submitted, b.state.Share, b.state.Submitted):
			return -1
		case drfLess(b.state.Share, b.state.Submitted, a.state.Share, a.state.Submitted):
			return 1
		}
		return cmp.Compare(a.state.ID, b.state.ID)
	}
	switch {
	case s.cfg.Fairness.Less(&a.state, &b.state):
		return -1
	case s.cfg.Fairness.Less(&b.state, &a.state):
		return 1
	}
	return cmp.Compare(a.state.ID, b.state.ID)
}

// sortJobs brings order to the active jobs in compareJobs order. Jobs
// whose state did not change since the last call keep their relative
// order, so only the moved ones are taken out and inserted again by
// binary search (a full sort when many moved, every share changed, or
// with scanEach, the reference path).
func (s *Scheduler) sortJobs() {
	if s.resort || s.scanEach || len(s.moved) > 16+len(s.order)/8 {
		for _, j := range s.moved {
			j.moved = false
		}
		s.moved, s.resort = s.moved[:0], false
		s.order = append(s.order[:0], s.active...)
		slices.SortFunc(s.order, s.compareJobs)
		return
	}
	if len(s.moved) == 0 {
		return
	}
	k := 0
	for _, j := range s.order {
		if !j.moved {
			s.order[k] = j
			k++
		}
	}
	clear(s.order[k:])
	s.order = s.order[:k]
	for _, j := range s.moved {
		j.moved = false
		if j.activePos < 0 {
			continue
		}
		i, _ := slices.BinarySearchFunc(s.order, j, s.compareJobs)
		s.order = slices.Insert(s.order, i, j)
	}
	s.moved = s.moved[:0]
}

// skipRun returns the index of the first pending task of j after the
// run (see enqueue) of the one at i, which this call has just refused or
// skipped on the server: each later task of the run would be refused or
// skipped the same way, with nothing else changing. It holds when
// predictions come from a History (the key decides them, and a
// prediction changes nothing) or there is no Estimator; with any
// other Estimator (one that may predict each task differently), or with
// scanEach, it returns i+1. It finds the end of the run by galloping,
// so the cost is logarithmic in the run's length.
func (s *Scheduler) skipRun(j *jobEntry, i int, keyed bool) int {
	if s.scanEach || !(keyed || s.cfg.Estimator == nil) {
		return i + 1
	}
	runs := j.runs
	r := runs[i]
	lo, step := i, 1 // runs[lo] is in the run
	for lo+step < len(runs) && runs[lo+step] == r {
		lo += step
		step *= 2
	}
	hi := min(lo+step, len(runs)) // runs[hi] is not, or hi is the end
	for hi-lo > 1 {
		m := int(uint(lo+hi) >> 1)
		if runs[m] == r {
			lo = m
		} else {
			hi = m
		}
	}
	return hi
}

// wholeUnits returns prof with every stage's demand of an integral kind
// (slots, devices) replaced by the task's request: measured usage of a
// slot carries noise (1.04 slots), and a fraction of a slot can be
// neither allocated nor saved. The copy lives in s.whole until the next
// call; prof itself (the estimator's view) is not modified.
func (s *Scheduler) wholeUnits(prof estimate.Profile, requested resource.Vector) estimate.Profile {
	if len(s.integral) == 0 {
		return prof
	}
	n := len(prof.Stages)
	if cap(s.whole) < n {
		s.whole = make([]estimate.Stage, n)
	}
	s.whole = s.whole[:n]
	for i, st := range prof.Stages {
		w := &s.whole[i]
		w.Duration = st.Duration
		if cap(w.Demand) < len(st.Demand) {
			w.Demand = make(resource.Vector, len(st.Demand))
		}
		w.Demand = w.Demand[:len(st.Demand)]
		copy(w.Demand, st.Demand)
		for _, k := range s.integral {
			w.Demand[k] = requested[k]
		}
	}
	prof.Stages = s.whole
	return prof
}

func (s *Scheduler) validProfile(p estimate.Profile) *Error {
	if len(p.Stages) == 0 {
		return &Error{Err: ErrInvalidEstimate, Reason: "a prediction with no stages"}
	}
	if len(p.Stages) > s.cfg.MaxStages {
		return &Error{Err: ErrInvalidEstimate, Reason: fmt.Sprintf("%d stages, more than MaxStages %d", len(p.Stages), s.cfg.MaxStages)}
	}
	return validStages(p.Stages, s.dims)
}

// usable reports whether prediction prof (integral kinds at the request)
// fits some server: its peak within the largest capacity of each kind
// among the registered servers. One that does not would keep its task
// pending whatever the cluster did, and no new sample could correct it;
// the task gets its request instead.
func (s *Scheduler) usable(prof estimate.Profile) bool {
	for _, st := range prof.Stages {
		for k, x := range st.Demand {
			if n := s.maxCap[k]; x > n+slack*n {
				return false
			}
		}
	}
	return true
}

// local is delay scheduling's test for p on server v at now.
func (s *Scheduler) local(p *ptask, v *server, now time.Duration) bool {
	if len(p.locs) == 0 || s.cfg.LocalityWait < 0 {
		return true
	}
	if slices.Contains(p.locs, v.id) {
		return true
	}
	if !p.waiting {
		s.waits = append(s.waits, waitUndo{t: p, since: p.waitSince, waiting: p.waiting})
		p.waiting, p.waitSince = true, now
	}
	return now-p.waitSince >= s.cfg.LocalityWait
}

// place tries pending task p (index i of its job's queue) on v; on
// success it returns the task now running there and reserved (p, or
// the head task of run entry p, materialised). It fails only when the
// host's TaskRun.Task gives an invalid task; nothing is changed then.
func (s *Scheduler) place(v *server, p *ptask, i int, prof estimate.Profile, predictable bool, now time.Duration) (*ptask, error) {
	mode, stages, ok := s.fits(v, p, prof, predictable, now)
	if !ok {
		return nil, nil
	}
	q := p
	if p.src != nil {
		var err error
		if q, err = s.materialise("Schedule", p); err != nil {
			return nil, err
		}
		s.tasks[q.id] = q
	}
	s.logPlace(p, q, i)
	s.dequeue(p.job, i)
	p = q
	first := p.requested
	if stages != nil {
		first = stages[0].Demand
	}
	for k, d := range first {
		if !s.comp[k] {
			v.placed[k] += d
		}
	}
	s.commitPlace(v, p, mode, stages, now)
	if s.cfg.HostChecksSteps {
		// The host allocates the first step at once.
		first := p.plan[0].Alloc
		for k := range s.hostFree {
			s.hostFree[k] -= first[k]
		}
	}
	return p, nil
}

// fits is place's test, changing nothing but scratch buffers: whether p
// fits v at now, with the mode and stages it would be placed with (nil
// stages: open-ended at the request; the stages of a coarse-grained
// match live in s.one until the next call).
func (s *Scheduler) fits(v *server, p *ptask, prof estimate.Profile, predictable bool, now time.Duration) (Mode, []estimate.Stage, bool) {
	dims := s.dims
	var mode Mode
	var stages []estimate.Stage
	switch {
	case !predictable:
		mode = Requested
		if s.cfg.Horizon > 0 {
			_ = v.free.Min(now, now+s.cfg.Horizon, s.tmp)
			if !fitsWithSlack(p.requested, s.tmp, v.capacity) {
				return 0, nil, false
			}
		}
	case !s.cfg.Ablations.CoarseOnly && (v.policy == FineGrainedCompress || v.policy == FineGrainedNoCompress):
		mode = FineGrained
		stages = prof.Stages
		if need := len(stages) * dims; len(s.rates) < need {
			s.rates = make([]float64, need)
		}
		compress := v.policy == FineGrainedCompress && s.cfg.CompressionLimit > 0
		if !s.matcher.match(v.free, v.capacity, stages, now, compress, s.rates, nil) {
			return 0, nil, false
		}
		if compress && !s.cfg.Ablations.NoCheckQoS && anyPositive(s.rates[:len(stages)*dims]) && !s.checkQoS(v, stages, now) {
			return 0, nil, false
		}
	default:
		mode = CoarseGrained
		prof.Peak(s.peakBuf)
		d := max(prof.Duration(), 1)
		_ = v.free.Min(now, now+d, s.tmp)
		if !fitsWithSlack(s.peakBuf, s.tmp, v.capacity) {
			return 0, nil, false
		}
		s.one[0] = estimate.Stage{Duration: prof.Duration(), Demand: s.peakBuf}
		stages = s.one[:]
		if len(s.rates) < dims {
			s.rates = make([]float64, dims)
		}
		clear(s.rates[:dims])
	}
	if s.cfg.HostChecksSteps && !s.hostFits(p, stages, v) {
		return 0, nil, false
	}
	first := p.requested
	if stages != nil {
		first = stages[0].Demand
	}
	if !v.measuredFits(first) {
		return 0, nil, false
	}
	return mode, stages, true
}

// hostFits reports whether every step's incompressible demand (nil
// stages: the request) fits what the host reports free now.
func (s *Scheduler) hostFits(p *ptask, stages []estimate.Stage, v *server) bool {
	check := func(d resource.Vector) bool {
		for k, x := range d {
			if !s.comp[k] && x > 0 && x > s.hostFree[k]+slack*v.capacity[k] {
				return false
			}
		}
		return true
	}
	if stages == nil {
		return check(p.requested)
	}
	for _, st := range stages {
		if !check(st.Demand) {
			return false
		}
	}
	return true
}

func fitsWithSlack(demand, free, capacity resource.Vector) bool {
	return shortKind(demand, free, capacity) < 0
}

func anyPositive(x []float64) bool {
	for _, v := range x {
		if v > 0 {
			return true
		}
	}
	return false
}

// commitPlace makes p (taken out of its job's queue) running on v with
// the given stages (nil: open-ended at its requested quantity) and the
// rates in s.rates.
func (s *Scheduler) commitPlace(v *server, p *ptask, mode Mode, stages []estimate.Stage, now time.Duration) {
	dims := s.dims
	j := p.job
	if p.runState == nil {
		if n := len(s.spare); n > 0 {
			p.runState, s.spare[n-1] = s.spare[n-1], nil
			s.spare = s.spare[:n-1]
		} else {
			p.runState = new(runState)
		}
	}
	p.running, p.srv, p.start, p.mode = true, v, now, mode
	s.seq++
	p.startSq = s.seq
	p.startSamples(now)
	p.open = stages == nil
	n := max(len(stages), 1)
	p.work = resizeD(p.work, n)
	p.rc = resizeF(p.rc, n)
	p.vals = resizeF(p.vals, n*dims)
	p.planRC = resizeF(p.planRC, n*dims)
	p.abuf = resizeF(p.abuf, n*dims)
	abuf := p.abuf
	if cap(p.plan) < n {
		p.plan = make([]PlanStep, n)
	}
	p.plan = p.plan[:n]
	if p.peak == nil {
		p.peak, p.charge = s.space.Zero(), s.space.Zero()
	}
	if p.open {
		p.work[0], p.rc[0] = 0, 0
		copy(p.vals, p.requested)
		clear(p.planRC)
		copy(p.peak, p.requested)
		copy(p.charge, p.requested)
		copy(abuf, p.requested)
		p.plan[0] = PlanStep{Alloc: abuf[:dims:dims], Reserved: p.vals[:dims:dims], Compression: p.planRC[:dims:dims]}
		p.dueAt, p.predEnd = now+s.cfg.Horizon, now+s.cfg.Horizon
	} else {
		clear(p.peak)
		due, pred := now, float64(now)
		for si, st := range stages {
			val := p.vals[si*dims : (si+1)*dims : (si+1)*dims]
			copy(val, st.Demand)
			rcv := p.planRC[si*dims : (si+1)*dims : (si+1)*dims]
			copy(rcv, s.rates[si*dims:(si+1)*dims])
			rc := 0.0
			for k, x := range rcv {
				if s.comp[k] {
					rc = max(rc, x)
				}
				p.peak[k] = max(p.peak[k], val[k])
			}
			p.work[si], p.rc[si] = st.Duration, rc
			due += st.Duration
			pred += float64(st.Duration) / (1 - min(rc, 0.999)) // formula (15)
			a := abuf[si*dims : (si+1)*dims : (si+1)*dims]
			copy(a, val)
			if s.cfg.CapAtRequest {
				for k := range a {
					if s.comp[k] {
						a[k] = max(a[k], p.requested[k])
					}
				}
			}
			p.plan[si] = PlanStep{Duration: st.Duration, Alloc: a, Reserved: val, Compression: rcv}
			if si == 0 {
				copy(p.charge, a)
			} else {
				_ = p.charge.Max(a)
			}
		}
		p.dueAt, p.predEnd = due, time.Duration(pred)
		if s.cfg.ChargeMean && due > now {
			// The work-weighted mean allocation over the plan's steps.
			clear(p.charge)
			total := float64(due - now)
			for si := range stages {
				w := float64(p.work[si]) / total
				for k, x := range abuf[si*dims : (si+1)*dims] {
					p.charge[k] += w * x
				}
			}
		}
	}
	v.running = append(v.running, p)
	v.reserve(p, now)
	_ = j.state.Allocated.Add(p.charge)
	j.state.Running++
	s.share(j)
	s.placed = append(s.placed, p)
}

func resizeF(x []float64, n int) []float64 {
	if cap(x) < n {
		return make([]float64, n)
	}
	return x[:n]
}

func resizeD(x []time.Duration, n int) []time.Duration {
	if cap(x) < n {
		return make([]time.Duration, n)
	}
	return x[:n]
}

// undo is one entry of a Schedule call's undo log: a placement, or the
// split of a run entry's head (splitHead), with what restoring it
// exactly needs.
type undo struct {
	entry *ptask // the queue entry: the task, or the run entry it came from
	q     *ptask // the task placed, or split off the run entry
	i     int    // the entry's index in its job's queue
	run   uint64 // the entry's run label
	split bool   // a split, not a placement
	// removed: the entry left the queue (a single task, or a run entry's
	// last); else the run entry gave up its head task.
	removed bool
	alloc   int // offset in Scheduler.undoAlloc of the job's Allocated before
}

// beginUndo starts the undo log of a Schedule call on v: what rollback
// restores besides the log (v's placed-since-sample amounts, the
// sequence counter).
func (s *Scheduler) beginUndo(v *server) {
	s.placed, s.waits, s.undos = s.placed[:0], s.waits[:0], s.undos[:0]
	s.undoAlloc = s.undoAlloc[:0]
	s.undoPlaced = append(s.undoPlaced[:0], v.placed...)
	s.undoSeq = s.seq
}

// logPlace records the placement of q, from queue entry p at index i of
// its job's queue, before anything of it is changed.
func (s *Scheduler) logPlace(p, q *ptask, i int) {
	j := p.job
	u := undo{entry: p, q: q, i: i, run: j.runs[i], alloc: len(s.undoAlloc)}
	u.removed = p.src == nil || p.src.left == 1
	s.undoAlloc = append(s.undoAlloc, j.state.Allocated...)
	s.undos = append(s.undos, u)
}

// rollback undoes this Schedule call's placements, splits and locality
// waits, newest first, restoring every field they touched exactly (the
// jobs' charged allocations by copy, not by subtraction, so that a
// rounding error cannot change an order later).
func (s *Scheduler) rollback(v *server) {
	for n := len(s.undos) - 1; n >= 0; n-- {
		u := s.undos[n]
		p, q := u.entry, u.q
		j := p.job
		if u.split {
			delete(s.tasks, q.id)
			if u.removed {
				j.pending[u.i] = p
				continue
			}
			j.pending = slices.Delete(j.pending, u.i, u.i+1)
			j.runs = slices.Delete(j.runs, u.i, u.i+1)
			p.src.next--
			p.src.left++
			p.seq--
			s.need(j, q, -1)
			continue
		}
		k := slices.Index(v.running, q)
		v.running = slices.Delete(v.running, k, k+1)
		copy(j.state.Allocated, s.undoAlloc[u.alloc:u.alloc+s.dims])
		j.state.Running--
		s.share(j)
		q.running, q.srv = false, nil
		s.spare = append(s.spare, q.runState)
		q.runState = nil
		if q != p {
			delete(s.tasks, q.id)
		}
		if !u.removed {
			p.src.next--
			p.src.left++
			p.seq--
			j.state.Pending++
			s.moveJob(j)
			continue
		}
		j.pending = slices.Insert(j.pending, u.i, p)
		j.runs = slices.Insert(j.runs, u.i, u.run)
		j.state.Pending++
		s.need(j, p, 1)
		if len(p.locs) > 0 {
			s.locTasks++
		}
		if j.activePos < 0 {
			j.activePos = len(s.active)
			s.active = append(s.active, j)
		}
	}
	copy(v.placed, s.undoPlaced)
	s.seq = s.undoSeq
	v.dirty = true
	for i := len(s.waits) - 1; i >= 0; i-- {
		w := s.waits[i]
		w.t.waitSince, w.t.waiting = w.since, w.waiting
	}
	s.placed, s.waits, s.undos = s.placed[:0], s.waits[:0], s.undos[:0]
}

// checkQoS reports whether every running task with a deadline on v still
// meets it with the new stages (starting at now) reserved: its remaining
// stages take their uncompressed time divided by 1 − rc, rc the largest
// compression (formula (1) against capacity) the timeline minus the
// newcomer's demand implies over the stage, among the compressible kinds
// the stage demands: formula (15). A task that misses its deadline even
// without the newcomer does not refuse it.
func (s *Scheduler) checkQoS(v *server, stages []estimate.Stage, now time.Duration) bool {
	for _, r := range v.running {
		if !r.hasDL || r.open || now >= r.dueAt {
			continue
		}
		if s.endWith(v, r, stages, now) > r.deadline && s.endWith(v, r, nil, now) <= r.deadline {
			return false
		}
	}
	return true
}

// endWith is r's formula (15) end with stages (nil: none) added at now.
func (s *Scheduler) endWith(v *server, r *ptask, stages []estimate.Stage, now time.Duration) time.Duration {
	dims := s.dims
	end := float64(now)
	t := r.start
	for i, w := range r.work {
		a, b := t, t+w
		t = b
		if b <= now || w == 0 {
			continue
		}
		a = max(a, now)
		_ = v.free.Min(a, b, s.tmp)
		if stages != nil {
			maxDemand(stages, now, a, b, s.tmp2)
			_ = s.tmp.Sub(s.tmp2)
		}
		dem := r.vals[i*dims : (i+1)*dims]
		rc := 0.0
		for k, f := range s.tmp {
			if s.comp[k] && f < 0 && dem[k] > 0 {
				rc = max(rc, -f/(v.capacity[k]-f))
			}
		}
		end += float64(b-a) / (1 - min(rc, 0.999))
	}
	return time.Duration(min(end, float64(1<<62)))
}

// maxDemand sets dst to the element-wise max demand of stages (starting
// at at) over [a, b).
func maxDemand(stages []estimate.Stage, at, a, b time.Duration, dst resource.Vector) {
	clear(dst)
	t := at
	for _, st := range stages {
		e := t + st.Duration
		if e > a && t < b {
			_ = dst.Max(st.Demand)
		}
		t = e
		if t >= b {
			return
		}
	}
}
