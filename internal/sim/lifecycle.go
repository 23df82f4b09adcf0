package sim

import (
	"fmt"
	"math"
	"time"

	"github.com/schedkit/schedkit"
	"github.com/schedkit/schedkit/internal/metrics"
	"github.com/schedkit/schedkit/resource"
)

func (s *Sim) getAttempt() *attempt {
	if n := len(s.pool); n > 0 {
		a := s.pool[n-1]
		s.pool = s.pool[:n-1]
		return a
	}
	a := &attempt{}
	if s.k <= allocInline {
		a.allocBuf = a.allocArr[:s.k:s.k]
	} else {
		a.allocBuf = make([]float64, s.k)
	}
	if s.cfg.RecordTasks {
		sums := make([]float64, 3*s.k)
		a.rec = &attemptRec{allocSum: sums[:s.k:s.k], usedSum: sums[s.k : 2*s.k : 2*s.k], demSum: sums[2*s.k:]}
	}
	return a
}

// allocInline is the number of kinds an attempt's allocation holds in
// the attempt itself (attempt.allocArr); more are allocated apart.
const allocInline = 4

func (s *Sim) putAttempt(a *attempt) {
	a.profile, a.plan, a.host, a.pin = nil, a.plan[:0], nil, nil
	s.pool = append(s.pool, a)
}

// startTask starts an attempt of t on n; the decision was validated.
// pin, if set, serves its offloaded demand instead of n's binding.
func (s *Sim) startTask(t *Task, n *Node, alloc resource.Vector, plan []AllocStep, pin *Node) {
	j := t.job
	a := s.getAttempt()
	if len(plan) > 0 {
		need := len(plan) * s.k
		if cap(a.planBuf) < need {
			a.planBuf = make([]float64, need)
		}
		a.planBuf = a.planBuf[:need]
		for i := range plan {
			v := resource.Vector(a.planBuf[i*s.k : (i+1)*s.k : (i+1)*s.k])
			copy(v, plan[i].Alloc)
			a.plan = append(a.plan, AllocStep{Duration: plan[i].Duration, Alloc: v})
		}
		a.planIdx = 0
		for a.planIdx+1 < len(a.plan) && a.plan[a.planIdx].Duration == 0 {
			a.planIdx++
		}
		a.alloc = a.plan[a.planIdx].Alloc
		a.planNext = a.planIdx+1 < len(a.plan)
		a.planRem = float64(a.plan[a.planIdx].Duration)
	} else {
		a.planNext = false
		if alloc == nil {
			alloc = t.spec.Requested
		}
		copy(a.allocBuf, alloc)
		a.alloc = a.allocBuf
	}
	s.runNo++
	a.runNo = s.runNo
	var host *Node
	if n.offload {
		host = n.bound
		if pin != nil {
			host, a.pin = pin, pin
		}
	}
	a.gslot, a.host = -1, host // provisional, for Task.Host in Config.Profile
	t.run, t.node = a, n
	a.profile = t.spec.Profile
	if s.cfg.Profile != nil {
		a.profile = s.cfg.Profile(t, n)
	}
	a.host = nil
	a.stage, a.rate, a.pace, a.fresh, a.toPlan = 0, 0, 0, true, false
	a.rem = 0
	if len(a.profile) > 0 {
		a.rem = float64(a.profile[0].Duration)
	}
	a.last, a.stageStart, a.start = s.now, s.now, s.now
	if s.cfg.RecordTasks {
		r := a.rec
		r.intAt, r.costAt, r.cost = s.now, s.now, 0
		clear(r.allocSum)
		clear(r.usedSum)
		clear(r.demSum)
	}
	s.startSeq++
	a.startSeq = s.startSeq
	a.waiting = !j.PhaseComputes(t.phase)

	t.state = schedkit.TaskRunning
	j.markStarted(t.inJob())
	t.attempts++
	if t.attempts > 1 {
		s.stats.Retried++
	}
	a.slot = len(n.running)
	n.running = append(n.running, t)
	if host != nil {
		s.addGuest(host, t)
	}
	for k := range a.alloc {
		if !n.offloaded[k] {
			n.alloc[k] += a.alloc[k]
			n.avail[k] -= a.alloc[k]
		}
	}
	s.accrue(j)
	_ = j.alloc.Add(a.alloc)
	s.noteAlloc(j)
	ph := &j.phases[t.phase]
	ph.prog.Running++
	ph.prog.Ready--
	ph.prog.RunningStartSum += time.Duration(s.now - j.submitOff)
	s.addReady(j, t.phase, -1)
	s.running++
	if !j.started {
		j.started, j.startAt = true, s.now
	}
	s.stats.Assigned++
	s.contribute(t)
	s.markDirty(n)
}

func (s *Sim) addGuest(h *Node, t *Task) {
	a := t.run
	a.host = h
	a.gslot = len(h.guests)
	h.guests = append(h.guests, t)
	s.markDirty(h)
}

func (s *Sim) removeGuest(t *Task) {
	a := t.run
	h := a.host
	last := len(h.guests) - 1
	moved := h.guests[last]
	h.guests[a.gslot] = moved
	moved.run.gslot = a.gslot
	h.guests[last] = nil
	h.guests = h.guests[:last]
	a.host, a.gslot = nil, -1
	s.markDirty(h)
}

// endAttempt stops t's running attempt and frees what it held; outcome
// is recorded (Config.RecordTasks).
func (s *Sim) endAttempt(t *Task, outcome metrics.TaskOutcome) {
	a, n, j := t.run, t.node, t.job
	s.accrue(j)
	if s.cfg.RecordTasks {
		s.recordAttempt(t, outcome)
	}
	s.withdraw(a, n)
	_ = j.alloc.Sub(a.alloc)
	s.noteAlloc(j)
	for k := range a.alloc {
		if !n.offloaded[k] {
			n.alloc[k] -= a.alloc[k]
			n.avail[k] += a.alloc[k]
		}
	}
	last := len(n.running) - 1
	moved := n.running[last]
	n.running[a.slot] = moved
	moved.run.slot = a.slot
	n.running[last] = nil
	n.running = n.running[:last]
	if a.host != nil {
		s.removeGuest(t)
	}
	if a.rate > 0 {
		s.progressing--
	}
	ph := &j.phases[t.phase]
	ph.prog.Running--
	ph.prog.RunningStartSum -= time.Duration(a.start - j.submitOff)
	s.running--
	s.markDirty(n)
	s.outOfBand(n)
	t.run, t.node = nil, nil
	t.ver++ // its pending stage event is now stale
	s.putAttempt(a)
	s.lastChange = s.now
}

func (s *Sim) succeed(t *Task) {
	dur := time.Duration(s.now - t.run.start)
	s.endAttempt(t, metrics.TaskSucceeded)
	t.state = schedkit.TaskSucceeded
	j := t.job
	ph := &j.phases[t.phase]
	ph.prog.Finished++
	ph.prog.FinishedDurationSum += dur
	s.stats.Succeeded++
	if s.tw != nil {
		s.tw.TaskEnded(s.Now(), t, schedkit.TaskSucceeded)
	}
	if j.state == jobActive {
		s.advancePhases(j)
	}
	s.release(t)
}

// requeue ends t's attempt and makes it ready again (failure, loss or
// preemption); state is what TaskWatcher hears, outcome what is recorded.
func (s *Sim) requeue(t *Task, state schedkit.TaskState, outcome metrics.TaskOutcome) {
	s.endAttempt(t, outcome)
	j := t.job
	t.state = schedkit.TaskPending
	t.readyGen++
	ph := &j.phases[t.phase]
	ph.retry = append(ph.retry, readyRef{task: int32(ph.first) + t.inPhase, gen: t.readyGen})
	ph.prog.Ready++
	s.addReady(j, t.phase, 1)
	if s.tw != nil {
		s.tw.TaskEnded(s.Now(), t, state)
	}
}

// overcommit fails t because its node ran out of an incompressible kind.
func (s *Sim) overcommit(t *Task) {
	s.stats.Failed++
	t.fails++
	s.requeue(t, schedkit.TaskFailed, metrics.TaskFailed)
	if j := t.job; j.state == jobActive && int(t.fails) >= s.cfg.MaxAttempts {
		s.stats.FailedJobs++
		s.killJob(j, metrics.Failed, fmt.Sprintf("task %s failed %d times (incompressible over-commit)", t.ID(), t.fails))
	}
}

func (s *Sim) unlock(j *Job, p int) {
	ph := &j.phases[p]
	ph.unlocked = true
	ph.prog.Ready = ph.prog.Pending()
	s.addReady(j, schedkit.Phase(p), ph.prog.Ready)
}

func (s *Sim) addReady(j *Job, p schedkit.Phase, n int) {
	s.ready += n
	if j.ready += n; j.ready > 0 {
		s.wanting[j.idx>>6] |= 1 << (j.idx & 63)
	} else {
		s.wanting[j.idx>>6] &^= 1 << (j.idx & 63)
	}
	s.readyIn[p] += n
	if s.computingOnly && int(p) > j.doneThrough {
		return // counted in readyBy when the phase starts computing
	}
	s.addReadyBy(j.phases[p].support, n)
}

// addReadyBy adds n ready tasks of support m to readyBy.
func (s *Sim) addReadyBy(m uint8, n int) {
	if s.readyBy[m] += n; s.readyBy[m] > 0 {
		s.readyMasks |= 1 << m
	} else {
		s.readyMasks &^= 1 << m
	}
}

// advancePhases unlocks phases whose predecessor reached the slow-start
// fraction, lets waiting tasks compute once every earlier phase finished,
// and completes the job after its last phase.
func (s *Sim) advancePhases(j *Job) {
	for p := 1; p < len(j.phases); p++ {
		if j.phases[p].unlocked {
			continue
		}
		prev := &j.phases[p-1]
		if !prev.unlocked {
			break
		}
		need := int(math.Ceil(s.cfg.SlowStart*float64(prev.prog.Total) - 1e-9))
		if prev.prog.Finished < need {
			break
		}
		s.unlock(j, p)
	}
	old := j.doneThrough
	for j.doneThrough < len(j.phases) && j.phases[j.doneThrough].prog.Finished == j.phases[j.doneThrough].prog.Total {
		j.doneThrough++
		if p := j.doneThrough; s.computingOnly && p < len(j.phases) && j.phases[p].prog.Ready > 0 {
			s.addReadyBy(j.phases[p].support, j.phases[p].prog.Ready)
		}
	}
	if j.doneThrough == len(j.phases) {
		s.endJob(j, metrics.Completed, "")
		return
	}
	if j.doneThrough > old {
		for _, t := range j.sortedLive(j.doneThrough) {
			if t.run != nil && t.run.waiting {
				if s.cfg.RecordTasks {
					s.integrate(t.run)
				}
				t.run.waiting = false
				t.run.stageStart = s.now
				s.contribute(t)
				s.markDirty(t.node)
				if t.run.host != nil {
					s.markDirty(t.run.host)
				}
			}
		}
	}
}

// killJob stops every task of j and ends it.
func (s *Sim) killJob(j *Job, outcome metrics.Outcome, reason string) {
	for _, t := range j.sortedLive(-1) {
		if t.run != nil {
			s.endAttempt(t, metrics.TaskKilled)
		}
		if t.state == schedkit.TaskPending || t.state == schedkit.TaskRunning {
			t.state = schedkit.TaskKilled
		}
	}
	s.endJob(j, outcome, reason)
}

func (s *Sim) endJob(j *Job, outcome metrics.Outcome, reason string) {
	if j.state == jobEnded {
		if s.err == nil {
			s.err = fmt.Errorf("%w: job %s ended twice", ErrInvariant, j.id)
		}
		return
	}
	s.accrue(j)
	j.state = jobEnded
	j.outcome, j.reason, j.endAt = outcome, reason, s.now
	s.dropActive(j)
	for p := range j.phases {
		ph := &j.phases[p]
		if ph.unlocked {
			s.addReady(j, schedkit.Phase(p), -ph.prog.Ready)
		}
		ph.prog.Ready = 0
		ph.retry, ph.retryAt = nil, 0
	}
	s.ended++
	s.lastChange = s.now
	if s.jw != nil {
		s.jw.JobEnded(s.Now(), j, outcome)
	}
}

func (s *Sim) bind(n, target *Node) {
	if n.bound == target {
		return
	}
	if n.offload {
		for _, t := range n.running {
			if t.run.host != nil && t.run.pin == nil {
				s.removeGuest(t)
			}
		}
	}
	n.bound = target
	if n.offload && target != nil {
		for _, t := range n.running {
			if t.run.pin == nil {
				s.addGuest(target, t)
			}
		}
	}
	s.markDirty(n)
	s.lastChange = s.now
}

// accrue charges j for its allocation since the last charge, at the
// price in force.
func (s *Sim) accrue(j *Job) {
	if p := j.Price(); p != nil && s.now > j.costAt {
		j.cost += dot(p, j.alloc) * time.Duration(s.now-j.costAt).Seconds()
	}
	j.costAt = s.now
}

// accrueAttempt charges t's running attempt since its last charge (task
// records only).
func (s *Sim) accrueAttempt(t *Task) {
	a := t.run
	r := a.rec
	if p := t.job.Price(); p != nil && s.now > r.costAt {
		r.cost += dot(p, a.alloc) * time.Duration(s.now-r.costAt).Seconds()
	}
	r.costAt = s.now
}

// dot is Σ p[k]·a[k] over positive amounts.
func dot(p, a resource.Vector) float64 {
	c := 0.0
	for k, x := range a {
		if x > 0 {
			c += p[k] * x
		}
	}
	return c
}
