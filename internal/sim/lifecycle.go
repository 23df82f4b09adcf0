package sim

import (
	"fmt"
	"math"
	"time"

	"github.com/schedkit/schedkit"
	"github.com/schedkit/schedkit/internal/metrics"
	"github.com/schedkit/schedkit/resource"
)

// tolerance for comparing float amounts against capacities.
func slack(c float64) float64 { return 1e-9 * math.Max(1, math.Abs(c)) }

// invalid counts a decision the simulator could not carry out.
func (s *Sim) invalid(format string, args ...any) {
	s.stats.Invalid++
	s.decErr.Count++
	if len(s.decErr.First) < maxDecisionErrors {
		s.decErr.First = append(s.decErr.First,
			fmt.Sprintf("%v: %s: %s", time.Duration(s.now), s.policy.Name(), fmt.Sprintf(format, args...)))
	}
}

func (s *Sim) targetNode(n *Node, what string) *Node {
	if n == nil {
		n = s.hbNode
	}
	switch {
	case n == nil:
		s.invalid("%s: no node", what)
		return nil
	case n.s != s:
		s.invalid("%s: node %s belongs to another simulation", what, n.id)
		return nil
	case !n.up:
		s.invalid("%s: node %s is down", what, n.id)
		return nil
	}
	return n
}

func (s *Sim) activeJob(j *Job, what string) bool {
	switch {
	case j == nil:
		s.invalid("%s: nil job", what)
	case j.s != s:
		s.invalid("%s: job %s belongs to another simulation", what, j.id)
	case j.state != jobActive:
		s.invalid("%s: job %s is not active", what, j.id)
	default:
		return true
	}
	return false
}

// checkAlloc validates an allocation for t on n; nil means t's request.
func (s *Sim) checkAlloc(t *Task, n *Node, alloc resource.Vector, what string) bool {
	if alloc == nil {
		alloc = t.spec.Requested
	}
	if err := s.space.Validate(alloc); err != nil {
		s.invalid("%s: task %s: allocation %v: %v", what, t.id, alloc, err)
		return false
	}
	for _, k := range s.incompKinds {
		if !n.offloaded[k] && alloc[k] > n.avail[k]+slack(n.capacity[k]) {
			s.invalid("%s: task %s on %s: %s %g exceeds the %g free", what, t.id, n.id, s.space.Kind(k).Name, alloc[k], n.avail[k])
			return false
		}
	}
	return true
}

// checkPin validates an assignment's Target (nil: none) for node n.
func (s *Sim) checkPin(target, n *Node, what string) bool {
	if target != nil && (target.s != s || !target.up || target == n) {
		s.invalid("%s: target %s on %s: down, foreign or the node itself", what, target.id, n.id)
		return false
	}
	return true
}

func (s *Sim) apply(d *Decision) {
	s.lastChange = s.now
	switch d.Kind {
	case Assign:
		t := d.Task
		if t == nil {
			s.invalid("assign: nil task")
			return
		}
		if t.job.s != s {
			s.invalid("assign: task %s belongs to another simulation", t.id)
			return
		}
		if !s.activeJob(t.job, "assign") {
			return
		}
		if !t.Ready() {
			s.invalid("assign: task %s is not ready (%v)", t.id, t.state)
			return
		}
		n := s.targetNode(d.Node, "assign")
		if n == nil {
			return
		}
		if len(d.Plan) > 0 {
			if d.Alloc != nil {
				s.invalid("assign: task %s: both Alloc and Plan set", t.id)
				return
			}
			for i := range d.Plan {
				if d.Plan[i].Duration < 0 {
					s.invalid("assign: task %s: plan step %d has negative duration", t.id, i)
					return
				}
				if err := s.space.Validate(d.Plan[i].Alloc); err != nil {
					s.invalid("assign: task %s: plan step %d: %v", t.id, i, err)
					return
				}
			}
			if !s.checkAlloc(t, n, d.Plan[0].Alloc, "assign") {
				return
			}
		} else if !s.checkAlloc(t, n, d.Alloc, "assign") {
			return
		}
		if !s.checkPin(d.Target, n, "assign") {
			return
		}
		s.startTask(t, n, d.Alloc, d.Plan, d.Target)
	case AssignPhase:
		j := d.Job
		if !s.activeJob(j, "assign-phase") {
			return
		}
		if int(d.Phase) >= len(j.phases) {
			s.invalid("assign-phase: job %s has no phase %d", j.id, d.Phase)
			return
		}
		ph := &j.phases[d.Phase]
		if d.Count <= 0 || !ph.unlocked || d.Count > ph.prog.Ready {
			s.invalid("assign-phase: job %s %v: %d tasks asked, %d ready", j.id, d.Phase, d.Count, readyOf(ph))
			return
		}
		n := s.targetNode(d.Node, "assign-phase")
		if n == nil || !s.checkPin(d.Target, n, "assign-phase") {
			return
		}
		tasks := j.ReadyTasks(d.Phase, n, s.scratch()[:0], d.Count)
		// The whole decision must fit; check the sum before starting any.
		need := s.sumVec
		for i := range need {
			need[i] = 0
		}
		for _, t := range tasks {
			a := d.Alloc
			if a == nil {
				a = t.spec.Requested
			}
			if err := s.space.Validate(a); err != nil {
				s.invalid("assign-phase: task %s: allocation %v: %v", t.id, a, err)
				s.keepScratch(tasks)
				return
			}
			_ = need.Add(a)
		}
		for _, k := range s.incompKinds {
			if !n.offloaded[k] && need[k] > n.avail[k]+slack(n.capacity[k]) {
				s.invalid("assign-phase: job %s %v: %d tasks on %s need %g %s, %g free", j.id, d.Phase, d.Count, n.id, need[k], s.space.Kind(k).Name, n.avail[k])
				s.keepScratch(tasks)
				return
			}
		}
		for _, t := range tasks {
			s.startTask(t, n, d.Alloc, nil, d.Target)
		}
		s.keepScratch(tasks)
	case KillJob:
		if !s.activeJob(d.Job, "kill-job") {
			return
		}
		s.stats.KilledJobs++
		s.checkKill(d.Job)
		s.killJob(d.Job, metrics.Killed, d.Reason)
	case Preempt:
		t := d.Task
		switch {
		case t == nil:
			s.invalid("preempt: nil task")
		case t.job.s != s:
			s.invalid("preempt: task %s belongs to another simulation", t.id)
		case t.run == nil:
			s.invalid("preempt: task %s is not running (%v)", t.id, t.state)
		default:
			s.stats.Preempted++
			s.requeue(t, schedkit.TaskKilled)
		}
	case Bind:
		n := d.Node
		if n == nil {
			n = s.hbNode
		}
		switch {
		case n == nil || n.s != s:
			s.invalid("bind: no node or a node of another simulation")
		case d.Target != nil && (d.Target.s != s || !d.Target.up || d.Target == n):
			s.invalid("bind: %s to %s: target down, foreign or the node itself", n.id, d.Target.id)
		default:
			s.bind(n, d.Target)
		}
	default:
		s.invalid("decision of unknown kind %v", d.Kind)
	}
}

func readyOf(ph *jobPhase) int {
	if !ph.unlocked {
		return 0
	}
	return ph.prog.Ready
}

// scratch returns the reusable task buffer; keepScratch returns it.
func (s *Sim) scratch() []*Task { return s.taskBuf }

func (s *Sim) keepScratch(b []*Task) {
	for i := range b {
		b[i] = nil
	}
	s.taskBuf = b[:0]
}

func (s *Sim) getAttempt() *attempt {
	if n := len(s.pool); n > 0 {
		a := s.pool[n-1]
		s.pool = s.pool[:n-1]
		return a
	}
	return &attempt{allocBuf: make([]float64, s.k)}
}

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
		a.alloc = a.plan[0].Alloc
	} else {
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
	a.stage, a.rate, a.fresh = 0, 0, true
	a.rem = 0
	if len(a.profile) > 0 {
		a.rem = float64(a.profile[0].Duration)
	}
	a.last, a.stageStart, a.start = s.now, s.now, s.now
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
	ph := &j.phases[t.phase]
	ph.prog.Running++
	ph.prog.Ready--
	ph.prog.RunningStartSum += time.Duration(s.now - j.submitOff)
	s.addReady(t.phase, -1)
	s.running++
	if !j.started {
		j.started, j.startAt = true, s.now
	}
	s.stats.Assigned++
	s.markDirty(n)
	if len(a.plan) > 1 {
		s.heap.push(s.now+int64(a.plan[0].Duration), evPlan, t.gidx, a.runNo)
	}
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

// endAttempt stops t's running attempt and frees what it held.
func (s *Sim) endAttempt(t *Task) {
	a, n, j := t.run, t.node, t.job
	s.accrue(j)
	_ = j.alloc.Sub(a.alloc)
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
	s.endAttempt(t)
	t.state = schedkit.TaskSucceeded
	j := t.job
	ph := &j.phases[t.phase]
	ph.prog.Finished++
	ph.prog.FinishedDurationSum += dur
	s.stats.Succeeded++
	if s.tw != nil {
		s.tw.TaskEnded(s.nowT, t, schedkit.TaskSucceeded)
	}
	if j.state == jobActive {
		s.advancePhases(j)
	}
	s.release(t)
}

// requeue ends t's attempt and makes it ready again (failure, loss or
// preemption); state is what TaskWatcher hears.
func (s *Sim) requeue(t *Task, state schedkit.TaskState) {
	s.endAttempt(t)
	j := t.job
	t.state = schedkit.TaskPending
	t.readyGen++
	ph := &j.phases[t.phase]
	ph.retry = append(ph.retry, readyRef{task: int32(ph.first) + t.inPhase, gen: t.readyGen})
	ph.prog.Ready++
	s.addReady(t.phase, 1)
	if s.tw != nil {
		s.tw.TaskEnded(s.nowT, t, state)
	}
}

// overcommit fails t because its node ran out of an incompressible kind.
func (s *Sim) overcommit(t *Task) {
	s.stats.Failed++
	t.fails++
	s.requeue(t, schedkit.TaskFailed)
	if j := t.job; j.state == jobActive && int(t.fails) >= s.cfg.MaxAttempts {
		s.stats.FailedJobs++
		s.killJob(j, metrics.Failed, fmt.Sprintf("task %s failed %d times (incompressible over-commit)", t.id, t.fails))
	}
}

func (s *Sim) unlock(j *Job, p int) {
	ph := &j.phases[p]
	ph.unlocked = true
	ph.prog.Ready = ph.prog.Pending()
	s.addReady(schedkit.Phase(p), ph.prog.Ready)
}

func (s *Sim) addReady(p schedkit.Phase, n int) {
	s.ready += n
	s.readyIn[p] += n
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
	}
	if j.doneThrough == len(j.phases) {
		s.endJob(j, metrics.Completed, "")
		return
	}
	if j.doneThrough > old {
		for _, t := range j.sortedLive(j.doneThrough) {
			if t.run != nil && t.run.waiting {
				t.run.waiting = false
				t.run.stageStart = s.now
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
			s.endAttempt(t)
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
			s.addReady(schedkit.Phase(p), -ph.prog.Ready)
		}
		ph.prog.Ready = 0
		ph.retry, ph.retryAt = nil, 0
	}
	s.ended++
	s.lastChange = s.now
	if s.jw != nil {
		s.jw.JobEnded(s.nowT, j, outcome)
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

// accrue charges j for its allocation since the last charge.
func (s *Sim) accrue(j *Job) {
	if s.cfg.Prices != nil && s.now > j.costAt {
		dt := time.Duration(s.now - j.costAt).Seconds()
		for k, p := range s.cfg.Prices {
			if a := j.alloc[k]; a > 0 {
				j.cost += p * a * dt
			}
		}
	}
	j.costAt = s.now
}

func (s *Sim) markDirty(n *Node) {
	if !n.dirty {
		n.dirty = true
		s.dirty = append(s.dirty, n)
	}
}

// demand returns what an attempt uses now of kind k: its current stage's
// demand; while waiting (slow-start), only the incompressible part of its
// first stage (memory held by an idle reducer).
func (s *Sim) demand(a *attempt, k int) float64 {
	if a.stage >= len(a.profile) {
		return 0
	}
	if a.waiting && s.compressible[k] {
		return 0
	}
	return a.profile[a.stage].Demand[k]
}

// settle brings every node touched by the last event up to date: exact
// allocation and usage, incompressible over-commits failed (most recently
// started task first, until the node fits), compression rates and the
// progress rate of every task they affect.
func (s *Sim) settle() {
	for i := 0; i < len(s.dirty); i++ {
		n := s.dirty[i]
		for {
			s.recompute(n)
			v := s.victim(n)
			if v == nil {
				break
			}
			s.overcommit(v)
		}
	}
	for _, n := range s.dirty {
		s.recompute(n) // a host may have changed after it was first done
	}
	for _, n := range s.dirty {
		for _, t := range n.running {
			s.updateRate(t)
		}
		for _, t := range n.guests {
			s.updateRate(t)
		}
		n.dirty = false
	}
	for i := range s.dirty {
		s.dirty[i] = nil
	}
	s.dirty = s.dirty[:0]
}

func (s *Sim) recompute(n *Node) {
	copy(n.used, n.bg)
	for k := range n.alloc {
		n.alloc[k] = 0
	}
	for _, t := range n.running {
		a := t.run
		for k := range n.alloc {
			if n.offloaded[k] {
				continue
			}
			n.alloc[k] += a.alloc[k]
			n.used[k] += s.demand(a, k)
		}
	}
	for _, t := range n.guests {
		a, home := t.run, t.node
		for _, k := range s.offloadKinds {
			if home.offloaded[k] {
				n.alloc[k] += a.alloc[k]
				n.used[k] += s.demand(a, k)
			}
		}
	}
	for k := range n.avail {
		n.avail[k] = n.capacity[k] - n.alloc[k]
	}
	for _, k := range s.compKinds {
		rc, err := resource.CompressionRate(true, n.used[k], n.capacity[k])
		if err != nil { // amounts are finite and non-negative by construction
			rc = 0
		}
		n.rc[k] = rc
	}
}

// victim returns the task to fail for an incompressible over-commit on n:
// the most recently started among those using the over-committed kind.
func (s *Sim) victim(n *Node) *Task {
	for _, k := range s.incompKinds {
		if n.used[k] <= n.capacity[k]+slack(n.capacity[k]) {
			continue
		}
		var v *Task
		for _, t := range n.running {
			if s.demand(t.run, k) > 0 && (v == nil || t.run.startSeq > v.run.startSeq) {
				v = t
			}
		}
		if v != nil {
			return v
		}
	}
	return nil
}

// rate is t's progress in isolated time per unit of wall time: the
// node's speed times (1 − rc)/(1 + p) for the largest compression rate rc
// among the compressible kinds it demands now (formula (5) read as a
// rate), 1 when none of them is contended; 0 while waiting, or when an
// offloaded kind it needs has no bound node.
func (s *Sim) rate(t *Task) float64 {
	a, n := t.run, t.node
	if a.waiting {
		return 0
	}
	if a.stage >= len(a.profile) {
		return n.speed
	}
	d := a.profile[a.stage].Demand
	worst := 0.0
	for _, k := range s.compKinds {
		if d[k] <= 0 {
			continue
		}
		h := n
		if n.offloaded[k] {
			if h = a.host; h == nil {
				return 0
			}
		}
		if rc := h.rc[k]; rc > worst {
			worst = rc
		}
	}
	if worst == 0 {
		return n.speed
	}
	if worst >= 1 {
		return 0
	}
	return n.speed * (1 - worst) / (1 + s.cfg.Penalty)
}

// maxAhead bounds how far ahead a stage event is scheduled.
const maxAhead = int64(1) << 61

func (s *Sim) updateRate(t *Task) {
	a := t.run
	r := s.rate(t)
	if !a.fresh && r == a.rate {
		return
	}
	if !a.fresh {
		a.rem -= float64(s.now-a.last) * a.rate
		if a.rem < 0 {
			a.rem = 0
		}
	}
	a.fresh = false
	a.last = s.now
	switch {
	case a.rate > 0 && r == 0:
		s.progressing--
	case a.rate == 0 && r > 0:
		s.progressing++
	}
	a.rate = r
	t.ver++
	if r > 0 {
		d := a.rem / r
		at := maxAhead
		if d < float64(maxAhead-s.now) {
			at = s.now + int64(math.Ceil(d))
		}
		s.heap.push(at, evStage, t.gidx, t.ver)
	}
}

func (s *Sim) stageCurrent(e *event) bool {
	t := s.tasks[e.a]
	return t.run != nil && t.ver == e.ver
}

// stageEnd moves t to its next stage, or completes it.
func (s *Sim) stageEnd(t *Task) {
	a := t.run
	a.rem = 0
	s.observe(t, a.stage)
	a.stage++
	for a.stage < len(a.profile) && a.profile[a.stage].Duration == 0 {
		a.stageStart = s.now
		s.observe(t, a.stage)
		a.stage++
	}
	if a.stage >= len(a.profile) {
		s.succeed(t)
		return
	}
	a.rem = float64(a.profile[a.stage].Duration)
	a.stageStart, a.last, a.fresh = s.now, s.now, true
	s.markDirty(t.node)
	if a.host != nil {
		s.markDirty(a.host)
	}
}

func (s *Sim) observe(t *Task, stage int) {
	a := t.run
	if !s.cfg.RecordObserved || stage >= len(a.profile) {
		return
	}
	if stage == 0 || len(t.observed) != len(a.profile) {
		if cap(t.observed) >= len(a.profile) {
			t.observed = t.observed[:len(a.profile)]
		} else {
			t.observed = make([]time.Duration, len(a.profile))
		}
	}
	t.observed[stage] = time.Duration(s.now - a.stageStart)
}

func (s *Sim) planStep(t *Task, runNo uint32) {
	a := t.run
	if a == nil || a.runNo != runNo || a.planIdx+1 >= len(a.plan) {
		return
	}
	n, j := t.node, t.job
	s.accrue(j)
	_ = j.alloc.Sub(a.alloc)
	a.planIdx++
	a.alloc = a.plan[a.planIdx].Alloc
	_ = j.alloc.Add(a.alloc)
	s.recompute(n)
	for _, k := range s.incompKinds {
		if !n.offloaded[k] && n.alloc[k] > n.capacity[k]+slack(n.capacity[k]) {
			s.stats.PlanOvercommit++
			s.invalid("plan of task %s: step %d allocates %g %s on %s, capacity %g", t.id, a.planIdx, n.alloc[k], s.space.Kind(k).Name, n.id, n.capacity[k])
			break
		}
	}
	s.markDirty(n)
	if a.planIdx+1 < len(a.plan) {
		s.heap.push(s.now+int64(a.plan[a.planIdx].Duration), evPlan, t.gidx, runNo)
	}
}
