package sim

import (
	"fmt"
	"time"

	"github.com/schedkit/schedkit"
	"github.com/schedkit/schedkit/resource"
)

// The lives of tasks and jobs, across the world (attempts on nodes), the
// book (tasks' and jobs' state, charges) and the recorder (counters,
// task records), and what the policy hears of them.

// A notification (TaskEnded, JobEnded) happens inside an event: the
// first error a policy returns from one is kept in s.err, the event
// finishes without calling the policy again, and the run ends with it
// (Step).

// taskEnded tells the policy that t's attempt ended (TaskWatcher).
func (s *Sim) taskEnded(t *Task, state schedkit.TaskState) {
	if s.err == nil {
		s.err = s.hk.taskEnded(t, state)
	}
}

// jobEnded tells the policy that j ended (JobWatcher).
func (s *Sim) jobEnded(j *Job, outcome Outcome) {
	if s.err == nil {
		s.err = s.hk.jobEnded(j, outcome)
	}
}

// startTask starts an attempt of t on n; the decision was validated.
// pin, if set, serves its offloaded demand instead of n's binding.
func (s *Sim) startTask(t *Task, n *Node, alloc resource.Vector, plan []AllocStep, pin *Node) {
	a := s.w.start(t, n, alloc, plan, pin)
	if s.b.started(t, a) {
		s.rec.stats.Retried++
	}
	s.rec.stats.Assigned++
}

// endAttempt stops t's running attempt and frees what it held; outcome
// is recorded (Config.RecordTasks).
func (s *Sim) endAttempt(t *Task, outcome TaskOutcome) {
	s.b.accrue(t.job)
	if s.cfg.RecordTasks {
		s.rec.recordAttempt(t, outcome)
	}
	s.b.stopped(t)
	n := s.w.end(t)
	s.outOfBand(n)
	s.lastChange = s.eng.now
}

// outOfBand schedules an immediate heartbeat of n (a task ended there).
func (s *Sim) outOfBand(n *Node) {
	if n.oob || !n.up {
		return
	}
	n.oob = true
	s.eng.q.pushOOB(s.eng.now, n.idx)
}

func (s *Sim) succeed(t *Task) {
	dur := time.Duration(s.eng.now - t.run.start)
	s.endAttempt(t, TaskSucceeded)
	s.b.succeeded(t, dur)
	s.rec.stats.Succeeded++
	s.taskEnded(t, schedkit.TaskSucceeded)
	if t.job.state == jobActive {
		s.advance(t.job)
	}
	s.b.release(t)
}

// requeue ends t's attempt and makes it ready again (failure, loss or
// preemption); state is what TaskWatcher hears, outcome what is recorded.
func (s *Sim) requeue(t *Task, state schedkit.TaskState, outcome TaskOutcome) {
	s.endAttempt(t, outcome)
	s.b.requeued(t)
	s.taskEnded(t, state)
}

// overcommit fails t because its node ran out of an incompressible kind.
func (s *Sim) overcommit(t *Task) {
	s.rec.stats.Failed++
	t.fails++
	s.requeue(t, schedkit.TaskFailed, TaskFailed)
	if j := t.job; j.state == jobActive && int(t.fails) >= s.cfg.MaxAttempts {
		s.rec.stats.FailedJobs++
		s.killJob(j, Failed, fmt.Sprintf("task %s failed %d times (incompressible over-commit)", t.ID(), t.fails))
	}
}

// advance unlocks phases whose predecessor reached the slow-start
// fraction, lets waiting tasks compute once every earlier phase finished,
// and completes the job after its last phase.
func (s *Sim) advance(j *Job) {
	complete, computing := s.b.advance(j)
	switch {
	case complete:
		s.endJob(j, Completed, "")
	case computing:
		s.w.startComputing(j.sortedLive(j.doneThrough))
	}
}

// killJob stops every task of j and ends it.
func (s *Sim) killJob(j *Job, outcome Outcome, reason string) {
	for _, t := range j.sortedLive(-1) {
		if t.run != nil {
			s.endAttempt(t, TaskKilled)
		}
		s.b.killed(t)
	}
	s.endJob(j, outcome, reason)
}

func (s *Sim) endJob(j *Job, outcome Outcome, reason string) {
	if !s.b.end(j, outcome, reason) {
		if s.err == nil {
			s.err = fmt.Errorf("%w: job %s ended twice", ErrInvariant, j.id)
		}
		return
	}
	s.lastChange = s.eng.now
	s.jobEnded(j, outcome)
}

// settle brings every node touched by the last event up to date: exact
// allocation and usage, incompressible over-commits failed (most recently
// started task first, until the node fits), compression rates and the
// progress rate of every task they affect.
func (s *Sim) settle() {
	w := &s.w
	if len(w.dirty) == 0 {
		return
	}
	failed := false
	for i := 0; i < len(w.dirty); i++ {
		n := w.dirty[i]
		for {
			w.recompute(n)
			v := w.victim(n)
			if v == nil {
				break
			}
			s.overcommit(v)
			failed = true
		}
	}
	w.settleRates(failed)
}

// progressEvent handles t's progress event: a plan step or a stage end.
func (s *Sim) progressEvent(t *Task) {
	if t.run.toPlan {
		s.planStep(t)
		return
	}
	if s.w.stageEnd(t) {
		s.succeed(t)
	}
}

// planStep moves t's plan to its next step (world.planStep), its job's
// allocation with it.
func (s *Sim) planStep(t *Task) {
	j := t.job
	s.b.accrue(j)
	old, over := s.w.planStep(t)
	s.b.realloc(j, old, t.run.alloc)
	if over {
		s.rec.stats.PlanOvercommit++
	}
}
