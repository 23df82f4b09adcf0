package sim

import (
	"fmt"
	"time"

	"github.com/schedkit/schedkit"
	"github.com/schedkit/schedkit/resource"
)

// hooks is the policy under test with the optional interfaces it
// implements.
type hooks struct {
	p  Policy
	tw TaskWatcher
	jw JobWatcher
	nw NodeWatcher
	tk Ticker // nil when Config.TickInterval is 0
	uw UsageWatcher
	// quiet: heartbeats of idle nodes are not delivered (FullNodeSkipper).
	quiet bool
}

// newHooks finds what p implements under cfg, and whether it assigns
// only tasks of computing phases (ComputingPhaseAssigner).
func newHooks(p Policy, cfg *Config) (h hooks, computingOnly bool) {
	h.p = p
	h.tw, _ = p.(TaskWatcher)
	h.jw, _ = p.(JobWatcher)
	h.nw, _ = p.(NodeWatcher)
	h.tk, _ = p.(Ticker)
	h.uw, _ = p.(UsageWatcher)
	if cfg.TickInterval == 0 {
		h.tk = nil
	}
	if fs, ok := p.(FullNodeSkipper); ok && !cfg.DeliverFullHeartbeats {
		h.quiet = fs.SkipFullNodes()
	}
	if ca, ok := p.(ComputingPhaseAssigner); ok {
		computingOnly = ca.AssignsComputingPhasesOnly()
	}
	return h, computingOnly
}

// policyError wraps err, which the policy returned from its hook named
// by the format, in ErrPolicy, naming the policy, the hook and the
// virtual time: errors.Is finds both ErrPolicy and err.
func (s *Sim) policyError(err error, format string, args ...any) error {
	return fmt.Errorf("%w: %s: %s at %v: %w", ErrPolicy, s.hk.p.Name(), fmt.Sprintf(format, args...), time.Duration(s.eng.now), err)
}

// heartbeatCall calls Policy.Heartbeat for n and applies its decisions.
func (s *Sim) heartbeatCall(n *Node) error {
	s.rec.stats.Heartbeats++
	t0 := s.rec.calls.tic()
	dst, err := s.hk.p.Heartbeat(s.eng.Now(), n, &s.cluster, s.dst[:0])
	s.rec.calls.toc(t0)
	s.rec.stats.PolicyCalls++
	if err != nil {
		return s.policyError(err, "Heartbeat of %s", n.id)
	}
	s.applyAll(dst, n)
	return nil
}

// nodeChanged calls NodeWatcher.NodeChanged and applies its decisions.
func (s *Sim) nodeChanged(n *Node, up bool) error {
	t0 := s.rec.calls.tic()
	dst, err := s.hk.nw.NodeChanged(s.eng.Now(), n, up, &s.cluster, s.dst[:0])
	s.rec.calls.toc(t0)
	s.rec.stats.PolicyCalls++
	if err != nil {
		return s.policyError(err, "NodeChanged of %s", n.id)
	}
	s.applyAll(dst, n)
	return nil
}

// tickCall calls Ticker.Tick and applies its decisions (no default
// node).
func (s *Sim) tickCall() error {
	s.rec.stats.Ticks++
	t0 := s.rec.calls.tic()
	dst, err := s.hk.tk.Tick(s.eng.Now(), &s.cluster, s.dst[:0])
	s.rec.calls.toc(t0)
	s.rec.stats.PolicyCalls++
	if err != nil {
		return s.policyError(err, "Tick")
	}
	s.applyAll(dst, nil)
	return nil
}

// The notifications below happen inside an event (a task ends, a job
// ends): the first error a policy returns from one is kept in s.err,
// the event finishes without calling the policy again, and the run ends
// with it (Step).

// taskEnded tells a TaskWatcher that t's attempt ended.
func (s *Sim) taskEnded(t *Task, state schedkit.TaskState) {
	if s.hk.tw == nil || s.err != nil {
		return
	}
	if err := s.hk.tw.TaskEnded(s.eng.Now(), t, state); err != nil {
		s.err = s.policyError(err, "TaskEnded of %s", t.ID())
	}
}

// jobEnded tells a JobWatcher that j ended.
func (s *Sim) jobEnded(j *Job, outcome Outcome) {
	if s.hk.jw == nil || s.err != nil {
		return
	}
	if err := s.hk.jw.JobEnded(s.eng.Now(), j, outcome); err != nil {
		s.err = s.policyError(err, "JobEnded of %s", j.id)
	}
}

// taskSampled and nodeSampled pass a usage sample to a UsageWatcher.
func (s *Sim) taskSampled(now time.Time, t *Task, used resource.Vector) error {
	if err := s.hk.uw.TaskSampled(now, t, used); err != nil {
		return s.policyError(err, "TaskSampled of %s", t.ID())
	}
	return nil
}

func (s *Sim) nodeSampled(now time.Time, n *Node, used resource.Vector) error {
	if err := s.hk.uw.NodeSampled(now, n, used); err != nil {
		return s.policyError(err, "NodeSampled of %s", n.id)
	}
	return nil
}
