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
		s.invalid("%s: task %s: allocation %v: %v", what, t.ID(), alloc, err)
		return false
	}
	for _, k := range s.incompKinds {
		if !n.offloaded[k] && alloc[k] > 0 && alloc[k] > n.avail[k]+slack(n.capacity[k]) {
			s.invalid("%s: task %s on %s: %s %g exceeds the %g free", what, t.ID(), n.id, s.space.Kind(k).Name, alloc[k], n.avail[k])
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
			s.invalid("assign: task %s belongs to another simulation", t.ID())
			return
		}
		if !s.activeJob(t.job, "assign") {
			return
		}
		if !t.Ready() {
			s.invalid("assign: task %s is not ready (%v)", t.ID(), t.state)
			return
		}
		if s.computingOnly && int(t.phase) > t.job.doneThrough {
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
			// Every step must fit the node's free capacity now, in its
			// incompressible kinds (a step reached later may still find
			// the space taken: Stats.PlanOvercommit).
			for i := range d.Plan {
				if d.Plan[i].Duration < 0 {
					s.invalid("assign: task %s: plan step %d has negative duration", t.ID(), i)
					return
				}
				if d.Plan[i].Alloc == nil {
					s.invalid("assign: task %s: plan step %d has no allocation", t.ID(), i)
					return
				}
				if !s.checkAlloc(t, n, d.Plan[i].Alloc, fmt.Sprintf("assign (plan step %d)", i)) {
					return
				}
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
		if s.computingOnly && int(d.Phase) > j.doneThrough {
			s.invalid("assign-phase: job %s %v does not compute yet, and the policy assigns only computing phases (ComputingPhaseAssigner)", j.id, d.Phase)
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
				s.invalid("assign-phase: task %s: allocation %v: %v", t.ID(), a, err)
				s.keepScratch(tasks)
				return
			}
			_ = need.Add(a)
		}
		for _, k := range s.incompKinds {
			if !n.offloaded[k] && need[k] > 0 && need[k] > n.avail[k]+slack(n.capacity[k]) {
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
			s.invalid("preempt: task %s belongs to another simulation", t.ID())
		case t.run == nil:
			s.invalid("preempt: task %s is not running (%v)", t.ID(), t.state)
		default:
			s.stats.Preempted++
			s.requeue(t, schedkit.TaskKilled, metrics.TaskPreempted)
		}
	case SetPrice:
		j := d.Job
		if !s.activeJob(j, "set-price") {
			return
		}
		if len(d.Price) != s.k {
			s.invalid("set-price: job %s: %d prices, want %d", j.id, len(d.Price), s.k)
			return
		}
		if err := d.Price.Validate(); err != nil {
			s.invalid("set-price: job %s: %v", j.id, err)
			return
		}
		s.accrue(j)
		if s.cfg.RecordTasks {
			for _, t := range j.sortedLive(-1) {
				if t.run != nil {
					s.accrueAttempt(t)
				}
			}
		}
		if j.price == nil {
			j.price = s.space.Zero()
		}
		copy(j.price, d.Price)
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
