package fgm

import (
	"fmt"
	"math"
	"slices"
	"time"

	"github.com/schedkit/schedkit"
	"github.com/schedkit/schedkit/estimate"
	"github.com/schedkit/schedkit/internal/nilvalue"
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
// Cost: with predictions from a History (or none) tasks alike are
// decided alike, and the walk's accelerations (walk.go) use it: it goes
// run by run, not task by task (a run is a job's consecutive alike
// pending tasks: same similarity key, same request, no data locations);
// a refusal is remembered for the rest of the call until something is
// placed; a call that would repeat the last call that placed nothing —
// no job and no History change since — only tests that call's
// refusals; the job order is kept between calls. Pending tasks are
// indexed by class (key and request) with a lower bound of their demand
// now: the walk is not made, or stops after a placement, when no class
// may fit what the server has left (a fragment, or only the compression
// allowance), and passes by the jobs none of whose classes may. When the
// server has less than one unit free of some integral kind (a slot, a
// device), tasks requesting it would be refused: the walk visits only
// the jobs with a task that requests none, by merging ordered sets of
// jobs kept per combination of integral kinds requested. The decisions
// are those of the task-by-task walk (TestRunSkipMatchesScan).
//
// With HostChecksSteps, every step's incompressible demand must also fit
// the node's Available() now, less what this call has already placed
// there.
//
// It fails, deciding nothing, changing nothing and leaving the clock
// where it was, for a nil node (ErrInvalidNode; or, with
// HostChecksSteps, an Available vector that does not fit the Space or
// holds NaN or infinite amounts), a node value whose Capacity is not the
// one registered for its ID (ErrInvalidNode: a stale value; re-register
// a resized server), an unknown node (ErrUnknownNode),
// ErrStaleTime, ErrTimeRange, an Estimator prediction that is invalid
// (ErrInvalidEstimate: no stages, a negative stage length, stages
// lasting 0 s in all, a demand of the wrong length or with NaN, infinite
// or negative amounts, more than MaxStages stages), or a run's host
// making an invalid task (ErrInvalidTask, ErrDuplicateTask); placements
// the call made before the failure are undone exactly.
func (s *Scheduler) Schedule(now time.Time, node schedkit.Node, dst []Decision) ([]Decision, error) {
	return s.scheduleBy(now, node, dst, (*Scheduler).schedule)
}

// scheduleBy is Schedule with the walk of Algorithm 1 given: it checks
// the arguments, runs walk on the server at now and commits now if walk
// succeeded. The walk is schedule; the equivalence tests give the
// literal reference walk of their test file instead.
func (s *Scheduler) scheduleBy(now time.Time, node schedkit.Node, dst []Decision,
	walk func(*Scheduler, *server, time.Duration, []Decision) ([]Decision, error)) ([]Decision, error) {
	const op = "Schedule"
	if nilvalue.Is(node) {
		return dst, &Error{Op: op, Err: ErrInvalidNode, Reason: nilvalue.Text("node", node)}
	}
	id := node.ID()
	v := s.nodes[id]
	if v == nil {
		return dst, &Error{Op: op, Node: id, Err: ErrUnknownNode, Reason: "not registered"}
	}
	if err := s.sameServer(op, node, v); err != nil {
		return dst, err
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
		s.scr.hostFree = append(s.scr.hostFree[:0], avail...)
	}
	rd, off, err := s.check(op, now)
	if err != nil {
		return dst, err
	}
	dst, err = walk(s, v, off, dst)
	if err == nil {
		s.clock.Commit(rd)
	}
	return dst, err
}

// scratch is the scratch of Schedule's tests, valid until the next
// call.
type scratch struct {
	whole    []estimate.Stage // a prediction with integral kinds at the request (wholeUnits)
	rates    []float64        // a match's compression rates, stages × dims
	tmp      resource.Vector
	tmp2     resource.Vector
	peakBuf  resource.Vector
	one      [1]estimate.Stage // fits: a coarse-grained match's stage
	hostFree resource.Vector   // HostChecksSteps: the node's Available less this call's placements
	// checkQoS's formula (15) stages of one running task (endWith).
	qosWork  []time.Duration
	qosRates []float64
}

// schedule is Schedule on valid arguments: Algorithm 1 for server v at
// off, as printed, its accelerations stages of the walk (walk.go) that
// feed it the job order or let it pass by what it would try in vain. On
// error it has rolled back whatever it changed.
func (s *Scheduler) schedule(v *server, off time.Duration, dst []Decision) ([]Decision, error) {
	// Line 1: skip a server under stop-allocation or used up.
	v.refresh(off)
	if v.policy == StopAllocation || v.usedUp(v.free.At(off)) || len(s.active) == 0 {
		return dst, nil
	}
	start := len(dst)
	fail := func(err error) ([]Decision, error) {
		s.rollback(v)
		return dst[:start], err
	}
	s.beginUndo(v)
	w := &s.walk
	if !w.begin(v, off) {
		return dst, nil // the walk would place nothing
	}
	// Line 4: the jobs in Fairness order.
jobs:
	for j := w.nextJob(); j != nil; j = w.nextJob() {
		// Lines 5–18, task by task in submission order.
		var rule sameKeyRule
		for i := 0; i < len(j.pending); {
			p, err := s.taskAt(j, i)
			if err != nil {
				return fail(err)
			}
			// Line 6: locality (delay scheduling).
			if !s.local(p, v, off) {
				i++
				continue
			}
			t := w.try(j, i, p)
			switch w.pass(t) {
			case passRefusedPredicted:
				rule.refused(p)
				i = w.skip(j, i)
				continue
			case passRefused:
				i = w.skip(j, i)
				continue
			}
			// Lines 8–9: predict; an unpredictable task gets its request.
			prof, ok := t.predict(s)
			if ok {
				if err := s.validProfile(prof); err != nil {
					err.Op, err.Job, err.Task, err.Node = "Schedule", j.state.ID, p.id, v.id
					return fail(err)
				}
				if rule.skips(s, p) {
					i = w.skip(j, i)
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
			// Lines 10–18: match (request, Algorithm 2 or coarse),
			// checkQoS, allocate.
			q, err := s.place(v, p, i, prof, ok, off)
			if err != nil {
				return fail(err)
			}
			if q == nil {
				if ok {
					rule.refused(p)
				}
				t.predicted = ok
				w.refused(t)
				i = w.skip(j, i)
				continue
			}
			d := Decision{Action: Allocate, Task: q.id, Job: j.state.ID, Node: v.id, Mode: q.mode, Plan: q.plan}
			if q.mode == Requested {
				d.Reason = why
			}
			dst = append(dst, d)
			// Line 19: stop when the server is used up.
			if v.usedUp(v.free.At(off)) || !w.placed() {
				break jobs
			}
			if s.cfg.Progressive {
				// Shares changed: order again and start over; jobs that
				// placed nothing on this server in this call stay done.
				w.resort()
				continue jobs
			}
		}
		w.done(j)
	}
	w.end(len(dst) > start)
	return dst, nil
}

// sameKeyRule is Algorithm 1's rule within one job's tasks on one
// server: with predictions from a History, once a predicted task was
// refused, the job's later tasks of the same similarity key are skipped
// (they would be predicted alike and fail the same way).
type sameKeyRule struct {
	key schedkit.SimilarityKey
	set bool
}

// refused records that predicted task p was refused.
func (r *sameKeyRule) refused(p *ptask) { r.key, r.set = p.key, true }

// skips reports whether the rule skips predicted task p.
func (r *sameKeyRule) skips(s *Scheduler, p *ptask) bool {
	return r.set && s.est.hist != nil && p.key == r.key
}

// taskAt returns pending task i of j. With an Estimator that predicts
// task by task (not estimation.alike), the head task of a run entry is
// split off first, so that the Estimator is asked about the task itself.
func (s *Scheduler) taskAt(j *jobEntry, i int) (*ptask, error) {
	p := j.pending[i]
	if p.src == nil || s.est.alike {
		return p, nil
	}
	return s.splitHead("Schedule", j, i)
}

// predict returns p's prediction: from the History by the key read at
// Submit (what HistoryEstimator.Predict(p.t) returns), from another
// Estimator, or none.
func (s *Scheduler) predict(p *ptask) (estimate.Profile, bool) {
	switch {
	case s.est.hist != nil:
		return s.est.hist.Predict(p.key)
	case s.cfg.Estimator != nil:
		return s.cfg.Estimator.Predict(p.t)
	}
	return estimate.Profile{}, false
}

// wholeUnits returns prof with every stage's demand of an integral kind
// (slots, devices) replaced by the task's request: measured usage of a
// slot carries noise (1.04 slots), and a fraction of a slot can be
// neither allocated nor saved. The copy lives in s.scr.whole until the next
// call; prof itself (the estimator's view) is not modified.
func (s *Scheduler) wholeUnits(prof estimate.Profile, requested resource.Vector) estimate.Profile {
	if len(s.integral) == 0 {
		return prof
	}
	n := len(prof.Stages)
	if cap(s.scr.whole) < n {
		s.scr.whole = make([]estimate.Stage, n)
	}
	s.scr.whole = s.scr.whole[:n]
	for i, st := range prof.Stages {
		w := &s.scr.whole[i]
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
	prof.Stages = s.scr.whole
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
		s.undo.waits = append(s.undo.waits, waitUndo{t: p, since: p.waitSince, waiting: p.waiting})
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
		for k := range s.scr.hostFree {
			s.scr.hostFree[k] -= first[k]
		}
	}
	return p, nil
}

// fits is place's test, changing nothing but scratch buffers: whether p
// fits v at now, with the mode and stages it would be placed with (nil
// stages: open-ended at the request; the stages of a coarse-grained
// match live in s.scr.one until the next call).
func (s *Scheduler) fits(v *server, p *ptask, prof estimate.Profile, predictable bool, now time.Duration) (Mode, []estimate.Stage, bool) {
	dims := s.dims
	var mode Mode
	var stages []estimate.Stage
	switch {
	case !predictable:
		mode = Requested
		if s.cfg.Horizon > 0 {
			_ = v.free.Min(now, now+s.cfg.Horizon, s.scr.tmp)
			if !fitsWithSlack(p.requested, s.scr.tmp, v.capacity) {
				return 0, nil, false
			}
		}
	case !s.cfg.Ablations.CoarseOnly && (v.policy == FineGrainedCompress || v.policy == FineGrainedNoCompress):
		mode = FineGrained
		stages = prof.Stages
		if need := len(stages) * dims; len(s.scr.rates) < need {
			s.scr.rates = make([]float64, need)
		}
		compress := v.policy == FineGrainedCompress && s.cfg.CompressionLimit > 0
		if !s.matcher.match(v.free, v.capacity, stages, now, compress, s.scr.rates, nil) {
			return 0, nil, false
		}
		if compress && !s.cfg.Ablations.NoCheckQoS && anyPositive(s.scr.rates[:len(stages)*dims]) && !s.checkQoS(v, stages, now) {
			return 0, nil, false
		}
	default:
		mode = CoarseGrained
		prof.Peak(s.scr.peakBuf)
		d := max(prof.Duration(), 1)
		_ = v.free.Min(now, now+d, s.scr.tmp)
		if !fitsWithSlack(s.scr.peakBuf, s.scr.tmp, v.capacity) {
			return 0, nil, false
		}
		s.scr.one[0] = estimate.Stage{Duration: prof.Duration(), Demand: s.scr.peakBuf}
		stages = s.scr.one[:]
		if len(s.scr.rates) < dims {
			s.scr.rates = make([]float64, dims)
		}
		clear(s.scr.rates[:dims])
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
			if !s.comp[k] && x > 0 && x > s.scr.hostFree[k]+slack*v.capacity[k] {
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
