package sim

import (
	"fmt"

	"github.com/schedkit/schedkit"
	"github.com/schedkit/schedkit/resource"
)

// applyAll applies a policy call's decisions in order (n: the default
// node, nil for none), until one ends the run (a notification's error).
func (s *Sim) applyAll(dst []Decision, n *Node) {
	s.hbNode = n
	for i := range dst {
		if s.err == nil {
			s.apply(&dst[i])
		}
		dst[i] = Decision{} // drop references held by the reused buffer
	}
	s.dst = dst[:0]
	s.hbNode = nil
}

// apply carries out one decision, or counts it invalid (it changes
// nothing then).
func (s *Sim) apply(d *Decision) {
	s.lastChange = s.eng.now
	switch d.Kind {
	case Assign:
		s.assign(d)
	case AssignPhase:
		s.assignPhase(d)
	case KillJob:
		if !s.activeJob(d.Job, "kill-job") {
			return
		}
		s.rec.stats.KilledJobs++
		s.b.checkKill(d.Job)
		s.killJob(d.Job, Killed, d.Reason)
	case Preempt:
		s.preempt(d.Task)
	case SetPrice:
		s.setPrice(d.Job, d.Price)
	case Bind:
		s.bindNode(d.Node, d.Target)
	default:
		s.invalid("decision of unknown kind %v", d.Kind)
	}
}

// invalid counts a decision the simulator could not carry out.
func (s *Sim) invalid(format string, args ...any) {
	s.rec.invalid(s.hk.p.Name(), format, args...)
}

// assign carries out an Assign decision: the task, ready, started on its
// node with its allocation or plan.
func (s *Sim) assign(d *Decision) {
	t := d.Task
	switch {
	case t == nil:
		s.invalid("assign: nil task")
		return
	case t.job.b != &s.b:
		s.invalid("assign: task %s belongs to another simulation", t.ID())
		return
	case !s.activeJob(t.job, "assign"):
		return
	case !t.Ready():
		s.invalid("assign: task %s is not ready (%v)", t.ID(), t.state)
		return
	case s.b.computingOnly && int(t.phase) > t.job.doneThrough:
		s.invalid("assign: task %s: its phase does not compute yet, and the policy assigns only computing phases (ComputingPhaseAssigner)", t.ID())
		return
	}
	n := s.targetNode(d.Node, "assign")
	if n == nil {
		return
	}
	if len(d.Plan) > 0 {
		if d.Alloc != nil {
			s.invalid("assign: task %s: both Alloc and Plan set", t.ID())
			return
		}
		if !s.checkPlan(t, n, d.Plan) {
			return
		}
	} else if !s.checkAlloc(t, n, d.Alloc, "assign") {
		return
	}
	if !s.checkPin(d.Target, n, "assign") {
		return
	}
	s.startTask(t, n, d.Alloc, d.Plan, d.Target)
}

// checkPlan validates an assignment's plan for t on n: every step must
// fit the node's free capacity now, in its incompressible kinds (a step
// reached later may still find the space taken: Stats.PlanOvercommit).
func (s *Sim) checkPlan(t *Task, n *Node, plan []AllocStep) bool {
	for i := range plan {
		if plan[i].Duration < 0 {
			s.invalid("assign: task %s: plan step %d has negative duration", t.ID(), i)
			return false
		}
		if plan[i].Alloc == nil {
			s.invalid("assign: task %s: plan step %d has no allocation", t.ID(), i)
			return false
		}
		if !s.checkAlloc(t, n, plan[i].Alloc, fmt.Sprintf("assign (plan step %d)", i)) {
			return false
		}
	}
	return true
}

// assignPhase carries out an AssignPhase decision: Count ready tasks of
// the job's phase started on the node, if all of them fit.
func (s *Sim) assignPhase(d *Decision) {
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
	if s.b.computingOnly && int(d.Phase) > j.doneThrough {
		s.invalid("assign-phase: job %s %v does not compute yet, and the policy assigns only computing phases (ComputingPhaseAssigner)", j.id, d.Phase)
		return
	}
	n := s.targetNode(d.Node, "assign-phase")
	if n == nil || !s.checkPin(d.Target, n, "assign-phase") {
		return
	}
	tasks := j.ReadyTasks(d.Phase, n, s.b.taskBuf[:0], d.Count)
	if s.phaseFits(d, tasks, n) {
		for _, t := range tasks {
			s.startTask(t, n, d.Alloc, nil, d.Target)
		}
	}
	clear(tasks)
	s.b.taskBuf = tasks[:0]
}

// phaseFits reports whether tasks, chosen for an AssignPhase decision,
// fit n together in its incompressible kinds: the whole decision must
// fit, so the sum is checked before any starts.
func (s *Sim) phaseFits(d *Decision, tasks []*Task, n *Node) bool {
	need := s.b.vecBuf
	for i := range need {
		need[i] = 0
	}
	for _, t := range tasks {
		a := d.Alloc
		if a == nil {
			a = t.spec.Requested
		}
		if err := s.w.space.Validate(a); err != nil {
			s.invalid("assign-phase: task %s: allocation %v: %v", t.ID(), a, err)
			return false
		}
		_ = need.Add(a)
	}
	if k := s.w.overFree(n, need); k >= 0 {
		s.invalid("assign-phase: job %s %v: %d tasks on %s need %g %s, %g free", d.Job.id, d.Phase, d.Count, n.id, need[k], s.w.space.Kind(k).Name, n.avail[k])
		return false
	}
	return true
}

func readyOf(ph *jobPhase) int {
	if !ph.unlocked {
		return 0
	}
	return ph.prog.Ready
}

// preempt carries out a Preempt decision: the running task stopped and
// ready again.
func (s *Sim) preempt(t *Task) {
	switch {
	case t == nil:
		s.invalid("preempt: nil task")
	case t.job.b != &s.b:
		s.invalid("preempt: task %s belongs to another simulation", t.ID())
	case t.run == nil:
		s.invalid("preempt: task %s is not running (%v)", t.ID(), t.state)
	default:
		s.rec.stats.Preempted++
		s.requeue(t, schedkit.TaskKilled, TaskPreempted)
	}
}

// setPrice carries out a SetPrice decision: what j was charged so far
// stays at its old price.
func (s *Sim) setPrice(j *Job, price resource.Vector) {
	if !s.activeJob(j, "set-price") {
		return
	}
	if len(price) != s.w.k {
		s.invalid("set-price: job %s: %d prices, want %d", j.id, len(price), s.w.k)
		return
	}
	if err := price.Validate(); err != nil {
		s.invalid("set-price: job %s: %v", j.id, err)
		return
	}
	s.b.accrue(j)
	if s.cfg.RecordTasks {
		for _, t := range j.sortedLive(-1) {
			if t.run != nil {
				s.w.accrueAttempt(t)
			}
		}
	}
	if j.price == nil {
		j.price = s.w.space.Zero()
	}
	copy(j.price, price)
}

// bindNode carries out a Bind decision (n nil: the heartbeating node).
func (s *Sim) bindNode(n, target *Node) {
	if n == nil {
		n = s.hbNode
	}
	switch {
	case n == nil || !s.w.owns(n):
		s.invalid("bind: no node or a node of another simulation")
	case target != nil && (!s.w.owns(target) || !target.up || target == n):
		s.invalid("bind: %s to %s: target down, foreign or the node itself", n.id, target.id)
	default:
		if s.w.bind(n, target) {
			s.lastChange = s.eng.now
		}
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
	case !s.w.owns(n):
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
	case j.b != &s.b:
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
	if err := s.w.space.Validate(alloc); err != nil {
		s.invalid("%s: task %s: allocation %v: %v", what, t.ID(), alloc, err)
		return false
	}
	if k := s.w.overFree(n, alloc); k >= 0 {
		s.invalid("%s: task %s on %s: %s %g exceeds the %g free", what, t.ID(), n.id, s.w.space.Kind(k).Name, alloc[k], n.avail[k])
		return false
	}
	return true
}

// checkPin validates an assignment's Target (nil: none) for node n.
func (s *Sim) checkPin(target, n *Node, what string) bool {
	if target != nil && (!s.w.owns(target) || !target.up || target == n) {
		s.invalid("%s: target %s on %s: down, foreign or the node itself", what, target.id, n.id)
		return false
	}
	return true
}
